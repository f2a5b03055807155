//===- CPUSchedule.cpp - tile, vectorize and lower linalg for the CPU -----===//
//
// The optimizing CPU pipeline's schedule, in three passes:
//   relax-cpu-tile          tensors: register tiles, fill fused, peeled loops
//   relax-cpu-vectorize     tensors: vector transfers/contracts, hoisted tiles
//   relax-cpu-lower-vectors memrefs: hoisted transfers, 1-D vector.fma form
// Tile sizes come from `planCPUTiles`, the one place that knows the target.
//
//===----------------------------------------------------------------------===//

#include "relax-mlir/CodeGen/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/Transforms/Hoisting.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/Linalg/Utils/Utils.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Math/Transforms/Passes.h"
#include "mlir/Dialect/OpenMP/OpenMPDialect.h"
#include "mlir/Dialect/SCF/Transforms/TileUsingInterface.h"
#include "mlir/Dialect/SCF/Transforms/Transforms.h"
#include "mlir/Dialect/Tensor/Transforms/Transforms.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/Dialect/Vector/Transforms/LoweringPatterns.h"
#include "mlir/Dialect/Vector/Transforms/VectorRewritePatterns.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"
#include "mlir/Transforms/LoopInvariantCodeMotionUtils.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/TargetParser/Host.h"

namespace mlir::relax {
#define GEN_PASS_DEF_CPUTILEPASS
#define GEN_PASS_DEF_CPUVECTORIZEPASS
#define GEN_PASS_DEF_CPULOWERVECTORSPASS
#define GEN_PASS_DEF_CPUPARALLELIZEPASS
#define GEN_PASS_DEF_CPUTHREADBUFFERSPASS
#include "relax-mlir/CodeGen/Passes.h.inc"
} // namespace mlir::relax

using namespace mlir;
using namespace mlir::relax;

//===----------------------------------------------------------------------===//
// Target and tile plans
//===----------------------------------------------------------------------===//

CPUTarget CPUTarget::host(int64_t vectorBits) {
  llvm::StringMap<bool> features = llvm::sys::getHostCPUFeatures();
  bool avx512 = features.lookup("avx512f");
  bool avx = features.lookup("avx2") || features.lookup("avx");
  CPUTarget target;
  target.vectorBits = vectorBits > 0 ? vectorBits : avx512 ? 512 : avx ? 256 : 128;
  // AVX-512 has 32 vector registers, the others 16; the rest of the tile's
  // working set (the broadcast lhs element, the rhs row) needs a few.
  target.accumulatorRegisters = target.vectorBits >= 512 ? 24 : 12;
  return target;
}

int64_t CPUTarget::lanes(Type elementType) const {
  int64_t bits = std::max<int64_t>(8, elementType.getIntOrFloatBitWidth());
  return std::max<int64_t>(1, vectorBits / bits);
}

/// Whether `op` reads or writes i1 tensors. Those stay scalar: LLVM stores a
/// vector of i1 as packed bits, while a buffer of i1 holds one byte per element.
static bool hasBooleanOperand(linalg::LinalgOp op) {
  return llvm::any_of(op->getOperandTypes(), [](Type t) {
    return isa<ShapedType>(t) && getElementTypeOrSelf(t).isInteger(1);
  });
}

/// Whether every reduction loop of `op` indexes some input that the body reads.
/// A reduction that
/// adds the same value at every step (sum of a constant folded into the body)
/// is vectorized by upstream as if it added it once per vector.
static bool reductionsReadInputs(linalg::LinalgOp op) {
  for (auto [d, iterator] : llvm::enumerate(op.getIteratorTypesArray())) {
    if (!linalg::isReductionIterator(iterator))
      continue;
    bool read = llvm::any_of(op.getDpsInputOperands(), [&](OpOperand *input) {
      return op.payloadUsesValueFromOperand(input) &&
             op.getMatchingIndexingMap(input).isFunctionOfDim(d);
    });
    if (!read)
      return false;
  }
  return true;
}

/// Whether the vectorizer may take `op` (the memory ABI included).
static bool isVectorizable(linalg::LinalgOp op) {
  return !hasBooleanOperand(op) && reductionsReadInputs(op) &&
         succeeded(linalg::vectorizeOpPrecondition(op, {}, {}, /*vectorizeNDExtract=*/true));
}

/// Whether `op` is a contraction the schedule tiles for registers: a sum of
/// products into an output of rank >= 1 whose every reduction loop indexes
/// both inputs (a loop that indexes one only is a plain reduction of it, and
/// upstream's multiply-reduce-to-contract rewrite builds invalid IR for it).
static bool isRegisterContraction(linalg::LinalgOp op) {
  if (op.getNumDpsInits() != 1 || op.getNumDpsInputs() != 2 ||
      !linalg::isaContractionOpInterface(op))
    return false;
  if (op.getMatchingIndexingMap(op.getDpsInitOperand(0)).getNumResults() == 0)
    return false;
  for (auto [d, iterator] : llvm::enumerate(op.getIteratorTypesArray()))
    if (linalg::isReductionIterator(iterator) &&
        !llvm::all_of(op.getDpsInputOperands(), [&](OpOperand *input) {
          return op.getMatchingIndexingMap(input).isFunctionOfDim(d);
        }))
      return false;
  return true;
}

