//===- ShapeOps.cpp - relax ops: shape manipulation -----------------------===//

#include "relax-mlir/Dialect/Relax/IR/RelaxOps.h"

#include "llvm/Support/MathExtras.h"

#include <algorithm>
#include <cmath>

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

//===----------------------------------------------------------------------===//
// Shape ops with inferred result types
//===----------------------------------------------------------------------===//

/// The operand of a one-operand shape op as a ranked tensor, or a diagnostic.
static FailureOr<RankedTensorType> rankedOperand(std::optional<Location> loc, Type type) {
  auto tensor = dyn_cast<RankedTensorType>(type);
  if (!tensor)
    return emitOptionalError(loc, "operand must be a ranked tensor");
  return tensor;
}

/// Normalizes `axes` (negative count from `rank`), rejecting out-of-range and
/// repeated axes; returns them sorted.
static FailureOr<SmallVector<int64_t>> normalizeAxes(std::optional<Location> loc,
                                                     ArrayRef<int64_t> axes, int64_t rank,
                                                     StringRef ofWhat = "") {
  SmallVector<int64_t> out;
  for (int64_t a : axes) {
    if (a < -rank || a >= rank)
      return emitOptionalError(loc, "axis ", a, " is out of range for rank ", rank, ofWhat);
    int64_t n = a < 0 ? a + rank : a;
    if (llvm::is_contained(out, n))
      return emitOptionalError(loc, "axis ", a, " is repeated");
    out.push_back(n);
  }
  llvm::sort(out);
  return out;
}

LogicalResult ExpandDimsOp::inferReturnTypes(MLIRContext *, std::optional<Location> loc,
                                             Adaptor adaptor, SmallVectorImpl<Type> &results) {
  auto x = rankedOperand(loc, adaptor.getX().getType());
  if (failed(x))
    return failure();
  ArrayRef<int64_t> axis = adaptor.getAxis();
  int64_t rank = x->getRank() + static_cast<int64_t>(axis.size());
  auto axes = normalizeAxes(loc, axis, rank, " (of the result: expand_dims axes are result positions)");
  if (failed(axes))
    return failure();
  SmallVector<int64_t> shape;
  for (int64_t d = 0, src = 0; d < rank; ++d)
    shape.push_back(llvm::is_contained(*axes, d) ? 1 : x->getDimSize(src++));
  results.push_back(x->clone(shape));
  return success();
}

LogicalResult SqueezeOp::inferReturnTypes(MLIRContext *, std::optional<Location> loc,
                                          Adaptor adaptor, SmallVectorImpl<Type> &results) {
  auto x = rankedOperand(loc, adaptor.getX().getType());
  if (failed(x))
    return failure();
  SmallVector<int64_t> axes;
  if (auto axis = adaptor.getAxis()) {
    auto normalized = normalizeAxes(loc, *axis, x->getRank());
    if (failed(normalized))
      return failure();
    axes = *normalized;
    for (int64_t a : axes)
      if (x->getDimSize(a) != 1)
        return emitOptionalError(loc, "cannot squeeze axis ", a, " of size ", x->getDimSize(a),
                                 ": only size-1 axes can be removed");
  } else {
    for (int64_t d = 0; d < x->getRank(); ++d)
      if (x->getDimSize(d) == 1)
        axes.push_back(d);
  }
  SmallVector<int64_t> shape;
  for (int64_t d = 0; d < x->getRank(); ++d)
    if (!llvm::is_contained(axes, d))
      shape.push_back(x->getDimSize(d));
  results.push_back(x->clone(shape));
  return success();
}

LogicalResult FlattenOp::inferReturnTypes(MLIRContext *, std::optional<Location> loc,
                                          Adaptor adaptor, SmallVectorImpl<Type> &results) {
  auto x = rankedOperand(loc, adaptor.getX().getType());
  if (failed(x))
    return failure();
  results.push_back(x->clone({x->getNumElements()}));
  return success();
}

