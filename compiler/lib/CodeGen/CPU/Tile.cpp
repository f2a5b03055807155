//===- Tile.cpp - relax-cpu-tile ------------------------------------------===//
//
// relax-cpu-tile (tensors): register tiles from planCPUTiles, the output fill
// fused, partial tiles peeled, cache blocks, packed copies.
//
//===----------------------------------------------------------------------===//

#include "TilePlan.h"
#include "relax-mlir/CodeGen/Passes.h"
#include "relax-mlir/Conversion/ConvPatches.h"

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

/// Tile sizes with the loops that a tile would cover whole set to 0 (no loop).
static SmallVector<int64_t> dropWholeTiles(ArrayRef<int64_t> sizes, ArrayRef<int64_t> ranges) {
  SmallVector<int64_t> result(sizes);
  for (auto [size, range] : llvm::zip(result, ranges))
    if (!ShapedType::isDynamic(range) && size >= range)
      size = 0;
  return result;
}

/// The reassociation that splits the last of `rank` dimensions in two (or,
/// read the other way, merges the last two of `rank + 1`).
static SmallVector<ReassociationIndices> splitLastDim(int64_t rank) {
  SmallVector<ReassociationIndices> groups;
  for (int64_t i = 0; i + 1 < rank; ++i)
    groups.push_back({i});
  groups.push_back({rank - 1, rank});
  return groups;
}

/// `v` reshaped to `type` by `groups` (an expand_shape or a collapse_shape),
/// except that a fill of an empty tensor is made again in the new shape, so
/// that it still fuses into a register tile.
/// When `v` is a fill of an empty tensor: the same fill made in `type` (it
/// then fuses into a register tile); else null.
static Value refill(RewriterBase &rewriter, Location loc, Value v, RankedTensorType type) {
  auto fill = v.getDefiningOp<linalg::FillOp>();
  if (!fill || !fill.getOutputs()[0].getDefiningOp<tensor::EmptyOp>())
    return {};
  Value empty = tensor::EmptyOp::create(rewriter, loc, type.getShape(), type.getElementType());
  return linalg::FillOp::create(rewriter, loc, fill.getInputs()[0], empty).getResult(0);
}

