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
#include "Fusion.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/IRMapping.h"
#include "llvm/ADT/SmallBitVector.h"
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

bool mlir::relax::fusionKeepsPeakMemory(
    OpOperand *fused, llvm::function_ref<bool(Operation *, Operation *)> isBefore) {
  Operation *producer = fused->get().getDefiningOp();
  Operation *consumer = fused->getOwner();
  Block *block = consumer->getBlock();
  if (!producer || producer->getBlock() != block)
    return true;
  // Nothing computed in between: nothing is held longer. (Checked first: it
  // needs no op order.)
  bool computesBetween = false;
  for (Operation *op = producer->getNextNode(); op && op != consumer; op = op->getNextNode()) {
    if (matchPattern(op, m_Constant()) || isa<tensor::EmptyOp>(op))
      continue;
    if (llvm::any_of(op->getResultTypes(), [](Type t) { return isa<RankedTensorType>(t); })) {
      computesBetween = true;
      break;
    }
  }
  if (!computesBetween)
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
      if (!inBlock || !(isBefore ? isBefore(inBlock, consumer) : inBlock->isBeforeInBlock(consumer))) {
        liveAtConsumer = true;
        break;
      }
    }
    if (!liveAtConsumer)
      extended += tensorBytes(v.getType());
  }
  return extended <= tensorBytes(fused->get().getType());
}

/// Operations in a linalg op's body (0 for anything else).
static int64_t bodySize(Operation *op) {
  auto linalgOp = dyn_cast_or_null<linalg::LinalgOp>(op);
  if (!linalgOp || op->getNumRegions() != 1 || op->getRegion(0).empty())
    return 0;
  return static_cast<int64_t>(op->getRegion(0).front().getOperations().size());
}

bool mlir::relax::fusionKeepsBodySmall(OpOperand *fused) {
  return bodySize(fused->get().getDefiningOp()) + bodySize(fused->getOwner()) <=
         kMaxFusedBodyOps;
}

