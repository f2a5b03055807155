//===- Collapse.cpp - relax-cpu-collapse-transposes -----------------------===//
//
// relax-cpu-collapse-transposes: a transposing copy whose operands all read
// some runs of loops one after the other, in the same order, becomes a copy
// over one loop per run (upstream's collapseOpIterationDims, with reshapes
// around it). A filter gradient's [64,3,3,128] -> [128,64,3,3] is then the
// 2-D transpose [576,128] -> [128,576], which the schedule copies in square
// tiles transposed in registers, instead of rows of 128 elements scattered
// one element at a time to addresses 576 elements apart.
//
//===----------------------------------------------------------------------===//

#include "relax-mlir/CodeGen/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

namespace mlir::relax {
#define GEN_PASS_DEF_CPUCOLLAPSETRANSPOSESPASS
#include "relax-mlir/CodeGen/Passes.h.inc"
} // namespace mlir::relax

using namespace mlir;
using namespace mlir::relax;

namespace {
/// The loop at result `r` of permutation `map`.
unsigned loopAt(AffineMap map, unsigned r) {
  return cast<AffineDimExpr>(map.getResult(r)).getPosition();
}

/// Whether `op` copies an input transposed: all loops parallel, one output,
/// every operand read through a permutation (static shapes, no loop indices
/// in the body), and some input's innermost loop not the output's.
bool isTransposingCopy(linalg::LinalgOp op) {
  if (!op.hasPureTensorSemantics() || op.hasDynamicShape() || op.getNumDpsInits() != 1 ||
      op.getNumReductionLoops() != 0 || op.hasIndexSemantics() || op.getNumLoops() < 2)
    return false;
  SmallVector<AffineMap> maps = op.getIndexingMapsArray();
  if (!llvm::all_of(maps, [](AffineMap m) { return m.isPermutation(); }))
    return false;
  AffineMap out = op.getMatchingIndexingMap(op.getDpsInitOperand(0));
  unsigned last = out.getNumResults() - 1;
  return llvm::any_of(op.getDpsInputOperands(), [&](OpOperand *input) {
    AffineMap in = op.getMatchingIndexingMap(input);
    return loopAt(in, last) != loopAt(out, last);
  });
}

/// The runs of loops, in the order the output reads them, that every
/// operand reads consecutively in that order; only runs of two loops or more.
SmallVector<ReassociationIndices> contiguousRuns(linalg::LinalgOp op) {
  unsigned n = op.getNumLoops();
  // next[d]: the loop every operand reads right after d (-1: none agree).
  constexpr int kUnset = -2;
  SmallVector<int> next(n, kUnset);
  for (AffineMap map : op.getIndexingMapsArray())
    for (unsigned r = 0; r < n; ++r) {
      int after = r + 1 < n ? static_cast<int>(loopAt(map, r + 1)) : -1;
      int &slot = next[loopAt(map, r)];
      slot = slot == kUnset || slot == after ? after : -1;
    }
  AffineMap out = op.getMatchingIndexingMap(op.getDpsInitOperand(0));
  SmallVector<ReassociationIndices> runs;
  for (unsigned r = 0; r < n;) {
    ReassociationIndices run{static_cast<int64_t>(loopAt(out, r))};
    while (r + 1 < n && next[loopAt(out, r)] == static_cast<int>(loopAt(out, r + 1)))
      run.push_back(loopAt(out, ++r));
    ++r;
    // (collapseOpIterationDims folds runs of consecutive loops.)
    bool consecutive = true;
    for (size_t i = 1; i < run.size(); ++i)
      consecutive &= run[i] == run[i - 1] + 1;
    if (run.size() > 1 && consecutive)
      runs.push_back(std::move(run));
  }
  return runs;
}

struct CPUCollapseTransposesPass
    : relax::impl::CPUCollapseTransposesPassBase<CPUCollapseTransposesPass> {
  void runOnOperation() override {
    SmallVector<linalg::LinalgOp> copies;
    getOperation().walk([&](linalg::LinalgOp op) {
      if (isTransposingCopy(op) && !contiguousRuns(op).empty())
        copies.push_back(op);
    });
    IRRewriter rewriter(&getContext());
    for (linalg::LinalgOp op : copies) {
      rewriter.setInsertionPoint(op);
      linalg::LinalgOp generic = op;
      if (!isa<linalg::GenericOp>(op.getOperation())) {
        FailureOr<linalg::GenericOp> generalized = linalg::generalizeNamedOp(rewriter, op);
        if (failed(generalized))
          continue;
        generic = *generalized;
      }
      SmallVector<ReassociationIndices> runs = contiguousRuns(generic);
      FailureOr<linalg::CollapseResult> collapsed =
          linalg::collapseOpIterationDims(generic, runs, rewriter);
      if (succeeded(collapsed))
        rewriter.replaceOp(generic, collapsed->results);
    }
  }
};
} // namespace
