//===- ReductionOps.cpp - relax ops: reductions ---------------------------===//

#include "relax-mlir/Dialect/Relax/IR/RelaxOps.h"

using namespace mlir;
using namespace mlir::relax;

//===----------------------------------------------------------------------===//
// Reductions
//===----------------------------------------------------------------------===//

/// max and min have no identity element: a reduced axis of size 0 has no value.
template <typename Op>
static LogicalResult verifyNonEmptyReduction(Op op, StringRef what) {
  RankedTensorType type = op.getX().getType();
  // Out-of-range axes are reported by type inference; check only valid ones.
  if (auto axis = op.getAxis())
    for (int64_t a : *axis)
      if (a < -type.getRank() || a >= type.getRank())
        return success();
  for (int64_t a : op.getReducedAxes())
    if (type.getDimSize(a) == 0)
      return op.emitOpError("cannot take the ")
             << what << " over axis " << a << " of size 0 (there is no identity element)";
  return success();
}

LogicalResult MaxOp::verify() { return verifyNonEmptyReduction(*this, "maximum"); }
LogicalResult MinOp::verify() { return verifyNonEmptyReduction(*this, "minimum"); }

/// An I64 `axis` attribute of an op on a tensor of rank `rank`.
LogicalResult mlir::relax::verifyAxis(Operation *op, int64_t axis, int64_t rank) {
  if (axis < -rank || axis >= rank)
    return op->emitOpError("axis ") << axis << " is out of range for a tensor of rank " << rank;
  return success();
}

LogicalResult CumsumOp::verify() {
  if (getX().getType().getRank() == 0)
    return emitOpError("needs a tensor of rank 1 or more, got a 0-d tensor");
  return verifyAxis(*this, getAxis(), getX().getType().getRank());
}
