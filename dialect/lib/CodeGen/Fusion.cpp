//===- Fusion.cpp - elementwise fusion that never duplicates work ---------===//
//
// relax-fuse-elementwise: upstream's elementwise fusion (a producer with one
// use is inlined into the linalg.generic that consumes it, reshapes are
// propagated), restricted to consumers that read each element of the fused
// operand once. Upstream also fuses into a consumer that reads the operand
// under a projected map, e.g. a bias add + tanh into the next matmul, which
// then recomputes them for every column (and is no longer a contraction the
// schedule recognizes).
//
//===----------------------------------------------------------------------===//

#include "relax-mlir/CodeGen/Passes.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace mlir::relax {
#define GEN_PASS_DEF_FUSEELEMENTWISEPASS
#include "relax-mlir/CodeGen/Passes.h.inc"
} // namespace mlir::relax

using namespace mlir;

bool mlir::relax::fusionDuplicatesNoWork(OpOperand *fused) {
  Operation *producer = fused->get().getDefiningOp();
  if (!producer || !producer->hasOneUse())
    return false;
  auto consumer = dyn_cast<linalg::LinalgOp>(fused->getOwner());
  if (!consumer)
    return true;
  // Every loop of the consumer indexes the operand: one read per element.
  return consumer.getMatchingIndexingMap(fused).isPermutation();
}

namespace {
struct FuseElementwisePass
    : relax::impl::FuseElementwisePassBase<FuseElementwisePass> {
  void runOnOperation() override {
    MLIRContext *ctx = &getContext();
    RewritePatternSet patterns(ctx);
    linalg::populateElementwiseOpsFusionPatterns(patterns, relax::fusionDuplicatesNoWork);
    linalg::populateFoldReshapeOpsByExpansionPatterns(patterns, relax::fusionDuplicatesNoWork);
    affine::AffineApplyOp::getCanonicalizationPatterns(patterns, ctx);
    linalg::GenericOp::getCanonicalizationPatterns(patterns, ctx);
    tensor::ExpandShapeOp::getCanonicalizationPatterns(patterns, ctx);
    tensor::CollapseShapeOp::getCanonicalizationPatterns(patterns, ctx);
    ctx->getLoadedDialect<linalg::LinalgDialect>()->getCanonicalizationPatterns(patterns);
    linalg::populateConstantFoldLinalgOperations(patterns, relax::fusionDuplicatesNoWork);
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      signalPassFailure();
  }
};
} // namespace
