//===- ShapeOps.cpp - relax ops: shape manipulation -----------------------===//

#include "relax-mlir/Dialect/Relax/IR/RelaxOps.h"

using namespace mlir;
using namespace mlir::relax;

//===----------------------------------------------------------------------===//
// Shape manipulation
//===----------------------------------------------------------------------===//

SmallVector<int64_t> PermuteDimsOp::getPermutation() {
  int64_t rank = getX().getType().getRank();
  if (!getAxes())
    return llvm::to_vector(llvm::reverse(llvm::seq<int64_t>(0, rank)));
  return llvm::map_to_vector(*getAxes(), [&](int64_t a) { return a < 0 ? a + rank : a; });
}

LogicalResult PermuteDimsOp::inferReturnTypes(MLIRContext *, std::optional<Location> loc,
                                              Adaptor adaptor, SmallVectorImpl<Type> &results) {
  auto type = dyn_cast<RankedTensorType>(adaptor.getX().getType());
  if (!type)
    return emitOptionalError(loc, "operand must be a ranked tensor");
  int64_t rank = type.getRank();
  SmallVector<int64_t> perm;
  if (auto axes = adaptor.getAxes()) {
    if (static_cast<int64_t>(axes->size()) != rank)
      return emitOptionalError(loc, "axes has ", axes->size(), " entries for a tensor of rank ",
                               rank);
    SmallVector<bool> seen(rank, false);
    for (int64_t a : *axes) {
      if (a < -rank || a >= rank)
        return emitOptionalError(loc, "axis ", a, " is out of range for a tensor of rank ", rank);
      int64_t n = a < 0 ? a + rank : a;
      if (seen[n])
        return emitOptionalError(loc, "axes is not a permutation: axis ", a, " is repeated");
      seen[n] = true;
      perm.push_back(n);
    }
  } else {
    perm = llvm::to_vector(llvm::reverse(llvm::seq<int64_t>(0, rank)));
  }
  SmallVector<int64_t> shape =
      llvm::map_to_vector(perm, [&](int64_t a) { return type.getDimSize(a); });
  results.push_back(RankedTensorType::get(shape, type.getElementType()));
  return success();
}

static LogicalResult verifySameElementType(Operation *op, RankedTensorType in,
                                           RankedTensorType out) {
  if (in.getElementType() != out.getElementType())
    return op->emitOpError("result element type ")
           << out.getElementType() << " differs from the operand's " << in.getElementType();
  return success();
}

LogicalResult ReshapeOp::verify() {
  if (failed(verifySameElementType(*this, getX().getType(), getType())))
    return failure();
  if (getX().getType().getNumElements() != getType().getNumElements())
    return emitOpError("cannot reshape ")
           << getX().getType() << " (" << getX().getType().getNumElements() << " elements) to "
           << getType() << " (" << getType().getNumElements() << " elements)";
  return success();
}

/// True when `from` broadcasts to exactly `to` under numpy rules.
static bool broadcastsTo(ArrayRef<int64_t> from, ArrayRef<int64_t> to) {
  if (from.size() > to.size())
    return false;
  auto shape = broadcastShapes(from, to);
  return shape && llvm::equal(*shape, to);
}

LogicalResult BroadcastToOp::verify() {
  if (failed(verifySameElementType(*this, getX().getType(), getType())))
    return failure();
  if (!broadcastsTo(getX().getType().getShape(), getType().getShape()))
    return emitOpError("cannot broadcast ") << getX().getType() << " to " << getType();
  return success();
}

LogicalResult CollapseSumToOp::verify() {
  if (failed(verifySameElementType(*this, getX().getType(), getType())))
    return failure();
  if (!broadcastsTo(getType().getShape(), getX().getType().getShape()))
    return emitOpError("cannot collapse-sum ")
           << getX().getType() << " to " << getType()
           << ": the result shape must broadcast to the operand shape";
  return success();
}
