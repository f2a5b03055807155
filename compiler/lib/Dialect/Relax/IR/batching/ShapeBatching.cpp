//===- ShapeBatching.cpp - batching rules of shape and structure ops ------===//
//
// Shape ops move their axes past the batch dimension (or take the batched
// result shape); take reads a batch of data at unbatched indices; tuples
// hold batched fields.
//
//===----------------------------------------------------------------------===//

#include "relax-mlir/Dialect/Relax/IR/BatchingUtils.h"
#include "relax-mlir/Dialect/Relax/IR/GradientUtils.h"
#include "relax-mlir/Dialect/Relax/IR/RelaxOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"

using namespace mlir;
using namespace mlir::relax;

/// `op` over `operands` with its array attribute `name` replaced by `value`.
static Value withArray(OpBuilder &b, Operation *op, ValueRange operands, int64_t n,
                       StringRef name, ArrayRef<int64_t> value) {
  return createBatchedWith(b, op, operands, n, name, b.getDenseI64ArrayAttr(value));
}

/// The batched axes of example `axes` (of rank `rank`).
static SmallVector<int64_t> batchedAxes(ArrayRef<int64_t> axes, int64_t rank) {
  return llvm::map_to_vector(axes, [&](int64_t a) { return batchedAxis(a, rank); });
}

LogicalResult PermuteDimsOp::buildBatched(OpBuilder &b, int64_t n, ValueRange operands,
                                          ArrayRef<bool>, MutableArrayRef<Value> results) {
  SmallVector<int64_t> perm{0};
  for (int64_t p : getPermutation())
    perm.push_back(p + 1);
  results[0] = withArray(b, *this, operands, n, getAxesAttrName(), perm);
  return success();
}

/// reshape and the ops that take their shape from the result type.
LogicalResult ReshapeOp::buildBatched(OpBuilder &b, int64_t n, ValueRange operands,
                                      ArrayRef<bool>, MutableArrayRef<Value> results) {
  results[0] = createBatched(b, *this, operands, {}, n)->getResult(0);
  return success();
}

LogicalResult BroadcastToOp::buildBatched(OpBuilder &b, int64_t n, ValueRange operands,
                                          ArrayRef<bool>, MutableArrayRef<Value> results) {
  Value x = padExample(b, getLoc(), operands[0], getType().getRank());
  results[0] = broadcastToType(b, getLoc(), x, batchedType(getType(), n));
  return success();
}

/// The leading example axes that the target lacks are summed first, so that
/// the batch axis lines up.
LogicalResult CollapseSumToOp::buildBatched(OpBuilder &b, int64_t n, ValueRange operands,
                                            ArrayRef<bool>, MutableArrayRef<Value> results) {
  int64_t lead = getX().getType().getRank() - getType().getRank();
  SmallVector<int64_t> axes;
  for (int64_t a = 1; a <= lead; ++a)
    axes.push_back(a);
  Value x = vjp::sumOver(b, getLoc(), operands[0], axes, /*keepdims=*/false);
  results[0] = sumToType(b, getLoc(), x, batchedType(getType(), n));
  return success();
}

LogicalResult ExpandDimsOp::buildBatched(OpBuilder &b, int64_t n, ValueRange operands,
                                         ArrayRef<bool>, MutableArrayRef<Value> results) {
  results[0] = withArray(b, *this, operands, n, getAxisAttrName(),
                         batchedAxes(getAxis(), getType().getRank()));
  return success();
}

/// Absent axes (every unit axis of the example) are named: the batch may be 1.
LogicalResult SqueezeOp::buildBatched(OpBuilder &b, int64_t n, ValueRange operands,
                                      ArrayRef<bool>, MutableArrayRef<Value> results) {
  RankedTensorType x = getX().getType();
  SmallVector<int64_t> axes;
  if (std::optional<ArrayRef<int64_t>> given = getAxis())
    axes = batchedAxes(*given, x.getRank());
  else
    for (int64_t a = 0; a < x.getRank(); ++a)
      if (x.getDimSize(a) == 1)
        axes.push_back(a + 1);
  results[0] = withArray(b, *this, operands, n, getAxisAttrName(), axes);
  return success();
}

/// Each example flattened: a reshape to (n, size).
LogicalResult FlattenOp::buildBatched(OpBuilder &b, int64_t n, ValueRange operands,
                                      ArrayRef<bool>, MutableArrayRef<Value> results) {
  results[0] = vjp::reshapeTo(b, getLoc(), operands[0], {n, getType().getDimSize(0)});
  return success();
}

