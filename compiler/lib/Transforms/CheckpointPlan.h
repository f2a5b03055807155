//===- CheckpointPlan.h - recomputed segments of the reverse sweep -*- C++ -*-===//
//
// Checkpointed segments (Chen et al. 2016). Bindings computed from a
// `relax.start_checkpoint` value, up to the `relax.end_checkpoint` values, are
// not kept for the backward pass: the first time a gradient rule of a segment
// runs, the whole segment is recomputed at that point from the kept values,
// and the rules of its bindings read the recomputed copies.
//
//===----------------------------------------------------------------------===//
#ifndef RELAX_MLIR_LIB_TRANSFORMS_CHECKPOINTPLAN_H
#define RELAX_MLIR_LIB_TRANSFORMS_CHECKPOINTPLAN_H

#include "mlir/IR/Builders.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/EquivalenceClasses.h"
#include "llvm/ADT/MapVector.h"

namespace mlir::relax {

class CheckpointPlan {
public:
  /// Plans the segments of `bindings` (a dataflow block's ops, in order).
  explicit CheckpointPlan(ArrayRef<Operation *> bindings);

  /// The op whose operands and results the rule of `op` must read: `op`, or its
  /// recomputed copy (built at `b`'s insertion point on first need).
  Operation *forRule(OpBuilder &b, Operation *op);

private:
  /// The value a recomputed binding reads in place of `v`.
  Value recomputed(OpBuilder &b, Value v);
  /// Recomputes the segment led by `leader` at `b` (once).
  void materialize(OpBuilder &b, Operation *leader);

  /// Each segment's ops in block order, by the segment's leader.
  llvm::MapVector<Operation *, SmallVector<Operation *>> segments;
  DenseMap<Operation *, Operation *> leaderOf;
  DenseMap<Operation *, Operation *> copies;
  DenseSet<Operation *> materialized;
};

} // namespace mlir::relax

#endif // RELAX_MLIR_LIB_TRANSFORMS_CHECKPOINTPLAN_H