namespace {
/// The reduction combiner of `op`'s body when it is `yield combine(out, h)`
/// with `h` computed without `out` (which nothing else reads): the combine
/// op, and whether it is idempotent (max, min, and, or: a repeated term
/// changes nothing) rather than a sum (a term repeated n times is n * h).
struct Combiner {
  Operation *op;
  unsigned term; // the operand index of h
  bool idempotent;
};
static std::optional<Combiner> reductionCombiner(linalg::GenericOp op) {
  if (op.getNumDpsInits() != 1 || op.hasIndexSemantics())
    return std::nullopt;
  Block &body = op.getRegion().front();
  BlockArgument out = body.getArgument(op.getNumDpsInputs());
  auto yield = cast<linalg::YieldOp>(body.getTerminator());
  Operation *combine = yield.getValues()[0].getDefiningOp();
  if (!combine || combine->getNumOperands() != 2 || !out.hasOneUse() ||
      out.getUses().begin()->getOwner() != combine)
    return std::nullopt;
  unsigned term = combine->getOperand(0) == out ? 1 : 0;
  if (combine->getOperand(term) == out)
    return std::nullopt;
  if (isa<arith::AddFOp, arith::AddIOp>(combine))
    return Combiner{combine, term, false};
  if (isa<arith::MaximumFOp, arith::MinimumFOp, arith::MaxNumFOp, arith::MinNumFOp, arith::MaxSIOp,
          arith::MinSIOp, arith::MaxUIOp, arith::MinUIOp, arith::AndIOp, arith::OrIOp>(combine))
    return Combiner{combine, term, true};
  return std::nullopt;
}

/// The reduction loops of `op` that no input it reads and not its output
/// index: every term of the reduction along them is the same.
static llvm::SmallBitVector repeatedReductionLoops(linalg::GenericOp op) {
  llvm::SmallBitVector free(op.getNumLoops());
  for (auto [d, iterator] : llvm::enumerate(op.getIteratorTypesArray()))
    free[d] = linalg::isReductionIterator(iterator);
  Block &body = op.getRegion().front();
  for (OpOperand &operand : op->getOpOperands()) {
    bool read = op.isDpsInit(&operand) || !body.getArgument(operand.getOperandNumber()).use_empty();
    if (!read)
      continue;
    AffineMap map = op.getMatchingIndexingMap(&operand);
    for (unsigned d = 0; d < op.getNumLoops(); ++d)
      if (map.isFunctionOfDim(d))
        free[d] = false;
  }
  return free;
}

/// A reduction whose terms do not vary along some of its loops (the
/// reduction of a broadcast, of `ones`, of `full`: a fill folded into the
/// body leaves its operand unread) loses those loops: a sum takes each term
/// times their trip count, max/min/and/or take it once. The inputs that only
/// those loops indexed (unread) go. Without this the reduced tensor existed
/// only to give the loops their bounds, and was materialized: 3.7 GB for
/// sum(ones((30000, 30000))).
static FailureOr<linalg::GenericOp> dropRepeatedReductionLoops(RewriterBase &rewriter,
                                                                linalg::GenericOp op) {
  std::optional<Combiner> combiner = reductionCombiner(op);
  // (Loop ranges must stay computable from the operands: a gather's map,
  // `d0 mod 2` of relax.tile, bounds nothing.)
  if (!combiner || !op.hasPureTensorSemantics() ||
      !cast<linalg::LinalgOp>(op.getOperation()).hasOnlyProjectedPermutations())
    return failure();
  llvm::SmallBitVector free = repeatedReductionLoops(op);
  if (free.none())
    return failure();
  SmallVector<int64_t> ranges = op.getStaticLoopRanges();
  int64_t count = 1;
  for (int d : free.set_bits()) {
    if (ShapedType::isDynamic(ranges[d]) || ranges[d] == 0)
      return failure(); // (an empty reduction is its init: leave it)
    count *= ranges[d];
  }
  MLIRContext *ctx = op.getContext();
  // Old loop -> new loop (the free ones dropped).
  SmallVector<AffineExpr> renumber;
  unsigned kept = 0;
  SmallVector<utils::IteratorType> iterators;
  for (auto [d, iterator] : llvm::enumerate(op.getIteratorTypesArray())) {
    if (free[d]) {
      renumber.push_back(getAffineConstantExpr(0, ctx));
      continue;
    }
    renumber.push_back(getAffineDimExpr(kept++, ctx));
    iterators.push_back(iterator);
  }
  Block &body = op.getRegion().front();
  SmallVector<Value> inputs;
  SmallVector<AffineMap> maps;
  SmallVector<unsigned> keptInputs;
  for (OpOperand *input : op.getDpsInputOperands()) {
    AffineMap map = op.getMatchingIndexingMap(input);
    if (llvm::any_of(free.set_bits(), [&](int d) { return map.isFunctionOfDim(d); }))
      continue; // unread (repeatedReductionLoops)
    inputs.push_back(input->get());
    maps.push_back(map.replaceDimsAndSymbols(renumber, {}, kept, map.getNumSymbols()));
    keptInputs.push_back(input->getOperandNumber());
  }
  OpOperand *init = op.getDpsInitOperand(0);
  AffineMap outMap = op.getMatchingIndexingMap(init);
  maps.push_back(outMap.replaceDimsAndSymbols(renumber, {}, kept, outMap.getNumSymbols()));
  rewriter.setInsertionPoint(op);
  auto fused = linalg::GenericOp::create(
      rewriter, op.getLoc(), op->getResultTypes(), inputs, ValueRange{init->get()}, maps, iterators,
      [&](OpBuilder &b, Location loc, ValueRange args) {
        IRMapping mapping;
        for (auto [i, number] : llvm::enumerate(keptInputs))
          mapping.map(body.getArgument(number), args[i]);
        mapping.map(body.getArgument(op.getNumDpsInputs()), args.back());
        for (Operation &inner : body.without_terminator()) {
          bool scale = &inner == combiner->op && !combiner->idempotent;
          Value term = scale ? mapping.lookupOrDefault(inner.getOperand(combiner->term)) : Value();
          if (scale) {
            Type type = term.getType();
            Value n = isa<FloatType>(type)
                          ? arith::ConstantOp::create(b, loc, b.getFloatAttr(type, double(count)))
                                .getResult()
                          : arith::ConstantOp::create(b, loc, b.getIntegerAttr(type, count))
                                .getResult();
            Value scaled = isa<FloatType>(type) ? arith::MulFOp::create(b, loc, term, n).getResult()
                                                : arith::MulIOp::create(b, loc, term, n).getResult();
            mapping.map(inner.getOperand(combiner->term), scaled);
          }
          b.clone(inner, mapping);
          if (scale) // (h itself, for any other reader)
            mapping.map(inner.getOperand(combiner->term), term);
        }
        linalg::YieldOp::create(b, loc,
                                mapping.lookupOrDefault(body.getTerminator()->getOperand(0)));
      });
  rewriter.replaceOp(op, fused->getResults());
  return fused;
}

/// dropRepeatedReductionLoops as a pattern (a fill folded into a reduction).
struct DropRepeatedReductionLoops : OpRewritePattern<linalg::GenericOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(linalg::GenericOp op, PatternRewriter &rewriter) const override {
    return success(succeeded(dropRepeatedReductionLoops(rewriter, op)));
  }
};