/// The widest element among `op`'s operands (lanes are counted in it).
static Type widestElement(linalg::LinalgOp op) {
  Type widest;
  for (OpOperand &operand : op->getOpOperands()) {
    Type element = getElementTypeOrSelf(operand.get().getType());
    if (!element.isIntOrFloat())
      continue;
    if (!widest || element.getIntOrFloatBitWidth() > widest.getIntOrFloatBitWidth())
      widest = element;
  }
  return widest;
}

/// A tile of at most `limit` along a loop of `size`: the whole loop when it
/// fits, else the largest multiple of `lanes` up to `limit` that divides it,
/// else `limit` (the loop is then peeled).
static int64_t chooseVectorTile(int64_t size, int64_t lanes, int64_t limit) {
  if (size <= limit)
    return size;
  for (int64_t tile = limit - limit % lanes; tile >= lanes; tile -= lanes)
    if (size % tile == 0)
      return tile;
  return limit;
}

/// The loop dimension of the last result of `map`, if it is a plain dim.
static std::optional<unsigned> innermostDim(AffineMap map) {
  if (map.getNumResults() == 0)
    return std::nullopt;
  if (auto dim = dyn_cast<AffineDimExpr>(map.getResults().back()))
    return dim.getPosition();
  return std::nullopt;
}

/// The size of an iteration space (the product of its loop ranges).
static int64_t iterations(ArrayRef<int64_t> ranges) {
  int64_t n = 1;
  for (int64_t r : ranges)
    n *= r;
  return n;
}

/// Output rows from which `a @ b^T` copies b transposed instead of summing
/// partial dot products (whose lane sums then cost more than the copy).
static constexpr int64_t kPackRows = 1024;

/// Output rows from which an input read with strided columns that the
/// dot-product form cannot take is copied transposed (the copy costs one
/// pass over that input; each row tile gathers from it otherwise).
static constexpr int64_t kStridedCopyMinRows = 8;

/// Reduction steps per cache block of a contraction (see planCPUTiles).
static constexpr int64_t kCacheBlock = 256;

/// Reduction steps a float contraction's register tile sums from zero before
/// adding the block's sum to its output: each output is then a sum of blocks
/// of at most this many products, so the rounding error grows with the block
/// length plus the number of blocks, not with the whole reduction (f32
/// (2 x 1e6) @ (1e6 x 2) of uniform [0, 1) values: 1.6e-4 relative error summed
/// in one run, as OpenBLAS's K blocks about 1e-6). One vector add per block.
static constexpr int64_t kAccumulateBlock = 256;

/// Rhs rows of at least this many bytes are copied into column panels ...
static constexpr int64_t kPanelRowBytes = 2048;

/// ... when at least this many output rows reuse each panel: 128x1024x1024
/// (x @ w) ran 15-25% faster without the copy, 1024x128x1024 (x^T @ dy) 15%
/// slower; a 256-row x^T @ dy of the transformer step changed within noise.
static constexpr int64_t kPanelMinRows = 512;

/// A transposed lhs whose reduction steps lie kPanelRowBytes or more apart
/// in few L1 sets is copied with the reduction innermost when at least this
/// many column tiles read it. Measured alone, one thread, paired:
/// 128x1024^T @ 128x1024 1.83 -> 1.62 ms, 128x1024^T @ 128x256 0.461 ->
/// 0.435 ms; rows of 784 floats (all 64 sets: 64x784^T @ 64x256) and
/// 8192x1024^T @ 8192x256 (a cache-blocked reduction) within 1%, so those
/// stay as they are.
static constexpr int64_t kLhsCopyMinColTiles = 4;
static constexpr int64_t kLhsCopyMaxSets = 8;

/// The side of the square tiles of a transposing copy: 16x16 f32 is one
/// AVX-512 register per row, transposed by upstream's shuffle_16x16
/// lowering (a 128x1024 f32 transpose: 247 -> 18 us).
static constexpr int64_t kTransposeTile = 16;

/// The L1 data cache's geometry on the x86 cores this targets (32 KiB 8-way
/// and 48 KiB 12-way both have 64 sets of 64-byte lines).
static constexpr int64_t kCacheLineBytes = 64;
static constexpr int64_t kL1Sets = 64;

/// Rhs rows read one per step, far apart, that the whole-matrix panels above
/// leave alone go to a local panel (relax::packStridedPanels) when at least
/// this many register tiles read it: one copy per panel, then contiguous
/// rows. Measured on the bench steps: deep MLP and transformer block 1-2%
/// faster at one and two threads, the others within noise.
static constexpr int64_t kPanelMinUses = 4;

/// Transcendental functions (math ops) that an elementwise epilogue of a
/// contraction's register tile may evaluate (see epilogueOf).
static constexpr int64_t kEpilogueMaxTranscendental = 1;

/// The register tile's row loop of contraction `op` whose output's contiguous
/// loop is `colDim`: the innermost other loop of the output that the inputs
/// reading `colDim` do not read (`m` of `(m, n)`, also when the output is
/// split into column panels `(m, nb, n)`).
static std::optional<unsigned> outputRowDim(linalg::LinalgOp op, unsigned colDim) {
  AffineMap out = op.getMatchingIndexingMap(op.getDpsInitOperand(0));
  for (AffineExpr e : llvm::reverse(out.getResults())) {
    auto dim = dyn_cast<AffineDimExpr>(e);
    if (!dim)
      return std::nullopt;
    unsigned d = dim.getPosition();
    if (d == colDim)
      continue;
    bool readWithColumns = llvm::any_of(op.getDpsInputOperands(), [&](OpOperand *input) {
      AffineMap map = op.getMatchingIndexingMap(input);
      return map.isFunctionOfDim(colDim) && map.isFunctionOfDim(d);
    });
    if (!readWithColumns)
      return d;
  }
  return std::nullopt;
}

