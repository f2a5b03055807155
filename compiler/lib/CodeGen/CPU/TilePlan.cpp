//===- TilePlan.cpp - the CPU target and tile plans -----------------------===//
//
// Tile sizes for one linalg op on the host CPU (`planCPUTiles`), and the
// predicates the CPU passes share (TilePlan.h).
//
//===----------------------------------------------------------------------===//

#include "TilePlan.h"

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



/// The register tile's row loop of contraction `op` whose output's contiguous
/// loop is `colDim`: the innermost other loop of the output that the inputs
/// reading `colDim` do not read (`m` of `(m, n)`, also when the output is
/// split into column panels `(m, nb, n)`).
std::optional<unsigned> mlir::relax::cpu::outputRowDim(linalg::LinalgOp op, unsigned colDim) {
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

