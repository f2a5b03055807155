//===- NeuralNetwork.cpp - relax neural-network ops to linalg -------------===//
//
// The softmax family, cross entropy and layer_norm are rewritten into simpler
// relax ops (which the conversion then lowers in turn, with their accumulating
// reductions; f16 and bf16 compute in f32 and round once); nll_loss gathers
// with one linalg.generic over the targets.
//
//===----------------------------------------------------------------------===//

#include "LoweringUtils.h"

#include "relax-mlir/Conversion/ConvPatches.h"
#include "relax-mlir/Dialect/Relax/IR/GradientUtils.h"

using namespace mlir;
using namespace mlir::relax;
using namespace mlir::relax::lowering;

namespace {

/// `v` converted to f32 when it is an f16 or bf16 tensor (relax.astype): the
/// composite ops below compute in f32 and round once at the end.
static Value widenHalf(OpBuilder &b, Location loc, Value v) {
  auto type = cast<RankedTensorType>(v.getType());
  if (!isa<Float16Type, BFloat16Type>(type.getElementType()))
    return v;
  return AstypeOp::create(b, loc, type.clone(b.getF32Type()), v);
}

/// Replaces `op` by `v` converted back to the op's result type.
static void replaceNarrowing(ConversionPatternRewriter &rewriter, Operation *op, Value v) {
  Type type = op->getResult(0).getType();
  if (v.getType() == type)
    rewriter.replaceOp(op, v);
  else
    rewriter.replaceOpWithNewOp<AstypeOp>(op, type, v);
}

/// softmax: e = exp(x - max(x)), e / sum(e); log_softmax: (x - m) - log(sum(exp(x - m))).
template <typename Op, bool IsLog>
struct SoftmaxLowering : OpConversionPattern<Op> {
  using OpConversionPattern<Op>::OpConversionPattern;
  LogicalResult matchAndRewrite(Op op, typename Op::Adaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value x = widenHalf(rewriter, loc, adaptor.getX());
    DenseI64ArrayAttr axis = rewriter.getDenseI64ArrayAttr({op.getNormalizedAxis()});
    BoolAttr keep = rewriter.getBoolAttr(true);
    Value shifted = SubtractOp::create(rewriter, loc, x, MaxOp::create(rewriter, loc, x, axis, keep));
    Value e = ExpOp::create(rewriter, loc, shifted);
    Value total = SumOp::create(rewriter, loc, e, axis, keep);
    Value y = IsLog ? Value(SubtractOp::create(rewriter, loc, shifted,
                                               LogOp::create(rewriter, loc, total)))
                    : Value(DivideOp::create(rewriter, loc, e, total));
    replaceNarrowing(rewriter, op, y);
    return success();
  }
};

/// cross_entropy_with_logits: -sum(pred * labels) * (1 / N).
struct CrossEntropyLowering : OpConversionPattern<CrossEntropyWithLogitsOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(CrossEntropyWithLogitsOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value product = MultiplyOp::create(rewriter, loc, adaptor.getPred(), adaptor.getLabels());
    Value total = SumOp::create(rewriter, loc, product, DenseI64ArrayAttr(),
                                rewriter.getBoolAttr(false));
    double scale = -1.0 / static_cast<double>(op.getBatchSize());
    rewriter.replaceOpWithNewOp<MultiplyOp>(op, total, vjp::scalarLike(rewriter, loc, total, scale));
    return success();
  }
};

/// layer_norm: (x - mean) * rsqrt(mean((x - mean)^2) + eps) * gamma + beta,
/// gamma and beta reshaped to broadcast along the normalized axes.
struct LayerNormLowering : OpConversionPattern<LayerNormOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(LayerNormOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value x = widenHalf(rewriter, loc, adaptor.getX());
    auto xType = cast<RankedTensorType>(x.getType());
    SmallVector<int64_t> axes = op.getNormalizedAxes();
    SmallVector<int64_t> paramShape(xType.getRank(), 1);
    for (int64_t a : axes)
      paramShape[a] = xType.getDimSize(a);
    auto paramType = xType.clone(paramShape);
    DenseI64ArrayAttr axesAttr = rewriter.getDenseI64ArrayAttr(axes);
    BoolAttr keep = rewriter.getBoolAttr(true);
    Value centered =
        SubtractOp::create(rewriter, loc, x, MeanOp::create(rewriter, loc, x, axesAttr, keep));
    Value var = MeanOp::create(rewriter, loc,
                               MultiplyOp::create(rewriter, loc, centered, centered), axesAttr,
                               keep);
    Value eps = vjp::scalarLike(rewriter, loc, x, op.getEpsilon().convertToDouble());
    Value rstd = RsqrtOp::create(rewriter, loc, AddOp::create(rewriter, loc, var, eps));
    Value gamma = ReshapeOp::create(rewriter, loc, paramType,
                                    widenHalf(rewriter, loc, adaptor.getGamma()));
    Value beta = ReshapeOp::create(rewriter, loc, paramType,
                                   widenHalf(rewriter, loc, adaptor.getBeta()));
    Value scaled = MultiplyOp::create(rewriter, loc,
                                      MultiplyOp::create(rewriter, loc, centered, rstd), gamma);
    replaceNarrowing(rewriter, op, AddOp::create(rewriter, loc, scaled, beta));
    return success();
  }
};

