//===- ReductionGradients.cpp - gradients of relax reductions -------------===//

#include "relax-mlir/Dialect/Relax/IR/GradientUtils.h"
#include "relax-mlir/Dialect/Relax/IR/RelaxOps.h"

using namespace mlir;
using namespace mlir::relax;
using namespace mlir::relax::vjp;

//===----------------------------------------------------------------------===//
// Reductions: the adjoint is broadcast back over the reduced axes.
//===----------------------------------------------------------------------===//

/// Broadcasts the adjoint `g` of a reduction of `x` over `axes` back to x's shape.
static Value broadcastReductionGrad(OpBuilder &b, Location loc, Value g, Value x,
                                    ArrayRef<int64_t> axes) {
  Value shaped = keepReducedAxes(b, loc, g, x, axes);
  if (shaped.getType() == x.getType())
    return shaped;
  return BroadcastToOp::create(b, loc, x.getType(), shaped);
}

LogicalResult SumOp::buildVectorJacobianProduct(OpBuilder &b, ValueRange resultGrads,
                                                ArrayRef<bool>,
                                                MutableArrayRef<Value> operandGrads) {
  operandGrads[0] = broadcastReductionGrad(b, getLoc(), resultGrads[0], getX(), getReducedAxes());
  return success();
}

LogicalResult MeanOp::buildVectorJacobianProduct(OpBuilder &b, ValueRange resultGrads,
                                                 ArrayRef<bool>,
                                                 MutableArrayRef<Value> operandGrads) {
  Location loc = getLoc();
  double count = static_cast<double>(getReducedElementCount());
  Value scaled = MultiplyOp::create(b, loc, resultGrads[0],
                                    scalarLike(b, loc, getResult(), 1.0 / count));
  operandGrads[0] = broadcastReductionGrad(b, loc, scaled, getX(), getReducedAxes());
  return success();
}

// d var = 2 (x - mean) / N
LogicalResult VarianceOp::buildVectorJacobianProduct(OpBuilder &b, ValueRange resultGrads,
                                                     ArrayRef<bool>,
                                                     MutableArrayRef<Value> operandGrads) {
  Location loc = getLoc();
  Value x = getX();
  SmallVector<int64_t> axes = getReducedAxes();
  double count = static_cast<double>(getReducedElementCount());
  Value g = keepReducedAxes(b, loc, resultGrads[0], x, axes);
  Value centered = sub(b, loc, x, meanKeep(b, loc, x, axes));
  Value scaled = mul(b, loc, g, scalarLike(b, loc, x, 2.0 / count));
  operandGrads[0] = mul(b, loc, scaled, centered);
  return success();
}

/// `v` reduced by a sum over the axes of `op`, with op's keepdims: op's result
/// type.
template <typename Op>
static Value sumLikeResult(OpBuilder &b, Op op, Value v) {
  return SumOp::create(b, op.getLoc(), v, b.getDenseI64ArrayAttr(op.getReducedAxes()),
                       b.getBoolAttr(op.getKeepdims()));
}

// d var = 2 sum((x - mean) t) / N
LogicalResult VarianceOp::buildJacobianVectorProduct(OpBuilder &b, ValueRange operandTangents,
                                                     MutableArrayRef<Value> resultTangents) {
  Location loc = getLoc();
  Value x = getX();
  double count = static_cast<double>(getReducedElementCount());
  Value centered = sub(b, loc, x, meanKeep(b, loc, x, getReducedAxes()));
  Value dot = sumLikeResult(b, *this, mul(b, loc, centered, operandTangents[0]));
  resultTangents[0] = mul(b, loc, dot, scalarLike(b, loc, x, 2.0 / count));
  return success();
}

/// max/min: the adjoint is split evenly among the elements equal to the
/// result (a subgradient; ties share it, as in JAX).
/// 1 where x equals the extremum of its slice (x's type).
template <typename Op>
static Value extremumMask(Op op, OpBuilder &b) {
  Location loc = op.getLoc();
  Value x = op.getX();
  Type elt = cast<RankedTensorType>(x.getType()).getElementType();
  Value y = keepReducedAxes(b, loc, op.getResult(), x, op.getReducedAxes());
  return astype(b, loc, EqualOp::create(b, loc, x, y), elt);
}

template <typename Op>
static LogicalResult extremumVjp(Op op, OpBuilder &b, Value resultGrad,
                                 MutableArrayRef<Value> operandGrads) {
  Location loc = op.getLoc();
  Value x = op.getX();
  SmallVector<int64_t> axes = op.getReducedAxes();
  Value mask = extremumMask(op, b);
  Value count = sumOver(b, loc, mask, axes, /*keepdims=*/true);
  Value g = keepReducedAxes(b, loc, resultGrad, x, axes);
  operandGrads[0] = mul(b, loc, mask, div(b, loc, g, count));
  return success();
}

