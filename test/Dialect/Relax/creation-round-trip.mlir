// RUN: relax-opt %s | relax-opt | FileCheck %s
// RUN: relax-opt -mlir-print-op-generic %s | relax-opt | FileCheck %s

// The creation ops full zeros_like ones_like full_like parse and print back in
// their custom form, directly and through the generic form.

// CHECK-LABEL: func.func @creation
// CHECK-SAME: (%[[X:.+]]: tensor<4x3xf32>, %[[V:.+]]: tensor<f32>, %[[I:.+]]: tensor<2xi64>, %[[J:.+]]: tensor<i64>, %[[M:.+]]: tensor<3xi1>, %[[B:.+]]: tensor<i1>)
// CHECK: relax.full %[[V]] : tensor<f32> -> tensor<4x3xf32>
// CHECK: relax.full %[[V]] : tensor<f32> -> tensor<f32>
// CHECK: relax.full %[[J]] : tensor<i64> -> tensor<2x0xi64>
// CHECK: relax.zeros_like %[[X]] : tensor<4x3xf32>
// CHECK: relax.ones_like %[[X]] : tensor<4x3xf32>
// CHECK: relax.zeros_like %[[I]] : tensor<2xi64>
// CHECK: relax.ones_like %[[M]] : tensor<3xi1>
// CHECK: relax.full_like %[[X]], %[[V]] : tensor<4x3xf32>, tensor<f32>
// CHECK: relax.full_like %[[I]], %[[J]] : tensor<2xi64>, tensor<i64>
// CHECK: relax.full_like %[[M]], %[[B]] : tensor<3xi1>, tensor<i1>
func.func @creation(%x: tensor<4x3xf32>, %v: tensor<f32>, %i: tensor<2xi64>, %j: tensor<i64>,
                    %m: tensor<3xi1>, %b: tensor<i1>) -> tensor<4x3xf32> {
  %r = relax.dataflow -> (tensor<4x3xf32>) {
    %0 = relax.full %v : tensor<f32> -> tensor<4x3xf32>
    %1 = relax.full %v : tensor<f32> -> tensor<f32>
    %2 = relax.full %j : tensor<i64> -> tensor<2x0xi64>
    %3 = relax.zeros_like %x : tensor<4x3xf32>
    %4 = relax.ones_like %x : tensor<4x3xf32>
    %5 = relax.zeros_like %i : tensor<2xi64>
    %6 = relax.ones_like %m : tensor<3xi1>
    %7 = relax.full_like %x, %v : tensor<4x3xf32>, tensor<f32>
    %8 = relax.full_like %i, %j : tensor<2xi64>, tensor<i64>
    %9 = relax.full_like %m, %b : tensor<3xi1>, tensor<i1>
    relax.output %0 : tensor<4x3xf32>
  }
  return %r : tensor<4x3xf32>
}

// The generic forms of the interchange contract.
// CHECK-LABEL: func.func @generic_input
// CHECK-SAME: (%[[X:.+]]: tensor<2x2xbf16>, %[[V:.+]]: tensor<bf16>)
// CHECK: relax.full %[[V]] : tensor<bf16> -> tensor<3xbf16>
// CHECK-NEXT: relax.zeros_like %[[X]] : tensor<2x2xbf16>
// CHECK-NEXT: relax.ones_like %[[X]] : tensor<2x2xbf16>
// CHECK-NEXT: relax.full_like %[[X]], %[[V]] : tensor<2x2xbf16>, tensor<bf16>
func.func @generic_input(%x: tensor<2x2xbf16>, %v: tensor<bf16>) -> tensor<2x2xbf16> {
  %r = "relax.dataflow"() ({
    %0 = "relax.full"(%v) : (tensor<bf16>) -> tensor<3xbf16>
    %1 = "relax.zeros_like"(%x) : (tensor<2x2xbf16>) -> tensor<2x2xbf16>
    %2 = "relax.ones_like"(%x) : (tensor<2x2xbf16>) -> tensor<2x2xbf16>
    %3 = "relax.full_like"(%x, %v) : (tensor<2x2xbf16>, tensor<bf16>) -> tensor<2x2xbf16>
    "relax.output"(%3) : (tensor<2x2xbf16>) -> ()
  }) : () -> tensor<2x2xbf16>
  return %r : tensor<2x2xbf16>
}

// CHECK-LABEL: func.func @creation_zeros_ones
// CHECK: relax.zeros : tensor<4x3xf32>
// CHECK: relax.ones : tensor<f32>
// CHECK: relax.zeros : tensor<2xi1>
// CHECK: relax.ones : tensor<2x2xbf16>
func.func @creation_zeros_ones() -> tensor<f32> {
  %r = relax.dataflow -> (tensor<f32>) {
    %0 = relax.zeros : tensor<4x3xf32>
    %1 = relax.ones : tensor<f32>
    %2 = relax.zeros : tensor<2xi1>
    %3 = relax.ones : tensor<2x2xbf16>
    relax.output %1 : tensor<f32>
  }
  return %r : tensor<f32>
}