LogicalResult ConcatOp::inferReturnTypes(MLIRContext *, std::optional<Location> loc,
                                         Adaptor adaptor, SmallVectorImpl<Type> &results) {
  ValueRange tensors = adaptor.getTensors();
  if (tensors.empty())
    return emitOptionalError(loc, "needs at least one operand");
  auto first = rankedOperand(loc, tensors[0].getType());
  if (failed(first))
    return failure();
  int64_t rank = first->getRank();
  if (rank == 0)
    return emitOptionalError(loc, "cannot concatenate 0-d tensors");
  int64_t axis = adaptor.getAxis();
  if (axis < -rank || axis >= rank)
    return emitOptionalError(loc, "axis ", axis, " is out of range for rank ", rank);
  if (axis < 0)
    axis += rank;
  SmallVector<int64_t> shape(first->getShape());
  for (auto [i, v] : llvm::enumerate(tensors.drop_front())) {
    auto t = rankedOperand(loc, v.getType());
    if (failed(t))
      return failure();
    if (t->getElementType() != first->getElementType())
      return emitOptionalError(loc, "operand ", i + 1, " has element type ", t->getElementType(),
                               ", operand 0 has ", first->getElementType());
    if (t->getRank() != rank)
      return emitOptionalError(loc, "operand ", i + 1, " has rank ", t->getRank(),
                               ", operand 0 has rank ", rank);
    for (int64_t d = 0; d < rank; ++d) {
      if (d == axis)
        continue;
      if (t->getDimSize(d) != shape[d])
        return emitOptionalError(loc, "operand ", i + 1, " has shape ",
                                 formatShape(t->getShape()), ", incompatible with operand 0's ",
                                 formatShape(first->getShape()), " off the concatenation axis ",
                                 axis);
    }
    shape[axis] += t->getDimSize(axis);
  }
  results.push_back(first->clone(shape));
  return success();
}

/// [begin, end) of each part of a split of an axis of size `size`.
static FailureOr<SmallVector<std::pair<int64_t, int64_t>>>
splitBounds(std::optional<Location> loc, Attribute spec, int64_t size) {
  SmallVector<std::pair<int64_t, int64_t>> bounds;
  if (auto sections = dyn_cast_if_present<IntegerAttr>(spec)) {
    int64_t n = sections.getInt();
    if (n <= 0)
      return emitOptionalError(loc, "indices_or_sections must be a positive number of "
                                    "sections, got ",
                               n);
    if (size % n != 0)
      return emitOptionalError(loc, "an axis of size ", size, " cannot be split into ", n,
                               " equal sections");
    for (int64_t i = 0; i < n; ++i)
      bounds.push_back({i * (size / n), (i + 1) * (size / n)});
    return bounds;
  }
  auto points = dyn_cast_if_present<DenseI64ArrayAttr>(spec);
  if (!points)
    return emitOptionalError(loc, "indices_or_sections must be an integer or an integer list");
  int64_t prev = 0;
  for (int64_t given : points.asArrayRef()) {
    // Negative points count from the end, as in numpy.
    int64_t p = given < 0 ? std::max<int64_t>(given + size, 0) : given;
    if (p < prev)
      return emitOptionalError(loc, "split points must be sorted (after counting negative ones "
                               "from the end), got ", given, " after ", prev);
    int64_t at = std::min(p, size);
    bounds.push_back({std::min(prev, size), at});
    prev = p;
  }
  bounds.push_back({std::min(prev, size), size});
  return bounds;
}

SmallVector<std::pair<int64_t, int64_t>> SplitOp::getBounds() {
  return *splitBounds(std::nullopt, getIndicesOrSections(),
                      getX().getType().getDimSize(getNormalizedAxis()));
}

