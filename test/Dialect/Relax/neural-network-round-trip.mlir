// RUN: relax-opt %s | relax-opt | FileCheck %s
// RUN: relax-opt -mlir-print-op-generic %s | relax-opt | FileCheck %s

// The neural-network ops softmax log_softmax cross_entropy_with_logits
// nll_loss layer_norm parse and print back in their custom form, directly and
// through the generic form.

// The default axis = -1 is not printed.
// CHECK-LABEL: func.func @softmax
// CHECK-SAME: (%[[X:.+]]: tensor<4x3xf32>, %[[H:.+]]: tensor<5xf16>)
// CHECK: relax.softmax %[[X]] : tensor<4x3xf32>
// CHECK: relax.softmax %[[X]] : tensor<4x3xf32>
// CHECK: relax.softmax %[[X]] {axis = 0 : i64} : tensor<4x3xf32>
// CHECK: relax.log_softmax %[[X]] : tensor<4x3xf32>
// CHECK: relax.log_softmax %[[X]] {axis = -2 : i64} : tensor<4x3xf32>
// CHECK: relax.log_softmax %[[H]] : tensor<5xf16>
func.func @softmax(%x: tensor<4x3xf32>, %h: tensor<5xf16>) -> tensor<4x3xf32> {
  %r = relax.dataflow -> (tensor<4x3xf32>) {
    %0 = relax.softmax %x : tensor<4x3xf32>
    %1 = relax.softmax %x {axis = -1 : i64} : tensor<4x3xf32>
    %2 = relax.softmax %x {axis = 0 : i64} : tensor<4x3xf32>
    %3 = relax.log_softmax %x : tensor<4x3xf32>
    %4 = relax.log_softmax %x {axis = -2 : i64} : tensor<4x3xf32>
    %5 = relax.log_softmax %h : tensor<5xf16>
    relax.output %0 : tensor<4x3xf32>
  }
  return %r : tensor<4x3xf32>
}

// CHECK-LABEL: func.func @cross_entropy
// CHECK-SAME: (%[[P:.+]]: tensor<8x10xf32>, %[[Y:.+]]: tensor<8x10xf32>, %[[V:.+]]: tensor<10xf64>)
// CHECK: relax.cross_entropy_with_logits %[[P]], %[[Y]] : tensor<8x10xf32> -> tensor<f32>
// CHECK: relax.cross_entropy_with_logits %[[V]], %[[V]] : tensor<10xf64> -> tensor<f64>
func.func @cross_entropy(%p: tensor<8x10xf32>, %y: tensor<8x10xf32>, %v: tensor<10xf64>) -> tensor<f32> {
  %r = relax.dataflow -> (tensor<f32>) {
    %0 = relax.cross_entropy_with_logits %p, %y : tensor<8x10xf32> -> tensor<f32>
    %1 = relax.cross_entropy_with_logits %v, %v : tensor<10xf64> -> tensor<f64>
    relax.output %0 : tensor<f32>
  }
  return %r : tensor<f32>
}