/// nll_loss: one generic over the targets yields each element's loss
/// -w[t] pred[n, t, d...] and weight w[t] (both 0 for an ignored or
/// out-of-range target); "sum" and "mean" then reduce in the accumulator type.
struct NllLossLowering : OpConversionPattern<NllLossOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(NllLossOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    MLIRContext *ctx = op.getContext();
    Value pred = adaptor.getPred(), targets = adaptor.getTargets(), weights = adaptor.getWeights();
    auto predType = cast<RankedTensorType>(pred.getType());
    auto targetType = cast<RankedTensorType>(targets.getType());
    Type elt = predType.getElementType(), idxElt = targetType.getElementType();
    int64_t classAxis = op.getClassAxis(), classes = predType.getDimSize(classAxis);
    int64_t ignore = op.getIgnoreIndex();
    auto elemType = targetType.clone(elt);
    int64_t rank = targetType.getRank();
    SmallVector<AffineMap> maps(3, AffineMap::getMultiDimIdentityMap(rank, ctx));
    SmallVector<utils::IteratorType> iterators(rank, utils::IteratorType::parallel);
    auto generic = linalg::GenericOp::create(
        rewriter, loc, TypeRange{elemType, elemType}, ValueRange{targets},
        ValueRange{emptyTensor(rewriter, loc, elemType), emptyTensor(rewriter, loc, elemType)},
        maps, iterators, [&](OpBuilder &b, Location l, ValueRange args) {
          if (classes == 0) { // no class: every target is out of range
            Value zero = scalar(b, l, elt, 0.0);
            linalg::YieldOp::create(b, l, ValueRange{zero, zero});
            return;
          }
          Value t = args[0];
          Value zeroIdx = scalar(b, l, idxElt, 0.0);
          Value inRange = arith::AndIOp::create(
              b, l, arith::CmpIOp::create(b, l, arith::CmpIPredicate::sge, t, zeroIdx),
              arith::CmpIOp::create(b, l, arith::CmpIPredicate::slt, t,
                                    scalar(b, l, idxElt, static_cast<double>(classes))));
          Value notIgnored = arith::CmpIOp::create(
              b, l, arith::CmpIPredicate::ne, t,
              arith::ConstantOp::create(b, l, b.getIntegerAttr(idxElt, ignore)));
          Value valid = arith::AndIOp::create(b, l, inRange, notIgnored);
          // A safe class index (0 when invalid: the value read is discarded).
          Value cls = arith::IndexCastOp::create(
              b, l, b.getIndexType(), arith::SelectOp::create(b, l, valid, t, zeroIdx));
          SmallVector<Value> at;
          for (int64_t d = 0; d < rank; ++d)
            at.push_back(linalg::IndexOp::create(b, l, d));
          at.insert(at.begin() + classAxis, cls);
          Value p = tensor::ExtractOp::create(b, l, pred, at);
          Value w = weights ? Value(tensor::ExtractOp::create(b, l, weights, ValueRange{cls}))
                            : scalar(b, l, elt, 1.0);
          Value zero = scalar(b, l, elt, 0.0);
          w = arith::SelectOp::create(b, l, valid, w, zero);
          // Selected (not multiplied by a zero weight): pred may hold -inf.
          Value loss = arith::SelectOp::create(
              b, l, valid, arith::NegFOp::create(b, l, arith::MulFOp::create(b, l, w, p)), zero);
          linalg::YieldOp::create(b, l, ValueRange{loss, w});
        });
    Value losses = generic.getResult(0), weightsUsed = generic.getResult(1);
    StringRef reduction = op.getReduction();
    if (reduction == "none") {
      rewriter.replaceOp(op, losses);
      return success();
    }
    Type acc = accumulatorType(elt);
    SmallVector<int64_t> all = llvm::to_vector(llvm::seq<int64_t>(0, rank));
    Value sum = buildSum(rewriter, loc, losses, all, acc);
    if (reduction == "sum") {
      rewriter.replaceOp(op, finishReduction(rewriter, loc, sum, elt, 1.0));
      return success();
    }
    Value denominator = buildSum(rewriter, loc, weightsUsed, all, acc);
    auto resultType = RankedTensorType::get({}, elt);
    rewriter.replaceOp(op, buildElementwise(rewriter, loc, resultType, ValueRange{sum, denominator},
                                            [&](OpBuilder &b, Location l, ValueRange v) {
                                              Value q = arith::DivFOp::create(b, l, v[0], v[1]);
                                              return convertScalar(b, l, q, elt);
                                            }));
    return success();
  }
};

