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
  auto xType = cast<RankedTensorType>(x.getType());
  SmallVector<int64_t> kept(xType.getShape());
  for (int64_t a : axes)
    kept[a] = 1;
  Value shaped = reshapeTo(b, loc, g, kept);
  if (shaped.getType() == xType)
    return shaped;
  return BroadcastToOp::create(b, loc, xType, shaped);
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
