// RUN: relax-opt %s -split-input-file -verify-diagnostics --gradient="func=main require-grads=0"

// require-grads and tuple parameters. Success cases are in tuples.mlir.

// A tuple with an integer field has no gradient: requiring it is an error.
// expected-error @+1 {{require-grads: parameter 0 has type 'tuple<tensor<3xf32>, tensor<3xi32>>'; only float tensors (and tuples of them) have gradients}}
func.func @main(%t: tuple<tensor<3xf32>, tensor<3xi32>>) -> tensor<f32> {
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
func.func @main(%t: tuple<tensor<3xf32>, tuple<tensor<2xf32>, tensor<i1>>>) -> tensor<f32> {
  %r = relax.dataflow -> (tensor<f32>) {
    %a = relax.tuple_get_item %t[0] : tuple<tensor<3xf32>, tuple<tensor<2xf32>, tensor<i1>>>
    %s = relax.sum %a : tensor<3xf32> -> tensor<f32>
    relax.output %s : tensor<f32>
  }
  return %r : tensor<f32>
}
