//===- Shape.cpp - relax shape ops to tensor and linalg ops ---------------===//

#include "LoweringUtils.h"

using namespace mlir;
using namespace mlir::relax;
using namespace mlir::relax::lowering;

namespace {

/// relax.reshape through collapse_shape/expand_shape.
struct ReshapeLowering : OpConversionPattern<ReshapeOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(ReshapeOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    rewriter.replaceOp(op, reshapeTensor(rewriter, op.getLoc(), adaptor.getX(), op.getType()));
    return success();
  }
};

/// relax.permute_dims to linalg.transpose.
struct PermuteDimsLowering : OpConversionPattern<PermuteDimsOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(PermuteDimsOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    Value init = emptyTensor(rewriter, op.getLoc(), op.getType());
    auto t = linalg::TransposeOp::create(rewriter, op.getLoc(), adaptor.getX(), init,
                                         op.getPermutation());
    rewriter.replaceOp(op, t->getResults());
    return success();
  }
};

} // namespace

void mlir::relax::lowering::populateShapeLoweringPatterns(RewritePatternSet &patterns) {
  patterns.add<ReshapeLowering, PermuteDimsLowering>(patterns.getContext());
}
