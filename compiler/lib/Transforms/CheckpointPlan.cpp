//===- CheckpointPlan.cpp - recomputed segments of the reverse sweep ------===//

#include "CheckpointPlan.h"

#include "relax-mlir/Dialect/Relax/IR/RelaxOps.h"

#include "mlir/IR/IRMapping.h"

using namespace mlir;
using namespace mlir::relax;

CheckpointPlan::CheckpointPlan(ArrayRef<Operation *> bindings) {
  // Nesting depth of each value: start markers open a level, end markers
  // close one. A binding at depth > 0 belongs to a segment; the start of the
  // outermost level (its input) and the end back to depth 0 (its output) are
  // kept. An inner pair of markers stays inside the outer segment. A binding
  // joins the segments of the bindings it reads.
  DenseMap<Value, int64_t> depth;
  llvm::EquivalenceClasses<Operation *> classes;
  for (Operation *op : bindings) {
    int64_t in = 0;
    for (Value v : op->getOperands())
      in = std::max(in, depth.lookup(v));
    int64_t outDepth = in;
    bool inSegment = in > 0;
    if (isa<StartCheckpointOp>(op)) {
      outDepth = in + 1;
    } else if (isa<EndCheckpointOp>(op)) {
      outDepth = std::max<int64_t>(in - 1, 0);
      inSegment = outDepth > 0;
    }
    for (Value r : op->getResults())
      depth[r] = outDepth;
    if (!inSegment)
      continue;
    classes.insert(op);
    for (Value v : op->getOperands())
      if (Operation *def = v.getDefiningOp(); def && classes.contains(def))
        classes.unionSets(op, def);
  }
  for (Operation *op : bindings) {
    if (!classes.contains(op))
      continue;
    Operation *leader = classes.getLeaderValue(op);
    segments[leader].push_back(op);
    leaderOf[op] = leader;
  }
}

Operation *CheckpointPlan::forRule(OpBuilder &b, Operation *op) {
  auto it = leaderOf.find(op);
  if (it == leaderOf.end() || isa<StartCheckpointOp, EndCheckpointOp>(op))
    return op;
  materialize(b, it->second);
  return copies.lookup(op);
}

Value CheckpointPlan::recomputed(OpBuilder &b, Value v) {
  Operation *def = v.getDefiningOp();
  auto it = def ? leaderOf.find(def) : leaderOf.end();
  // A segment input reads the kept value; a marker inside a segment is an
  // identity on the recomputed value.
  if (isa_and_nonnull<StartCheckpointOp>(def) ||
      (it != leaderOf.end() && isa<EndCheckpointOp>(def)))
    return recomputed(b, def->getOperand(0));
  if (it == leaderOf.end())
    return v;
  materialize(b, it->second);
  return copies.lookup(def)->getResult(cast<OpResult>(v).getResultNumber());
}

void CheckpointPlan::materialize(OpBuilder &b, Operation *leader) {
  if (!materialized.insert(leader).second)
    return;
  for (Operation *op : segments[leader]) {
    if (isa<StartCheckpointOp, EndCheckpointOp>(op))
      continue;
    IRMapping mapping;
    for (Value v : op->getOperands())
      mapping.map(v, recomputed(b, v));
    Operation *copy = b.clone(*op, mapping);
    copy->setAttr("relax.recomputed", b.getUnitAttr());
    copies[op] = copy;
  }
}
