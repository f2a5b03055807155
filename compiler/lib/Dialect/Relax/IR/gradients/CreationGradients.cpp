//===- CreationGradients.cpp - gradients of relax creation ops ------------===//
//
// A filled tensor's adjoint flows to its fill value (summed); the operand of
// the *_like ops only gives a type and receives nothing. full is linear in its
// value (its tangent is the default of Relax_Linear).
//
//===----------------------------------------------------------------------===//

#include "relax-mlir/Dialect/Relax/IR/GradientUtils.h"
#include "relax-mlir/Dialect/Relax/IR/RelaxOps.h"

using namespace mlir;
using namespace mlir::relax;

LogicalResult FullOp::buildVectorJacobianProduct(OpBuilder &b, ValueRange resultGrads,
                                                 ArrayRef<bool>,
                                                 MutableArrayRef<Value> operandGrads) {
  operandGrads[0] = sumToType(b, getLoc(), resultGrads[0], getValue().getType());
  return success();
}

LogicalResult FullLikeOp::buildVectorJacobianProduct(OpBuilder &b, ValueRange resultGrads,
                                                     ArrayRef<bool> needsGrad,
                                                     MutableArrayRef<Value> operandGrads) {
  if (needsGrad[1])
    operandGrads[1] = sumToType(b, getLoc(), resultGrads[0], getValue().getType());
  return success();
}

LogicalResult ZerosLikeOp::buildVectorJacobianProduct(OpBuilder &, ValueRange, ArrayRef<bool>,
                                                      MutableArrayRef<Value>) {
  return success();
}

LogicalResult OnesLikeOp::buildVectorJacobianProduct(OpBuilder &, ValueRange, ArrayRef<bool>,
                                                     MutableArrayRef<Value>) {
  return success();
}

LogicalResult FullLikeOp::buildJacobianVectorProduct(OpBuilder &b, ValueRange operandTangents,
                                                     MutableArrayRef<Value> resultTangents) {
  if (Value t = operandTangents[1])
    resultTangents[0] = FullLikeOp::create(b, getLoc(), getX(), t);
  return success();
}

LogicalResult ZerosLikeOp::buildJacobianVectorProduct(OpBuilder &, ValueRange,
                                                      MutableArrayRef<Value>) {
  return success();
}

LogicalResult OnesLikeOp::buildJacobianVectorProduct(OpBuilder &, ValueRange,
                                                     MutableArrayRef<Value>) {
  return success();
}
