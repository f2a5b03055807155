//===- Reductions.cpp - relax reductions to linalg.generic reductions -----===//

#include "LoweringUtils.h"

using namespace mlir;
using namespace mlir::relax;
using namespace mlir::relax::lowering;

namespace {

/// relax.sum / relax.mean: a reduction generic accumulating in a wider type,
/// then one elementwise generic dividing (mean) and converting back, reshaped
/// for keepdims.
template <typename Op, bool IsMean>
struct ReductionLowering : OpConversionPattern<Op> {
  using OpConversionPattern<Op>::OpConversionPattern;
  LogicalResult matchAndRewrite(Op op, typename Op::Adaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    double count = IsMean ? static_cast<double>(op.getReducedElementCount()) : 1.0;
    rewriter.replaceOp(op, buildReduction(rewriter, op.getLoc(), adaptor.getX(),
                                          op.getReducedAxes(), op.getType(), count));
    return success();
  }
};

/// relax.collapse_sum_to: sums the broadcast dims, then reshapes.
struct CollapseSumToLowering : OpConversionPattern<CollapseSumToOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(CollapseSumToOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    RankedTensorType in = op.getX().getType(), out = op.getType();
    int64_t lead = in.getRank() - out.getRank();
    SmallVector<int64_t> axes;
    for (int64_t d = 0; d < in.getRank(); ++d)
      if (d < lead || (out.getDimSize(d - lead) == 1 && in.getDimSize(d) != 1))
        axes.push_back(d);
    rewriter.replaceOp(op, buildReduction(rewriter, op.getLoc(), adaptor.getX(), axes, out, 1.0));
    return success();
  }
};

} // namespace

void mlir::relax::lowering::populateReductionLoweringPatterns(RewritePatternSet &patterns) {
  patterns.add<ReductionLowering<SumOp, false>, ReductionLowering<MeanOp, true>,
               CollapseSumToLowering>(patterns.getContext());
}
