//===- NeuralNetworkOps.cpp - relax ops: neural network -------------------===//

#include "relax-mlir/Dialect/Relax/IR/RelaxOps.h"

#include "llvm/ADT/SmallSet.h"

using namespace mlir;
using namespace mlir::relax;

//===----------------------------------------------------------------------===//
// Softmax family
//===----------------------------------------------------------------------===//

LogicalResult SoftmaxOp::verify() {
  return verifyAxis(*this, getAxis(), getX().getType().getRank());
}
LogicalResult LogSoftmaxOp::verify() {
  return verifyAxis(*this, getAxis(), getX().getType().getRank());
}

//===----------------------------------------------------------------------===//
// Losses
//===----------------------------------------------------------------------===//

LogicalResult CrossEntropyWithLogitsOp::inferReturnTypes(MLIRContext *,
                                                         std::optional<Location> loc,
                                                         Adaptor adaptor,
                                                         SmallVectorImpl<Type> &results) {
  auto pred = dyn_cast<RankedTensorType>(adaptor.getPred().getType());
  if (!pred)
    return emitOptionalError(loc, "pred must be a ranked tensor");
  results.push_back(RankedTensorType::get({}, pred.getElementType()));
  return success();
}

LogicalResult NllLossOp::inferReturnTypes(MLIRContext *, std::optional<Location> loc,
                                          Adaptor adaptor, SmallVectorImpl<Type> &results) {
  auto pred = dyn_cast<RankedTensorType>(adaptor.getPred().getType());
  auto targets = dyn_cast<RankedTensorType>(adaptor.getTargets().getType());
  if (!pred || !targets)
    return emitOptionalError(loc, "pred and targets must be ranked tensors");
  int64_t rank = pred.getRank();
  if (rank == 0)
    return emitOptionalError(loc, "pred must have shape (C), (N, C) or (N, C, d1, ...), got a "
                                  "0-d tensor");
  // The targets' shape is pred's without the class axis.
  SmallVector<int64_t> expected(pred.getShape());
  expected.erase(expected.begin() + (rank == 1 ? 0 : 1));
  if (targets.getShape() != ArrayRef<int64_t>(expected))
    return emitOptionalError(loc, "targets shape ", formatShape(targets.getShape()),
                             " does not match pred shape ", formatShape(pred.getShape()),
                             ": expected ", formatShape(expected),
                             " (pred's shape without the class axis)");
  int64_t classes = pred.getDimSize(rank == 1 ? 0 : 1);
  if (Value weights = adaptor.getWeights()) {
    auto w = dyn_cast<RankedTensorType>(weights.getType());
    if (!w || w.getShape() != ArrayRef<int64_t>{classes})
      return emitOptionalError(loc, "weights must have shape (", classes,
                               ") (one per class), got ", weights.getType());
    if (w.getElementType() != pred.getElementType())
      return emitOptionalError(loc, "weights element type ", w.getElementType(),
                               " differs from pred's ", pred.getElementType());
  }
  StringRef reduction = "mean";
  if (auto attr = adaptor.getReductionAttr())
    reduction = attr.getValue();
  if (reduction != "mean" && reduction != "sum" && reduction != "none")
    return emitOptionalError(loc, "reduction must be \"mean\", \"sum\" or \"none\", got \"",
                             reduction, "\"");
  if (reduction == "none")
    results.push_back(targets.clone(pred.getElementType()));
  else
    results.push_back(RankedTensorType::get({}, pred.getElementType()));
  return success();
}

//===----------------------------------------------------------------------===//
// Normalization
//===----------------------------------------------------------------------===//

