//===- LinearAlgebraGradients.cpp - gradient of relax.matmul --------------===//

#include "relax-mlir/Dialect/Relax/IR/GradientUtils.h"
#include "relax-mlir/Dialect/Relax/IR/RelaxOps.h"

using namespace mlir;
using namespace mlir::relax;
using namespace mlir::relax::vjp;

//===----------------------------------------------------------------------===//
// Matmul
//===----------------------------------------------------------------------===//

// With 1-D operands promoted to matrices: da = g b^T and db = a^T g, each summed
// over the batch dims it was broadcast along and reshaped back to its operand.
LogicalResult MatmulOp::buildVectorJacobianProduct(OpBuilder &b, ValueRange resultGrads,
                                                   ArrayRef<bool> needsGrad,
                                                   MutableArrayRef<Value> operandGrads) {
  Location loc = getLoc();
  Value lhs = getLhs(), rhs = getRhs(), g = resultGrads[0];
  auto lhsType = cast<RankedTensorType>(lhs.getType());
  auto rhsType = cast<RankedTensorType>(rhs.getType());
  bool lhsVec = lhsType.getRank() == 1, rhsVec = rhsType.getRank() == 1;
  if (lhsVec)
    lhs = reshapeTo(b, loc, lhs, {1, lhsType.getDimSize(0)});
  if (rhsVec)
    rhs = reshapeTo(b, loc, rhs, {rhsType.getDimSize(0), 1});
  if (lhsVec || rhsVec) {
    SmallVector<int64_t> gShape(cast<RankedTensorType>(g.getType()).getShape());
    if (lhsVec)
      gShape.insert(gShape.end() - (rhsVec ? 0 : 1), 1);
    if (rhsVec)
      gShape.push_back(1);
    g = reshapeTo(b, loc, g, gShape);
  }
  if (needsGrad[0]) {
    Value da = MatmulOp::create(b, loc, g, buildTransposeLastTwo(b, loc, rhs));
    da = sumToType(b, loc, da, lhs.getType());
    operandGrads[0] = reshapeTo(b, loc, da, lhsType.getShape());
  }
  if (needsGrad[1]) {
    Value db = MatmulOp::create(b, loc, buildTransposeLastTwo(b, loc, lhs), g);
    db = sumToType(b, loc, db, rhs.getType());
    operandGrads[1] = reshapeTo(b, loc, db, rhsType.getShape());
  }
  return success();
}

// d (a b) = ta b + a tb
LogicalResult MatmulOp::buildJacobianVectorProduct(OpBuilder &b, ValueRange operandTangents,
                                                   MutableArrayRef<Value> resultTangents) {
  resultTangents[0] = buildMultilinearTangent(b, *this, operandTangents);
  return success();
}
