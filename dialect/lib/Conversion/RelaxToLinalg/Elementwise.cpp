//===- Elementwise.cpp - elementwise relax ops to linalg.generic ----------===//

#include "LoweringUtils.h"

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
// Pattern
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
               ElementwiseLowering<GreaterOp, scalarGreater>,
               ElementwiseLowering<WhereOp, scalarWhere>,
               ElementwiseLowering<BroadcastToOp, scalarIdentity>>(patterns.getContext());
}