LogicalResult LayerNormOp::verify() {
  RankedTensorType x = getX().getType();
  int64_t rank = x.getRank();
  llvm::SmallSet<int64_t, 4> seen;
  if (getAxes().empty())
    return emitOpError("axes must name at least one axis");
  for (int64_t a : getAxes()) {
    if (failed(verifyAxis(*this, a, rank)))
      return failure();
    if (!seen.insert(a < 0 ? a + rank : a).second)
      return emitOpError("axis ") << a << " is repeated";
  }
  SmallVector<int64_t> expected;
  for (int64_t a : getNormalizedAxes())
    expected.push_back(x.getDimSize(a));
  if (getGamma().getType().getShape() != ArrayRef<int64_t>(expected))
    return emitOpError("gamma and beta must have shape ")
           << formatShape(expected) << " (x's shape at the normalized axes), got "
           << formatShape(getGamma().getType().getShape());
  double eps = getEpsilon().convertToDouble();
  if (!(eps >= 0.0))
    return emitOpError("epsilon must be non-negative, got ") << eps;
  return success();
}

//===----------------------------------------------------------------------===//
// Convolution and pooling
//===----------------------------------------------------------------------===//

FailureOr<SmallVector<WindowAxis, 2>>
mlir::relax::computeWindowAxes(std::optional<Location> loc, ArrayRef<int64_t> shape,
                               ArrayRef<int64_t> kernel, ArrayRef<int64_t> strides,
                               ArrayRef<int64_t> padding, ArrayRef<int64_t> dilation,
                               bool ceilMode, bool poolPadding) {
  if (shape.size() != 4)
    return emitOptionalError(loc, "x must be a 4-d NCHW tensor, got rank ", shape.size());
  auto checkPair = [&](ArrayRef<int64_t> v, StringRef name) -> LogicalResult {
    if (v.size() != 2)
      return emitOptionalError(loc, name, " must have 2 entries (height, width), got ",
                               v.size());
    for (int64_t e : v)
      if (e <= 0)
        return emitOptionalError(loc, name, " must be positive, got ", formatShape(v));
    return success();
  };
  if (failed(checkPair(strides, "strides")) || failed(checkPair(dilation, "dilation")))
    return failure();
  if (padding.size() != 4)
    return emitOptionalError(loc, "padding must have 4 entries (top, left, bottom, right), got ",
                             padding.size());
  for (int64_t p : padding)
    if (p < 0)
      return emitOptionalError(loc, "padding must be non-negative, got ", formatShape(padding));
  SmallVector<WindowAxis, 2> axes;
  for (int i = 0; i < 2; ++i) {
    WindowAxis a{shape[2 + i], padding[i], padding[2 + i], kernel[i], strides[i], dilation[i], 0};
    if (poolPadding && 2 * std::max(a.padBefore, a.padAfter) > a.extent())
      return emitOptionalError(loc, "padding ", formatShape(padding),
                               " exceeds half the pooling window (", a.extent(), ")");
    int64_t span = a.size + a.padBefore + a.padAfter - a.extent();
    if (span < 0)
      return emitOptionalError(loc, "the window (", a.extent(), " wide with dilation) is larger "
                               "than the padded input (", a.size + a.padBefore + a.padAfter,
                               ") along axis ", 2 + i);
    a.out = span / a.stride + 1;
    if (ceilMode && span % a.stride != 0 && (a.out * a.stride) < a.size + a.padBefore)
      ++a.out;
    axes.push_back(a);
  }
  return axes;
}

