//===- Tile.cpp - relax-cpu-tile ------------------------------------------===//
//
// relax-cpu-tile (tensors): each linalg op tiled as its #relax_cpu.tiles says
// (relax-cpu-select-tiles chose, relax-cpu-pack made the copies): register
// tiles with the output fill and the elementwise consumer fused, cache
// blocks, partial dot products, partial tiles peeled.
//
//===----------------------------------------------------------------------===//

#include "TilePlan.h"
#include "relax-mlir/CodeGen/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/Transforms/TileUsingInterface.h"
#include "mlir/Dialect/SCF/Transforms/Transforms.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"
#include "llvm/ADT/DenseSet.h"

namespace mlir::relax {
#define GEN_PASS_DEF_CPUTILEPASS
#include "relax-mlir/CodeGen/Passes.h.inc"
} // namespace mlir::relax

using namespace mlir;
using namespace mlir::relax;
using namespace mlir::relax::cpu;

//===----------------------------------------------------------------------===//
// relax-cpu-tile
//===----------------------------------------------------------------------===//

/// Constant bounds of a loop (step > 0).
struct StaticBounds {
  int64_t lb, ub, step;
};
static std::optional<StaticBounds> staticBounds(scf::ForOp loop) {
  std::optional<int64_t> lb = getConstantIntValue(loop.getLowerBound());
  std::optional<int64_t> ub = getConstantIntValue(loop.getUpperBound());
  std::optional<int64_t> step = getConstantIntValue(loop.getStep());
  if (!lb || !ub || !step || *step <= 0)
    return std::nullopt;
  return StaticBounds{*lb, *ub, *step};
}

/// Peels every loop of `loops` (innermost first) whose step does not divide
/// its trip, so that the main loop's tiles all have the full static size.
static void peelPartialTiles(RewriterBase &rewriter, ArrayRef<LoopLikeOpInterface> loops) {
  for (LoopLikeOpInterface loop : llvm::reverse(loops)) {
    auto forOp = dyn_cast<scf::ForOp>(loop.getOperation());
    if (!forOp)
      continue;
    std::optional<StaticBounds> bounds = staticBounds(forOp);
    if (!bounds || (bounds->ub - bounds->lb) % bounds->step == 0)
      continue;
    scf::ForOp partial;
    (void)scf::peelForLoopAndSimplifyBounds(rewriter, forOp, partial);
  }
}

static std::optional<int64_t> tripCount(scf::ForOp loop) {
  std::optional<StaticBounds> bounds = staticBounds(loop);
  if (!bounds)
    return std::nullopt;
  return llvm::divideCeil(bounds->ub - bounds->lb, bounds->step);
}

/// Marks the outermost of `loops` (tiling parallel dims of an op of `work`
/// iterations) with at least `threads` iterations as parallel.
static void markParallel(ArrayRef<LoopLikeOpInterface> loops, int64_t work, int64_t threads,
                         int64_t minWork) {
  if (threads <= 1 || work < minWork)
    return;
  for (LoopLikeOpInterface loop : loops) {
    auto forOp = dyn_cast<scf::ForOp>(loop.getOperation());
    if (!forOp)
      return;
    if (tripCount(forOp).value_or(0) >= threads) {
      forOp->setAttr(relax::kParallelLoopAttr, UnitAttr::get(forOp->getContext()));
      return;
    }
  }
}

static SmallVector<OpFoldResult> asIndexAttrs(MLIRContext *ctx, ArrayRef<int64_t> sizes) {
  return getAsIndexOpFoldResult(ctx, sizes);
}

/// `op` tiled by `sizes` at the op (no fusion; the caller replaces it).
static FailureOr<scf::SCFTilingResult> tileBy(RewriterBase &rewriter, Operation *op,
                                              ArrayRef<int64_t> sizes) {
  scf::SCFTilingOptions tiling;
  tiling.setTileSizes(asIndexAttrs(op->getContext(), sizes));
  rewriter.setInsertionPoint(op);
  return scf::tileUsingSCF(rewriter, cast<TilingInterface>(op), tiling);
}

/// Tile sizes with the loops that a tile would cover whole set to 0 (no loop).
static SmallVector<int64_t> dropWholeTiles(ArrayRef<int64_t> sizes, ArrayRef<int64_t> ranges) {
  SmallVector<int64_t> result(sizes);
  for (auto [size, range] : llvm::zip(result, ranges))
    if (!ShapedType::isDynamic(range) && size >= range)
      size = 0;
  return result;
}

