// RUN: relax-opt %s -split-input-file -verify-diagnostics --convert-relax-to-linalg

// Tuples that cannot be flattened are rejected.

func.func @g(%t: tuple<tensor<2xf32>>) -> tensor<2xf32> {
  %a = relax.tuple_get_item %t[0] : tuple<tensor<2xf32>>
  return %a : tensor<2xf32>
}

func.func @f(%x: tensor<2xf32>) -> tensor<2xf32> {
  %t = relax.tuple(%x : tensor<2xf32>)
  // expected-error @+1 {{call with tuple-typed values cannot be flattened; run the 'inline' pass first}}
  %0 = call @g(%t) : (tuple<tensor<2xf32>>) -> tensor<2xf32>
  return %0 : tensor<2xf32>
}

// -----

// expected-error @+1 {{cannot flatten the tuple signature of an external function}}
func.func private @ext(tuple<tensor<2xf32>, tensor<f32>>) -> tensor<f32>
