//===- ReductionBatching.cpp - batching rules of reductions and products --===//
//
// Reductions, cumsum and the softmaxes: the op over the batched operand with
// its axes moved past the batch dimension. matmul: numpy's batched matmul,
// a vector operand made a matrix first.
//
//===----------------------------------------------------------------------===//

#include "relax-mlir/Dialect/Relax/IR/BatchingUtils.h"
#include "relax-mlir/Dialect/Relax/IR/GradientUtils.h"
#include "relax-mlir/Dialect/Relax/IR/RelaxOps.h"

using namespace mlir;
using namespace mlir::relax;

/// The rule of a reduction over `axis` (absent: every axis) with `keepdims`.
template <typename Op>
static LogicalResult batchReduction(Op op, OpBuilder &b, int64_t n, ValueRange operands,
                                    MutableArrayRef<Value> results) {
  int64_t rank = op.getX().getType().getRank();
  SmallVector<int64_t> axes;
  if (std::optional<ArrayRef<int64_t>> given = op.getAxis())
    for (int64_t a : *given)
      axes.push_back(batchedAxis(a, rank));
  else
    for (int64_t a = 1; a <= rank; ++a)
      axes.push_back(a);
  if (axes.empty() && !op.getAxis()) {
    // A 0-d example: nothing to reduce; the variance of one value is 0.
    results[0] = std::is_same_v<Op, VarianceOp>
                     ? ZerosLikeOp::create(b, op.getLoc(), operands[0]).getResult()
                     : operands[0];
    return success();
  }
  results[0] = createBatchedWith(b, op, operands, n, op.getAxisAttrName(),
                                 b.getDenseI64ArrayAttr(axes));
  return success();
}

#define RELAX_REDUCTION_BATCHING(Op)                                                       \
  LogicalResult Op::buildBatched(OpBuilder &b, int64_t n, ValueRange operands,              \
                                 ArrayRef<bool>, MutableArrayRef<Value> results) {          \
    return batchReduction(*this, b, n, operands, results);                                  \
  }

RELAX_REDUCTION_BATCHING(SumOp)
RELAX_REDUCTION_BATCHING(MeanOp)
RELAX_REDUCTION_BATCHING(VarianceOp)
RELAX_REDUCTION_BATCHING(MaxOp)
RELAX_REDUCTION_BATCHING(MinOp)
RELAX_REDUCTION_BATCHING(ProdOp)

/// argmax/argmin along an axis: the axis past the batch; without one, over
/// each example flattened (then reshaped for keepdims).
template <typename Op>
static LogicalResult batchArgExtremum(Op op, OpBuilder &b, int64_t n, ValueRange operands,
                                      MutableArrayRef<Value> results) {
  Location loc = op.getLoc();
  RankedTensorType x = op.getX().getType();
  if (std::optional<int64_t> axis = op.getAxis()) {
    results[0] = createBatchedWith(b, op, operands, n, op.getAxisAttrName(),
                                   b.getI64IntegerAttr(batchedAxis(*axis, x.getRank())));
    return success();
  }
  Value flat = vjp::reshapeTo(b, loc, operands[0], {n, x.getNumElements()});
  Value index = Op::create(b, loc, flat, b.getI64IntegerAttr(1), b.getBoolAttr(false));
  auto result = cast<RankedTensorType>(batchedType(op.getType(), n));
  results[0] = vjp::reshapeTo(b, loc, index, result.getShape());
  return success();
}

LogicalResult ArgmaxOp::buildBatched(OpBuilder &b, int64_t n, ValueRange operands,
                                     ArrayRef<bool>, MutableArrayRef<Value> results) {
  return batchArgExtremum(*this, b, n, operands, results);
}

LogicalResult ArgminOp::buildBatched(OpBuilder &b, int64_t n, ValueRange operands,
                                     ArrayRef<bool>, MutableArrayRef<Value> results) {
  return batchArgExtremum(*this, b, n, operands, results);
}

/// The rule of an op along one `axis` attribute (I64Attr).
static LogicalResult batchAlongAxis(Operation *op, int64_t axis, int64_t rank, OpBuilder &b,
                                    int64_t n, ValueRange operands,
                                    MutableArrayRef<Value> results) {
  results[0] = createBatchedWith(b, op, operands, n, "axis",
                                 b.getI64IntegerAttr(batchedAxis(axis, rank)));
  return success();
}

LogicalResult CumsumOp::buildBatched(OpBuilder &b, int64_t n, ValueRange operands,
                                     ArrayRef<bool>, MutableArrayRef<Value> results) {
  return batchAlongAxis(*this, getAxis(), getType().getRank(), b, n, operands, results);
}

LogicalResult SoftmaxOp::buildBatched(OpBuilder &b, int64_t n, ValueRange operands,
                                      ArrayRef<bool>, MutableArrayRef<Value> results) {
  return batchAlongAxis(*this, getAxis(), getType().getRank(), b, n, operands, results);
}

LogicalResult LogSoftmaxOp::buildBatched(OpBuilder &b, int64_t n, ValueRange operands,
                                         ArrayRef<bool>, MutableArrayRef<Value> results) {
  return batchAlongAxis(*this, getAxis(), getType().getRank(), b, n, operands, results);
}

/// numpy's matmul of a batch: a vector example is made a matrix first (a
/// row on the left, a column on the right, its unit axis dropped after),
/// then the batched operands are padded to the larger example rank so that
/// the unbatched one broadcasts over the batch.
LogicalResult MatmulOp::buildBatched(OpBuilder &b, int64_t n, ValueRange operands,
                                     ArrayRef<bool> batched, MutableArrayRef<Value> results) {
  Location loc = getLoc();
  SmallVector<Value> ops(operands);
  SmallVector<int64_t> ranks{getLhs().getType().getRank(), getRhs().getType().getRank()};
  // A vector becomes a matrix: (k) -> (1, k) on the left, (k, 1) on the right.
  for (int i : {0, 1}) {
    if (ranks[i] != 1)
      continue;
    auto type = cast<RankedTensorType>(ops[i].getType());
    SmallVector<int64_t> shape(type.getShape());
    shape.insert(shape.end() - (i == 0 ? 1 : 0), 1);
    ops[i] = vjp::reshapeTo(b, loc, ops[i], shape);
    ranks[i] = 2;
  }
  int64_t rank = std::max(ranks[0], ranks[1]);
  for (int i : {0, 1})
    if (batched[i])
      ops[i] = padExample(b, loc, ops[i], rank);
  auto lhsType = cast<RankedTensorType>(ops[0].getType());
  auto rhsType = cast<RankedTensorType>(ops[1].getType());
  // The product's shape: the broadcast batch axes, then m x n.
  int64_t outRank = std::max(lhsType.getRank(), rhsType.getRank());
  SmallVector<int64_t> shape(outRank, 1);
  for (auto type : {lhsType, rhsType})
    for (int64_t i = 0, e = type.getRank() - 2; i < e; ++i) {
      int64_t &d = shape[outRank - type.getRank() + i];
      d = std::max(d, type.getDimSize(i));
    }
  shape[outRank - 2] = lhsType.getDimSize(lhsType.getRank() - 2);
  shape[outRank - 1] = rhsType.getDimSize(rhsType.getRank() - 1);
  Value product = MatmulOp::create(b, loc, getType().clone(shape), ops[0], ops[1]);
  // Back to the example's result shape (a vector operand's unit axis gone).
  results[0] = vjp::reshapeTo(b, loc, product,
                              cast<RankedTensorType>(batchedType(getType(), n)).getShape());
  return success();
}
