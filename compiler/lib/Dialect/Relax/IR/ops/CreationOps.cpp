//===- CreationOps.cpp - relax ops: creation ------------------------------===//

#include "relax-mlir/Dialect/Relax/IR/RelaxOps.h"

using namespace mlir;
using namespace mlir::relax;

//===----------------------------------------------------------------------===//
// Creation
//===----------------------------------------------------------------------===//

/// The fill value of full/full_like: a 0-d tensor of the result's element type.
static LogicalResult verifyFillValue(Operation *op, RankedTensorType value, Type elementType) {
  if (value.getRank() != 0)
    return op->emitOpError("value must be a 0-d tensor, got ") << value;
  if (value.getElementType() != elementType)
    return op->emitOpError("value element type ")
           << value.getElementType() << " differs from the result element type " << elementType;
  return success();
}

LogicalResult FullOp::verify() {
  return verifyFillValue(*this, getValue().getType(), getType().getElementType());
}

LogicalResult FullLikeOp::verify() {
  return verifyFillValue(*this, getValue().getType(), getType().getElementType());
}
