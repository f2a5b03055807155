//===- ElementwiseOps.td - relax elementwise ops -----------*- tablegen -*-===//
//
// Included by RelaxOps.td; see there for the shared definitions.
//
//===----------------------------------------------------------------------===//

#ifndef RELAX_OPS_ELEMENTWISE_OPS_TD
#define RELAX_OPS_ELEMENTWISE_OPS_TD

//===----------------------------------------------------------------------===//
// Elementwise unary ops (result type = operand type)
//===----------------------------------------------------------------------===//

// `vjp` is the op's derivative applied to `g`, f'(x) g: C++ statements ending
// in `return <dx>;`, with `g`, `x`, `y` (the result), `b` (the builder) and
// `loc` in scope, and the builders of relax::vjp (GradientUtils.h): mul, div,
// sub, neg, oneMinus, scalarLike, greater, where. An elementwise op's Jacobian
// is diagonal, its own transpose, so the one body is both rules: the VJP with
// `g` the result's adjoint, the JVP with `g` the operand's tangent.
class Relax_UnaryOp<string mnemonic, Type type, string formula, code vjp>
    : Relax_Op<mnemonic, [Pure, SameOperandsAndResultType, Relax_Differentiable, Relax_Batchable]> {
  let summary = "Elementwise " # formula;
  let description = "Computes `" # formula # "` for each element.\n\n"
    "```mlir\n%y = relax." # mnemonic # " %x : tensor<4x3xf32>\n```";
  let arguments = (ins type:$x);
  let results = (outs type:$result);
  let assemblyFormat = "$x attr-dict `:` type($result)";
  let extraClassDeclaration = [{
    /// The derivative at x applied to `g` (elementwise, x's type).
    ::mlir::Value buildDerivativeTimes(::mlir::OpBuilder &b, ::mlir::Value g);
  }];
  let extraClassDefinition = [{
    ::mlir::Value $cppClass::buildDerivativeTimes(::mlir::OpBuilder &b, ::mlir::Value g) {
      using namespace ::mlir::relax::vjp;
      ::mlir::Location loc = getLoc();
      ::mlir::Value x = getX(), y = getResult();
      (void)x;
      (void)y;
      }] # vjp # [{
    }

    ::llvm::LogicalResult $cppClass::buildVectorJacobianProduct(
        ::mlir::OpBuilder &b, ::mlir::ValueRange resultGrads, ::llvm::ArrayRef<bool>,
        ::llvm::MutableArrayRef<::mlir::Value> operandGrads) {
      operandGrads[0] = buildDerivativeTimes(b, resultGrads[0]);
      return ::mlir::success();
    }

    ::llvm::LogicalResult $cppClass::buildJacobianVectorProduct(
        ::mlir::OpBuilder &b, ::mlir::ValueRange operandTangents,
        ::llvm::MutableArrayRef<::mlir::Value> resultTangents) {
      resultTangents[0] = buildDerivativeTimes(b, operandTangents[0]);
      return ::mlir::success();
    }
  }];
}

def Relax_NegativeOp : Relax_UnaryOp<"negative", Relax_NumericTensor, "-x",
    [{ return neg(b, loc, g); }]>;
def Relax_ExpOp : Relax_UnaryOp<"exp", Relax_FloatTensor, "exp(x)",
    [{ return mul(b, loc, g, y); }]>;
def Relax_LogOp : Relax_UnaryOp<"log", Relax_FloatTensor, "log(x)",
    [{ return div(b, loc, g, x); }]>;
def Relax_TanhOp : Relax_UnaryOp<"tanh", Relax_FloatTensor, "tanh(x)",
    [{ return mul(b, loc, g, oneMinus(b, loc, mul(b, loc, y, y))); }]>;
def Relax_SigmoidOp : Relax_UnaryOp<"sigmoid", Relax_FloatTensor, "1 / (1 + exp(-x))",
    [{ return mul(b, loc, g, mul(b, loc, y, oneMinus(b, loc, y))); }]>;
