// RUN: relax-opt %s -split-input-file -verify-diagnostics --gradient="func=main target-index=-1"

// A negative target-index is rejected, and the message states it.

// expected-error @+1 {{target-index -1 is out of range: '@main' returns a tuple of 2 fields}}
func.func @main(%x: tensor<3xf32>) -> tuple<tensor<f32>, tensor<f32>> {
  %r = relax.dataflow -> (tensor<f32>) {
    %0 = relax.sum %x : tensor<3xf32> -> tensor<f32>
    relax.output %0 : tensor<f32>
  }
  %t = relax.tuple(%r, %r : tensor<f32>, tensor<f32>)
  return %t : tuple<tensor<f32>, tensor<f32>>
}

// -----

// expected-error @+1 {{target-index -1 given, but '@main' returns a single value; target-index must be 0}}
func.func @main(%x: tensor<3xf32>) -> tensor<f32> {
  %r = relax.dataflow -> (tensor<f32>) {
    %0 = relax.sum %x : tensor<3xf32> -> tensor<f32>
    relax.output %0 : tensor<f32>
  }
  return %r : tensor<f32>
}
