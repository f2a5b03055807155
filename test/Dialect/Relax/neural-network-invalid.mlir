// RUN: relax-opt %s -split-input-file -verify-diagnostics

// Verifier and type-inference errors of the neural-network ops softmax
// log_softmax cross_entropy_with_logits nll_loss layer_norm.

func.func @softmax_axis_out_of_range(%x: tensor<4x3xf32>) {
  // expected-error @+1 {{'relax.softmax' op axis 2 is out of range for a tensor of rank 2}}
  %0 = relax.softmax %x {axis = 2 : i64} : tensor<4x3xf32>
  return
}

// -----

func.func @log_softmax_negative_axis_out_of_range(%x: tensor<4x3xf32>) {
  // expected-error @+1 {{'relax.log_softmax' op axis -3 is out of range for a tensor of rank 2}}
  %0 = relax.log_softmax %x {axis = -3 : i64} : tensor<4x3xf32>
  return
}

// -----

func.func @softmax_integer(%x: tensor<4x3xi32>) {
  // expected-error @+1 {{'relax.softmax' op operand #0 must be statically shaped tensor of 16-bit float or bfloat16 type or 32-bit float or 64-bit float values of fewer than 2^63 bytes, but got 'tensor<4x3xi32>'}}
  %0 = relax.softmax %x : tensor<4x3xi32>
  return
}

// -----

func.func @cross_entropy_shapes_differ(%p: tensor<4x3xf32>, %y: tensor<4x2xf32>) {
  // expected-error @+1 {{'relax.cross_entropy_with_logits' op failed to verify that all of {pred, labels} have same type}}
  %0 = "relax.cross_entropy_with_logits"(%p, %y) : (tensor<4x3xf32>, tensor<4x2xf32>) -> tensor<f32>
  return
}

// -----

// The result is 0-d.
func.func @cross_entropy_result_not_0d(%p: tensor<4x3xf32>) {
  // expected-error @+2 {{'relax.cross_entropy_with_logits' op inferred type(s) 'tensor<f32>' are incompatible with return type(s) of operation 'tensor<4xf32>'}}
  // expected-error @+1 {{'relax.cross_entropy_with_logits' op failed to infer returned types}}
  %0 = "relax.cross_entropy_with_logits"(%p, %p) : (tensor<4x3xf32>, tensor<4x3xf32>) -> tensor<4xf32>
  return
}

// -----

func.func @nll_loss_targets_shape(%p: tensor<4x3xf32>, %t: tensor<3xi64>) {
  // expected-error @+2 {{targets shape (3) does not match pred shape (4, 3): expected (4) (pred's shape without the class axis)}}
  // expected-error @+1 {{'relax.nll_loss' op failed to infer returned types}}
  %0 = relax.nll_loss %p, %t : tensor<4x3xf32>, tensor<3xi64> -> tensor<f32>
  return
}

// -----

// The class axis of an (N, C, d1) prediction is 1.
func.func @nll_loss_targets_shape_spatial(%p: tensor<2x3x4xf32>, %t: tensor<2x3xi64>) {
  // expected-error @+2 {{targets shape (2, 3) does not match pred shape (2, 3, 4): expected (2, 4) (pred's shape without the class axis)}}
  // expected-error @+1 {{'relax.nll_loss' op failed to infer returned types}}
  %0 = relax.nll_loss %p, %t : tensor<2x3x4xf32>, tensor<2x3xi64> -> tensor<f32>
  return
}

// -----

// A (C) prediction takes a 0-d target.
func.func @nll_loss_targets_shape_unbatched(%p: tensor<3xf32>, %t: tensor<1xi64>) {
  // expected-error @+2 {{targets shape (1) does not match pred shape (3): expected () (pred's shape without the class axis)}}
  // expected-error @+1 {{'relax.nll_loss' op failed to infer returned types}}
  %0 = relax.nll_loss %p, %t : tensor<3xf32>, tensor<1xi64> -> tensor<f32>
  return
}

// -----

