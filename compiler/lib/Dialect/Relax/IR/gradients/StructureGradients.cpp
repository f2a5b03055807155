//===- StructureGradients.cpp - gradients of tuples and checkpoint markers ===//

#include "relax-mlir/Dialect/Relax/IR/GradientUtils.h"
#include "relax-mlir/Dialect/Relax/IR/RelaxOps.h"

using namespace mlir;
using namespace mlir::relax;
using namespace mlir::relax::vjp;

//===----------------------------------------------------------------------===//
// Structure
//===----------------------------------------------------------------------===//

LogicalResult TupleOp::buildVectorJacobianProduct(OpBuilder &b, ValueRange resultGrads,
                                                  ArrayRef<bool> needsGrad,
                                                  MutableArrayRef<Value> operandGrads) {
  for (auto [i, needed] : llvm::enumerate(needsGrad))
    if (needed)
      operandGrads[i] = b.createOrFold<TupleGetItemOp>(getLoc(), resultGrads[0], i);
  return success();
}

// The tuple of the fields' tangents, zeros for fields without one (integer
// fields among them).
LogicalResult TupleOp::buildJacobianVectorProduct(OpBuilder &b, ValueRange operandTangents,
                                                  MutableArrayRef<Value> resultTangents) {
  SmallVector<Value> fields;
  for (auto [field, tangent] : llvm::zip(getFields(), operandTangents))
    fields.push_back(tangentOrZeros(b, getLoc(), tangent, field));
  resultTangents[0] = TupleOp::create(b, getLoc(), fields);
  return success();
}

LogicalResult TupleGetItemOp::buildVectorJacobianProduct(OpBuilder &b, ValueRange resultGrads,
                                                         ArrayRef<bool>,
                                                         MutableArrayRef<Value> operandGrads) {
  auto tuple = cast<TupleType>(getTuple().getType());
  SmallVector<Value> fields;
  for (int64_t i = 0, e = tuple.size(); i < e; ++i)
    fields.push_back(i == static_cast<int64_t>(getIndex())
                         ? resultGrads[0]
                         : buildZeros(b, getLoc(), tuple.getType(i)));
  operandGrads[0] = TupleOp::create(b, getLoc(), fields);
  return success();
}

LogicalResult StartCheckpointOp::buildVectorJacobianProduct(OpBuilder &, ValueRange resultGrads,
                                                           ArrayRef<bool>,
                                                           MutableArrayRef<Value> operandGrads) {
  operandGrads[0] = resultGrads[0];
  return success();
}

LogicalResult EndCheckpointOp::buildVectorJacobianProduct(OpBuilder &, ValueRange resultGrads,
                                                         ArrayRef<bool>,
                                                         MutableArrayRef<Value> operandGrads) {
  operandGrads[0] = resultGrads[0];
  return success();
}
