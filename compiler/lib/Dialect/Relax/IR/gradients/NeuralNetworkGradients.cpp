//===- NeuralNetworkGradients.cpp - gradients of relax neural-network ops -===//
//
// Each rule builds relax ops only (so the adjoint can be differentiated
// again); gathers by class index are written as one-hot masks.
//
//===----------------------------------------------------------------------===//

#include "relax-mlir/Dialect/Relax/IR/GradientUtils.h"
#include "relax-mlir/Dialect/Relax/IR/RelaxOps.h"

#include <limits>
#include <numeric>

using namespace mlir;
using namespace mlir::relax;
using namespace mlir::relax::vjp;

//===----------------------------------------------------------------------===//
// Softmax family
//===----------------------------------------------------------------------===//

// dx = y (g - sum(g y))
LogicalResult SoftmaxOp::buildVectorJacobianProduct(OpBuilder &b, ValueRange resultGrads,
                                                    ArrayRef<bool>,
                                                    MutableArrayRef<Value> operandGrads) {
  Location loc = getLoc();
  Value g = resultGrads[0], y = getResult();
  Value dot = sumOver(b, loc, mul(b, loc, g, y), {getNormalizedAxis()}, /*keepdims=*/true);
  operandGrads[0] = mul(b, loc, y, sub(b, loc, g, dot));
  return success();
}

// dx = g - exp(y) sum(g)
LogicalResult LogSoftmaxOp::buildVectorJacobianProduct(OpBuilder &b, ValueRange resultGrads,
                                                       ArrayRef<bool>,
                                                       MutableArrayRef<Value> operandGrads) {
  Location loc = getLoc();
  Value g = resultGrads[0];
  Value total = sumOver(b, loc, g, {getNormalizedAxis()}, /*keepdims=*/true);
  operandGrads[0] = sub(b, loc, g, mul(b, loc, ExpOp::create(b, loc, getResult()), total));
  return success();
}

// dy = y (t - sum(t y))
LogicalResult SoftmaxOp::buildJacobianVectorProduct(OpBuilder &b, ValueRange operandTangents,
                                                    MutableArrayRef<Value> resultTangents) {
  Location loc = getLoc();
  Value t = operandTangents[0], y = getResult();
  Value dot = sumOver(b, loc, mul(b, loc, t, y), {getNormalizedAxis()}, /*keepdims=*/true);
  resultTangents[0] = mul(b, loc, y, sub(b, loc, t, dot));
  return success();
}

// dy = t - sum(exp(y) t)
LogicalResult LogSoftmaxOp::buildJacobianVectorProduct(OpBuilder &b, ValueRange operandTangents,
                                                       MutableArrayRef<Value> resultTangents) {
  Location loc = getLoc();
  Value t = operandTangents[0];
  Value dot = sumOver(b, loc, mul(b, loc, ExpOp::create(b, loc, getResult()), t),
                      {getNormalizedAxis()}, /*keepdims=*/true);
  resultTangents[0] = sub(b, loc, t, dot);
  return success();
}

//===----------------------------------------------------------------------===//
// Losses
//===----------------------------------------------------------------------===//

// d(-sum(p l) / N) = -l / N dp - p / N dl
LogicalResult CrossEntropyWithLogitsOp::buildVectorJacobianProduct(
    OpBuilder &b, ValueRange resultGrads, ArrayRef<bool> needsGrad,
    MutableArrayRef<Value> operandGrads) {
  Location loc = getLoc();
  Value scaled = mul(b, loc, resultGrads[0],
                     scalarLike(b, loc, getPred(), -1.0 / static_cast<double>(getBatchSize())));
  if (needsGrad[0])
    operandGrads[0] = mul(b, loc, scaled, getLabels());
  if (needsGrad[1])
    operandGrads[1] = mul(b, loc, scaled, getPred());
  return success();
}

/// What both rules of nll_loss read. With onehot[n, c, d...] = (targets[n,
/// d...] == c), valid = (t != ignore_index and 0 <= t < C) and w_t =
/// weights[t] * valid, the element losses are -w_t p_t, p_t = pred at the
/// target; "mean" divides their sum S by D = sum(w_t).
struct NllTerms {
  Value isTarget, onehot, valid, weightT, denominator;
  SmallVector<int64_t> keptShape; // pred's shape with a size-1 class axis
  SmallVector<int64_t> weightShape; // 1s with C at the class axis
  SmallVector<int64_t> others;    // pred's axes but the class axis
  SmallVector<int64_t> targetAxes; // every axis of the targets
  int64_t classAxis, classes;

