//===- BatchingUtils.cpp - helpers of the batching rules ------------------===//

#include "relax-mlir/Dialect/Relax/IR/BatchingUtils.h"
#include "relax-mlir/Dialect/Relax/IR/GradientUtils.h"
#include "relax-mlir/Dialect/Relax/IR/RelaxOps.h"

using namespace mlir;
using namespace mlir::relax;

RegionBatcher::~RegionBatcher() = default;

Type mlir::relax::batchedType(Type type, int64_t n) {
  if (auto tuple = dyn_cast<TupleType>(type))
    return TupleType::get(type.getContext(),
                          llvm::map_to_vector(tuple.getTypes(), [&](Type t) {
                            return batchedType(t, n);
                          }));
  auto tensor = cast<RankedTensorType>(type);
  SmallVector<int64_t> shape{n};
  llvm::append_range(shape, tensor.getShape());
  return tensor.clone(shape);
}

Operation *mlir::relax::createBatched(OpBuilder &b, Operation *op, ValueRange operands,
                                      ArrayRef<NamedAttribute> attrs, int64_t n) {
  OperationState state(op->getLoc(), op->getName());
  state.addOperands(operands);
  state.addAttributes(attrs);
  for (Type t : op->getResultTypes())
    state.addTypes(batchedType(t, n));
  return b.create(state);
}

Value mlir::relax::createBatchedWith(OpBuilder &b, Operation *op, ValueRange operands,
                                     int64_t n, StringRef name, Attribute value) {
  SmallVector<NamedAttribute> attrs;
  for (NamedAttribute attr : op->getAttrs())
    if (attr.getName() != name)
      attrs.push_back(attr);
  attrs.push_back(b.getNamedAttr(name, value));
  return createBatched(b, op, operands, attrs, n)->getResult(0);
}

Value mlir::relax::padExample(OpBuilder &b, Location loc, Value v, int64_t rank) {
  auto type = cast<RankedTensorType>(v.getType());
  int64_t missing = rank - (type.getRank() - 1);
  if (missing <= 0)
    return v;
  SmallVector<int64_t> shape{type.getDimSize(0)};
  shape.append(missing, 1);
  llvm::append_range(shape, type.getShape().drop_front());
  return vjp::reshapeTo(b, loc, v, shape);
}

Value mlir::relax::broadcastBatch(OpBuilder &b, Location loc, Value v, int64_t n) {
  if (auto tuple = dyn_cast<TupleType>(v.getType())) {
    SmallVector<Value> items;
    for (int64_t i = 0, e = tuple.size(); i < e; ++i)
      items.push_back(broadcastBatch(
          b, loc, TupleGetItemOp::create(b, loc, tuple.getType(i), v, b.getI64IntegerAttr(i)),
          n));
    return TupleOp::create(b, loc, ValueRange(items));
  }
  return broadcastToType(b, loc, v, batchedType(v.getType(), n));
}

SmallVector<Value> mlir::relax::allBatched(OpBuilder &b, Location loc, ValueRange operands,
                                           ArrayRef<bool> batched, int64_t n) {
  SmallVector<Value> all;
  for (auto [v, isBatched] : llvm::zip(operands, batched))
    all.push_back(isBatched ? v : broadcastBatch(b, loc, v, n));
  return all;
}

int64_t mlir::relax::batchedAxis(int64_t axis, int64_t rank) {
  return (axis < 0 ? axis + rank : axis) + 1;
}

LogicalResult mlir::relax::batchElementwise(Operation *op, OpBuilder &b, int64_t n,
                                            ValueRange operands, ArrayRef<bool> batched,
                                            MutableArrayRef<Value> results) {
  auto resultType = dyn_cast<RankedTensorType>(op->getResult(0).getType());
  SmallVector<Value> padded;
  for (auto [v, isBatched] : llvm::zip(operands, batched))
    padded.push_back(isBatched && resultType ? padExample(b, op->getLoc(), v, resultType.getRank())
                                             : v);
  Operation *batchedOp = createBatched(b, op, padded, op->getAttrs(), n);
  for (auto [i, r] : llvm::enumerate(batchedOp->getResults()))
    results[i] = r;
  return success();
}

/// `v` with its axis `from` moved to `to` (a permute_dims).
Value mlir::relax::moveAxis(OpBuilder &b, Location loc, Value v, int64_t from, int64_t to) {
  auto type = cast<RankedTensorType>(v.getType());
  if (from == to)
    return v;
  SmallVector<int64_t> order;
  for (int64_t d = 0; d < type.getRank(); ++d)
    if (d != from)
      order.push_back(d);
  order.insert(order.begin() + to, from);
  SmallVector<int64_t> shape;
  for (int64_t d : order)
    shape.push_back(type.getDimSize(d));
  return PermuteDimsOp::create(b, loc, type.clone(shape), v, b.getDenseI64ArrayAttr(order));
}
