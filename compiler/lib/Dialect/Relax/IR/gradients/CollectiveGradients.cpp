//===- CollectiveGradients.cpp - derivatives of the collectives -----------===//
//
// An all-reduce is linear (its JVP is itself on the tangent): its VJP sums
// the cotangents of every process back into each operand, an all-reduce of
// the cotangent.
//
//===----------------------------------------------------------------------===//

#include "relax-mlir/Dialect/Relax/IR/GradientUtils.h"
#include "relax-mlir/Dialect/Relax/IR/RelaxOps.h"

using namespace mlir;
using namespace mlir::relax;

LogicalResult AllReduceOp::buildVectorJacobianProduct(OpBuilder &b, ValueRange resultGrads,
                                                      ArrayRef<bool>,
                                                      MutableArrayRef<Value> operandGrads) {
  operandGrads[0] = AllReduceOp::create(b, getLoc(), resultGrads[0]);
  return success();
}
