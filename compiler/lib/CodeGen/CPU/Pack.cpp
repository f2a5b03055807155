//===- Pack.cpp - relax-cpu-pack ------------------------------------------===//
//
// relax-cpu-pack (tensors): the copies that relax-cpu-select-tiles asked for
// (`pack` of #relax_cpu.tiles): convolutions as products of the filter with
// their patches, transposed copies of strided inputs, rhs column panels. An
// op that a copy rewrites gets the selection of what it became, and every op
// made here gets one, from the same strategy (selectCPUTiles).
//
//===----------------------------------------------------------------------===//

#include "TilePlan.h"
#include "relax-mlir/CodeGen/Passes.h"
#include "relax-mlir/Conversion/ConvPatches.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace mlir::relax {
#define GEN_PASS_DEF_CPUPACKPASS
#include "relax-mlir/CodeGen/Passes.h.inc"
} // namespace mlir::relax

using namespace mlir;
using namespace mlir::relax;
using namespace mlir::relax::cpu;

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

/// The most bytes of patches one chunk of images gathers (see
/// imagesPerChunk): half the smallest L2 cache of the cores this targets (1
/// MiB per core on Zen 4 and Skylake-X, 2 MiB on Sapphire Rapids), so that
/// the patches, written by the gather, are still there when the product
/// reads them, with the filter and the output tile beside them. LeNet's
/// second convolution's input gradient gathered 20 MB of patches for the
/// whole batch (16 x 5 x 5 rows of 64 x 14 x 14 pixels): the gather and the
/// product were a quarter of the step, both streaming through memory.
static constexpr int64_t kPatchChunkBytes = 512 * 1024;

/// Images per chunk of the convolution `s`: the whole batch when its patches
/// fit in kPatchChunkBytes, else the largest divisor of the batch whose
/// patches do (at least one image).
static int64_t imagesPerChunk(const ConvShape &s) {
  int64_t bytes = std::max<int64_t>(1, s.elt.getIntOrFloatBitWidth() / 8);
  int64_t perImage = s.c * s.kh * s.kw * s.oh * s.ow * bytes;
  if (s.n <= 1 || perImage * s.n <= kPatchChunkBytes)
    return s.n;
  int64_t most = std::clamp<int64_t>(kPatchChunkBytes / std::max<int64_t>(perImage, 1), 1, s.n);
  for (int64_t images = most; images > 1; --images)
    if (s.n % images == 0)
      return images;
  return 1;
}

/// The convolution `s` in a loop over chunks of `images` images: each
/// iteration gathers the patches of its images only and multiplies them
/// (`product`), into its slice of the output. An output that starts as a
/// fill of an empty tensor is filled per chunk (the fill then still fuses
/// into the product's register tiles).
static Value chunkedProduct(RewriterBase &rewriter, Location loc, const ConvShape &s,
                            int64_t images,
                            llvm::function_ref<Value(const ConvShape &)> product) {
  auto fill = s.init.getDefiningOp<linalg::FillOp>();
  bool refilled = fill && fill.getOutputs()[0].getDefiningOp<tensor::EmptyOp>();
  Value start = refilled ? fill.getOutputs()[0] : s.init;
  Value lb = arith::ConstantIndexOp::create(rewriter, loc, 0);
  Value ub = arith::ConstantIndexOp::create(rewriter, loc, s.n);
  Value step = arith::ConstantIndexOp::create(rewriter, loc, images);
  auto loop = scf::ForOp::create(rewriter, loc, lb, ub, step, ValueRange{start});
  OpBuilder::InsertionGuard guard(rewriter);
  rewriter.setInsertionPointToStart(loop.getBody());
  Value n = loop.getInductionVar(), out = loop.getRegionIterArgs()[0];
  // Images [n, n + images) of an NCHW tensor of `shape`.
  SmallVector<OpFoldResult> offsets{n}, strides(4, rewriter.getIndexAttr(1));
  offsets.append(3, rewriter.getIndexAttr(0));
  auto sizes = [&](ArrayRef<int64_t> shape) {
    SmallVector<OpFoldResult> sizes{rewriter.getIndexAttr(images)};
    for (int64_t d : shape.drop_front())
      sizes.push_back(rewriter.getIndexAttr(d));
    return sizes;
  };
  ConvShape chunk = s;
  chunk.n = images;
  chunk.outType = RankedTensorType::get({images, s.f, s.oh, s.ow}, s.elt);
  chunk.x = tensor::ExtractSliceOp::create(
      rewriter, loc, s.x, offsets, sizes(cast<RankedTensorType>(s.x.getType()).getShape()),
      strides);
  SmallVector<OpFoldResult> outSizes = sizes(s.outType.getShape());
  if (refilled) {
    Value empty = tensor::EmptyOp::create(rewriter, loc, chunk.outType.getShape(), s.elt);
    chunk.init = linalg::FillOp::create(rewriter, loc, fill.getInputs()[0], empty).getResult(0);
  } else {
    chunk.init = tensor::ExtractSliceOp::create(rewriter, loc, out, offsets, outSizes, strides);
  }
  Value result = product(chunk);
  Value updated =
      tensor::InsertSliceOp::create(rewriter, loc, result, out, offsets, outSizes, strides);
  scf::YieldOp::create(rewriter, loc, updated);
  return loop.getResult(0);
}