LogicalResult StridedSliceOp::buildBatched(OpBuilder &b, int64_t n, ValueRange operands,
                                           ArrayRef<bool>, MutableArrayRef<Value> results) {
  results[0] = withArray(b, *this, operands, n, getAxesAttrName(),
                         batchedAxes(getAxes(), getX().getType().getRank()));
  return success();
}

/// The example is given the rank of `repeats` first (numpy's tile prepends
/// axes); the batch axis repeats once.
LogicalResult TileOp::buildBatched(OpBuilder &b, int64_t n, ValueRange operands,
                                   ArrayRef<bool>, MutableArrayRef<Value> results) {
  int64_t rank = std::max<int64_t>(getX().getType().getRank(), getRepeats().size());
  Value x = padExample(b, getLoc(), operands[0], rank);
  SmallVector<int64_t> repeats(1 + rank - getRepeats().size(), 1);
  llvm::append_range(repeats, getRepeats());
  results[0] = withArray(b, *this, {x}, n, getRepeatsAttrName(), repeats);
  return success();
}

LogicalResult PadOp::buildBatched(OpBuilder &b, int64_t n, ValueRange operands, ArrayRef<bool>,
                                  MutableArrayRef<Value> results) {
  SmallVector<int64_t> width{0, 0};
  llvm::append_range(width, getPadWidth());
  results[0] = withArray(b, *this, operands, n, getPadWidthAttrName(), width);
  return success();
}

/// The last two axes: the batch is one more leading axis.
LogicalResult TrilOp::buildBatched(OpBuilder &b, int64_t n, ValueRange operands, ArrayRef<bool>,
                                   MutableArrayRef<Value> results) {
  results[0] = createBatched(b, *this, operands, (*this)->getAttrs(), n)->getResult(0);
  return success();
}

LogicalResult TriuOp::buildBatched(OpBuilder &b, int64_t n, ValueRange operands, ArrayRef<bool>,
                                   MutableArrayRef<Value> results) {
  results[0] = createBatched(b, *this, operands, (*this)->getAttrs(), n)->getResult(0);
  return success();
}

/// Unbatched operands are broadcast over the batch.
LogicalResult ConcatOp::buildBatched(OpBuilder &b, int64_t n, ValueRange operands,
                                     ArrayRef<bool> batched, MutableArrayRef<Value> results) {
  results[0] = createBatchedWith(
      b, *this, allBatched(b, getLoc(), operands, batched, n), n, getAxisAttrName(),
      b.getI64IntegerAttr(batchedAxis(getAxis(), getType().getRank())));
  return success();
}

/// An integer constant of `elt` (0-d).
static Value indexConstant(OpBuilder &b, Location loc, Type elt, int64_t value) {
  return arith::ConstantOp::create(
      b, loc,
      DenseElementsAttr::get(RankedTensorType::get({}, elt),
                             b.getIntegerAttr(elt, value).getValue()));
}

/// take(data, indices, axis) built with its result type.
static Value takeAlong(OpBuilder &b, Location loc, Value data, Value indices, int64_t axis) {
  auto d = cast<RankedTensorType>(data.getType());
  auto i = cast<RankedTensorType>(indices.getType());
  SmallVector<int64_t> shape(d.getShape().take_front(axis));
  llvm::append_range(shape, i.getShape());
  llvm::append_range(shape, d.getShape().drop_front(axis + 1));
  return TakeOp::create(b, loc, d.clone(shape), data, indices, b.getI64IntegerAttr(axis));
}

/// A batch of indices (n, ...) into an axis of size m, as rows of the batch
/// flattened with that axis (n * m): each normalized as take's (negative from
/// the end, then clamped into [0, m), so that none reaches another example's
/// rows) and offset by its example's m rows.
static Value batchRows(OpBuilder &b, Location loc, Value indices, int64_t m, int64_t n) {
  auto indexType = cast<RankedTensorType>(indices.getType());
  Type elt = indexType.getElementType();
  Value zero = indexConstant(b, loc, elt, 0), size = indexConstant(b, loc, elt, m);
  Value normalized = vjp::where(b, loc, vjp::less(b, loc, indices, zero),
                                vjp::add(b, loc, indices, size), indices);
  Value clamped = ClipOp::create(b, loc, normalized, b.getF64FloatAttr(0.0),
                                 b.getF64FloatAttr(static_cast<double>(std::max<int64_t>(m - 1, 0))));
  Value offsets = vjp::mul(b, loc, vjp::iota(b, loc, n, elt, indexType.getRank(), 0), size);
  return vjp::add(b, loc, clamped, offsets);
}

