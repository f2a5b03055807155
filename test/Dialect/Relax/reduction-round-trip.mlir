// RUN: relax-opt %s | relax-opt | FileCheck %s
// RUN: relax-opt -mlir-print-op-generic %s | relax-opt | FileCheck %s

// The reductions variance max min prod cumsum argmax and argmin parse and print back in their
// custom form, directly and through the generic form.

// CHECK-LABEL: func.func @reductions
// CHECK-SAME: (%[[X:.+]]: tensor<2x3x4xf32>)
// CHECK: relax.variance %[[X]] : tensor<2x3x4xf32> -> tensor<f32>
// CHECK: relax.variance %[[X]] {axis = array<i64: 1>} : tensor<2x3x4xf32> -> tensor<2x4xf32>
// CHECK: relax.variance %[[X]] {axis = array<i64: -1, 0>, keepdims = true} : tensor<2x3x4xf32> -> tensor<1x3x1xf32>
// CHECK: relax.max %[[X]] : tensor<2x3x4xf32> -> tensor<f32>
// CHECK: relax.max %[[X]] {axis = array<i64: 2>, keepdims = true} : tensor<2x3x4xf32> -> tensor<2x3x1xf32>
// CHECK: relax.min %[[X]] {axis = array<i64: 0, 1>} : tensor<2x3x4xf32> -> tensor<4xf32>
// CHECK: relax.min %[[X]] {axis = array<i64: -2>, keepdims = true} : tensor<2x3x4xf32> -> tensor<2x1x4xf32>
// CHECK: relax.prod %[[X]] : tensor<2x3x4xf32> -> tensor<f32>
// The default keepdims = false is not printed.
// CHECK: relax.prod %[[X]] {axis = array<i64: 0>} : tensor<2x3x4xf32> -> tensor<3x4xf32>
// An empty axis list reduces nothing.
// CHECK: relax.prod %[[X]] {axis = array<i64>} : tensor<2x3x4xf32> -> tensor<2x3x4xf32>
// CHECK: relax.cumsum %[[X]] {axis = 1 : i64} : tensor<2x3x4xf32>
// CHECK: relax.cumsum %[[X]] {axis = -1 : i64} : tensor<2x3x4xf32>
func.func @reductions(%x: tensor<2x3x4xf32>) -> tensor<f32> {
  %r = relax.dataflow -> (tensor<f32>) {
    %0 = relax.variance %x : tensor<2x3x4xf32> -> tensor<f32>
    %1 = relax.variance %x {axis = array<i64: 1>} : tensor<2x3x4xf32> -> tensor<2x4xf32>
    %2 = relax.variance %x {axis = array<i64: -1, 0>, keepdims = true} : tensor<2x3x4xf32> -> tensor<1x3x1xf32>
    %3 = relax.max %x : tensor<2x3x4xf32> -> tensor<f32>
    %4 = relax.max %x {axis = array<i64: 2>, keepdims = true} : tensor<2x3x4xf32> -> tensor<2x3x1xf32>
    %5 = relax.min %x {axis = array<i64: 0, 1>} : tensor<2x3x4xf32> -> tensor<4xf32>
    %6 = relax.min %x {axis = array<i64: -2>, keepdims = true} : tensor<2x3x4xf32> -> tensor<2x1x4xf32>
    %7 = relax.prod %x : tensor<2x3x4xf32> -> tensor<f32>
    %8 = relax.prod %x {axis = array<i64: 0>, keepdims = false} : tensor<2x3x4xf32> -> tensor<3x4xf32>
    %9 = relax.prod %x {axis = array<i64>} : tensor<2x3x4xf32> -> tensor<2x3x4xf32>
    %10 = relax.cumsum %x {axis = 1 : i64} : tensor<2x3x4xf32>
    %11 = relax.cumsum %x {axis = -1 : i64} : tensor<2x3x4xf32>
    relax.output %0 : tensor<f32>
  }
  return %r : tensor<f32>
}