  NllTerms(NllLossOp op, OpBuilder &b) {
    Location loc = op.getLoc();
    Value pred = op.getPred(), targets = op.getTargets(), weights = op.getWeights();
    auto predType = cast<RankedTensorType>(pred.getType());
    auto targetType = cast<RankedTensorType>(targets.getType());
    Type elt = predType.getElementType();
    int64_t rank = predType.getRank();
    classAxis = op.getClassAxis();
    classes = predType.getDimSize(classAxis);
    // The targets with a size-1 class axis, so that they broadcast against pred.
    keptShape.assign(predType.getShape().begin(), predType.getShape().end());
    keptShape[classAxis] = 1;
    weightShape.assign(rank, 1);
    weightShape[classAxis] = classes;
    for (int64_t d = 0; d < rank; ++d)
      if (d != classAxis)
        others.push_back(d);
    targetAxes = llvm::to_vector(llvm::seq<int64_t>(0, targetType.getRank()));
    Value keptTargets = reshapeTo(b, loc, targets, keptShape);
    isTarget = EqualOp::create(
        b, loc, keptTargets, iota(b, loc, classes, targetType.getElementType(), rank, classAxis));
    onehot = astype(b, loc, isTarget, elt);
    auto ignore = arith::ConstantOp::create(
        b, loc,
        DenseElementsAttr::get(RankedTensorType::get({}, targetType.getElementType()),
                               b.getIntegerAttr(targetType.getElementType(), op.getIgnoreIndex())
                                   .getValue()));
    // 1 where the target is a class in range and not ignored.
    Value inRange = sumOver(b, loc, onehot, {classAxis}, /*keepdims=*/false);
    valid = mul(b, loc, inRange, astype(b, loc, NotEqualOp::create(b, loc, targets, ignore), elt));
    // w_t: the target's weight (0 for an ignored target or one out of range).
    weightT = valid;
    if (weights)
      weightT = mul(b, loc, gatherClass(b, loc, reshapeTo(b, loc, weights, weightShape)), valid);
    if (op.getReduction() == "mean")
      denominator = sumOver(b, loc, weightT, targetAxes, /*keepdims=*/false);
  }

  /// v (broadcasting against pred) at each target's class, summed over the
  /// class axis: the targets' shape.
  Value gatherClass(OpBuilder &b, Location loc, Value v) const {
    return sumOver(b, loc, mul(b, loc, onehot, v), {classAxis}, /*keepdims=*/false);
  }
  /// pred at the targets, 0 where no class is hit. Gathered by selection,
  /// not multiplication: pred may hold -inf, and 0 * -inf is NaN.
  Value predAtTargets(OpBuilder &b, Location loc, Value pred, Value zero) const {
    return sumOver(b, loc, where(b, loc, isTarget, pred, zero), {classAxis},
                   /*keepdims=*/false);
  }
  /// `v` where the target is valid, 0 elsewhere (by selection, as above).
  Value whereValid(OpBuilder &b, Location loc, Value v, Value zero) const {
    return where(b, loc, greater(b, loc, valid, zero), v, zero);
  }
};

//   dpred = onehot * (-g w_t [/ D]),
//   dw_t  = g valid (-p_t) for "none"/"sum", g valid (-p_t - y) / D for "mean",
// and dweights sums dw_t into the target classes.
LogicalResult NllLossOp::buildVectorJacobianProduct(OpBuilder &b, ValueRange resultGrads,
                                                    ArrayRef<bool> needsGrad,
                                                    MutableArrayRef<Value> operandGrads) {
  Location loc = getLoc();
  NllTerms terms(*this, b);
  Value g = resultGrads[0];
  if (needsGrad[0]) {
    Value coef = neg(b, loc, mul(b, loc, g, terms.weightT));
    if (terms.denominator)
      coef = div(b, loc, coef, terms.denominator);
    operandGrads[0] = mul(b, loc, terms.onehot, reshapeTo(b, loc, coef, terms.keptShape));
  }
  if (getWeights() && needsGrad[2]) {
    Value zero = scalarLike(b, loc, getPred(), 0.0);
    Value local = neg(b, loc, terms.predAtTargets(b, loc, getPred(), zero));
    if (terms.denominator)
      local = div(b, loc, sub(b, loc, local, getResult()), terms.denominator);
    Value dwT = terms.whereValid(b, loc, mul(b, loc, g, local), zero);
    Value perClass = mul(b, loc, terms.onehot, reshapeTo(b, loc, dwT, terms.keptShape));
    operandGrads[2] = reshapeTo(b, loc, sumOver(b, loc, perClass, terms.others, false),
                                {terms.classes});
  }
  return success();
}

// The element losses' tangent is -w_t tp_t - tw_t p_t; "sum" adds them, and
// "mean" gives (dS - y dD) / D with dD = sum(tw_t).
LogicalResult NllLossOp::buildJacobianVectorProduct(OpBuilder &b, ValueRange operandTangents,
                                                    MutableArrayRef<Value> resultTangents) {
  Location loc = getLoc();
  NllTerms terms(*this, b);
  Value tp = operandTangents[0], tw = getWeights() ? operandTangents[2] : Value();
  Value elements, twT;
  if (tp)
    elements = neg(b, loc, mul(b, loc, terms.weightT, terms.gatherClass(b, loc, tp)));
  if (tw) {
    twT = mul(b, loc, terms.gatherClass(b, loc, reshapeTo(b, loc, tw, terms.weightShape)),
              terms.valid);
    Value zero = scalarLike(b, loc, getPred(), 0.0);
    Value predT = terms.predAtTargets(b, loc, getPred(), zero);
    Value d = neg(b, loc, mul(b, loc, twT, terms.whereValid(b, loc, predT, zero)));
    elements = elements ? add(b, loc, elements, d) : d;
  }
  if (getReduction() == "none") {
    resultTangents[0] = elements;
    return success();
  }
  Value total = sumOver(b, loc, elements, terms.targetAxes, /*keepdims=*/false);
  if (terms.denominator) {
    if (twT)
      total = sub(b, loc, total,
                  mul(b, loc, getResult(),
                      sumOver(b, loc, twT, terms.targetAxes, /*keepdims=*/false)));
    total = div(b, loc, total, terms.denominator);
  }
  resultTangents[0] = total;
  return success();
}

