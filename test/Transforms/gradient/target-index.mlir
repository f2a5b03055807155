// RUN: relax-opt %s -split-input-file -verify-diagnostics --gradient=func=main | FileCheck %s

// The target: a single result, or the field of a tuple result that
// relax.target_index names (the pass's target-index option overrides it); the
// target must be a 0-d float tensor. Successes and failures side by side: each
// split is one function differentiated with its own attribute.

// A single result is the target; without an attribute the index is 0.
// CHECK-LABEL: func.func @main_adjoint(
// CHECK-SAME:    -> tuple<tensor<f32>, tuple<tensor<3xf32>>>
func.func @main(%x: tensor<3xf32>) -> tensor<f32> {
  %r = relax.dataflow -> (tensor<f32>) {
    %0 = relax.sum %x : tensor<3xf32> -> tensor<f32>
    relax.output %0 : tensor<f32>
  }
  return %r : tensor<f32>
}

// -----

// Field 1 of a tuple result: the adjoint returns the whole tuple and the
// gradient of field 1 (the square's: 2 x), not of field 0.
// CHECK-LABEL: func.func @main_adjoint(
// CHECK-SAME:    %[[X:.+]]: tensor<3xf32>) -> tuple<tuple<tensor<f32>, tensor<f32>>, tuple<tensor<3xf32>>>
// CHECK:         [[TWO_X:%.+]] = relax.multiply %[[X]], %{{.+}} : tensor<3xf32>, tensor<f32> -> tensor<3xf32>
// CHECK-NEXT:    [[DX:%.+]] = relax.multiply %{{.+}}, [[TWO_X]]
// CHECK-NEXT:    relax.tuple([[DX]] : tensor<3xf32>)
func.func @main(%x: tensor<3xf32>) -> tuple<tensor<f32>, tensor<f32>> attributes {relax.target_index = 1 : i64} {
  %r:2 = relax.dataflow -> (tensor<f32>, tensor<f32>) {
    %0 = relax.sum %x : tensor<3xf32> -> tensor<f32>
    %1 = relax.square %x : tensor<3xf32>
    %2 = relax.sum %1 : tensor<3xf32> -> tensor<f32>
    relax.output %0, %2 : tensor<f32>, tensor<f32>
  }
  %t = relax.tuple(%r#0, %r#1 : tensor<f32>, tensor<f32>)
  return %t : tuple<tensor<f32>, tensor<f32>>
}

// -----

// expected-error @+1 {{target-index 1 given, but '@main' returns a single value; target-index must be 0}}
func.func @main(%x: tensor<3xf32>) -> tensor<f32> attributes {relax.target_index = 1 : i64} {
  %r = relax.dataflow -> (tensor<f32>) {
    %0 = relax.sum %x : tensor<3xf32> -> tensor<f32>
    relax.output %0 : tensor<f32>
  }
  return %r : tensor<f32>
}

// -----

// expected-error @+1 {{target-index 1 is out of range: '@main' returns a tuple of 1 fields}}
func.func @main(%x: tensor<3xf32>) -> tuple<tensor<f32>> attributes {relax.target_index = 1 : i64} {
  %r = relax.dataflow -> (tensor<f32>) {
    %0 = relax.sum %x : tensor<3xf32> -> tensor<f32>
    relax.output %0 : tensor<f32>
  }
  %t = relax.tuple(%r : tensor<f32>)
  return %t : tuple<tensor<f32>>
}

// -----

// expected-error @+1 {{target-index 1 points at a tuple 'tuple<tensor<f32>>'; the target must be a 0-d float tensor}}
func.func @main(%x: tensor<3xf32>) -> tuple<tensor<f32>, tuple<tensor<f32>>> attributes {relax.target_index = 1 : i64} {
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
func.func @main(%x: tensor<3xf32>) -> tuple<tensor<f32>, tensor<3xf32>> attributes {relax.target_index = 1 : i64} {
  %r = relax.dataflow -> (tensor<f32>) {
    %0 = relax.sum %x : tensor<3xf32> -> tensor<f32>
    relax.output %0 : tensor<f32>
  }
  %t = relax.tuple(%r, %x : tensor<f32>, tensor<3xf32>)
  return %t : tuple<tensor<f32>, tensor<3xf32>>
}

// -----

// expected-error @+1 {{target-index -1 is out of range: '@main' returns a tuple of 2 fields}}
func.func @main(%x: tensor<3xf32>) -> tuple<tensor<f32>, tensor<f32>> attributes {relax.target_index = -1 : i64} {
  %r = relax.dataflow -> (tensor<f32>) {
    %0 = relax.sum %x : tensor<3xf32> -> tensor<f32>
    relax.output %0 : tensor<f32>
  }
  %t = relax.tuple(%r, %r : tensor<f32>, tensor<f32>)
  return %t : tuple<tensor<f32>, tensor<f32>>
}

// -----

// expected-error @+1 {{target-index -1 given, but '@main' returns a single value; target-index must be 0}}
func.func @main(%x: tensor<3xf32>) -> tensor<f32> attributes {relax.target_index = -1 : i64} {
  %r = relax.dataflow -> (tensor<f32>) {
    %0 = relax.sum %x : tensor<3xf32> -> tensor<f32>
    relax.output %0 : tensor<f32>
  }
  return %r : tensor<f32>
}

// -----

// expected-error @+1 {{relax.target_index must be an integer attribute (`relax.target_index = 1`), got "one"}}
func.func @main(%x: tensor<3xf32>) -> tensor<f32> attributes {relax.target_index = "one"} {
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