func.func @nll_loss_pred_0d(%p: tensor<f32>, %t: tensor<i64>) {
  // expected-error @+2 {{pred must have shape (C), (N, C) or (N, C, d1, ...), got a 0-d tensor}}
  // expected-error @+1 {{'relax.nll_loss' op failed to infer returned types}}
  %0 = relax.nll_loss %p, %t : tensor<f32>, tensor<i64> -> tensor<f32>
  return
}

// -----

func.func @nll_loss_weights_shape(%p: tensor<4x3xf32>, %t: tensor<4xi64>, %w: tensor<4xf32>) {
  // expected-error @+2 {{weights must have shape (3) (one per class), got 'tensor<4xf32>'}}
  // expected-error @+1 {{'relax.nll_loss' op failed to infer returned types}}
  %0 = relax.nll_loss %p, %t, %w : tensor<4x3xf32>, tensor<4xi64>, tensor<4xf32> -> tensor<f32>
  return
}

// -----

func.func @nll_loss_weights_rank(%p: tensor<4x3xf32>, %t: tensor<4xi64>, %w: tensor<1x3xf32>) {
  // expected-error @+2 {{weights must have shape (3) (one per class), got 'tensor<1x3xf32>'}}
  // expected-error @+1 {{'relax.nll_loss' op failed to infer returned types}}
  %0 = relax.nll_loss %p, %t, %w : tensor<4x3xf32>, tensor<4xi64>, tensor<1x3xf32> -> tensor<f32>
  return
}

// -----

func.func @nll_loss_weights_element_type(%p: tensor<4x3xf32>, %t: tensor<4xi64>, %w: tensor<3xf64>) {
  // expected-error @+2 {{weights element type 'f64' differs from pred's 'f32'}}
  // expected-error @+1 {{'relax.nll_loss' op failed to infer returned types}}
  %0 = relax.nll_loss %p, %t, %w : tensor<4x3xf32>, tensor<4xi64>, tensor<3xf64> -> tensor<f32>
  return
}

// -----

func.func @nll_loss_bad_reduction(%p: tensor<4x3xf32>, %t: tensor<4xi64>) {
  // expected-error @+2 {{reduction must be "mean", "sum" or "none", got "max"}}
  // expected-error @+1 {{'relax.nll_loss' op failed to infer returned types}}
  %0 = relax.nll_loss %p, %t {reduction = "max"} : tensor<4x3xf32>, tensor<4xi64> -> tensor<f32>
  return
}

// -----

func.func @nll_loss_reduction_not_string(%p: tensor<4x3xf32>, %t: tensor<4xi64>) {
  // expected-error @+1 {{'relax.nll_loss' op attribute 'reduction' failed to satisfy constraint: string attribute}}
  %0 = relax.nll_loss %p, %t {reduction = 1 : i64} : tensor<4x3xf32>, tensor<4xi64> -> tensor<f32>
  return
}

// -----

// reduction = "none" gives the targets' shape.
func.func @nll_loss_none_result_type(%p: tensor<4x3xf32>, %t: tensor<4xi64>) {
  // expected-error @+2 {{'relax.nll_loss' op inferred type(s) 'tensor<4xf32>' are incompatible with return type(s) of operation 'tensor<f32>'}}
  // expected-error @+1 {{'relax.nll_loss' op failed to infer returned types}}
  %0 = relax.nll_loss %p, %t {reduction = "none"} : tensor<4x3xf32>, tensor<4xi64> -> tensor<f32>
  return
}

// -----

func.func @nll_loss_float_targets(%p: tensor<4x3xf32>, %t: tensor<4xf32>) {
  // expected-error @+1 {{'relax.nll_loss' op operand #1 must be statically shaped tensor of 32-bit signless integer or 64-bit signless integer values of fewer than 2^63 bytes, but got 'tensor<4xf32>'}}
  %0 = relax.nll_loss %p, %t : tensor<4x3xf32>, tensor<4xf32> -> tensor<f32>
  return
}

// -----

func.func @nll_loss_integer_pred(%p: tensor<4x3xi32>, %t: tensor<4xi64>) {
  // expected-error @+1 {{'relax.nll_loss' op operand #0 must be statically shaped tensor of 16-bit float or bfloat16 type or 32-bit float or 64-bit float values of fewer than 2^63 bytes, but got 'tensor<4x3xi32>'}}
  %0 = relax.nll_loss %p, %t : tensor<4x3xi32>, tensor<4xi64> -> tensor<i32>
  return
}