// dy = -(sum(tp l) + sum(p tl)) / N
LogicalResult CrossEntropyWithLogitsOp::buildJacobianVectorProduct(
    OpBuilder &b, ValueRange operandTangents, MutableArrayRef<Value> resultTangents) {
  Location loc = getLoc();
  Value products;
  Value others[] = {getLabels(), getPred()};
  for (auto [tangent, other] : llvm::zip(operandTangents, others)) {
    if (!tangent)
      continue;
    Value term = mul(b, loc, tangent, other);
    products = products ? add(b, loc, products, term) : term;
  }
  int64_t rank = getPred().getType().getRank();
  Value total = sumOver(b, loc, products, llvm::to_vector(llvm::seq<int64_t>(0, rank)),
                        /*keepdims=*/false);
  resultTangents[0] = mul(b, loc, total,
                          scalarLike(b, loc, total, -1.0 / static_cast<double>(getBatchSize())));
  return success();
}

//===----------------------------------------------------------------------===//
// Normalization
//===----------------------------------------------------------------------===//

/// What both rules of layer_norm read: xhat = (x - mean) rstd with rstd =
/// 1 / sqrt(var + eps), over the normalized axes.
struct LayerNormTerms {
  SmallVector<int64_t> axes, others; // normalized axes, and the rest
  SmallVector<int64_t> paramShape;   // x's rank, 1 but at the normalized axes
  Value rstd, xhat;

  LayerNormTerms(LayerNormOp op, OpBuilder &b) : axes(op.getNormalizedAxes()) {
    Location loc = op.getLoc();
    Value x = op.getX();
    auto xType = cast<RankedTensorType>(x.getType());
    paramShape.assign(xType.getRank(), 1);
    for (int64_t d = 0; d < xType.getRank(); ++d) {
      if (llvm::is_contained(axes, d))
        paramShape[d] = xType.getDimSize(d);
      else
        others.push_back(d);
    }
    Value centered = sub(b, loc, x, meanKeep(b, loc, x, axes));
    Value var = meanKeep(b, loc, mul(b, loc, centered, centered), axes);
    rstd = RsqrtOp::create(
        b, loc, add(b, loc, var, scalarLike(b, loc, x, op.getEpsilon().convertToDouble())));
    xhat = mul(b, loc, centered, rstd);
  }
};

// With dxhat = g gamma:
//   dx = rstd (dxhat - mean(dxhat) - xhat mean(dxhat xhat)),
//   dgamma = sum(g xhat), dbeta = sum(g) over the other axes.
LogicalResult LayerNormOp::buildVectorJacobianProduct(OpBuilder &b, ValueRange resultGrads,
                                                      ArrayRef<bool> needsGrad,
                                                      MutableArrayRef<Value> operandGrads) {
  Location loc = getLoc();
  Value g = resultGrads[0];
  LayerNormTerms terms(*this, b);
  ArrayRef<int64_t> axes = terms.axes;
  Value xhat = terms.xhat;
  auto paramType = cast<RankedTensorType>(getGamma().getType());
  if (needsGrad[0]) {
    Value dxhat = mul(b, loc, g, reshapeTo(b, loc, getGamma(), terms.paramShape));
    Value inner = sub(b, loc, sub(b, loc, dxhat, meanKeep(b, loc, dxhat, axes)),
                      mul(b, loc, xhat, meanKeep(b, loc, mul(b, loc, dxhat, xhat), axes)));
    operandGrads[0] = mul(b, loc, terms.rstd, inner);
  }
  if (needsGrad[1])
    operandGrads[1] = reshapeTo(b, loc, sumOver(b, loc, mul(b, loc, g, xhat), terms.others, false),
                                paramType.getShape());
  if (needsGrad[2])
    operandGrads[2] =
        reshapeTo(b, loc, sumOver(b, loc, g, terms.others, false), paramType.getShape());
  return success();
}

// With tc = tx - mean(tx): dxhat = rstd (tc - xhat mean(xhat tc)), and
// dy = dxhat gamma + xhat tgamma + tbeta.
LogicalResult LayerNormOp::buildJacobianVectorProduct(OpBuilder &b, ValueRange operandTangents,
                                                      MutableArrayRef<Value> resultTangents) {
  Location loc = getLoc();
  LayerNormTerms terms(*this, b);
  ArrayRef<int64_t> axes = terms.axes;
  Value tx = operandTangents[0], tgamma = operandTangents[1], tbeta = operandTangents[2];
  Value dy;
  auto accumulate = [&](Value term) { dy = dy ? add(b, loc, dy, term) : term; };
  if (tx) {
    Value tc = sub(b, loc, tx, meanKeep(b, loc, tx, axes));
    Value dxhat = mul(b, loc, terms.rstd,
                      sub(b, loc, tc, mul(b, loc, terms.xhat,
                                          meanKeep(b, loc, mul(b, loc, terms.xhat, tc), axes))));
    accumulate(mul(b, loc, dxhat, reshapeTo(b, loc, getGamma(), terms.paramShape)));
  }
  if (tgamma)
    accumulate(mul(b, loc, terms.xhat, reshapeTo(b, loc, tgamma, terms.paramShape)));
  if (tbeta)
    accumulate(reshapeTo(b, loc, tbeta, terms.paramShape));
  resultTangents[0] = broadcastToType(b, loc, dy, getType());
  return success();
}

