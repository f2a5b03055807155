// RUN: relax-opt %s -split-input-file -verify-diagnostics

// Verifier and type-inference errors of the reductions variance max min prod
// cumsum argmax argmin.

func.func @variance_axis_out_of_range(%x: tensor<4x3xf32>) {
  // expected-error @+2 {{axis 2 is out of range for a tensor of rank 2}}
  // expected-error @+1 {{'relax.variance' op failed to infer returned types}}
  %0 = relax.variance %x {axis = array<i64: 2>} : tensor<4x3xf32> -> tensor<4xf32>
  return
}

// -----

// 0 and -2 name the same axis of a rank-2 tensor.
func.func @max_axis_repeated(%x: tensor<4x3xf32>) {
  // expected-error @+2 {{axis -2 is repeated}}
  // expected-error @+1 {{'relax.max' op failed to infer returned types}}
  %0 = relax.max %x {axis = array<i64: 0, -2>} : tensor<4x3xf32> -> tensor<3xf32>
  return
}

// -----

func.func @prod_negative_axis_out_of_range(%x: tensor<4x3xf32>) {
  // expected-error @+2 {{axis -3 is out of range for a tensor of rank 2}}
  // expected-error @+1 {{'relax.prod' op failed to infer returned types}}
  %0 = relax.prod %x {axis = array<i64: -3>} : tensor<4x3xf32> -> tensor<4xf32>
  return
}

// -----

// max and min have no identity: an axis of size 0 cannot be reduced.
func.func @max_empty_axis(%x: tensor<4x0xf32>) {
  // expected-error @+1 {{'relax.max' op cannot take the maximum over axis 1 of size 0 (there is no identity element)}}
  %0 = relax.max %x {axis = array<i64: 1>} : tensor<4x0xf32> -> tensor<4xf32>
  return
}

// -----

// Without axis every axis is reduced, the empty one too.
func.func @min_empty_all_axes(%x: tensor<0x3xi32>) {
  // expected-error @+1 {{'relax.min' op cannot take the minimum over axis 0 of size 0 (there is no identity element)}}
  %0 = relax.min %x : tensor<0x3xi32> -> tensor<i32>
  return
}

// -----

func.func @max_wrong_element_type(%x: tensor<4x3xf32>) {
  // expected-error @+2 {{'relax.max' op inferred type(s) 'tensor<4xf32>' are incompatible with return type(s) of operation 'tensor<4xf64>'}}
  // expected-error @+1 {{'relax.max' op failed to infer returned types}}
  %0 = relax.max %x {axis = array<i64: 1>} : tensor<4x3xf32> -> tensor<4xf64>
  return
}

// -----

func.func @variance_integer(%x: tensor<4x3xi32>) {
  // expected-error @+1 {{'relax.variance' op operand #0 must be statically shaped tensor of 16-bit float or bfloat16 type or 32-bit float or 64-bit float values of fewer than 2^63 bytes, but got 'tensor<4x3xi32>'}}
  %0 = relax.variance %x : tensor<4x3xi32> -> tensor<i32>
  return
}

// -----

func.func @prod_wrong_keepdims(%x: tensor<4x3xf32>) {
  // expected-error @+2 {{'relax.prod' op inferred type(s) 'tensor<4xf32>' are incompatible with return type(s) of operation 'tensor<4x1xf32>'}}
  // expected-error @+1 {{'relax.prod' op failed to infer returned types}}
  %0 = relax.prod %x {axis = array<i64: 1>} : tensor<4x3xf32> -> tensor<4x1xf32>
  return
}

// -----

func.func @prod_bool(%x: tensor<4xi1>) {
  // expected-error @+1 {{'relax.prod' op operand #0 must be statically shaped tensor of 16-bit float or bfloat16 type or 32-bit float or 64-bit float or 32-bit signless integer or 64-bit signless integer values of fewer than 2^63 bytes, but got 'tensor<4xi1>'}}
  %0 = relax.prod %x : tensor<4xi1> -> tensor<i1>
  return
}

// -----

func.func @cumsum_axis_out_of_range(%x: tensor<4x3xf32>) {
  // expected-error @+1 {{'relax.cumsum' op axis 2 is out of range for a tensor of rank 2}}
  %0 = relax.cumsum %x {axis = 2 : i64} : tensor<4x3xf32>
  return
}

// -----

func.func @cumsum_negative_axis_out_of_range(%x: tensor<4x3xf32>) {
  // expected-error @+1 {{'relax.cumsum' op axis -3 is out of range for a tensor of rank 2}}
  %0 = relax.cumsum %x {axis = -3 : i64} : tensor<4x3xf32>
  return
}

// -----

func.func @cumsum_0d(%x: tensor<f32>) {
  // expected-error @+1 {{'relax.cumsum' op needs a tensor of rank 1 or more, got a 0-d tensor}}
  %0 = relax.cumsum %x {axis = 0 : i64} : tensor<f32>
  return
}

// -----

