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
