//===- BatchingUtils.h - helpers of the batching rules ----------*- C++ -*-===//
//
// What the batching rules (batching/*.cpp, BatchingOpInterface) share: the
// batched form of a type (a leading batch dimension), an op created anew over
// batched operands, and the moves that line a batched operand up with
// unbatched ones.
//
//===----------------------------------------------------------------------===//
#ifndef RELAX_MLIR_DIALECT_RELAX_IR_BATCHINGUTILS_H
#define RELAX_MLIR_DIALECT_RELAX_IR_BATCHINGUTILS_H

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/Operation.h"

namespace mlir::relax {
/// What the vmap pass lends the batching rules of region ops
/// (RegionBatchingOpInterface): the batched form of a body.
class RegionBatcher {
public:
  virtual ~RegionBatcher();
  /// Builds at `b`'s insertion point the batched ops of `body` (a block
  /// whose terminator's operands are its results) applied to `args` (one
  /// per block argument, batched where `batched` says). Returns each
  /// terminator operand's value there and whether it is batched (an
  /// unbatched one is the same for every example). Failure after a
  /// diagnostic (an op of the body without a rule).
  virtual FailureOr<SmallVector<std::pair<Value, bool>>>
  batch(OpBuilder &b, Block &body, ValueRange args, ArrayRef<bool> batched) = 0;
  /// The function `@callee` batched: one the pass adds to the module (once
  /// per callee and batched parameters) taking a batch for each parameter
  /// `batched` marks, the others as they are, and returning each result
  /// batched. Failure after a diagnostic (at `loc` or in the callee).
  virtual FailureOr<func::FuncOp> batchFunction(Location loc, StringRef callee,
                                                ArrayRef<bool> batched) = 0;
  /// `fn`, a function a rule added to the module, is removed again with the
  /// pass's own if the pass fails.
  virtual void addedFunction(func::FuncOp fn) = 0;
};

/// `type` with a leading dimension of `n` (a tuple: each element so).
Type batchedType(Type type, int64_t n);

/// `op` created anew at `b` over `operands` with `attrs`, each result of its
/// batched type.
Operation *createBatched(OpBuilder &b, Operation *op, ValueRange operands,
                         ArrayRef<NamedAttribute> attrs, int64_t n);

/// `op` re-created as createBatched does, with its attribute `name` set to
/// `value` (added when absent); its one result.
Value createBatchedWith(OpBuilder &b, Operation *op, ValueRange operands, int64_t n,
                        StringRef name, Attribute value);

/// Batched `v` (n, s...) with unit dimensions after the batch so that its
/// example has rank `rank`: (n, 1, ..., 1, s...), which numpy broadcasting
/// then lines up with unbatched operands of that rank.
Value padExample(OpBuilder &b, Location loc, Value v, int64_t rank);

/// Unbatched `v` broadcast to a batch of `n` equal examples (a tuple: each
/// element).
Value broadcastBatch(OpBuilder &b, Location loc, Value v, int64_t n);

/// `v` with its axis `from` moved to `to` (a permute_dims; `v` itself when
/// they are equal).
Value moveAxis(OpBuilder &b, Location loc, Value v, int64_t from, int64_t to);

/// `operands` all batched: the unbatched ones broadcast.
SmallVector<Value> allBatched(OpBuilder &b, Location loc, ValueRange operands,
                              ArrayRef<bool> batched, int64_t n);

/// `axis` of an example of rank `rank` (negative counts from the end) as an
/// axis of the batched value.
int64_t batchedAxis(int64_t axis, int64_t rank);

/// The rule of an elementwise op (numpy broadcasting of its operands, its
/// attributes kept): the batched operands padded to the example's rank.
LogicalResult batchElementwise(Operation *op, OpBuilder &b, int64_t n, ValueRange operands,
                               ArrayRef<bool> batched, MutableArrayRef<Value> results);
} // namespace mlir::relax

#endif // RELAX_MLIR_DIALECT_RELAX_IR_BATCHINGUTILS_H