def Relax_ReluOp : Relax_UnaryOp<"relu", Relax_NumericTensor, "max(x, 0)",
    [{ Value zero = scalarLike(b, loc, x, 0.0);
       return where(b, loc, greater(b, loc, x, zero), g, zero); }]>;
def Relax_SqrtOp : Relax_UnaryOp<"sqrt", Relax_FloatTensor, "sqrt(x)",
    [{ return div(b, loc, mul(b, loc, g, scalarLike(b, loc, x, 0.5)), y); }]>;
// d(x^-1/2) = -1/2 x^-3/2 = -1/2 y^3
def Relax_RsqrtOp : Relax_UnaryOp<"rsqrt", Relax_FloatTensor, "1 / sqrt(x)",
    [{ return mul(b, loc, mul(b, loc, g, scalarLike(b, loc, x, -0.5)),
                  mul(b, loc, y, mul(b, loc, y, y))); }]>;
def Relax_SinOp : Relax_UnaryOp<"sin", Relax_FloatTensor, "sin(x)",
    [{ return mul(b, loc, g, CosOp::create(b, loc, x)); }]>;
def Relax_CosOp : Relax_UnaryOp<"cos", Relax_FloatTensor, "cos(x)",
    [{ return neg(b, loc, mul(b, loc, g, SinOp::create(b, loc, x))); }]>;
def Relax_TanOp : Relax_UnaryOp<"tan", Relax_FloatTensor, "tan(x)",
    [{ return mul(b, loc, g, add(b, loc, scalarLike(b, loc, y, 1.0), mul(b, loc, y, y))); }]>;
// The gradient at 0 is 0 (the sign function), as in JAX.
def Relax_AbsOp : Relax_UnaryOp<"abs", Relax_NumericTensor, "|x|",
    [{ return mul(b, loc, g, sign(b, loc, x)); }]>;
def Relax_SquareOp : Relax_UnaryOp<"square", Relax_NumericTensor, "x * x",
    [{ return mul(b, loc, g, mul(b, loc, x, scalarLike(b, loc, x, 2.0))); }]>;
// d erf(x) = 2 / sqrt(pi) exp(-x^2)
def Relax_ErfOp : Relax_UnaryOp<"erf", Relax_FloatTensor, "erf(x)",
    [{ Value e = ExpOp::create(b, loc, neg(b, loc, mul(b, loc, x, x)));
       return mul(b, loc, g, mul(b, loc, e, scalarLike(b, loc, x, M_2_SQRTPI))); }]>;
// d (x s) = s (1 + x (1 - s)), s = sigmoid(x)
def Relax_SiluOp : Relax_UnaryOp<"silu", Relax_FloatTensor, "x * sigmoid(x)",
    [{ Value s = SigmoidOp::create(b, loc, x);
       Value d = mul(b, loc, s, add(b, loc, scalarLike(b, loc, x, 1.0),
                                    mul(b, loc, x, oneMinus(b, loc, s))));
       return mul(b, loc, g, d); }]>;
// d gelu(x) = Phi(x) + x phi(x), Phi(x) = (1 + erf(x / sqrt 2)) / 2,
// phi(x) = exp(-x^2 / 2) / sqrt(2 pi)
def Relax_GeluOp : Relax_UnaryOp<"gelu", Relax_FloatTensor, "x * (1 + erf(x / sqrt(2))) / 2",
    [{ Value cdf = mul(b, loc, scalarLike(b, loc, x, 0.5),
                       add(b, loc, scalarLike(b, loc, x, 1.0),
                           ErfOp::create(b, loc, mul(b, loc, x,
                                                     scalarLike(b, loc, x, M_SQRT1_2)))));
       Value pdf = mul(b, loc, ExpOp::create(b, loc, mul(b, loc, mul(b, loc, x, x),
                                                          scalarLike(b, loc, x, -0.5))),
                       scalarLike(b, loc, x, 0.5 * M_2_SQRTPI * M_SQRT1_2));
       return mul(b, loc, g, add(b, loc, cdf, mul(b, loc, x, pdf))); }]>;
