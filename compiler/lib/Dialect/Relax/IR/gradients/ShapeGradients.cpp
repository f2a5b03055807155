//===- ShapeGradients.cpp - gradients of relax shape ops ------------------===//

#include "relax-mlir/Dialect/Relax/IR/GradientUtils.h"
#include "relax-mlir/Dialect/Relax/IR/RelaxOps.h"

using namespace mlir;
using namespace mlir::relax;
using namespace mlir::relax::vjp;

//===----------------------------------------------------------------------===//
// Shape manipulation
//===----------------------------------------------------------------------===//

LogicalResult PermuteDimsOp::buildVectorJacobianProduct(OpBuilder &b, ValueRange resultGrads,
                                                        ArrayRef<bool>,
                                                        MutableArrayRef<Value> operandGrads) {
  SmallVector<int64_t> perm = getPermutation();
  SmallVector<int64_t> inverse(perm.size());
  for (auto [i, p] : llvm::enumerate(perm))
    inverse[p] = i;
  operandGrads[0] =
      PermuteDimsOp::create(b, getLoc(), resultGrads[0], b.getDenseI64ArrayAttr(inverse));
  return success();
}

LogicalResult ReshapeOp::buildVectorJacobianProduct(OpBuilder &b, ValueRange resultGrads,
                                                    ArrayRef<bool>,
                                                    MutableArrayRef<Value> operandGrads) {
  operandGrads[0] = ReshapeOp::create(b, getLoc(), getX().getType(), resultGrads[0]);
  return success();
}

LogicalResult BroadcastToOp::buildVectorJacobianProduct(OpBuilder &b, ValueRange resultGrads,
                                                        ArrayRef<bool>,
                                                        MutableArrayRef<Value> operandGrads) {
  operandGrads[0] = CollapseSumToOp::create(b, getLoc(), getX().getType(), resultGrads[0]);
  return success();
}

LogicalResult CollapseSumToOp::buildVectorJacobianProduct(OpBuilder &b, ValueRange resultGrads,
                                                          ArrayRef<bool>,
                                                          MutableArrayRef<Value> operandGrads) {
  operandGrads[0] = BroadcastToOp::create(b, getLoc(), getX().getType(), resultGrads[0]);
  return success();
}

/// The adjoint of an op that only regroups elements: g reshaped to x's type.
static Value reshapeBack(OpBuilder &b, Location loc, Value g, Value x) {
  return reshapeTo(b, loc, g, cast<RankedTensorType>(x.getType()).getShape());
}

LogicalResult ExpandDimsOp::buildVectorJacobianProduct(OpBuilder &b, ValueRange resultGrads,
                                                       ArrayRef<bool>,
                                                       MutableArrayRef<Value> operandGrads) {
  operandGrads[0] = reshapeBack(b, getLoc(), resultGrads[0], getX());
  return success();
}

LogicalResult SqueezeOp::buildVectorJacobianProduct(OpBuilder &b, ValueRange resultGrads,
                                                    ArrayRef<bool>,
                                                    MutableArrayRef<Value> operandGrads) {
  operandGrads[0] = reshapeBack(b, getLoc(), resultGrads[0], getX());
  return success();
}

LogicalResult FlattenOp::buildVectorJacobianProduct(OpBuilder &b, ValueRange resultGrads,
                                                    ArrayRef<bool>,
                                                    MutableArrayRef<Value> operandGrads) {
  operandGrads[0] = reshapeBack(b, getLoc(), resultGrads[0], getX());
  return success();
}

/// `v` restricted to [begin, begin + size) along `axis`.
static Value sliceAxis(OpBuilder &b, Location loc, Value v, int64_t axis, int64_t begin,
                       int64_t size) {
  auto type = cast<RankedTensorType>(v.getType());
  if (begin == 0 && size == type.getDimSize(axis))
    return v;
  return StridedSliceOp::create(b, loc, v, b.getDenseI64ArrayAttr({axis}),
                                b.getDenseI64ArrayAttr({begin}),
                                b.getDenseI64ArrayAttr({begin + size}), DenseI64ArrayAttr());
}

LogicalResult ConcatOp::buildVectorJacobianProduct(OpBuilder &b, ValueRange resultGrads,
                                                   ArrayRef<bool> needsGrad,
                                                   MutableArrayRef<Value> operandGrads) {
  int64_t axis = getNormalizedAxis(), offset = 0;
  for (auto [i, operand] : llvm::enumerate(getTensors())) {
    int64_t size = cast<RankedTensorType>(operand.getType()).getDimSize(axis);
    if (needsGrad[i])
      operandGrads[i] = sliceAxis(b, getLoc(), resultGrads[0], axis, offset, size);
    offset += size;
  }
  return success();
}

