//===- LinearAlgebraOps.td - relax linear algebra ops ------*- tablegen -*-===//
//
// Included by RelaxOps.td; see there for the shared definitions.
//
//===----------------------------------------------------------------------===//

#ifndef RELAX_OPS_LINEAR_ALGEBRA_OPS_TD
#define RELAX_OPS_LINEAR_ALGEBRA_OPS_TD

//===----------------------------------------------------------------------===//
// Linear algebra
//===----------------------------------------------------------------------===//

def Relax_MatmulOp : Relax_Op<"matmul", [Pure, InferTypeOpAdaptor, Relax_Differentiable,
                                         Relax_Batchable]> {
  let summary = "Matrix product with np.matmul semantics";
  let description = [{
    `a` is (..., n, k) and `b` is (..., k, m); the batch dims broadcast. A 1-D
    `a` is promoted to (1, k) and a 1-D `b` to (k, 1), and the promoted dim is
    dropped from the result.

    ```mlir
    %c = relax.matmul %a, %b : tensor<8x64xf32>, tensor<64x10xf32> -> tensor<8x10xf32>
    ```
  }];
  let arguments = (ins Relax_NumericTensor:$lhs, Relax_NumericTensor:$rhs);
  let results = (outs Relax_NumericTensor:$result);
  let assemblyFormat =
      "$lhs `,` $rhs attr-dict `:` type($lhs) `,` type($rhs) `->` type($result)";
}

#endif // RELAX_OPS_LINEAR_ALGEBRA_OPS_TD