def Relax_SoftplusOp : Relax_UnaryOp<"softplus", Relax_FloatTensor, "log(1 + exp(x))",
    [{ return mul(b, loc, g, SigmoidOp::create(b, loc, x)); }]>;
// Accurate where x is small (numpy's and JAX's log1p); d log1p(x) = g / (1 + x).
def Relax_Log1pOp : Relax_UnaryOp<"log1p", Relax_FloatTensor, "log(1 + x)",
    [{ return div(b, loc, g, add(b, loc, scalarLike(b, loc, x, 1.0), x)); }]>;
// Accurate where x is small (numpy's and JAX's expm1); d expm1(x) = g (1 + y).
def Relax_Expm1Op : Relax_UnaryOp<"expm1", Relax_FloatTensor, "exp(x) - 1",
    [{ return mul(b, loc, g, add(b, loc, scalarLike(b, loc, y, 1.0), y)); }]>;

def Relax_LeakyReluOp : Relax_UnaryOp<"leaky_relu", Relax_FloatTensor,
    "x if x > 0 else alpha * x",
    [{ Value zero = scalarLike(b, loc, x, 0.0);
       return where(b, loc, greater(b, loc, x, zero), g,
                    mul(b, loc, g, scalarLike(b, loc, x, getAlpha().convertToDouble()))); }]> {
  let arguments = (ins Relax_FloatTensor:$x, DefaultValuedAttr<F64Attr, "0.01">:$alpha);
}

// The gradient passes where min < x < max (0 on and beyond the bounds).
def Relax_ClipOp : Relax_UnaryOp<"clip", Relax_NumericTensor, "min(max(x, min), max)",
    [{ Value zero = scalarLike(b, loc, g, 0.0);
       Value lo = scalarLike(b, loc, x, getMin().convertToDouble());
       Value hi = scalarLike(b, loc, x, getMax().convertToDouble());
       return where(b, loc, greater(b, loc, x, lo),
                    where(b, loc, less(b, loc, x, hi), g, zero), zero); }]> {
  let arguments = (ins Relax_NumericTensor:$x, F64Attr:$min, F64Attr:$max);
  let hasVerifier = 1;
}

def Relax_AstypeOp : Relax_Op<"astype", [Pure, Relax_LinearDifferentiable, Relax_Batchable]> {
  let summary = "Elementwise conversion to the result type's element type";
  let description = [{
    Converts each element as numpy's `astype` does: floats round to nearest,
    floats to integers truncate toward zero (out-of-range values saturate),
    integers and booleans to floats exactly where representable, anything to
    i1 is `x != 0`, i1 to a number is 0 or 1. The shape is kept. A float to
    float conversion passes the gradient back converted; other conversions
    carry none.

    ```mlir
    %y = relax.astype %x : tensor<4x3xf32> -> tensor<4x3xf16>
    ```
  }];
  let arguments = (ins Relax_Tensor:$x);
  let results = (outs Relax_Tensor:$result);
  let assemblyFormat = "$x attr-dict `:` type($x) `->` type($result)";
  let hasVerifier = 1;
  let hasFolder = 1;
}

