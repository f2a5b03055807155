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

/// Bytes of a statically shaped tensor (0 for anything else).
static int64_t tensorBytes(Type type) {
  auto tensor = dyn_cast<RankedTensorType>(type);
  if (!tensor || !tensor.hasStaticShape())
    return 0;
  return tensor.getNumElements() *
         std::max<int64_t>(1, tensor.getElementTypeBitWidth() / 8);
}

bool mlir::relax::fusionKeepsPeakMemory(OpOperand *fused) {
  Operation *producer = fused->get().getDefiningOp();
  Operation *consumer = fused->getOwner();
  Block *block = consumer->getBlock();
  if (!producer || producer->getBlock() != block)
    return true;
  int64_t extended = 0;
  for (Value v : producer->getOperands()) {
    // Parameters live throughout; constants and empty inits hold nothing.
    if (isa<BlockArgument>(v) || matchPattern(v, m_Constant()) ||
        v.getDefiningOp<tensor::EmptyOp>())
      continue;
    bool liveAtConsumer = false;
    for (Operation *user : v.getUsers()) {
      if (user == producer)
        continue;
      Operation *inBlock = block->findAncestorOpInBlock(*user);
      if (!inBlock || !inBlock->isBeforeInBlock(consumer)) {
        liveAtConsumer = true;
        break;
      }
    }
    if (!liveAtConsumer)
      extended += tensorBytes(v.getType());
  }
  if (extended <= tensorBytes(fused->get().getType()))
    return true;
  for (Operation *op = producer->getNextNode(); op && op != consumer; op = op->getNextNode()) {
    if (matchPattern(op, m_Constant()) || isa<tensor::EmptyOp>(op))
      continue;
    if (llvm::any_of(op->getResultTypes(), [](Type t) { return isa<RankedTensorType>(t); }))
      return false;
  }
  return true;
}

namespace {
struct FuseElementwisePass
    : relax::impl::FuseElementwisePassBase<FuseElementwisePass> {
  void runOnOperation() override {
    MLIRContext *ctx = &getContext();
    RewritePatternSet patterns(ctx);
    // An accumulation `g = ((d1 + d2) + d3) + ...` whose terms are computed in
    // between (a shared weight's gradient) stays a chain of adds: fused into
    // one op at the end, it would hold every term until then.
    linalg::populateElementwiseOpsFusionPatterns(patterns, [](OpOperand *fused) {
      return relax::fusionDuplicatesNoWork(fused) && relax::fusionKeepsPeakMemory(fused);
    });
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