/// The input of contraction `op` that a column panel copy would take: the
/// only one reading the output's contiguous loop `colDim`, read contiguously
/// along it through plain loop dimensions, in an op whose body does not use
/// loop indices.
static OpOperand *panelOperand(linalg::LinalgOp op, unsigned colDim) {
  OpOperand *found = nullptr;
  for (OpOperand *input : op.getDpsInputOperands()) {
    AffineMap map = op.getMatchingIndexingMap(input);
    if (!map.isFunctionOfDim(colDim))
      continue;
    if (found || innermostDim(map) != colDim || !map.isProjectedPermutation())
      return nullptr;
    found = input;
  }
  AffineMap out = op.getMatchingIndexingMap(op.getDpsInitOperand(0));
  if (!out.isProjectedPermutation() || op.hasIndexSemantics())
    return nullptr;
  return found;
}

/// Whether an input of contraction `op` reads the output's contiguous loop
/// `colDim` with a stride (as a plain dimension other than its innermost):
/// an outer-product tile would gather its columns.
static bool readsColumnsStrided(linalg::LinalgOp op, unsigned colDim) {
  return llvm::any_of(op.getDpsInputOperands(), [&](OpOperand *input) {
    AffineMap map = op.getMatchingIndexingMap(input);
    return map.isProjectedPermutation() && map.isFunctionOfDim(colDim) &&
           innermostDim(map) != colDim;
  });
}

/// The single reduction loop of `op`, if it has exactly one.
static std::optional<unsigned> reductionDim(linalg::LinalgOp op) {
  std::optional<unsigned> found;
  for (auto [d, iterator] : llvm::enumerate(op.getIteratorTypesArray())) {
    if (!linalg::isReductionIterator(iterator))
      continue;
    if (found)
      return std::nullopt;
    found = d;
  }
  return found;
}

/// Whether contraction `op` reads its output's contiguous loop `colDim`
/// with a stride while both inputs are contiguous along its single reduction
/// loop, whose trip is a multiple of `lanes` (a @ b^T): the outer-product tile
/// would gather, partial dot products read both inputs by whole vectors.
static bool isDotProductForm(linalg::LinalgOp op, unsigned colDim, ArrayRef<int64_t> ranges,
                             int64_t lanes) {
  std::optional<unsigned> reduction = reductionDim(op);
  if (!reduction || ranges[*reduction] % lanes != 0 || ranges[*reduction] < lanes)
    return false;
  bool stridedCol = false;
  for (OpOperand *input : op.getDpsInputOperands()) {
    AffineMap map = op.getMatchingIndexingMap(input);
    if (innermostDim(map) != reduction)
      return false;
    if (map.isFunctionOfDim(colDim))
      stridedCol = true;
  }
  Type out = getElementTypeOrSelf(op.getDpsInitOperand(0)->get().getType());
  return stridedCol && isa<FloatType>(out) &&
         llvm::all_of(op.getDpsInputOperands(), [&](OpOperand *input) {
           return getElementTypeOrSelf(input->get().getType()) == out;
         });
}

/// The lhs of contraction `op` (the input not reading the output's
/// contiguous loop `colDim`) when it is read with its rows (`rowDim`)
/// contiguous and its reduction steps kPanelRowBytes or more apart, at
/// addresses that fall into at most kLhsCopyMaxSets L1 sets: `x^T` in
/// `x^T @ g` with rows of 1024 floats (one set: the 128 steps of a tile
/// evict each other from L1 before the next row tile reads them again).
static OpOperand *stridedLhs(linalg::LinalgOp op, unsigned colDim, unsigned rowDim) {
  std::optional<unsigned> kDim = reductionDim(op);
  if (!kDim || op.hasIndexSemantics())
    return nullptr;
  OpOperand *found = nullptr;
  for (OpOperand *input : op.getDpsInputOperands()) {
    AffineMap map = op.getMatchingIndexingMap(input);
    if (map.isFunctionOfDim(colDim))
      continue;
    if (found || !map.isProjectedPermutation() || innermostDim(map) != rowDim ||
        !map.isFunctionOfDim(*kDim))
      return nullptr;
    found = input;
  }
  if (!found)
    return nullptr;
  auto type = dyn_cast<RankedTensorType>(found->get().getType());
  if (!type || !type.hasStaticShape())
    return nullptr;
  AffineMap map = op.getMatchingIndexingMap(found);
  int64_t stride = std::max<int64_t>(1, type.getElementTypeBitWidth() / 8);
  for (unsigned i = map.getNumResults(); i-- > 0;) {
    if (cast<AffineDimExpr>(map.getResult(i)).getPosition() == *kDim)
      break;
    stride *= type.getDimSize(i);
  }
  if (stride < kPanelRowBytes || stride % kCacheLineBytes != 0)
    return nullptr;
  int64_t sets = kL1Sets / std::gcd(stride / kCacheLineBytes, kL1Sets);
  return sets <= kLhsCopyMaxSets ? found : nullptr;
}