// max, min, prod and cumsum take integers; variance other float types. An
// axis of size 0 is fine for prod (the empty product is 1) and for max and min
// over the other axes.
// CHECK-LABEL: func.func @reduction_types
// CHECK-SAME: (%[[I:.+]]: tensor<3x2xi32>, %[[L:.+]]: tensor<5xi64>, %[[H:.+]]: tensor<4xf16>, %[[E:.+]]: tensor<0x3xf64>)
// CHECK: relax.max %[[I]] {axis = array<i64: 0>} : tensor<3x2xi32> -> tensor<2xi32>
// CHECK: relax.min %[[L]] : tensor<5xi64> -> tensor<i64>
// CHECK: relax.prod %[[I]] {axis = array<i64: 1>, keepdims = true} : tensor<3x2xi32> -> tensor<3x1xi32>
// CHECK: relax.cumsum %[[L]] {axis = 0 : i64} : tensor<5xi64>
// CHECK: relax.variance %[[H]] : tensor<4xf16> -> tensor<f16>
// CHECK: relax.prod %[[E]] {axis = array<i64: 0>} : tensor<0x3xf64> -> tensor<3xf64>
// CHECK: relax.max %[[E]] {axis = array<i64: 1>} : tensor<0x3xf64> -> tensor<0xf64>
func.func @reduction_types(%i: tensor<3x2xi32>, %l: tensor<5xi64>, %h: tensor<4xf16>, %e: tensor<0x3xf64>) -> tensor<2xi32> {
  %r = relax.dataflow -> (tensor<2xi32>) {
    %0 = relax.max %i {axis = array<i64: 0>} : tensor<3x2xi32> -> tensor<2xi32>
    %1 = relax.min %l : tensor<5xi64> -> tensor<i64>
    %2 = relax.prod %i {axis = array<i64: 1>, keepdims = true} : tensor<3x2xi32> -> tensor<3x1xi32>
    %3 = relax.cumsum %l {axis = 0 : i64} : tensor<5xi64>
    %4 = relax.variance %h : tensor<4xf16> -> tensor<f16>
    %5 = relax.prod %e {axis = array<i64: 0>} : tensor<0x3xf64> -> tensor<3xf64>
    %6 = relax.max %e {axis = array<i64: 1>} : tensor<0x3xf64> -> tensor<0xf64>
    relax.output %0 : tensor<2xi32>
  }
  return %r : tensor<2xi32>
}

// The generic forms of the interchange contract.
// CHECK-LABEL: func.func @generic_input
// CHECK-SAME: (%[[X:.+]]: tensor<4x3xf32>)
// CHECK: relax.variance %[[X]] {axis = array<i64: 1>, keepdims = true} : tensor<4x3xf32> -> tensor<4x1xf32>
// CHECK-NEXT: relax.max %[[X]] {axis = array<i64: -2>} : tensor<4x3xf32> -> tensor<3xf32>
// CHECK-NEXT: relax.min %[[X]] : tensor<4x3xf32> -> tensor<f32>
// CHECK-NEXT: relax.prod %[[X]] {axis = array<i64: 0, 1>, keepdims = true} : tensor<4x3xf32> -> tensor<1x1xf32>
// CHECK-NEXT: relax.cumsum %[[X]] {axis = 0 : i64} : tensor<4x3xf32>
func.func @generic_input(%x: tensor<4x3xf32>) -> tensor<4x3xf32> {
  %r = "relax.dataflow"() ({
    %0 = "relax.variance"(%x) {axis = array<i64: 1>, keepdims = true} : (tensor<4x3xf32>) -> tensor<4x1xf32>
    %1 = "relax.max"(%x) {axis = array<i64: -2>} : (tensor<4x3xf32>) -> tensor<3xf32>
    %2 = "relax.min"(%x) : (tensor<4x3xf32>) -> tensor<f32>
    %3 = "relax.prod"(%x) {axis = array<i64: 0, 1>, keepdims = true} : (tensor<4x3xf32>) -> tensor<1x1xf32>
    %4 = "relax.cumsum"(%x) {axis = 0 : i64} : (tensor<4x3xf32>) -> tensor<4x3xf32>
    "relax.output"(%4) : (tensor<4x3xf32>) -> ()
  }) : () -> tensor<4x3xf32>
  return %r : tensor<4x3xf32>
}

