//===- RelaxToLinalg.cpp - lower relax ops to linalg on tensors -----------===//
//
// Elementwise ops and broadcasts become linalg.generic with broadcasting
// indexing maps; reductions, collapse_sum_to and matmul become linalg.generic
// reductions into a zero-filled init; permute_dims becomes linalg.transpose;
// reshapes go through tensor.collapse_shape/expand_shape.
//
//===----------------------------------------------------------------------===//

#include "relax-mlir/Conversion/Passes.h"
#include "relax-mlir/Dialect/Relax/IR/RelaxOps.h"
#include "relax-mlir/Transforms/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/AffineMap.h"

namespace mlir::relax {
#define GEN_PASS_DEF_CONVERTRELAXTOLINALGPASS
#include "relax-mlir/Conversion/Passes.h.inc"
} // namespace mlir::relax

using namespace mlir;
using namespace mlir::relax;

//===----------------------------------------------------------------------===//
// Builders
//===----------------------------------------------------------------------===//

static Value emptyTensor(OpBuilder &b, Location loc, RankedTensorType type) {
  return tensor::EmptyOp::create(b, loc, type.getShape(), type.getElementType());
}

static Value scalar(OpBuilder &b, Location loc, Type elt, double value) {
  if (isa<FloatType>(elt))
    return arith::ConstantOp::create(b, loc, b.getFloatAttr(elt, value));
  return arith::ConstantOp::create(b, loc, b.getIntegerAttr(elt, static_cast<int64_t>(value)));
}

/// Indexing map reading `in` inside the iteration space of `out` under numpy
/// broadcasting: leading dims are dropped, size-1 dims read index 0.
static AffineMap broadcastMap(MLIRContext *ctx, RankedTensorType in, RankedTensorType out) {
  int64_t rank = out.getRank(), inRank = in.getRank();
  SmallVector<AffineExpr> exprs;
  for (int64_t i = 0; i < inRank; ++i) {
    int64_t j = rank - inRank + i;
    exprs.push_back(in.getDimSize(i) == 1 && out.getDimSize(j) != 1
                        ? getAffineConstantExpr(0, ctx)
                        : getAffineDimExpr(j, ctx));
  }
  return AffineMap::get(rank, 0, exprs, ctx);
}

using ScalarFn = function_ref<Value(OpBuilder &, Location, ValueRange)>;

/// A parallel linalg.generic computing `body` on broadcast `inputs`.
static Value buildElementwise(OpBuilder &b, Location loc, RankedTensorType resultType,
                              ValueRange inputs, ScalarFn body) {
  MLIRContext *ctx = b.getContext();
  SmallVector<AffineMap> maps;
  for (Value in : inputs)
    maps.push_back(broadcastMap(ctx, cast<RankedTensorType>(in.getType()), resultType));
  maps.push_back(AffineMap::getMultiDimIdentityMap(resultType.getRank(), ctx));
  SmallVector<utils::IteratorType> iterators(resultType.getRank(), utils::IteratorType::parallel);
  auto generic = linalg::GenericOp::create(
      b, loc, TypeRange{resultType}, inputs, ValueRange{emptyTensor(b, loc, resultType)}, maps,
      iterators, [&](OpBuilder &nb, Location l, ValueRange args) {
        linalg::YieldOp::create(nb, l, body(nb, l, args.drop_back()));
      });
  return generic.getResult(0);
}

/// Reshapes `v` to `type` (same element count) through a 1-D tensor.
static Value reshapeTensor(OpBuilder &b, Location loc, Value v, RankedTensorType type) {
  auto src = cast<RankedTensorType>(v.getType());
  if (src == type)
    return v;
  auto flatType = RankedTensorType::get({src.getNumElements()}, src.getElementType());
  auto all = [](int64_t rank) {
    return SmallVector<ReassociationIndices>{llvm::to_vector(llvm::seq<int64_t>(0, rank))};
  };
  Value flat = v;
  if (src.getRank() == 0)
    flat = tensor::ExpandShapeOp::create(b, loc, flatType, v, ArrayRef<ReassociationIndices>{});
  else if (src.getRank() > 1)
    flat = tensor::CollapseShapeOp::create(b, loc, flatType, v, all(src.getRank()));
  if (type.getRank() == 0)
    return tensor::CollapseShapeOp::create(b, loc, type, flat, ArrayRef<ReassociationIndices>{});
  if (type.getRank() == 1)
    return flat;
  return tensor::ExpandShapeOp::create(b, loc, type, flat, all(type.getRank()));
}