/// The (input, output) innermost loops of elementwise op `op` when it
/// copies an input transposed: every loop parallel, one output, the largest
/// input read through a permutation whose innermost loop is not the
/// output's, both loops multiples of `lanes`, no loop indices in the body.
static std::optional<std::pair<unsigned, unsigned>>
transposedDims(linalg::LinalgOp op, ArrayRef<int64_t> ranges, int64_t lanes) {
  if (lanes < 4 || op.getNumDpsInits() != 1 || op.getNumReductionLoops() != 0 ||
      op.hasIndexSemantics())
    return std::nullopt;
  AffineMap out = op.getMatchingIndexingMap(op.getDpsInitOperand(0));
  std::optional<unsigned> outDim = innermostDim(out);
  if (!outDim || !out.isPermutation())
    return std::nullopt;
  OpOperand *largest = nullptr;
  int64_t largestSize = -1;
  for (OpOperand *input : op.getDpsInputOperands()) {
    auto type = dyn_cast<ShapedType>(input->get().getType());
    if (type && type.hasStaticShape() && type.getNumElements() > largestSize) {
      largest = input;
      largestSize = type.getNumElements();
    }
  }
  if (!largest)
    return std::nullopt;
  AffineMap in = op.getMatchingIndexingMap(largest);
  std::optional<unsigned> inDim = innermostDim(in);
  if (!inDim || *inDim == *outDim || !in.isPermutation() || ranges[*inDim] % lanes != 0 ||
      ranges[*outDim] % lanes != 0)
    return std::nullopt;
  return std::make_pair(*inDim, *outDim);
}