// relax.bitcast: the bits of each element read as another type of the same
// width (no derivative: it is not a float function of its operand).
def Relax_BitcastOp : Relax_Op<"bitcast", [Pure, Relax_Batchable]> {
  let summary = "Elementwise reinterpretation of the bits as another element type";
  let description = [{
    Each element's bits read as the result's element type, which has the same
    bit width (`lax.bitcast_convert_type`, numpy's `view` of one element
    type): f32 <-> i32, f64 <-> i64, f16/bf16 <-> each other. The shape is
    kept. No derivative: the result is not a smooth function of x. The
    random-number generators build floats from random bits with it.

    ```mlir
    %y = relax.bitcast %x : tensor<4xi32> -> tensor<4xf32>
    ```
  }];
  let arguments = (ins Relax_TensorOf<[F16, BF16, F32, F64, I32, I64]>:$x);
  let results = (outs Relax_TensorOf<[F16, BF16, F32, F64, I32, I64]>:$result);
  let assemblyFormat = "$x attr-dict `:` type($x) `->` type($result)";
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Bitwise ops and shifts with numpy broadcasting (integers; and, or and xor
// also booleans): no derivative, integers carry none
//===----------------------------------------------------------------------===//

class Relax_IntegerBinaryOp<string mnemonic, string formula, string rule, Type type>
    : Relax_Op<mnemonic, [Pure, InferTypeOpAdaptor, Relax_Batchable]> {
  let summary = "Elementwise " # formula # " with numpy broadcasting";
  let description = "Computes `" # formula # "` elementwise. Both operands have one "
    "element type; the result shape is their numpy broadcast shape." # rule # "\n\n"
    "```mlir\n%c = relax." # mnemonic # " %a, %b : tensor<4x3xi32>, tensor<i32> "
    "-> tensor<4x3xi32>\n```";
  let arguments = (ins type:$lhs, type:$rhs);
  let results = (outs type:$result);
  let assemblyFormat =
      "$lhs `,` $rhs attr-dict `:` type($lhs) `,` type($rhs) `->` type($result)";
  let extraClassDefinition = [{
    ::llvm::LogicalResult $cppClass::inferReturnTypes(
        ::mlir::MLIRContext *, std::optional<::mlir::Location> loc,
        Adaptor adaptor, ::llvm::SmallVectorImpl<::mlir::Type> &results) {
      return ::mlir::relax::inferBroadcastBinaryType(loc, adaptor.getLhs().getType(),
                                                     adaptor.getRhs().getType(), results);
    }
  }];
}

def Relax_BitwiseAndOp : Relax_IntegerBinaryOp<"bitwise_and", "a & b", "",
                                               Relax_TensorOf<[I1, I32, I64]>>;
def Relax_BitwiseOrOp : Relax_IntegerBinaryOp<"bitwise_or", "a | b", "",
                                              Relax_TensorOf<[I1, I32, I64]>>;
def Relax_BitwiseXorOp : Relax_IntegerBinaryOp<"bitwise_xor", "a ^ b", "",
                                               Relax_TensorOf<[I1, I32, I64]>>;
def Relax_LeftShiftOp : Relax_IntegerBinaryOp<"left_shift", "a << b",
    " A shift by a negative amount or by the bit width or more gives 0 (JAX's "
    "rule; LLVM leaves such shifts undefined).", Relax_TensorOf<[I32, I64]>>;
def Relax_RightShiftOp : Relax_IntegerBinaryOp<"right_shift", "a >> b",
    " Arithmetic, as numpy's on signed integers: the sign bit fills. A shift by "
    "a negative amount or by the bit width or more gives -1 for a negative a, "
    "else 0.", Relax_TensorOf<[I32, I64]>>;
def Relax_ShiftRightLogicalOp : Relax_IntegerBinaryOp<"shift_right_logical", "a >>> b",
    " Logical (`lax.shift_right_logical`): a is read as unsigned and zeros "
    "fill. A shift by a negative amount or by the bit width or more gives 0.",
    Relax_TensorOf<[I32, I64]>>;

//===----------------------------------------------------------------------===//
// Elementwise binary ops with numpy broadcasting
//===----------------------------------------------------------------------===//

// `lhsVjp` and `rhsVjp` are each operand's partial derivative applied to `g`
// (statements ending in `return <d>;` with `g`, `lhs`, `rhs`, `y` (the result),
// `b` and `loc` in scope; see Relax_UnaryOp), elementwise with broadcasting.
// The VJP binds `g` to the result's adjoint and sums each back to its
// operand's shape (the reverse of broadcasting); the JVP binds `g` to each
// operand's tangent and adds the two, broadcast to the result.
class Relax_BroadcastBinaryOp<string mnemonic, string formula, code lhsVjp, code rhsVjp,
                              Type type = Relax_NumericTensor>
    : Relax_Op<mnemonic, [Pure, InferTypeOpAdaptor, Relax_Differentiable, Relax_Batchable]> {
  let summary = "Elementwise " # formula # " with numpy broadcasting";
  let description = "Computes `" # formula # "` elementwise. Both operands have one "
    "element type; the result shape is their numpy broadcast shape.\n\n"
    "```mlir\n%c = relax." # mnemonic # " %a, %b : tensor<4x3xf32>, tensor<3xf32> "
    "-> tensor<4x3xf32>\n```";
  let arguments = (ins type:$lhs, type:$rhs);
  let results = (outs type:$result);
  let assemblyFormat =
      "$lhs `,` $rhs attr-dict `:` type($lhs) `,` type($rhs) `->` type($result)";
  let extraClassDeclaration = [{
    /// The partial derivative with respect to operand `operand` (0: lhs, 1:
    /// rhs) applied to `g`, elementwise with broadcasting.
    ::mlir::Value buildDerivativeTimes(::mlir::OpBuilder &b, unsigned operand, ::mlir::Value g);
  }];
  let extraClassDefinition = [{
    ::llvm::LogicalResult $cppClass::inferReturnTypes(
        ::mlir::MLIRContext *, std::optional<::mlir::Location> loc,
        Adaptor adaptor, ::llvm::SmallVectorImpl<::mlir::Type> &results) {
      return ::mlir::relax::inferBroadcastBinaryType(loc, adaptor.getLhs().getType(),
                                                     adaptor.getRhs().getType(), results);
    }

    ::mlir::Value $cppClass::buildDerivativeTimes(::mlir::OpBuilder &b, unsigned operand,
                                                  ::mlir::Value g) {
      using namespace ::mlir::relax::vjp;
      ::mlir::Location loc = getLoc();
      ::mlir::Value lhs = getLhs(), rhs = getRhs(), y = getResult();
      (void)y;
      if (operand == 0) {
        }] # lhsVjp # [{
      }
      }] # rhsVjp # [{
    }

    ::llvm::LogicalResult $cppClass::buildVectorJacobianProduct(
        ::mlir::OpBuilder &b, ::mlir::ValueRange resultGrads, ::llvm::ArrayRef<bool> needsGrad,
        ::llvm::MutableArrayRef<::mlir::Value> operandGrads) {
      for (unsigned i = 0; i < 2; ++i)
        if (needsGrad[i])
          operandGrads[i] = ::mlir::relax::sumToType(
              b, getLoc(), buildDerivativeTimes(b, i, resultGrads[0]),
              getOperand(i).getType());
      return ::mlir::success();
    }

    ::llvm::LogicalResult $cppClass::buildJacobianVectorProduct(
        ::mlir::OpBuilder &b, ::mlir::ValueRange operandTangents,
        ::llvm::MutableArrayRef<::mlir::Value> resultTangents) {
      ::mlir::Value sum;
      for (unsigned i = 0; i < 2; ++i) {
        if (!operandTangents[i])
          continue;
        ::mlir::Value d = buildDerivativeTimes(b, i, operandTangents[i]);
        sum = sum ? ::mlir::relax::vjp::add(b, getLoc(), sum, d) : d;
      }
      resultTangents[0] = ::mlir::relax::broadcastToType(b, getLoc(), sum, getType());
      return ::mlir::success();
    }
  }];
}

