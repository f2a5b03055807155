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

LogicalResult mlir::relax::inferArgExtremumType(std::optional<Location> loc, Type input,
                                               IntegerAttr axis, bool keepdims,
                                               SmallVectorImpl<Type> &results) {
  DenseI64ArrayAttr axes;
  if (axis)
    axes = DenseI64ArrayAttr::get(input.getContext(), {axis.getInt()});
  if (failed(inferReductionType(loc, input, axes, keepdims, results)))
    return failure();
  auto type = cast<RankedTensorType>(input);  // (inference checked it)
  for (int64_t a :
       normalizeReductionAxes(type, axes ? std::optional(axes.asArrayRef()) : std::nullopt))
    if (type.getDimSize(a) == 0)
      return emitOptionalError(loc, "cannot take the index of an extremum over axis ", a,
                               " of size 0 (it has no elements)");
  if (!axis && type.getNumElements() == 0)
    return emitOptionalError(loc, "cannot take the index of an extremum of an empty tensor");
  auto result = cast<RankedTensorType>(results.back());
  results.back() = RankedTensorType::get(result.getShape(), IntegerType::get(input.getContext(), 64));
  return success();
}

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