std::optional<TilePlan> mlir::relax::planCPUTiles(linalg::LinalgOp op,
                                                  const CPUTarget &target,
                                                  bool allowPacking) {
  if (!op.hasPureTensorSemantics() || op.hasDynamicShape() || op.getNumLoops() == 0)
    return std::nullopt;
  SmallVector<int64_t> ranges = op.getStaticLoopRanges();
  if (llvm::any_of(ranges, [](int64_t r) { return r <= 0; }))
    return std::nullopt;
  if (!isVectorizable(op))
    return std::nullopt;
  Type element = widestElement(op);
  if (!element)
    return std::nullopt;
  int64_t lanes = target.lanes(element);
  unsigned numLoops = op.getNumLoops();
  TilePlan plan;
  plan.outer.assign(numLoops, 1);
  plan.inner.assign(numLoops, 0);

  // Contractions: a rows x cols register tile of the output, then rank-1
  // updates along the reduction loops.
  if (isRegisterContraction(op)) {
    AffineMap out = op.getMatchingIndexingMap(op.getDpsInitOperand(0));
    std::optional<unsigned> colDim = innermostDim(out);
    std::optional<unsigned> rowDim = colDim ? outputRowDim(op, *colDim) : std::nullopt;
    if (allowPacking && colDim && isDotProductForm(op, *colDim, ranges, lanes) && rowDim &&
        ranges[*rowDim] >= kPackRows && isa<linalg::GenericOp>(op.getOperation())) {
      // Many rows: a transposed copy of the strided input (read once per
      // row tile otherwise) pays for itself; then the outer-product tiles.
      plan.contraction = true;
      plan.packColumns = true;
      return plan;
    }
    if (colDim && isDotProductForm(op, *colDim, ranges, lanes)) {
      // Rows of the output's contiguous loop, each a vector of partial sums
      // along the reduction (see tileSplitK).
      plan.contraction = true;
      plan.splitK = lanes;
      plan.outer.assign(numLoops, 1);
      for (unsigned d = 0; d < numLoops; ++d)
        if (linalg::isReductionIterator(op.getIteratorTypesArray()[d]))
          plan.outer[d] = 0;
      // rows x cols partial-sum vectors: each step loads `rows` vectors of a
      // and `cols` of b for rows * cols FMAs.
      int64_t cols = chooseVectorTile(ranges[*colDim], 1, 4);
      plan.outer[*colDim] = cols;
      if (rowDim)
        plan.outer[*rowDim] = std::min(ranges[*rowDim], std::max<int64_t>(1, target.accumulatorRegisters / cols));
      return plan;
    }
    if (allowPacking && colDim && rowDim && ranges[*rowDim] >= kStridedCopyMinRows &&
        isa<linalg::GenericOp>(op.getOperation()) && readsColumnsStrided(op, *colDim)) {
      // Strided columns not in the dot-product form (a reduction that is
      // not a multiple of the vector: dz @ w^T with 10 classes): a
      // transposed copy, read by whole vectors by every row tile, costs
      // less than gathering each column vector once per row tile.
      plan.contraction = true;
      plan.packColumns = true;
      return plan;
    }
    if (colDim) {
      int64_t cols = chooseVectorTile(ranges[*colDim], lanes, 4 * lanes);
      int64_t vectors = llvm::divideCeil(cols, lanes);
      int64_t rows = std::clamp<int64_t>(target.accumulatorRegisters / vectors, 1, 16);
      for (unsigned d = 0; d < numLoops; ++d) {
        if (linalg::isReductionIterator(op.getIteratorTypesArray()[d])) {
          plan.outer[d] = 0;
          plan.inner[d] = 1;
        }
      }
      plan.outer[*colDim] = cols;
      if (rowDim)
        plan.outer[*rowDim] = std::min(rows, ranges[*rowDim]);
      plan.contraction = true;
      // A transposed lhs (x^T @ g: each step of a row tile reads `rows`
      // elements of one lhs row, rows a page apart, which share L1 sets) is
      // copied with the reduction innermost when enough column tiles read it:
      // the tiles then broadcast from `rows` rows that stay in L1.
      // (Not when the reduction is walked in cache blocks: 8192x1024^T @
      // 8192x256 ran the same with the copy, which held 32 MiB more.)
      std::optional<unsigned> kDim = reductionDim(op);
      if (allowPacking && rowDim && kDim && isa<linalg::GenericOp>(op.getOperation()) &&
          ranges[*colDim] / cols >= kLhsCopyMinColTiles && ranges[*kDim] <= 2 * kCacheBlock &&
          iterations(ranges) >= (int64_t(1) << 20) && stridedLhs(op, *colDim, *rowDim)) {
        plan.packRows = true;
        return plan;
      }
      // Long rhs rows: each step of a tile reads `cols` columns of one rhs
      // row, rows a page or more apart (4 KiB: 1024 floats), which the L1
      // cache cannot keep (same sets) nor the prefetcher follow. A copy into
      // (reduction x cols) panels, read once per panel, makes every row tile
      // stream one contiguous block. The copy (the whole rhs, out of cache
      // for a large one) pays only when many output rows reuse each panel.
      // (Copying the row-major lhs transposed was tried as well and removed:
      // 10% slower on the MLP step, and 64x784x256, 128x1024x1024 slower.)
      if (allowPacking && rowDim && isa<linalg::GenericOp>(op.getOperation()) &&
          ranges[*rowDim] >= kPanelMinRows && iterations(ranges) >= (int64_t(1) << 20))
        if (OpOperand *rhs = panelOperand(op, *colDim)) {
          int64_t n = ranges[*colDim];
          auto type = cast<ShapedType>(rhs->get().getType());
          int64_t bytes = std::max<int64_t>(1, type.getElementTypeBitWidth() / 8);
          if (n > cols && n % cols == 0 && n * bytes >= kPanelRowBytes)
            plan.panelCols = cols;
        }
      // A reduction longer than kCacheBlock is walked in blocks of it when
      // the rhs panel (reduction x cols) would not stay in the L1/L2 cache.
      plan.cacheBlock.assign(numLoops, 0);
      for (unsigned d = 0; d < numLoops; ++d)
        if (linalg::isReductionIterator(op.getIteratorTypesArray()[d]) &&
            ranges[d] > 2 * kCacheBlock && ranges[d] % kCacheBlock == 0)
          plan.cacheBlock[d] = kCacheBlock;
      return plan;
    }
  }

  // A transposing copy (an input whose innermost loop is not the output's:
  // a transpose that a packing step or the program materializes): square
  // tiles of a vector's lanes (at most kTransposeTile), each read as rows of
  // the input, transposed in registers (shuffles) and written as rows of the
  // output, instead of rows gathered or scattered one element at a time.
  int64_t square = std::min<int64_t>(lanes, kTransposeTile);
  if (std::optional<std::pair<unsigned, unsigned>> dims = transposedDims(op, ranges, square)) {
    plan.outer[dims->first] = square;
    plan.outer[dims->second] = square;
    return plan;
  }

  // Everything else: rows of the largest operand's innermost dimension.
  OpOperand *largest = nullptr;
  int64_t largestSize = -1;
  for (OpOperand &operand : op->getOpOperands()) {
    auto type = dyn_cast<ShapedType>(operand.get().getType());
    if (!type || !type.hasStaticShape() || type.getNumElements() <= largestSize)
      continue;
    largest = &operand;
    largestSize = type.getNumElements();
  }
  std::optional<unsigned> vecDim =
      largest ? innermostDim(op.getMatchingIndexingMap(largest)) : std::nullopt;
  unsigned dim = vecDim.value_or(numLoops - 1);
  plan.outer[dim] = chooseVectorTile(ranges[dim], lanes, 8 * lanes);
  return plan;
}

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
static Value reshapeInit(RewriterBase &rewriter, Location loc, Value v, RankedTensorType type,
                         ArrayRef<ReassociationIndices> groups) {
  if (auto fill = v.getDefiningOp<linalg::FillOp>();
      fill && fill.getOutputs()[0].getDefiningOp<tensor::EmptyOp>()) {
    Value empty =
        tensor::EmptyOp::create(rewriter, loc, type.getShape(), type.getElementType());
    return linalg::FillOp::create(rewriter, loc, fill.getInputs()[0], empty).getResult(0);
  }
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

  /// A float convolution as a batch of matrix products: the patches of x
  /// gathered into `[N, C, KH, KW, OH, OW]` (one op, each output row a read
  /// of consecutive elements of x when the width stride is 1, which the
  /// vectorizer makes one contiguous load), viewed as `[N, C*KH*KW, OH*OW]`,
  /// multiplied by the filter viewed as `[F, C*KH*KW]`. Upstream's im2col
  /// flattens the pixels first, so that every patch element became a gather
  /// (the gathers were most of a small CNN's convolution time).
  static LogicalResult im2colRowsContiguous(RewriterBase &rewriter,
                                            linalg::Conv2DNchwFchwOp conv) {
    MLIRContext *ctx = conv.getContext();
    Location loc = conv.getLoc();
    Value x = conv.getInputs()[0], w = conv.getInputs()[1], init = conv.getOutputs()[0];
    auto xType = cast<RankedTensorType>(x.getType());
    auto wType = cast<RankedTensorType>(w.getType());
    auto outType = cast<RankedTensorType>(init.getType());
    Type elt = outType.getElementType();
    if (!isa<FloatType>(elt) || xType.getElementType() != elt ||
        wType.getElementType() != elt || !xType.hasStaticShape() ||
        !wType.hasStaticShape() || !outType.hasStaticShape())
      return failure();
    SmallVector<int64_t> strides(conv.getStrides().getValues<int64_t>());
    SmallVector<int64_t> dilations(conv.getDilations().getValues<int64_t>());
    int64_t n = xType.getDimSize(0), c = xType.getDimSize(1);
    int64_t f = wType.getDimSize(0), kh = wType.getDimSize(2), kw = wType.getDimSize(3);
    int64_t oh = outType.getDimSize(2), ow = outType.getDimSize(3);

    // The patches: T[n, c, i, j, y, z] = x[n, c, y * sh + i * dh, z * sw + j * dw].
    Value empty = tensor::EmptyOp::create(rewriter, loc, {n, c, kh, kw, oh, ow}, elt);
    AffineMap id6 = AffineMap::getMultiDimIdentityMap(6, ctx);
    auto patches = linalg::GenericOp::create(
        rewriter, loc, TypeRange{empty.getType()}, ValueRange{}, ValueRange{empty},
        ArrayRef<AffineMap>{id6},
        SmallVector<utils::IteratorType>(6, utils::IteratorType::parallel),
        [&](OpBuilder &b, Location l, ValueRange) {
          SmallVector<Value> idx;
          for (int64_t d = 0; d < 6; ++d)
            idx.push_back(linalg::IndexOp::create(b, l, d));
          auto at = [&](Value outer, int64_t stride, Value inner, int64_t dilation) {
            Value a = arith::MulIOp::create(
                b, l, outer, arith::ConstantIndexOp::create(b, l, stride));
            Value d = arith::MulIOp::create(
                b, l, inner, arith::ConstantIndexOp::create(b, l, dilation));
            return arith::AddIOp::create(b, l, a, d).getResult();
          };
          Value row = at(idx[4], strides[0], idx[2], dilations[0]);
          Value col = at(idx[5], strides[1], idx[3], dilations[1]);
          Value v = tensor::ExtractOp::create(b, l, x, ValueRange{idx[0], idx[1], row, col});
          linalg::YieldOp::create(b, l, v);
        });
    int64_t k = c * kh * kw, p = oh * ow;
    auto colsType = RankedTensorType::get({n, k, p}, elt);
    Value cols = tensor::CollapseShapeOp::create(
        rewriter, loc, colsType, patches.getResult(0),
        SmallVector<ReassociationIndices>{{0}, {1, 2, 3}, {4, 5}});
    Value filter = tensor::CollapseShapeOp::create(
        rewriter, loc, RankedTensorType::get({f, k}, elt), w,
        SmallVector<ReassociationIndices>{{0}, {1, 2, 3}});
    auto flatType = RankedTensorType::get({n, f, p}, elt);
    SmallVector<ReassociationIndices> outGroups = splitLastDim(3);
    Value flatInit = reshapeInit(rewriter, loc, init, flatType, outGroups);
    // out[n, f, p] += w[f, k] * T[n, k, p]; loops (n, f, p, k).
    auto d = [&](unsigned i) { return getAffineDimExpr(i, ctx); };
    SmallVector<AffineMap> maps{AffineMap::get(4, 0, {d(1), d(3)}, ctx),
                                AffineMap::get(4, 0, {d(0), d(3), d(2)}, ctx),
                                AffineMap::get(4, 0, {d(0), d(1), d(2)}, ctx)};
    auto product = linalg::GenericOp::create(
        rewriter, loc, TypeRange{flatType}, ValueRange{filter, cols}, ValueRange{flatInit}, maps,
        {utils::IteratorType::parallel, utils::IteratorType::parallel,
         utils::IteratorType::parallel, utils::IteratorType::reduction},
        [&](OpBuilder &b, Location l, ValueRange args) {
          Value mul = arith::MulFOp::create(b, l, args[0], args[1]);
          linalg::YieldOp::create(b, l, arith::AddFOp::create(b, l, args[2], mul).getResult());
        });
    Value result = tensor::ExpandShapeOp::create(rewriter, loc, outType, product.getResult(0),
                                                 outGroups);
    rewriter.replaceOp(conv, result);
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

//===----------------------------------------------------------------------===//
// relax-cpu-vectorize
//===----------------------------------------------------------------------===//

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
      recorder.ops = isRegisterContraction(op) ? &contractionOps : nullptr;
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

//===----------------------------------------------------------------------===//
// relax-cpu-lower-vectors
//===----------------------------------------------------------------------===//

/// Sums along the innermost dimension of many rows at once (the partial dot
/// products of an `a @ b^T` tile, 6x4 rows of 16 lanes) as a tree over all
/// rows: two rows of `w`-lane groups become one row of `w/2`-lane groups by
/// two shuffles and one add (halves of each group side by side), so R rows of
/// L lanes take about R adds and 2R shuffles, against R separate lane
/// reductions of log2(L) shuffle-add steps each (the reductions were 10% of
/// the `g @ w^T` instructions of the deep MLP step). Sums are reassociated, as
/// the lane reductions were.
struct TreeReduceRows : OpRewritePattern<vector::MultiDimReductionOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(vector::MultiDimReductionOp op,
                                PatternRewriter &rewriter) const override {
    VectorType source = op.getSourceVectorType();
    int64_t rank = source.getRank();
    Type element = source.getElementType();
    if (op.getKind() != vector::CombiningKind::ADD || rank < 2 || source.isScalable() ||
        op.getReductionDims() != ArrayRef<int64_t>{rank - 1} ||
        !isa<FloatType, IntegerType>(element))
      return failure();
    int64_t lanes = source.getShape().back();
    int64_t rows = source.getNumElements() / lanes;
    if (lanes < 2 || !llvm::isPowerOf2_64(lanes) || rows < 2 || rows > 64)
      return failure();
    Location loc = op.getLoc();
    auto add = [&](Value a, Value b) -> Value {
      if (isa<FloatType>(element))
        return arith::AddFOp::create(rewriter, loc, a, b);
      return arith::AddIOp::create(rewriter, loc, a, b);
    };
    // Each part: a vector of `lanes` lanes holding groups of `width` lanes,
    // group g summing to output outputs[g].
    struct Part {
      Value v;
      SmallVector<int64_t> outputs;
    };
    Value flat = vector::ShapeCastOp::create(
        rewriter, loc, VectorType::get({rows, lanes}, element), op.getSource());
    SmallVector<Part> parts;
    for (int64_t r = 0; r < rows; ++r)
      parts.push_back({vector::ExtractOp::create(rewriter, loc, flat, r), {r}});
    for (int64_t width = lanes; width > 1; width /= 2) {
      SmallVector<Part> next;
      for (size_t i = 0; i < parts.size(); i += 2) {
        // (An odd one out pairs with itself: its sums appear twice.)
        const Part &a = parts[i];
        const Part &b = i + 1 < parts.size() ? parts[i + 1] : parts[i];
        SmallVector<int64_t> low, high;
        for (auto [offset, part] : {std::pair<int64_t, const Part *>{0, &a}, {lanes, &b}})
          for (size_t g = 0; g < part->outputs.size(); ++g)
            for (int64_t l = 0; l < width / 2; ++l) {
              low.push_back(offset + int64_t(g) * width + l);
              high.push_back(offset + int64_t(g) * width + width / 2 + l);
            }
        Value sum = add(vector::ShuffleOp::create(rewriter, loc, a.v, b.v, low),
                        vector::ShuffleOp::create(rewriter, loc, a.v, b.v, high));
        Part joined{sum, a.outputs};
        llvm::append_range(joined.outputs, b.outputs);
        next.push_back(std::move(joined));
      }
      parts = std::move(next);
    }
    // One lane per output now; gather them in order.
    SmallVector<int64_t> where(rows, -1);
    for (auto [p, part] : llvm::enumerate(parts))
      for (auto [lane, output] : llvm::enumerate(part.outputs))
        if (where[output] < 0)
          where[output] = int64_t(p) * lanes + int64_t(lane);
    // (More than two parts: all but the last concatenated first, in order,
    // so that lane l of part p is still at p * lanes + l.)
    Value all = parts[0].v;
    for (size_t p = 1; p + 1 < parts.size(); ++p)
      all = vector::ShuffleOp::create(
          rewriter, loc, all, parts[p].v,
          llvm::to_vector(llvm::seq<int64_t>(0, int64_t(p + 1) * lanes)));
    Value last = parts.size() > 1 ? parts.back().v : parts[0].v;
    Value sums = vector::ShuffleOp::create(rewriter, loc, all, last, where);
    auto resultType = cast<VectorType>(op.getDest().getType());
    Value shaped = vector::ShapeCastOp::create(rewriter, loc, resultType, sums);
    rewriter.replaceOp(op, add(shaped, op.getAcc()));
    return success();
  }
};

/// A 0-d transfer from or to a buffer (one element of a strided view, read
/// to be broadcast) as memref.load/store, which take any strides: upstream
/// lowers transfers to vector.load/store only from unit-stride buffers, and
/// this one stayed and failed LLVM translation.
struct ZeroDTransferRead : OpRewritePattern<vector::TransferReadOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(vector::TransferReadOp read,
                                PatternRewriter &rewriter) const override {
    if (read.getVectorType().getRank() != 0 || !isa<MemRefType>(read.getBase().getType()) ||
        read.getMask())
      return failure();
    Value element = memref::LoadOp::create(rewriter, read.getLoc(), read.getBase(),
                                           read.getIndices());
    rewriter.replaceOpWithNewOp<vector::BroadcastOp>(read, read.getVectorType(), element);
    return success();
  }
};
struct ZeroDTransferWrite : OpRewritePattern<vector::TransferWriteOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(vector::TransferWriteOp write,
                                PatternRewriter &rewriter) const override {
    if (write.getVectorType().getRank() != 0 || !isa<MemRefType>(write.getBase().getType()) ||
        write.getMask())
      return failure();
    Value element = vector::ExtractOp::create(rewriter, write.getLoc(), write.getVector(),
                                              ArrayRef<int64_t>{});
    rewriter.replaceOpWithNewOp<memref::StoreOp>(write, element, write.getBase(),
                                                 write.getIndices());
    return success();
  }
};