def Relax_AddOp : Relax_BroadcastBinaryOp<"add", "a + b",
    [{ return g; }], [{ return g; }]> { let hasFolder = 1; }
def Relax_SubtractOp : Relax_BroadcastBinaryOp<"subtract", "a - b",
    [{ return g; }], [{ return neg(b, loc, g); }]> { let hasFolder = 1; }
def Relax_MultiplyOp : Relax_BroadcastBinaryOp<"multiply", "a * b",
    [{ return mul(b, loc, g, rhs); }], [{ return mul(b, loc, g, lhs); }]> {
  let hasFolder = 1;
}
// d(a/b) = da / b - (a/b) db / b
def Relax_DivideOp : Relax_BroadcastBinaryOp<"divide", "a / b",
    [{ return div(b, loc, g, rhs); }],
    [{ return neg(b, loc, div(b, loc, mul(b, loc, g, y), rhs)); }]>;
// d(a^b) = b a^(b-1) da + log(a) a^b db. Where b = 0 the lhs rule is 0 (not
// 0 * a^-1, which is NaN at a = 0); where a = 0 the rhs rule uses log(a) = 0
// (the limit of a^b log a for b > 0). Both as in JAX and PyTorch.
def Relax_PowerOp : Relax_BroadcastBinaryOp<"power", "a ^ b",
    [{ Value zero = scalarLike(b, loc, rhs, 0.0);
       Value d = mul(b, loc, rhs, PowerOp::create(
                  b, loc, lhs, sub(b, loc, rhs, scalarLike(b, loc, rhs, 1.0))));
       return mul(b, loc, g, where(b, loc, EqualOp::create(b, loc, rhs, zero), zero, d)); }],
    [{ Value zero = scalarLike(b, loc, lhs, 0.0);
       Value positive = greater(b, loc, lhs, zero);
       Value logA = LogOp::create(b, loc, where(b, loc, positive, lhs,
                                                scalarLike(b, loc, lhs, 1.0)));
       return mul(b, loc, g, mul(b, loc, y, logA)); }], Relax_FloatTensor>;
