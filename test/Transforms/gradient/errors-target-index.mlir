// RUN: relax-opt %s -split-input-file -verify-diagnostics --gradient="func=main target-index=1"

// Errors of the target-index option; the messages state the index given.

// expected-error @+1 {{target-index 1 given, but '@main' returns a single value; target-index must be 0}}
func.func @main(%x: tensor<3xf32>) -> tensor<f32> {
  %r = relax.dataflow -> (tensor<f32>) {
    %0 = relax.sum %x : tensor<3xf32> -> tensor<f32>
    relax.output %0 : tensor<f32>
  }
  return %r : tensor<f32>
}

// -----

// expected-error @+1 {{target-index 1 is out of range: '@main' returns a tuple of 1 fields}}
func.func @main(%x: tensor<3xf32>) -> tuple<tensor<f32>> {
  %r = relax.dataflow -> (tensor<f32>) {
    %0 = relax.sum %x : tensor<3xf32> -> tensor<f32>
    relax.output %0 : tensor<f32>
  }
  %t = relax.tuple(%r : tensor<f32>)
  return %t : tuple<tensor<f32>>
}

// -----

// expected-error @+1 {{target-index 1 points at a tuple 'tuple<tensor<f32>>'; the target must be a 0-d float tensor}}
func.func @main(%x: tensor<3xf32>) -> tuple<tensor<f32>, tuple<tensor<f32>>> {
  %r = relax.dataflow -> (tensor<f32>) {
    %0 = relax.sum %x : tensor<3xf32> -> tensor<f32>
    relax.output %0 : tensor<f32>
  }
  %i = relax.tuple(%r : tensor<f32>)
  %t = relax.tuple(%r, %i : tensor<f32>, tuple<tensor<f32>>)
  return %t : tuple<tensor<f32>, tuple<tensor<f32>>>
}

// -----

// expected-error @+1 {{the target must be a 0-d float tensor (a scalar loss), got 'tensor<3xf32>'}}
func.func @main(%x: tensor<3xf32>) -> tuple<tensor<f32>, tensor<3xf32>> {
  %r = relax.dataflow -> (tensor<f32>) {
    %0 = relax.sum %x : tensor<3xf32> -> tensor<f32>
    relax.output %0 : tensor<f32>
  }
  %t = relax.tuple(%r, %x : tensor<f32>, tensor<3xf32>)
  return %t : tuple<tensor<f32>, tensor<3xf32>>
}