struct CPULowerVectorsPass : relax::impl::CPULowerVectorsPassBase<CPULowerVectorsPass> {
  using CPULowerVectorsPassBase::CPULowerVectorsPassBase;

  void runOnOperation() override {
    MLIRContext *ctx = &getContext();
    func::FuncOp func = getOperation();
    // Copies that bufferization made (padding inserts, out-parameters) as
    // linalg.copy: inline loops LLVM vectorizes, instead of the runtime's
    // memrefCopy, which walks a strided view element by element.
    SmallVector<memref::CopyOp> copies;
    func.walk([&](memref::CopyOp copy) { copies.push_back(copy); });
    IRRewriter rewriter(ctx);
    for (memref::CopyOp copy : copies) {
      rewriter.setInsertionPoint(copy);
      linalg::CopyOp::create(rewriter, copy.getLoc(), copy.getSource(), copy.getTarget());
      rewriter.eraseOp(copy);
    }
    linalg::hoistRedundantVectorTransfers(func, /*verifyNonZeroTrip=*/true);
    relax::packStridedPanels(func, panelBytes, kPanelMinUses);
    relax::prefetchStridedReads(func, prefetchDistance);
    relax::streamLargeResults(func, streamingStoreBytes);

    auto apply = [&](function_ref<void(RewritePatternSet &)> populate) {
      RewritePatternSet patterns(ctx);
      populate(patterns);
      return applyPatternsGreedily(func, std::move(patterns));
    };
    if (failed(apply([](RewritePatternSet &p) {
          p.add<TreeReduceRows>(p.getContext(), /*benefit=*/2);
          vector::populateVectorContractLoweringPatterns(
              p, vector::VectorContractLowering::OuterProduct);
          vector::populateVectorTransferPermutationMapLoweringPatterns(p);
          vector::populateVectorMultiReductionLoweringPatterns(
              p, vector::VectorMultiReductionLowering::InnerReduction);
        })) ||
        failed(apply([](RewritePatternSet &p) {
          vector::populateVectorTransferLoweringPatterns(p, /*maxTransferRank=*/1);
          p.add<ZeroDTransferRead, ZeroDTransferWrite>(p.getContext());
          vector::populateVectorTransposeLoweringPatterns(
              p, vector::VectorTransposeLowering::Shuffle16x16);
          vector::populateVectorShapeCastLoweringPatterns(p);
        })) ||
        failed(apply([](RewritePatternSet &p) {
          vector::populateVectorOuterProductLoweringPatterns(p);
          vector::populateVectorBroadcastLoweringPatterns(p);
        })) ||
        failed(apply([](RewritePatternSet &p) {
          // Vectors of these would otherwise become one libm call per lane.
          // (Not the logarithms: upstream's are off for subnormal inputs.
          // exp flushes subnormal results to 0.)
          auto vectorized = [](StringRef name) {
            return llvm::is_contained({"math.tanh", "math.erf", "math.exp", "math.expm1"}, name);
          };
          populateMathF32ExpansionPatterns(p, vectorized);
          populateMathPolynomialApproximationPatterns(p, vectorized);
        })))
      return signalPassFailure();
  }
};
//===----------------------------------------------------------------------===//
// relax-cpu-parallelize
//===----------------------------------------------------------------------===//

