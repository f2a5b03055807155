//===- GradientUtils.h - Adjoint algebra shared by rules and the pass -*- C++ -*-===//
//
// Builders for the values the gradient machinery itself needs: zeros of any
// relax type, adjoint accumulation and the reverse of broadcasting.
//
//===----------------------------------------------------------------------===//
#ifndef RELAX_MLIR_DIALECT_RELAX_IR_GRADIENTUTILS_H
#define RELAX_MLIR_DIALECT_RELAX_IR_GRADIENTUTILS_H

#include "mlir/IR/Builders.h"

namespace mlir::relax {
/// True for relax float tensors (static shape; f16, bf16, f32 or f64) and
/// tuples whose leaves are all such tensors: the types that carry gradients.
bool isDifferentiableType(Type type);
/// Float tensors, and tuples holding one somewhere (their integer fields get
/// zero adjoints and tangents): the values through which derivatives flow.
bool carriesGradient(Type type);
/// Zeros of `type` (a tensor, or a tuple of zeros for a tuple type).
Value buildZeros(OpBuilder &b, Location loc, Type type);
/// True when `v` is statically all zeros (relax.zeros, a zero splat constant,
/// or a tuple of such values).
bool isKnownZero(Value v);
/// True when `v` is statically all ones (relax.ones or a splat-one constant).
bool isKnownOne(Value v);
/// `x + y` for two adjoints of one type (fieldwise for tuples).
Value addAdjoints(OpBuilder &b, Location loc, Value x, Value y);
/// Sums `grad` down to `type` (the reverse of numpy broadcasting); `grad` itself
/// when the types already match.
Value sumToType(OpBuilder &b, Location loc, Value grad, Type type);
/// `v` broadcast to `type` (numpy broadcasting); `v` itself when the types
/// already match.
Value broadcastToType(OpBuilder &b, Location loc, Value v, Type type);
/// `tangent`, or zeros of `like`'s type when it is null.
Value tangentOrZeros(OpBuilder &b, Location loc, Value tangent, Value like);
/// The JVP of an op linear in each of its float operands separately (matmul,
/// conv2d) with one tensor result: the sum over operands with a tangent of
/// the op with that operand replaced by its tangent.
Value buildMultilinearTangent(OpBuilder &b, Operation *op, ValueRange operandTangents);

/// Clones the ops of `body` (but its terminator) at `b`'s insertion point,
/// its block arguments bound to `args`; returns the values its terminator
/// yields, and appends the clones to `cloned` when given.
SmallVector<Value> cloneBlockBody(OpBuilder &b, Block &body, ValueRange args,
                                  SmallVectorImpl<Operation *> *cloned = nullptr);

/// What the gradient pass lends the reverse rules of region ops
/// (RegionGradientOpInterface): the VJP of a body.
class PullbackBuilder {
public:
  virtual ~PullbackBuilder();
  /// Builds at `b`'s insertion point the ops of `body` (a block whose
  /// terminator's operands are its results) applied to `args` (one per block
  /// argument), then their VJP seeded with `resultGrads` (one per terminator
  /// operand, null for zero). Returns one adjoint per block argument: null
  /// where `needsGrad` is false or nothing reached it. Failure after a
  /// diagnostic (an op of the body without a rule).
  virtual FailureOr<SmallVector<Value>> pullback(OpBuilder &b, Block &body, ValueRange args,
                                                 ValueRange resultGrads,
                                                 ArrayRef<bool> needsGrad) = 0;
  /// The same for `ops`, already built (in order, before `b`'s insertion
  /// point), which compute `outputs` from `inputs`: their VJP, without
  /// cloning them. Returns one adjoint per input (null where none).
  virtual FailureOr<SmallVector<Value>> pullbackOps(OpBuilder &b, ArrayRef<Operation *> ops,
                                                    ValueRange inputs, ValueRange outputs,
                                                    ValueRange outputGrads,
                                                    ArrayRef<bool> needsGrad) = 0;
};

/// What the jvp pass lends the forward rules of region ops: the JVP of a body.
class PushforwardBuilder {
public:
  virtual ~PushforwardBuilder();
  /// Builds at `b`'s insertion point the ops of `body` applied to `args` and
  /// their JVP from `argTangents` (null for zero): sets `results` to the
  /// terminator's operands and `resultTangents` to their tangents (null for
  /// zero). Failure after a diagnostic.
  virtual LogicalResult pushforward(OpBuilder &b, Block &body, ValueRange args,
                                    ValueRange argTangents, SmallVectorImpl<Value> &results,
                                    SmallVectorImpl<Value> &resultTangents) = 0;
};

/// The rules of a conditional (relax.if, relax.switch): operand 0 picks one
/// of `op`'s regions, which take the other operands. The VJP is a
/// conditional of the regions' VJPs, the JVP one of their JVPs.
LogicalResult buildBranchesVectorJacobianProduct(Operation *op, OpBuilder &b,
                                                 ValueRange resultGrads,
                                                 ArrayRef<bool> needsGrad,
                                                 MutableArrayRef<Value> operandGrads,
                                                 PullbackBuilder &pullbacks);
LogicalResult buildBranchesJacobianVectorProduct(Operation *op, OpBuilder &b,
                                                 ValueRange operandTangents,
                                                 MutableArrayRef<Value> resultTangents,
                                                 PushforwardBuilder &pushforwards);

/// Builders for the gradient rules declared in ODS (the `vjp` fields of the
/// elementwise op classes): each creates one relax op (or a 0-d constant).
namespace vjp {
Value add(OpBuilder &b, Location loc, Value x, Value y);
Value mul(OpBuilder &b, Location loc, Value x, Value y);
Value div(OpBuilder &b, Location loc, Value x, Value y);
Value sub(OpBuilder &b, Location loc, Value x, Value y);
Value neg(OpBuilder &b, Location loc, Value x);
/// `1 - v`, elementwise.
Value oneMinus(OpBuilder &b, Location loc, Value v);
/// A 0-d constant `value` of `like`'s element type.
Value scalarLike(OpBuilder &b, Location loc, Value like, double value);
Value greater(OpBuilder &b, Location loc, Value x, Value y);
Value less(OpBuilder &b, Location loc, Value x, Value y);
/// -1, 0 or 1 by the sign of `x`, in x's type.
Value sign(OpBuilder &b, Location loc, Value x);
Value where(OpBuilder &b, Location loc, Value cond, Value x, Value y);
/// `v` reshaped to `shape` (itself when it already has that shape).
Value reshapeTo(OpBuilder &b, Location loc, Value v, ArrayRef<int64_t> shape);
/// `v` converted to the element type `elt` (relax.astype; itself when equal).
Value astype(OpBuilder &b, Location loc, Value v, Type elt);
/// relax.sum of `v` over `axes` (sorted, non-negative) with `keepdims`; `v`
/// itself for no axes.
Value sumOver(OpBuilder &b, Location loc, Value v, ArrayRef<int64_t> axes, bool keepdims);
/// relax.mean of `v` over `axes` with kept dims.
Value meanKeep(OpBuilder &b, Location loc, Value v, ArrayRef<int64_t> axes);
/// A reduction's adjoint `g` reshaped to the rank of `x` with size 1 at the
/// reduced `axes` (it then broadcasts against x).
Value keepReducedAxes(OpBuilder &b, Location loc, Value g, Value x, ArrayRef<int64_t> axes);
/// A 1-D integer constant [0, 1, ..., n-1] of element type `elt`, reshaped to
/// `rank` dims with n at `axis` and 1 elsewhere.
Value iota(OpBuilder &b, Location loc, int64_t n, Type elt, int64_t rank, int64_t axis);
/// `v` reversed along `axis` (a strided_slice with stride -1).
Value reverse(OpBuilder &b, Location loc, Value v, int64_t axis);
/// Appends the tensors of `v` (itself, or a tuple's fields at any depth,
/// read with folded relax.tuple_get_item), depth-first.
void tupleLeaves(OpBuilder &b, Location loc, Value v, SmallVectorImpl<Value> &leaves);
/// A value of `type` rebuilt with relax.tuple from `leaves[pos...]` (pos
/// advanced past the leaves used).
Value fromTupleLeaves(OpBuilder &b, Location loc, Type type, ValueRange leaves, unsigned &pos);
} // namespace vjp
} // namespace mlir::relax

#endif // RELAX_MLIR_DIALECT_RELAX_IR_GRADIENTUTILS_H
