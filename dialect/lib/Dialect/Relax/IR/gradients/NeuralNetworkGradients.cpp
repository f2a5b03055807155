//===- NeuralNetworkGradients.cpp - gradients of relax neural-network ops -===//
//
// Each rule builds relax ops only (so the adjoint can be differentiated
// again); gathers by class index are written as one-hot masks.
//
//===----------------------------------------------------------------------===//

#include "relax-mlir/Dialect/Relax/IR/GradientUtils.h"
#include "relax-mlir/Dialect/Relax/IR/RelaxOps.h"

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

// With onehot[n, c, d...] = (targets[n, d...] == c), valid = (t != ignore_index)
// valid = (t != ignore_index and 0 <= t < C) and w_t = weights[t] * valid: the element losses are -w_t p_t, p_t = pred at
// the target. "mean" divides their sum S by D = sum(w_t), so
//   dpred = onehot * (-g w_t [/ D]),
//   dw_t  = g valid (-p_t) for "none"/"sum", g valid (-p_t - y) / D for "mean",
// and dweights sums dw_t into the target classes.
LogicalResult NllLossOp::buildVectorJacobianProduct(OpBuilder &b, ValueRange resultGrads,
                                                    ArrayRef<bool> needsGrad,
                                                    MutableArrayRef<Value> operandGrads) {
  Location loc = getLoc();
  Value pred = getPred(), targets = getTargets(), weights = getWeights();
  auto predType = cast<RankedTensorType>(pred.getType());
  auto targetType = cast<RankedTensorType>(targets.getType());
  Type elt = predType.getElementType();
  int64_t rank = predType.getRank(), classAxis = getClassAxis();
  int64_t classes = predType.getDimSize(classAxis);
  StringRef reduction = getReduction();

  // The targets with a size-1 class axis, so that they broadcast against pred.
  SmallVector<int64_t> keptShape(predType.getShape());
  keptShape[classAxis] = 1;
  Value keptTargets = reshapeTo(b, loc, targets, keptShape);
  Value onehot = astype(b, loc,
                        EqualOp::create(b, loc, keptTargets,
                                        iota(b, loc, classes, targetType.getElementType(), rank,
                                             classAxis)),
                        elt);
  auto ignore = arith::ConstantOp::create(
      b, loc,
      DenseElementsAttr::get(RankedTensorType::get({}, targetType.getElementType()),
                             b.getIntegerAttr(targetType.getElementType(), getIgnoreIndex())
                                 .getValue()));
  // 1 where the target is a class in range and not ignored.
  Value inRange = sumOver(b, loc, onehot, {classAxis}, /*keepdims=*/false);
  Value valid =
      mul(b, loc, inRange, astype(b, loc, NotEqualOp::create(b, loc, targets, ignore), elt));
  // w_t: the target's weight (0 for an ignored target or one out of range).
  Value weightT = valid;
  if (weights) {
    SmallVector<int64_t> wShape(rank, 1);
    wShape[classAxis] = classes;
    Value gathered = sumOver(b, loc, mul(b, loc, onehot, reshapeTo(b, loc, weights, wShape)),
                             {classAxis}, /*keepdims=*/false);
    weightT = mul(b, loc, gathered, valid);
  }
  Value g = resultGrads[0];
  Value denominator;
  if (reduction == "mean")
    denominator = sumOver(b, loc, weightT,
                          llvm::to_vector(llvm::seq<int64_t>(0, targetType.getRank())),
                          /*keepdims=*/false);
  if (needsGrad[0]) {
    Value coef = neg(b, loc, mul(b, loc, g, weightT));
    if (denominator)
      coef = div(b, loc, coef, denominator);
    operandGrads[0] = mul(b, loc, onehot, reshapeTo(b, loc, coef, keptShape));
  }
  if (weights && needsGrad[2]) {
    Value predT = sumOver(b, loc, mul(b, loc, onehot, pred), {classAxis}, /*keepdims=*/false);
    Value local = neg(b, loc, predT);
    if (denominator)
      local = div(b, loc, sub(b, loc, local, getResult()), denominator);
    Value dwT = mul(b, loc, mul(b, loc, g, valid), local);
    SmallVector<int64_t> others;
    for (int64_t d = 0; d < rank; ++d)
      if (d != classAxis)
        others.push_back(d);
    Value perClass = mul(b, loc, onehot, reshapeTo(b, loc, dwT, keptShape));
    operandGrads[2] = reshapeTo(b, loc, sumOver(b, loc, perClass, others, /*keepdims=*/false),
                                {classes});
  }
  return success();
}

//===----------------------------------------------------------------------===//
// Normalization
//===----------------------------------------------------------------------===//

// With xhat = (x - mean) rstd, rstd = 1 / sqrt(var + eps) and dxhat = g gamma:
//   dx = rstd (dxhat - mean(dxhat) - xhat mean(dxhat xhat)),
//   dgamma = sum(g xhat), dbeta = sum(g) over the other axes.
LogicalResult LayerNormOp::buildVectorJacobianProduct(OpBuilder &b, ValueRange resultGrads,
                                                      ArrayRef<bool> needsGrad,
                                                      MutableArrayRef<Value> operandGrads) {
  Location loc = getLoc();
  Value x = getX(), g = resultGrads[0];
  auto xType = cast<RankedTensorType>(x.getType());
  SmallVector<int64_t> axes = getNormalizedAxes(), others;
  SmallVector<int64_t> paramShape(xType.getRank(), 1);
  for (int64_t d = 0; d < xType.getRank(); ++d) {
    if (llvm::is_contained(axes, d))
      paramShape[d] = xType.getDimSize(d);
    else
      others.push_back(d);
  }
  Value centered = sub(b, loc, x, meanKeep(b, loc, x, axes));
  Value var = meanKeep(b, loc, mul(b, loc, centered, centered), axes);
  Value rstd = RsqrtOp::create(
      b, loc, add(b, loc, var, scalarLike(b, loc, x, getEpsilon().convertToDouble())));
  Value xhat = mul(b, loc, centered, rstd);
  auto paramType = cast<RankedTensorType>(getGamma().getType());
  if (needsGrad[0]) {
    Value dxhat = mul(b, loc, g, reshapeTo(b, loc, getGamma(), paramShape));
    Value inner = sub(b, loc, sub(b, loc, dxhat, meanKeep(b, loc, dxhat, axes)),
                      mul(b, loc, xhat, meanKeep(b, loc, mul(b, loc, dxhat, xhat), axes)));
    operandGrads[0] = mul(b, loc, rstd, inner);
  }
  if (needsGrad[1])
    operandGrads[1] = reshapeTo(b, loc, sumOver(b, loc, mul(b, loc, g, xhat), others, false),
                                paramType.getShape());
  if (needsGrad[2])
    operandGrads[2] = reshapeTo(b, loc, sumOver(b, loc, g, others, false), paramType.getShape());
  return success();
}
