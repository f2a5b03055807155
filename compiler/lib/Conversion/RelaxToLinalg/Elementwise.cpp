//===- Elementwise.cpp - elementwise relax ops to linalg.generic ----------===//

#include "LoweringUtils.h"

#include <cmath>

using namespace mlir;
using namespace mlir::relax;
using namespace mlir::relax::lowering;

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
static Value scalarRelu(OpBuilder &b, Location l, Type elt, ValueRange x) {
  Value zero = scalar(b, l, elt, 0.0);
  if (isa<FloatType>(elt))
    return arith::MaximumFOp::create(b, l, x[0], zero);
  return arith::MaxSIOp::create(b, l, x[0], zero);
}
/// `fn(x)` for a float `x`, computed in f32 when x is f16 or bf16 (libm has no
/// half-precision entry points, and f32 rounds once at the end).
static Value viaF32(OpBuilder &b, Location l, Value x,
                    function_ref<Value(OpBuilder &, Location, Value)> fn) {
  Type elt = x.getType();
  if (!isa<Float16Type, BFloat16Type>(elt))
    return fn(b, l, x);
  Type f32 = b.getF32Type();
  return convertScalar(b, l, fn(b, l, convertScalar(b, l, x, f32)), elt);
}
template <typename MathOp>
static Value scalarMath(OpBuilder &b, Location l, Type, ValueRange x) {
  return viaF32(b, l, x[0], [](OpBuilder &nb, Location nl, Value v) -> Value {
    return MathOp::create(nb, nl, v);
  });
}
/// Integer abs as max(x, 0 - x) (INT_MIN stays INT_MIN, as math.absi):
/// math.absi's LLVM lowering takes no n-D vector, which a transposing copy's
/// body vectorizes to (`abs(-permute_dims(x))` on i64 failed to lower).
static Value scalarAbs(OpBuilder &b, Location l, Type elt, ValueRange x) {
  if (isa<FloatType>(elt))
    return math::AbsFOp::create(b, l, x[0]);
  Value zero = arith::ConstantOp::create(b, l, b.getIntegerAttr(elt, 0));
  return arith::MaxSIOp::create(b, l, x[0], arith::SubIOp::create(b, l, zero, x[0]));
}
static Value scalarSquare(OpBuilder &b, Location l, Type, ValueRange x) {
  return buildMul(b, l, x[0], x[0]);
}
/// 1 / (1 + exp(-x)): exp overflows to inf for x < -88 (f32) and the quotient
/// is then exactly 0, never NaN.
static Value sigmoidOf(OpBuilder &b, Location l, Value x) {
  Value e = math::ExpOp::create(b, l, arith::NegFOp::create(b, l, x));
  Value one = scalar(b, l, x.getType(), 1.0);
  return arith::DivFOp::create(b, l, one, arith::AddFOp::create(b, l, one, e));
}
static Value scalarSigmoid(OpBuilder &b, Location l, Type, ValueRange x) {
  return sigmoidOf(b, l, x[0]);
}
static Value scalarSilu(OpBuilder &b, Location l, Type, ValueRange x) {
  return viaF32(b, l, x[0], [](OpBuilder &nb, Location nl, Value v) -> Value {
    return arith::MulFOp::create(nb, nl, v, sigmoidOf(nb, nl, v));
  });
}
/// The exact gelu of the contract: x (1 + erf(x / sqrt 2)) / 2.
static Value scalarGelu(OpBuilder &b, Location l, Type, ValueRange x) {
  return viaF32(b, l, x[0], [](OpBuilder &nb, Location nl, Value v) -> Value {
    Type t = v.getType();
    Value e = math::ErfOp::create(
        nb, nl, arith::MulFOp::create(nb, nl, v, scalar(nb, nl, t, M_SQRT1_2)));
    Value half = arith::MulFOp::create(nb, nl, v, scalar(nb, nl, t, 0.5));
    return arith::MulFOp::create(nb, nl, half,
                                 arith::AddFOp::create(nb, nl, scalar(nb, nl, t, 1.0), e));
  });
}
/// log(1 + x) accurate for small x: with u = 1 + x (rounded), log(u) * x / (u - 1)
/// cancels the rounding of u (Goldberg); x itself when u rounds to 1. (MLIR's
/// math-to-llvm lowers math.log1p as log(1 + x), which loses every digit there.)
static Value accurateLog1p(OpBuilder &b, Location l, Value x) {
  Type t = x.getType();
  Value u = arith::AddFOp::create(b, l, scalar(b, l, t, 1.0), x);
  Value uMinusOne = arith::SubFOp::create(b, l, u, scalar(b, l, t, 1.0));
  Value scaled = arith::DivFOp::create(
      b, l, arith::MulFOp::create(b, l, math::LogOp::create(b, l, u), x), uMinusOne);
  Value exact = arith::CmpFOp::create(b, l, arith::CmpFPredicate::OEQ, uMinusOne,
                                      scalar(b, l, t, 0.0));
  return arith::SelectOp::create(b, l, exact, x, scaled);
}

