//===- LinearAlgebra.cpp - relax.matmul to linalg.generic -----------------===//

#include "LoweringUtils.h"

using namespace mlir;
using namespace mlir::relax;
using namespace mlir::relax::lowering;

namespace {

/// The operand of `v`'s defining permute_dims when that only swaps the two
/// innermost axes (a matrix transpose, batch axes kept): the matmul then reads
/// it through a transposed indexing map instead of materializing the transpose.
static Value transposedSource(Value v) {
  auto permute = v.getDefiningOp<PermuteDimsOp>();
  if (!permute)
    return {};
  SmallVector<int64_t> perm = permute.getPermutation();
  int64_t rank = static_cast<int64_t>(perm.size());
  if (rank < 2)
    return {};
  for (int64_t i = 0; i < rank - 2; ++i)
    if (perm[i] != i)
      return {};
  if (perm[rank - 2] != rank - 1 || perm[rank - 1] != rank - 2)
    return {};
  return permute.getX();
}

/// relax.matmul to one linalg.generic over (batch..., [n], [m], k): a 1-D
/// operand simply has no n (or m) dim, broadcast batch dims read index 0, and
/// an operand transposed by permute_dims (last two axes) is read through the
/// transposed map.
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
    Value lhs = adaptor.getLhs(), rhs = adaptor.getRhs();
    // Read a transposed operand's source with its last two exprs swapped.
    if (Value src = aVec ? Value() : transposedSource(op.getLhs())) {
      std::swap(aExprs[aExprs.size() - 2], aExprs.back());
      lhs = rewriter.getRemappedValue(src);
    }
    if (Value src = bVec ? Value() : transposedSource(op.getRhs())) {
      std::swap(bExprs[bExprs.size() - 2], bExprs.back());
      rhs = rewriter.getRemappedValue(src);
    }
    SmallVector<AffineMap> maps = {AffineMap::get(numDims, 0, aExprs, ctx),
                                   AffineMap::get(numDims, 0, bExprs, ctx),
                                   AffineMap::get(numDims, 0, outExprs, ctx)};
    SmallVector<utils::IteratorType> iterators(numDims, utils::IteratorType::parallel);
    iterators[kDim] = utils::IteratorType::reduction;
    // f16 and bf16 products accumulate in f32.
    Type elt = out.getElementType(), acc = matmulAccumulatorType(elt);
    auto accType = out.clone(acc);
    Value init = filledTensor(rewriter, loc, accType, rewriter.getZeroAttr(acc));
    auto generic = linalg::GenericOp::create(
        rewriter, loc, TypeRange{accType}, ValueRange{lhs, rhs},
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
