// RUN: relax-opt %s --convert-relax-to-linalg | FileCheck %s
// RUN: relax-opt %s --relax-to-llvm | FileCheck %s --check-prefix=LLVM

// A module with tuple-typed signatures but not a single relax op: the pass
// loads the relax dialect itself to build the tuple glue (it segfaulted when
// no relax op had loaded the dialect).

// CHECK-LABEL: func.func @pass_through(
// CHECK-SAME:    %[[A:.+]]: tensor<2xf32>, %[[B:.+]]: tensor<f32>) -> (tensor<2xf32>, tensor<f32>)
// CHECK:         return %[[A]], %[[B]] : tensor<2xf32>, tensor<f32>
func.func @pass_through(%t: tuple<tensor<2xf32>, tensor<f32>>) -> tuple<tensor<2xf32>, tensor<f32>> {
  return %t : tuple<tensor<2xf32>, tensor<f32>>
}

// A tuple block argument of a private function.
// CHECK-LABEL: func.func private @private_tuple(
// CHECK-SAME:    %{{.+}}: tensor<3xi32>) -> tensor<3xi32>
func.func private @private_tuple(%t: tuple<tensor<3xi32>>) -> tuple<tensor<3xi32>> {
  return %t : tuple<tensor<3xi32>>
}

// LLVM: llvm.func @pass_through(
// LLVM: llvm.func @_mlir_ciface_pass_through(