/// A batch of data at unbatched indices, or data (batched or shared) at a
/// batch of indices (absent axis: each example flattened). Shared data at
/// batched indices is one take whose batch axis then moves to the front; a
/// batch of both is one take from the batch flattened with the axis, each
/// example's indices offset to its own rows.
LogicalResult TakeOp::buildBatched(OpBuilder &b, int64_t n, ValueRange operands,
                                   ArrayRef<bool> batched, MutableArrayRef<Value> results) {
  Location loc = getLoc();
  RankedTensorType x = getX().getType();
  Value data = operands[0], indices = operands[1];
  int64_t axis = 0;
  if (std::optional<int64_t> given = getAxis()) {
    axis = *given < 0 ? *given + x.getRank() : *given;
  } else {
    SmallVector<int64_t> flat{x.getNumElements()};
    if (batched[0])
      flat.insert(flat.begin(), n);
    data = vjp::reshapeTo(b, loc, data, flat);
  }
  auto example = cast<RankedTensorType>(data.getType());
  if (batched[0])
    example = example.clone(example.getShape().drop_front());
  if (!batched[1]) {
    results[0] = takeAlong(b, loc, data, indices, axis + 1);
    return success();
  }
  if (!batched[0]) {
    results[0] = moveAxis(b, loc, takeAlong(b, loc, data, indices, axis), axis, 0);
    return success();
  }
  // (n, pre..., m, post...) -> (n * m, pre..., post...).
  int64_t m = example.getDimSize(axis);
  Value moved = moveAxis(b, loc, data, axis + 1, 1);
  SmallVector<int64_t> rows(cast<RankedTensorType>(moved.getType()).getShape().drop_front());
  rows[0] *= n;
  Value table = vjp::reshapeTo(b, loc, moved, rows);
  auto indexType = cast<RankedTensorType>(indices.getType());
  Value picked = takeAlong(b, loc, table, batchRows(b, loc, indices, m, n), 0);
  // (n, idx..., pre..., post...) -> (n, pre..., idx..., post...).
  int64_t idxRank = indexType.getRank() - 1;
  for (int64_t k = 0; k < axis; ++k)
    picked = moveAxis(b, loc, picked, 1 + idxRank + k, 1 + k);
  results[0] = picked;
  return success();
}

/// scatter_add or scatter (`like`'s reduction) of updates into data.
template <typename Op>
static Value scatterLike(Op like, OpBuilder &b, Value data, Value indices, Value updates,
                         IntegerAttr axis) {
  if constexpr (std::is_same_v<Op, ScatterAddOp>)
    return ScatterAddOp::create(b, like.getLoc(), data, indices, updates, axis);
  else
    return ScatterOp::create(b, like.getLoc(), data, indices, updates, axis,
                             like.getReductionAttr());
}

