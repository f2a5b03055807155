// Found by the mutation fuzzer (test_fuzz_short, seed 20240611; a mutation of
// Conversion/RelaxToLinalg/collective.mlir): relax.all_reduce of a rank-0
// tensor was lowered with reassociation [[]], which tensor.collapse_shape's
// verifier rejects, so --convert-relax-to-linalg printed invalid IR. It now
// expands the scalar to one element and collapses it back with no group, and
// the whole pipeline lowers it.
// RUN: relax-opt %s --convert-relax-to-linalg --verify-each=false | relax-opt - | FileCheck %s
// RUN: relax-opt %s --relax-to-llvm -o /dev/null

// CHECK-LABEL: func.func @huge(
// CHECK: tensor.expand_shape %{{.*}} [] output_shape [1] : tensor<f64> into tensor<1xf64>
// CHECK: tensor.collapse_shape %{{.*}} [] : tensor<1xf64> into tensor<f64>
func.func @huge(%x: tensor<f64>) -> tensor<f64> {
  %r = relax.all_reduce %x : tensor<f64>
  return %r : tensor<f64>
}
