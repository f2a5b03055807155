// RUN: relax-opt %s -split-input-file -verify-diagnostics --jvp="func=main wrt=1"

// expected-error @+1 {{wrt: parameter 1 has type 'tensor<3xi32>'; only float tensors (and tuples of them) have tangents}}
func.func @main(%x: tensor<3xf32>, %i: tensor<3xi32>) -> tensor<f32> {
  %r = relax.dataflow -> (tensor<f32>) {
    %0 = relax.sum %x : tensor<3xf32> -> tensor<f32>
    relax.output %0 : tensor<f32>
  }
  return %r : tensor<f32>
}

// -----

// A failed run adds nothing: no @main_jvp, half-built or otherwise.
// expected-error @+1 {{wrt: parameter 1 has type 'tuple<tensor<3xf32>, tensor<i64>>'; only float tensors (and tuples of them) have tangents}}
func.func @main(%x: tensor<3xf32>, %t: tuple<tensor<3xf32>, tensor<i64>>) -> tensor<f32> {
  %r = relax.dataflow -> (tensor<f32>) {
    %0 = relax.sum %x : tensor<3xf32> -> tensor<f32>
    relax.output %0 : tensor<f32>
  }
  return %r : tensor<f32>
}