LogicalResult SplitOp::buildVectorJacobianProduct(OpBuilder &b, ValueRange resultGrads,
                                                  ArrayRef<bool>,
                                                  MutableArrayRef<Value> operandGrads) {
  Location loc = getLoc();
  auto parts = cast<TupleType>(getType());
  SmallVector<Value> fields;
  for (int64_t i = 0, e = parts.size(); i < e; ++i)
    fields.push_back(b.createOrFold<TupleGetItemOp>(loc, resultGrads[0], i));
  operandGrads[0] = fields.size() == 1
                        ? fields[0]
                        : ConcatOp::create(b, loc, fields, b.getI64IntegerAttr(getNormalizedAxis()))
                              .getResult();
  return success();
}

// dx[pre, j, post] = sum_i (idx_i == j) g[pre, i, post]: a matmul of the
// transposed one-hot matrix of the (normalized, clamped) indices with g viewed
// as (pre, #indices, post); repeated indices accumulate.
// take's adjoint adds each gathered slice's adjoint back at its index:
// scatter_add into zeros, with take's own index normalization.
LogicalResult TakeOp::buildVectorJacobianProduct(OpBuilder &b, ValueRange resultGrads,
                                                 ArrayRef<bool>,
                                                 MutableArrayRef<Value> operandGrads) {
  Location loc = getLoc();
  operandGrads[0] = ScatterAddOp::create(b, loc, buildZeros(b, loc, getX().getType()),
                                         getIndices(), resultGrads[0], getAxisAttr());
  return success();
}

// scatter_add is linear in x (the identity) and in updates (a take).
LogicalResult ScatterAddOp::buildVectorJacobianProduct(OpBuilder &b, ValueRange resultGrads,
                                                       ArrayRef<bool> needsGrad,
                                                       MutableArrayRef<Value> operandGrads) {
  Location loc = getLoc();
  if (needsGrad[0])
    operandGrads[0] = resultGrads[0];
  if (needsGrad[2])
    operandGrads[2] = TakeOp::create(b, loc, resultGrads[0], getIndices(), getAxisAttr());
  return success();
}

// scatter is linear in its operands jointly after linearization: at each
// position p, dy[p] = Dx[p] dx[p] + sum over the updates j written at p of
// Du[j] du[j]. scatterPartials builds (Dx, Du), x's and the updates' types;
// the VJP is (g Dx, take(g) Du), the JVP Dx dx + scatter_add(Du du).
static std::pair<Value, Value> scatterPartials(ScatterOp op, OpBuilder &b) {
  Location loc = op.getLoc();
  Value x = op.getX(), idx = op.getIndices(), u = op.getUpdates(), y = op.getResult();
  RankedTensorType xType = op.getX().getType(), uType = op.getUpdates().getType();
  Type elt = xType.getElementType();
  IntegerAttr axis = op.getAxisAttr();
  auto at = [&](Value v) -> Value { return TakeOp::create(b, loc, v, idx, axis); };
  auto scatter = [&](Value into, Value values, StringRef how) -> Value {
    return ScatterOp::create(b, loc, into, idx, values, axis, b.getStringAttr(how));
  };
  auto scatterAdd = [&](Value into, Value values) -> Value {
    return ScatterAddOp::create(b, loc, into, idx, values, axis);
  };
  Value zero = scalarLike(b, loc, x, 0.0), one = scalarLike(b, loc, x, 1.0);
  StringRef reduction = op.getReduction();
  if (reduction == "set") {
    // The slot (1 + j) of the update each position holds last, 0 for none.
    auto idxType = cast<RankedTensorType>(idx.getType());
    Type i64 = b.getI64Type();
    int64_t m = idxType.getNumElements(), before = 0;
    if (axis)
      before = axis.getInt() < 0 ? axis.getInt() + xType.getRank() : axis.getInt();
    Value slots = iota(b, loc, m, i64, 1, 0);
    slots = add(b, loc, slots, scalarLike(b, loc, slots, 1.0));
    SmallVector<int64_t> shape(before, 1);
    llvm::append_range(shape, idxType.getShape());
    shape.append(uType.getRank() - shape.size(), 1);
    slots = BroadcastToOp::create(b, loc, uType.clone(i64), reshapeTo(b, loc, slots, shape));
    Value held = scatter(buildZeros(b, loc, xType.clone(i64)), slots, "set");
    Value none = scalarLike(b, loc, held, 0.0);
    Value dx = where(b, loc, EqualOp::create(b, loc, held, none), one, zero);
    Value du = where(b, loc, EqualOp::create(b, loc, at(held), slots), one, zero);
    return {dx, du};
  }
  if (reduction == "multiply") {
    // The product of the other updates at an update's index, without
    // dividing by zero (as prod's partials): the non-zero updates' product Q
    // over the update (none zero), Q (it is the only zero) or 0.
    Value isZero = EqualOp::create(b, loc, u, zero);
    Value nonZero = where(b, loc, isZero, one, u);
    Value ones = OnesLikeOp::create(b, loc, x);
    Value q = at(scatter(ones, nonZero, "multiply"));
    Value zeros = at(scatterAdd(buildZeros(b, loc, xType), astype(b, loc, isZero, elt)));
    Value others =
        where(b, loc, isZero, where(b, loc, EqualOp::create(b, loc, zeros, one), q, zero),
              where(b, loc, EqualOp::create(b, loc, zeros, zero), div(b, loc, q, nonZero), zero));
    return {scatter(ones, u, "multiply"), mul(b, loc, at(x), others)};
  }
  // min/max: split evenly among x and the updates equal to the result.
  Value hx = astype(b, loc, EqualOp::create(b, loc, x, y), elt);
  Value hu = astype(b, loc, EqualOp::create(b, loc, u, at(y)), elt);
  Value count = add(b, loc, hx, scatterAdd(buildZeros(b, loc, xType), hu));
  return {div(b, loc, hx, count), div(b, loc, hu, at(count))};
}