LogicalResult SplitOp::inferReturnTypes(MLIRContext *ctx, std::optional<Location> loc,
                                        Adaptor adaptor, SmallVectorImpl<Type> &results) {
  auto x = rankedOperand(loc, adaptor.getX().getType());
  if (failed(x))
    return failure();
  int64_t rank = x->getRank();
  int64_t axis = adaptor.getAxisAttr() ? adaptor.getAxisAttr().getInt() : 0;
  if (rank == 0)
    return emitOptionalError(loc, "cannot split a 0-d tensor");
  if (axis < -rank || axis >= rank)
    return emitOptionalError(loc, "axis ", axis, " is out of range for rank ", rank);
  if (axis < 0)
    axis += rank;
  auto bounds = splitBounds(loc, adaptor.getIndicesOrSectionsAttr(), x->getDimSize(axis));
  if (failed(bounds))
    return failure();
  SmallVector<Type> parts;
  for (auto [begin, end] : *bounds) {
    SmallVector<int64_t> shape(x->getShape());
    shape[axis] = end - begin;
    parts.push_back(x->clone(shape));
  }
  results.push_back(TupleType::get(ctx, parts));
  return success();
}

/// take's result type (also scatter_add's updates type): x's shape with the
/// axis (x flattened without one) replaced by the indices' shape.
static FailureOr<RankedTensorType> takeResultType(std::optional<Location> loc, Type xType,
                                                  Type indicesType, IntegerAttr axisAttr) {
  auto x = rankedOperand(loc, xType);
  auto indices = rankedOperand(loc, indicesType);
  if (failed(x) || failed(indices))
    return failure();
  SmallVector<int64_t> xShape(x->getShape());
  int64_t axis = 0;
  if (axisAttr) {
    auto normalized = normalizeAxes(loc, {axisAttr.getInt()}, x->getRank());
    if (failed(normalized))
      return failure();
    axis = normalized->front();
  } else {
    xShape = {x->getNumElements()};
  }
  if (xShape[axis] == 0 && indices->getNumElements() != 0)
    return emitOptionalError(loc, "cannot index an axis of size 0");
  SmallVector<int64_t> shape(xShape.begin(), xShape.begin() + axis);
  llvm::append_range(shape, indices->getShape());
  shape.append(xShape.begin() + axis + 1, xShape.end());
  return x->clone(shape);
}

LogicalResult TakeOp::inferReturnTypes(MLIRContext *, std::optional<Location> loc,
                                       Adaptor adaptor, SmallVectorImpl<Type> &results) {
  auto type = takeResultType(loc, adaptor.getX().getType(), adaptor.getIndices().getType(),
                             adaptor.getAxisAttr());
  if (failed(type))
    return failure();
  results.push_back(*type);
  return success();
}

/// scatter_add's and scatter's result: x's type.
static LogicalResult inferScatterType(std::optional<Location> loc, Type x,
                                      SmallVectorImpl<Type> &results) {
  auto type = rankedOperand(loc, x);
  if (failed(type))
    return failure();
  results.push_back(*type);
  return success();
}

/// scatter_add's and scatter's updates: take's result type for x and indices.
static LogicalResult verifyScatterUpdates(Operation *op, Value x, Value indices, Value updates,
                                          IntegerAttr axis) {
  auto expected = takeResultType(op->getLoc(), x.getType(), indices.getType(), axis);
  if (failed(expected))
    return failure();
  auto type = cast<RankedTensorType>(updates.getType());
  if (type != *expected)
    return op->emitOpError("updates must have type ")
           << *expected << " (x's shape with the axis replaced by the indices' shape), got "
           << type;
  return success();
}

LogicalResult ScatterAddOp::inferReturnTypes(MLIRContext *, std::optional<Location> loc,
                                             Adaptor adaptor, SmallVectorImpl<Type> &results) {
  return inferScatterType(loc, adaptor.getX().getType(), results);
}

LogicalResult ScatterAddOp::verify() {
  return verifyScatterUpdates(*this, getX(), getIndices(), getUpdates(), getAxisAttr());
}

LogicalResult ScatterOp::inferReturnTypes(MLIRContext *, std::optional<Location> loc,
                                          Adaptor adaptor, SmallVectorImpl<Type> &results) {
  return inferScatterType(loc, adaptor.getX().getType(), results);
}

