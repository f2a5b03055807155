//===- Reductions.cpp - relax reductions to linalg.generic reductions -----===//

#include "LoweringUtils.h"

#include "relax-mlir/Dialect/Relax/IR/GradientUtils.h"

#include "mlir/Dialect/SCF/IR/SCF.h"

using namespace mlir;
using namespace mlir::relax;
using namespace mlir::relax::lowering;

namespace {

/// relax.sum / relax.mean: a reduction generic accumulating in a wider type,
/// then one elementwise generic dividing (mean) and converting back, reshaped
/// for keepdims.
template <typename Op, bool IsMean>
struct ReductionLowering : OpConversionPattern<Op> {
  using OpConversionPattern<Op>::OpConversionPattern;
  LogicalResult matchAndRewrite(Op op, typename Op::Adaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    double count = IsMean ? static_cast<double>(op.getReducedElementCount()) : 1.0;
    rewriter.replaceOp(op, buildReduction(rewriter, op.getLoc(), adaptor.getX(),
                                          op.getReducedAxes(), op.getType(), count));
    return success();
  }
};

/// relax.collapse_sum_to: sums the broadcast dims, then reshapes.
struct CollapseSumToLowering : OpConversionPattern<CollapseSumToOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(CollapseSumToOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    RankedTensorType in = op.getX().getType(), out = op.getType();
    int64_t lead = in.getRank() - out.getRank();
    SmallVector<int64_t> axes;
    for (int64_t d = 0; d < in.getRank(); ++d)
      if (d < lead || (out.getDimSize(d - lead) == 1 && in.getDimSize(d) != 1))
        axes.push_back(d);
    rewriter.replaceOp(op, buildReduction(rewriter, op.getLoc(), adaptor.getX(), axes, out, 1.0));
    return success();
  }
};

enum class Extremum { Max, Min };

/// relax.max / relax.min: a reduction from -inf/+inf (INT_MIN/INT_MAX) with
/// maximumf/minimumf, which propagate NaN as numpy does.
template <typename Op, Extremum Kind>
struct ExtremumLowering : OpConversionPattern<Op> {
  using OpConversionPattern<Op>::OpConversionPattern;
  LogicalResult matchAndRewrite(Op op, typename Op::Adaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    Type elt = op.getType().getElementType();
    bool isMax = Kind == Extremum::Max;
    TypedAttr identity;
    if (auto f = dyn_cast<FloatType>(elt))
      identity = rewriter.getFloatAttr(elt, APFloat::getInf(f.getFloatSemantics(), isMax));
    else
      identity = rewriter.getIntegerAttr(
          elt, isMax ? APInt::getSignedMinValue(elt.getIntOrFloatBitWidth())
                     : APInt::getSignedMaxValue(elt.getIntOrFloatBitWidth()));
    Value r = buildReduce(rewriter, op.getLoc(), adaptor.getX(), op.getReducedAxes(), elt,
                          identity, [&](OpBuilder &b, Location l, ValueRange v) -> Value {
                            if (isMax)
                              return floatOrInt<arith::MaximumFOp, arith::MaxSIOp>(b, l, v[0],
                                                                                   v[1]);
                            return floatOrInt<arith::MinimumFOp, arith::MinSIOp>(b, l, v[0], v[1]);
                          });
    rewriter.replaceOp(op, reshapeTensor(rewriter, op.getLoc(), r, op.getType()));
    return success();
  }
};

/// relax.argmax / relax.argmin in relax ops that lower in turn: the
/// extremum over the axis (kept), then the least position along it where x
/// equals it or is NaN (where the extremum is NaN too), an i64 min over the
/// axis; x is flattened first without an axis.
template <typename Op, Extremum Kind>
struct ArgExtremumLowering : OpConversionPattern<Op> {
  using OpConversionPattern<Op>::OpConversionPattern;
  LogicalResult matchAndRewrite(Op op, typename Op::Adaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value x = adaptor.getX();
    auto type = cast<RankedTensorType>(x.getType());
    int64_t axis = 0;
    if (std::optional<int64_t> given = op.getAxis())
      axis = *given < 0 ? *given + type.getRank() : *given;
    else
      x = vjp::reshapeTo(rewriter, loc, x, {type.getNumElements()});
    type = cast<RankedTensorType>(x.getType());
    DenseI64ArrayAttr axes = rewriter.getDenseI64ArrayAttr({axis});
    BoolAttr keep = rewriter.getBoolAttr(true);
    Value extremum = Kind == Extremum::Max ? MaxOp::create(rewriter, loc, x, axes, keep).getResult()
                                           : MinOp::create(rewriter, loc, x, axes, keep).getResult();
    Value positions = vjp::iota(rewriter, loc, type.getDimSize(axis), rewriter.getI64Type(),
                                type.getRank(), axis);
    Value past = vjp::scalarLike(rewriter, loc, positions, type.getDimSize(axis));
    Value found = vjp::where(rewriter, loc, EqualOp::create(rewriter, loc, x, extremum), positions,
                             past);
    if (isa<FloatType>(type.getElementType()))
      found = vjp::where(rewriter, loc, NotEqualOp::create(rewriter, loc, x, x), positions, found);
    Value first = MinOp::create(rewriter, loc, found, axes, keep);
    rewriter.replaceOp(op, vjp::reshapeTo(rewriter, loc, first, op.getType().getShape()));
    return success();
  }
};