LogicalResult ScatterOp::buildVectorJacobianProduct(OpBuilder &b, ValueRange resultGrads,
                                                    ArrayRef<bool> needsGrad,
                                                    MutableArrayRef<Value> operandGrads) {
  Location loc = getLoc();
  auto [dx, du] = scatterPartials(*this, b);
  if (needsGrad[0])
    operandGrads[0] = mul(b, loc, resultGrads[0], dx);
  if (needsGrad[2])
    operandGrads[2] =
        mul(b, loc, TakeOp::create(b, loc, resultGrads[0], getIndices(), getAxisAttr()), du);
  return success();
}

LogicalResult ScatterOp::buildJacobianVectorProduct(OpBuilder &b, ValueRange operandTangents,
                                                    MutableArrayRef<Value> resultTangents) {
  Location loc = getLoc();
  auto [dx, du] = scatterPartials(*this, b);
  Value dy;
  if (Value tx = operandTangents[0])
    dy = mul(b, loc, dx, tx);
  if (Value tu = operandTangents[2]) {
    Value spread = ScatterAddOp::create(b, loc, buildZeros(b, loc, getX().getType()),
                                        getIndices(), mul(b, loc, du, tu), getAxisAttr());
    dy = dy ? add(b, loc, dy, spread) : spread;
  }
  if (!dy)
    dy = buildZeros(b, loc, getX().getType());
  resultTangents[0] = dy;
  return success();
}

// The adjoint scatters g back into zeros, one axis at a time: a negative
// stride reverses g first; a stride s > 1 interleaves s - 1 zeros after each
// element (reshape to (.., count, 1, ..), pad to (.., count, s, ..), reshape);
// then pad before the first index and after the last.
LogicalResult StridedSliceOp::buildVectorJacobianProduct(OpBuilder &b, ValueRange resultGrads,
                                                         ArrayRef<bool>,
                                                         MutableArrayRef<Value> operandGrads) {
  Location loc = getLoc();
  auto xType = cast<RankedTensorType>(getX().getType());
  Value v = resultGrads[0];
  for (auto [axis, slice] : llvm::enumerate(getAxisSlices())) {
    int64_t d = static_cast<int64_t>(axis), n = xType.getDimSize(d);
    auto [start, stride, count] = slice;
    if (start == 0 && stride == 1 && count == n)
      continue;
    if (count == 0)
      return success(); // nothing was read: a zero adjoint
    if (stride < 0) {
      v = reverse(b, loc, v, d);
      start += stride * (count - 1);
      stride = -stride;
    }
    auto type = cast<RankedTensorType>(v.getType());
    int64_t extent = count;
    if (stride > 1) {
      SmallVector<int64_t> split(type.getShape());
      split.insert(split.begin() + d + 1, 1);
      v = reshapeTo(b, loc, v, split);
      SmallVector<int64_t> widths(2 * split.size(), 0);
      widths[2 * (d + 1) + 1] = stride - 1;
      v = PadOp::create(b, loc, v, b.getDenseI64ArrayAttr(widths), b.getF64FloatAttr(0.0));
      extent = count * stride;
      SmallVector<int64_t> merged(type.getShape());
      merged[d] = extent;
      v = reshapeTo(b, loc, v, merged);
    }
    if (start + extent > n) {
      extent = n - start;
      v = sliceAxis(b, loc, v, d, 0, extent);
    }
    SmallVector<int64_t> widths(2 * xType.getRank(), 0);
    widths[2 * d] = start;
    widths[2 * d + 1] = n - start - extent;
    v = PadOp::create(b, loc, v, b.getDenseI64ArrayAttr(widths), b.getF64FloatAttr(0.0));
  }
  operandGrads[0] = v;
  return success();
}