static Value scalarLog1p(OpBuilder &b, Location l, Type, ValueRange x) {
  return viaF32(b, l, x[0], accurateLog1p);
}
/// exp(x) - 1 accurate for small x: with u = exp(x) (rounded),
/// (u - 1) * x / log(u) cancels the rounding of u (Kahan); x itself when u
/// rounds to 1, -1 when u - 1 does, and u when it overflows (inf * x / inf
/// would be NaN). (math-to-llvm lowers math.expm1 as exp(x) - 1.)
static Value accurateExpm1(OpBuilder &b, Location l, Value x) {
  Type t = x.getType();
  Value one = scalar(b, l, t, 1.0);
  Value u = math::ExpOp::create(b, l, x);
  Value uMinusOne = arith::SubFOp::create(b, l, u, one);
  Value scaled = arith::DivFOp::create(b, l, arith::MulFOp::create(b, l, uMinusOne, x),
                                       math::LogOp::create(b, l, u));
  auto equal = [&](Value v, double c) {
    return arith::CmpFOp::create(b, l, arith::CmpFPredicate::OEQ, v, scalar(b, l, t, c));
  };
  Value result = arith::SelectOp::create(b, l, equal(uMinusOne, -1.0), uMinusOne, scaled);
  result = arith::SelectOp::create(b, l, equal(u, INFINITY), u, result);
  return arith::SelectOp::create(b, l, equal(u, 1.0), x, result);
}

static Value scalarExpm1(OpBuilder &b, Location l, Type, ValueRange x) {
  return viaF32(b, l, x[0], accurateExpm1);
}