// -----

func.func @layer_norm_gamma_shape(%x: tensor<4x3xf32>, %g: tensor<4xf32>) {
  // expected-error @+1 {{'relax.layer_norm' op gamma and beta must have shape (3) (x's shape at the normalized axes), got (4)}}
  %0 = relax.layer_norm %x, %g, %g {axes = array<i64: -1>} : tensor<4x3xf32>, tensor<4xf32>, tensor<4xf32>
  return
}

// -----

// gamma follows the sorted axes, whatever their order in `axes`.
func.func @layer_norm_gamma_axes_order(%x: tensor<2x3x4xf32>, %g: tensor<4x3xf32>) {
  // expected-error @+1 {{'relax.layer_norm' op gamma and beta must have shape (3, 4) (x's shape at the normalized axes), got (4, 3)}}
  %0 = relax.layer_norm %x, %g, %g {axes = array<i64: 2, 1>} : tensor<2x3x4xf32>, tensor<4x3xf32>, tensor<4x3xf32>
  return
}

// -----

func.func @layer_norm_beta_differs(%x: tensor<4x3xf32>, %g: tensor<3xf32>, %b: tensor<1x3xf32>) {
  // expected-error @+1 {{'relax.layer_norm' op failed to verify that all of {gamma, beta} have same type}}
  %0 = relax.layer_norm %x, %g, %b {axes = array<i64: 1>} : tensor<4x3xf32>, tensor<3xf32>, tensor<1x3xf32>
  return
}

// -----

func.func @layer_norm_gamma_element_type(%x: tensor<4x3xf32>, %g: tensor<3xf64>) {
  // expected-error @+1 {{'relax.layer_norm' op failed to verify that all of {x, gamma} have same element type}}
  %0 = relax.layer_norm %x, %g, %g {axes = array<i64: 1>} : tensor<4x3xf32>, tensor<3xf64>, tensor<3xf64>
  return
}

// -----

func.func @layer_norm_axis_out_of_range(%x: tensor<4x3xf32>, %g: tensor<3xf32>) {
  // expected-error @+1 {{'relax.layer_norm' op axis 2 is out of range for a tensor of rank 2}}
  %0 = relax.layer_norm %x, %g, %g {axes = array<i64: 2>} : tensor<4x3xf32>, tensor<3xf32>, tensor<3xf32>
  return
}

// -----

func.func @layer_norm_axis_repeated(%x: tensor<4x3xf32>, %g: tensor<3xf32>) {
  // expected-error @+1 {{'relax.layer_norm' op axis -1 is repeated}}
  %0 = relax.layer_norm %x, %g, %g {axes = array<i64: 1, -1>} : tensor<4x3xf32>, tensor<3xf32>, tensor<3xf32>
  return
}

// -----

func.func @layer_norm_no_axes(%x: tensor<4x3xf32>, %g: tensor<3xf32>) {
  // expected-error @+1 {{'relax.layer_norm' op axes must name at least one axis}}
  %0 = relax.layer_norm %x, %g, %g {axes = array<i64>} : tensor<4x3xf32>, tensor<3xf32>, tensor<3xf32>
  return
}

// -----

func.func @layer_norm_negative_epsilon(%x: tensor<4x3xf32>, %g: tensor<3xf32>) {
  // expected-error @+1 {{'relax.layer_norm' op epsilon must be non-negative, got -1.000000e+00}}
  %0 = relax.layer_norm %x, %g, %g {axes = array<i64: 1>, epsilon = -1.0 : f64} : tensor<4x3xf32>, tensor<3xf32>, tensor<3xf32>
  return
}

// -----

func.func @layer_norm_result_type(%x: tensor<4x3xf32>, %g: tensor<3xf32>) {
  // expected-error @+1 {{'relax.layer_norm' op failed to verify that all of {x, result} have same type}}
  %0 = "relax.layer_norm"(%x, %g, %g) {axes = array<i64: 1>} : (tensor<4x3xf32>, tensor<3xf32>, tensor<3xf32>) -> tensor<4x3xf64>
  return
}
