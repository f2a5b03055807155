// RUN: relax-opt %s -split-input-file -verify-diagnostics --gradient=func=main

// Malformed relax.target_index / relax.require_grads function attributes, and
// attributes whose values the options' checks reject.

// expected-error @+1 {{relax.target_index must be an integer attribute (`relax.target_index = 1`), got "one"}}
func.func @main(%x: tensor<3xf32>) -> tensor<f32> attributes {relax.target_index = "one"} {
  %r = relax.dataflow -> (tensor<f32>) {
    %0 = relax.sum %x : tensor<3xf32> -> tensor<f32>
    relax.output %0 : tensor<f32>
  }
  return %r : tensor<f32>
}

// -----

// expected-error @+1 {{relax.require_grads must be a non-empty array of parameter indices (`relax.require_grads = array<i64: 0, 2>`), got [0]}}
func.func @main(%x: tensor<3xf32>) -> tensor<f32> attributes {relax.require_grads = [0]} {
  %r = relax.dataflow -> (tensor<f32>) {
    %0 = relax.sum %x : tensor<3xf32> -> tensor<f32>
    relax.output %0 : tensor<f32>
  }
  return %r : tensor<f32>
}

// -----

// expected-error @+1 {{relax.require_grads must be a non-empty array of parameter indices}}
func.func @main(%x: tensor<3xf32>) -> tensor<f32> attributes {relax.require_grads = array<i64>} {
  %r = relax.dataflow -> (tensor<f32>) {
    %0 = relax.sum %x : tensor<3xf32> -> tensor<f32>
    relax.output %0 : tensor<f32>
  }
  return %r : tensor<f32>
}

// -----

// expected-error @+1 {{target-index 2 is out of range: '@main' returns a tuple of 1 fields}}
func.func @main(%x: tensor<3xf32>) -> tuple<tensor<f32>> attributes {relax.target_index = 2 : i64} {
  %r = relax.dataflow -> (tensor<f32>) {
    %0 = relax.sum %x : tensor<3xf32> -> tensor<f32>
    relax.output %0 : tensor<f32>
  }
  %t = relax.tuple(%r : tensor<f32>)
  return %t : tuple<tensor<f32>>
}

// -----

// expected-error @+1 {{require-grads index 3 is out of range: '@main' has 1 parameters}}
func.func @main(%x: tensor<3xf32>) -> tensor<f32> attributes {relax.require_grads = array<i64: 3>} {
  %r = relax.dataflow -> (tensor<f32>) {
    %0 = relax.sum %x : tensor<3xf32> -> tensor<f32>
    relax.output %0 : tensor<f32>
  }
  return %r : tensor<f32>
}
