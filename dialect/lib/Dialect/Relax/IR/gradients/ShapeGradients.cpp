//===- ShapeGradients.cpp - gradients of relax shape ops ------------------===//

#include "relax-mlir/Dialect/Relax/IR/GradientUtils.h"
#include "relax-mlir/Dialect/Relax/IR/RelaxOps.h"

using namespace mlir;
using namespace mlir::relax;
using namespace mlir::relax::vjp;

//===----------------------------------------------------------------------===//
// Shape manipulation
//===----------------------------------------------------------------------===//

LogicalResult PermuteDimsOp::buildVectorJacobianProduct(OpBuilder &b, ValueRange resultGrads,
                                                        ArrayRef<bool>,
                                                        MutableArrayRef<Value> operandGrads) {
  SmallVector<int64_t> perm = getPermutation();
  SmallVector<int64_t> inverse(perm.size());
  for (auto [i, p] : llvm::enumerate(perm))
    inverse[p] = i;
  operandGrads[0] =
      PermuteDimsOp::create(b, getLoc(), resultGrads[0], b.getDenseI64ArrayAttr(inverse));
  return success();
}

LogicalResult ReshapeOp::buildVectorJacobianProduct(OpBuilder &b, ValueRange resultGrads,
                                                    ArrayRef<bool>,
                                                    MutableArrayRef<Value> operandGrads) {
  operandGrads[0] = ReshapeOp::create(b, getLoc(), getX().getType(), resultGrads[0]);
  return success();
}

LogicalResult BroadcastToOp::buildVectorJacobianProduct(OpBuilder &b, ValueRange resultGrads,
                                                        ArrayRef<bool>,
                                                        MutableArrayRef<Value> operandGrads) {
  operandGrads[0] = CollapseSumToOp::create(b, getLoc(), getX().getType(), resultGrads[0]);
  return success();
}

LogicalResult CollapseSumToOp::buildVectorJacobianProduct(OpBuilder &b, ValueRange resultGrads,
                                                          ArrayRef<bool>,
                                                          MutableArrayRef<Value> operandGrads) {
  operandGrads[0] = BroadcastToOp::create(b, getLoc(), getX().getType(), resultGrads[0]);
  return success();
}
