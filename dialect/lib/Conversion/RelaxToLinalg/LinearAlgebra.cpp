//===- LinearAlgebra.cpp - relax.matmul to linalg.generic -----------------===//

#include "LoweringUtils.h"

using namespace mlir;
using namespace mlir::relax;
using namespace mlir::relax::lowering;

namespace {

/// relax.matmul to one linalg.generic over (batch..., [n], [m], k): a 1-D
/// operand simply has no n (or m) dim, and broadcast batch dims read index 0.
struct MatmulLowering : OpConversionPattern<MatmulOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(MatmulOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    MLIRContext *ctx = op.getContext();
    Location loc = op.getLoc();
    auto a = cast<RankedTensorType>(op.getLhs().getType());
    auto bt = cast<RankedTensorType>(op.getRhs().getType());
    auto out = cast<RankedTensorType>(op.getType());
    bool aVec = a.getRank() == 1, bVec = bt.getRank() == 1;
    int64_t batch = out.getRank() - (aVec ? 0 : 1) - (bVec ? 0 : 1);
    int64_t nDim = batch, mDim = batch + (aVec ? 0 : 1), kDim = mDim + (bVec ? 0 : 1);
    int64_t numDims = kDim + 1;
    auto d = [&](int64_t i) { return getAffineDimExpr(i, ctx); };
    auto batchExprs = [&](RankedTensorType t, int64_t batchRank) {
      SmallVector<AffineExpr> exprs;
      for (int64_t i = 0; i < batchRank; ++i) {
        int64_t j = batch - batchRank + i;
        exprs.push_back(broadcastIndex(ctx, t.getDimSize(i), out.getDimSize(j), j));
      }
      return exprs;
    };
    SmallVector<AffineExpr> aExprs = batchExprs(a, aVec ? 0 : a.getRank() - 2);
    if (!aVec)
      aExprs.push_back(d(nDim));
    aExprs.push_back(d(kDim));
    SmallVector<AffineExpr> bExprs = batchExprs(bt, bVec ? 0 : bt.getRank() - 2);
    bExprs.push_back(d(kDim));
    if (!bVec)
      bExprs.push_back(d(mDim));
    SmallVector<AffineExpr> outExprs;
    for (int64_t i = 0; i < batch; ++i)
      outExprs.push_back(d(i));
    if (!aVec)
      outExprs.push_back(d(nDim));
    if (!bVec)
      outExprs.push_back(d(mDim));
    SmallVector<AffineMap> maps = {AffineMap::get(numDims, 0, aExprs, ctx),
                                   AffineMap::get(numDims, 0, bExprs, ctx),
                                   AffineMap::get(numDims, 0, outExprs, ctx)};
    SmallVector<utils::IteratorType> iterators(numDims, utils::IteratorType::parallel);
    iterators[kDim] = utils::IteratorType::reduction;
    // f16 and bf16 products accumulate in f32.
    Type elt = out.getElementType(), acc = matmulAccumulatorType(elt);
    auto accType = out.clone(acc);
    Value init = linalg::FillOp::create(rewriter, loc, scalar(rewriter, loc, acc, 0.0),
                                        emptyTensor(rewriter, loc, accType))
                     .getResult(0);
    auto generic = linalg::GenericOp::create(
        rewriter, loc, TypeRange{accType}, ValueRange{adaptor.getLhs(), adaptor.getRhs()},
        ValueRange{init}, maps, iterators, [&](OpBuilder &b, Location l, ValueRange x) {
          Value lhs = convertScalar(b, l, x[0], acc), rhs = convertScalar(b, l, x[1], acc);
          Value sum = buildAdd(b, l, x[2], buildMul(b, l, lhs, rhs));
          linalg::YieldOp::create(b, l, sum);
        });
    rewriter.replaceOp(op, finishReduction(rewriter, loc, generic.getResult(0), elt, 1.0));
    return success();
  }
};

} // namespace

void mlir::relax::lowering::populateLinearAlgebraLoweringPatterns(RewritePatternSet &patterns) {
  patterns.add<MatmulLowering>(patterns.getContext());
}