LogicalResult Conv2dOp::inferReturnTypes(MLIRContext *, std::optional<Location> loc,
                                         Adaptor adaptor, SmallVectorImpl<Type> &results) {
  auto x = dyn_cast<RankedTensorType>(adaptor.getX().getType());
  auto w = dyn_cast<RankedTensorType>(adaptor.getW().getType());
  if (!x || !w)
    return emitOptionalError(loc, "operands must be ranked tensors");
  if (w.getRank() != 4)
    return emitOptionalError(loc, "w must be a 4-d OIHW tensor, got rank ", w.getRank());
  if (x.getRank() != 4)
    return emitOptionalError(loc, "x must be a 4-d NCHW tensor, got rank ", x.getRank());
  int64_t groups = adaptor.getGroupsAttr() ? adaptor.getGroupsAttr().getInt() : 1;
  if (groups <= 0)
    return emitOptionalError(loc, "groups must be positive, got ", groups);
  int64_t channels = x.getDimSize(1), out = w.getDimSize(0);
  if (channels % groups != 0 || out % groups != 0)
    return emitOptionalError(loc, "groups (", groups, ") must divide the input channels (",
                             channels, ") and the output channels (", out, ")");
  if (w.getDimSize(1) * groups != channels)
    return emitOptionalError(loc, "w has ", w.getDimSize(1), " input channels per group, but x "
                             "has ", channels, " channels in ", groups, " group(s)");
  auto get = [](DenseI64ArrayAttr attr, ArrayRef<int64_t> dflt) {
    return attr ? llvm::to_vector(attr.asArrayRef()) : llvm::to_vector(dflt);
  };
  SmallVector<int64_t> kernel = {w.getDimSize(2), w.getDimSize(3)};
  if (kernel[0] == 0 || kernel[1] == 0)
    return emitOptionalError(loc, "w has an empty kernel ", formatShape(w.getShape()));
  auto axes = computeWindowAxes(loc, x.getShape(), kernel, get(adaptor.getStridesAttr(), {1, 1}),
                                get(adaptor.getPaddingAttr(), {0, 0, 0, 0}),
                                get(adaptor.getDilationAttr(), {1, 1}), false, false);
  if (failed(axes))
    return failure();
  results.push_back(x.clone({x.getDimSize(0), out, (*axes)[0].out, (*axes)[1].out}));
  return success();
}

/// The window geometry of an NCHW window op given its window attribute
/// (`name`: 2 positive integers), strides (absent: the window itself when
/// `stridesDefaultToWindow`, as pooling; else 1), padding and dilation (absent:
/// 0 and 1).
static FailureOr<SmallVector<WindowAxis, 2>>
windowAxesOf(std::optional<Location> loc, Type xType, ArrayRef<int64_t> window, StringRef name,
             DenseI64ArrayAttr strides, DenseI64ArrayAttr padding, DenseI64ArrayAttr dilation,
             bool stridesDefaultToWindow, bool ceilMode) {
  auto x = dyn_cast<RankedTensorType>(xType);
  if (!x)
    return emitOptionalError(loc, "x must be a ranked tensor");
  if (window.size() != 2 || window[0] <= 0 || window[1] <= 0)
    return emitOptionalError(loc, name, " must be 2 positive integers, got ",
                             formatShape(window));
  auto get = [](DenseI64ArrayAttr attr, ArrayRef<int64_t> dflt) {
    return attr ? llvm::to_vector(attr.asArrayRef()) : llvm::to_vector(dflt);
  };
  SmallVector<int64_t> one = {1, 1};
  return computeWindowAxes(loc, x.getShape(), window,
                           get(strides, stridesDefaultToWindow ? window : ArrayRef<int64_t>(one)),
                           get(padding, {0, 0, 0, 0}), get(dilation, {1, 1}), ceilMode,
                           /*poolPadding=*/stridesDefaultToWindow);
}

LogicalResult Conv2dPatchesOp::inferReturnTypes(MLIRContext *, std::optional<Location> loc,
                                                Adaptor adaptor, SmallVectorImpl<Type> &results) {
  ArrayRef<int64_t> kernel = adaptor.getKernelSize();
  auto axes = windowAxesOf(loc, adaptor.getX().getType(), kernel, "kernel_size",
                           adaptor.getStridesAttr(), adaptor.getPaddingAttr(),
                           adaptor.getDilationAttr(), false, false);
  if (failed(axes))
    return failure();
  auto x = cast<RankedTensorType>(adaptor.getX().getType());
  results.push_back(x.clone({x.getDimSize(0), x.getDimSize(1) * kernel[0] * kernel[1],
                             (*axes)[0].out, (*axes)[1].out}));
  return success();
}