/// Sums `x` over `axes` (sorted); the result drops the reduced dims.
static Value buildSum(OpBuilder &b, Location loc, Value x, ArrayRef<int64_t> axes) {
  MLIRContext *ctx = b.getContext();
  auto in = cast<RankedTensorType>(x.getType());
  Type elt = in.getElementType();
  SmallVector<int64_t> shape;
  SmallVector<AffineExpr> outExprs;
  SmallVector<utils::IteratorType> iterators;
  for (int64_t d = 0; d < in.getRank(); ++d) {
    if (llvm::is_contained(axes, d)) {
      iterators.push_back(utils::IteratorType::reduction);
      continue;
    }
    iterators.push_back(utils::IteratorType::parallel);
    outExprs.push_back(getAffineDimExpr(d, ctx));
    shape.push_back(in.getDimSize(d));
  }
  auto outType = RankedTensorType::get(shape, elt);
  Value init = linalg::FillOp::create(b, loc, scalar(b, loc, elt, 0.0),
                                      emptyTensor(b, loc, outType))
                   .getResult(0);
  SmallVector<AffineMap> maps = {AffineMap::getMultiDimIdentityMap(in.getRank(), ctx),
                                 AffineMap::get(in.getRank(), 0, outExprs, ctx)};
  bool isFloat = isa<FloatType>(elt);
  auto generic = linalg::GenericOp::create(
      b, loc, TypeRange{outType}, ValueRange{x}, ValueRange{init}, maps, iterators,
      [&](OpBuilder &nb, Location l, ValueRange args) {
        Value sum = isFloat ? Value(arith::AddFOp::create(nb, l, args[0], args[1]))
                            : Value(arith::AddIOp::create(nb, l, args[0], args[1]));
        linalg::YieldOp::create(nb, l, sum);
      });
  return generic.getResult(0);
}

//===----------------------------------------------------------------------===//
// Scalar bodies of elementwise ops (`elt` is the operands' element type)
//===----------------------------------------------------------------------===//

template <typename FOp, typename IOp>
static Value floatOrInt(OpBuilder &b, Location l, Type elt, ValueRange x) {
  if (isa<FloatType>(elt))
    return FOp::create(b, l, x[0], x[1]);
  return IOp::create(b, l, x[0], x[1]);
}

static Value scalarNegative(OpBuilder &b, Location l, Type elt, ValueRange x) {
  if (isa<FloatType>(elt))
    return arith::NegFOp::create(b, l, x[0]);
  return arith::SubIOp::create(b, l, scalar(b, l, elt, 0), x[0]);
}
static Value scalarExp(OpBuilder &b, Location l, Type, ValueRange x) {
  return math::ExpOp::create(b, l, x[0]);
}
static Value scalarLog(OpBuilder &b, Location l, Type, ValueRange x) {
  return math::LogOp::create(b, l, x[0]);
}
static Value scalarTanh(OpBuilder &b, Location l, Type, ValueRange x) {
  return math::TanhOp::create(b, l, x[0]);
}
static Value scalarSigmoid(OpBuilder &b, Location l, Type elt, ValueRange x) {
  Value e = math::ExpOp::create(b, l, arith::NegFOp::create(b, l, x[0]));
  Value one = scalar(b, l, elt, 1.0);
  return arith::DivFOp::create(b, l, one, arith::AddFOp::create(b, l, one, e));
}
static Value scalarRelu(OpBuilder &b, Location l, Type elt, ValueRange x) {
  Value zero = scalar(b, l, elt, 0.0);
  if (isa<FloatType>(elt))
    return arith::MaximumFOp::create(b, l, x[0], zero);
  return arith::MaxSIOp::create(b, l, x[0], zero);
}
static Value scalarAdd(OpBuilder &b, Location l, Type elt, ValueRange x) {
  return floatOrInt<arith::AddFOp, arith::AddIOp>(b, l, elt, x);
}
static Value scalarSubtract(OpBuilder &b, Location l, Type elt, ValueRange x) {
  return floatOrInt<arith::SubFOp, arith::SubIOp>(b, l, elt, x);
}
static Value scalarMultiply(OpBuilder &b, Location l, Type elt, ValueRange x) {
  return floatOrInt<arith::MulFOp, arith::MulIOp>(b, l, elt, x);
}
static Value scalarDivide(OpBuilder &b, Location l, Type elt, ValueRange x) {
  return floatOrInt<arith::DivFOp, arith::DivSIOp>(b, l, elt, x);
}
static Value scalarGreater(OpBuilder &b, Location l, Type elt, ValueRange x) {
  if (isa<FloatType>(elt))
    return arith::CmpFOp::create(b, l, arith::CmpFPredicate::OGT, x[0], x[1]);
  return arith::CmpIOp::create(b, l, arith::CmpIPredicate::sgt, x[0], x[1]);
}
static Value scalarWhere(OpBuilder &b, Location l, Type, ValueRange x) {
  return arith::SelectOp::create(b, l, x[0], x[1], x[2]);
}
static Value scalarIdentity(OpBuilder &, Location, Type, ValueRange x) { return x[0]; }