// Sum over the repetitions: g viewed as (rep_0, size_0, rep_1, size_1, ...).
LogicalResult TileOp::buildVectorJacobianProduct(OpBuilder &b, ValueRange resultGrads,
                                                 ArrayRef<bool>,
                                                 MutableArrayRef<Value> operandGrads) {
  Location loc = getLoc();
  auto xType = cast<RankedTensorType>(getX().getType());
  auto outType = cast<RankedTensorType>(getType());
  int64_t rank = outType.getRank(), lead = rank - xType.getRank();
  SmallVector<int64_t> interleaved, repAxes;
  for (int64_t d = 0; d < rank; ++d) {
    int64_t size = d >= lead ? xType.getDimSize(d - lead) : 1;
    int64_t rep = size == 0 ? 0 : outType.getDimSize(d) / size;
    if (size == 0) // an empty axis: nothing to sum, any split of 0 elements works
      rep = 1;
    repAxes.push_back(interleaved.size());
    interleaved.push_back(rep);
    interleaved.push_back(size);
  }
  Value v = reshapeTo(b, loc, resultGrads[0], interleaved);
  v = sumOver(b, loc, v, repAxes, /*keepdims=*/false);
  operandGrads[0] = reshapeTo(b, loc, v, xType.getShape());
  return success();
}

LogicalResult PadOp::buildVectorJacobianProduct(OpBuilder &b, ValueRange resultGrads,
                                                ArrayRef<bool>,
                                                MutableArrayRef<Value> operandGrads) {
  auto xType = cast<RankedTensorType>(getX().getType());
  ArrayRef<int64_t> widths = getPadWidth();
  SmallVector<int64_t> axes, begin, end;
  for (int64_t d = 0; d < xType.getRank(); ++d) {
    axes.push_back(d);
    begin.push_back(widths[2 * d]);
    end.push_back(widths[2 * d] + xType.getDimSize(d));
  }
  Value g = resultGrads[0];
  if (g.getType() != xType)
    g = StridedSliceOp::create(b, getLoc(), g, b.getDenseI64ArrayAttr(axes),
                               b.getDenseI64ArrayAttr(begin), b.getDenseI64ArrayAttr(end),
                               DenseI64ArrayAttr());
  operandGrads[0] = g;
  return success();
}

// pad is affine: its tangent pads with zeros.
LogicalResult PadOp::buildJacobianVectorProduct(OpBuilder &b, ValueRange operandTangents,
                                                MutableArrayRef<Value> resultTangents) {
  resultTangents[0] = PadOp::create(b, getLoc(), operandTangents[0], getPadWidthAttr(),
                                    b.getF64FloatAttr(0.0));
  return success();
}

LogicalResult TriuOp::buildVectorJacobianProduct(OpBuilder &b, ValueRange resultGrads,
                                                 ArrayRef<bool>,
                                                 MutableArrayRef<Value> operandGrads) {
  operandGrads[0] = TriuOp::create(b, getLoc(), resultGrads[0], getKAttr());
  return success();
}

LogicalResult TrilOp::buildVectorJacobianProduct(OpBuilder &b, ValueRange resultGrads,
                                                 ArrayRef<bool>,
                                                 MutableArrayRef<Value> operandGrads) {
  operandGrads[0] = TrilOp::create(b, getLoc(), resultGrads[0], getKAttr());
  return success();
}