//===----------------------------------------------------------------------===//
// Convolution and pooling
//===----------------------------------------------------------------------===//

/// `v` padded along `axis` by `before`/`after` elements of `value`, or cropped
/// where a count is negative. The crops are taken before the padding when
/// they lie within `v`; a crop reaching into the other side's padding (a
/// 1-wide input read with left padding 2 and a window ending before it) is
/// taken from the padded tensor.
static Value padOrCrop(OpBuilder &b, Location loc, Value v, int64_t axis, int64_t before,
                       int64_t after, double value = 0.0) {
  auto type = cast<RankedTensorType>(v.getType());
  int64_t n = type.getDimSize(axis);
  int64_t cropBefore = std::max<int64_t>(-before, 0), cropAfter = std::max<int64_t>(-after, 0);
  auto crop = [&](Value x, int64_t size) -> Value {
    if (cropBefore == 0 && cropAfter == 0)
      return x;
    return StridedSliceOp::create(b, loc, x, b.getDenseI64ArrayAttr({axis}),
                                  b.getDenseI64ArrayAttr({cropBefore}),
                                  b.getDenseI64ArrayAttr({size - cropAfter}), DenseI64ArrayAttr());
  };
  bool cropFirst = cropBefore + cropAfter <= n;
  if (cropFirst)
    v = crop(v, n);
  before = std::max<int64_t>(before, 0);
  after = std::max<int64_t>(after, 0);
  if (before != 0 || after != 0) {
    SmallVector<int64_t> widths(2 * type.getRank(), 0);
    widths[2 * axis] = before;
    widths[2 * axis + 1] = after;
    v = PadOp::create(b, loc, v, b.getDenseI64ArrayAttr(widths), b.getF64FloatAttr(value));
  }
  return cropFirst ? v : crop(v, n + before + after);
}

/// w (O, C / groups, KH, KW) with its channel axes swapped within each group:
/// (C, O / groups, KH, KW), the filter of the transposed convolution.
static Value swapGroupChannels(OpBuilder &b, Location loc, Value w, int64_t groups) {
  auto wType = cast<RankedTensorType>(w.getType());
  int64_t perGroupOut = wType.getDimSize(0) / groups, in = wType.getDimSize(1);
  int64_t kh = wType.getDimSize(2), kw = wType.getDimSize(3);
  Value wt = reshapeTo(b, loc, w, {groups, perGroupOut, in, kh, kw});
  wt = PermuteDimsOp::create(b, loc, wt, b.getDenseI64ArrayAttr({0, 2, 1, 3, 4}));
  return reshapeTo(b, loc, wt, {groups * in, perGroupOut, kh, kw});
}

/// The adjoint of a stride-1 convolution's input: the convolution of `g`
/// padded (or cropped) so that the output is x's size, with the weights
/// flipped and their channel axes swapped within each group.
static Value stride1InputGrad(OpBuilder &b, Location loc, Value g, Value w,
                              ArrayRef<WindowAxis> axes, int64_t groups) {
  Value v = g;
  for (auto [i, a] : llvm::enumerate(axes))
    v = padOrCrop(b, loc, v, 2 + static_cast<int64_t>(i), a.dilation * (a.kernel - 1) - a.padBefore,
                  a.size + a.padBefore - (a.out - 1) - 1);
  Value wt = reverse(b, loc, reverse(b, loc, swapGroupChannels(b, loc, w, groups), 2), 3);
  return Conv2dOp::create(b, loc, v, wt, b.getDenseI64ArrayAttr({1, 1}),
                          b.getDenseI64ArrayAttr({0, 0, 0, 0}),
                          b.getDenseI64ArrayAttr({axes[0].dilation, axes[1].dilation}),
                          b.getI64IntegerAttr(groups));
}

namespace {
/// One phase of a strided convolution's input adjoint along one axis: the
/// input positions i = phase + stride * t (t < count) are read only by the
/// kernel taps first, first + step, ... (`taps` of them), and their adjoint is
/// a stride-1 correlation of g, padded by padBefore/padAfter (negative:
/// cropped), with those taps reversed, `dilation` apart.
struct InputPhase {
  int64_t count = 0, first = 0, taps = 0, step = 1, dilation = 1;
  int64_t padBefore = 0, padAfter = 0;
};

/// The `stride` phases of axis `a`. Tap k reads position k * dilation + o *
/// stride - padBefore, so the taps reading phase p satisfy k * dilation = p +
/// padBefore (mod stride): every stride / gcd taps from the first, each one
/// output `dilation / gcd` earlier.
SmallVector<InputPhase> inputPhases(const WindowAxis &a) {
  int64_t s = a.stride, d = a.dilation, common = std::gcd(s, d);
  SmallVector<InputPhase> phases;
  for (int64_t p = 0; p < s; ++p) {
    InputPhase ph;
    ph.count = p < a.size ? (a.size - p + s - 1) / s : 0;
    ph.step = s / common;
    ph.dilation = d / common;
    for (int64_t k = 0; k < std::min(a.kernel, ph.step); ++k) {
      int64_t r = (k * d - p - a.padBefore) % s;
      if (r == 0) {
        ph.first = k;
        ph.taps = (a.kernel - 1 - k) / ph.step + 1;
        break;
      }
    }
    if (ph.taps > 0 && ph.count > 0) {
      // Output index of tap `first` at t = 0 (exact: the tap reads phase p).
      int64_t offset = (p + a.padBefore - ph.first * d) / s;
      ph.padBefore = (ph.taps - 1) * ph.dilation - offset;
      ph.padAfter = ph.count + offset - a.out;
    }
    phases.push_back(ph);
  }
  return phases;
}
} // namespace

