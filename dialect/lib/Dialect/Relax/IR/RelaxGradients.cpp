//===- RelaxGradients.cpp - vector-Jacobian product of every relax op -----===//
//
// Each differentiable op's `buildVectorJacobianProduct` (GradientOpInterface).
// Rules build relax ops only, so an adjoint can be differentiated again.
//
//===----------------------------------------------------------------------===//

#include "relax-mlir/Dialect/Relax/IR/GradientUtils.h"
#include "relax-mlir/Dialect/Relax/IR/RelaxOps.h"

#include "mlir/IR/Matchers.h"

using namespace mlir;
using namespace mlir::relax;

//===----------------------------------------------------------------------===//
// Adjoint algebra
//===----------------------------------------------------------------------===//

bool mlir::relax::isDifferentiableType(Type type) {
  if (auto tensor = dyn_cast<RankedTensorType>(type))
    return isRelaxValueType(tensor) && isRelaxFloatType(tensor.getElementType());
  if (auto tuple = dyn_cast<TupleType>(type))
    return llvm::all_of(tuple.getTypes(), isDifferentiableType);
  return false;
}

Value mlir::relax::buildZeros(OpBuilder &b, Location loc, Type type) {
  if (auto tuple = dyn_cast<TupleType>(type)) {
    SmallVector<Value> fields;
    for (Type t : tuple.getTypes())
      fields.push_back(buildZeros(b, loc, t));
    return TupleOp::create(b, loc, fields);
  }
  return ZerosOp::create(b, loc, type);
}

/// True when `v` is a splat constant equal to `value`.
static bool isSplatConstant(Value v, int64_t value) {
  DenseElementsAttr attr;
  if (!matchPattern(v, m_Constant(&attr)) || !attr.isSplat())
    return false;
  Attribute splat = attr.getSplatValue<Attribute>();
  if (auto f = dyn_cast<FloatAttr>(splat))
    return f.getValue().isExactlyValue(static_cast<double>(value));
  if (auto i = dyn_cast<IntegerAttr>(splat))
    return i.getValue().getSExtValue() == value ||
           (i.getType().isInteger(1) && i.getValue().getZExtValue() == uint64_t(value));
  return false;
}

bool mlir::relax::isKnownZero(Value v) {
  if (v.getDefiningOp<ZerosOp>())
    return true;
  if (auto tuple = v.getDefiningOp<TupleOp>())
    return llvm::all_of(tuple.getFields(), isKnownZero);
  return isSplatConstant(v, 0);
}

bool mlir::relax::isKnownOne(Value v) {
  return v.getDefiningOp<OnesOp>() || isSplatConstant(v, 1);
}

Value mlir::relax::addAdjoints(OpBuilder &b, Location loc, Value x, Value y) {
  if (isKnownZero(x))
    return y;
  if (isKnownZero(y))
    return x;
  if (auto tuple = dyn_cast<TupleType>(x.getType())) {
    SmallVector<Value> fields;
    for (int64_t i = 0, e = tuple.size(); i < e; ++i)
      fields.push_back(addAdjoints(b, loc, b.createOrFold<TupleGetItemOp>(loc, x, i),
                                   b.createOrFold<TupleGetItemOp>(loc, y, i)));
    return TupleOp::create(b, loc, fields);
  }
  return AddOp::create(b, loc, x, y);
}

Value mlir::relax::sumToType(OpBuilder &b, Location loc, Value grad, Type type) {
  if (grad.getType() == type)
    return grad;
  return CollapseSumToOp::create(b, loc, type, grad);
}

//===----------------------------------------------------------------------===//
// Helpers for the rules
//===----------------------------------------------------------------------===//

/// A 0-d constant of `like`'s element type.
static Value scalarConstant(OpBuilder &b, Location loc, Type like, double value) {
  Type elt = cast<ShapedType>(like).getElementType();
  auto type = RankedTensorType::get({}, elt);
  return arith::ConstantOp::create(
      b, loc, DenseElementsAttr::get(type, b.getFloatAttr(elt, value).getValue()));
}

