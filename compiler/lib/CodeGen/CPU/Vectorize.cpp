//===- Vectorize.cpp - relax-cpu-vectorize --------------------------------===//
//
// relax-cpu-vectorize (tensors): the register tiles as vector transfers and
// contractions, hoisted out of their reduction loops.
//
//===----------------------------------------------------------------------===//

#include "TilePlan.h"
#include "relax-mlir/CodeGen/Passes.h"

#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/SCF/Transforms/Transforms.h"
#include "mlir/Dialect/Tensor/Transforms/Transforms.h"
#include "mlir/Dialect/Vector/Transforms/LoweringPatterns.h"
#include "mlir/Dialect/Vector/Transforms/VectorRewritePatterns.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"
#include "mlir/Transforms/LoopInvariantCodeMotionUtils.h"

namespace mlir::relax {
#define GEN_PASS_DEF_CPUVECTORIZEPASS
#include "relax-mlir/CodeGen/Passes.h.inc"
} // namespace mlir::relax

using namespace mlir;
using namespace mlir::relax;
using namespace mlir::relax::cpu;

namespace {
//===----------------------------------------------------------------------===//
// relax-cpu-vectorize
//===----------------------------------------------------------------------===//

/// `op` split along the parallel loop that indexes its result's innermost
/// dimension into pieces of power-of-two sizes (largest first) when that
/// dimension is longer than one vector and not a power of two: 56 floats at
/// 16 lanes become 32 + 16 + 8. LLVM legalizes a vector of a power-of-two
/// length by halving it into registers, but takes a vector<6x56xf32> (a
/// peeled remainder of a 6 x 64 register tile) apart element by element: a
/// LeNet dense layer's kernel had 3,876 instructions for 24 FMAs. Fills are
/// left whole (a constant stored), so their results stay one buffer for the
/// pieces that accumulate into it. `op` is statically shaped (as every op the
/// pass vectorizes). Returns the ops to vectorize.
SmallVector<linalg::LinalgOp> splitRaggedLanes(RewriterBase &rewriter, linalg::LinalgOp op,
                                               const CPUTarget &target) {
  if (op.getNumDpsInits() != 1 || isa<linalg::FillOp>(op.getOperation()))
    return {op};
  OpOperand *init = op.getDpsInitOperand(0);
  std::optional<unsigned> dim = innermostDim(op.getMatchingIndexingMap(init));
  if (!dim || !linalg::isParallelIterator(op.getIteratorTypesArray()[*dim]))
    return {op};
  int64_t size = op.getStaticLoopRanges()[*dim];
  int64_t lanes = target.lanes(getElementTypeOrSelf(init->get().getType()));
  if (size <= lanes || llvm::isPowerOf2_64(size))
    return {op};
  SmallVector<linalg::LinalgOp> parts;
  TilingInterface rest = cast<TilingInterface>(op.getOperation());
  while (rest && !llvm::isPowerOf2_64(size)) {
    int64_t piece = static_cast<int64_t>(llvm::bit_floor(static_cast<uint64_t>(size)));
    rewriter.setInsertionPoint(rest);
    auto [head, tail] = linalg::splitOp(rewriter, rest, *dim, rewriter.getIndexAttr(piece));
    if (auto linalgHead = dyn_cast_if_present<linalg::LinalgOp>(head.getOperation()))
      parts.push_back(linalgHead);
    rest = tail;
    size -= piece;
  }
  if (auto linalgRest = dyn_cast_if_present<linalg::LinalgOp>(rest.getOperation()))
    parts.push_back(linalgRest);
  return parts;
}

struct CPUVectorizePass : relax::impl::CPUVectorizePassBase<CPUVectorizePass> {
  using CPUVectorizePassBase::CPUVectorizePassBase;

