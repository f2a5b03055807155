// RUN: relax-opt %s -split-input-file -verify-diagnostics

// Verifier errors of the creation ops full zeros_like ones_like full_like.

func.func @full_value_not_0d(%v: tensor<1xf32>) {
  // expected-error @+1 {{'relax.full' op value must be a 0-d tensor, got 'tensor<1xf32>'}}
  %0 = relax.full %v : tensor<1xf32> -> tensor<4x3xf32>
  return
}

// -----

func.func @full_value_element_type(%v: tensor<f64>) {
  // expected-error @+1 {{'relax.full' op value element type 'f64' differs from the result element type 'f32'}}
  %0 = relax.full %v : tensor<f64> -> tensor<4x3xf32>
  return
}

// -----

func.func @full_dynamic_result(%v: tensor<f32>) {
  // expected-error @+1 {{'relax.full' op result #0 must be statically shaped tensor of 16-bit float or bfloat16 type or 32-bit float or 64-bit float or 1-bit signless integer or 32-bit signless integer or 64-bit signless integer values of fewer than 2^63 bytes, but got 'tensor<?xf32>'}}
  %0 = relax.full %v : tensor<f32> -> tensor<?xf32>
  return
}

// -----

func.func @full_like_value_not_0d(%x: tensor<4x3xf32>, %v: tensor<3xf32>) {
  // expected-error @+1 {{'relax.full_like' op value must be a 0-d tensor, got 'tensor<3xf32>'}}
  %0 = relax.full_like %x, %v : tensor<4x3xf32>, tensor<3xf32>
  return
}

// -----

func.func @full_like_value_element_type(%x: tensor<4x3xf32>, %v: tensor<i32>) {
  // expected-error @+1 {{'relax.full_like' op failed to verify that all of {x, value} have same element type}}
  %0 = relax.full_like %x, %v : tensor<4x3xf32>, tensor<i32>
  return
}

// -----

func.func @full_like_result_type(%x: tensor<4x3xf32>, %v: tensor<f32>) {
  // expected-error @+1 {{'relax.full_like' op failed to verify that all of {x, result} have same type}}
  %0 = "relax.full_like"(%x, %v) : (tensor<4x3xf32>, tensor<f32>) -> tensor<4x4xf32>
  return
}

// -----

func.func @zeros_like_result_shape(%x: tensor<4x3xf32>) {
  // expected-error @+1 {{'relax.zeros_like' op requires the same type for all operands and results}}
  %0 = "relax.zeros_like"(%x) : (tensor<4x3xf32>) -> tensor<3x4xf32>
  return
}

// -----

func.func @ones_like_result_element_type(%x: tensor<4x3xf32>) {
  // expected-error @+1 {{'relax.ones_like' op requires the same type for all operands and results}}
  %0 = "relax.ones_like"(%x) : (tensor<4x3xf32>) -> tensor<4x3xi32>
  return
}
