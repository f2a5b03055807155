//===- LowerVectors.cpp - relax-cpu-lower-vectors -------------------------===//
//
// relax-cpu-hoist-transfers (memrefs): copies as linalg.copy, vector
// transfers of one buffer hoisted out of loops. relax-cpu-lower-vectors: tree
// reductions of rows, 1-D vector.fma form, 0-d transfers as scalar loads/stores.
//
//===----------------------------------------------------------------------===//

#include "TilePlan.h"
#include "relax-mlir/CodeGen/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/Transforms/Hoisting.h"
#include "mlir/Dialect/Math/Transforms/Passes.h"
#include "mlir/Dialect/Vector/Transforms/LoweringPatterns.h"
#include "mlir/Dialect/Vector/Transforms/VectorRewritePatterns.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace mlir::relax {
#define GEN_PASS_DEF_CPULOWERVECTORSPASS
#define GEN_PASS_DEF_CPUHOISTTRANSFERSPASS
#include "relax-mlir/CodeGen/Passes.h.inc"
} // namespace mlir::relax

using namespace mlir;
using namespace mlir::relax;
using namespace mlir::relax::cpu;

namespace {
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

struct CPUHoistTransfersPass : relax::impl::CPUHoistTransfersPassBase<CPUHoistTransfersPass> {
  using CPUHoistTransfersPassBase::CPUHoistTransfersPassBase;

  void runOnOperation() override {
    func::FuncOp func = getOperation();
    // Copies that bufferization made (padding inserts, out-parameters) as
    // linalg.copy: inline loops LLVM vectorizes, instead of the runtime's
    // memrefCopy, which walks a strided view element by element.
    SmallVector<memref::CopyOp> copies;
    func.walk([&](memref::CopyOp copy) { copies.push_back(copy); });
    IRRewriter rewriter(&getContext());
    for (memref::CopyOp copy : copies) {
      rewriter.setInsertionPoint(copy);
      linalg::CopyOp::create(rewriter, copy.getLoc(), copy.getSource(), copy.getTarget());
      rewriter.eraseOp(copy);
    }
    linalg::hoistRedundantVectorTransfers(func, /*verifyNonZeroTrip=*/true);
  }
};

struct CPULowerVectorsPass : relax::impl::CPULowerVectorsPassBase<CPULowerVectorsPass> {
  using CPULowerVectorsPassBase::CPULowerVectorsPassBase;

  void runOnOperation() override {
    MLIRContext *ctx = &getContext();
    func::FuncOp func = getOperation();
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
} // namespace
