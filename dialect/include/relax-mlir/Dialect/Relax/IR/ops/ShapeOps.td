//===- ShapeOps.td - relax shape ops -----------------------*- tablegen -*-===//
//
// Included by RelaxOps.td; see there for the shared definitions.
//
//===----------------------------------------------------------------------===//

#ifndef RELAX_OPS_SHAPE_OPS_TD
#define RELAX_OPS_SHAPE_OPS_TD

//===----------------------------------------------------------------------===//
// Shape manipulation (the result type states the shape)
//===----------------------------------------------------------------------===//

def Relax_PermuteDimsOp : Relax_Op<"permute_dims", [Pure, InferTypeOpAdaptor,
                                                    Relax_Differentiable]> {
  let summary = "Permutes the axes of a tensor";
  let description = [{
    Result axis `i` is operand axis `axes[i]`; without `axes` the axes are
    reversed (a transpose).

    ```mlir
    %t = relax.permute_dims %x {axes = array<i64: 1, 0, 2>} : tensor<2x3x4xf32> -> tensor<3x2x4xf32>
    ```
  }];
  let arguments = (ins Relax_Tensor:$x, OptionalAttr<DenseI64ArrayAttr>:$axes);
  let results = (outs Relax_Tensor:$result);
  let assemblyFormat = "$x attr-dict `:` type($x) `->` type($result)";
  let hasFolder = 1;
  let hasCanonicalizer = 1;
  let extraClassDeclaration = [{
    /// The permutation, non-negative (the reversal when `axes` is absent).
    ::llvm::SmallVector<int64_t> getPermutation();
  }];
}

class Relax_ShapeOp<string mnemonic, string what, string example>
    : Relax_Op<mnemonic, [Pure, Relax_Differentiable]> {
  let summary = what;
  let arguments = (ins Relax_Tensor:$x);
  let results = (outs Relax_Tensor:$result);
  let assemblyFormat = "$x attr-dict `:` type($x) `->` type($result)";
  let hasVerifier = 1;
  let hasFolder = 1;
  let description = what # ".\n\n```mlir\n" # example # "\n```";
}

def Relax_ReshapeOp : Relax_ShapeOp<"reshape",
    "Reshapes to the result type's shape (row-major, element count kept)",
    "%y = relax.reshape %x : tensor<2x6xf32> -> tensor<3x4xf32>">;
def Relax_BroadcastToOp : Relax_ShapeOp<"broadcast_to",
    "Broadcasts to the result type's shape by numpy broadcasting",
    "%y = relax.broadcast_to %x : tensor<3xf32> -> tensor<4x3xf32>">;
def Relax_CollapseSumToOp : Relax_ShapeOp<"collapse_sum_to",
    "Sums down to the result type's shape, the reverse of broadcasting",
    "%y = relax.collapse_sum_to %x : tensor<4x3xf32> -> tensor<1x3xf32>">;

#endif // RELAX_OPS_SHAPE_OPS_TD
