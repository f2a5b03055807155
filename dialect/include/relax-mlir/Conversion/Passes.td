//===- Passes.td - relax conversion passes -----------------*- tablegen -*-===//

#ifndef RELAX_CONVERSION_PASSES_TD
#define RELAX_CONVERSION_PASSES_TD

include "mlir/Pass/PassBase.td"

def ConvertRelaxToLinalgPass : Pass<"convert-relax-to-linalg", "::mlir::ModuleOp"> {
  let summary = "Lower relax ops to linalg, tensor, arith and math on tensors";
  let description = [{
    First flattens tuples as `relax-flatten-tuples` does, then rewrites every
    relax op: elementwise ops and broadcasts become `linalg.generic` with
    broadcasting indexing maps, reductions and matmul become `linalg.generic`
    reductions on a zero-filled init, `permute_dims` becomes `linalg.transpose`,
    reshapes become `tensor.collapse_shape`/`tensor.expand_shape`, and
    `zeros`/`ones` become splat `arith.constant`s. No relax op is left.

    ```mlir
    %c = relax.add %a, %b : tensor<4x3xf32>, tensor<3xf32> -> tensor<4x3xf32>
    ```
    ==>
    ```mlir
    %e = tensor.empty() : tensor<4x3xf32>
    %c = linalg.generic {indexing_maps = [(d0, d1) -> (d0, d1), (d0, d1) -> (d1),
                                          (d0, d1) -> (d0, d1)], ...}
        ins(%a, %b : ...) outs(%e : tensor<4x3xf32>) { arith.addf ... }
    ```
  }];
  let dependentDialects = [
    "::mlir::linalg::LinalgDialect", "::mlir::tensor::TensorDialect",
    "::mlir::arith::ArithDialect", "::mlir::math::MathDialect"
  ];
}

#endif // RELAX_CONVERSION_PASSES_TD
