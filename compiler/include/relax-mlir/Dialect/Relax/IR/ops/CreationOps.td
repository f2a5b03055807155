//===- CreationOps.td - relax creation ops -----------------*- tablegen -*-===//
//
// Included by RelaxOps.td; see there for the shared definitions.
//
//===----------------------------------------------------------------------===//

#ifndef RELAX_OPS_CREATION_OPS_TD
#define RELAX_OPS_CREATION_OPS_TD

//===----------------------------------------------------------------------===//
// Creation
//===----------------------------------------------------------------------===//

class Relax_FillOp<string mnemonic, string value>
    : Relax_Op<mnemonic, [Pure]> {
  let summary = "A tensor of " # value # "s of the result type";
  let description = "Shape and element type come from the result type.\n\n"
    "```mlir\n%z = relax." # mnemonic # " : tensor<4x3xf32>\n```";
  let results = (outs Relax_Tensor:$result);
  let assemblyFormat = "attr-dict `:` type($result)";
}

def Relax_ZerosOp : Relax_FillOp<"zeros", "zero">;
def Relax_OnesOp : Relax_FillOp<"ones", "one">;

def Relax_FullOp : Relax_Op<"full", [Pure, Relax_LinearDifferentiable]> {
  let summary = "A tensor of the result type filled with a 0-d value";
  let description = [{
    Every element is `value`, a 0-d tensor of the result's element type. The
    gradient of `value` is the sum of the result's adjoint.

    ```mlir
    %f = relax.full %v : tensor<f32> -> tensor<4x3xf32>
    ```
  }];
  let arguments = (ins Relax_Tensor:$value);
  let results = (outs Relax_Tensor:$result);
  let assemblyFormat = "$value attr-dict `:` type($value) `->` type($result)";
  let hasVerifier = 1;
}

class Relax_FillLikeOp<string mnemonic, string value>
    : Relax_Op<mnemonic, [Pure, SameOperandsAndResultType, Relax_Differentiable,
                          Relax_Batchable]> {
  let summary = "A tensor of " # value # "s of the operand's type";
  let description = "Only the operand's type is read; its gradient is zero.\n\n"
    "```mlir\n%z = relax." # mnemonic # " %x : tensor<4x3xf32>\n```";
  let arguments = (ins Relax_Tensor:$x);
  let results = (outs Relax_Tensor:$result);
  let assemblyFormat = "$x attr-dict `:` type($result)";
}

def Relax_ZerosLikeOp : Relax_FillLikeOp<"zeros_like", "zero">;
def Relax_OnesLikeOp : Relax_FillLikeOp<"ones_like", "one">;

def Relax_FullLikeOp : Relax_Op<"full_like", [Pure, Relax_Differentiable, Relax_Batchable,
                                              AllTypesMatch<["x", "result"]>,
                                              AllElementTypesMatch<["x", "value"]>]> {
  let summary = "A tensor of the operand's type filled with a 0-d value";
  let description = [{
    Every element is `value`, a 0-d tensor of `x`'s element type; only `x`'s
    type is read. The gradient of `value` is the sum of the adjoint; of `x`,
    zero.

    ```mlir
    %f = relax.full_like %x, %v : tensor<4x3xf32>, tensor<f32>
    ```
  }];
  let arguments = (ins Relax_Tensor:$x, Relax_Tensor:$value);
  let results = (outs Relax_Tensor:$result);
  let assemblyFormat = "$x `,` $value attr-dict `:` type($x) `,` type($value)";
  let hasVerifier = 1;
}

#endif // RELAX_OPS_CREATION_OPS_TD