/// log(1 + exp(x)) as max(x, 0) + log1p(exp(-|x|)): finite for every finite x.
static Value scalarSoftplus(OpBuilder &b, Location l, Type, ValueRange x) {
  return viaF32(b, l, x[0], [](OpBuilder &nb, Location nl, Value v) -> Value {
    Type t = v.getType();
    Value pos = arith::MaximumFOp::create(nb, nl, v, scalar(nb, nl, t, 0.0));
    Value negAbs = arith::NegFOp::create(nb, nl, math::AbsFOp::create(nb, nl, v));
    Value tail = accurateLog1p(nb, nl, math::ExpOp::create(nb, nl, negAbs));
    return arith::AddFOp::create(nb, nl, pos, tail);
  });
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
static Value scalarPower(OpBuilder &b, Location l, Type, ValueRange x) {
  Type elt = x[0].getType();
  if (!isa<Float16Type, BFloat16Type>(elt))
    return math::PowFOp::create(b, l, x[0], x[1]);
  Type f32 = b.getF32Type();
  Value p = math::PowFOp::create(b, l, convertScalar(b, l, x[0], f32),
                                 convertScalar(b, l, x[1], f32));
  return convertScalar(b, l, p, elt);
}
/// numpy's maximum/minimum: NaN propagates for floats.
static Value scalarMaximum(OpBuilder &b, Location l, Type, ValueRange x) {
  return floatOrInt<arith::MaximumFOp, arith::MaxSIOp>(b, l, x[0], x[1]);
}
static Value scalarMinimum(OpBuilder &b, Location l, Type, ValueRange x) {
  return floatOrInt<arith::MinimumFOp, arith::MinSIOp>(b, l, x[0], x[1]);
}

/// Comparisons: ordered float predicates (false with a NaN operand), except
/// not_equal, which is true with a NaN operand, as in numpy.
template <arith::CmpFPredicate FPred, arith::CmpIPredicate IPred>
static Value scalarCompare(OpBuilder &b, Location l, Type elt, ValueRange x) {
  if (isa<FloatType>(elt))
    return arith::CmpFOp::create(b, l, FPred, x[0], x[1]);
  // i1 compares unsigned (false < true); as a signed value true is -1.
  arith::CmpIPredicate pred = IPred;
  if (elt.isInteger(1)) {
    switch (IPred) {
    case arith::CmpIPredicate::sgt: pred = arith::CmpIPredicate::ugt; break;
    case arith::CmpIPredicate::sge: pred = arith::CmpIPredicate::uge; break;
    case arith::CmpIPredicate::slt: pred = arith::CmpIPredicate::ult; break;
    case arith::CmpIPredicate::sle: pred = arith::CmpIPredicate::ule; break;
    default: break;
    }
  }
  return arith::CmpIOp::create(b, l, pred, x[0], x[1]);
}
static Value scalarWhere(OpBuilder &b, Location l, Type, ValueRange x) {
  return arith::SelectOp::create(b, l, x[0], x[1], x[2]);
}
static Value scalarIdentity(OpBuilder &, Location, Type, ValueRange x) { return x[0]; }

//===----------------------------------------------------------------------===//
// Ops with attributes or a result type of their own
//===----------------------------------------------------------------------===//

/// A float value converted to the integer type `to` as numpy does on this
/// platform for in-range values (truncation toward zero), saturating out of
/// range and giving 0 for NaN instead of LLVM's poison.
static Value floatToInt(OpBuilder &b, Location l, Value v, IntegerType to) {
  unsigned width = to.getWidth();
  Type from = v.getType();
  auto constant = [&](const APInt &i) {
    return arith::ConstantOp::create(b, l, b.getIntegerAttr(to, i));
  };
  // 2^(width-1) is exact in every float type that can hold it.
  double limit = std::ldexp(1.0, width - 1);
  Value tooHigh = arith::CmpFOp::create(b, l, arith::CmpFPredicate::OGE, v,
                                        scalar(b, l, from, limit));
  Value tooLow = arith::CmpFOp::create(b, l, arith::CmpFPredicate::OLT, v,
                                       scalar(b, l, from, -limit));
  Value isNan = arith::CmpFOp::create(b, l, arith::CmpFPredicate::UNO, v, v);
  Value safe = arith::SelectOp::create(
      b, l, arith::OrIOp::create(b, l, arith::OrIOp::create(b, l, tooHigh, tooLow), isNan),
      scalar(b, l, from, 0.0), v);
  Value r = arith::FPToSIOp::create(b, l, to, safe);
  r = arith::SelectOp::create(b, l, tooHigh, constant(APInt::getSignedMaxValue(width)), r);
  r = arith::SelectOp::create(b, l, tooLow, constant(APInt::getSignedMinValue(width)), r);
  return r;
}

/// One element converted as numpy's astype does.
static Value convertElement(OpBuilder &b, Location l, Value v, Type to) {
  Type from = v.getType();
  if (from == to)
    return v;
  if (to.isInteger(1)) {
    if (isa<FloatType>(from))
      return arith::CmpFOp::create(b, l, arith::CmpFPredicate::UNE, v, scalar(b, l, from, 0.0));
    return arith::CmpIOp::create(b, l, arith::CmpIPredicate::ne, v, scalar(b, l, from, 0.0));
  }
  if (isa<FloatType>(from) && isa<FloatType>(to)) {
    // bf16 <-> f16 has no direct instruction: go through f32.
    if (cast<FloatType>(from).getWidth() == cast<FloatType>(to).getWidth())
      return arith::TruncFOp::create(b, l, to, arith::ExtFOp::create(b, l, b.getF32Type(), v));
    return convertScalar(b, l, v, to);
  }
  if (isa<FloatType>(from))
    return floatToInt(b, l, v, cast<IntegerType>(to));
  bool isBool = from.isInteger(1);
  if (isa<FloatType>(to))
    return isBool ? Value(arith::UIToFPOp::create(b, l, to, v))
                  : Value(arith::SIToFPOp::create(b, l, to, v));
  if (from.getIntOrFloatBitWidth() > to.getIntOrFloatBitWidth())
    return arith::TruncIOp::create(b, l, to, v);
  return isBool ? Value(arith::ExtUIOp::create(b, l, to, v))
                : Value(arith::ExtSIOp::create(b, l, to, v));
}


//===----------------------------------------------------------------------===//
// Pattern
//===----------------------------------------------------------------------===//

namespace {

template <typename IntOp>
static Value scalarBitwise(OpBuilder &b, Location l, Type, ValueRange x) {
  return IntOp::create(b, l, x[0], x[1]);
}
/// a shifted by b, with b outside [0, width) (read unsigned: >= width)
/// giving `outside` (LLVM's shifts are poison there).
template <typename ShiftOp, bool SignFill>
static Value scalarShift(OpBuilder &b, Location l, Type elt, ValueRange x) {
  unsigned width = elt.getIntOrFloatBitWidth();
  Value inRange = arith::CmpIOp::create(b, l, arith::CmpIPredicate::ult, x[1],
                                        scalar(b, l, elt, static_cast<double>(width)));
  Value shifted = ShiftOp::create(b, l, x[0], x[1]);
  Value outside = scalar(b, l, elt, 0.0);
  if (SignFill)  // -1 for a negative a, else 0: a >> (width - 1)
    outside = arith::ShRSIOp::create(b, l, x[0], scalar(b, l, elt, width - 1.0));
  return arith::SelectOp::create(b, l, inRange, shifted, outside);
}

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

/// An element of `x` as element type `to`, as relax.bitcast reads it.
static Value bitcastElement(OpBuilder &b, Location l, Value x, Type to) {
  return arith::BitcastOp::create(b, l, to, x);
}

/// relax.astype (convertElement: the result element type picks the
/// conversion) and relax.bitcast (arith.bitcast): `Convert` of each element.
template <typename Op, Value (*Convert)(OpBuilder &, Location, Value, Type)>
struct ElementConversionLowering : OpConversionPattern<Op> {
  using OpConversionPattern<Op>::OpConversionPattern;
  LogicalResult matchAndRewrite(Op op, typename Op::Adaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    Type to = op.getType().getElementType();
    rewriter.replaceOp(op, buildElementwise(rewriter, op.getLoc(), op.getType(), adaptor.getX(),
                                            [&](OpBuilder &b, Location l, ValueRange x) {
                                              return Convert(b, l, x[0], to);
                                            }));
    return success();
  }
};

/// relax.leaky_relu: x > 0 ? x : alpha x.
struct LeakyReluLowering : OpConversionPattern<LeakyReluOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(LeakyReluOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    double alpha = op.getAlpha().convertToDouble();
    rewriter.replaceOp(
        op, buildElementwise(rewriter, op.getLoc(), op.getType(), adaptor.getX(),
                             [&](OpBuilder &b, Location l, ValueRange x) -> Value {
                               Type t = x[0].getType();
                               Value positive = arith::CmpFOp::create(
                                   b, l, arith::CmpFPredicate::OGT, x[0], scalar(b, l, t, 0.0));
                               Value scaled =
                                   arith::MulFOp::create(b, l, x[0], scalar(b, l, t, alpha));
                               return arith::SelectOp::create(b, l, positive, x[0], scaled);
                             }));
    return success();
  }
};

/// relax.clip: min(max(x, lo), hi); integer bounds are rounded inward
/// (ceil(min), floor(max)) and saturated to the type's range.
struct ClipLowering : OpConversionPattern<ClipOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(ClipOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    double lo = op.getMin().convertToDouble(), hi = op.getMax().convertToDouble();
    Type elt = op.getType().getElementType();
    auto bound = [&](OpBuilder &b, Location l, double v, bool isMin) -> Value {
      if (isa<FloatType>(elt))
        return scalar(b, l, elt, v);
      unsigned width = elt.getIntOrFloatBitWidth();
      double r = isMin ? std::ceil(v) : std::floor(v);
      double maxV = std::ldexp(1.0, width - 1);
      APInt i = r >= maxV    ? APInt::getSignedMaxValue(width)
                : r < -maxV ? APInt::getSignedMinValue(width)
                            : APInt(width, static_cast<int64_t>(r), /*isSigned=*/true);
      return arith::ConstantOp::create(b, l, b.getIntegerAttr(elt, i));
    };
    rewriter.replaceOp(
        op, buildElementwise(rewriter, op.getLoc(), op.getType(), adaptor.getX(),
                             [&](OpBuilder &b, Location l, ValueRange x) -> Value {
                               Value v = floatOrInt<arith::MaximumFOp, arith::MaxSIOp>(
                                   b, l, x[0], bound(b, l, lo, true));
                               return floatOrInt<arith::MinimumFOp, arith::MinSIOp>(
                                   b, l, v, bound(b, l, hi, false));
                             }));
    return success();
  }
};

} // namespace