// CHECK-LABEL: func.func @reductions_axes
// CHECK-SAME: (%[[X:.+]]: tensor<2x3x4xf32>)
// CHECK: relax.sum %[[X]] : tensor<2x3x4xf32> -> tensor<f32>
// CHECK: relax.sum %[[X]] {axis = array<i64: 1>} : tensor<2x3x4xf32> -> tensor<2x4xf32>
// CHECK: relax.sum %[[X]] {axis = array<i64: -1, 0>, keepdims = true} : tensor<2x3x4xf32> -> tensor<1x3x1xf32>
// CHECK: relax.sum %[[X]] {axis = array<i64: -2>} : tensor<2x3x4xf32> -> tensor<2x4xf32>
// CHECK: relax.mean %[[X]] : tensor<2x3x4xf32> -> tensor<f32>
// CHECK: relax.mean %[[X]] {axis = array<i64: 0, 2>, keepdims = true} : tensor<2x3x4xf32> -> tensor<1x3x1xf32>
// The default keepdims = false is not printed.
// CHECK: relax.mean %[[X]] {axis = array<i64: -3>} : tensor<2x3x4xf32> -> tensor<3x4xf32>
func.func @reductions_axes(%x: tensor<2x3x4xf32>) -> tensor<f32> {
  %r = relax.dataflow -> (tensor<f32>) {
    %0 = relax.sum %x : tensor<2x3x4xf32> -> tensor<f32>
    %1 = relax.sum %x {axis = array<i64: 1>} : tensor<2x3x4xf32> -> tensor<2x4xf32>
    %2 = relax.sum %x {axis = array<i64: -1, 0>, keepdims = true} : tensor<2x3x4xf32> -> tensor<1x3x1xf32>
    %3 = relax.sum %x {axis = array<i64: -2>} : tensor<2x3x4xf32> -> tensor<2x4xf32>
    %4 = relax.mean %x : tensor<2x3x4xf32> -> tensor<f32>
    %5 = relax.mean %x {axis = array<i64: 0, 2>, keepdims = true} : tensor<2x3x4xf32> -> tensor<1x3x1xf32>
    %6 = relax.mean %x {axis = array<i64: -3>, keepdims = false} : tensor<2x3x4xf32> -> tensor<3x4xf32>
    relax.output %0 : tensor<f32>
  }
  return %r : tensor<f32>
}

// Integer sums are allowed (mean is float-only).
// CHECK-LABEL: func.func @sum_int
// CHECK: relax.sum %{{.+}} {axis = array<i64: 0>} : tensor<3x2xi64> -> tensor<2xi64>
func.func @sum_int(%x: tensor<3x2xi64>) -> tensor<2xi64> {
  %r = relax.dataflow -> (tensor<2xi64>) {
    %0 = relax.sum %x {axis = array<i64: 0>} : tensor<3x2xi64> -> tensor<2xi64>
    relax.output %0 : tensor<2xi64>
  }
  return %r : tensor<2xi64>
}

// argmax/argmin: along an axis (negative too), of the flattened tensor, with
// keepdims; the result is i64 for any operand type.
// CHECK-LABEL: func.func @arg_extremum
// CHECK-SAME: (%[[X:.+]]: tensor<2x3x4xf32>, %[[I:.+]]: tensor<5xi32>)
// CHECK: relax.argmax %[[X]] {axis = 1 : i64} : tensor<2x3x4xf32> -> tensor<2x4xi64>
// CHECK: relax.argmin %[[X]] {axis = -1 : i64, keepdims = true} : tensor<2x3x4xf32> -> tensor<2x3x1xi64>
// CHECK: relax.argmax %[[X]] : tensor<2x3x4xf32> -> tensor<i64>
// CHECK: relax.argmin %[[X]] {keepdims = true} : tensor<2x3x4xf32> -> tensor<1x1x1xi64>
// CHECK: relax.argmax %[[I]] {axis = 0 : i64} : tensor<5xi32> -> tensor<i64>
func.func @arg_extremum(%x: tensor<2x3x4xf32>, %i: tensor<5xi32>) -> tensor<i64> {
  %r = relax.dataflow -> (tensor<i64>) {
    %0 = relax.argmax %x {axis = 1 : i64} : tensor<2x3x4xf32> -> tensor<2x4xi64>
    %1 = relax.argmin %x {axis = -1 : i64, keepdims = true} : tensor<2x3x4xf32> -> tensor<2x3x1xi64>
    %2 = relax.argmax %x : tensor<2x3x4xf32> -> tensor<i64>
    %3 = relax.argmin %x {keepdims = true} : tensor<2x3x4xf32> -> tensor<1x1x1xi64>
    %4 = relax.argmax %i {axis = 0 : i64} : tensor<5xi32> -> tensor<i64>
    relax.output %4 : tensor<i64>
  }
  return %r : tensor<i64>
}