/// scatter_add and scatter over a batch (x and updates broadcast when
/// unbatched; absent axis: each example flattened). Shared indices: one op
/// along the axis past the batch. A batch of indices: one op along the batch
/// flattened with the axis, each example's indices offset to its own rows
/// and its updates' index dims moved first to match.
template <typename Op>
static LogicalResult batchScatter(Op op, OpBuilder &b, int64_t n, ValueRange operands,
                                  ArrayRef<bool> batched, MutableArrayRef<Value> results) {
  Location loc = op.getLoc();
  RankedTensorType x = op.getX().getType();
  Value data = batched[0] ? operands[0] : broadcastBatch(b, loc, operands[0], n);
  Value indices = operands[1];
  Value updates = batched[2] ? operands[2] : broadcastBatch(b, loc, operands[2], n);
  int64_t axis = 0;
  if (std::optional<int64_t> given = op.getAxis())
    axis = *given < 0 ? *given + x.getRank() : *given;
  else
    data = vjp::reshapeTo(b, loc, data, {n, x.getNumElements()});
  auto shape = cast<RankedTensorType>(batchedType(x, n)).getShape();
  if (!batched[1]) {
    Value r = scatterLike(op, b, data, indices, updates, b.getI64IntegerAttr(axis + 1));
    results[0] = vjp::reshapeTo(b, loc, r, shape);
    return success();
  }
  // (n, pre..., m, post...) -> (n * m, pre..., post...).
  int64_t m = cast<RankedTensorType>(data.getType()).getDimSize(axis + 1);
  Value moved = moveAxis(b, loc, data, axis + 1, 1);
  SmallVector<int64_t> rows(cast<RankedTensorType>(moved.getType()).getShape().drop_front());
  rows[0] *= n;
  Value table = vjp::reshapeTo(b, loc, moved, rows);
  // (n, pre..., idx..., post...) -> (n * #idx, pre..., post...).
  auto indexType = cast<RankedTensorType>(indices.getType());
  int64_t idxRank = indexType.getRank() - 1, count = indexType.getNumElements();
  for (int64_t k = 0; k < idxRank; ++k)
    updates = moveAxis(b, loc, updates, 1 + axis + k, 1 + k);
  SmallVector<int64_t> slices{count};
  llvm::append_range(slices,
                     cast<RankedTensorType>(updates.getType()).getShape().drop_front(1 + idxRank));
  updates = vjp::reshapeTo(b, loc, updates, slices);
  Value flatRows = vjp::reshapeTo(b, loc, batchRows(b, loc, indices, m, n), {count});
  Value r = scatterLike(op, b, table, flatRows, updates, b.getI64IntegerAttr(0));
  SmallVector<int64_t> unflat{n};
  llvm::append_range(unflat, cast<RankedTensorType>(moved.getType()).getShape().drop_front());
  r = moveAxis(b, loc, vjp::reshapeTo(b, loc, r, unflat), 1, axis + 1);
  results[0] = vjp::reshapeTo(b, loc, r, shape);
  return success();
}

LogicalResult ScatterAddOp::buildBatched(OpBuilder &b, int64_t n, ValueRange operands,
                                         ArrayRef<bool> batched, MutableArrayRef<Value> results) {
  return batchScatter(*this, b, n, operands, batched, results);
}

LogicalResult ScatterOp::buildBatched(OpBuilder &b, int64_t n, ValueRange operands,
                                      ArrayRef<bool> batched, MutableArrayRef<Value> results) {
  return batchScatter(*this, b, n, operands, batched, results);
}

/// A tuple of batched fields (unbatched ones broadcast).
LogicalResult TupleOp::buildBatched(OpBuilder &b, int64_t n, ValueRange operands,
                                    ArrayRef<bool> batched, MutableArrayRef<Value> results) {
  results[0] = TupleOp::create(b, getLoc(), allBatched(b, getLoc(), operands, batched, n));
  return success();
}

LogicalResult TupleGetItemOp::buildBatched(OpBuilder &b, int64_t n, ValueRange operands,
                                           ArrayRef<bool>, MutableArrayRef<Value> results) {
  results[0] = createBatched(b, *this, operands, (*this)->getAttrs(), n)->getResult(0);
  return success();
}

/// Split along the axis past the batch: a tuple of batched pieces.
LogicalResult SplitOp::buildBatched(OpBuilder &b, int64_t n, ValueRange operands,
                                    ArrayRef<bool>, MutableArrayRef<Value> results) {
  results[0] = createBatchedWith(
      b, *this, operands, n, getAxisAttrName(),
      b.getI64IntegerAttr(batchedAxis(getAxis(), getX().getType().getRank())));
  return success();
}

/// debug_print of a batch: one print per example in turn (JAX's order), each
/// reading that example of the batched values (a unit slice, squeezed) and
/// the unbatched ones as they are.
LogicalResult DebugPrintOp::buildBatched(OpBuilder &b, int64_t n, ValueRange operands,
                                         ArrayRef<bool> batched, MutableArrayRef<Value>) {
  Location loc = getLoc();
  for (int64_t i = 0; i < n; ++i) {
    SmallVector<Value> example;
    for (auto [value, isBatched] : llvm::zip(operands, batched)) {
      if (!isBatched) {
        example.push_back(value);
        continue;
      }
      auto type = cast<RankedTensorType>(value.getType());
      Value slice = StridedSliceOp::create(b, loc, value, b.getDenseI64ArrayAttr({0}),
                                           b.getDenseI64ArrayAttr({i}),
                                           b.getDenseI64ArrayAttr({i + 1}), DenseI64ArrayAttr());
      example.push_back(vjp::reshapeTo(b, loc, slice, type.getShape().drop_front()));
    }
    DebugPrintOp::create(b, loc, getFormatAttr(), example);
  }
  return success();
}