/// The transpose of extremumVjp: the mean of the tangent over the ties.
template <typename Op>
static LogicalResult extremumJvp(Op op, OpBuilder &b, Value tangent,
                                 MutableArrayRef<Value> resultTangents) {
  Location loc = op.getLoc();
  Value mask = extremumMask(op, b);
  Value total = sumLikeResult(b, op, mul(b, loc, mask, tangent));
  Value count = sumLikeResult(b, op, mask);
  resultTangents[0] = div(b, loc, total, count);
  return success();
}

LogicalResult MaxOp::buildVectorJacobianProduct(OpBuilder &b, ValueRange resultGrads,
                                                ArrayRef<bool>,
                                                MutableArrayRef<Value> operandGrads) {
  return extremumVjp(*this, b, resultGrads[0], operandGrads);
}

LogicalResult MinOp::buildVectorJacobianProduct(OpBuilder &b, ValueRange resultGrads,
                                                ArrayRef<bool>,
                                                MutableArrayRef<Value> operandGrads) {
  return extremumVjp(*this, b, resultGrads[0], operandGrads);
}

LogicalResult MaxOp::buildJacobianVectorProduct(OpBuilder &b, ValueRange operandTangents,
                                                MutableArrayRef<Value> resultTangents) {
  return extremumJvp(*this, b, operandTangents[0], resultTangents);
}

LogicalResult MinOp::buildJacobianVectorProduct(OpBuilder &b, ValueRange operandTangents,
                                                MutableArrayRef<Value> resultTangents) {
  return extremumJvp(*this, b, operandTangents[0], resultTangents);
}

// d prod / dx_i is the product of the other elements, computed without
// dividing by zero: with no zero in the slice it is P / x_i; with exactly one
// zero it is P' (the product of the non-zeros) at the zero and 0 elsewhere;
// with more zeros it is 0.
static Value prodPartials(ProdOp op, OpBuilder &b) {
  Location loc = op.getLoc();
  Value x = op.getX();
  SmallVector<int64_t> axes = op.getReducedAxes();
  Type elt = cast<RankedTensorType>(x.getType()).getElementType();
  Value zero = scalarLike(b, loc, x, 0.0), one = scalarLike(b, loc, x, 1.0);
  Value isZero = EqualOp::create(b, loc, x, zero);
  Value zeros = sumOver(b, loc, astype(b, loc, isZero, elt), axes, /*keepdims=*/true);
  Value nonZero = where(b, loc, isZero, one, x);
  Value prodNonZero =
      ProdOp::create(b, loc, nonZero, b.getDenseI64ArrayAttr(axes), b.getBoolAttr(true));
  Value atZero = where(b, loc, EqualOp::create(b, loc, zeros, one), prodNonZero, zero);
  Value elsewhere =
      where(b, loc, EqualOp::create(b, loc, zeros, zero), div(b, loc, prodNonZero, nonZero), zero);
  return where(b, loc, isZero, atZero, elsewhere);
}

LogicalResult ProdOp::buildVectorJacobianProduct(OpBuilder &b, ValueRange resultGrads,
                                                 ArrayRef<bool>,
                                                 MutableArrayRef<Value> operandGrads) {
  Location loc = getLoc();
  Value partials = prodPartials(*this, b);
  Value g = keepReducedAxes(b, loc, resultGrads[0], getX(), getReducedAxes());
  operandGrads[0] = mul(b, loc, g, partials);
  return success();
}

LogicalResult ProdOp::buildJacobianVectorProduct(OpBuilder &b, ValueRange operandTangents,
                                                 MutableArrayRef<Value> resultTangents) {
  resultTangents[0] =
      sumLikeResult(b, *this, mul(b, getLoc(), operandTangents[0], prodPartials(*this, b)));
  return success();
}

// The adjoint of an inclusive scan is the reversed scan of the adjoint.
LogicalResult CumsumOp::buildVectorJacobianProduct(OpBuilder &b, ValueRange resultGrads,
                                                   ArrayRef<bool>,
                                                   MutableArrayRef<Value> operandGrads) {
  Location loc = getLoc();
  int64_t axis = getNormalizedAxis();
  Value flipped = reverse(b, loc, resultGrads[0], axis);
  Value scanned = CumsumOp::create(b, loc, flipped, b.getI64IntegerAttr(axis));
  operandGrads[0] = reverse(b, loc, scanned, axis);
  return success();
}