/// Tiles `root` by `sizes`, its tile loops in `order`, fusing into the tile
/// the fills it reads and `alsoFuse`; the tiled values replace root's uses.
static FailureOr<scf::SCFTileAndFuseResult>
tileAndFuseFills(RewriterBase &rewriter, Operation *root, ArrayRef<int64_t> sizes,
                 ArrayRef<int64_t> order, Operation *alsoFuse = nullptr) {
  scf::SCFTilingOptions tiling;
  tiling.setTileSizes(asIndexAttrs(root->getContext(), sizes));
  tiling.setInterchange(order);
  scf::SCFTileAndFuseOptions options;
  options.setTilingOptions(tiling);
  options.setFusionControlFn(
      [alsoFuse](tensor::ExtractSliceOp, OpResult producer,
                 bool) -> std::optional<scf::SCFTileAndFuseOptions::ControlFnResult> {
        Operation *owner = producer.getOwner();
        if (isa<linalg::FillOp>(owner) || owner == alsoFuse)
          return scf::SCFTileAndFuseOptions::ControlFnResult{};
        return std::nullopt;
      });
  rewriter.setInsertionPoint(root);
  FailureOr<scf::SCFTileAndFuseResult> result =
      scf::tileConsumerAndFuseProducersUsingSCF(rewriter, cast<TilingInterface>(root), options);
  if (succeeded(result))
    for (auto [original, replacement] : result->replacements)
      rewriter.replaceAllUsesWith(original, replacement);
  return result;
}

namespace {
struct CPUTilePass : relax::impl::CPUTilePassBase<CPUTilePass> {
  using CPUTilePassBase::CPUTilePassBase;

  void runOnOperation() override {
    IRRewriter rewriter(&getContext());
    llvm::DenseSet<Operation *> tiled;
    bool unpacked = false;
    getOperation().walk([&](linalg::LinalgOp op) {
      if (TilesAttr tiles = getTiles(op); tiles && tiles.getPack() != Packing::none) {
        op->emitOpError() << "asks for a copy first (pack = " << stringifyPacking(tiles.getPack())
                          << "): run relax-cpu-pack before relax-cpu-tile";
        unpacked = true;
      }
    });
    if (unpacked)
      return signalPassFailure();
    // The ops to tile are those that have tiles now: the copies of them
    // that tiling makes (tiles, peeled remainders) keep the attribute and
    // are not tiled again; an op erased on the way (a fill or an elementwise
    // consumer fused into a contraction's tile) is skipped.
    SmallVector<std::pair<linalg::LinalgOp, TilesAttr>> contractions, others;
    getOperation().walk([&](linalg::LinalgOp op) {
      if (TilesAttr tiles = getTiles(op))
        (tiles.getContraction() ? contractions : others).push_back({op, tiles});
    });
    struct ErasedOps : RewriterBase::Listener {
      llvm::DenseSet<Operation *> ops;
      void notifyOperationErased(Operation *op) override { ops.insert(op); }
    } erased;
    rewriter.setListener(&erased);
    // Contractions first: each takes the fill of its output (and its
    // elementwise consumer) into its tile.
    for (auto [op, tiles] : contractions) {
      if (tiles.getSplitK())
        tileSplitK(rewriter, op, tiles, tiled);
      else
        tileContraction(rewriter, op, tiles, tiled);
    }
    for (auto [op, tiles] : others)
      if (!erased.ops.contains(op) && !tiled.contains(op))
        tileOne(rewriter, op, tiles, tiled);
    rewriter.setListener(nullptr);
  }

