// Verifier and type-inference errors of conv2d, conv2d_patches and the pooling ops.
// RUN: relax-opt %s -split-input-file -verify-diagnostics

func.func @conv2d_channels(%x: tensor<2x3x8x8xf32>, %w: tensor<4x2x3x3xf32>) {
  // expected-error @+2 {{w has 2 input channels per group, but x has 3 channels in 1 group(s)}}
  // expected-error @+1 {{'relax.conv2d' op failed to infer returned types}}
  %a = "relax.conv2d"(%x, %w) : (tensor<2x3x8x8xf32>, tensor<4x2x3x3xf32>) -> tensor<2x4x6x6xf32>
  return
}

// -----

func.func @conv2d_groups(%x: tensor<2x4x8x8xf32>, %w: tensor<3x2x3x3xf32>) {
  // expected-error @+2 {{groups (2) must divide the input channels (4) and the output channels (3)}}
  // expected-error @+1 {{'relax.conv2d' op failed to infer returned types}}
  %a = "relax.conv2d"(%x, %w) {groups = 2 : i64} : (tensor<2x4x8x8xf32>, tensor<3x2x3x3xf32>) -> tensor<2x3x6x6xf32>
  return
}

// -----

func.func @conv2d_zero_stride(%x: tensor<2x3x8x8xf32>, %w: tensor<4x3x3x3xf32>) {
  // expected-error @+2 {{strides must be positive, got (0, 1)}}
  // expected-error @+1 {{'relax.conv2d' op failed to infer returned types}}
  %a = "relax.conv2d"(%x, %w) {strides = array<i64: 0, 1>} : (tensor<2x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<2x4x6x6xf32>
  return
}

// -----

func.func @conv2d_padding_length(%x: tensor<2x3x8x8xf32>, %w: tensor<4x3x3x3xf32>) {
  // expected-error @+2 {{padding must have 4 entries (top, left, bottom, right), got 2}}
  // expected-error @+1 {{'relax.conv2d' op failed to infer returned types}}
  %a = "relax.conv2d"(%x, %w) {padding = array<i64: 1, 1>} : (tensor<2x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<2x4x6x6xf32>
  return
}

// -----

func.func @conv2d_negative_padding(%x: tensor<2x3x8x8xf32>, %w: tensor<4x3x3x3xf32>) {
  // expected-error @+2 {{padding must be non-negative, got (1, -1, 0, 0)}}
  // expected-error @+1 {{'relax.conv2d' op failed to infer returned types}}
  %a = "relax.conv2d"(%x, %w) {padding = array<i64: 1, -1, 0, 0>} : (tensor<2x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<2x4x6x6xf32>
  return
}

// -----

func.func @conv2d_window_too_big(%x: tensor<2x3x2x2xf32>, %w: tensor<4x3x3x3xf32>) {
  // expected-error @+2 {{the window (3 wide with dilation) is larger than the padded input (2) along axis 2}}
  // expected-error @+1 {{'relax.conv2d' op failed to infer returned types}}
  %a = "relax.conv2d"(%x, %w) : (tensor<2x3x2x2xf32>, tensor<4x3x3x3xf32>) -> tensor<2x4x1x1xf32>
  return
}

// -----

func.func @conv2d_rank(%x: tensor<3x8x8xf32>, %w: tensor<4x3x3x3xf32>) {
  // expected-error @+2 {{x must be a 4-d NCHW tensor, got rank 3}}
  // expected-error @+1 {{'relax.conv2d' op failed to infer returned types}}
  %a = "relax.conv2d"(%x, %w) : (tensor<3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<4x6x6xf32>
  return
}

// -----

func.func @max_pool2d_padding(%x: tensor<1x2x8x8xf32>) {
  // expected-error @+2 {{padding (2, 0, 0, 0) exceeds half the pooling window (2)}}
  // expected-error @+1 {{'relax.max_pool2d' op failed to infer returned types}}
  %a = "relax.max_pool2d"(%x) {pool_size = array<i64: 2, 2>, padding = array<i64: 2, 0, 0, 0>} : (tensor<1x2x8x8xf32>) -> tensor<1x2x4x4xf32>
  return
}

// -----

func.func @avg_pool2d_pool_size(%x: tensor<1x2x8x8xf32>) {
  // expected-error @+2 {{pool_size must be 2 positive integers, got (2)}}
  // expected-error @+1 {{'relax.avg_pool2d' op failed to infer returned types}}
  %a = "relax.avg_pool2d"(%x) {pool_size = array<i64: 2>} : (tensor<1x2x8x8xf32>) -> tensor<1x2x4x4xf32>
  return
}

// -----

func.func @avg_pool2d_wrong_result(%x: tensor<1x2x8x8xf32>) {
  // expected-error @+2 {{'relax.avg_pool2d' op inferred type(s) 'tensor<1x2x4x4xf32>' are incompatible with return type(s) of operation 'tensor<1x2x3x3xf32>'}}
  // expected-error @+1 {{'relax.avg_pool2d' op failed to infer returned types}}
  %a = "relax.avg_pool2d"(%x) {pool_size = array<i64: 2, 2>} : (tensor<1x2x8x8xf32>) -> tensor<1x2x3x3xf32>
  return
}

// -----

func.func @max_pool2d_integer(%x: tensor<1x2x8x8xi32>) {
  // expected-error @+1 {{'relax.max_pool2d' op operand #0 must be statically shaped tensor of 16-bit float or bfloat16 type or 32-bit float or 64-bit float values of fewer than 2^63 bytes, but got 'tensor<1x2x8x8xi32>'}}
  %a = "relax.max_pool2d"(%x) {pool_size = array<i64: 2, 2>} : (tensor<1x2x8x8xi32>) -> tensor<1x2x4x4xi32>
  return
}

// -----

func.func @patches_kernel_size(%x: tensor<2x3x8x8xf32>) {
  // expected-error @+2 {{kernel_size must be 2 positive integers, got (3, 0)}}
  // expected-error @+1 {{'relax.conv2d_patches' op failed to infer returned types}}
  %a = relax.conv2d_patches %x {kernel_size = array<i64: 3, 0>} : tensor<2x3x8x8xf32> -> tensor<2x0x6x6xf32>
  return
}

// -----

func.func @patches_window_too_large(%x: tensor<2x3x4x4xf32>) {
  // expected-error @+2 {{the window (5 wide with dilation) is larger than the padded input (4) along axis 2}}
  // expected-error @+1 {{'relax.conv2d_patches' op failed to infer returned types}}
  %a = relax.conv2d_patches %x {kernel_size = array<i64: 5, 1>} : tensor<2x3x4x4xf32> -> tensor<2x15x1x4xf32>
  return
}

// -----

func.func @patches_wrong_result(%x: tensor<2x3x8x8xf32>) {
  // expected-error @+2 {{'relax.conv2d_patches' op inferred type(s) 'tensor<2x27x6x6xf32>' are incompatible with return type(s) of operation 'tensor<2x3x6x6xf32>'}}
  // expected-error @+1 {{'relax.conv2d_patches' op failed to infer returned types}}
  %a = relax.conv2d_patches %x {kernel_size = array<i64: 3, 3>} : tensor<2x3x8x8xf32> -> tensor<2x3x6x6xf32>
  return
}