// cumsum's axis has no default.
func.func @cumsum_no_axis(%x: tensor<4x3xf32>) {
  // expected-error @+1 {{'relax.cumsum' op requires attribute 'axis'}}
  %0 = relax.cumsum %x : tensor<4x3xf32>
  return
}

// -----

func.func @cumsum_result_type(%x: tensor<4x3xi32>) {
  // expected-error @+1 {{'relax.cumsum' op requires the same type for all operands and results}}
  %0 = "relax.cumsum"(%x) {axis = 0 : i64} : (tensor<4x3xi32>) -> tensor<4x3xi64>
  return
}

// -----

// An out-of-range axis of max/min is reported by type inference (the op's
// own check for empty axes must not read the shape at that axis first).
func.func @min_axis_out_of_range(%x: tensor<4x3xf32>) {
  // expected-error @+2 {{axis -3 is out of range for a tensor of rank 2}}
  // expected-error @+1 {{'relax.min' op failed to infer returned types}}
  %0 = relax.min %x {axis = array<i64: -3>} : tensor<4x3xf32> -> tensor<3xf32>
  return
}

// -----

func.func @max_axis_out_of_range(%x: tensor<4x3xf32>) {
  // expected-error @+2 {{axis 2 is out of range for a tensor of rank 2}}
  // expected-error @+1 {{'relax.max' op failed to infer returned types}}
  %0 = relax.max %x {axis = array<i64: 2>} : tensor<4x3xf32> -> tensor<4xf32>
  return
}

// -----

func.func @sum_wrong_result_type(%a: tensor<4x3xf32>) {
  // expected-error @+2 {{'relax.sum' op inferred type(s) 'tensor<4xf32>' are incompatible with return type(s) of operation 'tensor<4x1xf32>'}}
  // expected-error @+1 {{'relax.sum' op failed to infer returned types}}
  %0 = relax.sum %a {axis = array<i64: 1>} : tensor<4x3xf32> -> tensor<4x1xf32>
  return
}

// -----

func.func @sum_axis_out_of_range(%a: tensor<4x3xf32>) {
  // expected-error @+2 {{axis 2 is out of range for a tensor of rank 2}}
  // expected-error @+1 {{'relax.sum' op failed to infer returned types}}
  %0 = relax.sum %a {axis = array<i64: 2>} : tensor<4x3xf32> -> tensor<4xf32>
  return
}

// -----

func.func @mean_negative_axis_out_of_range(%a: tensor<4x3xf32>) {
  // expected-error @+2 {{axis -3 is out of range for a tensor of rank 2}}
  // expected-error @+1 {{'relax.mean' op failed to infer returned types}}
  %0 = relax.mean %a {axis = array<i64: -3>} : tensor<4x3xf32> -> tensor<4xf32>
  return
}

// -----

// 1 and -1 name the same axis of a rank-2 tensor.
func.func @sum_axis_repeated(%a: tensor<4x3xf32>) {
  // expected-error @+2 {{axis -1 is repeated}}
  // expected-error @+1 {{'relax.sum' op failed to infer returned types}}
  %0 = relax.sum %a {axis = array<i64: 1, -1>} : tensor<4x3xf32> -> tensor<4xf32>
  return
}

// -----

func.func @mean_integer(%a: tensor<4x3xi32>) {
  // expected-error @+1 {{'relax.mean' op operand #0 must be statically shaped tensor of 16-bit float or bfloat16 type or 32-bit float or 64-bit float values of fewer than 2^63 bytes, but got 'tensor<4x3xi32>'}}
  %0 = relax.mean %a : tensor<4x3xi32> -> tensor<i32>
  return
}

// -----

func.func @argmax_axis_out_of_range(%x: tensor<4x3xf32>) {
  // expected-error @+2 {{axis -3 is out of range for a tensor of rank 2}}
  // expected-error @+1 {{'relax.argmax' op failed to infer returned types}}
  %0 = relax.argmax %x {axis = -3 : i64} : tensor<4x3xf32> -> tensor<4xi64>
  return
}

// -----

// There is no index of an extremum of no elements.
func.func @argmin_empty_axis(%x: tensor<4x0xf32>) {
  // expected-error @+2 {{cannot take the index of an extremum over axis 1 of size 0 (it has no elements)}}
  // expected-error @+1 {{'relax.argmin' op failed to infer returned types}}
  %0 = relax.argmin %x {axis = 1 : i64} : tensor<4x0xf32> -> tensor<4xi64>
  return
}

// -----

func.func @argmax_result_type(%x: tensor<4x3xf32>) {
  // expected-error @+1 {{'relax.argmax' op result #0 must be statically shaped tensor of 64-bit signless integer values}}
  %0 = relax.argmax %x {axis = 1 : i64} : tensor<4x3xf32> -> tensor<4xf32>
  return
}

// -----

func.func @argmax_bool(%x: tensor<4xi1>) {
  // expected-error @+1 {{'relax.argmax' op operand #0 must be}}
  %0 = relax.argmax %x : tensor<4xi1> -> tensor<i64>
  return
}
