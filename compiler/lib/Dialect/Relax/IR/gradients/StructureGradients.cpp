//===- StructureGradients.cpp - gradients of tuples and checkpoint markers ===//

#include "relax-mlir/Dialect/Relax/IR/GradientUtils.h"
#include "relax-mlir/Dialect/Relax/IR/RelaxOps.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"

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

//===----------------------------------------------------------------------===//
// Calls with rules of their own
//===----------------------------------------------------------------------===//

// The cotangent goes to @vjp with the operands (a tuple cotangent as its
// fields); its gradients are the float operands', in order.
LogicalResult CallWithRulesOp::buildVectorJacobianProduct(OpBuilder &b, ValueRange resultGrads,
                                                          ArrayRef<bool> needsGrad,
                                                          MutableArrayRef<Value> operandGrads) {
  Location loc = getLoc();
  SmallVector<Value> args(getOperands());
  if (auto fields = dyn_cast<TupleType>(getType())) {
    for (int64_t i = 0, e = fields.size(); i < e; ++i)
      args.push_back(b.createOrFold<TupleGetItemOp>(loc, resultGrads[0], i));
  } else {
    args.push_back(resultGrads[0]);
  }
  SmallVector<Type> grads;
  for (Value v : getOperands())
    if (isDifferentiableType(v.getType()))
      grads.push_back(v.getType());
  Value result = func::CallOp::create(b, loc, getVjpAttr(),
                                      TypeRange{TupleType::get(getContext(), grads)}, args)
                     .getResult(0);
  int64_t k = 0;
  for (auto [i, v] : llvm::enumerate(getOperands())) {
    if (!isDifferentiableType(v.getType()))
      continue;
    if (needsGrad[i])
      operandGrads[i] = b.createOrFold<TupleGetItemOp>(loc, result, k);
    ++k;
  }
  return success();
}

// @jvp takes the operands and one tangent per float operand (zeros where it
// has none) and returns (result, tangent).
LogicalResult CallWithRulesOp::buildJacobianVectorProduct(OpBuilder &b, ValueRange operandTangents,
                                                          MutableArrayRef<Value> resultTangents) {
  Location loc = getLoc();
  SmallVector<Value> args(getOperands());
  for (auto [v, t] : llvm::zip(getOperands(), operandTangents))
    if (isDifferentiableType(v.getType()))
      args.push_back(tangentOrZeros(b, loc, t, v));
  Type pair = TupleType::get(getContext(), {getType(), getType()});
  Value result = func::CallOp::create(b, loc, getJvpAttr(), TypeRange{pair}, args).getResult(0);
  resultTangents[0] = b.createOrFold<TupleGetItemOp>(loc, result, 1);
  return success();
}