LogicalResult ScatterOp::verify() {
  StringRef r = getReduction();
  if (r != "set" && r != "multiply" && r != "min" && r != "max")
    return emitOpError("reduction must be \"set\", \"multiply\", \"min\" or \"max\" "
                       "(relax.scatter_add adds), got \"")
           << r << "\"";
  return verifyScatterUpdates(*this, getX(), getIndices(), getUpdates(), getAxisAttr());
}

/// numpy's slice of an axis of size n: the first index and the count.
static std::pair<int64_t, int64_t> sliceRange(int64_t begin, int64_t end, int64_t stride,
                                              int64_t n) {
  auto clampIndex = [&](int64_t i, int64_t lo, int64_t hi) {
    if (i < 0)
      i += n;
    return std::clamp(i, lo, hi);
  };
  // Counts in unsigned arithmetic: |stride| may be as large as 2^63.
  if (stride > 0) {
    int64_t b = clampIndex(begin, 0, n), e = clampIndex(end, 0, n);
    uint64_t step = static_cast<uint64_t>(stride);
    return {b, e > b ? static_cast<int64_t>(static_cast<uint64_t>(e - b - 1) / step + 1) : 0};
  }
  int64_t b = clampIndex(begin, -1, n - 1), e = clampIndex(end, -1, n - 1);
  uint64_t step = 0 - static_cast<uint64_t>(stride);
  return {b, b > e ? static_cast<int64_t>(static_cast<uint64_t>(b - e - 1) / step + 1) : 0};
}

/// Checks the attributes of a strided_slice of `x` and computes each axis's slice.
static FailureOr<SmallVector<StridedSliceOp::AxisSlice>>
computeAxisSlices(std::optional<Location> loc, RankedTensorType x, ArrayRef<int64_t> axes,
                  ArrayRef<int64_t> begin, ArrayRef<int64_t> end,
                  std::optional<ArrayRef<int64_t>> strides) {
  if (begin.size() != axes.size() || end.size() != axes.size() ||
      (strides && strides->size() != axes.size()))
    return emitOptionalError(
        loc, "axes, begin", strides ? ", end and strides" : " and end",
        " must have one entry per sliced axis; got ", axes.size(), ", ", begin.size(),
        strides ? ", " + std::to_string(end.size()) + " and " + std::to_string(strides->size())
                : " and " + std::to_string(end.size()));
  SmallVector<StridedSliceOp::AxisSlice> slices;
  for (int64_t d = 0; d < x.getRank(); ++d)
    slices.push_back({0, 1, x.getDimSize(d)});
  SmallVector<int64_t> seen;
  int64_t rank = x.getRank();
  for (size_t i = 0; i < axes.size(); ++i) {
    int64_t a = axes[i];
    if (a < -rank || a >= rank)
      return emitOptionalError(loc, "axis ", a, " is out of range for rank ", rank);
    if (a < 0)
      a += rank;
    if (llvm::is_contained(seen, a))
      return emitOptionalError(loc, "axis ", axes[i], " is repeated");
    seen.push_back(a);
    int64_t stride = strides ? (*strides)[i] : 1;
    if (stride == 0)
      return emitOptionalError(loc, "stride of axis ", axes[i], " is 0");
    auto [start, count] = sliceRange(begin[i], end[i], stride, x.getDimSize(a));
    // A slice of at most one element reads it with stride 1 (the stride no
    // longer matters, and |stride| may not be representable).
    slices[a] = {count > 0 ? start : 0, count > 1 ? stride : 1, count};
  }
  return slices;
}

SmallVector<StridedSliceOp::AxisSlice> StridedSliceOp::getAxisSlices() {
  return *computeAxisSlices(std::nullopt, getX().getType(), getAxes(), getBegin(), getEnd(),
                            getStrides());
}

LogicalResult StridedSliceOp::inferReturnTypes(MLIRContext *, std::optional<Location> loc,
                                               Adaptor adaptor, SmallVectorImpl<Type> &results) {
  auto x = rankedOperand(loc, adaptor.getX().getType());
  if (failed(x))
    return failure();
  auto slices = computeAxisSlices(loc, *x, adaptor.getAxes(), adaptor.getBegin(),
                                  adaptor.getEnd(), adaptor.getStrides());
  if (failed(slices))
    return failure();
  SmallVector<int64_t> shape =
      llvm::map_to_vector(*slices, [](const StridedSliceOp::AxisSlice &s) { return s.count; });
  results.push_back(x->clone(shape));
  return success();
}

