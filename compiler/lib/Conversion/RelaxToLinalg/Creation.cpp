//===- Creation.cpp - relax creation ops to constants and fills -----------===//

#include "LoweringUtils.h"

using namespace mlir;
using namespace mlir::relax;
using namespace mlir::relax::lowering;

namespace {

/// relax.zeros / relax.ones (and their *_like forms) to a splat constant (made a fill below when it has
/// more than one element).
template <typename Op, int FillValue>
struct FillLowering : OpConversionPattern<Op> {
  using OpConversionPattern<Op>::OpConversionPattern;
  LogicalResult matchAndRewrite(Op op, typename Op::Adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    auto type = cast<RankedTensorType>(op.getType());
    Type elt = type.getElementType();
    Attribute v = isa<FloatType>(elt) ? Attribute(rewriter.getFloatAttr(elt, FillValue))
                                      : Attribute(rewriter.getIntegerAttr(elt, FillValue));
    rewriter.replaceOpWithNewOp<arith::ConstantOp>(op, DenseElementsAttr::get(type, v));
    return success();
  }
};

/// relax.full / relax.full_like: the 0-d value extracted and filled in.
template <typename Op>
struct FullLowering : OpConversionPattern<Op> {
  using OpConversionPattern<Op>::OpConversionPattern;
  LogicalResult matchAndRewrite(Op op, typename Op::Adaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto type = cast<RankedTensorType>(op.getType());
    Value element = tensor::ExtractOp::create(rewriter, loc, adaptor.getValue(), ValueRange{});
    rewriter.replaceOp(op, filledTensor(rewriter, loc, type, element));
    return success();
  }
};

} // namespace

/// A splat tensor constant with more than one element becomes a linalg.fill:
/// bufferization would materialize it as a global holding every element
/// (`relax.ones : tensor<100000000xf32>` compiled into a 400 MB constant).
void mlir::relax::lowering::splatConstantsToFills(ModuleOp module) {
  module.walk([](arith::ConstantOp op) {
    auto attr = dyn_cast<SplatElementsAttr>(op.getValue());
    auto type = dyn_cast<RankedTensorType>(op.getType());
    if (!attr || !type || type.getNumElements() <= 1)
      return;
    OpBuilder b(op);
    Value element = arith::ConstantOp::create(b, op.getLoc(),
                                              cast<TypedAttr>(attr.getSplatValue<Attribute>()));
    op.replaceAllUsesWith(filledTensor(b, op.getLoc(), type, element));
    op.erase();
  });
}

void mlir::relax::lowering::populateCreationLoweringPatterns(RewritePatternSet &patterns) {
  patterns.add<FillLowering<ZerosOp, 0>, FillLowering<OnesOp, 1>, FillLowering<ZerosLikeOp, 0>,
               FillLowering<OnesLikeOp, 1>, FullLowering<FullOp>, FullLowering<FullLikeOp>>(
      patterns.getContext());
}
