// conv2d, conv2d_patches, max_pool2d and avg_pool2d print in their custom form, parse from the
// contract's generic form, and infer their result types.
// RUN: relax-opt %s | relax-opt | FileCheck %s
// RUN: relax-opt %s --mlir-print-op-generic | relax-opt | FileCheck %s

// CHECK-LABEL: func.func @conv
// CHECK:         relax.conv2d %{{.+}}, %{{.+}} : tensor<2x3x8x8xf32>, tensor<4x3x3x3xf32> -> tensor<2x4x6x6xf32>
// CHECK:         relax.conv2d %{{.+}}, %{{.+}} {dilation = array<i64: 2, 1>, groups = 3 : i64, padding = array<i64: 1, 0, 2, 1>, strides = array<i64: 2, 3>} : tensor<2x3x8x8xf32>, tensor<6x1x3x3xf32> -> tensor<2x6x4x3xf32>
func.func @conv(%x: tensor<2x3x8x8xf32>, %w: tensor<4x3x3x3xf32>, %g: tensor<6x1x3x3xf32>) -> (tensor<2x4x6x6xf32>, tensor<2x6x4x3xf32>) {
  %a = "relax.conv2d"(%x, %w) : (tensor<2x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<2x4x6x6xf32>
  %b = "relax.conv2d"(%x, %g) {strides = array<i64: 2, 3>, padding = array<i64: 1, 0, 2, 1>, dilation = array<i64: 2, 1>, groups = 3 : i64} : (tensor<2x3x8x8xf32>, tensor<6x1x3x3xf32>) -> tensor<2x6x4x3xf32>
  return %a, %b : tensor<2x4x6x6xf32>, tensor<2x6x4x3xf32>
}

// CHECK-LABEL: func.func @patches
// CHECK:         relax.conv2d_patches %{{.+}} {kernel_size = array<i64: 3, 3>} : tensor<2x3x8x8xf32> -> tensor<2x27x6x6xf32>
// CHECK:         relax.conv2d_patches %{{.+}} {dilation = array<i64: 1, 2>, kernel_size = array<i64: 3, 2>, padding = array<i64: 1, 1, 1, 1>, strides = array<i64: 2, 2>} : tensor<2x3x8x8xf32> -> tensor<2x18x4x4xf32>
func.func @patches(%x: tensor<2x3x8x8xf32>) -> (tensor<2x27x6x6xf32>, tensor<2x18x4x4xf32>) {
  %a = "relax.conv2d_patches"(%x) {kernel_size = array<i64: 3, 3>} : (tensor<2x3x8x8xf32>) -> tensor<2x27x6x6xf32>
  %b = "relax.conv2d_patches"(%x) {kernel_size = array<i64: 3, 2>, strides = array<i64: 2, 2>, padding = array<i64: 1, 1, 1, 1>, dilation = array<i64: 1, 2>} : (tensor<2x3x8x8xf32>) -> tensor<2x18x4x4xf32>
  return %a, %b : tensor<2x27x6x6xf32>, tensor<2x18x4x4xf32>
}

// CHECK-LABEL: func.func @pools
// CHECK:         relax.max_pool2d %{{.+}} {pool_size = array<i64: 2, 2>} : tensor<1x2x7x7xf16> -> tensor<1x2x3x3xf16>
// CHECK:         relax.max_pool2d %{{.+}} {ceil_mode = true, pool_size = array<i64: 2, 2>} : tensor<1x2x7x7xf16> -> tensor<1x2x4x4xf16>
// CHECK:         relax.avg_pool2d %{{.+}} {count_include_pad = true, padding = array<i64: 1, 1, 1, 1>, pool_size = array<i64: 3, 3>, strides = array<i64: 2, 2>} : tensor<1x2x7x7xf16> -> tensor<1x2x4x4xf16>
func.func @pools(%x: tensor<1x2x7x7xf16>) -> (tensor<1x2x3x3xf16>, tensor<1x2x4x4xf16>, tensor<1x2x4x4xf16>) {
  %a = "relax.max_pool2d"(%x) {pool_size = array<i64: 2, 2>} : (tensor<1x2x7x7xf16>) -> tensor<1x2x3x3xf16>
  %b = relax.max_pool2d %x {pool_size = array<i64: 2, 2>, ceil_mode = true} : tensor<1x2x7x7xf16> -> tensor<1x2x4x4xf16>
  %c = "relax.avg_pool2d"(%x) {pool_size = array<i64: 3, 3>, strides = array<i64: 2, 2>, padding = array<i64: 1, 1, 1, 1>, count_include_pad = true} : (tensor<1x2x7x7xf16>) -> tensor<1x2x4x4xf16>
  return %a, %b, %c : tensor<1x2x3x3xf16>, tensor<1x2x4x4xf16>, tensor<1x2x4x4xf16>
}