  /// Contraction `op` tiled as `tiles` says: cache blocks of the reduction
  /// (`cache_block`), the register tile (`outer`, the output's fill and
  /// elementwise consumer fused), then its reduction steps (`inner`), summed
  /// in blocks (see accumulateInBlocks).
  void tileContraction(IRRewriter &rewriter, linalg::LinalgOp op, TilesAttr tiles,
                       llvm::DenseSet<Operation *> &tiled) {
    SmallVector<int64_t> blocks = dropWholeTiles(tiles.getCacheBlock(), op.getStaticLoopRanges());
    bool cacheBlocked = llvm::any_of(blocks, [](int64_t s) { return s != 0; });
    if (cacheBlocked)
      op = tileCacheBlocks(rewriter, op, blocks);
    SmallVector<int64_t> ranges = op.getStaticLoopRanges();
    SmallVector<int64_t> outer = dropWholeTiles(tiles.getOuter(), ranges);
    Operation *tiledOp = op;
    SmallVector<LoopLikeOpInterface> loops;
    if (llvm::any_of(outer, [](int64_t s) { return s != 0; })) {
      tiledOp = tileRegisters(rewriter, op, outer, cacheBlocked, tiled, loops);
      if (!tiledOp)
        return;
    }
    tiled.insert(tiledOp);
    SmallVector<int64_t> inner = dropWholeTiles(tiles.getInner(), ranges);
    for (Operation *block : accumulateInBlocks(rewriter, cast<linalg::LinalgOp>(tiledOp),
                                               cacheBlocked, tiled)) {
      if (!llvm::any_of(inner, [](int64_t s) { return s != 0; }))
        break;
      tileWhole(rewriter, cast<linalg::LinalgOp>(block),
                dropWholeTiles(inner, cast<linalg::LinalgOp>(block).getStaticLoopRanges()),
                tiled);
    }
    peelPartialTiles(rewriter, loops);
  }

  /// `op` tiled by `sizes` (no fusion, nothing peeled), its tiles in `tiled`.
  static void tileWhole(IRRewriter &rewriter, linalg::LinalgOp op, ArrayRef<int64_t> sizes,
                        llvm::DenseSet<Operation *> &tiled) {
    FailureOr<scf::SCFTilingResult> result = tileBy(rewriter, op, sizes);
    if (failed(result))
      return;
    rewriter.replaceOp(op, result->replacements);
    for (Operation *t : result->tiledOps)
      tiled.insert(t);
  }

  /// Cache blocks of the reduction: the register tiles of one block read a
  /// `kc` x cols panel of the rhs that stays in cache across the row tiles.
  /// Returns the block's op (`op` when it could not be tiled).
  static linalg::LinalgOp tileCacheBlocks(IRRewriter &rewriter, linalg::LinalgOp op,
                                          ArrayRef<int64_t> blocks) {
    FailureOr<scf::SCFTilingResult> blocked = tileBy(rewriter, op, blocks);
    if (failed(blocked) || blocked->tiledOps.size() != 1)
      return op;
    rewriter.replaceOp(op, blocked->replacements);
    return cast<linalg::LinalgOp>(blocked->tiledOps.front());
  }

  /// The order of contraction `op`'s register tile loops. Column tiles
  /// outside the row tiles: a panel of the rhs stays in cache while the row
  /// tiles stream past it. Further out, the other loops that select the rhs
  /// panel (a batch, the panel index): the rhs of one batch element is then
  /// read while it is in cache (with the batch innermost, a convolution's
  /// patches were evicted between row tiles).
  static SmallVector<int64_t> tileLoopOrder(linalg::LinalgOp op) {
    AffineMap outMap = op.getMatchingIndexingMap(op.getDpsInitOperand(0));
    SmallVector<int64_t> order;
    std::optional<unsigned> colDim = innermostDim(outMap);
    auto readsPanel = [&](unsigned dim) {
      return colDim && llvm::any_of(op.getDpsInputOperands(), [&](OpOperand *input) {
               AffineMap map = op.getMatchingIndexingMap(input);
               return map.isFunctionOfDim(*colDim) && map.isFunctionOfDim(dim);
             });
    };
    for (AffineExpr e : outMap.getResults())
      if (auto d = dyn_cast<AffineDimExpr>(e);
          d && d.getPosition() != colDim && readsPanel(d.getPosition()))
        order.push_back(d.getPosition());
    for (AffineExpr e : llvm::reverse(outMap.getResults()))
      if (auto d = dyn_cast<AffineDimExpr>(e); d && !llvm::is_contained(order, d.getPosition()))
        order.push_back(d.getPosition());
    for (unsigned d = 0; d < op.getNumLoops(); ++d)
      if (!llvm::is_contained(order, d))
        order.push_back(d);
    return order;
  }

