// RUN: relax-opt %s -split-input-file -verify-diagnostics --gradient=func=main | FileCheck %s

// The parameters that get gradients: relax.require_grads (the pass's
// require-grads option overrides it) lists parameter indices, each once, each a
// float tensor or a tuple of only float tensors; without it, every such
// parameter. Successes and failures side by side: each split is one function
// differentiated with its own attribute.

// Only parameter 1: the adjoint returns one gradient, d/dy sum(x * y) = x.
// CHECK-LABEL: func.func @main_adjoint(
// CHECK-SAME:    %[[X:.+]]: tensor<3xf32>, %[[Y:.+]]: tensor<3xf32>) -> tuple<tensor<f32>, tuple<tensor<3xf32>>>
// CHECK:         [[DY:%.+]] = relax.multiply %{{.+}}, %[[X]]
// CHECK:         relax.tuple([[DY]] : tensor<3xf32>)
func.func @main(%x: tensor<3xf32>, %y: tensor<3xf32>) -> tensor<f32> attributes {relax.require_grads = array<i64: 1>} {
  %r = relax.dataflow -> (tensor<f32>) {
    %0 = relax.multiply %x, %y : tensor<3xf32>, tensor<3xf32> -> tensor<3xf32>
    %1 = relax.sum %0 : tensor<3xf32> -> tensor<f32>
    relax.output %1 : tensor<f32>
  }
  return %r : tensor<f32>
}

// -----

// Without the attribute, every float parameter; the integer labels get none.
// CHECK-LABEL: func.func @main_adjoint(
// CHECK-SAME:    -> tuple<tensor<f32>, tuple<tensor<3xf32>>>
func.func @main(%x: tensor<3xf32>, %labels: tensor<3xi32>) -> tensor<f32> {
  %r = relax.dataflow -> (tensor<f32>) {
    %0 = relax.sum %x : tensor<3xf32> -> tensor<f32>
    relax.output %0 : tensor<f32>
  }
  return %r : tensor<f32>
}

// -----

// expected-error @+1 {{require-grads index 1 is out of range: '@main' has 1 parameters}}
func.func @main(%x: tensor<3xf32>) -> tensor<f32> attributes {relax.require_grads = array<i64: 1>} {
  %r = relax.dataflow -> (tensor<f32>) {
    %0 = relax.sum %x : tensor<3xf32> -> tensor<f32>
    relax.output %0 : tensor<f32>
  }
  return %r : tensor<f32>
}

// -----

// expected-error @+1 {{require-grads lists parameter 1 twice}}
func.func @main(%x: tensor<3xf32>, %y: tensor<3xf32>) -> tensor<f32> attributes {relax.require_grads = array<i64: 1, 1>} {
  %r = relax.dataflow -> (tensor<f32>) {
    %0 = relax.multiply %x, %y : tensor<3xf32>, tensor<3xf32> -> tensor<3xf32>
    %1 = relax.sum %0 : tensor<3xf32> -> tensor<f32>
    relax.output %1 : tensor<f32>
  }
  return %r : tensor<f32>
}

// -----

// expected-error @+1 {{require-grads: parameter 1 has type 'tensor<3xi32>'; only float tensors (and tuples of them) have gradients}}
func.func @main(%x: tensor<3xf32>, %labels: tensor<3xi32>) -> tensor<f32> attributes {relax.require_grads = array<i64: 1>} {
  %r = relax.dataflow -> (tensor<f32>) {
    %0 = relax.sum %x : tensor<3xf32> -> tensor<f32>
    relax.output %0 : tensor<f32>
  }
  return %r : tensor<f32>
}

// -----

// A tuple with an integer leaf has no gradient either.
// expected-error @+1 {{require-grads: parameter 1 has type 'tuple<tensor<3xf32>, tensor<i64>>'; only float tensors (and tuples of them) have gradients}}
func.func @main(%x: tensor<3xf32>, %t: tuple<tensor<3xf32>, tensor<i64>>) -> tensor<f32> attributes {relax.require_grads = array<i64: 1>} {
  %r = relax.dataflow -> (tensor<f32>) {
    %0 = relax.sum %x : tensor<3xf32> -> tensor<f32>
    relax.output %0 : tensor<f32>
  }
  return %r : tensor<f32>
}

// -----

// A mask parameter (i1) has no gradient.
// expected-error @+1 {{require-grads: parameter 1 has type 'tensor<3xi1>'; only float tensors (and tuples of them) have gradients}}
func.func @main(%x: tensor<3xf32>, %m: tensor<3xi1>) -> tensor<f32> attributes {relax.require_grads = array<i64: 1>} {
  %r = relax.dataflow -> (tensor<f32>) {
    %0 = relax.sum %x : tensor<3xf32> -> tensor<f32>
    relax.output %0 : tensor<f32>
  }
  return %r : tensor<f32>
}

// -----

// expected-error @+1 {{require-grads index -1 is out of range: '@main' has 1 parameters}}
func.func @main(%x: tensor<3xf32>) -> tensor<f32> attributes {relax.require_grads = array<i64: -1>} {
  %r = relax.dataflow -> (tensor<f32>) {
    %0 = relax.sum %x : tensor<3xf32> -> tensor<f32>
    relax.output %0 : tensor<f32>
  }
  return %r : tensor<f32>
}

// -----

// A tuple with an integer field has no gradient: requiring it is an error.
// expected-error @+1 {{require-grads: parameter 0 has type 'tuple<tensor<3xf32>, tensor<3xi32>>'; only float tensors (and tuples of them) have gradients}}
func.func @main(%t: tuple<tensor<3xf32>, tensor<3xi32>>) -> tensor<f32> attributes {relax.require_grads = array<i64: 0>} {
  %r = relax.dataflow -> (tensor<f32>) {
    %a = relax.tuple_get_item %t[0] : tuple<tensor<3xf32>, tensor<3xi32>>
    %s = relax.sum %a : tensor<3xf32> -> tensor<f32>
    relax.output %s : tensor<f32>
  }
  return %r : tensor<f32>
}

// -----

// Nor does a nested one, however deep the integer field.
// expected-error @+1 {{require-grads: parameter 0 has type 'tuple<tensor<3xf32>, tuple<tensor<2xf32>, tensor<i1>>>'; only float tensors (and tuples of them) have gradients}}
func.func @main(%t: tuple<tensor<3xf32>, tuple<tensor<2xf32>, tensor<i1>>>) -> tensor<f32> attributes {relax.require_grads = array<i64: 0>} {
  %r = relax.dataflow -> (tensor<f32>) {
    %a = relax.tuple_get_item %t[0] : tuple<tensor<3xf32>, tuple<tensor<2xf32>, tensor<i1>>>
    %s = relax.sum %a : tensor<3xf32> -> tensor<f32>
    relax.output %s : tensor<f32>
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

// expected-error @+1 {{require-grads index 3 is out of range: '@main' has 1 parameters}}
func.func @main(%x: tensor<3xf32>) -> tensor<f32> attributes {relax.require_grads = array<i64: 3>} {
  %r = relax.dataflow -> (tensor<f32>) {
    %0 = relax.sum %x : tensor<3xf32> -> tensor<f32>
    relax.output %0 : tensor<f32>
  }
  return %r : tensor<f32>
}
