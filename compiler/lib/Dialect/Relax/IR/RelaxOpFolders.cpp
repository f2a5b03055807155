//===- RelaxOpFolders.cpp - relax folders and canonicalization patterns ---===//

#include "relax-mlir/Dialect/Relax/IR/RelaxOps.h"
#include "relax-mlir/Dialect/Relax/IR/GradientUtils.h"

#include "mlir/IR/Matchers.h"
#include "mlir/IR/PatternMatch.h"

using namespace mlir;
using namespace mlir::relax;

void mlir::relax::populateRelaxCanonicalizationPatterns(RewritePatternSet &patterns) {
  MLIRContext *ctx = patterns.getContext();
  for (RegisteredOperationName name : ctx->getRegisteredOperations())
    if (name.getDialectNamespace() == RelaxDialect::getDialectNamespace())
      name.getCanonicalizationPatterns(patterns, ctx);
}

//===----------------------------------------------------------------------===//
// Tuples
//===----------------------------------------------------------------------===//

OpFoldResult TupleGetItemOp::fold(FoldAdaptor) {
  if (auto tuple = getTuple().getDefiningOp<TupleOp>())
    return tuple.getFields()[getIndex()];
  return {};
}

//===----------------------------------------------------------------------===//
// Elementwise
//===----------------------------------------------------------------------===//

/// For `x op identity` (either order): the other operand, when it already has
/// the result type (a broadcasting identity must stay).
static OpFoldResult foldIdentityOperand(Value lhs, Value rhs, Type result,
                                        bool (*isIdentity)(Value)) {
  if (isIdentity(lhs) && rhs.getType() == result)
    return rhs;
  if (isIdentity(rhs) && lhs.getType() == result)
    return lhs;
  return {};
}

OpFoldResult AddOp::fold(FoldAdaptor) {
  return foldIdentityOperand(getLhs(), getRhs(), getType(), isKnownZero);
}

OpFoldResult SubtractOp::fold(FoldAdaptor) {
  if (isKnownZero(getRhs()) && getLhs().getType() == getType())
    return getLhs();
  return {};
}

OpFoldResult MultiplyOp::fold(FoldAdaptor) {
  return foldIdentityOperand(getLhs(), getRhs(), getType(), isKnownOne);
}

OpFoldResult AstypeOp::fold(FoldAdaptor) {
  if (getX().getType() == getType())
    return getX();
  return {};
}

//===----------------------------------------------------------------------===//
// Shape manipulation
//===----------------------------------------------------------------------===//

OpFoldResult PermuteDimsOp::fold(FoldAdaptor) {
  SmallVector<int64_t> perm = getPermutation();
  if (llvm::equal(perm, llvm::seq<int64_t>(0, perm.size())))
    return getX();
  // permute_dims(permute_dims(x, p), q) is x when the two permutations cancel.
  if (auto inner = getX().getDefiningOp<PermuteDimsOp>()) {
    SmallVector<int64_t> innerPerm = inner.getPermutation();
    bool identity = true;
    for (auto [i, p] : llvm::enumerate(perm))
      identity &= innerPerm[p] == static_cast<int64_t>(i);
    if (identity)
      return inner.getX();
  }
  return {};
}

/// True when `op` swaps the two innermost axes and keeps the others.
static bool swapsLastTwo(PermuteDimsOp op) {
  SmallVector<int64_t> perm = op.getPermutation();
  int64_t rank = perm.size();
  if (rank < 2)
    return false;
  for (int64_t i = 0; i < rank - 2; ++i)
    if (perm[i] != i)
      return false;
  return perm[rank - 2] == rank - 1 && perm[rank - 1] == rank - 2;
}


namespace {
/// (a b)^T = b^T a^T, applied when an operand is itself a transpose so that the
/// transposes cancel: permute_dims(matmul(a, permute_dims(c))) becomes
/// matmul(c, permute_dims(a)).
struct TransposeOfMatmul : OpRewritePattern<PermuteDimsOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(PermuteDimsOp op, PatternRewriter &rewriter) const override {
    auto matmul = op.getX().getDefiningOp<MatmulOp>();
    if (!matmul || !swapsLastTwo(op))
      return failure();
    Value a = matmul.getLhs(), b = matmul.getRhs();
    if (cast<RankedTensorType>(a.getType()).getRank() < 2 ||
        cast<RankedTensorType>(b.getType()).getRank() < 2)
      return failure();
    auto isTranspose = [](Value v) {
      auto t = v.getDefiningOp<PermuteDimsOp>();
      return t && swapsLastTwo(t);
    };
    if (!isTranspose(a) && !isTranspose(b))
      return failure();
    Location loc = op.getLoc();
    rewriter.replaceOpWithNewOp<MatmulOp>(op, buildTransposeLastTwo(rewriter, loc, b),
                                          buildTransposeLastTwo(rewriter, loc, a));
    return success();
  }
};
} // namespace

void PermuteDimsOp::getCanonicalizationPatterns(RewritePatternSet &patterns,
                                                MLIRContext *context) {
  patterns.add<TransposeOfMatmul>(context);
}

OpFoldResult ReshapeOp::fold(FoldAdaptor) {
  if (getX().getType() == getType())
    return getX();
  // reshape(reshape(y)) reads y directly.
  if (auto inner = getX().getDefiningOp<ReshapeOp>()) {
    getXMutable().assign(inner.getX());
    return getResult();
  }
  return {};
}

OpFoldResult BroadcastToOp::fold(FoldAdaptor) {
  return getX().getType() == getType() ? getX() : OpFoldResult();
}

OpFoldResult CollapseSumToOp::fold(FoldAdaptor) {
  return getX().getType() == getType() ? getX() : OpFoldResult();
}

/// A pad by nothing is its operand.
OpFoldResult PadOp::fold(FoldAdaptor) {
  if (llvm::all_of(getPadWidth(), [](int64_t w) { return w == 0; }))
    return getX();
  return {};
}

/// A slice that keeps every element in order is its operand.
OpFoldResult StridedSliceOp::fold(FoldAdaptor) {
  RankedTensorType type = getX().getType();
  for (auto [d, s] : llvm::enumerate(getAxisSlices()))
    if (s.start != 0 || s.stride != 1 || s.count != type.getDimSize(d))
      return {};
  return getX();
}
