//===- Debug.cpp - relax.debug_print to runtime calls ---------------------===//
//
// relax.debug_print becomes calls of the runtime's
// `relaxDebug(spec, index, data)` (runtime/Debug.cpp): one per value with the
// address of a contiguous copy of it, then one with index -1 that prints.
// `spec` is the address of a NUL-terminated JSON constant: the op's format
// object and each value's shape and element type, which the printer reads
// the bytes with. The calls are side effects: they keep their order.
//
//===----------------------------------------------------------------------===//

#include "LoweringUtils.h"

#include "llvm/Support/raw_ostream.h"

using namespace mlir;
using namespace mlir::relax;
using namespace mlir::relax::lowering;

namespace {

constexpr StringLiteral kDebugEntry = "relaxDebug";

/// The address of `tensor`'s buffer as i64 (read-only: the code only reads it).
Value addressOf(OpBuilder &b, Location loc, Value tensor) {
  auto type = cast<RankedTensorType>(tensor.getType());
  auto memref = MemRefType::get(type.getShape(), type.getElementType());
  Value buffer = bufferization::ToBufferOp::create(b, loc, memref, tensor, /*readOnly=*/true);
  Value index = memref::ExtractAlignedPointerAsIndexOp::create(b, loc, buffer);
  return arith::IndexCastOp::create(b, loc, b.getI64Type(), index);
}

/// The JSON the printer reads: {"spec": <the op's format object>,
/// "leaves": [[shape, element type], ...]}.
std::string printerSpec(DebugPrintOp op) {
  std::string text;
  llvm::raw_string_ostream os(text);
  os << "{\"spec\": " << op.getFormat() << ", \"leaves\": [";
  llvm::interleaveComma(op.getValues().getTypes(), os, [&](Type t) {
    auto type = cast<RankedTensorType>(t);
    os << "[[";
    llvm::interleaveComma(type.getShape(), os);
    os << "], \"" << type.getElementType() << "\"]";
  });
  os << "]}";
  return text;
}

struct DebugPrintLowering : OpConversionPattern<DebugPrintOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(DebugPrintOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto module = op->getParentOfType<ModuleOp>();
    Type i64 = rewriter.getI64Type();
    auto calleeType = rewriter.getFunctionType({i64, i64, i64}, {});
    if (!module.lookupSymbol<func::FuncOp>(kDebugEntry)) {
      OpBuilder::InsertionGuard guard(rewriter);
      rewriter.setInsertionPointToStart(module.getBody());
      auto callee = func::FuncOp::create(rewriter, loc, kDebugEntry, calleeType);
      callee.setPrivate();
    }
    std::string spec = printerSpec(op);
    SmallVector<int8_t> bytes(spec.begin(), spec.end());
    bytes.push_back(0);
    auto specType = RankedTensorType::get({static_cast<int64_t>(bytes.size())},
                                          rewriter.getIntegerType(8));
    Value specTensor = arith::ConstantOp::create(
        rewriter, loc, DenseElementsAttr::get(specType, ArrayRef<int8_t>(bytes)));
    Value specAddress = addressOf(rewriter, loc, specTensor);
    auto call = [&](int64_t index, Value data) {
      Value i = arith::ConstantOp::create(rewriter, loc, rewriter.getI64IntegerAttr(index));
      func::CallOp::create(rewriter, loc, kDebugEntry, TypeRange{},
                           ValueRange{specAddress, i, data});
    };
    for (auto [i, value] : llvm::enumerate(adaptor.getValues())) {
      auto type = cast<RankedTensorType>(value.getType());
      // A fresh contiguous buffer of the value (whatever view it is).
      Value copy = linalg::CopyOp::create(rewriter, loc, value,
                                          emptyTensor(rewriter, loc, type))
                       .getResult(0);
      call(static_cast<int64_t>(i), addressOf(rewriter, loc, copy));
    }
    call(-1, arith::ConstantOp::create(rewriter, loc, rewriter.getI64IntegerAttr(0)));
    rewriter.eraseOp(op);
    return success();
  }
};

} // namespace

void mlir::relax::lowering::populateDebugLoweringPatterns(RewritePatternSet &patterns) {
  patterns.add<DebugPrintLowering>(patterns.getContext());
}
