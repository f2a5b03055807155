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
