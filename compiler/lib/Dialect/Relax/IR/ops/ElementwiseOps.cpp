//===- ElementwiseOps.cpp - relax ops: elementwise ------------------------===//

#include "relax-mlir/Dialect/Relax/IR/RelaxOps.h"

using namespace mlir;
using namespace mlir::relax;

//===----------------------------------------------------------------------===//
// Elementwise
//===----------------------------------------------------------------------===//
LogicalResult WhereOp::inferReturnTypes(MLIRContext *, std::optional<Location> loc,
                                        Adaptor adaptor, SmallVectorImpl<Type> &results) {
  auto c = dyn_cast<RankedTensorType>(adaptor.getCond().getType());
  auto a = dyn_cast<RankedTensorType>(adaptor.getLhs().getType());
  auto b = dyn_cast<RankedTensorType>(adaptor.getRhs().getType());
  if (!c || !a || !b)
    return emitOptionalError(loc, "operands must be ranked tensors");
  if (failed(inferBroadcastBinaryType(loc, a, b, results)))
    return failure();
  auto shape = broadcastShapes(c.getShape(), cast<RankedTensorType>(results[0]).getShape());
  if (!shape)
    return emitOptionalError(loc, "condition shape ", formatShape(c.getShape()),
                             " is not broadcast-compatible with the operands");
  results[0] = RankedTensorType::get(*shape, a.getElementType());
  return success();
}

LogicalResult ClipOp::verify() {
  double lo = getMin().convertToDouble(), hi = getMax().convertToDouble();
  if (std::isnan(lo) || std::isnan(hi))
    return emitOpError("bounds must not be NaN");
  if (lo > hi)
    return emitOpError("min (") << lo << ") is greater than max (" << hi << ")";
  return success();
}

LogicalResult AstypeOp::verify() {
  if (getX().getType().getShape() != getType().getShape())
    return emitOpError("result shape ")
           << formatShape(getType().getShape()) << " differs from the operand shape "
           << formatShape(getX().getType().getShape()) << "; astype only converts elements";
  return success();
}

LogicalResult BitcastOp::verify() {
  RankedTensorType from = getX().getType(), to = getType();
  if (from.getShape() != to.getShape())
    return emitOpError("result must have the operand's shape ")
           << from << ", got " << to;
  Type a = from.getElementType(), b = to.getElementType();
  if (a.getIntOrFloatBitWidth() != b.getIntOrFloatBitWidth())
    return emitOpError("reinterprets bits between element types of one width; ")
           << a << " has " << a.getIntOrFloatBitWidth() << " bits and " << b << " has "
           << b.getIntOrFloatBitWidth();
  return success();
}
