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

/// The numpy broadcasting index rule: an operand dim of size `inSize` read in
/// loop dim `j` of extent `outSize` reads index 0 when it was broadcast.
static AffineExpr broadcastIndex(MLIRContext *ctx, int64_t inSize, int64_t outSize, int64_t j) {
  return inSize == 1 && outSize != 1 ? getAffineConstantExpr(0, ctx) : getAffineDimExpr(j, ctx);
}

/// Indexing map reading `in` inside the iteration space of `out` under numpy
/// broadcasting: leading dims are dropped, size-1 dims read index 0.
static AffineMap broadcastMap(MLIRContext *ctx, RankedTensorType in, RankedTensorType out) {
  int64_t rank = out.getRank(), inRank = in.getRank();
  SmallVector<AffineExpr> exprs;
  for (int64_t i = 0; i < inRank; ++i) {
    int64_t j = rank - inRank + i;
    exprs.push_back(broadcastIndex(ctx, in.getDimSize(i), out.getDimSize(j), j));
  }
  return AffineMap::get(rank, 0, exprs, ctx);
}

/// `FOp(x, y)` for float operands, `IOp(x, y)` for integer ones.
template <typename FOp, typename IOp>
static Value floatOrInt(OpBuilder &b, Location l, Value x, Value y) {
  if (isa<FloatType>(x.getType()))
    return FOp::create(b, l, x, y);
  return IOp::create(b, l, x, y);
}
static Value buildAdd(OpBuilder &b, Location l, Value x, Value y) {
  return floatOrInt<arith::AddFOp, arith::AddIOp>(b, l, x, y);
}
static Value buildMul(OpBuilder &b, Location l, Value x, Value y) {
  return floatOrInt<arith::MulFOp, arith::MulIOp>(b, l, x, y);
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

/// The element type a reduction of `elt` accumulates in: f16 and bf16 in f32
/// (an f16 sum stalls at 2048), f32 in f64 (exact for sums of up to 2^53 ones,
/// where an f32 sum stalls at 2^24), f64 and integers in their own type.
static Type accumulatorType(Type elt) {
  MLIRContext *ctx = elt.getContext();
  if (isa<Float16Type, BFloat16Type>(elt))
    return Float32Type::get(ctx);
  if (isa<Float32Type>(elt))
    return Float64Type::get(ctx);
  return elt;
}

/// The element type a matmul of `elt` accumulates in: f32 for f16 and bf16.
static Type matmulAccumulatorType(Type elt) {
  return isa<Float16Type, BFloat16Type>(elt) ? Float32Type::get(elt.getContext()) : elt;
}

/// Converts the float scalar `v` to `to` (extf or truncf); other types pass.
static Value convertScalar(OpBuilder &b, Location loc, Value v, Type to) {
  Type from = v.getType();
  if (from == to || !isa<FloatType>(from) || !isa<FloatType>(to))
    return v;
  if (cast<FloatType>(from).getWidth() < cast<FloatType>(to).getWidth())
    return arith::ExtFOp::create(b, loc, to, v);
  return arith::TruncFOp::create(b, loc, to, v);
}

/// Sums `x` over `axes` (sorted) in the element type `acc`; the result drops
/// the reduced dims. A sum over no axes is `x` converted to `acc`: it never
/// becomes an all-parallel generic reading its init, which elementwise fusion
/// would re-accumulate inside a broadcasting consumer.
static Value buildSum(OpBuilder &b, Location loc, Value x, ArrayRef<int64_t> axes, Type acc) {
  MLIRContext *ctx = b.getContext();
  auto in = cast<RankedTensorType>(x.getType());
  if (axes.empty()) {
    if (in.getElementType() == acc)
      return x;
    return buildElementwise(b, loc, in.clone(acc), x, [&](OpBuilder &nb, Location l,
                                                          ValueRange v) {
      return convertScalar(nb, l, v[0], acc);
    });
  }
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
  auto outType = RankedTensorType::get(shape, acc);
  Value init = linalg::FillOp::create(b, loc, scalar(b, loc, acc, 0.0),
                                      emptyTensor(b, loc, outType))
                   .getResult(0);
  SmallVector<AffineMap> maps = {AffineMap::getMultiDimIdentityMap(in.getRank(), ctx),
                                 AffineMap::get(in.getRank(), 0, outExprs, ctx)};
  auto generic = linalg::GenericOp::create(
      b, loc, TypeRange{outType}, ValueRange{x}, ValueRange{init}, maps, iterators,
      [&](OpBuilder &nb, Location l, ValueRange args) {
        Value sum = buildAdd(nb, l, convertScalar(nb, l, args[0], acc), args[1]);
        linalg::YieldOp::create(nb, l, sum);
      });
  return generic.getResult(0);
}

/// `v` (an accumulator-typed tensor) divided by `divisor` (when not 1) and
/// converted to the element type `elt`, in one elementwise generic.
static Value finishReduction(OpBuilder &b, Location loc, Value v, Type elt, double divisor) {
  auto type = cast<RankedTensorType>(v.getType());
  if (type.getElementType() == elt && divisor == 1.0)
    return v;
  Type acc = type.getElementType();
  return buildElementwise(b, loc, type.clone(elt), v, [&](OpBuilder &nb, Location l,
                                                          ValueRange x) {
    Value r = x[0];
    if (divisor != 1.0)
      r = arith::DivFOp::create(nb, l, r, scalar(nb, l, acc, divisor));
    return convertScalar(nb, l, r, elt);
  });
}

//===----------------------------------------------------------------------===//
// Scalar bodies of elementwise ops (`elt` is the operands' element type)
//===----------------------------------------------------------------------===//

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
  return buildAdd(b, l, x[0], x[1]);
}
static Value scalarSubtract(OpBuilder &b, Location l, Type elt, ValueRange x) {
  return floatOrInt<arith::SubFOp, arith::SubIOp>(b, l, x[0], x[1]);
}
static Value scalarMultiply(OpBuilder &b, Location l, Type elt, ValueRange x) {
  return buildMul(b, l, x[0], x[1]);
}
/// Float division, or integer division truncating toward zero with two cases
/// defined instead of trapping (a hardware trap would kill the caller's
/// process): `x / 0` is 0 (as numpy's `//` gives, without its warning) and
/// `INT_MIN / -1` wraps to INT_MIN (as numpy gives).
static Value scalarDivide(OpBuilder &b, Location l, Type elt, ValueRange x) {
  if (isa<FloatType>(elt))
    return arith::DivFOp::create(b, l, x[0], x[1]);
  unsigned width = elt.getIntOrFloatBitWidth();
  auto constant = [&](const APInt &v) {
    return arith::ConstantOp::create(b, l, b.getIntegerAttr(elt, v));
  };
  Value zero = constant(APInt::getZero(width));
  Value one = constant(APInt(width, 1));
  Value minusOne = constant(APInt::getAllOnes(width));
  Value intMin = constant(APInt::getSignedMinValue(width));
  Value byZero = arith::CmpIOp::create(b, l, arith::CmpIPredicate::eq, x[1], zero);
  Value lhsIsMin = arith::CmpIOp::create(b, l, arith::CmpIPredicate::eq, x[0], intMin);
  Value rhsIsMinusOne = arith::CmpIOp::create(b, l, arith::CmpIPredicate::eq, x[1], minusOne);
  Value overflow = arith::AndIOp::create(b, l, lhsIsMin, rhsIsMinusOne);
  Value unsafe = arith::OrIOp::create(b, l, byZero, overflow);
  Value divisor = arith::SelectOp::create(b, l, unsafe, one, x[1]);
  Value quotient = arith::DivSIOp::create(b, l, x[0], divisor);
  return arith::SelectOp::create(b, l, byZero, zero, quotient);
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

/// relax.sum / relax.mean: a reduction generic accumulating in a wider type,
/// then one elementwise generic dividing (mean) and converting back, reshaped
/// for keepdims.
template <typename Op, bool IsMean>
struct ReductionLowering : OpConversionPattern<Op> {
  using OpConversionPattern<Op>::OpConversionPattern;
  LogicalResult matchAndRewrite(Op op, typename Op::Adaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    SmallVector<int64_t> axes = op.getReducedAxes();
    Type elt = op.getType().getElementType();
    Value sum = buildSum(rewriter, loc, adaptor.getX(), axes, accumulatorType(elt));
    double count = IsMean ? static_cast<double>(op.getReducedElementCount()) : 1.0;
    sum = finishReduction(rewriter, loc, sum, elt, count);
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
    Type elt = out.getElementType();
    Value sum = buildSum(rewriter, op.getLoc(), adaptor.getX(), axes, accumulatorType(elt));
    sum = finishReduction(rewriter, op.getLoc(), sum, elt, 1.0);
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
        exprs.push_back(broadcastIndex(ctx, t.getDimSize(i), out.getDimSize(j), j));
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
    // f16 and bf16 products accumulate in f32.
    Type elt = out.getElementType(), acc = matmulAccumulatorType(elt);
    auto accType = out.clone(acc);
    Value init = linalg::FillOp::create(rewriter, loc, scalar(rewriter, loc, acc, 0.0),
                                        emptyTensor(rewriter, loc, accType))
                     .getResult(0);
    auto generic = linalg::GenericOp::create(
        rewriter, loc, TypeRange{accType}, ValueRange{adaptor.getLhs(), adaptor.getRhs()},
        ValueRange{init}, maps, iterators, [&](OpBuilder &b, Location l, ValueRange x) {
          Value lhs = convertScalar(b, l, x[0], acc), rhs = convertScalar(b, l, x[1], acc);
          Value sum = buildAdd(b, l, x[2], buildMul(b, l, lhs, rhs));
          linalg::YieldOp::create(b, l, sum);
        });
    rewriter.replaceOp(op, finishReduction(rewriter, loc, generic.getResult(0), elt, 1.0));
    return success();
  }
};

/// relax.zeros / relax.ones to a splat constant (made a fill below when it has
/// more than one element).
template <typename Op, int FillValue>
struct FillLowering : OpConversionPattern<Op> {
  using OpConversionPattern<Op>::OpConversionPattern;
  LogicalResult matchAndRewrite(Op op, typename Op::Adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    auto type = cast<RankedTensorType>(op.getType());
    Type elt = type.getElementType();
    Attribute v = isa<FloatType>(elt) ? Attribute(rewriter.getFloatAttr(elt, FillValue))
                                      : Attribute(rewriter.getIntegerAttr(elt, FillValue));
    rewriter.replaceOpWithNewOp<arith::ConstantOp>(op, DenseElementsAttr::get(type, v));
    return success();
  }
};

/// A splat tensor constant with more than one element becomes a linalg.fill:
/// bufferization would materialize it as a global holding every element
/// (`relax.ones : tensor<100000000xf32>` compiled into a 400 MB constant).
static void splatConstantsToFills(ModuleOp module) {
  module.walk([](arith::ConstantOp op) {
    auto attr = dyn_cast<SplatElementsAttr>(op.getValue());
    auto type = dyn_cast<RankedTensorType>(op.getType());
    if (!attr || !type || type.getNumElements() <= 1)
      return;
    OpBuilder b(op);
    Value element = arith::ConstantOp::create(b, op.getLoc(),
                                              cast<TypedAttr>(attr.getSplatValue<Attribute>()));
    auto fill = linalg::FillOp::create(b, op.getLoc(), element, emptyTensor(b, op.getLoc(), type));
    op.replaceAllUsesWith(fill.getResult(0));
    op.erase();
  });
}

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
      return signalPassFailure();
    splatConstantsToFills(module);
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