  void runOnOperation() override {
    MLIRContext *ctx = &getContext();
    func::FuncOp func = getOperation();
    IRRewriter rewriter(ctx);

    SmallVector<linalg::LinalgOp> candidates;
    func.walk([&](linalg::LinalgOp op) {
      // Without loops there is nothing to vectorize (and 0-d gathers trip
      // the vectorizer).
      if (!op.hasPureTensorSemantics() || op.hasDynamicShape() || op.getNumLoops() == 0)
        return;
      int64_t size = iterations(op.getStaticLoopRanges());
      if (size <= 0 || size > maxElements)
        return;
      if (isVectorizable(op))
        candidates.push_back(op);
    });
    CPUTarget target = CPUTarget::host(vectorBits);
    SmallVector<linalg::LinalgOp> parts;
    for (linalg::LinalgOp op : candidates)
      llvm::append_range(parts, splitRaggedLanes(rewriter, op, target));
    candidates = std::move(parts);

    // The ops that vectorizing a contraction creates: multiply + reduce
    // becomes vector.contract there (and only there: on other reductions the
    // upstream patterns can build an invalid contract from a broadcast).
    struct Recorder : RewriterBase::Listener {
      SmallVector<Operation *> *ops = nullptr;
      void notifyOperationInserted(Operation *op, OpBuilder::InsertPoint) override {
        if (ops)
          ops->push_back(op);
      }
    } recorder;
    rewriter.setListener(&recorder);
    SmallVector<Operation *> contractionOps;
    for (linalg::LinalgOp op : candidates) {
      // (The tiles say so; the ops the tiling made have none: block sums,
      // fills, partial dot products.)
      TilesAttr tiles = getTiles(op);
      bool contraction = tiles ? tiles.getContraction() : isRegisterContraction(op);
      recorder.ops = contraction ? &contractionOps : nullptr;
      rewriter.setInsertionPoint(op);
      FailureOr<linalg::VectorizationResult> result = linalg::vectorize(rewriter, op, {}, {}, /*vectorizeNDExtract=*/true);
      if (succeeded(result))
        rewriter.replaceOp(op, result->replacements);
    }
    rewriter.setListener(nullptr);
    if (!contractionOps.empty()) {
      RewritePatternSet patterns(ctx);
      vector::populateVectorReductionToContractPatterns(patterns);
      vector::populateVectorTransferPermutationMapLoweringPatterns(patterns);
      vector::populateSinkVectorOpsPatterns(patterns);
      vector::MultiDimReductionOp::getCanonicalizationPatterns(patterns, ctx);
      vector::TransferReadOp::getCanonicalizationPatterns(patterns, ctx);
      GreedyRewriteConfig config;
      config.setStrictness(GreedyRewriteStrictness::ExistingAndNewOps);
      (void)applyOpPatternsGreedily(contractionOps, std::move(patterns), config);
    }

    // The cleanups of transform.structured.vectorize_children_and_apply_patterns:
    // permutations become broadcasts/transposes, tensor slices fold into the
    // transfers.
    RewritePatternSet patterns(ctx);
    vector::populateVectorTransferPermutationMapLoweringPatterns(patterns);
    vector::populateSinkVectorOpsPatterns(patterns);
    vector::TransferReadOp::getCanonicalizationPatterns(patterns, ctx);
    vector::TransferWriteOp::getCanonicalizationPatterns(patterns, ctx);
    vector::MultiDimReductionOp::getCanonicalizationPatterns(patterns, ctx);
    tensor::populateFoldTensorSubsetIntoVectorTransferPatterns(patterns);
    vector::populateVectorStepLoweringPatterns(patterns);
    // Row tiles are 1 x ... x 1 x n: drop the unit dims so that the
    // arithmetic is on 1-D vectors, which every LLVM lowering takes.
    vector::populateCastAwayVectorLeadingOneDimPatterns(patterns);
    scf::ForOp::getCanonicalizationPatterns(patterns, ctx);
    tensor::ExtractSliceOp::getCanonicalizationPatterns(patterns, ctx);
    tensor::InsertSliceOp::getCanonicalizationPatterns(patterns, ctx);
    if (failed(applyPatternsGreedily(func, std::move(patterns))))
      return signalPassFailure();

    // A contraction's register tile: read before the reduction loop, carried
    // through it as a vector, written after it.
    SmallVector<LoopLikeOpInterface> loops;
    func.walk([&](LoopLikeOpInterface loop) { loops.push_back(loop); });
    for (LoopLikeOpInterface loop : loops)
      hoistLoopInvariantSubsets(rewriter, loop);
  }
};
} // namespace