// Ties send the gradient to the lhs.
def Relax_MaximumOp : Relax_BroadcastBinaryOp<"maximum", "max(a, b)",
    [{ return where(b, loc, GreaterEqualOp::create(b, loc, lhs, rhs), g,
                    scalarLike(b, loc, g, 0.0)); }],
    [{ return where(b, loc, GreaterEqualOp::create(b, loc, lhs, rhs),
                    scalarLike(b, loc, g, 0.0), g); }]>;
def Relax_MinimumOp : Relax_BroadcastBinaryOp<"minimum", "min(a, b)",
    [{ return where(b, loc, LessEqualOp::create(b, loc, lhs, rhs), g,
                    scalarLike(b, loc, g, 0.0)); }],
    [{ return where(b, loc, LessEqualOp::create(b, loc, lhs, rhs),
                    scalarLike(b, loc, g, 0.0), g); }]>;

def Relax_WhereOp : Relax_Op<"where", [Pure, InferTypeOpAdaptor, Relax_Differentiable,
                                       Relax_Batchable]> {
  let summary = "Elementwise select with numpy broadcasting";
  let description = [{
    Picks `a` where `cond` is true and `b` elsewhere; all three broadcast.

    ```mlir
    %y = relax.where %m, %x, %z : tensor<4x3xi1>, tensor<4x3xf32>, tensor<f32> -> tensor<4x3xf32>
    ```
  }];
  let arguments = (ins Relax_BoolTensor:$cond, Relax_Tensor:$lhs, Relax_Tensor:$rhs);
  let results = (outs Relax_Tensor:$result);
  let assemblyFormat = "$cond `,` $lhs `,` $rhs attr-dict `:` type($cond) `,` type($lhs) `,` "
                       "type($rhs) `->` type($result)";
}

#endif // RELAX_OPS_ELEMENTWISE_OPS_TD
