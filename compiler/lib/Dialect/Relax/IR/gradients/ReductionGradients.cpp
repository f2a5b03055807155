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

/// max/min: the adjoint is split evenly among the elements equal to the
/// result (a subgradient; ties share it, as in JAX).
template <typename Op>
static LogicalResult extremumVjp(Op op, OpBuilder &b, Value resultGrad,
                                 MutableArrayRef<Value> operandGrads) {
  Location loc = op.getLoc();
  Value x = op.getX();
  SmallVector<int64_t> axes = op.getReducedAxes();
  Type elt = cast<RankedTensorType>(x.getType()).getElementType();
  Value y = keepReducedAxes(b, loc, op.getResult(), x, axes);
  Value mask = astype(b, loc, EqualOp::create(b, loc, x, y), elt);
  Value count = sumOver(b, loc, mask, axes, /*keepdims=*/true);
  Value g = keepReducedAxes(b, loc, resultGrad, x, axes);
  operandGrads[0] = mul(b, loc, mask, div(b, loc, g, count));
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

// d prod / dx_i is the product of the other elements, computed without
// dividing by zero: with no zero in the slice it is P / x_i; with exactly one
// zero it is P' (the product of the non-zeros) at the zero and 0 elsewhere;
// with more zeros it is 0.
LogicalResult ProdOp::buildVectorJacobianProduct(OpBuilder &b, ValueRange resultGrads,
                                                 ArrayRef<bool>,
                                                 MutableArrayRef<Value> operandGrads) {
  Location loc = getLoc();
  Value x = getX();
  SmallVector<int64_t> axes = getReducedAxes();
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
  Value local = where(b, loc, isZero, atZero, elsewhere);
  operandGrads[0] = mul(b, loc, keepReducedAxes(b, loc, resultGrads[0], x, axes), local);
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