/// The adjoint of a convolution's input: the transposed convolution of `g`
/// with `w` (O, C / groups, KH, KW). With strides, one stride-1 convolution
/// per phase of the input (positions with the same remainders modulo the
/// strides), each with the kernel taps that read that phase: no zeros are
/// interleaved into g (dilating g by 2x2 made the stride-2 input gradient
/// 4x the work and 5x the time of a peer's). The phases are interleaved back
/// by a reshape of their concatenation.
static Value convInputGrad(OpBuilder &b, Location loc, Value g, Value w,
                           ArrayRef<WindowAxis> axes, int64_t groups) {
  if (axes[0].stride == 1 && axes[1].stride == 1)
    return stride1InputGrad(b, loc, g, w, axes, groups);
  auto gType = cast<RankedTensorType>(g.getType());
  auto wType = cast<RankedTensorType>(w.getType());
  int64_t n = gType.getDimSize(0), c = wType.getDimSize(1) * groups;
  SmallVector<InputPhase> rows = inputPhases(axes[0]), cols = inputPhases(axes[1]);
  int64_t sh = axes[0].stride, sw = axes[1].stride;
  int64_t th = rows[0].count, tw = cols[0].count; // the most positions of any phase
  Type elt = gType.getElementType();
  if (gType.getNumElements() == 0 || n == 0 || c == 0 || th == 0 || tw == 0)
    return ZerosOp::create(b, loc,
                           RankedTensorType::get({n, c, axes[0].size, axes[1].size}, elt));
  Value swapped = swapGroupChannels(b, loc, w, groups);
  SmallVector<Value> rowParts;
  for (const InputPhase &r : rows) {
    SmallVector<Value> parts;
    for (const InputPhase &q : cols) {
      Value part;
      if (r.taps > 0 && q.taps > 0 && r.count > 0 && q.count > 0) {
        Value v = padOrCrop(b, loc, g, 2, r.padBefore, r.padAfter);
        v = padOrCrop(b, loc, v, 3, q.padBefore, q.padAfter);
        auto lastOf = [](const InputPhase &ph) { return ph.first + (ph.taps - 1) * ph.step; };
        int64_t kh = wType.getDimSize(2), kw = wType.getDimSize(3);
        Value taps = StridedSliceOp::create(
            b, loc, swapped, b.getDenseI64ArrayAttr({2, 3}),
            b.getDenseI64ArrayAttr({lastOf(r), lastOf(q)}),
            b.getDenseI64ArrayAttr({r.first - 1 - kh, q.first - 1 - kw}),
            b.getDenseI64ArrayAttr({-r.step, -q.step}));
        part = Conv2dOp::create(b, loc, v, taps, b.getDenseI64ArrayAttr({1, 1}),
                                b.getDenseI64ArrayAttr({0, 0, 0, 0}),
                                b.getDenseI64ArrayAttr({r.dilation, q.dilation}),
                                b.getI64IntegerAttr(groups));
        part = padOrCrop(b, loc, part, 2, 0, th - r.count);
        part = padOrCrop(b, loc, part, 3, 0, tw - q.count);
      } else {
        part = ZerosOp::create(b, loc, RankedTensorType::get({n, c, th, tw}, elt));
      }
      parts.push_back(reshapeTo(b, loc, part, {n, c, th, 1, tw, 1}));
    }
    rowParts.push_back(parts.size() == 1
                           ? parts.front()
                           : ConcatOp::create(b, loc, parts, b.getI64IntegerAttr(5)).getResult());
  }
  Value dx = rowParts.size() == 1
                 ? rowParts.front()
                 : ConcatOp::create(b, loc, rowParts, b.getI64IntegerAttr(3)).getResult();
  dx = reshapeTo(b, loc, dx, {n, c, th * sh, tw * sw});
  dx = padOrCrop(b, loc, dx, 2, 0, axes[0].size - th * sh);
  return padOrCrop(b, loc, dx, 3, 0, axes[1].size - tw * sw);
}

