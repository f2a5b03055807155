//===- TilePlan.cpp - the CPU target and tile plans -----------------------===//
//
// The CPU schedule's strategy: the #relax_cpu.tiles of one linalg op on the
// host CPU (`selectCPUTiles`), and the predicates the CPU passes share
// (TilePlan.h).
//
//===----------------------------------------------------------------------===//

#include "TilePlan.h"

#include "mlir/Dialect/Linalg/IR/LinalgInterfaces.h"

#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "llvm/TargetParser/Host.h"

using namespace mlir;
using namespace mlir::relax;
using namespace mlir::relax::cpu;

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
bool mlir::relax::cpu::hasBooleanOperand(linalg::LinalgOp op) {
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
bool mlir::relax::cpu::isVectorizable(linalg::LinalgOp op) {
  return !hasBooleanOperand(op) && reductionsReadInputs(op) &&
         succeeded(linalg::vectorizeOpPrecondition(op, {}, {}, /*vectorizeNDExtract=*/true));
}

/// Whether `op` is a contraction the schedule tiles for registers: a sum of
/// products into an output of rank >= 1 whose every reduction loop indexes
/// both inputs (a loop that indexes one only is a plain reduction of it, and
/// upstream's multiply-reduce-to-contract rewrite builds invalid IR for it).
bool mlir::relax::cpu::isRegisterContraction(linalg::LinalgOp op) {
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
std::optional<unsigned> mlir::relax::cpu::innermostDim(AffineMap map) {
  if (map.getNumResults() == 0)
    return std::nullopt;
  if (auto dim = dyn_cast<AffineDimExpr>(map.getResults().back()))
    return dim.getPosition();
  return std::nullopt;
}

/// The size of an iteration space (the product of its loop ranges).
int64_t mlir::relax::cpu::iterations(ArrayRef<int64_t> ranges) {
  int64_t n = 1;
  for (int64_t r : ranges)
    n *= r;
  return n;
}

/// Output rows from which `a @ b^T` copies b transposed instead of summing
/// partial dot products (whose lane sums then cost more than the copy).
/// Fewer rows copy b too when b has no more elements than the output (see
/// stridedInputFitsOutput).
static constexpr int64_t kPackRows = 1024;

/// Output rows from which an input read with strided columns that the
/// dot-product form cannot take is copied transposed (the copy costs one
/// pass over that input; each row tile gathers from it otherwise).
static constexpr int64_t kStridedCopyMinRows = 8;

/// Reduction steps per cache block of a contraction (see planCPUTiles).
static constexpr int64_t kCacheBlock = 256;


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



/// The input of contraction `op` that a column panel copy would take: the
/// only one reading the output's contiguous loop `colDim`, read contiguously
/// along it through plain loop dimensions, in an op whose body does not use
/// loop indices.
OpOperand *mlir::relax::cpu::panelOperand(linalg::LinalgOp op, unsigned colDim) {
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
std::optional<unsigned> mlir::relax::cpu::reductionDim(linalg::LinalgOp op) {
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
OpOperand *mlir::relax::cpu::stridedLhs(linalg::LinalgOp op, unsigned colDim, unsigned rowDim) {
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
/// output's, both loops at least `lanes` long, no loop indices in the body.
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
  // (A loop that is not a multiple of the tile ends in a peeled partial
  // tile, transposed element by element.)
  if (!inDim || *inDim == *outDim || !in.isPermutation() || ranges[*inDim] < lanes ||
      ranges[*outDim] < lanes)
    return std::nullopt;
  return std::make_pair(*inDim, *outDim);
}


/// The loops of contraction `op` that its register tile is built on, from
/// upstream's inferContractionDims: the output's contiguous loop (`col`), the
/// innermost output loop of the other operand (`row`: an m loop when `col`
/// is an n loop, and the other way round) and the single reduction loop.
std::optional<ContractionLoops> mlir::relax::cpu::contractionLoops(linalg::LinalgOp op) {
  FailureOr<linalg::ContractionDimensions> dims = linalg::inferContractionDims(op);
  if (failed(dims))
    return std::nullopt;
  AffineMap out = op.getMatchingIndexingMap(op.getDpsInitOperand(0));
  std::optional<unsigned> col = innermostDim(out);
  if (!col)
    return std::nullopt;
  ContractionLoops loops;
  loops.col = *col;
  ArrayRef<unsigned> others = llvm::is_contained(dims->n, *col)   ? ArrayRef<unsigned>(dims->m)
                              : llvm::is_contained(dims->m, *col) ? ArrayRef<unsigned>(dims->n)
                                                                  : ArrayRef<unsigned>();
  for (AffineExpr e : llvm::reverse(out.getResults()))
    if (auto d = dyn_cast<AffineDimExpr>(e); d && llvm::is_contained(others, d.getPosition())) {
      loops.row = d.getPosition();
      break;
    }
  if (dims->k.size() == 1)
    loops.k = dims->k.front();
  return loops;
}

//===----------------------------------------------------------------------===//
// The strategy: one #relax_cpu.tiles per op
//===----------------------------------------------------------------------===//

/// Below this many output pixels per image, a convolution is one matrix
/// product over the whole batch: per image, the few columns (a LeNet's
/// 10x10 output: 100, 6 vectors and a tail) left the register tiles'
/// loops and the tails most of the time (16 -> 6 channels of 5x5 on 14x14,
/// batch 64: 3.0 -> 0.9 ms).
static constexpr int64_t kMergeBatchBelowPixels = 256;

namespace {
/// The selection being made for one op (the fields of TilesAttr).
struct TilePlan {
  SmallVector<int64_t> outer, inner, cacheBlock;
  bool contraction = false;
  int64_t splitK = 0;
  Packing pack = Packing::none;
  int64_t panelCols = 0;

  /// (Lists of zeros are left out: no loop tiled at that level.)
  TilesAttr get(MLIRContext *ctx) const {
    auto orNone = [](ArrayRef<int64_t> sizes) {
      return llvm::all_of(sizes, [](int64_t s) { return s == 0; }) ? ArrayRef<int64_t>() : sizes;
    };
    return TilesAttr::get(ctx, outer, orNone(inner), orNone(cacheBlock), contraction, splitK,
                          pack, panelCols);
  }
};

/// What the contraction strategies read of the op.
struct Contraction {
  // (Op interfaces' accessors are not const.)
  mutable linalg::LinalgOp op;
  SmallVector<int64_t> ranges;
  ContractionLoops loops;
  int64_t lanes;
  /// Packing copies rewrite linalg.generic ops only.
  bool packable;

  bool isReduction(unsigned d) const {
    return linalg::isReductionIterator(op.getIteratorTypesArray()[d]);
  }
  int64_t rows() const { return loops.row ? ranges[*loops.row] : 1; }
};
} // namespace

static TilePlan packFirst(Packing pack) {
  TilePlan plan;
  plan.contraction = true;
  plan.pack = pack;
  return plan;
}

/// `a @ b^T` as partial dot products (see relax-cpu-tile): rows x cols of
/// them, each step loading `rows` vectors of a and `cols` of b for rows *
/// cols FMAs; `outer` tiles the parallel loops (the sum's tile).
static TilePlan planDotProducts(const Contraction &c, const CPUTarget &target) {
  unsigned numLoops = c.op.getNumLoops();
  TilePlan plan;
  plan.contraction = true;
  plan.splitK = c.lanes;
  plan.outer.assign(numLoops, 1);
  for (unsigned d = 0; d < numLoops; ++d)
    if (c.isReduction(d))
      plan.outer[d] = 0;
  int64_t cols = chooseVectorTile(c.ranges[c.loops.col], 1, 4);
  plan.outer[c.loops.col] = cols;
  if (c.loops.row)
    plan.outer[*c.loops.row] =
        std::min(c.rows(), std::max<int64_t>(1, target.accumulatorRegisters / cols));
  return plan;
}

/// Whether the register tiles of `c` (`cols` wide) should read a copy of its
/// transposed lhs (x^T @ g: each step of a row tile reads `rows` elements of
/// one lhs row, rows a page apart, which share L1 sets): when enough column
/// tiles read it, they then broadcast from `rows` rows that stay in L1. (Not
/// when the reduction is walked in cache blocks: 8192x1024^T @ 8192x256 ran
/// the same with the copy, which held 32 MiB more.)
static bool wantsRowCopy(const Contraction &c, int64_t cols) {
  return c.packable && c.loops.row && c.loops.k && c.ranges[c.loops.col] / cols >= kLhsCopyMinColTiles &&
         c.ranges[*c.loops.k] <= 2 * kCacheBlock && iterations(c.ranges) >= (int64_t(1) << 20) &&
         stridedLhs(c.op, c.loops.col, *c.loops.row);
}

/// The panel width for the rhs of `c` (0: none). Long rhs rows: each step of
/// a tile reads `cols` columns of one rhs row, rows a page or more apart (4
/// KiB: 1024 floats), which the L1 cache cannot keep (same sets) nor the
/// prefetcher follow. A copy into (reduction x cols) panels, read once per
/// panel, makes every row tile stream one contiguous block. The copy (the
/// whole rhs, out of cache for a large one) pays only when many output rows
/// reuse each panel. (Copying the row-major lhs transposed was tried as well
/// and removed: 10% slower on the MLP step, and 64x784x256, 128x1024x1024
/// slower.)
static int64_t panelColumns(const Contraction &c, int64_t cols) {
  if (!c.packable || !c.loops.row || c.rows() < kPanelMinRows ||
      iterations(c.ranges) < (int64_t(1) << 20))
    return 0;
  OpOperand *rhs = panelOperand(c.op, c.loops.col);
  if (!rhs)
    return 0;
  int64_t n = c.ranges[c.loops.col];
  auto type = cast<ShapedType>(rhs->get().getType());
  int64_t bytes = std::max<int64_t>(1, type.getElementTypeBitWidth() / 8);
  return n > cols && n % cols == 0 && n * bytes >= kPanelRowBytes ? cols : 0;
}

/// The outer-product register tile: `rows` x `cols` of the output (cols
/// along its contiguous loop, up to four vectors; rows as many as the
/// accumulator registers allow), then one rank-1 update per reduction step;
/// a copy of an input first where the strategies above ask for one, and
/// cache blocks of a reduction longer than kCacheBlock whose rhs panel
/// (reduction x cols) would not stay in the L1/L2 cache.
static TilePlan planOuterProducts(const Contraction &c, const CPUTarget &target) {
  unsigned numLoops = c.op.getNumLoops();
  int64_t cols = chooseVectorTile(c.ranges[c.loops.col], c.lanes, 4 * c.lanes);
  if (wantsRowCopy(c, cols))
    return packFirst(Packing::rows);
  TilePlan plan;
  plan.contraction = true;
  plan.outer.assign(numLoops, 1);
  plan.inner.assign(numLoops, 0);
  plan.cacheBlock.assign(numLoops, 0);
  for (unsigned d = 0; d < numLoops; ++d) {
    if (!c.isReduction(d))
      continue;
    plan.outer[d] = 0;
    plan.inner[d] = 1;
    if (c.ranges[d] > 2 * kCacheBlock && c.ranges[d] % kCacheBlock == 0)
      plan.cacheBlock[d] = kCacheBlock;
  }
  int64_t vectors = llvm::divideCeil(cols, c.lanes);
  plan.outer[c.loops.col] = cols;
  if (c.loops.row)
    plan.outer[*c.loops.row] =
        std::min(std::clamp<int64_t>(target.accumulatorRegisters / vectors, 1, 16), c.rows());
  if (int64_t panels = panelColumns(c, cols)) {
    plan.pack = Packing::panels;
    plan.panelCols = panels;
  }
  return plan;
}

/// Whether the input of `c` read with strided columns (b in a @ b^T) has
/// no more elements than the output. Partial dot products end in one lane
/// sum per output element; a transposed copy of such a b costs less than
/// those sums even with few rows, and it stays in cache. (Attention's
/// q @ k^T, 8x4 batches of 128x64 @ (128x64)^T, and its 1024x256 @
/// (256x256)^T: the step 21.3 -> 20.4 ms, median of 3 alternating runs. The
/// MLP's 128x1024 @ (1024x1024)^T, b eight times the output, stays as partial
/// dot products: with the copy it ran slower, see kPackRows.)
static bool stridedInputFitsOutput(const Contraction &c) {
  OpOperand *init = c.op.getDpsInitOperand(0);
  auto output = cast<ShapedType>(init->get().getType());
  if (!output.hasStaticShape() || !c.op.getMatchingIndexingMap(init).isProjectedPermutation())
    return false;
  for (OpOperand *input : c.op.getDpsInputOperands()) {
    AffineMap map = c.op.getMatchingIndexingMap(input);
    if (!map.isFunctionOfDim(c.loops.col))
      continue;
    auto strided = cast<ShapedType>(input->get().getType());
    return map.isProjectedPermutation() && strided.hasStaticShape() &&
           strided.getNumElements() <= output.getNumElements();
  }
  return false;
}

/// A register contraction's strategy (see relax-cpu-tile).
static TilePlan planContraction(const Contraction &c, const CPUTarget &target) {
  if (isDotProductForm(c.op, c.loops.col, c.ranges, c.lanes)) {
    // Many rows, or a strided input no larger than the output: a transposed
    // copy of it (read once per row tile otherwise) pays for itself; then
    // the outer-product tiles.
    if (c.packable && c.loops.row && (c.rows() >= kPackRows || stridedInputFitsOutput(c)))
      return packFirst(Packing::columns);
    return planDotProducts(c, target);
  }
  // Strided columns not in the dot-product form (a reduction that is not a
  // multiple of the vector: dz @ w^T with 10 classes): a transposed copy,
  // read by whole vectors by every row tile, costs less than gathering each
  // column vector once per row tile.
  if (c.packable && c.loops.row && c.rows() >= kStridedCopyMinRows &&
      readsColumnsStrided(c.op, c.loops.col))
    return packFirst(Packing::columns);
  return planOuterProducts(c, target);
}

/// Everything that is not a contraction. A transposing copy (an input whose
/// innermost loop is not the output's: a transpose that a packing step or the
/// program materializes): square tiles of a vector's lanes (at most
/// kTransposeTile), each read as rows of the input, transposed in registers
/// (shuffles) and written as rows of the output, instead of rows gathered or
/// scattered one element at a time. Else rows of the largest operand's
/// innermost dimension, up to eight vectors.
static TilePlan planRows(linalg::LinalgOp op, ArrayRef<int64_t> ranges, int64_t lanes) {
  TilePlan plan;
  plan.outer.assign(op.getNumLoops(), 1);
  int64_t square = std::min<int64_t>(lanes, kTransposeTile);
  if (std::optional<std::pair<unsigned, unsigned>> dims = transposedDims(op, ranges, square)) {
    plan.outer[dims->first] = square;
    plan.outer[dims->second] = square;
    return plan;
  }
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
  unsigned dim = vecDim.value_or(op.getNumLoops() - 1);
  plan.outer[dim] = chooseVectorTile(ranges[dim], lanes, 8 * lanes);
  return plan;
}

/// A float convolution with static shapes as the product of its filter with
/// its patches (relax-cpu-pack): per image, or for the whole batch below
/// kMergeBatchBelowPixels output pixels.
static TilesAttr selectConvolution(linalg::Conv2DNchwFchwOp conv) {
  auto x = cast<RankedTensorType>(conv.getInputs()[0].getType());
  auto w = cast<RankedTensorType>(conv.getInputs()[1].getType());
  auto out = cast<RankedTensorType>(conv.getOutputs()[0].getType());
  Type elt = out.getElementType();
  if (!isa<FloatType>(elt) || x.getElementType() != elt || w.getElementType() != elt ||
      !x.hasStaticShape() || !w.hasStaticShape() || !out.hasStaticShape())
    return nullptr;
  bool merge = x.getDimSize(0) > 1 && out.getDimSize(2) * out.getDimSize(3) < kMergeBatchBelowPixels;
  TilePlan plan;
  plan.pack = merge ? Packing::im2col_batch : Packing::im2col_image;
  return plan.get(conv.getContext());
}

TilesAttr mlir::relax::selectCPUTiles(linalg::LinalgOp op, const CPUTarget &target,
                                      bool allowPacking) {
  if (!op.hasPureTensorSemantics() || op.hasDynamicShape() || op.getNumLoops() == 0)
    return nullptr;
  if (auto conv = dyn_cast<linalg::Conv2DNchwFchwOp>(op.getOperation()))
    return allowPacking ? selectConvolution(conv) : nullptr;
  SmallVector<int64_t> ranges = op.getStaticLoopRanges();
  if (llvm::any_of(ranges, [](int64_t r) { return r <= 0; }) || !isVectorizable(op))
    return nullptr;
  Type element = widestElement(op);
  if (!element)
    return nullptr;
  int64_t lanes = target.lanes(element);
  if (isRegisterContraction(op))
    if (std::optional<ContractionLoops> loops = contractionLoops(op)) {
      Contraction c{op, ranges, *loops, lanes,
                    allowPacking && isa<linalg::GenericOp>(op.getOperation())};
      return planContraction(c, target).get(op->getContext());
    }
  return planRows(op, ranges, lanes).get(op->getContext());
}

void mlir::relax::selectAllCPUTiles(Operation *root, const CPUTarget &target) {
  root->walk([&](linalg::LinalgOp op) {
    if (!getTiles(op))
      if (TilesAttr tiles = selectCPUTiles(op, target))
        op->setAttr(RelaxCPUDialect::kTilesAttrName, tiles);
  });
}
