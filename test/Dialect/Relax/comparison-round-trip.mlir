// RUN: relax-opt %s | relax-opt | FileCheck %s
// RUN: relax-opt -mlir-print-op-generic %s | relax-opt | FileCheck %s

// The comparisons equal not_equal greater_equal less less_equal (and greater)
// parse and print back in their custom form, directly and through the generic
// form. Their result is an i1 tensor of the broadcast shape.

// CHECK-LABEL: func.func @compare
// CHECK-SAME: (%[[A:.+]]: tensor<4x3xf32>, %[[B:.+]]: tensor<3xf32>, %[[S:.+]]: tensor<f32>)
// CHECK: relax.equal %[[A]], %[[B]] : tensor<4x3xf32>, tensor<3xf32> -> tensor<4x3xi1>
// CHECK: relax.not_equal %[[S]], %[[A]] : tensor<f32>, tensor<4x3xf32> -> tensor<4x3xi1>
// CHECK: relax.greater %[[B]], %[[S]] : tensor<3xf32>, tensor<f32> -> tensor<3xi1>
// CHECK: relax.greater_equal %[[A]], %[[A]] : tensor<4x3xf32>, tensor<4x3xf32> -> tensor<4x3xi1>
// CHECK: relax.less %[[S]], %[[S]] : tensor<f32>, tensor<f32> -> tensor<i1>
// CHECK: relax.less_equal %[[B]], %[[A]] : tensor<3xf32>, tensor<4x3xf32> -> tensor<4x3xi1>
func.func @compare(%a: tensor<4x3xf32>, %b: tensor<3xf32>, %s: tensor<f32>) -> tensor<4x3xi1> {
  %r = relax.dataflow -> (tensor<4x3xi1>) {
    %0 = relax.equal %a, %b : tensor<4x3xf32>, tensor<3xf32> -> tensor<4x3xi1>
    %1 = relax.not_equal %s, %a : tensor<f32>, tensor<4x3xf32> -> tensor<4x3xi1>
    %2 = relax.greater %b, %s : tensor<3xf32>, tensor<f32> -> tensor<3xi1>
    %3 = relax.greater_equal %a, %a : tensor<4x3xf32>, tensor<4x3xf32> -> tensor<4x3xi1>
    %4 = relax.less %s, %s : tensor<f32>, tensor<f32> -> tensor<i1>
    %5 = relax.less_equal %b, %a : tensor<3xf32>, tensor<4x3xf32> -> tensor<4x3xi1>
    relax.output %5 : tensor<4x3xi1>
  }
  return %r : tensor<4x3xi1>
}

// Integer and other float operands; both sides broadcast.
// CHECK-LABEL: func.func @compare_types
// CHECK-SAME: (%[[I:.+]]: tensor<2x1xi32>, %[[J:.+]]: tensor<1x5xi32>, %[[L:.+]]: tensor<3xi64>, %[[H:.+]]: tensor<2xf16>, %[[D:.+]]: tensor<2x2xf64>, %[[B:.+]]: tensor<bf16>)
// CHECK: relax.equal %[[I]], %[[J]] : tensor<2x1xi32>, tensor<1x5xi32> -> tensor<2x5xi1>
// CHECK: relax.less %[[L]], %[[L]] : tensor<3xi64>, tensor<3xi64> -> tensor<3xi1>
// CHECK: relax.not_equal %[[H]], %[[H]] : tensor<2xf16>, tensor<2xf16> -> tensor<2xi1>
// CHECK: relax.greater_equal %[[D]], %[[D]] : tensor<2x2xf64>, tensor<2x2xf64> -> tensor<2x2xi1>
// CHECK: relax.less_equal %[[B]], %[[B]] : tensor<bf16>, tensor<bf16> -> tensor<i1>
func.func @compare_types(%i: tensor<2x1xi32>, %j: tensor<1x5xi32>, %l: tensor<3xi64>,
                         %h: tensor<2xf16>, %d: tensor<2x2xf64>, %b: tensor<bf16>) -> tensor<2x5xi1> {
  %r = relax.dataflow -> (tensor<2x5xi1>) {
    %0 = relax.equal %i, %j : tensor<2x1xi32>, tensor<1x5xi32> -> tensor<2x5xi1>
    %1 = relax.less %l, %l : tensor<3xi64>, tensor<3xi64> -> tensor<3xi1>
    %2 = relax.not_equal %h, %h : tensor<2xf16>, tensor<2xf16> -> tensor<2xi1>
    %3 = relax.greater_equal %d, %d : tensor<2x2xf64>, tensor<2x2xf64> -> tensor<2x2xi1>
    %4 = relax.less_equal %b, %b : tensor<bf16>, tensor<bf16> -> tensor<i1>
    relax.output %0 : tensor<2x5xi1>
  }
  return %r : tensor<2x5xi1>
}

// The generic forms of the interchange contract.
// CHECK-LABEL: func.func @generic_input
// CHECK-SAME: (%[[A:.+]]: tensor<4x3xf32>, %[[B:.+]]: tensor<3xf32>)
// CHECK: relax.equal %[[A]], %[[B]] : tensor<4x3xf32>, tensor<3xf32> -> tensor<4x3xi1>
// CHECK-NEXT: relax.not_equal %[[A]], %[[B]] : tensor<4x3xf32>, tensor<3xf32> -> tensor<4x3xi1>
// CHECK-NEXT: relax.greater_equal %[[B]], %[[A]] : tensor<3xf32>, tensor<4x3xf32> -> tensor<4x3xi1>
// CHECK-NEXT: relax.less %[[B]], %[[B]] : tensor<3xf32>, tensor<3xf32> -> tensor<3xi1>
// CHECK-NEXT: relax.less_equal %[[A]], %[[A]] : tensor<4x3xf32>, tensor<4x3xf32> -> tensor<4x3xi1>
func.func @generic_input(%a: tensor<4x3xf32>, %b: tensor<3xf32>) -> tensor<3xi1> {
  %r = "relax.dataflow"() ({
    %0 = "relax.equal"(%a, %b) : (tensor<4x3xf32>, tensor<3xf32>) -> tensor<4x3xi1>
    %1 = "relax.not_equal"(%a, %b) : (tensor<4x3xf32>, tensor<3xf32>) -> tensor<4x3xi1>
    %2 = "relax.greater_equal"(%b, %a) : (tensor<3xf32>, tensor<4x3xf32>) -> tensor<4x3xi1>
    %3 = "relax.less"(%b, %b) : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xi1>
    %4 = "relax.less_equal"(%a, %a) : (tensor<4x3xf32>, tensor<4x3xf32>) -> tensor<4x3xi1>
    "relax.output"(%3) : (tensor<3xi1>) -> ()
  }) : () -> tensor<3xi1>
  return %r : tensor<3xi1>
}
