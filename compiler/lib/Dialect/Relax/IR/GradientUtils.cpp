//===- GradientUtils.cpp - adjoint algebra and builders of the rules -----===//
//
// What the gradient pass and every rule share: zeros of any relax type, adjoint
// accumulation, the reverse of broadcasting, and the relax::vjp builders. The
// rules themselves are the `vjp` fields of the elementwise ops (ODS) and the
// files under gradients/, one per op family; they build relax ops only, so an
// adjoint can be differentiated again.
//
//===----------------------------------------------------------------------===//

#include "relax-mlir/Dialect/Relax/IR/GradientUtils.h"
#include "relax-mlir/Dialect/Relax/IR/RelaxOps.h"

#include "mlir/IR/IRMapping.h"
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

bool mlir::relax::carriesGradient(Type type) {
  if (auto tuple = dyn_cast<TupleType>(type))
    return llvm::any_of(tuple.getTypes(), carriesGradient);
  return isDifferentiableType(type);
}

SmallVector<Value> mlir::relax::cloneBlockBody(OpBuilder &b, Block &body, ValueRange args,
                                               SmallVectorImpl<Operation *> *cloned) {
  IRMapping map;
  map.map(body.getArguments(), args);
  for (Operation &op : body.without_terminator()) {
    Operation *copy = b.clone(op, map);
    if (cloned)
      cloned->push_back(copy);
  }
  return llvm::map_to_vector(body.getTerminator()->getOperands(),
                             [&](Value v) { return map.lookupOrDefault(v); });
}

PullbackBuilder::~PullbackBuilder() = default;
PushforwardBuilder::~PushforwardBuilder() = default;

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

Value mlir::relax::broadcastToType(OpBuilder &b, Location loc, Value v, Type type) {
  if (v.getType() == type)
    return v;
  return BroadcastToOp::create(b, loc, type, v);
}

Value mlir::relax::tangentOrZeros(OpBuilder &b, Location loc, Value tangent, Value like) {
  return tangent ? tangent : buildZeros(b, loc, like.getType());
}

Value mlir::relax::buildMultilinearTangent(OpBuilder &b, Operation *op,
                                           ValueRange operandTangents) {
  Value sum;
  for (auto [i, tangent] : llvm::enumerate(operandTangents)) {
    if (!tangent)
      continue;
    // By position: an operand may appear twice (matmul(x, x)).
    Operation *copy = b.clone(*op);
    copy->setOperand(i, tangent);
    Value term = copy->getResult(0);
    sum = sum ? AddOp::create(b, op->getLoc(), sum, term).getResult() : term;
  }
  return sum;
}

LogicalResult mlir::relax::buildLinearTangent(Operation *op, OpBuilder &b,
                                              ValueRange operandTangents,
                                              MutableArrayRef<Value> resultTangents) {
  if (!llvm::any_of(op->getResultTypes(), carriesGradient))
    return success();
  // The operands first: zeros must be defined before the copy reads them.
  SmallVector<Value> operands;
  for (auto [operand, tangent] : llvm::zip(op->getOperands(), operandTangents))
    operands.push_back(carriesGradient(operand.getType())
                           ? tangentOrZeros(b, op->getLoc(), tangent, operand)
                           : operand);
  Operation *copy = b.clone(*op);
  copy->setOperands(operands);
  for (auto [i, r] : llvm::enumerate(copy->getResults()))
    if (carriesGradient(r.getType()))
      resultTangents[i] = r;
  return success();
}

//===----------------------------------------------------------------------===//
// Helpers for the rules
//===----------------------------------------------------------------------===//

/// A 0-d constant of `like`'s element type.
static Value scalarConstant(OpBuilder &b, Location loc, Type like, double value) {
  Type elt = cast<ShapedType>(like).getElementType();
  auto type = RankedTensorType::get({}, elt);
  if (auto integer = dyn_cast<IntegerType>(elt))
    return arith::ConstantOp::create(
        b, loc,
        DenseElementsAttr::get(type, APInt(integer.getWidth(), static_cast<int64_t>(value),
                                           /*isSigned=*/true, /*implicitTrunc=*/true)));
  return arith::ConstantOp::create(
      b, loc, DenseElementsAttr::get(type, b.getFloatAttr(elt, value).getValue()));
}

/// `1 - v`, elementwise.
static Value oneMinus(OpBuilder &b, Location loc, Value v) {
  return SubtractOp::create(b, loc, scalarConstant(b, loc, v.getType(), 1.0), v);
}