/// `x` (NCHW) padded with `value` on the spatial axes as the windows read it:
/// padBefore rows before and readPadAfter (when positive) after.
static Value padSpatial(OpBuilder &b, Location loc, Value x, ArrayRef<WindowAxis> axes,
                        Value value) {
  SmallVector<int64_t> low(4, 0), high(4, 0);
  for (int i = 0; i < 2; ++i) {
    low[2 + i] = axes[i].padBefore;
    high[2 + i] = std::max<int64_t>(axes[i].readPadAfter(), 0);
  }
  return padTensor(b, loc, x, low, high, value);
}

static Attribute pairAttr(OpBuilder &b, int64_t h, int64_t w) {
  return b.getI64TensorAttr({h, w});
}

/// relax.conv2d: zero padding, then linalg.conv_2d_nchw_fchw (grouped:
/// linalg.conv_2d_ngchw_gfchw on (N, G, C/G, H, W) views), accumulating f16
/// and bf16 in f32.
struct Conv2dLowering : OpConversionPattern<Conv2dOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(Conv2dOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto type = cast<RankedTensorType>(op.getType());
    Type elt = type.getElementType(), acc = matmulAccumulatorType(elt);
    SmallVector<WindowAxis, 2> axes = op.getWindowAxes();
    Value x = padSpatial(rewriter, loc, adaptor.getX(), axes, scalar(rewriter, loc, elt, 0.0));
    Value w = adaptor.getW();
    Attribute strides = pairAttr(rewriter, axes[0].stride, axes[1].stride);
    Attribute dilations = pairAttr(rewriter, axes[0].dilation, axes[1].dilation);
    int64_t groups = static_cast<int64_t>(op.getGroups());
    auto zeroFilled = [&](RankedTensorType t) {
      return filledTensor(rewriter, loc, t, rewriter.getZeroAttr(acc));
    };
    Value result;
    if (groups == 1) {
      auto accType = type.clone(acc);
      result = linalg::Conv2DNchwFchwOp::create(rewriter, loc, TypeRange{accType},
                                                ValueRange{x, w}, ValueRange{zeroFilled(accType)},
                                                strides, dilations)
                   .getResult(0);
    } else {
      auto xType = cast<RankedTensorType>(x.getType());
      auto wType = cast<RankedTensorType>(w.getType());
      int64_t n = xType.getDimSize(0), c = xType.getDimSize(1), o = wType.getDimSize(0);
      Value xg = reshapeTensor(rewriter, loc, x,
                               xType.clone({n, groups, c / groups, xType.getDimSize(2),
                                            xType.getDimSize(3)}));
      Value wg = reshapeTensor(rewriter, loc, w,
                               wType.clone({groups, o / groups, wType.getDimSize(1),
                                            wType.getDimSize(2), wType.getDimSize(3)}));
      auto accType = RankedTensorType::get(
          {n, groups, o / groups, type.getDimSize(2), type.getDimSize(3)}, acc);
      result = linalg::Conv2DNgchwGfchwOp::create(rewriter, loc, TypeRange{accType},
                                                  ValueRange{xg, wg},
                                                  ValueRange{zeroFilled(accType)}, strides,
                                                  dilations)
                   .getResult(0);
      result = reshapeTensor(rewriter, loc, result, type.clone(acc));
    }
    rewriter.replaceOp(op, finishReduction(rewriter, loc, result, elt, 1.0));
    return success();
  }
};