static Value reshapeInit(RewriterBase &rewriter, Location loc, Value v, RankedTensorType type,
                         ArrayRef<ReassociationIndices> groups) {
  if (Value filled = refill(rewriter, loc, v, type))
    return filled;
  if (type.getRank() > cast<RankedTensorType>(v.getType()).getRank())
    return tensor::ExpandShapeOp::create(rewriter, loc, type, v, groups);
  return tensor::CollapseShapeOp::create(rewriter, loc, type, v, groups);
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
    MLIRContext *ctx = &getContext();
    CPUTarget target = CPUTarget::host(vectorBits);
    IRRewriter rewriter(ctx);
    llvm::DenseSet<Operation *> tiled;

    // Convolutions as a matrix product of the filter with the im2col
    // matrix of the input (one gather, then the contraction path below).
    SmallVector<linalg::Conv2DNchwFchwOp> convs;
    getOperation().walk([&](linalg::Conv2DNchwFchwOp conv) {
      if (conv.hasPureTensorSemantics() && !cast<linalg::LinalgOp>(conv.getOperation()).hasDynamicShape())
        convs.push_back(conv);
    });
    for (linalg::Conv2DNchwFchwOp conv : convs) {
      rewriter.setInsertionPoint(conv);
      if (failed(im2colRowsContiguous(rewriter, conv)))
        (void)linalg::rewriteInIm2Col(rewriter, conv);
    }

    // Contractions first: each takes the fill of its output into its tile.
    SmallVector<std::pair<linalg::LinalgOp, TilePlan>> contractions;
    getOperation().walk([&](linalg::LinalgOp op) {
      if (std::optional<TilePlan> plan = planCPUTiles(op, target); plan && plan->contraction)
        contractions.push_back({op, *plan});
    });
    for (auto &[op, plan] : contractions) {
      // Packing copies (at most one per input), then the plan of what they
      // made of the op.
      TilePlan current = plan;
      for (int round = 0;
           round < 3 && (current.packColumns || current.panelCols || current.packRows);
           ++round) {
        auto generic = cast<linalg::GenericOp>(op.getOperation());
        AffineMap out = generic.getMatchingIndexingMap(generic.getDpsInitOperand(0));
        if (current.packRows) {
          unsigned colDim = *innermostDim(out);
          std::optional<unsigned> rowDim = outputRowDim(generic, colDim);
          OpOperand *lhs = rowDim ? stridedLhs(generic, colDim, *rowDim) : nullptr;
          if (!lhs)
            break;
          packStrided(rewriter, generic, *reductionDim(generic), lhs);
        } else if (current.panelCols) {
          linalg::GenericOp panels =
              packPanels(rewriter, generic, *innermostDim(out), current.panelCols);
          if (!panels)
            break;
          op = panels;
          expandEpilogue(panels);
        } else {
          packStrided(rewriter, generic, *innermostDim(out));
        }
        std::optional<TilePlan> replanned = planCPUTiles(op, target);
        if (!replanned || !replanned->contraction)
          break;
        current = *replanned;
      }
      // (A copy that could not be made leaves the op as it was: tile it so.)
      if (current.packColumns || current.panelCols || current.packRows) {
        std::optional<TilePlan> plain = planCPUTiles(op, target, /*allowPacking=*/false);
        if (!plain || !plain->contraction)
          continue;
        current = *plain;
      }
      if (current.splitK)
        tileSplitK(rewriter, op, current, tiled);
      else
        tileContraction(rewriter, op, current, tiled);
    }

    SmallVector<std::pair<linalg::LinalgOp, TilePlan>> others;
    getOperation().walk([&](linalg::LinalgOp op) {
      if (tiled.contains(op))
        return;
      if (std::optional<TilePlan> plan = planCPUTiles(op, target))
        others.push_back({op, *plan});
    });
    for (auto &[op, plan] : others)
      tileOne(rewriter, op, plan, tiled);
  }

  void tileContraction(IRRewriter &rewriter, linalg::LinalgOp op, const TilePlan &plan,
                       llvm::DenseSet<Operation *> &tiled) {
    MLIRContext *ctx = op->getContext();
    SmallVector<int64_t> ranges = op.getStaticLoopRanges();
    // Cache blocks of the reduction: the register tiles of one block read a
    // `kc` x cols panel of the rhs that stays in cache across the row tiles.
    SmallVector<int64_t> blocks = dropWholeTiles(plan.cacheBlock, ranges);
    bool cacheBlocked = llvm::any_of(blocks, [](int64_t s) { return s != 0; });
    if (cacheBlocked) {
      scf::SCFTilingOptions blocking;
      blocking.setTileSizes(asIndexAttrs(ctx, blocks));
      rewriter.setInsertionPoint(op);
      FailureOr<scf::SCFTilingResult> blocked =
          scf::tileUsingSCF(rewriter, cast<TilingInterface>(op.getOperation()), blocking);
      if (succeeded(blocked) && blocked->tiledOps.size() == 1) {
        rewriter.replaceOp(op, blocked->replacements);
        op = cast<linalg::LinalgOp>(blocked->tiledOps.front());
        ranges = op.getStaticLoopRanges();
      }
    }
    SmallVector<int64_t> outer = dropWholeTiles(plan.outer, ranges);
    Operation *tiledOp = op;
    SmallVector<LoopLikeOpInterface> loops;
    if (llvm::any_of(outer, [](int64_t s) { return s != 0; })) {
      // Column tiles outside the row tiles: a panel of the rhs stays in cache
      // while the row tiles stream past it. Further out, the other loops
      // that select the rhs panel (a batch, the panel index): the rhs of one
      // batch element is then read while it is in cache (with the batch
      // innermost, a convolution's patches were evicted between row tiles).
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
      // An elementwise consumer (bias add, activation) becomes the root of
      // the tile loops, the contraction fused into it: each register tile
      // goes through the consumer's body while it is in registers, and the
      // contraction's own output is never stored (without cache blocks,
      // whose loop needs the whole output).
      linalg::GenericOp epilogue = cacheBlocked ? nullptr : epilogueOf(op);
      Operation *root = op;
      SmallVector<int64_t> rootSizes(outer), rootOrder(order);
      if (epilogue && mapToEpilogue(op, epilogue, outer, order, rootSizes, rootOrder))
        root = epilogue;
      FailureOr<scf::SCFTileAndFuseResult> result = tileAndFuseFills(
          rewriter, root, rootSizes, rootOrder, root == op ? nullptr : op.getOperation());
      if (failed(result))
        return;
      tiledOp = result->tiledAndFusedOps.front();
      for (Operation *fused : result->tiledAndFusedOps) {
        tiled.insert(fused);
        // (With an epilogue root, the tiled contraction is the fused op
        // that has reduction loops.)
        if (auto linalgOp = dyn_cast<linalg::LinalgOp>(fused);
            root != op && linalgOp && linalgOp.getNumReductionLoops() > 0)
          tiledOp = fused;
      }
      loops.assign(result->loops.begin(), result->loops.end());
      markParallel(loops, iterations(op.getStaticLoopRanges()), numThreads, parallelMinWork);
      if (root != op)
        eraseIfDead(rewriter, root);
      eraseIfDead(rewriter, op);
    }
    tiled.insert(tiledOp);

    SmallVector<int64_t> inner = dropWholeTiles(plan.inner, ranges);
    for (Operation *block : accumulateInBlocks(rewriter, cast<linalg::LinalgOp>(tiledOp),
                                               cacheBlocked, tiled)) {
      if (!llvm::any_of(inner, [](int64_t s) { return s != 0; }))
        break;
      SmallVector<int64_t> blockInner =
          dropWholeTiles(inner, cast<linalg::LinalgOp>(block).getStaticLoopRanges());
      scf::SCFTilingOptions tiling;
      tiling.setTileSizes(asIndexAttrs(ctx, blockInner));
      rewriter.setInsertionPoint(block);
      FailureOr<scf::SCFTilingResult> result =
          scf::tileUsingSCF(rewriter, cast<TilingInterface>(block), tiling);
      if (succeeded(result)) {
        rewriter.replaceOp(block, result->replacements);
        for (Operation *t : result->tiledOps)
          tiled.insert(t);
      }
    }
    peelPartialTiles(rewriter, loops);
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
      scf::SCFTilingOptions tiling;
      tiling.setTileSizes(asIndexAttrs(op->getContext(), sizes));
      rewriter.setInsertionPoint(op);
      FailureOr<scf::SCFTilingResult> result =
          scf::tileUsingSCF(rewriter, cast<TilingInterface>(op.getOperation()), tiling);
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

  /// When the result of `panels` (see packPanels) reaches an elementwise op
  /// only through the collapse back to the unpanelled shape, that op is
  /// rewritten over the panelled shape (upstream's fold of a reshape by
  /// expanding its consumer), so that it can take the contraction into its
  /// tiles (see epilogueOf).
  static void expandEpilogue(linalg::GenericOp panels) {
    Value result = panels->getResult(0);
    if (!result.hasOneUse())
      return;
    auto collapse = dyn_cast<tensor::CollapseShapeOp>(*result.getUsers().begin());
    if (!collapse || !collapse->hasOneUse())
      return;
    auto consumer = dyn_cast<linalg::GenericOp>(*collapse->getUsers().begin());
    if (!consumer || consumer.getNumParallelLoops() != consumer.getNumLoops())
      return;
    MLIRContext *ctx = panels.getContext();
    RewritePatternSet patterns(ctx);
    linalg::populateFoldReshapeOpsByExpansionPatterns(patterns, [&](OpOperand *fused) {
      return fused->getOwner() == consumer.getOperation() && fused->get() == collapse.getResult();
    });
    GreedyRewriteConfig config;
    config.setStrictness(GreedyRewriteStrictness::ExistingOps);
    (void)applyOpPatternsGreedily(ArrayRef<Operation *>{consumer.getOperation()},
                                  std::move(patterns), config);
    if (collapse->use_empty())
      collapse->erase();
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

  /// Below this many output pixels per image, a convolution is one matrix
  /// product over the whole batch: per image, the few columns (a LeNet's
  /// 10x10 output: 100, 6 vectors and a tail) left the register tiles'
  /// loops and the tails most of the time (16 -> 6 channels of 5x5 on 14x14,
  /// batch 64: 3.0 -> 0.9 ms).
  static constexpr int64_t kMergeBatchBelowPixels = 256;

  /// What the convolution-as-product rewrites read of a float
  /// conv_2d_nchw_fchw with static shapes.
  struct ConvShape {
    Value x, w, init;
    RankedTensorType outType;
    Type elt;
    int64_t n, c, f, kh, kw, oh, ow;
    SmallVector<int64_t> strides, dilations;
  };
  static std::optional<ConvShape> convShape(linalg::Conv2DNchwFchwOp conv) {
    ConvShape s;
    s.x = conv.getInputs()[0];
    s.w = conv.getInputs()[1];
    s.init = conv.getOutputs()[0];
    auto xType = cast<RankedTensorType>(s.x.getType());
    auto wType = cast<RankedTensorType>(s.w.getType());
    s.outType = cast<RankedTensorType>(s.init.getType());
    s.elt = s.outType.getElementType();
    if (!isa<FloatType>(s.elt) || xType.getElementType() != s.elt ||
        wType.getElementType() != s.elt || !xType.hasStaticShape() ||
        !wType.hasStaticShape() || !s.outType.hasStaticShape())
      return std::nullopt;
    s.strides = llvm::to_vector(conv.getStrides().getValues<int64_t>());
    s.dilations = llvm::to_vector(conv.getDilations().getValues<int64_t>());
    s.n = xType.getDimSize(0);
    s.c = xType.getDimSize(1);
    s.f = wType.getDimSize(0);
    s.kh = wType.getDimSize(2);
    s.kw = wType.getDimSize(3);
    s.oh = s.outType.getDimSize(2);
    s.ow = s.outType.getDimSize(3);
    return s;
  }

  /// `init + lhs * rhs` as a generic over `iterators` (the last one the
  /// reduction) with `maps` for lhs, rhs and the output: the contraction
  /// the tiling below recognizes.
  static Value multiplyAccumulate(RewriterBase &rewriter, Location loc, Value lhs, Value rhs,
                                  Value init, ArrayRef<AffineMap> maps,
                                  ArrayRef<utils::IteratorType> iterators) {
    return linalg::GenericOp::create(
               rewriter, loc, TypeRange{init.getType()}, ValueRange{lhs, rhs}, ValueRange{init},
               maps, iterators,
               [&](OpBuilder &b, Location l, ValueRange args) {
                 Value mul = arith::MulFOp::create(b, l, args[0], args[1]);
                 linalg::YieldOp::create(b, l,
                                         arith::AddFOp::create(b, l, args[2], mul).getResult());
               })
        .getResult(0);
  }

  /// The filter `[F, C, KH, KW]` viewed as `[F, C*KH*KW]`.
  static Value filterMatrix(RewriterBase &rewriter, Location loc, const ConvShape &s) {
    return tensor::CollapseShapeOp::create(
        rewriter, loc, RankedTensorType::get({s.f, s.c * s.kh * s.kw}, s.elt), s.w,
        SmallVector<ReassociationIndices>{{0}, {1, 2, 3}});
  }

  /// The convolution as one product over the batch: the patches laid out as
  /// `[C, KH, KW, N, OH, OW]` and viewed as `[C*KH*KW, N*OH*OW]`, the filter
  /// `[F, C*KH*KW]` times them into `[F, N*OH*OW]`, then transposed to
  /// `[N, F, OH, OW]` (the output is the smallest of the three).
  static Value mergedBatchProduct(RewriterBase &rewriter, Location loc, const ConvShape &s) {
    MLIRContext *ctx = rewriter.getContext();
    int64_t k = s.c * s.kh * s.kw, cols = s.n * s.oh * s.ow;
    Value patches = relax::buildConvPatches(rewriter, loc, s.x, s.kh, s.kw, s.strides,
                                            s.dilations, s.oh, s.ow, /*batchInner=*/true);
    Value rhs = tensor::CollapseShapeOp::create(
        rewriter, loc, RankedTensorType::get({k, cols}, s.elt), patches,
        SmallVector<ReassociationIndices>{{0, 1, 2}, {3, 4, 5}});
    // The accumulator in the product's layout: a fill again, or the init
    // transposed.
    auto fnType = RankedTensorType::get({s.f, s.n, s.oh, s.ow}, s.elt);
    auto flatType = RankedTensorType::get({s.f, cols}, s.elt);
    SmallVector<ReassociationIndices> flatGroups{{0}, {1, 2, 3}};
    Value acc = refill(rewriter, loc, s.init, flatType);
    if (!acc) {
      Value empty = tensor::EmptyOp::create(rewriter, loc, fnType.getShape(), s.elt);
      Value transposed = linalg::TransposeOp::create(rewriter, loc, s.init, empty,
                                                     ArrayRef<int64_t>{1, 0, 2, 3})
                             ->getResult(0);
      acc = tensor::CollapseShapeOp::create(rewriter, loc, flatType, transposed, flatGroups);
    }
    // out[f, q] += w[f, k] * T[k, q]; loops (f, q, k).
    auto d = [&](unsigned i) { return getAffineDimExpr(i, ctx); };
    Value product = multiplyAccumulate(
        rewriter, loc, filterMatrix(rewriter, loc, s), rhs, acc,
        {AffineMap::get(3, 0, {d(0), d(2)}, ctx), AffineMap::get(3, 0, {d(2), d(1)}, ctx),
         AffineMap::get(3, 0, {d(0), d(1)}, ctx)},
        {utils::IteratorType::parallel, utils::IteratorType::parallel,
         utils::IteratorType::reduction});
    Value byFilter = tensor::ExpandShapeOp::create(rewriter, loc, fnType, product, flatGroups);
    Value empty = tensor::EmptyOp::create(rewriter, loc, s.outType.getShape(), s.elt);
    return linalg::TransposeOp::create(rewriter, loc, byFilter, empty,
                                       ArrayRef<int64_t>{1, 0, 2, 3})
        ->getResult(0);
  }

  /// The convolution as a batch of products, one per image: the patches
  /// `[N, C, KH, KW, OH, OW]` viewed as `[N, C*KH*KW, OH*OW]`, multiplied by
  /// the filter `[F, C*KH*KW]`.
  static Value perImageProduct(RewriterBase &rewriter, Location loc, const ConvShape &s) {
    MLIRContext *ctx = rewriter.getContext();
    // The patches: T[n, c, i, j, y, z] = x[n, c, y * sh + i * dh, z * sw + j * dw].
    Value patches = relax::buildConvPatches(rewriter, loc, s.x, s.kh, s.kw, s.strides,
                                            s.dilations, s.oh, s.ow);
    int64_t k = s.c * s.kh * s.kw, p = s.oh * s.ow;
    Value cols = tensor::CollapseShapeOp::create(
        rewriter, loc, RankedTensorType::get({s.n, k, p}, s.elt), patches,
        SmallVector<ReassociationIndices>{{0}, {1, 2, 3}, {4, 5}});
    auto flatType = RankedTensorType::get({s.n, s.f, p}, s.elt);
    SmallVector<ReassociationIndices> outGroups = splitLastDim(3);
    Value flatInit = reshapeInit(rewriter, loc, s.init, flatType, outGroups);
    // out[n, f, p] += w[f, k] * T[n, k, p]; loops (n, f, p, k).
    auto d = [&](unsigned i) { return getAffineDimExpr(i, ctx); };
    Value product = multiplyAccumulate(
        rewriter, loc, filterMatrix(rewriter, loc, s), cols, flatInit,
        {AffineMap::get(4, 0, {d(1), d(3)}, ctx), AffineMap::get(4, 0, {d(0), d(3), d(2)}, ctx),
         AffineMap::get(4, 0, {d(0), d(1), d(2)}, ctx)},
        {utils::IteratorType::parallel, utils::IteratorType::parallel,
         utils::IteratorType::parallel, utils::IteratorType::reduction});
    return tensor::ExpandShapeOp::create(rewriter, loc, s.outType, product, outGroups);
  }

  /// A float convolution as matrix products of the filter with the patches of
  /// x: gathered by one op, each output row a read of consecutive elements of
  /// x when the width stride is 1, which the vectorizer makes one contiguous
  /// load. Upstream's im2col flattens the pixels first, so that every patch
  /// element became a gather (the gathers were most of a small CNN's
  /// convolution time). One product per image, or one for the whole batch
  /// below kMergeBatchBelowPixels output pixels.
  static LogicalResult im2colRowsContiguous(RewriterBase &rewriter,
                                            linalg::Conv2DNchwFchwOp conv) {
    std::optional<ConvShape> s = convShape(conv);
    if (!s)
      return failure();
    Location loc = conv.getLoc();
    bool merge = s->n > 1 && s->oh * s->ow < kMergeBatchBelowPixels;
    rewriter.replaceOp(conv, merge ? mergedBatchProduct(rewriter, loc, *s)
                                   : perImageProduct(rewriter, loc, *s));
    return success();
  }

  /// Rewrites contraction `op` over column panels of its rhs: the rhs
  /// `[.., K, N]` is copied to `[N / cols, .., K, cols]` (an expand_shape,
  /// then a transpose that keeps the columns innermost), the output is viewed
  /// as `[.., M, N / cols, cols]`, and the op gets one more parallel loop, the
  /// panel index. Returns the new op (the old one is replaced), or null when
  /// `op` does not have that form.
  static linalg::GenericOp packPanels(RewriterBase &rewriter, linalg::GenericOp op,
                                      unsigned colDim, int64_t cols) {
    OpOperand *rhs = panelOperand(op, colDim);
    if (!rhs || op.getNumDpsInits() != 1)
      return nullptr;
    MLIRContext *ctx = op.getContext();
    Location loc = op.getLoc();
    unsigned numLoops = op.getNumLoops();
    SmallVector<int64_t> ranges = op.getStaticLoopRanges();
    int64_t panels = ranges[colDim] / cols;
    AffineExpr panelDim = getAffineDimExpr(numLoops, ctx);
    AffineExpr colExpr = getAffineDimExpr(colDim, ctx);
    rewriter.setInsertionPoint(op);

    // [.., K, N] -> [.., K, panels, cols] -> [panels, .., K, cols].
    auto splitLast = [&](Value v) -> Value {
      auto type = cast<RankedTensorType>(v.getType());
      SmallVector<int64_t> shape(type.getShape());
      shape.back() = panels;
      shape.push_back(cols);
      return reshapeInit(rewriter, loc, v, RankedTensorType::get(shape, type.getElementType()),
                         splitLastDim(type.getRank()));
    };
    Value split = splitLast(rhs->get());
    auto splitType = cast<RankedTensorType>(split.getType());
    int64_t rank = splitType.getRank();
    SmallVector<int64_t> perm{rank - 2};
    for (int64_t i = 0; i + 2 < rank; ++i)
      perm.push_back(i);
    perm.push_back(rank - 1);
    SmallVector<int64_t> packedShape;
    for (int64_t i : perm)
      packedShape.push_back(splitType.getDimSize(i));
    Value empty =
        tensor::EmptyOp::create(rewriter, loc, packedShape, splitType.getElementType());
    Value packed =
        linalg::TransposeOp::create(rewriter, loc, split, empty, perm).getResult()[0];

    OpOperand *init = op.getDpsInitOperand(0);
    Value initSplit = splitLast(init->get());

    SmallVector<AffineMap> maps;
    SmallVector<Value> inputs;
    for (OpOperand *input : op.getDpsInputOperands()) {
      AffineMap map = op.getMatchingIndexingMap(input);
      SmallVector<AffineExpr> results(map.getResults());
      if (input == rhs) {
        results.insert(results.begin(), panelDim);
        inputs.push_back(packed);
      } else {
        inputs.push_back(input->get());
      }
      maps.push_back(AffineMap::get(numLoops + 1, 0, results, ctx));
    }
    AffineMap outMap = op.getMatchingIndexingMap(init);
    SmallVector<AffineExpr> outResults(outMap.getResults());
    outResults.insert(outResults.end() - 1, panelDim);
    assert(outResults.back() == colExpr && "panel output must end in its columns");
    (void)colExpr;
    maps.push_back(AffineMap::get(numLoops + 1, 0, outResults, ctx));
    SmallVector<utils::IteratorType> iterators = op.getIteratorTypesArray();
    iterators.push_back(utils::IteratorType::parallel);

    auto panelOp = linalg::GenericOp::create(rewriter, loc, TypeRange{initSplit.getType()},
                                             inputs, ValueRange{initSplit}, maps, iterators);
    rewriter.cloneRegionBefore(op.getRegion(), panelOp.getRegion(), panelOp.getRegion().end());
    auto resultType = cast<RankedTensorType>(op->getResult(0).getType());
    Value result = tensor::CollapseShapeOp::create(rewriter, loc, resultType,
                                                   panelOp.getResult(0),
                                                   splitLastDim(resultType.getRank()));
    rewriter.replaceOp(op, result);
    return panelOp;
  }

  /// Gives each input of contraction `op` that reads loop `dim` with a stride
  /// a transposed copy in which that loop is contiguous (a packing step, as
  /// BLAS libraries do), and reads the copy instead; only `only` when given.
  static void packStrided(RewriterBase &rewriter, linalg::GenericOp op, unsigned dim,
                          OpOperand *only = nullptr) {
    std::optional<unsigned> colDim = dim;
    SmallVector<AffineMap> maps = op.getIndexingMapsArray();
    for (OpOperand *input : op.getDpsInputOperands()) {
      if (only && input != only)
        continue;
      AffineMap map = maps[input->getOperandNumber()];
      if (!map.isFunctionOfDim(*colDim) || innermostDim(map) == colDim)
        continue;
      std::optional<unsigned> pos;
      for (auto [i, e] : llvm::enumerate(map.getResults()))
        if (auto d = dyn_cast<AffineDimExpr>(e); d && d.getPosition() == *colDim)
          pos = i;
      if (!pos)
        continue;
      SmallVector<int64_t> perm;
      for (unsigned i = 0; i < map.getNumResults(); ++i)
        if (i != *pos)
          perm.push_back(i);
      perm.push_back(*pos);
      auto type = cast<RankedTensorType>(input->get().getType());
      SmallVector<int64_t> shape;
      SmallVector<AffineExpr> results;
      for (int64_t i : perm) {
        shape.push_back(type.getDimSize(i));
        results.push_back(map.getResult(i));
      }
      rewriter.setInsertionPoint(op);
      Value empty = tensor::EmptyOp::create(rewriter, op.getLoc(), shape, type.getElementType());
      Value copy = linalg::TransposeOp::create(rewriter, op.getLoc(), input->get(), empty, perm)
                       .getResult()[0];
      maps[input->getOperandNumber()] =
          AffineMap::get(map.getNumDims(), map.getNumSymbols(), results, op.getContext());
      rewriter.modifyOpInPlace(op, [&] {
        input->set(copy);
        op.setIndexingMapsAttr(rewriter.getAffineMapArrayAttr(maps));
      });
    }
  }

  /// `out += a @ b^T` (both inputs contiguous along k, the output's columns
  /// strided in b) as partial dot products: p[..., kv] = sum over k/kv steps
  /// of fma(a[.., ko, kv], b[.., ko, kv]), then out = out + sum_kv p. The sum
  /// is the root of the tile: each tile of `rows` outputs fuses its slice of p
  /// (and the fills), so p is a rows x kv register tile that never reaches
  /// memory; each step of the ko loop is one load of a, `rows` loads of b and
  /// `rows` vector FMAs.
  void tileSplitK(IRRewriter &rewriter, linalg::LinalgOp op, const TilePlan &plan,
                  llvm::DenseSet<Operation *> &tiled) {
    MLIRContext *ctx = op->getContext();
    Location loc = op.getLoc();
    unsigned numLoops = op.getNumLoops();
    int64_t kv = plan.splitK;
    SmallVector<int64_t> ranges = op.getStaticLoopRanges();
    unsigned kDim = 0;
    for (auto [d, iterator] : llvm::enumerate(op.getIteratorTypesArray()))
      if (linalg::isReductionIterator(iterator))
        kDim = d;
    OpOperand *init = op.getDpsInitOperand(0);
    auto outType = cast<RankedTensorType>(init->get().getType());
    Type element = outType.getElementType();
    AffineExpr kvExpr = getAffineDimExpr(numLoops, ctx);

    rewriter.setInsertionPoint(op);
    SmallVector<Value> inputs;
    SmallVector<AffineMap> maps;
    for (OpOperand *input : op.getDpsInputOperands()) {
      auto type = cast<RankedTensorType>(input->get().getType());
      int64_t rank = type.getRank();
      SmallVector<ReassociationIndices> reassociation;
      for (int64_t i = 0; i + 1 < rank; ++i)
        reassociation.push_back({i});
      reassociation.push_back({rank - 1, rank});
      SmallVector<int64_t> shape(type.getShape());
      shape.back() = ranges[kDim] / kv;
      shape.push_back(kv);
      inputs.push_back(tensor::ExpandShapeOp::create(
          rewriter, loc, RankedTensorType::get(shape, element), input->get(), reassociation));
      SmallVector<AffineExpr> results(op.getMatchingIndexingMap(input).getResults());
      results.push_back(kvExpr);
      maps.push_back(AffineMap::get(numLoops + 1, 0, results, ctx));
    }
    SmallVector<AffineExpr> partialResults(op.getMatchingIndexingMap(init).getResults());
    partialResults.push_back(kvExpr);
    maps.push_back(AffineMap::get(numLoops + 1, 0, partialResults, ctx));
    SmallVector<int64_t> partialShape(outType.getShape());
    partialShape.push_back(kv);
    Value zero = arith::ConstantOp::create(rewriter, loc, cast<TypedAttr>(rewriter.getZeroAttr(element)));
    Value partialInit =
        linalg::FillOp::create(rewriter, loc, zero,
                               tensor::EmptyOp::create(rewriter, loc, partialShape, element).getResult())
            .getResult(0);
    SmallVector<utils::IteratorType> iterators = op.getIteratorTypesArray();
    iterators.push_back(utils::IteratorType::parallel);
    auto partial = linalg::GenericOp::create(
        rewriter, loc, TypeRange{partialInit.getType()}, inputs, ValueRange{partialInit}, maps,
        iterators, [](OpBuilder &b, Location l, ValueRange args) {
          Value r = math::FmaOp::create(b, l, args[0], args[1], args[2]);
          linalg::YieldOp::create(b, l, r);
        });

    int64_t rank = outType.getRank();
    AffineMap sumIn = AffineMap::getMultiDimIdentityMap(rank + 1, ctx);
    AffineMap sumOut = AffineMap::get(rank + 1, 0, sumIn.getResults().drop_back(), ctx);
    SmallVector<utils::IteratorType> sumIterators(rank, utils::IteratorType::parallel);
    sumIterators.push_back(utils::IteratorType::reduction);
    auto sum = linalg::GenericOp::create(
        rewriter, loc, TypeRange{outType}, ValueRange{partial.getResult(0)},
        ValueRange{init->get()}, ArrayRef<AffineMap>{sumIn, sumOut}, sumIterators,
        [](OpBuilder &b, Location l, ValueRange args) {
          Value r = arith::AddFOp::create(b, l, args[1], args[0]);
          linalg::YieldOp::create(b, l, r);
        });
    // Read before `op` goes (replaceOp erases it, and `init` with it).
    AffineMap outMap = op.getMatchingIndexingMap(init);
    rewriter.replaceOp(op, sum.getResults());

    // Tile the sum: one output row segment of `rows` columns per tile, the
    // columns outermost (a panel of b stays in cache while the rows stream).
    SmallVector<int64_t> sizes(rank + 1, 1);
    sizes[rank] = 0;
    int64_t colDim = cast<AffineDimExpr>(outMap.getResults().back()).getPosition();
    sizes[rank - 1] = plan.outer[colDim];
    if (rank >= 2)
      if (auto rowExpr = dyn_cast<AffineDimExpr>(outMap.getResult(rank - 2)))
        sizes[rank - 2] = plan.outer[rowExpr.getPosition()];
    SmallVector<int64_t> sumRanges(outType.getShape());
    sumRanges.push_back(kv);
    SmallVector<int64_t> order;
    for (int64_t d = rank - 1; d >= 0; --d)
      order.push_back(d);
    order.push_back(rank);
    FailureOr<scf::SCFTileAndFuseResult> result = tileAndFuseFills(
        rewriter, sum, dropWholeTiles(sizes, sumRanges), order, partial);
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
    for (Operation *dead : {sum.getOperation(), partial.getOperation()})
      if (dead->use_empty())
        rewriter.eraseOp(dead);
    if (partialInit.use_empty())
      rewriter.eraseOp(partialInit.getDefiningOp());

    // One ko step per iteration; the unit ko loop then leaves the tile, which
    // becomes an elementwise fma of the register tile.
    if (partialTile) {
      SmallVector<int64_t> inner(numLoops + 1, 0);
      inner[kDim] = 1;
      scf::SCFTilingOptions stepTiling;
      stepTiling.setTileSizes(asIndexAttrs(ctx, inner));
      rewriter.setInsertionPoint(partialTile);
      FailureOr<scf::SCFTilingResult> steps = scf::tileUsingSCF(
          rewriter, cast<TilingInterface>(partialTile.getOperation()), stepTiling);
      if (succeeded(steps)) {
        rewriter.replaceOp(partialTile, steps->replacements);
        for (Operation *t : steps->tiledOps) {
          tiled.insert(t);
          auto step = dyn_cast<linalg::GenericOp>(t);
          if (!step)
            continue;
          linalg::ControlDropUnitDims drop;
          drop.controlFn = [kDim](Operation *) { return SmallVector<unsigned>{kDim}; };
          rewriter.setInsertionPoint(step);
          FailureOr<linalg::DropUnitDimsResult> dropped =
              linalg::dropUnitDims(rewriter, step, drop);
          if (succeeded(dropped)) {
            rewriter.replaceOp(step, dropped->replacements);
            tiled.insert(dropped->resultOp);
          }
        }
      }
    }
    peelPartialTiles(rewriter, loops);
  }

  void tileOne(IRRewriter &rewriter, linalg::LinalgOp op, const TilePlan &plan,
               llvm::DenseSet<Operation *> &tiled) {
    SmallVector<int64_t> sizes = dropWholeTiles(plan.outer, op.getStaticLoopRanges());
    if (llvm::all_of(sizes, [](int64_t s) { return s == 0; }))
      return;
    scf::SCFTilingOptions tiling;
    tiling.setTileSizes(asIndexAttrs(op->getContext(), sizes));
    rewriter.setInsertionPoint(op);
    FailureOr<scf::SCFTilingResult> result =
        scf::tileUsingSCF(rewriter, cast<TilingInterface>(op.getOperation()), tiling);
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