/// A reduction reading the result of an elementwise op that broadcasts (a
/// loop its inputs do not index: relax.broadcast_to, or any elementwise op of
/// a broadcast): upstream's fusion refuses it, since the fused op would have
/// a reduction loop no operand bounds. Fused here with an unread operand of
/// the broadcast shape standing in for the bounds, then the loops it alone
/// indexes are dropped (dropRepeatedReductionLoops): the broadcast is never
/// materialized (sum(broadcast_to(x, (5e8,))) held 2.1 GB).
struct FuseBroadcastIntoReduction : OpRewritePattern<linalg::GenericOp> {
  FuseBroadcastIntoReduction(MLIRContext *ctx, linalg::ControlFusionFn control)
      : OpRewritePattern(ctx), control(std::move(control)) {}
  LogicalResult matchAndRewrite(linalg::GenericOp op, PatternRewriter &rewriter) const override {
    if (op.getNumReductionLoops() == 0 || !op.hasPureTensorSemantics() || !reductionCombiner(op))
      return failure();
    for (OpOperand *operand : op.getDpsInputOperands()) {
      auto producer = operand->get().getDefiningOp<linalg::GenericOp>();
      if (!producer || !producer.hasPureTensorSemantics() || producer.getNumDpsInits() != 1 ||
          producer.getNumParallelLoops() != producer.getNumLoops() ||
          !producer.getMatchingIndexingMap(producer.getDpsInitOperand(0)).isPermutation() ||
          !op.getMatchingIndexingMap(operand).isPermutation() || !control(operand))
        continue;
      // Only a broadcast: some loop of the producer that no input indexes.
      llvm::SmallBitVector indexed(producer.getNumLoops());
      if (!cast<linalg::LinalgOp>(producer.getOperation()).hasOnlyProjectedPermutations())
        continue; // (a gather: relax.tile's `d0 mod 2`)
      for (OpOperand *input : producer.getDpsInputOperands())
        for (unsigned d = 0; d < producer.getNumLoops(); ++d)
          if (producer.getMatchingIndexingMap(input).isFunctionOfDim(d))
            indexed[d] = true;
      if (indexed.all())
        continue;
      // The op with one more input: an empty tensor of the broadcast shape,
      // read the same way, that the fused op's loops take their bounds from.
      Location loc = op.getLoc();
      rewriter.setInsertionPoint(op);
      auto type = cast<RankedTensorType>(operand->get().getType());
      Value bounds = tensor::EmptyOp::create(rewriter, loc, type.getShape(), type.getElementType());
      SmallVector<Value> inputs(op.getDpsInputs());
      inputs.push_back(bounds);
      SmallVector<AffineMap> maps;
      for (OpOperand *input : op.getDpsInputOperands())
        maps.push_back(op.getMatchingIndexingMap(input));
      maps.push_back(op.getMatchingIndexingMap(operand));
      maps.push_back(op.getMatchingIndexingMap(op.getDpsInitOperand(0)));
      auto widened = linalg::GenericOp::create(rewriter, loc, op->getResultTypes(), inputs,
                                               op.getDpsInits(), maps, op.getIteratorTypesArray());
      rewriter.inlineRegionBefore(op.getRegion(), widened.getRegion(), widened.getRegion().end());
      widened.getRegion().front().insertArgument(op.getNumDpsInputs(), type.getElementType(), loc);
      unsigned number = operand->getOperandNumber();
      rewriter.replaceOp(op, widened->getResults());
      FailureOr<linalg::ElementwiseOpFusionResult> fusedResult =
          linalg::fuseElementwiseOps(rewriter, &widened->getOpOperand(number));
      if (failed(fusedResult))
        return success(); // (the unread input goes again in canonicalization)
      auto fused = cast<linalg::GenericOp>(fusedResult->fusedOp);
      for (auto [original, replacement] : fusedResult->replacements)
        rewriter.replaceAllUsesWith(original, replacement);
      if (producer->use_empty())
        rewriter.eraseOp(producer);
      (void)dropRepeatedReductionLoops(rewriter, fused);
      return success();
    }
    return failure();
  }
  linalg::ControlFusionFn control;
};