//===----------------------------------------------------------------------===//
// Patterns
//===----------------------------------------------------------------------===//

namespace {

using ScalarBody = Value (*)(OpBuilder &, Location, Type, ValueRange);

/// Any relax op whose result is an elementwise function of its broadcast operands.
template <typename Op, ScalarBody Body>
struct ElementwiseLowering : OpConversionPattern<Op> {
  using OpConversionPattern<Op>::OpConversionPattern;
  LogicalResult matchAndRewrite(Op op, typename Op::Adaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    ValueRange inputs = adaptor.getOperands();
    Type elt = cast<RankedTensorType>(inputs.back().getType()).getElementType();
    Value result = buildElementwise(
        rewriter, op.getLoc(), cast<RankedTensorType>(op.getType()), inputs,
        [&](OpBuilder &b, Location l, ValueRange x) { return Body(b, l, elt, x); });
    rewriter.replaceOp(op, result);
    return success();
  }
};

/// relax.sum / relax.mean: a reduction generic, scaled for the mean, reshaped
/// for keepdims.
template <typename Op, bool IsMean>
struct ReductionLowering : OpConversionPattern<Op> {
  using OpConversionPattern<Op>::OpConversionPattern;
  LogicalResult matchAndRewrite(Op op, typename Op::Adaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    SmallVector<int64_t> axes = op.getReducedAxes();
    Value sum = buildSum(rewriter, loc, adaptor.getX(), axes);
    if (IsMean) {
      int64_t count = 1;
      for (int64_t a : axes)
        count *= op.getX().getType().getDimSize(a);
      auto type = cast<RankedTensorType>(sum.getType());
      Value n = scalar(rewriter, loc, type.getElementType(), static_cast<double>(count));
      sum = buildElementwise(rewriter, loc, type, sum, [&](OpBuilder &b, Location l, ValueRange x) {
        return arith::DivFOp::create(b, l, x[0], n).getResult();
      });
    }
    rewriter.replaceOp(op, reshapeTensor(rewriter, loc, sum, op.getType()));
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
    Value sum = buildSum(rewriter, op.getLoc(), adaptor.getX(), axes);
    rewriter.replaceOp(op, reshapeTensor(rewriter, op.getLoc(), sum, out));
    return success();
  }
};

/// relax.reshape through collapse_shape/expand_shape.
struct ReshapeLowering : OpConversionPattern<ReshapeOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(ReshapeOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    rewriter.replaceOp(op, reshapeTensor(rewriter, op.getLoc(), adaptor.getX(), op.getType()));
    return success();
  }
};

/// relax.permute_dims to linalg.transpose.
struct PermuteDimsLowering : OpConversionPattern<PermuteDimsOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(PermuteDimsOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    Value init = emptyTensor(rewriter, op.getLoc(), op.getType());
    auto t = linalg::TransposeOp::create(rewriter, op.getLoc(), adaptor.getX(), init,
                                         op.getPermutation());
    rewriter.replaceOp(op, t->getResults());
    return success();
  }
};

