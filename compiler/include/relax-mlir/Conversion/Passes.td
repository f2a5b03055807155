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
    `zeros`/`ones` (and splat tensor constants) become `linalg.fill`. No relax
    op is left.

    Numerics: sums and means of f16/bf16 accumulate in f32 and those of f32 in
    f64, then convert back; f16/bf16 matmuls accumulate in f32. Integer
    `divide` truncates toward zero; `x / 0` is 0 and `INT_MIN / -1` is INT_MIN
    (no trap).

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
    "::mlir::relax::RelaxDialect", "::mlir::linalg::LinalgDialect", "::mlir::tensor::TensorDialect",
    "::mlir::arith::ArithDialect", "::mlir::math::MathDialect", "::mlir::scf::SCFDialect",
    "::mlir::bufferization::BufferizationDialect", "::mlir::memref::MemRefDialect",
    "::mlir::func::FuncDialect"
  ];
}

#endif // RELAX_CONVERSION_PASSES_TD
