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
  SmallVector<Value> both = allBatched(b, loc, operands, batched, n);
  Value pred = both[0], labels = both[1];
  Value total = sumOver(b, loc, mul(b, loc, pred, labels),
                        exampleAxes(getPred().getType().getRank()), /*keepdims=*/false);
  results[0] = mul(b, loc, total, scalarLike(b, loc, total, -1.0 / getBatchSize()));
  return success();
}

/// nll_loss of the examples folded into one (N) axis, per element
/// (reduction "none"), then each example's terms reduced as the op says;
/// "mean" divides by the example's weights of targets not ignored, which are
/// nll_loss of -1 everywhere. Batched class weights: each element's weight is
/// itself an nll_loss (of the example's -weights laid out as pred, without
/// weights), which multiplies the unweighted losses.
LogicalResult NllLossOp::buildBatched(OpBuilder &b, int64_t n, ValueRange operands,
                                      ArrayRef<bool> batched, MutableArrayRef<Value> results) {
  Location loc = getLoc();
  RankedTensorType predType = getPred().getType(), targetType = getTargets().getType();
  Value pred = batched[0] ? operands[0] : broadcastBatch(b, loc, operands[0], n);
  Value targets = batched[1] ? operands[1] : broadcastBatch(b, loc, operands[1], n);
  bool batchedWeights = getWeights() && batched[2];
  // (n, N, C, d...) -> (n * N, C, d...); a (C) example: (n, C).
  SmallVector<int64_t> predShape(predType.getShape()), targetShape(targetType.getShape());
  if (predType.getRank() == 1) {
    predShape.insert(predShape.begin(), n);
    targetShape.insert(targetShape.begin(), n);
  } else {
    predShape[0] *= n;
    targetShape[0] *= n;
  }
  targets = reshapeTo(b, loc, targets, targetShape);
  auto perElement = [&](Value p, bool withWeights) {
    OperationState state(loc, getOperationName());
    state.addOperands({reshapeTo(b, loc, p, predShape), targets});
    if (withWeights)
      state.addOperands(operands[2]);
    state.addAttribute(getReductionAttrName(), b.getStringAttr("none"));
    state.addAttribute(getIgnoreIndexAttrName(), getIgnoreIndexAttr());
    state.addTypes(RankedTensorType::get(targetShape, predType.getElementType()));
    SmallVector<int64_t> exampleShape{n};
    llvm::append_range(exampleShape, targetType.getShape());
    return reshapeTo(b, loc, b.create(state)->getResult(0), exampleShape);
  };
  Value losses, weightSum;
  SmallVector<int64_t> axes = exampleAxes(targetType.getRank());
  if (batchedWeights) {
    // (n, C) -> (n, 1, C, 1...) -> pred's batched shape.
    SmallVector<int64_t> laidOut(predType.getRank() + 1, 1);
    laidOut[0] = n;
    laidOut[predType.getRank() == 1 ? 1 : 2] = predType.getDimSize(predType.getRank() == 1 ? 0 : 1);
    Value w = reshapeTo(b, loc, neg(b, loc, operands[2]), laidOut);
    Value elementWeights =
        perElement(broadcastToType(b, loc, w, batchedType(predType, n)), /*withWeights=*/false);
    losses = mul(b, loc, perElement(pred, false), elementWeights);
    weightSum = sumOver(b, loc, elementWeights, axes, /*keepdims=*/false);
  } else {
    losses = perElement(pred, static_cast<bool>(getWeights()));
  }
  if (getReduction() == "none") {
    results[0] = losses;
    return success();
  }
  Value sum = sumOver(b, loc, losses, axes, /*keepdims=*/false);
  if (getReduction() == "sum") {
    results[0] = sum;
    return success();
  }
  if (!weightSum) {
    Value minusOnes = broadcastToType(b, loc, scalarLike(b, loc, pred, -1.0), pred.getType());
    weightSum = sumOver(b, loc, perElement(minusOnes, static_cast<bool>(getWeights())), axes,
                        false);
  }
  results[0] = div(b, loc, sum, weightSum);
  return success();
}

/// A batch of NCHW inputs folded into N: (n, N, C, H, W) -> (n * N, C, H, W),
/// the op, and the result unfolded. Its other operands must be unbatched.
static LogicalResult batchFoldedIntoN(Operation *op, OpBuilder &b, int64_t n,
                                      ValueRange operands, ArrayRef<bool> batched,
                                      MutableArrayRef<Value> results) {
  assert(!llvm::is_contained(batched.drop_front(), true) && "only the input is batched");
  Location loc = op->getLoc();
  auto x = cast<RankedTensorType>(op->getOperand(0).getType());
  auto result = cast<RankedTensorType>(op->getResult(0).getType());
  SmallVector<int64_t> folded(x.getShape()), foldedResult(result.getShape());
  folded[0] *= n;
  foldedResult[0] *= n;
  OperationState state(loc, op->getName());
  state.addOperands(reshapeTo(b, loc, operands[0], folded));
  state.addOperands(operands.drop_front());
  state.addAttributes(op->getAttrs());
  state.addTypes(result.clone(foldedResult));
  Value out = b.create(state)->getResult(0);
  results[0] = reshapeTo(b, loc, out, cast<RankedTensorType>(batchedType(result, n)).getShape());
  return success();
}

