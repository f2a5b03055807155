//===- LoweringUtils.h - builders shared by the relax lowerings -----------===//
//
// Internal to the RelaxToLinalg conversion: tensor and scalar builders used by
// the patterns of every op family.
//
//===----------------------------------------------------------------------===//
#ifndef RELAX_MLIR_LIB_CONVERSION_RELAXTOLINALG_LOWERINGUTILS_H
#define RELAX_MLIR_LIB_CONVERSION_RELAXTOLINALG_LOWERINGUTILS_H

#include "relax-mlir/Conversion/Passes.h"
#include "relax-mlir/Dialect/Relax/IR/RelaxOps.h"

namespace mlir::relax::lowering {

using ScalarFn = function_ref<Value(OpBuilder &, Location, ValueRange)>;

/// `FOp(x, y)` for float operands, `IOp(x, y)` for integer ones.
template <typename FOp, typename IOp>
Value floatOrInt(OpBuilder &b, Location l, Value x, Value y) {
  if (isa<FloatType>(x.getType()))
    return FOp::create(b, l, x, y);
  return IOp::create(b, l, x, y);
}
inline Value buildAdd(OpBuilder &b, Location l, Value x, Value y) {
  return floatOrInt<arith::AddFOp, arith::AddIOp>(b, l, x, y);
}
inline Value buildMul(OpBuilder &b, Location l, Value x, Value y) {
  return floatOrInt<arith::MulFOp, arith::MulIOp>(b, l, x, y);
}

/// An empty tensor of `type` (the init of a generic).
Value emptyTensor(OpBuilder &b, Location loc, RankedTensorType type);

/// A tensor of `type` with every element `value` (a linalg.fill of an empty
/// tensor): inits of reductions and contractions, pads, splats.
Value filledTensor(OpBuilder &b, Location loc, RankedTensorType type, Value value);
/// The same with the constant `value` (created after the empty tensor).
Value filledTensor(OpBuilder &b, Location loc, RankedTensorType type, TypedAttr value);

/// A scalar constant `value` of element type `elt` (float or integer).
Value scalar(OpBuilder &b, Location loc, Type elt, double value);

/// The numpy broadcasting index rule: an operand dim of size `inSize` read in
/// loop dim `j` of extent `outSize` reads index 0 when it was broadcast.
AffineExpr broadcastIndex(MLIRContext *ctx, int64_t inSize, int64_t outSize, int64_t j);

/// Indexing map reading `in` inside the iteration space of `out` under numpy
/// broadcasting: leading dims are dropped, size-1 dims read index 0.
AffineMap broadcastMap(MLIRContext *ctx, RankedTensorType in, RankedTensorType out);

/// A parallel linalg.generic computing `body` on broadcast `inputs`.
Value buildElementwise(OpBuilder &b, Location loc, RankedTensorType resultType,
                       ValueRange inputs, ScalarFn body);

/// A parallel generic over `resultType` copying `x` read through `map` (from
/// the result's dims to x's indices): slices, tiles.
Value buildGather(OpBuilder &b, Location loc, Value x, RankedTensorType resultType, AffineMap map);

/// `x` padded with `value` by `low`/`high` elements per axis (non-negative):
/// a linalg.fill of the result and x inserted at `low`.
Value padTensor(OpBuilder &b, Location loc, Value x, ArrayRef<int64_t> low,
                ArrayRef<int64_t> high, Value value);

/// Reshapes `v` to `type` (same element count) through a 1-D tensor.
Value reshapeTensor(OpBuilder &b, Location loc, Value v, RankedTensorType type);

/// The element type a reduction of `elt` accumulates in: f16 and bf16 in f32
/// (an f16 sum stalls at 2048), f32 in f64 (exact for sums of up to 2^53 ones,
/// where an f32 sum stalls at 2^24), f64 and integers in their own type.
Type accumulatorType(Type elt);

/// The element type a matmul of `elt` accumulates in: f32 for f16 and bf16.
Type matmulAccumulatorType(Type elt);

/// Converts the float scalar `v` to `to` (extf or truncf); other types pass.
Value convertScalar(OpBuilder &b, Location loc, Value v, Type to);

/// Reduces `x` over `axes` (sorted) with `combine(element, accumulator)` from
/// `identity`, in the element type `acc`; the result drops the reduced dims. A
/// reduction over no axes is `x` converted to `acc`.
Value buildReduce(OpBuilder &b, Location loc, Value x, ArrayRef<int64_t> axes, Type acc,
                  TypedAttr identity, ScalarFn combine);

/// Sums `x` over `axes` (sorted) in the element type `acc`; the result drops
/// the reduced dims. A sum over no axes is `x` converted to `acc`: it never
/// becomes an all-parallel generic reading its init, which elementwise fusion
/// would re-accumulate inside a broadcasting consumer.
Value buildSum(OpBuilder &b, Location loc, Value x, ArrayRef<int64_t> axes, Type acc);

/// `v` (an accumulator-typed tensor) divided by `divisor` (when not 1) and
/// converted to the element type `elt`, in one elementwise generic.
Value finishReduction(OpBuilder &b, Location loc, Value v, Type elt, double divisor);

/// `x` summed over `axes` in its accumulator type, divided by `divisor` and
/// converted back, reshaped to `result` (keepdims, collapse_sum_to).
Value buildReduction(OpBuilder &b, Location loc, Value x, ArrayRef<int64_t> axes,
                     RankedTensorType result, double divisor);

/// The patterns of each op family (RelaxToLinalg.cpp adds them all).
void populateElementwiseLoweringPatterns(RewritePatternSet &patterns);
void populateReductionLoweringPatterns(RewritePatternSet &patterns);
void populateLinearAlgebraLoweringPatterns(RewritePatternSet &patterns);
void populateNeuralNetworkLoweringPatterns(RewritePatternSet &patterns);
void populateShapeLoweringPatterns(RewritePatternSet &patterns);
void populateCreationLoweringPatterns(RewritePatternSet &patterns);
void populateDebugLoweringPatterns(RewritePatternSet &patterns);
/// relax.all_reduce to calls of `@<kAllReducePrefix><element type>(send,
/// recv)` on 1-D buffers, which relax-mpi-to-llvm makes mpi.allreduce calls
/// (Collective.cpp).
void populateCollectiveLoweringPatterns(RewritePatternSet &patterns);
/// Rewrites each relax.split as a tuple of strided_slices (before tuples are
/// flattened).
void expandSplits(ModuleOp module);
/// Rewrites relax.scan, relax.while, relax.if and relax.switch as scf loops
/// and conditionals on tensors (their bodies' relax ops stay, for the
/// patterns).
void lowerControlFlow(ModuleOp module);
/// Rewrites splat tensor constants of more than one element as linalg.fill.
void splatConstantsToFills(ModuleOp module);

} // namespace mlir::relax::lowering

#endif // RELAX_MLIR_LIB_CONVERSION_RELAXTOLINALG_LOWERINGUTILS_H