/// relax.conv2d_patches: zero padding, then the patches gather
/// (buildConvPatches, [N, C, KH, KW, OH, OW]) collapsed to [N, C*KH*KW, OH, OW].
struct Conv2dPatchesLowering : OpConversionPattern<Conv2dPatchesOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(Conv2dPatchesOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto type = cast<RankedTensorType>(op.getType());
    SmallVector<WindowAxis, 2> axes = op.getWindowAxes();
    Value x = padSpatial(rewriter, loc, adaptor.getX(), axes,
                         scalar(rewriter, loc, type.getElementType(), 0.0));
    Value patches = buildConvPatches(rewriter, loc, x, axes[0].kernel, axes[1].kernel,
                                     {axes[0].stride, axes[1].stride},
                                     {axes[0].dilation, axes[1].dilation}, axes[0].out,
                                     axes[1].out);
    rewriter.replaceOpWithNewOp<tensor::CollapseShapeOp>(
        op, type, patches, SmallVector<ReassociationIndices>{{0}, {1, 2, 3}, {4}, {5}});
    return success();
  }
};

/// relax.max_pool2d: -inf padding, then linalg.pooling_nchw_max from -inf.
struct MaxPool2dLowering : OpConversionPattern<MaxPool2dOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(MaxPool2dOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto type = cast<RankedTensorType>(op.getType());
    auto elt = cast<FloatType>(type.getElementType());
    SmallVector<WindowAxis, 2> axes = op.getWindowAxes();
    Value lowest = arith::ConstantOp::create(
        rewriter, loc, rewriter.getFloatAttr(elt, APFloat::getInf(elt.getFloatSemantics(), true)));
    Value x = padSpatial(rewriter, loc, adaptor.getX(), axes, lowest);
    Value init = filledTensor(rewriter, loc, type, lowest);
    Value window = tensor::EmptyOp::create(rewriter, loc,
                                           ArrayRef<int64_t>{axes[0].kernel, axes[1].kernel}, elt);
    rewriter.replaceOp(
        op, linalg::PoolingNchwMaxOp::create(rewriter, loc, TypeRange{type},
                                             ValueRange{x, window}, ValueRange{init},
                                             pairAttr(rewriter, axes[0].stride, axes[1].stride),
                                             pairAttr(rewriter, axes[0].dilation,
                                                      axes[1].dilation))
                .getResult(0));
    return success();
  }
};

/// relax.avg_pool2d: zero padding, linalg.pooling_nchw_sum in the
/// accumulator type, then one generic dividing by each position's divisor
/// (a constant) and rounding.
struct AvgPool2dLowering : OpConversionPattern<AvgPool2dOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(AvgPool2dOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto type = cast<RankedTensorType>(op.getType());
    Type elt = type.getElementType(), acc = accumulatorType(elt);
    SmallVector<WindowAxis, 2> axes = op.getWindowAxes();
    Value x = padSpatial(rewriter, loc, adaptor.getX(), axes, scalar(rewriter, loc, elt, 0.0));
    auto accType = type.clone(acc);
    Value init = filledTensor(rewriter, loc, accType, rewriter.getZeroAttr(acc));
    Value window = tensor::EmptyOp::create(rewriter, loc,
                                           ArrayRef<int64_t>{axes[0].kernel, axes[1].kernel}, elt);
    Value sum = linalg::PoolingNchwSumOp::create(
                    rewriter, loc, TypeRange{accType}, ValueRange{x, window}, ValueRange{init},
                    pairAttr(rewriter, axes[0].stride, axes[1].stride),
                    pairAttr(rewriter, axes[0].dilation, axes[1].dilation))
                    .getResult(0);
    Value divisor = arith::ConstantOp::create(rewriter, loc, op.getDivisorAttr(acc));
    rewriter.replaceOp(op, buildElementwise(rewriter, loc, type, ValueRange{sum, divisor},
                                            [&](OpBuilder &b, Location l, ValueRange v) {
                                              Value q = arith::DivFOp::create(b, l, v[0], v[1]);
                                              return convertScalar(b, l, q, elt);
                                            }));
    return success();
  }
};

} // namespace

void mlir::relax::lowering::populateNeuralNetworkLoweringPatterns(RewritePatternSet &patterns) {
  patterns.add<SoftmaxLowering<SoftmaxOp, false>, SoftmaxLowering<LogSoftmaxOp, true>,
               CrossEntropyLowering, LayerNormLowering, NllLossLowering, Conv2dLowering, Conv2dPatchesLowering,
               MaxPool2dLowering, AvgPool2dLowering>(patterns.getContext());
}
