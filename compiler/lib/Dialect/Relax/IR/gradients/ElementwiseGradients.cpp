//===- ElementwiseGradients.cpp - gradients of elementwise relax ops ------===//

#include "relax-mlir/Dialect/Relax/IR/GradientUtils.h"
#include "relax-mlir/Dialect/Relax/IR/RelaxOps.h"

using namespace mlir;
using namespace mlir::relax;
using namespace mlir::relax::vjp;

//===----------------------------------------------------------------------===//
// Elementwise unary: the rules are the `vjp` fields in ops/ElementwiseOps.td.
//===----------------------------------------------------------------------===//

//===----------------------------------------------------------------------===//
// Elementwise binary: add, subtract, multiply and divide are the
// `lhsVjp`/`rhsVjp` fields in ops/ElementwiseOps.td; each operand's adjoint is
// summed back to its shape.
//===----------------------------------------------------------------------===//

LogicalResult WhereOp::buildVectorJacobianProduct(OpBuilder &b, ValueRange resultGrads,
                                                  ArrayRef<bool> needsGrad,
                                                  MutableArrayRef<Value> operandGrads) {
  Value g = resultGrads[0];
  Location loc = getLoc();
  Value zero = scalarLike(b, loc, g, 0.0);
  if (needsGrad[1])
    operandGrads[1] =
        sumToType(b, loc, WhereOp::create(b, loc, getCond(), g, zero), getLhs().getType());
  if (needsGrad[2])
    operandGrads[2] =
        sumToType(b, loc, WhereOp::create(b, loc, getCond(), zero, g), getRhs().getType());
  return success();
}

LogicalResult WhereOp::buildJacobianVectorProduct(OpBuilder &b, ValueRange operandTangents,
                                                  MutableArrayRef<Value> resultTangents) {
  Location loc = getLoc();
  Value tl = operandTangents[1], tr = operandTangents[2];
  Value zero = scalarLike(b, loc, tl ? tl : tr, 0.0);
  Value t = WhereOp::create(b, loc, getCond(), tl ? tl : zero, tr ? tr : zero);
  resultTangents[0] = broadcastToType(b, loc, t, getType());
  return success();
}

/// A float-to-float conversion passes the adjoint back converted; conversions
/// from integers or to integers carry no gradient (their operand or result is
/// not differentiable). It is linear: its tangent is the default of
/// Relax_Linear (the conversion of the tangent).
LogicalResult AstypeOp::buildVectorJacobianProduct(OpBuilder &b, ValueRange resultGrads,
                                                   ArrayRef<bool> needsGrad,
                                                   MutableArrayRef<Value> operandGrads) {
  if (!needsGrad[0] || !isDifferentiableType(getType()))
    return success();
  Type xType = getX().getType();
  Value g = resultGrads[0];
  operandGrads[0] = g.getType() == xType ? g : AstypeOp::create(b, getLoc(), xType, g);
  return success();
}
