//===- NeuralNetworkBatching.cpp - batching rules of the losses -----------===//
//
// The losses reduce each example to a scalar: their batched form computes
// the per-element terms of the whole batch at once, then reduces each
// example's own.
//
//===----------------------------------------------------------------------===//

#include "relax-mlir/Dialect/Relax/IR/BatchingUtils.h"
#include "relax-mlir/Dialect/Relax/IR/GradientUtils.h"
#include "relax-mlir/Dialect/Relax/IR/RelaxOps.h"

using namespace mlir;
using namespace mlir::relax;
using namespace mlir::relax::vjp;

/// The example axes 1..rank of a batched value.
static SmallVector<int64_t> exampleAxes(int64_t rank) {
  return llvm::to_vector(llvm::seq<int64_t>(1, rank + 1));
}

/// -sum(pred * labels) / N of each example.
LogicalResult CrossEntropyWithLogitsOp::buildBatched(OpBuilder &b, int64_t n,
                                                     ValueRange operands, ArrayRef<bool> batched,
                                                     MutableArrayRef<Value> results) {
  Location loc = getLoc();
  Value pred = batched[0] ? operands[0] : broadcastBatch(b, loc, operands[0], n);
  Value labels = batched[1] ? operands[1] : broadcastBatch(b, loc, operands[1], n);
  Value total = sumOver(b, loc, mul(b, loc, pred, labels),
                        exampleAxes(getPred().getType().getRank()), /*keepdims=*/false);
  results[0] = mul(b, loc, total, scalarLike(b, loc, total, -1.0 / getBatchSize()));
  return success();
}

/// nll_loss of the examples folded into one (N) axis, per element
/// (reduction "none"), then each example's terms reduced as the op says;
/// "mean" divides by the example's weights of targets not ignored, which are
/// nll_loss of -1 everywhere.
LogicalResult NllLossOp::buildBatched(OpBuilder &b, int64_t n, ValueRange operands,
                                      ArrayRef<bool> batched, MutableArrayRef<Value> results) {
  if (getWeights() && batched[2])
    return emitOpError("has no batching rule for batched class weights yet (vmap over the "
                       "predictions and targets only)");
  Location loc = getLoc();
  RankedTensorType predType = getPred().getType(), targetType = getTargets().getType();
  Value pred = batched[0] ? operands[0] : broadcastBatch(b, loc, operands[0], n);
  Value targets = batched[1] ? operands[1] : broadcastBatch(b, loc, operands[1], n);
  // (n, N, C, d...) -> (n * N, C, d...); a (C) example: (n, C).
  SmallVector<int64_t> predShape(predType.getShape()), targetShape(targetType.getShape());
  if (predType.getRank() == 1) {
    predShape.insert(predShape.begin(), n);
    targetShape.insert(targetShape.begin(), n);
  } else {
    predShape[0] *= n;
    targetShape[0] *= n;
  }
  pred = reshapeTo(b, loc, pred, predShape);
  targets = reshapeTo(b, loc, targets, targetShape);
  auto perElement = [&](Value p) {
    OperationState state(loc, getOperationName());
    state.addOperands({p, targets});
    if (getWeights())
      state.addOperands(operands[2]);
    state.addAttribute(getReductionAttrName(), b.getStringAttr("none"));
    state.addAttribute(getIgnoreIndexAttrName(), getIgnoreIndexAttr());
    state.addTypes(RankedTensorType::get(targetShape, predType.getElementType()));
    SmallVector<int64_t> exampleShape{n};
    llvm::append_range(exampleShape, targetType.getShape());
    return reshapeTo(b, loc, b.create(state)->getResult(0), exampleShape);
  };
  Value losses = perElement(pred);
  if (getReduction() == "none") {
    results[0] = losses;
    return success();
  }
  SmallVector<int64_t> axes = exampleAxes(targetType.getRank());
  Value sum = sumOver(b, loc, losses, axes, /*keepdims=*/false);
  if (getReduction() == "sum") {
    results[0] = sum;
    return success();
  }
  Value minusOnes = broadcastToType(b, loc, scalarLike(b, loc, pred, -1.0), pred.getType());
  results[0] = div(b, loc, sum, sumOver(b, loc, perElement(minusOnes), axes, false));
  return success();
}
