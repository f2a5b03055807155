//===- MapLoops.cpp - loop nests to blocks and threads --------------------===//
//
// relax-gpu-map-loops: each top-level scf.parallel is tiled into blocks of
// threads and mapped to the GPU's ids, the innermost dimension (contiguous in
// memory) on x so that a warp's accesses coalesce (see Passes.td).
//
//===----------------------------------------------------------------------===//

#include "relax-mlir/CodeGen/Passes.h"

#include "mlir/Dialect/GPU/Transforms/ParallelLoopMapper.h"
#include "mlir/Dialect/SCF/Transforms/Transforms.h"
#include "mlir/Dialect/SCF/Utils/Utils.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/IR/PatternMatch.h"
#include "llvm/Support/MathExtras.h"

namespace mlir::relax {
#define GEN_PASS_DEF_GPUMAPLOOPSPASS
#include "relax-mlir/CodeGen/Passes.h.inc"
} // namespace mlir::relax

using namespace mlir;

namespace {
/// The most blocks a launch may have along y and z (x allows 2^31 - 1).
constexpr int64_t kMaxGridYZ = 65535;
/// The most threads a block may have along z (x and y allow 1024).
constexpr int64_t kMaxBlockZ = 64;

/// The trip count of `loop`'s dimension `d`, when static.
std::optional<int64_t> tripCount(scf::ParallelOp loop, unsigned d) {
  std::optional<int64_t> lb = getConstantIntValue(loop.getLowerBound()[d]),
                         ub = getConstantIntValue(loop.getUpperBound()[d]),
                         step = getConstantIntValue(loop.getStep()[d]);
  if (!lb || !ub || !step || *step <= 0)
    return std::nullopt;
  return std::max<int64_t>(0, llvm::divideCeil(*ub - *lb, *step));
}

/// Threads along a dimension of `count` iterations, at most `limit`: the
/// power of two covering it (all of them for an unknown count).
int64_t threadsFor(std::optional<int64_t> count, int64_t limit) {
  if (!count)
    return limit;
  return std::min<int64_t>(limit, llvm::PowerOf2Ceil(std::max<int64_t>(1, *count)));
}

struct GPUMapLoopsPass : relax::impl::GPUMapLoopsPassBase<GPUMapLoopsPass> {
  using Base::Base;

  void runOnOperation() final {
    if (blockThreads < 1 || blockThreads > 1024 || !llvm::isPowerOf2_64(blockThreads)) {
      getOperation().emitError("relax-gpu-map-loops: block-threads must be a power of two "
                               "from 1 to 1024, got ")
          << static_cast<int64_t>(blockThreads);
      return signalPassFailure();
    }
    SmallVector<scf::ParallelOp> loops;
    getOperation().walk([&](scf::ParallelOp loop) {
      if (loop->getParentOfType<scf::ParallelOp>() || loop->getParentOfType<gpu::LaunchOp>() ||
          loop.getNumReductions() != 0)
        return;
      bool nested = false;
      loop.getBody()->walk([&](scf::ParallelOp) { nested = true; });
      if (!nested)
        loops.push_back(loop);
    });
    for (scf::ParallelOp loop : loops) {
      // Trip counts first: the collapsed loop's bounds are computed.
      SmallVector<std::optional<int64_t>> counts;
      for (unsigned d = 0; d < loop.getNumLoops(); ++d)
        counts.push_back(tripCount(loop, d));
      if (counts.size() > 3)
        loop = collapseLeading(loop, counts);
      map(loop, counts);
    }
  }

  /// A loop of more than three dimensions with its leading ones combined
  /// into one, so that all of them run in parallel (blockIdx.z); `counts`,
  /// the trip counts of its dimensions, become those of the new loop's.
  scf::ParallelOp collapseLeading(scf::ParallelOp loop,
                                  SmallVector<std::optional<int64_t>> &counts) {
    unsigned rank = loop.getNumLoops();
    std::vector<std::vector<unsigned>> groups = {{}, {rank - 2}, {rank - 1}};
    std::optional<int64_t> leading = 1;
    for (unsigned d = 0; d + 2 < rank; ++d) {
      groups[0].push_back(d);
      leading = leading && counts[d] ? std::optional<int64_t>(*leading * *counts[d])
                                     : std::nullopt;
    }
    counts = {leading, counts[rank - 2], counts[rank - 1]};
    Operation *after = loop->getNextNode();
    IRRewriter rewriter(loop.getContext());
    collapseParallelLoops(rewriter, loop, groups);
    // The collapsed loop replaced `loop` where it was.
    Operation *op = after->getPrevNode();
    while (!isa<scf::ParallelOp>(op))
      op = op->getPrevNode();
    return cast<scf::ParallelOp>(op);
  }

  /// Tiles and maps `loop`, whose dimensions have the trip `counts`.
  void map(scf::ParallelOp loop, ArrayRef<std::optional<int64_t>> counts) {
    unsigned rank = loop.getNumLoops();
    // Threads: as many along the innermost dimension as it has iterations
    // (up to block-threads), what is left along the next one, then the one
    // before (a block has at most 64 threads along z).
    SmallVector<int64_t> tiles(rank, 1);
    int64_t left = blockThreads;
    for (unsigned i = 0; i < rank; ++i) {
      unsigned d = rank - 1 - i;
      tiles[d] = threadsFor(counts[d], i == 2 ? std::min<int64_t>(left, kMaxBlockZ) : left);
      left /= tiles[d];
    }
    // tileParallelLoop erases `loop`: nothing may touch it afterwards.
    auto [outer, inner] = scf::tileParallelLoop(loop, tiles, /*noMinMaxBounds=*/true);

    Builder b(outer.getContext());
    auto dimMap = [&](gpu::Processor processor) {
      return b.getAttr<gpu::ParallelLoopDimMappingAttr>(processor, b.getDimIdentityMap(),
                                                        b.getDimIdentityMap());
    };
    const gpu::Processor blockIds[] = {gpu::Processor::BlockX, gpu::Processor::BlockY,
                                       gpu::Processor::BlockZ};
    const gpu::Processor threadIds[] = {gpu::Processor::ThreadX, gpu::Processor::ThreadY,
                                        gpu::Processor::ThreadZ};
    SmallVector<gpu::ParallelLoopDimMappingAttr> outerMap, innerMap;
    for (unsigned d = 0; d < rank; ++d) {
      unsigned id = rank - 1 - d; // innermost: x
      gpu::Processor block = blockIds[id];
      // A grid holds at most 65535 blocks along y and z: more (or an unknown
      // number) run one after the other in each block.
      std::optional<int64_t> blocks;
      if (counts[d])
        blocks = llvm::divideCeil(*counts[d], tiles[d]);
      if (id > 0 && (!blocks || *blocks > kMaxGridYZ))
        block = gpu::Processor::Sequential;
      outerMap.push_back(dimMap(block));
      innerMap.push_back(dimMap(threadIds[id]));
    }
    (void)gpu::setMappingAttr(outer, outerMap);
    (void)gpu::setMappingAttr(inner, innerMap);
  }
};
} // namespace