/// `1 - v`, elementwise.
static Value oneMinus(OpBuilder &b, Location loc, Value v) {
  return SubtractOp::create(b, loc, scalarConstant(b, loc, v.getType(), 1.0), v);
}

Value vjp::mul(OpBuilder &b, Location loc, Value x, Value y) {
  return MultiplyOp::create(b, loc, x, y);
}
Value vjp::div(OpBuilder &b, Location loc, Value x, Value y) {
  return DivideOp::create(b, loc, x, y);
}
Value vjp::sub(OpBuilder &b, Location loc, Value x, Value y) {
  return SubtractOp::create(b, loc, x, y);
}
Value vjp::neg(OpBuilder &b, Location loc, Value x) { return NegativeOp::create(b, loc, x); }
Value vjp::oneMinus(OpBuilder &b, Location loc, Value v) { return ::oneMinus(b, loc, v); }
Value vjp::scalarLike(OpBuilder &b, Location loc, Value like, double value) {
  return scalarConstant(b, loc, like.getType(), value);
}
Value vjp::greater(OpBuilder &b, Location loc, Value x, Value y) {
  return GreaterOp::create(b, loc, x, y);
}
Value vjp::where(OpBuilder &b, Location loc, Value cond, Value x, Value y) {
  return WhereOp::create(b, loc, cond, x, y);
}

static Value reshapeTo(OpBuilder &b, Location loc, Value v, ArrayRef<int64_t> shape) {
  auto type = cast<RankedTensorType>(v.getType());
  if (type.getShape() == shape)
    return v;
  return ReshapeOp::create(b, loc, type.clone(shape), v);
}

//===----------------------------------------------------------------------===//
// Structure
//===----------------------------------------------------------------------===//

LogicalResult TupleOp::buildVectorJacobianProduct(OpBuilder &b, ValueRange resultGrads,
                                                  ArrayRef<bool> needsGrad,
                                                  MutableArrayRef<Value> operandGrads) {
  for (auto [i, needed] : llvm::enumerate(needsGrad))
    if (needed)
      operandGrads[i] = b.createOrFold<TupleGetItemOp>(getLoc(), resultGrads[0], i);
  return success();
}

LogicalResult TupleGetItemOp::buildVectorJacobianProduct(OpBuilder &b, ValueRange resultGrads,
                                                         ArrayRef<bool>,
                                                         MutableArrayRef<Value> operandGrads) {
  auto tuple = cast<TupleType>(getTuple().getType());
  SmallVector<Value> fields;
  for (int64_t i = 0, e = tuple.size(); i < e; ++i)
    fields.push_back(i == static_cast<int64_t>(getIndex())
                         ? resultGrads[0]
                         : buildZeros(b, getLoc(), tuple.getType(i)));
  operandGrads[0] = TupleOp::create(b, getLoc(), fields);
  return success();
}

LogicalResult StartCheckpointOp::buildVectorJacobianProduct(OpBuilder &, ValueRange resultGrads,
                                                           ArrayRef<bool>,
                                                           MutableArrayRef<Value> operandGrads) {
  operandGrads[0] = resultGrads[0];
  return success();
}

LogicalResult EndCheckpointOp::buildVectorJacobianProduct(OpBuilder &, ValueRange resultGrads,
                                                         ArrayRef<bool>,
                                                         MutableArrayRef<Value> operandGrads) {
  operandGrads[0] = resultGrads[0];
  return success();
}

//===----------------------------------------------------------------------===//
// Elementwise unary: the rules are the `vjp` fields in ops/ElementwiseOps.td.
//===----------------------------------------------------------------------===//

//===----------------------------------------------------------------------===//
// Elementwise binary: add, subtract, multiply and divide are the
// `lhsVjp`/`rhsVjp` fields in ops/ElementwiseOps.td; each operand's adjoint is
// summed back to its shape.
//===----------------------------------------------------------------------===//