/// relax.matmul to one linalg.generic over (batch..., [n], [m], k): a 1-D
/// operand simply has no n (or m) dim, and broadcast batch dims read index 0.
struct MatmulLowering : OpConversionPattern<MatmulOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(MatmulOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    MLIRContext *ctx = op.getContext();
    Location loc = op.getLoc();
    auto a = cast<RankedTensorType>(op.getLhs().getType());
    auto bt = cast<RankedTensorType>(op.getRhs().getType());
    auto out = cast<RankedTensorType>(op.getType());
    bool aVec = a.getRank() == 1, bVec = bt.getRank() == 1;
    int64_t batch = out.getRank() - (aVec ? 0 : 1) - (bVec ? 0 : 1);
    int64_t nDim = batch, mDim = batch + (aVec ? 0 : 1), kDim = mDim + (bVec ? 0 : 1);
    int64_t numDims = kDim + 1;
    auto d = [&](int64_t i) { return getAffineDimExpr(i, ctx); };
    auto batchExprs = [&](RankedTensorType t, int64_t batchRank) {
      SmallVector<AffineExpr> exprs;
      for (int64_t i = 0; i < batchRank; ++i) {
        int64_t j = batch - batchRank + i;
        exprs.push_back(t.getDimSize(i) == 1 && out.getDimSize(j) != 1
                            ? getAffineConstantExpr(0, ctx)
                            : d(j));
      }
      return exprs;
    };
    SmallVector<AffineExpr> aExprs = batchExprs(a, aVec ? 0 : a.getRank() - 2);
    if (!aVec)
      aExprs.push_back(d(nDim));
    aExprs.push_back(d(kDim));
    SmallVector<AffineExpr> bExprs = batchExprs(bt, bVec ? 0 : bt.getRank() - 2);
    bExprs.push_back(d(kDim));
    if (!bVec)
      bExprs.push_back(d(mDim));
    SmallVector<AffineExpr> outExprs;
    for (int64_t i = 0; i < batch; ++i)
      outExprs.push_back(d(i));
    if (!aVec)
      outExprs.push_back(d(nDim));
    if (!bVec)
      outExprs.push_back(d(mDim));
    SmallVector<AffineMap> maps = {AffineMap::get(numDims, 0, aExprs, ctx),
                                   AffineMap::get(numDims, 0, bExprs, ctx),
                                   AffineMap::get(numDims, 0, outExprs, ctx)};
    SmallVector<utils::IteratorType> iterators(numDims, utils::IteratorType::parallel);
    iterators[kDim] = utils::IteratorType::reduction;
    Type elt = out.getElementType();
    bool isFloat = isa<FloatType>(elt);
    Value init = linalg::FillOp::create(rewriter, loc, scalar(rewriter, loc, elt, 0.0),
                                        emptyTensor(rewriter, loc, out))
                     .getResult(0);
    auto generic = linalg::GenericOp::create(
        rewriter, loc, TypeRange{out}, ValueRange{adaptor.getLhs(), adaptor.getRhs()},
        ValueRange{init}, maps, iterators, [&](OpBuilder &b, Location l, ValueRange x) {
          Value acc = isFloat ? Value(arith::AddFOp::create(
                                    b, l, x[2], arith::MulFOp::create(b, l, x[0], x[1])))
                              : Value(arith::AddIOp::create(
                                    b, l, x[2], arith::MulIOp::create(b, l, x[0], x[1])));
          linalg::YieldOp::create(b, l, acc);
        });
    rewriter.replaceOp(op, generic.getResult(0));
    return success();
  }
};

/// relax.zeros / relax.ones to a splat constant.
template <typename Op, int Value>
struct FillLowering : OpConversionPattern<Op> {
  using OpConversionPattern<Op>::OpConversionPattern;
  LogicalResult matchAndRewrite(Op op, typename Op::Adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    auto type = cast<RankedTensorType>(op.getType());
    Type elt = type.getElementType();
    Attribute v = isa<FloatType>(elt) ? Attribute(rewriter.getFloatAttr(elt, Value))
                                      : Attribute(rewriter.getIntegerAttr(elt, Value));
    rewriter.replaceOpWithNewOp<arith::ConstantOp>(op, DenseElementsAttr::get(type, v));
    return success();
  }
};

struct ConvertRelaxToLinalgPass
    : relax::impl::ConvertRelaxToLinalgPassBase<ConvertRelaxToLinalgPass> {
  void runOnOperation() final {
    ModuleOp module = getOperation();
    if (failed(flattenTuples(module)))
      return signalPassFailure();
    MLIRContext *ctx = &getContext();
    ConversionTarget target(*ctx);
    target.addIllegalDialect<RelaxDialect>();
    target.markUnknownOpDynamicallyLegal([](Operation *) { return true; });
    RewritePatternSet patterns(ctx);
    populateRelaxToLinalgConversionPatterns(patterns);
    if (failed(applyPartialConversion(module, target, std::move(patterns))))
      signalPassFailure();
  }
};

} // namespace

void mlir::relax::populateRelaxToLinalgConversionPatterns(RewritePatternSet &patterns) {
  patterns.add<ElementwiseLowering<NegativeOp, scalarNegative>,
               ElementwiseLowering<ExpOp, scalarExp>, ElementwiseLowering<LogOp, scalarLog>,
               ElementwiseLowering<TanhOp, scalarTanh>,
               ElementwiseLowering<SigmoidOp, scalarSigmoid>,
               ElementwiseLowering<ReluOp, scalarRelu>, ElementwiseLowering<AddOp, scalarAdd>,
               ElementwiseLowering<SubtractOp, scalarSubtract>,
               ElementwiseLowering<MultiplyOp, scalarMultiply>,
               ElementwiseLowering<DivideOp, scalarDivide>,
               ElementwiseLowering<GreaterOp, scalarGreater>,
               ElementwiseLowering<WhereOp, scalarWhere>,
               ElementwiseLowering<BroadcastToOp, scalarIdentity>,
               ReductionLowering<SumOp, false>, ReductionLowering<MeanOp, true>,
               CollapseSumToLowering, ReshapeLowering, PermuteDimsLowering, MatmulLowering,
               FillLowering<ZerosOp, 0>, FillLowering<OnesOp, 1>>(patterns.getContext());
}