  /// The register tiles (`outer`) of contraction `op`, its output's fill
  /// fused. An elementwise consumer (bias add, activation) becomes the root
  /// of the tile loops, the contraction fused into it: each register tile
  /// goes through the consumer's body while it is in registers, and the
  /// contraction's own output is never stored (not with cache blocks, whose
  /// loop needs the whole output). Returns the tiled contraction (null when
  /// tiling failed) and its tile loops in `loops`.
  Operation *tileRegisters(IRRewriter &rewriter, linalg::LinalgOp op, ArrayRef<int64_t> outer,
                           bool cacheBlocked, llvm::DenseSet<Operation *> &tiled,
                           SmallVector<LoopLikeOpInterface> &loops) {
    SmallVector<int64_t> order = tileLoopOrder(op);
    linalg::GenericOp epilogue = cacheBlocked ? nullptr : epilogueOf(op);
    Operation *root = op;
    SmallVector<int64_t> rootSizes(outer), rootOrder(order);
    if (epilogue && mapToEpilogue(op, epilogue, outer, order, rootSizes, rootOrder))
      root = epilogue;
    FailureOr<scf::SCFTileAndFuseResult> result = tileAndFuseFills(
        rewriter, root, rootSizes, rootOrder, root == op ? nullptr : op.getOperation());
    if (failed(result))
      return nullptr;
    Operation *tiledOp = result->tiledAndFusedOps.front();
    for (Operation *fused : result->tiledAndFusedOps) {
      tiled.insert(fused);
      // (With an epilogue root, the tiled contraction is the fused op that
      // has reduction loops.)
      if (auto linalgOp = dyn_cast<linalg::LinalgOp>(fused);
          root != op && linalgOp && linalgOp.getNumReductionLoops() > 0)
        tiledOp = fused;
    }
    loops.assign(result->loops.begin(), result->loops.end());
    markParallel(loops, iterations(op.getStaticLoopRanges()), numThreads, parallelMinWork);
    if (root != op)
      eraseIfDead(rewriter, root);
    eraseIfDead(rewriter, op);
    return tiledOp;
  }

  /// The float register tile `op` of a contraction whose single reduction is
  /// longer than kAccumulateBlock, or is one cache block of a longer one
  /// (`blockOfLonger`: its output tile starts from the previous blocks' sum),
  /// sums each block of at most kAccumulateBlock steps from zero and adds that
  /// to its output tile (`acc += block`, a generic after it). Longer
  /// reductions get a loop over the blocks (equal ones when they can be, else
  /// the last, partial one peeled).
  /// Returns the ops that run the blocks' reduction steps.
  SmallVector<Operation *> accumulateInBlocks(IRRewriter &rewriter, linalg::LinalgOp op,
                                              bool blockOfLonger,
                                              llvm::DenseSet<Operation *> &tiled) {
    std::optional<unsigned> k = reductionDim(op);
    auto outType = dyn_cast<RankedTensorType>(op.getDpsInitOperand(0)->get().getType());
    if (!k || op->getNumResults() != 1 || !outType || !isa<FloatType>(outType.getElementType()))
      return {op};
    int64_t range = op.getStaticLoopRanges()[*k];
    if (range <= kAccumulateBlock && !blockOfLonger)
      return {op};
    scf::ForOp blockLoop;
    if (range > kAccumulateBlock) {
      // Equal blocks when up to twice the fewest blocks divide the range
      // (784 = 4 x 196): no partial block, whose peeled copy of the loop
      // body costs compile time.
      int64_t fewest = llvm::divideCeil(range, kAccumulateBlock), block = kAccumulateBlock;
      for (int64_t count = fewest; count <= 2 * fewest; ++count)
        if (range % count == 0) {
          block = range / count;
          break;
        }
      SmallVector<int64_t> sizes(op.getNumLoops(), 0);
      sizes[*k] = block;
      FailureOr<scf::SCFTilingResult> result = tileBy(rewriter, op, sizes);
      if (failed(result) || result->tiledOps.size() != 1 || result->loops.size() != 1)
        return {op};
      rewriter.replaceOp(op, result->replacements);
      op = cast<linalg::LinalgOp>(result->tiledOps.front());
      blockLoop = dyn_cast<scf::ForOp>(result->loops.front().getOperation());
      tiled.insert(op);
    }
    // acc += (the block's products summed from zero).
    Location loc = op.getLoc();
    OpOperand *init = op.getDpsInitOperand(0);
    Value acc = init->get();
    auto type = cast<RankedTensorType>(acc.getType());
    Type element = type.getElementType();
    rewriter.setInsertionPoint(op);
    Value zero = arith::ConstantOp::create(rewriter, loc, cast<TypedAttr>(rewriter.getZeroAttr(element)));
    Value empty =
        tensor::EmptyOp::create(rewriter, loc, tensor::getMixedSizes(rewriter, loc, acc), element);
    auto fill = linalg::FillOp::create(rewriter, loc, zero, empty);
    rewriter.modifyOpInPlace(op, [&] { init->set(fill.getResult(0)); });
    rewriter.setInsertionPointAfter(op);
    AffineMap id = rewriter.getMultiDimIdentityMap(type.getRank());
    auto add = linalg::GenericOp::create(
        rewriter, loc, TypeRange{type}, ValueRange{op->getResult(0)}, ValueRange{acc},
        ArrayRef<AffineMap>{id, id},
        SmallVector<utils::IteratorType>(type.getRank(), utils::IteratorType::parallel),
        [](OpBuilder &b, Location l, ValueRange args) {
          linalg::YieldOp::create(b, l, arith::AddFOp::create(b, l, args[1], args[0]).getResult());
        });
    rewriter.replaceAllUsesExcept(op->getResult(0), add.getResult(0), add);
    tiled.insert(fill);
    tiled.insert(add);
    SmallVector<Operation *> blocks{op};
    if (blockLoop) {
      std::optional<StaticBounds> bounds = staticBounds(blockLoop);
      scf::ForOp partial;
      if (bounds && (bounds->ub - bounds->lb) % bounds->step != 0 &&
          succeeded(scf::peelForLoopAndSimplifyBounds(rewriter, blockLoop, partial)))
        partial.walk([&](linalg::LinalgOp cloned) {
          tiled.insert(cloned);
          if (cloned.getNumReductionLoops() > 0)
            blocks.push_back(cloned);
        });
    }
    return blocks;
  }

