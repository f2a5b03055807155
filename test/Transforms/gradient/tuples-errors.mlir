// RUN: relax-opt %s -split-input-file -verify-diagnostics --gradient="func=main target-index=1"

// Failures of the gradient pass around tuples (all with target-index=1).
// Success cases are in tuples.mlir.

// Field 1 of the result is itself a tuple: the target-index does not reach
// into nested tuples.
// expected-error @+1 {{target-index 1 points at a tuple 'tuple<tensor<f32>, tensor<3xf32>>'; the target must be a 0-d float tensor}}
func.func @main(%x: tensor<3xf32>) -> tuple<tensor<3xf32>, tuple<tensor<f32>, tensor<3xf32>>> {
  %r = relax.dataflow -> (tensor<f32>) {
    %s = relax.sum %x : tensor<3xf32> -> tensor<f32>
    relax.output %s : tensor<f32>
  }
  %in = relax.tuple(%r, %x : tensor<f32>, tensor<3xf32>)
  %t = relax.tuple(%x, %in : tensor<3xf32>, tuple<tensor<f32>, tensor<3xf32>>)
  return %t : tuple<tensor<3xf32>, tuple<tensor<f32>, tensor<3xf32>>>
}

// -----

// A one-field tuple result has no field 1.
// expected-error @+1 {{target-index 1 is out of range: '@main' returns a tuple of 1 fields}}
func.func @main(%x: tensor<3xf32>) -> tuple<tensor<f32>> {
  %r = relax.dataflow -> (tensor<f32>) {
    %s = relax.sum %x : tensor<3xf32> -> tensor<f32>
    relax.output %s : tensor<f32>
  }
  %t = relax.tuple(%r : tensor<f32>)
  return %t : tuple<tensor<f32>>
}

// -----

// The target field must be a float scalar, even inside a tuple of tuples.
// expected-error @+1 {{the target must be a 0-d float tensor (a scalar loss), got 'tensor<i32>'}}
func.func @main(%x: tensor<3xf32>, %k: tensor<3xi32>) -> tuple<tuple<tensor<3xf32>>, tensor<i32>> {
  %r = relax.dataflow -> (tensor<i32>) {
    %s = relax.sum %k : tensor<3xi32> -> tensor<i32>
    relax.output %s : tensor<i32>
  }
  %in = relax.tuple(%x : tensor<3xf32>)
  %t = relax.tuple(%in, %r : tuple<tensor<3xf32>>, tensor<i32>)
  return %t : tuple<tuple<tensor<3xf32>>, tensor<i32>>
}

// -----

// An op without a gradient rule reading a tuple field, on the path.
func.func @main(%t: tuple<tensor<3xf32>, tensor<3xf32>>) -> tuple<tensor<3xf32>, tensor<f32>> {
  %r = relax.dataflow -> (tensor<f32>) {
    %a = relax.tuple_get_item %t[0] : tuple<tensor<3xf32>, tensor<3xf32>>
    // expected-error @+1 {{'arith.negf' is on the path to the target but has no gradient rule}}
    %n = arith.negf %a : tensor<3xf32>
    %s = relax.sum %n : tensor<3xf32> -> tensor<f32>
    relax.output %s : tensor<f32>
  }
  %b = relax.tuple_get_item %t[1] : tuple<tensor<3xf32>, tensor<3xf32>>
  %res = relax.tuple(%b, %r : tensor<3xf32>, tensor<f32>)
  return %res : tuple<tensor<3xf32>, tensor<f32>>
}

// -----

// A call returning a tuple, read on the path.
func.func private @pair(tensor<3xf32>) -> tuple<tensor<3xf32>, tensor<3xf32>>

func.func @main(%x: tensor<3xf32>) -> tuple<tensor<3xf32>, tensor<f32>> {
  %r = relax.dataflow -> (tensor<f32>) {
    // expected-error @+1 {{call on the path to the target: the callee has no body to inline and differentiate}}
    %p = func.call @pair(%x) : (tensor<3xf32>) -> tuple<tensor<3xf32>, tensor<3xf32>>
    %a = relax.tuple_get_item %p[1] : tuple<tensor<3xf32>, tensor<3xf32>>
    %s = relax.sum %a : tensor<3xf32> -> tensor<f32>
    relax.output %s : tensor<f32>
  }
  %res = relax.tuple(%x, %r : tensor<3xf32>, tensor<f32>)
  return %res : tuple<tensor<3xf32>, tensor<f32>>
}