/// The result type of a pooling op (both share their attributes).
template <typename Adaptor>
static LogicalResult inferPool2dType(std::optional<Location> loc, Adaptor adaptor,
                                     SmallVectorImpl<Type> &results) {
  bool ceil = adaptor.getCeilModeAttr() && adaptor.getCeilModeAttr().getValue();
  auto axes = windowAxesOf(loc, adaptor.getX().getType(), adaptor.getPoolSize(), "pool_size",
                           adaptor.getStridesAttr(), adaptor.getPaddingAttr(),
                           adaptor.getDilationAttr(), true, ceil);
  if (failed(axes))
    return failure();
  auto x = cast<RankedTensorType>(adaptor.getX().getType());
  results.push_back(x.clone({x.getDimSize(0), x.getDimSize(1), (*axes)[0].out, (*axes)[1].out}));
  return success();
}

LogicalResult MaxPool2dOp::inferReturnTypes(MLIRContext *, std::optional<Location> loc,
                                            Adaptor adaptor, SmallVectorImpl<Type> &results) {
  return inferPool2dType(loc, adaptor, results);
}

LogicalResult AvgPool2dOp::inferReturnTypes(MLIRContext *, std::optional<Location> loc,
                                            Adaptor adaptor, SmallVectorImpl<Type> &results) {
  return inferPool2dType(loc, adaptor, results);
}

SmallVector<WindowAxis, 2> Conv2dOp::getWindowAxes() {
  RankedTensorType w = getW().getType();
  return *computeWindowAxes(std::nullopt, getX().getType().getShape(),
                            {w.getDimSize(2), w.getDimSize(3)}, getStrides(), getPadding(),
                            getDilation(), false, false);
}

SmallVector<WindowAxis, 2> Conv2dPatchesOp::getWindowAxes() {
  return *computeWindowAxes(std::nullopt, getX().getType().getShape(), getKernelSize(),
                            getStrides(), getPadding(), getDilation(), false, false);
}

/// The window geometry of a verified pooling op (both share their attributes).
template <typename Op>
static SmallVector<WindowAxis, 2> poolWindowAxes(Op op) {
  return *computeWindowAxes(std::nullopt, op.getX().getType().getShape(), op.getPoolSize(),
                            op.getStrideValues(), op.getPadding(), op.getDilation(),
                            op.getCeilMode(), true);
}

SmallVector<WindowAxis, 2> MaxPool2dOp::getWindowAxes() { return poolWindowAxes(*this); }
SmallVector<WindowAxis, 2> AvgPool2dOp::getWindowAxes() { return poolWindowAxes(*this); }

DenseElementsAttr AvgPool2dOp::getDivisorAttr(Type elt) {
  SmallVector<WindowAxis, 2> axes = getWindowAxes();
  bool includePad = getCountIncludePad();
  // Per axis: how many of each window's positions count.
  auto counts = [&](const WindowAxis &a) {
    SmallVector<int64_t> c;
    for (int64_t o = 0; o < a.out; ++o) {
      int64_t n = 0;
      for (int64_t k = 0; k < a.kernel; ++k) {
        int64_t r = o * a.stride - a.padBefore + k * a.dilation;
        n += includePad ? (r < a.size + a.padAfter) : (r >= 0 && r < a.size);
      }
      c.push_back(n);
    }
    return c;
  };
  SmallVector<int64_t> rows = counts(axes[0]), cols = counts(axes[1]);
  const llvm::fltSemantics &semantics = cast<FloatType>(elt).getFloatSemantics();
  SmallVector<APFloat> divisors;
  for (int64_t r : rows) {
    for (int64_t c : cols) {
      bool lost;
      APFloat v(static_cast<double>(r * c));
      v.convert(semantics, APFloat::rmNearestTiesToEven, &lost);
      divisors.push_back(v);
    }
  }
  return DenseElementsAttr::get(RankedTensorType::get({axes[0].out, axes[1].out}, elt),
                                divisors);
}