  /// The elementwise op that alone consumes contraction `op`'s result, if it
  /// can take the contraction into its tiles: all its loops parallel, one
  /// per dimension of the result, which it reads through a permutation.
  static linalg::GenericOp epilogueOf(linalg::LinalgOp op) {
    if (op->getNumResults() != 1 || !op->getResult(0).hasOneUse())
      return nullptr;
    OpOperand &use = *op->getResult(0).getUses().begin();
    auto consumer = dyn_cast<linalg::GenericOp>(use.getOwner());
    if (!consumer || consumer->getBlock() != op->getBlock() ||
        !consumer.hasPureTensorSemantics() ||
        consumer.getNumParallelLoops() != consumer.getNumLoops() ||
        consumer.getNumLoops() != op.getRank(op.getDpsInitOperand(0)) ||
        !consumer.isDpsInput(&use) || !consumer.getMatchingIndexingMap(&use).isPermutation() ||
        consumer.hasIndexSemantics() || hasBooleanOperand(consumer))
      return nullptr;
    // A body with several transcendental functions (the gradient of gelu:
    // erf and exp) evaluated over a whole register tile at once spills: the
    // transformer step ran 8% slower with it fused.
    int64_t transcendental = 0;
    consumer.getBody()->walk([&](Operation *inner) {
      if (isa<math::MathDialect>(inner->getDialect()) &&
          !isa<math::FmaOp, math::AbsFOp, math::CopySignOp>(inner))
        ++transcendental;
    });
    if (transcendental > kEpilogueMaxTranscendental)
      return nullptr;
    // (The tile loops replace the consumer, where all its operands and the
    // contraction's exist.)
    return consumer;
  }