/// The order of the ops of the blocks the fusion rewrites, kept up to date
/// as it rewrites (a rewriter listener): MLIR's own order (isBeforeInBlock)
/// is renumbered after a few insertions at one place, which each fusion
/// makes, and the peak-memory check asked for it after every fusion: fusing
/// the adjoint of a 20,000-op chain took 41 s (6 s without the check; 5.9 s
/// with this order). Ops are numbered 2^20 apart; an inserted op is numbered
/// between its neighbours (see notifyOperationInserted).
struct OpOrder : RewriterBase::Listener {
  static constexpr int64_t kStep = int64_t(1) << 20;
  llvm::DenseMap<Operation *, int64_t> position;
  llvm::DenseSet<Block *> tracked;

  void number(Block *block) {
    tracked.insert(block);
    int64_t i = 0;
    for (Operation &op : *block)
      position[&op] = (++i) * kStep;
  }
  std::optional<int64_t> of(Operation *op) const {
    auto it = position.find(op);
    return it == position.end() ? std::nullopt : std::optional<int64_t>(it->second);
  }
  bool isBefore(Operation *a, Operation *b) const {
    std::optional<int64_t> pa = of(a), pb = of(b);
    return pa && pb ? *pa < *pb : a->isBeforeInBlock(b);
  }
  /// Numbers `op` between its neighbours; where they have no room, the ops
  /// of a window around it (doubled until its ends leave room for all) are
  /// spread evenly, so that inserting at one place again and again costs
  /// O(log n) a time, not a renumbering of the block.
  void notifyOperationInserted(Operation *op, OpBuilder::InsertPoint) override {
    Block *block = op->getBlock();
    if (!block || !tracked.contains(block))
      return; // (a body being built)
    for (int64_t window = 1;; window *= 2) {
      Operation *first = op, *last = op;
      int64_t count = 1;
      for (int64_t i = 0; i < window && first->getPrevNode(); ++i, ++count)
        first = first->getPrevNode();
      for (int64_t i = 0; i < window && last->getNextNode(); ++i, ++count)
        last = last->getNextNode();
      // Exclusive bounds: the numbers just outside the window.
      std::optional<int64_t> lo = first->getPrevNode() ? of(first->getPrevNode())
                                                       : std::optional<int64_t>(INT64_MIN / 4);
      std::optional<int64_t> hi = last->getNextNode() ? of(last->getNextNode())
                                                      : std::optional<int64_t>(INT64_MAX / 4);
      if (!first->getPrevNode() && !last->getNextNode())
        return number(block);
      if (!lo || !hi)
        continue;
      if (*hi - *lo <= count)
        continue;
      // Room: the window's ops spread evenly (at most kStep apart at the ends).
      int64_t step = std::min<int64_t>(kStep, (*hi - *lo) / (count + 1));
      int64_t start = !first->getPrevNode() ? *hi - step * (count + 1) : *lo;
      int64_t i = 0;
      for (Operation *it = first;; it = it->getNextNode()) {
        position[it] = start + (++i) * step;
        if (it == last)
          break;
      }
      return;
    }
  }
  void notifyOperationErased(Operation *op) override { position.erase(op); }
};

/// A transpose of the only use of a parallel linalg.generic (the patches a
/// filter gradient reads, permuted to [C*KH*KW, N, OH*OW]; an elementwise
/// result returned transposed) becomes a generic itself, so that the
/// elementwise fusion above inlines the producer into it: the producer then
/// writes the transposed layout directly instead of materializing a tensor
/// that a second pass copies (the 9.4 MB patches of a ResNet block's filter
/// gradient).
struct GeneralizeTransposeOfGeneric : OpRewritePattern<linalg::TransposeOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(linalg::TransposeOp op,
                                PatternRewriter &rewriter) const override {
    auto producer = op.getInput().getDefiningOp<linalg::GenericOp>();
    if (!producer || producer->getNumResults() != 1 || !op.getInput().hasOneUse() ||
        producer.getNumParallelLoops() != producer.getNumLoops() || !op.hasPureTensorSemantics())
      return failure();
    return linalg::generalizeNamedOp(rewriter, op);
  }
};