LogicalResult TileOp::inferReturnTypes(MLIRContext *, std::optional<Location> loc,
                                       Adaptor adaptor, SmallVectorImpl<Type> &results) {
  auto x = rankedOperand(loc, adaptor.getX().getType());
  if (failed(x))
    return failure();
  ArrayRef<int64_t> repeats = adaptor.getRepeats();
  for (int64_t r : repeats)
    if (r < 0)
      return emitOptionalError(loc, "repeats must be non-negative, got ", r);
  int64_t rank = std::max<int64_t>(x->getRank(), repeats.size());
  SmallVector<int64_t> shape;
  for (int64_t d = 0; d < rank; ++d) {
    int64_t xd = d - (rank - x->getRank()), rd = d - (rank - static_cast<int64_t>(repeats.size()));
    int64_t size = xd >= 0 ? x->getDimSize(xd) : 1;
    int64_t rep = rd >= 0 ? repeats[rd] : 1;
    if (llvm::MulOverflow(size, rep, size))
      return emitOptionalError(loc, "tiled shape overflows int64");
    shape.push_back(size);
  }
  auto type = x->clone(shape);
  if (!hasRepresentableSize(type))
    return emitOptionalError(loc, "tiled tensor of shape ", formatShape(shape), " is too large");
  results.push_back(type);
  return success();
}

LogicalResult PadOp::inferReturnTypes(MLIRContext *, std::optional<Location> loc,
                                      Adaptor adaptor, SmallVectorImpl<Type> &results) {
  auto x = rankedOperand(loc, adaptor.getX().getType());
  if (failed(x))
    return failure();
  ArrayRef<int64_t> widths = adaptor.getPadWidth();
  if (static_cast<int64_t>(widths.size()) != 2 * x->getRank())
    return emitOptionalError(loc, "pad_width must have 2 * rank = ", 2 * x->getRank(),
                             " entries ((before, after) per axis), got ", widths.size());
  SmallVector<int64_t> shape;
  for (int64_t d = 0; d < x->getRank(); ++d) {
    int64_t before = widths[2 * d], after = widths[2 * d + 1];
    if (before < 0 || after < 0)
      return emitOptionalError(loc, "pad widths must be non-negative, got (", before, ", ",
                               after, ") for axis ", d);
    int64_t size = x->getDimSize(d);
    if (llvm::AddOverflow(size, before, size) || llvm::AddOverflow(size, after, size))
      return emitOptionalError(loc, "padded shape overflows int64");
    shape.push_back(size);
  }
  auto type = x->clone(shape);
  if (!hasRepresentableSize(type))
    return emitOptionalError(loc, "padded tensor of shape ", formatShape(shape), " is too large");
  // An integer or bool tensor pads with an integer value it can hold.
  Type elt = x->getElementType();
  if (auto attr = adaptor.getPadValueAttr(); attr && isa<IntegerType>(elt)) {
    double v = attr.getValueAsDouble();
    unsigned width = elt.getIntOrFloatBitWidth();
    double lo = width == 1 ? 0.0 : -std::ldexp(1.0, width - 1);
    double hi = width == 1 ? 1.0 : std::ldexp(1.0, width - 1) - 1;
    if (!(v == std::trunc(v) && v >= lo && v <= hi))
      return emitOptionalError(loc, "pad_value ", v, " is not representable in ", elt);
  }
  results.push_back(type);
  return success();
}

template <typename Op>
static LogicalResult verifyTriangle(Op op) {
  if (op.getX().getType().getRank() < 2)
    return op.emitOpError("needs a tensor of rank 2 or more, got rank ")
           << op.getX().getType().getRank();
  return success();
}
LogicalResult TriuOp::verify() { return verifyTriangle(*this); }
LogicalResult TrilOp::verify() { return verifyTriangle(*this); }