  /// Tile sizes and loop order of `epilogue` (see epilogueOf) that give
  /// contraction `op` the tiles `sizes` in the loop order `order`.
  static bool mapToEpilogue(linalg::LinalgOp op, linalg::GenericOp epilogue,
                            ArrayRef<int64_t> sizes, ArrayRef<int64_t> order,
                            SmallVector<int64_t> &epilogueSizes,
                            SmallVector<int64_t> &epilogueOrder) {
    AffineMap out = op.getMatchingIndexingMap(op.getDpsInitOperand(0));
    OpOperand &use = *op->getResult(0).getUses().begin();
    AffineMap read = epilogue.getMatchingIndexingMap(&use);
    if (!out.isProjectedPermutation())
      return false;
    // Contraction loop -> epilogue loop, through the result's dimensions.
    llvm::DenseMap<unsigned, unsigned> loopOf;
    for (unsigned t = 0; t < out.getNumResults(); ++t)
      loopOf[out.getDimPosition(t)] = read.getDimPosition(t);
    epilogueSizes.assign(epilogue.getNumLoops(), 0);
    epilogueOrder.clear();
    for (unsigned d = 0; d < sizes.size(); ++d) {
      auto it = loopOf.find(d);
      if (it == loopOf.end()) {
        if (sizes[d] != 0)
          return false; // a tiled reduction loop: the output is not whole
        continue;
      }
      epilogueSizes[it->second] = sizes[d];
    }
    for (int64_t d : order)
      if (auto it = loopOf.find(d); it != loopOf.end())
        epilogueOrder.push_back(it->second);
    return epilogueOrder.size() == epilogue.getNumLoops();
  }

  /// `out += a @ b^T` (both inputs contiguous along k, the output's columns
  /// strided in b) as partial dot products: upstream's split reduction with
  /// the new loop kv innermost and parallel, p[..., kv] = sum over k/kv
  /// steps of fma(a[.., ko, kv], b[.., ko, kv]), then out = out + sum_kv p.
  /// The sum is the root of the tile: each tile of `rows` outputs fuses its
  /// slice of p (and the fills), so p is a rows x kv register tile that never
  /// reaches memory; each step of the ko loop is one load of a, `rows` loads
  /// of b and `rows` vector FMAs.
  void tileSplitK(IRRewriter &rewriter, linalg::LinalgOp op, TilesAttr tiles,
                  llvm::DenseSet<Operation *> &tiled) {
    SmallVector<int64_t> ranges = op.getStaticLoopRanges();
    AffineMap outMap = op.getMatchingIndexingMap(op.getDpsInitOperand(0));
    unsigned rank = outMap.getNumResults();
    unsigned kDim = *reductionDim(op);
    rewriter.setInsertionPoint(op);
    FailureOr<linalg::SplitReductionResult> split =
        linalg::splitReduction(rewriter, op, [&](linalg::LinalgOp) {
          return linalg::SplitReductionOptions{tiles.getSplitK(), rank, /*innerParallel=*/true};
        });
    if (failed(split))
      return;
    fuseMultiplyAdd(rewriter, split->splitLinalgOp);
    // Tile the sum: one output row segment of `rows` columns per tile, the
    // columns outermost (a panel of b stays in cache while the rows stream).
    SmallVector<int64_t> sizes(rank + 1, 1);
    sizes[rank] = 0;
    sizes[rank - 1] = tiles.getOuter()[*innermostDim(outMap)];
    if (rank >= 2)
      if (auto rowExpr = dyn_cast<AffineDimExpr>(outMap.getResult(rank - 2)))
        sizes[rank - 2] = tiles.getOuter()[rowExpr.getPosition()];
    SmallVector<int64_t> sumRanges = split->resultCombiningLinalgOp.getStaticLoopRanges();
    SmallVector<int64_t> order;
    for (int64_t d = rank - 1; d >= 0; --d)
      order.push_back(d);
    order.push_back(rank);
    Operation *sum = split->resultCombiningLinalgOp, *partial = split->splitLinalgOp;
    FailureOr<scf::SCFTileAndFuseResult> result =
        tileAndFuseFills(rewriter, sum, dropWholeTiles(sizes, sumRanges), order, partial);
    if (failed(result))
      return;
    SmallVector<LoopLikeOpInterface> loops(result->loops.begin(), result->loops.end());
    markParallel(loops, iterations(ranges), numThreads, parallelMinWork);
    linalg::GenericOp partialTile;
    for (Operation *t : result->tiledAndFusedOps) {
      tiled.insert(t);
      if (auto generic = dyn_cast<linalg::GenericOp>(t))
        if (!generic.getBody()->getOps<math::FmaOp>().empty())
          partialTile = generic;
    }
    for (Operation *dead : {sum, partial, split->fillOp.getOperation()})
      if (dead->use_empty())
        rewriter.eraseOp(dead);
    if (partialTile)
      stepWithoutUnitLoop(rewriter, partialTile, kDim, tiled);
    peelPartialTiles(rewriter, loops);
  }