// nll_loss with and without weights, every reduction, the three pred shapes
// (N, C), (C) and (N, C, d1, d2); the defaults reduction = "mean" and
// ignore_index = -100 are not printed.
// CHECK-LABEL: func.func @nll_loss
// CHECK-SAME: (%[[P:.+]]: tensor<8x10xf32>, %[[T:.+]]: tensor<8xi64>, %[[W:.+]]: tensor<10xf32>, %[[C:.+]]: tensor<10xf32>, %[[T0:.+]]: tensor<i32>, %[[PK:.+]]: tensor<2x3x4x5xf32>, %[[TK:.+]]: tensor<2x4x5xi32>, %[[WK:.+]]: tensor<3xf32>)
// CHECK: relax.nll_loss %[[P]], %[[T]] : tensor<8x10xf32>, tensor<8xi64> -> tensor<f32>
// CHECK: relax.nll_loss %[[P]], %[[T]] : tensor<8x10xf32>, tensor<8xi64> -> tensor<f32>
// CHECK: relax.nll_loss %[[P]], %[[T]], %[[W]] {ignore_index = 0 : i64, reduction = "sum"} : tensor<8x10xf32>, tensor<8xi64>, tensor<10xf32> -> tensor<f32>
// CHECK: relax.nll_loss %[[P]], %[[T]], %[[W]] {reduction = "none"} : tensor<8x10xf32>, tensor<8xi64>, tensor<10xf32> -> tensor<8xf32>
// CHECK: relax.nll_loss %[[C]], %[[T0]] : tensor<10xf32>, tensor<i32> -> tensor<f32>
// CHECK: relax.nll_loss %[[C]], %[[T0]] {reduction = "none"} : tensor<10xf32>, tensor<i32> -> tensor<f32>
// CHECK: relax.nll_loss %[[PK]], %[[TK]] {reduction = "none"} : tensor<2x3x4x5xf32>, tensor<2x4x5xi32> -> tensor<2x4x5xf32>
// CHECK: relax.nll_loss %[[PK]], %[[TK]], %[[WK]] {ignore_index = -1 : i64} : tensor<2x3x4x5xf32>, tensor<2x4x5xi32>, tensor<3xf32> -> tensor<f32>
func.func @nll_loss(%p: tensor<8x10xf32>, %t: tensor<8xi64>, %w: tensor<10xf32>, %c: tensor<10xf32>,
                    %t0: tensor<i32>, %pk: tensor<2x3x4x5xf32>, %tk: tensor<2x4x5xi32>, %wk: tensor<3xf32>) -> tensor<f32> {
  %r = relax.dataflow -> (tensor<f32>) {
    %0 = relax.nll_loss %p, %t : tensor<8x10xf32>, tensor<8xi64> -> tensor<f32>
    %1 = relax.nll_loss %p, %t {reduction = "mean", ignore_index = -100 : i64} : tensor<8x10xf32>, tensor<8xi64> -> tensor<f32>
    %2 = relax.nll_loss %p, %t, %w {reduction = "sum", ignore_index = 0 : i64} : tensor<8x10xf32>, tensor<8xi64>, tensor<10xf32> -> tensor<f32>
    %3 = relax.nll_loss %p, %t, %w {reduction = "none"} : tensor<8x10xf32>, tensor<8xi64>, tensor<10xf32> -> tensor<8xf32>
    %4 = relax.nll_loss %c, %t0 : tensor<10xf32>, tensor<i32> -> tensor<f32>
    %5 = relax.nll_loss %c, %t0 {reduction = "none"} : tensor<10xf32>, tensor<i32> -> tensor<f32>
    %6 = relax.nll_loss %pk, %tk {reduction = "none"} : tensor<2x3x4x5xf32>, tensor<2x4x5xi32> -> tensor<2x4x5xf32>
    %7 = relax.nll_loss %pk, %tk, %wk {ignore_index = -1 : i64} : tensor<2x3x4x5xf32>, tensor<2x4x5xi32>, tensor<3xf32> -> tensor<f32>
    relax.output %0 : tensor<f32>
  }
  return %r : tensor<f32>
}