/// A convolution's filter adjoint as one matrix product: the patches of x
/// (N, C*KH*KW, OH, OW) viewed as (C*KH*KW, N*OH*OW) times g viewed as
/// (N*OH*OW, O), then transposed to (O, C, KH, KW). The contraction runs over
/// the batch and the output pixels, and its result rows (C*KH*KW) and columns
/// (O) are both as wide as the channels: as a convolution of x with g as the
/// kernel (the rule before), the 16x16 output adjoint was the window and the
/// 3x3 filter the output, 9 of 16 vector lanes busy (3-9x slower).
static Value convFilterGrad(OpBuilder &b, Conv2dOp conv, Value g) {
  Location loc = conv.getLoc();
  RankedTensorType wType = conv.getW().getType();
  int64_t o = wType.getDimSize(0), c = wType.getDimSize(1);
  int64_t kh = wType.getDimSize(2), kw = wType.getDimSize(3);
  auto gType = cast<RankedTensorType>(g.getType());
  int64_t n = gType.getDimSize(0), pixels = gType.getDimSize(2) * gType.getDimSize(3);
  // The windows the convolution read: its own strides, padding and dilation.
  Value patches = Conv2dPatchesOp::create(b, loc, conv.getX(), b.getDenseI64ArrayAttr({kh, kw}),
                                          conv.getStridesAttr(), conv.getPaddingAttr(),
                                          conv.getDilationAttr());
  patches = reshapeTo(b, loc, patches, {n, c * kh * kw, pixels});
  patches = PermuteDimsOp::create(b, loc, patches, b.getDenseI64ArrayAttr({1, 0, 2}));
  patches = reshapeTo(b, loc, patches, {c * kh * kw, n * pixels});
  Value gm = PermuteDimsOp::create(b, loc, g, b.getDenseI64ArrayAttr({0, 2, 3, 1}));
  gm = reshapeTo(b, loc, gm, {n * pixels, o});
  Value dw = MatmulOp::create(b, loc, patches, gm);
  dw = buildTransposeLastTwo(b, loc, dw);
  return reshapeTo(b, loc, dw, wType.getShape());
}

/// The filter adjoint of a grouped convolution: a convolution of x (channels
/// as batch, batch as channels, per group) with g as the weights, strides and
/// dilation exchanged.
static Value groupedConvFilterGrad(OpBuilder &b, Location loc, Value x, Value g,
                                   RankedTensorType wType, ArrayRef<WindowAxis> axes,
                                   int64_t groups) {
  int64_t n = cast<RankedTensorType>(x.getType()).getDimSize(0), in = wType.getDimSize(1);
  int64_t perGroupOut = wType.getDimSize(0) / groups;
  for (auto [i, a] : llvm::enumerate(axes))
    x = padOrCrop(b, loc, x, 2 + static_cast<int64_t>(i), a.padBefore, a.readPadAfter());
  auto padded = cast<RankedTensorType>(x.getType());
  int64_t hp = padded.getDimSize(2), wp = padded.getDimSize(3);
  x = reshapeTo(b, loc, x, {n, groups, in, hp, wp});
  x = PermuteDimsOp::create(b, loc, x, b.getDenseI64ArrayAttr({2, 1, 0, 3, 4}));
  x = reshapeTo(b, loc, x, {in, groups * n, hp, wp});
  auto gType = cast<RankedTensorType>(g.getType());
  int64_t oh = gType.getDimSize(2), ow = gType.getDimSize(3);
  Value gw = reshapeTo(b, loc, g, {n, groups, perGroupOut, oh, ow});
  gw = PermuteDimsOp::create(b, loc, gw, b.getDenseI64ArrayAttr({1, 2, 0, 3, 4}));
  gw = reshapeTo(b, loc, gw, {groups * perGroupOut, n, oh, ow});
  Value dw = Conv2dOp::create(b, loc, x, gw,
                              b.getDenseI64ArrayAttr({axes[0].dilation, axes[1].dilation}),
                              b.getDenseI64ArrayAttr({0, 0, 0, 0}),
                              b.getDenseI64ArrayAttr({axes[0].stride, axes[1].stride}),
                              b.getI64IntegerAttr(groups));
  return PermuteDimsOp::create(b, loc, dw, b.getDenseI64ArrayAttr({1, 0, 2, 3}));
}

// dx: the transposed convolution (convInputGrad). dw: the patches of x times
// g (convFilterGrad); grouped: a convolution (groupedConvFilterGrad).
LogicalResult Conv2dOp::buildVectorJacobianProduct(OpBuilder &b, ValueRange resultGrads,
                                                   ArrayRef<bool> needsGrad,
                                                   MutableArrayRef<Value> operandGrads) {
  Location loc = getLoc();
  Value g = resultGrads[0];
  SmallVector<WindowAxis, 2> axes = getWindowAxes();
  int64_t groups = static_cast<int64_t>(getGroups());
  if (needsGrad[0])
    operandGrads[0] = convInputGrad(b, loc, g, getW(), axes, groups);
  if (needsGrad[1])
    operandGrads[1] = groups == 1
                          ? convFilterGrad(b, *this, g)
                          : groupedConvFilterGrad(b, loc, getX(), g, getW().getType(), axes,
                                                  groups);
  return success();
}

// d conv(x, w) = conv(tx, w) + conv(x, tw)
LogicalResult Conv2dOp::buildJacobianVectorProduct(OpBuilder &b, ValueRange operandTangents,
                                                   MutableArrayRef<Value> resultTangents) {
  resultTangents[0] = buildMultilinearTangent(b, *this, operandTangents);
  return success();
}