struct CPUParallelizePass : relax::impl::CPUParallelizePassBase<CPUParallelizePass> {
  using CPUParallelizePassBase::CPUParallelizePassBase;

  void runOnOperation() override {
    SmallVector<scf::ForOp> marked;
    getOperation().walk([&](scf::ForOp loop) {
      if (loop->hasAttr(relax::kParallelLoopAttr))
        marked.push_back(loop);
    });
    IRRewriter rewriter(&getContext());
    for (scf::ForOp loop : marked) {
      loop->removeAttr(relax::kParallelLoopAttr);
      if (loop.getNumResults() != 0)
        continue;
      rewriter.setInsertionPoint(loop);
      auto parallel = scf::ParallelOp::create(rewriter, loop.getLoc(), loop.getLowerBound(),
                                              loop.getUpperBound(), loop.getStep());
      Block *body = parallel.getBody();
      // The new body ends in scf.reduce; the old one's scf.yield goes.
      rewriter.eraseOp(loop.getBody()->getTerminator());
      rewriter.inlineBlockBefore(loop.getBody(), body->getTerminator(),
                                 {parallel.getInductionVars()[0]});
      rewriter.eraseOp(loop);
    }
  }
};
//===----------------------------------------------------------------------===//
// relax-cpu-thread-buffers
//===----------------------------------------------------------------------===//

struct CPUThreadBuffersPass : relax::impl::CPUThreadBuffersPassBase<CPUThreadBuffersPass> {
  using CPUThreadBuffersPassBase::CPUThreadBuffersPassBase;

  void runOnOperation() override {
    getOperation().walk([](memref::AllocaScopeOp scope) {
      auto nest = dyn_cast<omp::LoopNestOp>(scope->getParentOp());
      auto team = scope->getParentOfType<omp::ParallelOp>();
      if (!nest || !team || !team->isProperAncestor(nest))
        return;
      Block &entry = team.getRegion().front();
      for (auto alloca :
           llvm::make_early_inc_range(scope.getBodyRegion().front().getOps<memref::AllocaOp>()))
        if (alloca->getNumOperands() == 0)
          alloca->moveBefore(&entry, entry.begin());
    });
  }
};
} // namespace
