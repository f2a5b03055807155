//===- Collective.cpp - relax collectives to the mpi dialect --------------===//
//
// relax.all_reduce becomes calls of `@__relax_mpi_allreduce_sum_<type>(send,
// recv)` (1-D buffers) that the CPU pipeline's relax-mpi-to-llvm turns into
// upstream's `mpi.allreduce` (MPI_SUM) on `mpi.comm_world` once buffers are
// deallocated: upstream's ownership-based deallocation refuses mpi.allreduce,
// whose memory effects MLIR 22 does not declare, and takes a call as reading
// and writing its operands. The world communicator is one for the process's
// life (upstream's shard-to-mpi conversion splits a new one on every call and
// never frees it). The operand is copied into a fresh contiguous buffer
// (whatever view it is), flattened, and reduced into a new buffer in calls of
// at most 2^31 - 1 elements (MPI's counts are `int`); the result is that
// buffer as a tensor.
//
//===----------------------------------------------------------------------===//

#include "LoweringUtils.h"

#include "llvm/Support/raw_ostream.h"

using namespace mlir;
using namespace mlir::relax;
using namespace mlir::relax::lowering;

namespace {

/// The most elements one MPI call may take (its count is an `int`).
constexpr int64_t kMaxMPICount = std::numeric_limits<int32_t>::max();

struct AllReduceLowering : OpConversionPattern<AllReduceOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(AllReduceOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto type = cast<RankedTensorType>(op.getType());
    int64_t count = type.getNumElements();
    Type element = type.getElementType();
    auto flatType = RankedTensorType::get({count}, element);
    // A contiguous copy, flattened, as the send buffer.
    Value copy = linalg::CopyOp::create(rewriter, loc, adaptor.getX(),
                                        emptyTensor(rewriter, loc, type))
                     .getResult(0);
    // Every dimension into the one of the flat buffer; a rank-0 tensor is
    // expanded to it (no reassociation group: tensor<f32> <-> tensor<1xf32>).
    SmallVector<ReassociationIndices> all;
    if (type.getRank() > 0)
      all.emplace_back(llvm::to_vector(llvm::seq<int64_t>(0, type.getRank())));
    Value flat = copy;
    if (type.getRank() == 0)
      flat = tensor::ExpandShapeOp::create(rewriter, loc, flatType, copy, all).getResult();
    else if (type.getRank() > 1)
      flat = tensor::CollapseShapeOp::create(rewriter, loc, flatType, copy, all).getResult();
    auto flatMemref = MemRefType::get({count}, element);
    Value send = bufferization::ToBufferOp::create(rewriter, loc, flatMemref, flat,
                                                   /*readOnly=*/true);
    Value recv = memref::AllocOp::create(rewriter, loc, flatMemref);
    // One declaration per element type, of 1-D buffers of any size and
    // offset.
    auto anyBuffer = MemRefType::get(
        {ShapedType::kDynamic}, element,
        StridedLayoutAttr::get(getContext(), ShapedType::kDynamic, {1}));
    std::string name;
    llvm::raw_string_ostream(name) << kAllReducePrefix << element;
    auto module = op->getParentOfType<ModuleOp>();
    if (!module.lookupSymbol<func::FuncOp>(name)) {
      OpBuilder::InsertionGuard guard(rewriter);
      rewriter.setInsertionPointToStart(module.getBody());
      auto callee = func::FuncOp::create(rewriter, loc, name,
                                         rewriter.getFunctionType({anyBuffer, anyBuffer}, {}));
      callee.setPrivate();
    }
    for (int64_t offset = 0; offset < count; offset += kMaxMPICount) {
      int64_t size = std::min(kMaxMPICount, count - offset);
      auto piece = [&](Value buffer) -> Value {
        Value view = buffer;
        if (offset != 0 || size != count)
          view = memref::SubViewOp::create(
              rewriter, loc, buffer, ArrayRef<OpFoldResult>{rewriter.getIndexAttr(offset)},
              ArrayRef<OpFoldResult>{rewriter.getIndexAttr(size)},
              ArrayRef<OpFoldResult>{rewriter.getIndexAttr(1)});
        return memref::CastOp::create(rewriter, loc, anyBuffer, view);
      };
      func::CallOp::create(rewriter, loc, name, TypeRange{}, ValueRange{piece(send), piece(recv)});
    }
    Value result = bufferization::ToTensorOp::create(rewriter, loc, flatType, recv,
                                                     /*restrict=*/true, /*writable=*/true);
    if (type.getRank() == 0)
      result = tensor::CollapseShapeOp::create(rewriter, loc, type, result, all);
    else if (type.getRank() > 1)
      result = tensor::ExpandShapeOp::create(rewriter, loc, type, result, all);
    rewriter.replaceOp(op, result);
    return success();
  }
};

} // namespace

void mlir::relax::lowering::populateCollectiveLoweringPatterns(RewritePatternSet &patterns) {
  patterns.add<AllReduceLowering>(patterns.getContext());
}