  /// The body of `op` (the split of `a @ b^T`: out + a * b) as one
  /// math.fma(a, b, out), as the register tile's vector FMA.
  static void fuseMultiplyAdd(RewriterBase &rewriter, linalg::LinalgOp op) {
    Block *body = op.getBlock();
    auto yield = cast<linalg::YieldOp>(body->getTerminator());
    auto add = yield.getOperand(0).getDefiningOp<arith::AddFOp>();
    if (!add)
      return;
    Value acc = add.getLhs(), product = add.getRhs();
    if (!product.getDefiningOp<arith::MulFOp>())
      std::swap(acc, product);
    auto mul = product.getDefiningOp<arith::MulFOp>();
    if (!mul)
      return;
    rewriter.setInsertionPoint(add);
    Value fma = math::FmaOp::create(rewriter, add.getLoc(), mul.getLhs(), mul.getRhs(), acc);
    rewriter.replaceOp(add, fma);
    if (mul->use_empty())
      rewriter.eraseOp(mul);
  }

  /// The partial dot products' tile, one ko step per iteration; the unit ko
  /// loop then leaves the tile, which becomes an elementwise fma of the
  /// register tile.
  static void stepWithoutUnitLoop(IRRewriter &rewriter, linalg::GenericOp partialTile,
                                  unsigned kDim, llvm::DenseSet<Operation *> &tiled) {
    SmallVector<int64_t> inner(partialTile.getNumLoops(), 0);
    inner[kDim] = 1;
    FailureOr<scf::SCFTilingResult> steps = tileBy(rewriter, partialTile, inner);
    if (failed(steps))
      return;
    rewriter.replaceOp(partialTile, steps->replacements);
    for (Operation *t : steps->tiledOps) {
      tiled.insert(t);
      auto step = dyn_cast<linalg::GenericOp>(t);
      if (!step)
        continue;
      linalg::ControlDropUnitDims drop;
      drop.controlFn = [kDim](Operation *) { return SmallVector<unsigned>{kDim}; };
      rewriter.setInsertionPoint(step);
      FailureOr<linalg::DropUnitDimsResult> dropped = linalg::dropUnitDims(rewriter, step, drop);
      if (succeeded(dropped)) {
        rewriter.replaceOp(step, dropped->replacements);
        tiled.insert(dropped->resultOp);
      }
    }
  }

  /// `op` (not a contraction) tiled by `outer`; its outermost parallel tile
  /// loops may run on threads.
  void tileOne(IRRewriter &rewriter, linalg::LinalgOp op, TilesAttr tiles,
               llvm::DenseSet<Operation *> &tiled) {
    SmallVector<int64_t> sizes = dropWholeTiles(tiles.getOuter(), op.getStaticLoopRanges());
    if (llvm::all_of(sizes, [](int64_t s) { return s == 0; }))
      return;
    FailureOr<scf::SCFTilingResult> result = tileBy(rewriter, op, sizes);
    if (failed(result))
      return;
    // Only loops over parallel dims may run concurrently: a tiled reduction
    // loop carries its accumulator.
    SmallVector<LoopLikeOpInterface> parallelLoops;
    {
      auto iterators = op.getIteratorTypesArray();
      unsigned next = 0;
      for (auto [d, size] : llvm::enumerate(sizes)) {
        if (size == 0)
          continue;
        if (next >= result->loops.size() || !linalg::isParallelIterator(iterators[d]))
          break;
        parallelLoops.push_back(result->loops[next++]);
      }
    }
    markParallel(parallelLoops, iterations(op.getStaticLoopRanges()), numThreads,
                 parallelMinWork);
    rewriter.replaceOp(op, result->replacements);
    for (Operation *t : result->tiledOps)
      tiled.insert(t);
    SmallVector<LoopLikeOpInterface> loops(result->loops.begin(), result->loops.end());
    peelPartialTiles(rewriter, loops);
  }

  /// Erases `op` and then its producers' fills when nothing uses them.
  static void eraseIfDead(RewriterBase &rewriter, Operation *op) {
    if (!op->use_empty())
      return;
    SmallVector<Operation *> producers;
    for (Value operand : op->getOperands())
      if (Operation *def = operand.getDefiningOp(); def && isa<linalg::FillOp>(def))
        producers.push_back(def);
    rewriter.eraseOp(op);
    for (Operation *def : producers)
      if (def->use_empty())
        rewriter.eraseOp(def);
  }
};
} // namespace