// The patches are a grouped convolution of x (one group per channel) with a
// one-hot filter that picks window element (kh, kw) into output channel
// (c * KH + kh) * KW + kw: the adjoint is that convolution's transpose.
LogicalResult Conv2dPatchesOp::buildVectorJacobianProduct(OpBuilder &b, ValueRange resultGrads,
                                                          ArrayRef<bool>,
                                                          MutableArrayRef<Value> operandGrads) {
  Location loc = getLoc();
  RankedTensorType xType = getX().getType();
  int64_t c = xType.getDimSize(1), kh = getKernelSize()[0], kw = getKernelSize()[1];
  auto elt = cast<FloatType>(xType.getElementType());
  APFloat zero = APFloat::getZero(elt.getFloatSemantics());
  APFloat one = APFloat::getOne(elt.getFloatSemantics());
  SmallVector<APFloat> values;
  values.reserve(c * kh * kw * kh * kw);
  for (int64_t ch = 0; ch < c; ++ch)
    for (int64_t k = 0; k < kh * kw; ++k)
      for (int64_t at = 0; at < kh * kw; ++at)
        values.push_back(at == k ? one : zero);
  auto type = RankedTensorType::get({c * kh * kw, 1, kh, kw}, elt);
  Value onehot = arith::ConstantOp::create(b, loc, DenseElementsAttr::get(type, values));
  operandGrads[0] = convInputGrad(b, loc, resultGrads[0], onehot, getWindowAxes(), c);
  return success();
}

/// Windows that tile the input exactly: stride = kernel, no dilation, no
/// padding, the output times the kernel is the input (2x2 pooling of an even
/// image).
static bool windowsTileInput(ArrayRef<WindowAxis> axes) {
  return llvm::all_of(axes, [](const WindowAxis &a) {
    return a.stride == a.kernel && a.dilation == 1 && a.padBefore == 0 &&
           a.out * a.kernel == a.size;
  });
}

/// The max-pool adjoint when the windows tile the input: x viewed as
/// [N, C, OH, KH, OW, KW] (a reshape), each window offset (r, s) a slice
/// [N, C, OH, 1, OW, 1] of it, and dx the concatenation of the per-offset
/// adjoints in the same view. No scatters: the general rule's per-offset pads
/// made the pooling gradients a quarter of a small CNN's training step.
static Value tiledMaxPoolGrad(OpBuilder &b, Location loc, Value x, Value y, Value g,
                              ArrayRef<WindowAxis> axes) {
  auto xType = cast<RankedTensorType>(x.getType());
  Type elt = xType.getElementType();
  int64_t n = xType.getDimSize(0), c = xType.getDimSize(1);
  int64_t oh = axes[0].out, ow = axes[1].out, kh = axes[0].kernel, kw = axes[1].kernel;
  Value x6 = reshapeTo(b, loc, x, {n, c, oh, kh, ow, kw});
  Value one = scalarLike(b, loc, g, 1.0);
  Value claimed;
  SmallVector<Value> rows;
  for (int64_t r = 0; r < kh; ++r) {
    SmallVector<Value> pieces;
    for (int64_t s = 0; s < kw; ++s) {
      Value patch = StridedSliceOp::create(b, loc, x6, b.getDenseI64ArrayAttr({3, 5}),
                                           b.getDenseI64ArrayAttr({r, s}),
                                           b.getDenseI64ArrayAttr({r + 1, s + 1}),
                                           DenseI64ArrayAttr());
      patch = reshapeTo(b, loc, patch, {n, c, oh, ow});
      Value hit = astype(b, loc, EqualOp::create(b, loc, patch, y), elt);
      if (claimed)
        hit = mul(b, loc, hit, sub(b, loc, one, claimed));
      claimed = claimed ? add(b, loc, claimed, hit) : hit;
      pieces.push_back(reshapeTo(b, loc, mul(b, loc, g, hit), {n, c, oh, 1, ow, 1}));
    }
    rows.push_back(pieces.size() == 1
                       ? pieces.front()
                       : ConcatOp::create(b, loc, pieces, b.getI64IntegerAttr(5)).getResult());
  }
  Value dx6 = rows.size() == 1 ? rows.front()
                               : ConcatOp::create(b, loc, rows, b.getI64IntegerAttr(3)).getResult();
  return reshapeTo(b, loc, dx6, xType.getShape());
}

/// A 0-d i64 constant.
static Value indexScalar(OpBuilder &b, Location loc, int64_t v) {
  auto type = RankedTensorType::get({}, b.getI64Type());
  return arith::ConstantOp::create(b, loc, DenseElementsAttr::get(type, b.getI64IntegerAttr(v)));
}