// layer_norm over the last axis, over several axes given in any order (gamma
// has x's shape at the sorted axes), with the default epsilon = 1e-5 not
// printed.
// CHECK-LABEL: func.func @layer_norm
// CHECK-SAME: (%[[X:.+]]: tensor<8x16xf32>, %[[G:.+]]: tensor<16xf32>, %[[B:.+]]: tensor<16xf32>, %[[Y:.+]]: tensor<2x3x4xf64>, %[[G2:.+]]: tensor<2x4xf64>, %[[B2:.+]]: tensor<2x4xf64>)
// CHECK: relax.layer_norm %[[X]], %[[G]], %[[B]] {axes = array<i64: -1>} : tensor<8x16xf32>, tensor<16xf32>, tensor<16xf32>
// CHECK: relax.layer_norm %[[X]], %[[G]], %[[B]] {axes = array<i64: 1>} : tensor<8x16xf32>, tensor<16xf32>, tensor<16xf32>
// CHECK: relax.layer_norm %[[X]], %[[G]], %[[B]] {axes = array<i64: 1>, epsilon = 1.000000e-03 : f64} : tensor<8x16xf32>, tensor<16xf32>, tensor<16xf32>
// CHECK: relax.layer_norm %[[Y]], %[[G2]], %[[B2]] {axes = array<i64: 2, 0>} : tensor<2x3x4xf64>, tensor<2x4xf64>, tensor<2x4xf64>
func.func @layer_norm(%x: tensor<8x16xf32>, %g: tensor<16xf32>, %b: tensor<16xf32>,
                      %y: tensor<2x3x4xf64>, %g2: tensor<2x4xf64>, %b2: tensor<2x4xf64>) -> tensor<8x16xf32> {
  %r = relax.dataflow -> (tensor<8x16xf32>) {
    %0 = relax.layer_norm %x, %g, %b {axes = array<i64: -1>} : tensor<8x16xf32>, tensor<16xf32>, tensor<16xf32>
    %1 = relax.layer_norm %x, %g, %b {axes = array<i64: 1>, epsilon = 1.0e-5 : f64} : tensor<8x16xf32>, tensor<16xf32>, tensor<16xf32>
    %2 = relax.layer_norm %x, %g, %b {axes = array<i64: 1>, epsilon = 1.0e-3 : f64} : tensor<8x16xf32>, tensor<16xf32>, tensor<16xf32>
    %3 = relax.layer_norm %y, %g2, %b2 {axes = array<i64: 2, 0>} : tensor<2x3x4xf64>, tensor<2x4xf64>, tensor<2x4xf64>
    relax.output %0 : tensor<8x16xf32>
  }
  return %r : tensor<8x16xf32>
}

// The generic forms of the interchange contract.
// CHECK-LABEL: func.func @generic_input
// CHECK-SAME: (%[[X:.+]]: tensor<4x3xf32>, %[[T:.+]]: tensor<4xi64>, %[[W:.+]]: tensor<3xf32>)
// CHECK: %[[S:.+]] = relax.softmax %[[X]] {axis = 0 : i64} : tensor<4x3xf32>
// CHECK-NEXT: %[[L:.+]] = relax.log_softmax %[[X]] : tensor<4x3xf32>
// CHECK-NEXT: relax.cross_entropy_with_logits %[[L]], %[[S]] : tensor<4x3xf32> -> tensor<f32>
// CHECK-NEXT: relax.nll_loss %[[L]], %[[T]] : tensor<4x3xf32>, tensor<4xi64> -> tensor<f32>
// CHECK-NEXT: relax.nll_loss %[[L]], %[[T]], %[[W]] {ignore_index = 2 : i64, reduction = "none"} : tensor<4x3xf32>, tensor<4xi64>, tensor<3xf32> -> tensor<4xf32>
// CHECK-NEXT: relax.layer_norm %[[X]], %[[W]], %[[W]] {axes = array<i64: 1>, epsilon = 1.000000e-02 : f64} : tensor<4x3xf32>, tensor<3xf32>, tensor<3xf32>
func.func @generic_input(%x: tensor<4x3xf32>, %t: tensor<4xi64>, %w: tensor<3xf32>) -> tensor<f32> {
  %r = "relax.dataflow"() ({
    %0 = "relax.softmax"(%x) {axis = 0 : i64} : (tensor<4x3xf32>) -> tensor<4x3xf32>
    %1 = "relax.log_softmax"(%x) : (tensor<4x3xf32>) -> tensor<4x3xf32>
    %2 = "relax.cross_entropy_with_logits"(%1, %0) : (tensor<4x3xf32>, tensor<4x3xf32>) -> tensor<f32>
    %3 = "relax.nll_loss"(%1, %t) : (tensor<4x3xf32>, tensor<4xi64>) -> tensor<f32>
    %4 = "relax.nll_loss"(%1, %t, %w) {reduction = "none", ignore_index = 2 : i64} : (tensor<4x3xf32>, tensor<4xi64>, tensor<3xf32>) -> tensor<4xf32>
    %5 = "relax.layer_norm"(%x, %w, %w) {axes = array<i64: 1>, epsilon = 0.01 : f64} : (tensor<4x3xf32>, tensor<3xf32>, tensor<3xf32>) -> tensor<4x3xf32>
    "relax.output"(%2) : (tensor<f32>) -> ()
  }) : () -> tensor<f32>
  return %r : tensor<f32>
}