/// A float convolution as matrix products of the filter with the patches of
/// x: gathered by one op, each output row a read of consecutive elements of
/// x when the width stride is 1, which the vectorizer makes one contiguous
/// load. Upstream's im2col flattens the pixels first, so that every patch
/// element became a gather (the gathers were most of a small CNN's
/// convolution time). One product per image, or one for the whole batch
/// (`mergeBatch`); with `chunks`, in a loop over chunks of images when the
/// batch's patches exceed kPatchChunkBytes.
static LogicalResult im2colRowsContiguous(RewriterBase &rewriter, linalg::Conv2DNchwFchwOp conv,
                                          bool mergeBatch, bool chunks) {
  std::optional<ConvShape> s = convShape(conv);
  if (!s)
    return failure();
  Location loc = conv.getLoc();
  // (A chunk of one image: the per-image product, without the transpose
  // back that the merged layout needs.)
  auto product = [&](const ConvShape &shape) {
    return mergeBatch && shape.n > 1 ? mergedBatchProduct(rewriter, loc, shape)
                                     : perImageProduct(rewriter, loc, shape);
  };
  // (Not on several threads: a chunk's product is too small to split across
  // them, and the ResNet block's step at 2 threads went from 15.0 to 17.2
  // ms with chunks.)
  int64_t images = chunks ? imagesPerChunk(*s) : s->n;
  rewriter.replaceOp(conv, images == s->n ? product(*s) : chunkedProduct(rewriter, loc, *s, images,
                                                                          product));
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


/// Makes the copy `tiles` asks of contraction `op` (a generic). Returns the
/// op to select tiles for again (the panelled op replaces `op`), or null
/// when the copy cannot be made.
static linalg::GenericOp packContraction(RewriterBase &rewriter, linalg::GenericOp op,
                                         TilesAttr tiles) {
  std::optional<ContractionLoops> loops = contractionLoops(op);
  if (!loops)
    return nullptr;
  switch (tiles.getPack()) {
  case Packing::rows: {
    OpOperand *lhs = loops->row ? stridedLhs(op, loops->col, *loops->row) : nullptr;
    if (!lhs || !loops->k)
      return nullptr;
    packStrided(rewriter, op, *loops->k, lhs);
    return op;
  }
  case Packing::panels: {
    linalg::GenericOp panels = packPanels(rewriter, op, loops->col, tiles.getPanelCols());
    if (panels)
      expandEpilogue(panels);
    return panels;
  }
  case Packing::columns:
    packStrided(rewriter, op, loops->col);
    return op;
  default:
    return nullptr;
  }
}

namespace {
struct CPUPackPass : relax::impl::CPUPackPassBase<CPUPackPass> {
  using CPUPackPassBase::CPUPackPassBase;

  void runOnOperation() override {
    CPUTarget target = CPUTarget::host(vectorBits);
    IRRewriter rewriter(&getContext());
    // Convolutions first: their products are contractions, which may ask
    // for a copy in turn.
    for (auto [op, tiles] : packedOps()) {
      auto conv = dyn_cast<linalg::Conv2DNchwFchwOp>(op.getOperation());
      if (!conv)
        continue;
      op->removeAttr(RelaxCPUDialect::kTilesAttrName);
      rewriter.setInsertionPoint(conv);
      if (failed(im2colRowsContiguous(rewriter, conv, tiles.getPack() == Packing::im2col_batch,
                                      /*chunks=*/numThreads <= 1)))
        (void)linalg::rewriteInIm2Col(rewriter, conv);
    }
    selectAllCPUTiles(getOperation(), target);
    for (auto [op, tiles] : packedOps())
      if (auto generic = dyn_cast<linalg::GenericOp>(op.getOperation()))
        packUntilTiled(rewriter, generic, tiles, target);
    // The copies and epilogues made here.
    selectAllCPUTiles(getOperation(), target);
  }

  /// The ops whose tiles ask for a copy first.
  SmallVector<std::pair<linalg::LinalgOp, TilesAttr>> packedOps() {
    SmallVector<std::pair<linalg::LinalgOp, TilesAttr>> packed;
    getOperation().walk([&](linalg::LinalgOp op) {
      if (TilesAttr tiles = getTiles(op); tiles && tiles.getPack() != Packing::none)
        packed.push_back({op, tiles});
    });
    return packed;
  }

  /// Packs `op` as `tiles` asks, then as the selection for what it became
  /// asks (a transposed lhs may then want rhs panels), at most three copies;
  /// `op` ends with tiles that need no copy.
  static void packUntilTiled(RewriterBase &rewriter, linalg::GenericOp op, TilesAttr tiles,
                             const CPUTarget &target) {
    for (int round = 0; round < 3 && tiles.getPack() != Packing::none; ++round) {
      linalg::GenericOp result = packContraction(rewriter, op, tiles);
      if (!result)
        break;
      op = result;
      tiles = selectCPUTiles(op, target);
      if (!tiles || !tiles.getContraction())
        break;
    }
    // (A copy that could not be made leaves the op as it was: tiled so.)
    if (tiles && tiles.getPack() != Packing::none)
      tiles = selectCPUTiles(op, target, /*allowPacking=*/false);
    if (tiles)
      op->setAttr(RelaxCPUDialect::kTilesAttrName, tiles);
    else
      op->removeAttr(RelaxCPUDialect::kTilesAttrName);
  }
};
} // namespace