/// The table of elementwise ops: each op and its scalar body, lowered by one
/// generic pattern. broadcast_to is the identity body read through a
/// broadcasting map.
void mlir::relax::lowering::populateElementwiseLoweringPatterns(RewritePatternSet &patterns) {
  patterns.add<ElementwiseLowering<NegativeOp, scalarNegative>,
               ElementwiseLowering<ExpOp, scalarExp>, ElementwiseLowering<LogOp, scalarLog>,
               ElementwiseLowering<TanhOp, scalarTanh>,
               ElementwiseLowering<SigmoidOp, scalarSigmoid>,
               ElementwiseLowering<ReluOp, scalarRelu>, ElementwiseLowering<AddOp, scalarAdd>,
               ElementwiseLowering<SubtractOp, scalarSubtract>,
               ElementwiseLowering<MultiplyOp, scalarMultiply>,
               ElementwiseLowering<DivideOp, scalarDivide>,
               ElementwiseLowering<SqrtOp, scalarMath<math::SqrtOp>>,
               ElementwiseLowering<RsqrtOp, scalarMath<math::RsqrtOp>>,
               ElementwiseLowering<SinOp, scalarMath<math::SinOp>>,
               ElementwiseLowering<CosOp, scalarMath<math::CosOp>>,
               ElementwiseLowering<TanOp, scalarMath<math::TanOp>>,
               ElementwiseLowering<ErfOp, scalarMath<math::ErfOp>>,
               ElementwiseLowering<AbsOp, scalarAbs>, ElementwiseLowering<SquareOp, scalarSquare>,
               ElementwiseLowering<SiluOp, scalarSilu>, ElementwiseLowering<GeluOp, scalarGelu>,
               ElementwiseLowering<SoftplusOp, scalarSoftplus>,
               ElementwiseLowering<Log1pOp, scalarLog1p>,
               ElementwiseLowering<Expm1Op, scalarExpm1>,
               ElementwiseLowering<PowerOp, scalarPower>,
               ElementwiseLowering<MaximumOp, scalarMaximum>,
               ElementwiseLowering<MinimumOp, scalarMinimum>,
               ElementwiseLowering<EqualOp, scalarCompare<arith::CmpFPredicate::OEQ,
                                                          arith::CmpIPredicate::eq>>,
               ElementwiseLowering<NotEqualOp, scalarCompare<arith::CmpFPredicate::UNE,
                                                             arith::CmpIPredicate::ne>>,
               ElementwiseLowering<GreaterOp, scalarCompare<arith::CmpFPredicate::OGT,
                                                            arith::CmpIPredicate::sgt>>,
               ElementwiseLowering<GreaterEqualOp, scalarCompare<arith::CmpFPredicate::OGE,
                                                                 arith::CmpIPredicate::sge>>,
               ElementwiseLowering<LessOp, scalarCompare<arith::CmpFPredicate::OLT,
                                                         arith::CmpIPredicate::slt>>,
               ElementwiseLowering<LessEqualOp, scalarCompare<arith::CmpFPredicate::OLE,
                                                              arith::CmpIPredicate::sle>>,
               ElementConversionLowering<AstypeOp, convertElement>,
               ElementConversionLowering<BitcastOp, bitcastElement>, LeakyReluLowering,
               ClipLowering,
               ElementwiseLowering<BitwiseAndOp, scalarBitwise<arith::AndIOp>>,
               ElementwiseLowering<BitwiseOrOp, scalarBitwise<arith::OrIOp>>,
               ElementwiseLowering<BitwiseXorOp, scalarBitwise<arith::XOrIOp>>,
               ElementwiseLowering<LeftShiftOp, scalarShift<arith::ShLIOp, false>>,
               ElementwiseLowering<RightShiftOp, scalarShift<arith::ShRSIOp, true>>,
               ElementwiseLowering<ShiftRightLogicalOp, scalarShift<arith::ShRUIOp, false>>,
               ElementwiseLowering<WhereOp, scalarWhere>,
               ElementwiseLowering<BroadcastToOp, scalarIdentity>>(patterns.getContext());
}