/// A shared filter: the batch folded into N. A batched filter (JAX's rule):
/// the examples' filters become groups of one convolution, (n, O, C/g, KH,
/// KW) -> (n * O, C/g, KH, KW) with n * g groups, over the examples' inputs
/// folded into channels, (n, N, C, H, W) -> (N, n * C, H, W); a shared input
/// of one group is read by every filter as it is. The output's channels
/// (N, n * O, OH, OW) are then unfolded to (n, N, O, OH, OW).
LogicalResult Conv2dOp::buildBatched(OpBuilder &b, int64_t n, ValueRange operands,
                                     ArrayRef<bool> batched, MutableArrayRef<Value> results) {
  if (!batched[1])
    return batchFoldedIntoN(*this, b, n, operands, batched, results);
  Location loc = getLoc();
  ArrayRef<int64_t> x = getX().getType().getShape(), w = getW().getType().getShape(),
                    out = getResult().getType().getShape();
  int64_t groups = getGroups();
  Value filters = reshapeTo(b, loc, operands[1], {n * w[0], w[1], w[2], w[3]});
  Value input = operands[0];
  if (batched[0] || groups != 1) {
    input = batched[0] ? input : broadcastBatch(b, loc, input, n);
    input = reshapeTo(b, loc, moveAxis(b, loc, input, 0, 1), {x[0], n * x[1], x[2], x[3]});
    groups *= n;
  }
  OperationState state(loc, getOperationName());
  state.addOperands({input, filters});
  for (NamedAttribute attr : (*this)->getAttrs())
    if (attr.getName() != getGroupsAttrName())
      state.addAttribute(attr.getName(), attr.getValue());
  state.addAttribute(getGroupsAttrName(), b.getI64IntegerAttr(groups));
  state.addTypes(getResult().getType().clone({out[0], n * out[1], out[2], out[3]}));
  Value conv = b.create(state)->getResult(0);
  results[0] = moveAxis(b, loc, reshapeTo(b, loc, conv, {out[0], n, out[1], out[2], out[3]}), 1, 0);
  return success();
}

LogicalResult Conv2dPatchesOp::buildBatched(OpBuilder &b, int64_t n, ValueRange operands,
                                            ArrayRef<bool> batched,
                                            MutableArrayRef<Value> results) {
  return batchFoldedIntoN(*this, b, n, operands, batched, results);
}

LogicalResult MaxPool2dOp::buildBatched(OpBuilder &b, int64_t n, ValueRange operands,
                                        ArrayRef<bool> batched, MutableArrayRef<Value> results) {
  return batchFoldedIntoN(*this, b, n, operands, batched, results);
}

LogicalResult AvgPool2dOp::buildBatched(OpBuilder &b, int64_t n, ValueRange operands,
                                        ArrayRef<bool> batched, MutableArrayRef<Value> results) {
  return batchFoldedIntoN(*this, b, n, operands, batched, results);
}

/// The normalized axes moved past the batch. With gamma and beta shared:
/// the op over the batch. With either batched: the op with gamma 1 and beta
/// 0, then each example's scale and shift, laid out over x's dims (their
/// per-example shape is x's at the sorted axes).
LogicalResult LayerNormOp::buildBatched(OpBuilder &b, int64_t n, ValueRange operands,
                                        ArrayRef<bool> batched, MutableArrayRef<Value> results) {
  Location loc = getLoc();
  RankedTensorType x = getX().getType();
  int64_t rank = x.getRank();
  SmallVector<int64_t> axes =
      llvm::map_to_vector(getAxes(), [&](int64_t a) { return batchedAxis(a, rank); });
  if (!batched[1] && !batched[2]) {
    results[0] = createBatchedWith(b, *this, operands, n, getAxesAttrName(),
                                   b.getDenseI64ArrayAttr(axes));
    return success();
  }
  Value xb = batched[0] ? operands[0] : broadcastBatch(b, loc, operands[0], n);
  Type paramType = getGamma().getType();
  Value ones = OnesOp::create(b, loc, paramType), zeros = buildZeros(b, loc, paramType);
  Value normalized = LayerNormOp::create(b, loc, xb, ones, zeros, b.getDenseI64ArrayAttr(axes),
                                         getEpsilonAttr());
  // (n, params...) -> (n, x's dims with 1 off the axes); shared: without n.
  SmallVector<int64_t> laidOut;
  for (int64_t d = 0; d < rank; ++d)
    laidOut.push_back(llvm::is_contained(axes, d + 1) ? x.getDimSize(d) : 1);
  auto layOut = [&](Value v, bool isBatched) {
    SmallVector<int64_t> shape(laidOut);
    if (isBatched)
      shape.insert(shape.begin(), n);
    return vjp::reshapeTo(b, loc, v, shape);
  };
  results[0] = vjp::add(b, loc, vjp::mul(b, loc, normalized, layOut(operands[1], batched[1])),
                        layOut(operands[2], batched[2]));
  return success();
}