/// Where each window's first maximum (row-major order of the window offsets)
/// lies, as a flat index into x padded with -inf (or cropped where no window
/// reads), of type `padded`. Each output's window offset is chosen by a select
/// per offset, last to first, so that the first offset holding the result
/// wins: all on output-sized tensors. Offset, window origin and (n, c) plane
/// then give the position. A window without a hit (a NaN) picks its first
/// element.
static Value maxPoolPositions(OpBuilder &b, Location loc, Value x, Value y,
                              ArrayRef<WindowAxis> axes, RankedTensorType &padded) {
  double lowest = -std::numeric_limits<double>::infinity();
  for (auto [i, a] : llvm::enumerate(axes))
    x = padOrCrop(b, loc, x, 2 + static_cast<int64_t>(i), a.padBefore, a.readPadAfter(), lowest);
  padded = cast<RankedTensorType>(x.getType());
  int64_t n = padded.getDimSize(0), c = padded.getDimSize(1);
  int64_t hp = padded.getDimSize(2), wp = padded.getDimSize(3);
  Value choice;
  for (int64_t r = axes[0].kernel - 1; r >= 0; --r) {
    for (int64_t s = axes[1].kernel - 1; s >= 0; --s) {
      int64_t top = r * axes[0].dilation, left = s * axes[1].dilation;
      Value offset = indexScalar(b, loc, top * wp + left);
      if (!choice) {
        choice = offset;
        continue;
      }
      auto patch = StridedSliceOp::create(
          b, loc, x, b.getDenseI64ArrayAttr({2, 3}), b.getDenseI64ArrayAttr({top, left}),
          b.getDenseI64ArrayAttr({top + (axes[0].out - 1) * axes[0].stride + 1,
                                  left + (axes[1].out - 1) * axes[1].stride + 1}),
          b.getDenseI64ArrayAttr({axes[0].stride, axes[1].stride}));
      choice = where(b, loc, EqualOp::create(b, loc, patch, y), offset, choice);
    }
  }
  // The last offset visited is (0, 0), taken where no later one matched.
  Type i64 = b.getI64Type();
  Value origin = add(b, loc, mul(b, loc, iota(b, loc, axes[0].out, i64, 4, 2),
                                 indexScalar(b, loc, axes[0].stride * wp)),
                     mul(b, loc, iota(b, loc, axes[1].out, i64, 4, 3),
                         indexScalar(b, loc, axes[1].stride)));
  Value plane = mul(b, loc, reshapeTo(b, loc, iota(b, loc, n * c, i64, 1, 0), {n, c, 1, 1}),
                    indexScalar(b, loc, hp * wp));
  return add(b, loc, add(b, loc, choice, origin), plane);
}

// Each window's adjoint goes to its first maximum: one scatter_add carries g
// to the positions of maxPoolPositions.
LogicalResult MaxPool2dOp::buildVectorJacobianProduct(OpBuilder &b, ValueRange resultGrads,
                                                      ArrayRef<bool>,
                                                      MutableArrayRef<Value> operandGrads) {
  Location loc = getLoc();
  Value g = resultGrads[0];
  SmallVector<WindowAxis, 2> axes = getWindowAxes();
  if (windowsTileInput(axes)) {
    operandGrads[0] = tiledMaxPoolGrad(b, loc, getX(), getResult(), g, axes);
    return success();
  }
  RankedTensorType padded;
  Value positions = maxPoolPositions(b, loc, getX(), getResult(), axes, padded);
  Value dx = ScatterAddOp::create(b, loc, buildZeros(b, loc, padded), positions, g, IntegerAttr());
  for (auto [i, a] : llvm::enumerate(axes))
    dx = padOrCrop(b, loc, dx, 2 + static_cast<int64_t>(i), -a.padBefore, -a.readPadAfter());
  operandGrads[0] = dx;
  return success();
}

// The tangent at each window's first maximum: a take of the padded tangent
// at the positions of maxPoolPositions (the transpose of the scatter above).
LogicalResult MaxPool2dOp::buildJacobianVectorProduct(OpBuilder &b, ValueRange operandTangents,
                                                      MutableArrayRef<Value> resultTangents) {
  Location loc = getLoc();
  SmallVector<WindowAxis, 2> axes = getWindowAxes();
  RankedTensorType padded;
  Value positions = maxPoolPositions(b, loc, getX(), getResult(), axes, padded);
  Value t = operandTangents[0];
  for (auto [i, a] : llvm::enumerate(axes))
    t = padOrCrop(b, loc, t, 2 + static_cast<int64_t>(i), a.padBefore, a.readPadAfter());
  resultTangents[0] = TakeOp::create(b, loc, t, positions, IntegerAttr());
  return success();
}

// The average is a depthwise convolution with a ones kernel, scaled by each
// output's divisor: its adjoint is convInputGrad of g / divisor (when the
// windows tile the input, g / divisor spread over each window).
LogicalResult AvgPool2dOp::buildVectorJacobianProduct(OpBuilder &b, ValueRange resultGrads,
                                                      ArrayRef<bool>,
                                                      MutableArrayRef<Value> operandGrads) {
  Location loc = getLoc();
  SmallVector<WindowAxis, 2> axes = getWindowAxes();
  RankedTensorType xType = getX().getType();
  Type elt = xType.getElementType();
  int64_t channels = xType.getDimSize(1);
  Value divisor = arith::ConstantOp::create(b, loc, getDivisorAttr(elt));
  Value scaled = div(b, loc, resultGrads[0], divisor);
  if (windowsTileInput(axes)) {
    // Each input element lies in exactly one window: its adjoint is that
    // window's, broadcast over the window in the [N, C, OH, KH, OW, KW] view.
    int64_t n = xType.getDimSize(0), oh = axes[0].out, ow = axes[1].out;
    int64_t kh = axes[0].kernel, kw = axes[1].kernel;
    Value spread = BroadcastToOp::create(
        b, loc, RankedTensorType::get({n, channels, oh, kh, ow, kw}, elt),
        reshapeTo(b, loc, scaled, {n, channels, oh, 1, ow, 1}));
    operandGrads[0] = reshapeTo(b, loc, spread, xType.getShape());
    return success();
  }
  auto onesType = RankedTensorType::get({channels, 1, axes[0].kernel, axes[1].kernel}, elt);
  Value ones = OnesOp::create(b, loc, onesType);
  operandGrads[0] = convInputGrad(b, loc, scaled, ones, axes, channels);
  return success();
}
