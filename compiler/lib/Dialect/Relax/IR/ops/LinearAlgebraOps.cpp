//===- LinearAlgebraOps.cpp - relax ops: linear algebra -------------------===//

#include "relax-mlir/Dialect/Relax/IR/RelaxOps.h"

using namespace mlir;
using namespace mlir::relax;

//===----------------------------------------------------------------------===//
// Matmul
//===----------------------------------------------------------------------===//

LogicalResult MatmulOp::inferReturnTypes(MLIRContext *, std::optional<Location> loc,
                                         Adaptor adaptor, SmallVectorImpl<Type> &results) {
  auto a = dyn_cast<RankedTensorType>(adaptor.getLhs().getType());
  auto b = dyn_cast<RankedTensorType>(adaptor.getRhs().getType());
  if (!a || !b)
    return emitOptionalError(loc, "operands must be ranked tensors");
  if (a.getElementType() != b.getElementType())
    return emitOptionalError(loc, "operands have different element types ", a.getElementType(),
                             " and ", b.getElementType());
  if (a.getRank() == 0 || b.getRank() == 0)
    return emitOptionalError(loc, "operands must have rank >= 1 (got ranks ", a.getRank(), " and ",
                             b.getRank(), ")");
  ArrayRef<int64_t> as = a.getShape(), bs = b.getShape();
  int64_t k1 = as.back();
  int64_t k2 = b.getRank() == 1 ? bs[0] : bs[bs.size() - 2];
  if (k1 != k2)
    return emitOptionalError(loc, "contracted dims differ: lhs ", formatShape(as), " has ", k1,
                             ", rhs ", formatShape(bs), " has ", k2);
  ArrayRef<int64_t> aBatch = a.getRank() > 2 ? as.drop_back(2) : ArrayRef<int64_t>{};
  ArrayRef<int64_t> bBatch = b.getRank() > 2 ? bs.drop_back(2) : ArrayRef<int64_t>{};
  auto batch = broadcastShapes(aBatch, bBatch);
  if (!batch)
    return emitOptionalError(loc, "batch dims ", formatShape(aBatch), " and ", formatShape(bBatch),
                             " are not broadcast-compatible");
  SmallVector<int64_t> shape = *batch;
  if (a.getRank() >= 2)
    shape.push_back(as[as.size() - 2]);
  if (b.getRank() >= 2)
    shape.push_back(bs.back());
  results.push_back(RankedTensorType::get(shape, a.getElementType()));
  return success();
}