/// The fewest elements a contraction's innermost output dimension (the
/// register tile's columns: one 512-bit vector of f32) may be left with by a
/// reshape fused into it.
constexpr int64_t kMinContractionColumns = 16;

/// Whether fusing the reshape at `fused` into a contraction (a sum of
/// products, linalg::isaContractionOpInterface) by expansion leaves the
/// innermost dimension of what the contraction computes at least
/// kMinContractionColumns wide, or as wide as it was. LeNet's dense input gradient dz @ w^T (64x120 @ 120x400) took the
/// pooling gradient's reshape to 64x16x5x1x5x1: a contraction with columns
/// of one element (scalar code), 4% of the step.
static bool keepsContractionColumns(OpOperand *fused) {
  auto contraction = [](Operation *op) {
    auto linalgOp = dyn_cast_or_null<linalg::LinalgOp>(op);
    return linalgOp && linalg::isaContractionOpInterface(linalgOp);
  };
  auto narrows = [](ShapedType before, ShapedType after) {
    if (before.getRank() == 0 || after.getRank() == 0)
      return false;
    int64_t was = before.getShape().back(), now = after.getShape().back();
    return now < was && now < kMinContractionColumns;
  };
  // The contraction's result reshaped (expanded) by its consumer.
  if (auto expand = dyn_cast<tensor::ExpandShapeOp>(fused->getOwner()))
    if (contraction(fused->get().getDefiningOp()))
      return !narrows(expand.getSrcType(), expand.getResultType());
  // An operand of the contraction that is a collapse of a finer shape.
  if (auto collapse = fused->get().getDefiningOp<tensor::CollapseShapeOp>())
    if (contraction(fused->getOwner()))
      return !narrows(collapse.getResultType(), collapse.getSrcType());
  return true;
}

/// Sweeps of the fusion patterns before relax-fuse-elementwise gives up.
constexpr int64_t kMaxSweeps = 64;

struct FuseElementwisePass
    : relax::impl::FuseElementwisePassBase<FuseElementwisePass> {
  void runOnOperation() override {
    MLIRContext *ctx = &getContext();
    OpOrder order;
    getOperation()->walk([&](func::FuncOp fn) {
      for (Block &block : fn.getBody())
        order.number(&block);
    });
    auto isBefore = [&order](Operation *a, Operation *b) { return order.isBefore(a, b); };
    auto control = [isBefore](OpOperand *fused) {
      return relax::fusionKeepsBodySmall(fused) && relax::fusionDuplicatesNoWork(fused) &&
             relax::fusionKeepsPeakMemory(fused, isBefore);
    };
    RewritePatternSet patterns(ctx);
    // An accumulation `g = ((d1 + d2) + d3) + ...` whose terms are computed in
    // between (a shared weight's gradient) stays a chain of adds: fused into
    // one op at the end, it would hold every term until then.
    linalg::populateElementwiseOpsFusionPatterns(patterns, control);
    patterns.add<DropRepeatedReductionLoops>(ctx);
    patterns.add<FuseBroadcastIntoReduction>(ctx, control);
    patterns.add<GeneralizeTransposeOfGeneric>(ctx);
    linalg::populateFoldReshapeOpsByExpansionPatterns(patterns, [](OpOperand *fused) {
      return relax::fusionDuplicatesNoWork(fused) && keepsContractionColumns(fused);
    });
    affine::AffineApplyOp::getCanonicalizationPatterns(patterns, ctx);
    linalg::GenericOp::getCanonicalizationPatterns(patterns, ctx);
    tensor::ExpandShapeOp::getCanonicalizationPatterns(patterns, ctx);
    tensor::CollapseShapeOp::getCanonicalizationPatterns(patterns, ctx);
    ctx->getLoadedDialect<linalg::LinalgDialect>()->getCanonicalizationPatterns(patterns);
    linalg::populateConstantFoldLinalgOperations(patterns, relax::fusionDuplicatesNoWork);
    GreedyRewriteConfig config;
    config.setListener(&order);
    // Each sweep fuses one more level of a chain whose ops fold on constants
    // (a hash of constant counters: random numbers took 11 to 20 sweeps);
    // the default of 10 stopped there and failed the pass without a word.
    config.setMaxIterations(kMaxSweeps);
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns), config))) {
      getOperation()->emitError() << "relax-fuse-elementwise did not reach a fixed point in "
                                  << kMaxSweeps << " sweeps";
      signalPassFailure();
    }
  }
};
} // namespace
