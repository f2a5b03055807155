//===- Gathers.cpp - gathers from strided views addressed by their strides ===//
//
// relax-address-strided-gathers: runs right after bufferization, before any
// canonicalization sees a gather on a strided memref.
//
//===----------------------------------------------------------------------===//

#include "relax-mlir/CodeGen/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

namespace mlir::relax {
#define GEN_PASS_DEF_ADDRESSSTRIDEDGATHERSPASS
#include "relax-mlir/CodeGen/Passes.h.inc"
} // namespace mlir::relax

using namespace mlir;

namespace {
/// Gathers from strided views (a slice of the table, a patch of a sliced
/// image) addressed through the view's strides. The linalg vectorizer
/// builds a `vector.gather` from a tensor with each lane's position in the
/// tensor's row-major order, and once the tensor is a strided memref
/// (a subview), upstream's lowering adds that position to the base address
/// as if the rows were contiguous (`W[:, :3][tokens]` read the wrong
/// columns; a 1-wide convolution of a sliced image the wrong pixels), or
/// fails when the innermost stride is not 1 (`W[:, ::2][tokens]`). Each
/// such gather becomes one from a 1-D unit-stride view of the whole buffer,
/// the row-major positions delinearized by the view's sizes and recombined
/// with its strides and offset.
void addressGathersByStrides(func::FuncOp func) {
  SmallVector<vector::GatherOp> gathers;
  func.walk([&](vector::GatherOp gather) {
    auto type = dyn_cast<MemRefType>(gather.getBase().getType());
    if (type && !type.getLayout().isIdentity())
      gathers.push_back(gather);
  });
  for (vector::GatherOp gather : gathers) {
    OpBuilder b(gather);
    Location loc = gather.getLoc();
    auto type = cast<MemRefType>(gather.getBase().getType());
    VectorType indexType = gather.getIndices().getType();
    auto lanes = VectorType::get(indexType.getShape(), b.getIndexType());
    auto splat = [&](Value v) { return vector::BroadcastOp::create(b, loc, lanes, v).getResult(); };
    auto meta = memref::ExtractStridedMetadataOp::create(b, loc, gather.getBase());
    // The row-major position of the base indices, plus each lane's.
    Value zero = arith::ConstantIndexOp::create(b, loc, 0);
    Value one = arith::ConstantIndexOp::create(b, loc, 1);
    Value base = zero;
    for (auto [size, index] : llvm::zip(meta.getSizes(), gather.getOffsets()))
      base = arith::AddIOp::create(b, loc, arith::MulIOp::create(b, loc, base, size), index);
    Value position = gather.getIndices();
    if (!indexType.getElementType().isIndex())
      position = arith::IndexCastOp::create(b, loc, lanes, position);
    position = arith::AddIOp::create(b, loc, position, splat(base));
    // Delinearized innermost first; each index times its stride.
    Value address = splat(zero);
    Value extent = one;
    for (int64_t d = type.getRank() - 1; d >= 0; --d) {
      Value size = meta.getSizes()[d], stride = meta.getStrides()[d];
      Value index = position;
      if (d > 0) {
        index = arith::RemUIOp::create(b, loc, position, splat(size));
        position = arith::DivUIOp::create(b, loc, position, splat(size));
      }
      address = arith::AddIOp::create(
          b, loc, address, arith::MulIOp::create(b, loc, index, splat(stride)));
      Value last = arith::SubIOp::create(b, loc, arith::MaxUIOp::create(b, loc, size, one), one);
      extent = arith::AddIOp::create(b, loc, extent, arith::MulIOp::create(b, loc, last, stride));
    }
    auto flatType = MemRefType::get(
        {ShapedType::kDynamic}, type.getElementType(),
        StridedLayoutAttr::get(b.getContext(), ShapedType::kDynamic, {1}), type.getMemorySpace());
    Value flat = memref::ReinterpretCastOp::create(
        b, loc, flatType, meta.getBaseBuffer(), OpFoldResult(meta.getOffset()),
        ArrayRef<OpFoldResult>{extent}, ArrayRef<OpFoldResult>{b.getIndexAttr(1)});
    auto replacement = vector::GatherOp::create(b, loc, gather.getType(), flat, ValueRange{zero},
                                                address, gather.getMask(), gather.getPassThru(),
                                                gather.getAlignmentAttr());
    gather.replaceAllUsesWith(replacement.getResult());
    gather.erase();
  }
}


struct AddressStridedGathersPass
    : relax::impl::AddressStridedGathersPassBase<AddressStridedGathersPass> {
  void runOnOperation() final { addressGathersByStrides(getOperation()); }
};
} // namespace