Value vjp::add(OpBuilder &b, Location loc, Value x, Value y) {
  return AddOp::create(b, loc, x, y);
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
Value vjp::less(OpBuilder &b, Location loc, Value x, Value y) {
  return LessOp::create(b, loc, x, y);
}
Value vjp::sign(OpBuilder &b, Location loc, Value x) {
  Value zero = scalarLike(b, loc, x, 0.0);
  return WhereOp::create(b, loc, GreaterOp::create(b, loc, x, zero), scalarLike(b, loc, x, 1.0),
                         WhereOp::create(b, loc, LessOp::create(b, loc, x, zero),
                                         scalarLike(b, loc, x, -1.0), zero));
}
Value vjp::where(OpBuilder &b, Location loc, Value cond, Value x, Value y) {
  return WhereOp::create(b, loc, cond, x, y);
}

Value vjp::reshapeTo(OpBuilder &b, Location loc, Value v, ArrayRef<int64_t> shape) {
  auto type = cast<RankedTensorType>(v.getType());
  if (type.getShape() == shape)
    return v;
  return ReshapeOp::create(b, loc, type.clone(shape), v);
}


Value vjp::astype(OpBuilder &b, Location loc, Value v, Type elt) {
  auto type = cast<RankedTensorType>(v.getType());
  if (type.getElementType() == elt)
    return v;
  return AstypeOp::create(b, loc, type.clone(elt), v);
}

Value vjp::sumOver(OpBuilder &b, Location loc, Value v, ArrayRef<int64_t> axes, bool keepdims) {
  if (axes.empty())
    return v;
  return SumOp::create(b, loc, v, b.getDenseI64ArrayAttr(axes), b.getBoolAttr(keepdims));
}

Value vjp::meanKeep(OpBuilder &b, Location loc, Value v, ArrayRef<int64_t> axes) {
  return MeanOp::create(b, loc, v, b.getDenseI64ArrayAttr(axes), b.getBoolAttr(true));
}

Value vjp::keepReducedAxes(OpBuilder &b, Location loc, Value g, Value x, ArrayRef<int64_t> axes) {
  SmallVector<int64_t> kept(cast<RankedTensorType>(x.getType()).getShape());
  for (int64_t a : axes)
    kept[a] = 1;
  return reshapeTo(b, loc, g, kept);
}

Value vjp::iota(OpBuilder &b, Location loc, int64_t n, Type elt, int64_t rank, int64_t axis) {
  SmallVector<APInt> values;
  unsigned width = elt.getIntOrFloatBitWidth();
  for (int64_t i = 0; i < n; ++i)
    values.push_back(APInt(width, i));
  SmallVector<int64_t> shape(rank, 1);
  shape[axis] = n;
  auto type = RankedTensorType::get(shape, elt);
  return arith::ConstantOp::create(b, loc, DenseElementsAttr::get(type, values));
}

Value vjp::reverse(OpBuilder &b, Location loc, Value v, int64_t axis) {
  int64_t n = cast<RankedTensorType>(v.getType()).getDimSize(axis);
  if (n <= 1)
    return v;
  return StridedSliceOp::create(b, loc, v, b.getDenseI64ArrayAttr({axis}),
                                b.getDenseI64ArrayAttr({n - 1}),
                                b.getDenseI64ArrayAttr({-n - 1}), b.getDenseI64ArrayAttr({-1}));
}

void vjp::tupleLeaves(OpBuilder &b, Location loc, Value v, SmallVectorImpl<Value> &leaves) {
  auto tuple = dyn_cast<TupleType>(v.getType());
  if (!tuple) {
    leaves.push_back(v);
    return;
  }
  for (int64_t i = 0, e = tuple.size(); i < e; ++i)
    tupleLeaves(b, loc, b.createOrFold<TupleGetItemOp>(loc, v, i), leaves);
}

Value vjp::fromTupleLeaves(OpBuilder &b, Location loc, Type type, ValueRange leaves,
                           unsigned &pos) {
  auto tuple = dyn_cast<TupleType>(type);
  if (!tuple)
    return leaves[pos++];
  SmallVector<Value> fields;
  for (Type t : tuple.getTypes())
    fields.push_back(fromTupleLeaves(b, loc, t, leaves, pos));
  return TupleOp::create(b, loc, fields);
}
