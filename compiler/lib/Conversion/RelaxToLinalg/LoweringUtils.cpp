//===- LoweringUtils.cpp - builders shared by the relax lowerings ---------===//

#include "LoweringUtils.h"

#include "mlir/Dialect/Utils/ReshapeOpsUtils.h"
#include "mlir/IR/AffineMap.h"

using namespace mlir;
using namespace mlir::relax;

namespace mlir::relax::lowering {

Value emptyTensor(OpBuilder &b, Location loc, RankedTensorType type) {
  return tensor::EmptyOp::create(b, loc, type.getShape(), type.getElementType());
}

Value filledTensor(OpBuilder &b, Location loc, RankedTensorType type, Value value) {
  return linalg::FillOp::create(b, loc, value, emptyTensor(b, loc, type)).getResult(0);
}

Value filledTensor(OpBuilder &b, Location loc, RankedTensorType type, TypedAttr value) {
  Value empty = emptyTensor(b, loc, type);
  return linalg::FillOp::create(b, loc, arith::ConstantOp::create(b, loc, value).getResult(),
                                empty)
      .getResult(0);
}

Value scalar(OpBuilder &b, Location loc, Type elt, double value) {
  if (isa<FloatType>(elt))
    return arith::ConstantOp::create(b, loc, b.getFloatAttr(elt, value));
  return arith::ConstantOp::create(b, loc, b.getIntegerAttr(elt, static_cast<int64_t>(value)));
}

/// The numpy broadcasting index rule: an operand dim of size `inSize` read in
/// loop dim `j` of extent `outSize` reads index 0 when it was broadcast.
AffineExpr broadcastIndex(MLIRContext *ctx, int64_t inSize, int64_t outSize, int64_t j) {
  return inSize == 1 && outSize != 1 ? getAffineConstantExpr(0, ctx) : getAffineDimExpr(j, ctx);
}

/// Indexing map reading `in` inside the iteration space of `out` under numpy
/// broadcasting: leading dims are dropped, size-1 dims read index 0.
AffineMap broadcastMap(MLIRContext *ctx, RankedTensorType in, RankedTensorType out) {
  int64_t rank = out.getRank(), inRank = in.getRank();
  SmallVector<AffineExpr> exprs;
  for (int64_t i = 0; i < inRank; ++i) {
    int64_t j = rank - inRank + i;
    exprs.push_back(broadcastIndex(ctx, in.getDimSize(i), out.getDimSize(j), j));
  }
  return AffineMap::get(rank, 0, exprs, ctx);
}


/// A parallel linalg.generic computing `body` on broadcast `inputs`.
Value buildElementwise(OpBuilder &b, Location loc, RankedTensorType resultType,
                       ValueRange inputs, ScalarFn body) {
  MLIRContext *ctx = b.getContext();
  SmallVector<AffineMap> maps;
  for (Value in : inputs)
    maps.push_back(broadcastMap(ctx, cast<RankedTensorType>(in.getType()), resultType));
  maps.push_back(AffineMap::getMultiDimIdentityMap(resultType.getRank(), ctx));
  SmallVector<utils::IteratorType> iterators(resultType.getRank(), utils::IteratorType::parallel);
  auto generic = linalg::GenericOp::create(
      b, loc, TypeRange{resultType}, inputs, ValueRange{emptyTensor(b, loc, resultType)}, maps,
      iterators, [&](OpBuilder &nb, Location l, ValueRange args) {
        linalg::YieldOp::create(nb, l, body(nb, l, args.drop_back()));
      });
  return generic.getResult(0);
}

Value buildGather(OpBuilder &b, Location loc, Value x, RankedTensorType resultType,
                  AffineMap map) {
  MLIRContext *ctx = b.getContext();
  SmallVector<AffineMap> maps = {map, AffineMap::getMultiDimIdentityMap(resultType.getRank(), ctx)};
  SmallVector<utils::IteratorType> iterators(resultType.getRank(), utils::IteratorType::parallel);
  auto generic = linalg::GenericOp::create(
      b, loc, TypeRange{resultType}, ValueRange{x}, ValueRange{emptyTensor(b, loc, resultType)},
      maps, iterators, [&](OpBuilder &nb, Location l, ValueRange args) {
        linalg::YieldOp::create(nb, l, args[0]);
      });
  return generic.getResult(0);
}

Value padTensor(OpBuilder &b, Location loc, Value x, ArrayRef<int64_t> low,
                ArrayRef<int64_t> high, Value value) {
  auto type = cast<RankedTensorType>(x.getType());
  if (llvm::all_of(low, [](int64_t v) { return v == 0; }) &&
      llvm::all_of(high, [](int64_t v) { return v == 0; }))
    return x;
  SmallVector<int64_t> shape(type.getShape());
  for (int64_t d = 0; d < type.getRank(); ++d)
    shape[d] += low[d] + high[d];
  auto padded = type.clone(shape);
  Value filled = filledTensor(b, loc, padded, value);
  if (type.getNumElements() == 0)
    return filled; // nothing to insert (and its offset may lie past the end)
  SmallVector<int64_t> strides(type.getRank(), 1);
  return tensor::InsertSliceOp::create(b, loc, x, filled, ValueRange{}, ValueRange{},
                                       ValueRange{}, low, type.getShape(), strides);
}

/// Reshapes `v` to `type` (same element count) through a 1-D tensor.
Value reshapeTensor(OpBuilder &b, Location loc, Value v, RankedTensorType type) {
  auto src = cast<RankedTensorType>(v.getType());
  if (src == type)
    return v;
  // A pure collapse or expansion keeps the dims it does not touch (which a
  // later tiling can follow); anything else goes through 1-D.
  if (src.getRank() > 0 && type.getRank() > 0 && src.getRank() != type.getRank()) {
    if (auto reassociation = getReassociationIndicesForReshape(src, type)) {
      if (src.getRank() > type.getRank())
        return tensor::CollapseShapeOp::create(b, loc, type, v, *reassociation);
      return tensor::ExpandShapeOp::create(b, loc, type, v, *reassociation);
    }
  }
  auto flatType = RankedTensorType::get({src.getNumElements()}, src.getElementType());
  auto all = [](int64_t rank) {
    return SmallVector<ReassociationIndices>{llvm::to_vector(llvm::seq<int64_t>(0, rank))};
  };
  Value flat = v;
  if (src.getRank() == 0)
    flat = tensor::ExpandShapeOp::create(b, loc, flatType, v, ArrayRef<ReassociationIndices>{});
  else if (src.getRank() > 1)
    flat = tensor::CollapseShapeOp::create(b, loc, flatType, v, all(src.getRank()));
  if (type.getRank() == 0)
    return tensor::CollapseShapeOp::create(b, loc, type, flat, ArrayRef<ReassociationIndices>{});
  if (type.getRank() == 1)
    return flat;
  return tensor::ExpandShapeOp::create(b, loc, type, flat, all(type.getRank()));
}

/// The element type a reduction of `elt` accumulates in: f16 and bf16 in f32
/// (an f16 sum stalls at 2048), f32 in f64 (exact for sums of up to 2^53 ones,
/// where an f32 sum stalls at 2^24), f64 and integers in their own type.
Type accumulatorType(Type elt) {
  MLIRContext *ctx = elt.getContext();
  if (isa<Float16Type, BFloat16Type>(elt))
    return Float32Type::get(ctx);
  if (isa<Float32Type>(elt))
    return Float64Type::get(ctx);
  return elt;
}

/// The element type a matmul of `elt` accumulates in: f32 for f16 and bf16.
Type matmulAccumulatorType(Type elt) {
  return isa<Float16Type, BFloat16Type>(elt) ? Float32Type::get(elt.getContext()) : elt;
}

/// Converts the float scalar `v` to `to` (extf or truncf); other types pass.
Value convertScalar(OpBuilder &b, Location loc, Value v, Type to) {
  Type from = v.getType();
  if (from == to || !isa<FloatType>(from) || !isa<FloatType>(to))
    return v;
  if (cast<FloatType>(from).getWidth() < cast<FloatType>(to).getWidth())
    return arith::ExtFOp::create(b, loc, to, v);
  return arith::TruncFOp::create(b, loc, to, v);
}

Value buildReduce(OpBuilder &b, Location loc, Value x, ArrayRef<int64_t> axes, Type acc,
                  TypedAttr identity, ScalarFn combine) {
  MLIRContext *ctx = b.getContext();
  auto in = cast<RankedTensorType>(x.getType());
  if (axes.empty()) {
    if (in.getElementType() == acc)
      return x;
    return buildElementwise(b, loc, in.clone(acc), x, [&](OpBuilder &nb, Location l,
                                                          ValueRange v) {
      return convertScalar(nb, l, v[0], acc);
    });
  }
  SmallVector<int64_t> shape;
  SmallVector<AffineExpr> outExprs;
  SmallVector<utils::IteratorType> iterators;
  for (int64_t d = 0; d < in.getRank(); ++d) {
    if (llvm::is_contained(axes, d)) {
      iterators.push_back(utils::IteratorType::reduction);
      continue;
    }
    iterators.push_back(utils::IteratorType::parallel);
    outExprs.push_back(getAffineDimExpr(d, ctx));
    shape.push_back(in.getDimSize(d));
  }
  auto outType = RankedTensorType::get(shape, acc);
  Value init = filledTensor(b, loc, outType, identity);
  SmallVector<AffineMap> maps = {AffineMap::getMultiDimIdentityMap(in.getRank(), ctx),
                                 AffineMap::get(in.getRank(), 0, outExprs, ctx)};
  auto generic = linalg::GenericOp::create(
      b, loc, TypeRange{outType}, ValueRange{x}, ValueRange{init}, maps, iterators,
      [&](OpBuilder &nb, Location l, ValueRange args) {
        Value r = combine(nb, l, {convertScalar(nb, l, args[0], acc), args[1]});
        linalg::YieldOp::create(nb, l, r);
      });
  return generic.getResult(0);
}

Value buildSum(OpBuilder &b, Location loc, Value x, ArrayRef<int64_t> axes, Type acc) {
  TypedAttr zero = isa<FloatType>(acc) ? TypedAttr(b.getFloatAttr(acc, 0.0))
                                       : TypedAttr(b.getIntegerAttr(acc, 0));
  return buildReduce(b, loc, x, axes, acc, zero, [](OpBuilder &nb, Location l, ValueRange v) {
    return buildAdd(nb, l, v[0], v[1]);
  });
}

/// `v` (an accumulator-typed tensor) divided by `divisor` (when not 1) and
/// converted to the element type `elt`, in one elementwise generic.
Value finishReduction(OpBuilder &b, Location loc, Value v, Type elt, double divisor) {
  auto type = cast<RankedTensorType>(v.getType());
  if (type.getElementType() == elt && divisor == 1.0)
    return v;
  Type acc = type.getElementType();
  return buildElementwise(b, loc, type.clone(elt), v, [&](OpBuilder &nb, Location l,
                                                          ValueRange x) {
    Value r = x[0];
    if (divisor != 1.0)
      r = arith::DivFOp::create(nb, l, r, scalar(nb, l, acc, divisor));
    return convertScalar(nb, l, r, elt);
  });
}

Value buildReduction(OpBuilder &b, Location loc, Value x, ArrayRef<int64_t> axes,
                     RankedTensorType result, double divisor) {
  Type elt = result.getElementType();
  Value sum = buildSum(b, loc, x, axes, accumulatorType(elt));
  return reshapeTensor(b, loc, finishReduction(b, loc, sum, elt, divisor), result);
}

} // namespace mlir::relax::lowering