/// relax.prod: a product from 1 in the accumulator type, rounded once.
struct ProdLowering : OpConversionPattern<ProdOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(ProdOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Type elt = op.getType().getElementType(), acc = accumulatorType(elt);
    TypedAttr one = isa<FloatType>(acc) ? TypedAttr(rewriter.getFloatAttr(acc, 1.0))
                                        : TypedAttr(rewriter.getIntegerAttr(acc, 1));
    Value r = buildReduce(rewriter, loc, adaptor.getX(), op.getReducedAxes(), acc, one,
                          [](OpBuilder &b, Location l, ValueRange v) {
                            return buildMul(b, l, v[0], v[1]);
                          });
    r = finishReduction(rewriter, loc, r, elt, 1.0);
    rewriter.replaceOp(op, reshapeTensor(rewriter, loc, r, op.getType()));
    return success();
  }
};

/// relax.variance as the mean of squared deviations from the mean (two
/// passes: no cancellation), in relax ops that lower in turn.
struct VarianceLowering : OpConversionPattern<VarianceOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(VarianceOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value x = adaptor.getX();
    DenseI64ArrayAttr axes = rewriter.getDenseI64ArrayAttr(op.getReducedAxes());
    Value mean = MeanOp::create(rewriter, loc, x, axes, rewriter.getBoolAttr(true));
    Value centered = SubtractOp::create(rewriter, loc, x, mean);
    Value squared = MultiplyOp::create(rewriter, loc, centered, centered);
    rewriter.replaceOpWithNewOp<MeanOp>(op, op.getType(), squared, axes, op.getKeepdimsAttr());
    return success();
  }
};

/// relax.cumsum: an scf.for along the axis carrying the running sum of one
/// slice in the accumulator type; each step inserts the rounded sum.
struct CumsumLowering : OpConversionPattern<CumsumOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(CumsumOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value x = adaptor.getX();
    RankedTensorType type = op.getType();
    Type elt = type.getElementType(), acc = accumulatorType(elt);
    int64_t axis = op.getNormalizedAxis(), rank = type.getRank();
    // A scan over at most one element is the identity. (A one-trip loop would
    // be inlined by the canonicalizer, and its step, which reads its own
    // output, then fused into a broadcasting consumer that re-accumulates.)
    if (type.getDimSize(axis) <= 1) {
      rewriter.replaceOp(op, x);
      return success();
    }
    SmallVector<int64_t> sliceShape(type.getShape());
    sliceShape[axis] = 1;
    auto sliceType = RankedTensorType::get(sliceShape, elt);
    auto accType = RankedTensorType::get(sliceShape, acc);
    Value zero = scalar(rewriter, loc, acc, 0.0);
    Value init = filledTensor(rewriter, loc, accType, zero);
    Value out = emptyTensor(rewriter, loc, type);
    Value lb = arith::ConstantIndexOp::create(rewriter, loc, 0);
    Value ub = arith::ConstantIndexOp::create(rewriter, loc, type.getDimSize(axis));
    Value step = arith::ConstantIndexOp::create(rewriter, loc, 1);
    auto loop = scf::ForOp::create(
        rewriter, loc, lb, ub, step, ValueRange{init, out},
        [&](OpBuilder &b, Location l, Value i, ValueRange carried) {
          SmallVector<OpFoldResult> offsets(rank, b.getIndexAttr(0)), strides(rank,
                                                                              b.getIndexAttr(1));
          SmallVector<OpFoldResult> sizes =
              llvm::map_to_vector(sliceShape, [&](int64_t s) -> OpFoldResult {
                return b.getIndexAttr(s);
              });
          offsets[axis] = i;
          Value slice =
              tensor::ExtractSliceOp::create(b, l, sliceType, x, offsets, sizes, strides);
          // The running sum is updated in place (bufferization needs the
          // yielded value to be the iteration argument's buffer).
          SmallVector<AffineMap> maps(2, AffineMap::getMultiDimIdentityMap(rank, b.getContext()));
          SmallVector<utils::IteratorType> iterators(rank, utils::IteratorType::parallel);
          Value running =
              linalg::GenericOp::create(
                  b, l, TypeRange{accType}, ValueRange{slice}, ValueRange{carried[0]}, maps,
                  iterators,
                  [&](OpBuilder &nb, Location nl, ValueRange v) {
                    linalg::YieldOp::create(
                        nb, nl, buildAdd(nb, nl, v[1], convertScalar(nb, nl, v[0], acc)));
                  })
                  .getResult(0);
          Value rounded = finishReduction(b, l, running, elt, 1.0);
          Value next =
              tensor::InsertSliceOp::create(b, l, rounded, carried[1], offsets, sizes, strides);
          scf::YieldOp::create(b, l, ValueRange{running, next});
        });
    rewriter.replaceOp(op, loop.getResult(1));
    return success();
  }
};

} // namespace

void mlir::relax::lowering::populateReductionLoweringPatterns(RewritePatternSet &patterns) {
  patterns.add<ReductionLowering<SumOp, false>, ReductionLowering<MeanOp, true>,
               CollapseSumToLowering, ExtremumLowering<MaxOp, Extremum::Max>,
               ArgExtremumLowering<ArgmaxOp, Extremum::Max>,
               ArgExtremumLowering<ArgminOp, Extremum::Min>,
               ExtremumLowering<MinOp, Extremum::Min>, ProdLowering, VarianceLowering,
               CumsumLowering>(patterns.getContext());
}