LogicalResult WhereOp::buildVectorJacobianProduct(OpBuilder &b, ValueRange resultGrads,
                                                  ArrayRef<bool> needsGrad,
                                                  MutableArrayRef<Value> operandGrads) {
  Value g = resultGrads[0];
  Location loc = getLoc();
  Value zero = scalarConstant(b, loc, g.getType(), 0.0);
  if (needsGrad[1])
    operandGrads[1] =
        sumToType(b, loc, WhereOp::create(b, loc, getCond(), g, zero), getLhs().getType());
  if (needsGrad[2])
    operandGrads[2] =
        sumToType(b, loc, WhereOp::create(b, loc, getCond(), zero, g), getRhs().getType());
  return success();
}

//===----------------------------------------------------------------------===//
// Reductions: the adjoint is broadcast back over the reduced axes.
//===----------------------------------------------------------------------===//

/// Broadcasts the adjoint `g` of a reduction of `x` over `axes` back to x's shape.
static Value broadcastReductionGrad(OpBuilder &b, Location loc, Value g, Value x,
                                    ArrayRef<int64_t> axes) {
  auto xType = cast<RankedTensorType>(x.getType());
  SmallVector<int64_t> kept(xType.getShape());
  for (int64_t a : axes)
    kept[a] = 1;
  Value shaped = reshapeTo(b, loc, g, kept);
  if (shaped.getType() == xType)
    return shaped;
  return BroadcastToOp::create(b, loc, xType, shaped);
}

LogicalResult SumOp::buildVectorJacobianProduct(OpBuilder &b, ValueRange resultGrads,
                                                ArrayRef<bool>,
                                                MutableArrayRef<Value> operandGrads) {
  operandGrads[0] = broadcastReductionGrad(b, getLoc(), resultGrads[0], getX(), getReducedAxes());
  return success();
}

LogicalResult MeanOp::buildVectorJacobianProduct(OpBuilder &b, ValueRange resultGrads,
                                                 ArrayRef<bool>,
                                                 MutableArrayRef<Value> operandGrads) {
  Location loc = getLoc();
  double count = static_cast<double>(getReducedElementCount());
  Value scaled = MultiplyOp::create(b, loc, resultGrads[0],
                                    scalarConstant(b, loc, getType(), 1.0 / count));
  operandGrads[0] = broadcastReductionGrad(b, loc, scaled, getX(), getReducedAxes());
  return success();
}

//===----------------------------------------------------------------------===//
// Matmul
//===----------------------------------------------------------------------===//

// With 1-D operands promoted to matrices: da = g b^T and db = a^T g, each summed
// over the batch dims it was broadcast along and reshaped back to its operand.
LogicalResult MatmulOp::buildVectorJacobianProduct(OpBuilder &b, ValueRange resultGrads,
                                                   ArrayRef<bool> needsGrad,
                                                   MutableArrayRef<Value> operandGrads) {
  Location loc = getLoc();
  Value lhs = getLhs(), rhs = getRhs(), g = resultGrads[0];
  auto lhsType = cast<RankedTensorType>(lhs.getType());
  auto rhsType = cast<RankedTensorType>(rhs.getType());
  bool lhsVec = lhsType.getRank() == 1, rhsVec = rhsType.getRank() == 1;
  if (lhsVec)
    lhs = reshapeTo(b, loc, lhs, {1, lhsType.getDimSize(0)});
  if (rhsVec)
    rhs = reshapeTo(b, loc, rhs, {rhsType.getDimSize(0), 1});
  if (lhsVec || rhsVec) {
    SmallVector<int64_t> gShape(cast<RankedTensorType>(g.getType()).getShape());
    if (lhsVec)
      gShape.insert(gShape.end() - (rhsVec ? 0 : 1), 1);
    if (rhsVec)
      gShape.push_back(1);
    g = reshapeTo(b, loc, g, gShape);
  }
  if (needsGrad[0]) {
    Value da = MatmulOp::create(b, loc, g, buildTransposeLastTwo(b, loc, rhs));
    da = sumToType(b, loc, da, lhs.getType());
    operandGrads[0] = reshapeTo(b, loc, da, lhsType.getShape());
  }
  if (needsGrad[1]) {
    Value db = MatmulOp::create(b, loc, buildTransposeLastTwo(b, loc, lhs), g);
    db = sumToType(b, loc, db, rhs.getType());
    operandGrads[1] = reshapeTo(b, loc, db, rhsType.getShape());
  }
  return success();
}

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
