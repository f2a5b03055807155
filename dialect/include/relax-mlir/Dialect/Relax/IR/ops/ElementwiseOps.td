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

// `vjp` is the body of the op's vector-Jacobian product: C++ statements ending
// in `return <dx>;`, with `g` (the result's adjoint), `x`, `y` (the result),
// `b` (the builder) and `loc` in scope, and the builders of
// relax::vjp (GradientUtils.h): mul, div, sub, neg, oneMinus, scalarLike,
// greater, where.
class Relax_UnaryOp<string mnemonic, Type type, string formula, code vjp>
    : Relax_Op<mnemonic, [Pure, SameOperandsAndResultType, Relax_Differentiable]> {
  let summary = "Elementwise " # formula;
  let description = "Computes `" # formula # "` for each element.\n\n"
    "```mlir\n%y = relax." # mnemonic # " %x : tensor<4x3xf32>\n```";
  let arguments = (ins type:$x);
  let results = (outs type:$result);
  let assemblyFormat = "$x attr-dict `:` type($result)";
  let extraClassDefinition = [{
    ::llvm::LogicalResult $cppClass::buildVectorJacobianProduct(
        ::mlir::OpBuilder &b, ::mlir::ValueRange resultGrads, ::llvm::ArrayRef<bool>,
        ::llvm::MutableArrayRef<::mlir::Value> operandGrads) {
      using namespace ::mlir::relax::vjp;
      ::mlir::Location loc = getLoc();
      ::mlir::Value g = resultGrads[0], x = getX(), y = getResult();
      (void)x;
      (void)y;
      operandGrads[0] = [&]() -> ::mlir::Value { }] # vjp # [{ }();
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

//===----------------------------------------------------------------------===//
// Elementwise binary ops with numpy broadcasting
//===----------------------------------------------------------------------===//

// `lhsVjp` and `rhsVjp` are the bodies of each operand's vector-Jacobian
// product before it is summed back to the operand's shape (the reverse of
// broadcasting): statements ending in `return <d>;` with `g`, `lhs`, `rhs`,
// `y` (the result), `b` and `loc` in scope (see Relax_UnaryOp).
class Relax_BroadcastBinaryOp<string mnemonic, string formula, code lhsVjp, code rhsVjp>
    : Relax_Op<mnemonic, [Pure, InferTypeOpAdaptor, Relax_Differentiable]> {
  let summary = "Elementwise " # formula # " with numpy broadcasting";
  let description = "Computes `" # formula # "` elementwise. Both operands have one "
    "element type; the result shape is their numpy broadcast shape.\n\n"
    "```mlir\n%c = relax." # mnemonic # " %a, %b : tensor<4x3xf32>, tensor<3xf32> "
    "-> tensor<4x3xf32>\n```";
  let arguments = (ins Relax_NumericTensor:$lhs, Relax_NumericTensor:$rhs);
  let results = (outs Relax_NumericTensor:$result);
  let assemblyFormat =
      "$lhs `,` $rhs attr-dict `:` type($lhs) `,` type($rhs) `->` type($result)";
  let extraClassDefinition = [{
    ::llvm::LogicalResult $cppClass::inferReturnTypes(
        ::mlir::MLIRContext *, std::optional<::mlir::Location> loc,
        Adaptor adaptor, ::llvm::SmallVectorImpl<::mlir::Type> &results) {
      return ::mlir::relax::inferBroadcastBinaryType(loc, adaptor.getLhs().getType(),
                                                     adaptor.getRhs().getType(), results);
    }

    ::llvm::LogicalResult $cppClass::buildVectorJacobianProduct(
        ::mlir::OpBuilder &b, ::mlir::ValueRange resultGrads, ::llvm::ArrayRef<bool> needsGrad,
        ::llvm::MutableArrayRef<::mlir::Value> operandGrads) {
      using namespace ::mlir::relax::vjp;
      ::mlir::Location loc = getLoc();
      ::mlir::Value g = resultGrads[0], lhs = getLhs(), rhs = getRhs(), y = getResult();
      (void)y;
      if (needsGrad[0])
        operandGrads[0] = ::mlir::relax::sumToType(
            b, loc, [&]() -> ::mlir::Value { }] # lhsVjp # [{ }(), lhs.getType());
      if (needsGrad[1])
        operandGrads[1] = ::mlir::relax::sumToType(
            b, loc, [&]() -> ::mlir::Value { }] # rhsVjp # [{ }(), rhs.getType());
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

def Relax_WhereOp : Relax_Op<"where", [Pure, InferTypeOpAdaptor, Relax_Differentiable]> {
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
