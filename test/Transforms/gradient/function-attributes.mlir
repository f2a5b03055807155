// A function's relax.target_index and relax.require_grads stand in for the
// options a run leaves out: one run differentiates a file of functions, each
// with its own target and parameters. An option given applies to all.
// RUN: relax-opt %s --gradient=func=second_field,only_y,defaults | FileCheck %s
// RUN: relax-opt %s "--gradient=func=second_field,only_y target-index=0 require-grads=0" \
// RUN:   | FileCheck %s --check-prefix=OPTIONS

// d(sum(x * y))/dx of the second field: y; the adjoint carries neither attribute.
// CHECK-LABEL: func.func @second_field_adjoint(
// CHECK-SAME:    %[[X:.*]]: tensor<3xf32>, %[[Y:.*]]: tensor<3xf32>)
// CHECK-SAME:    -> tuple<tuple<tensor<f32>, tensor<f32>>, tuple<tensor<3xf32>>>
// CHECK-NOT:     relax.target_index
// CHECK-NOT:     relax.require_grads
// CHECK:         relax.tuple(%{{.*}}, %{{.*}} : tensor<f32>, tensor<f32>)
// CHECK:         %[[G:.*]] = relax.multiply %{{.*}}, %[[Y]]
// CHECK:         relax.tuple(%[[G]] : tensor<3xf32>)
// OPTIONS-LABEL: func.func @second_field_adjoint(
// OPTIONS-SAME:    -> tuple<tuple<tensor<f32>, tensor<f32>>, tuple<tensor<3xf32>>>
// The target is field 0, sum(x): its gradient is ones broadcast.
// OPTIONS:         relax.tuple(%{{.*}}, %{{.*}} : tensor<f32>, tensor<f32>)
// OPTIONS-NEXT:    relax.ones : tensor<f32>
// OPTIONS:         %[[G:.*]] = relax.broadcast_to
// OPTIONS-NEXT:    relax.tuple(%[[G]] : tensor<3xf32>)
func.func @second_field(%x: tensor<3xf32>, %y: tensor<3xf32>) -> tuple<tensor<f32>, tensor<f32>>
    attributes {relax.target_index = 1 : i64, relax.require_grads = array<i64: 0>} {
  %r:2 = relax.dataflow -> (tensor<f32>, tensor<f32>) {
    %0 = relax.sum %x : tensor<3xf32> -> tensor<f32>
    %1 = relax.multiply %x, %y : tensor<3xf32>, tensor<3xf32> -> tensor<3xf32>
    %2 = relax.sum %1 : tensor<3xf32> -> tensor<f32>
    relax.output %0, %2 : tensor<f32>, tensor<f32>
  }
  %t = relax.tuple(%r#0, %r#1 : tensor<f32>, tensor<f32>)
  return %t : tuple<tensor<f32>, tensor<f32>>
}

// Only y's gradient (the option, given, overrides: only x's).
// CHECK-LABEL: func.func @only_y_adjoint(
// CHECK-SAME:    -> tuple<tensor<f32>, tuple<tensor<2xf32>>>
// OPTIONS-LABEL: func.func @only_y_adjoint(
// OPTIONS-SAME:    -> tuple<tensor<f32>, tuple<tensor<3xf32>>>
func.func @only_y(%x: tensor<3xf32>, %y: tensor<2xf32>) -> tensor<f32>
    attributes {relax.require_grads = array<i64: 1>} {
  %r = relax.dataflow -> (tensor<f32>) {
    %0 = relax.sum %x : tensor<3xf32> -> tensor<f32>
    %1 = relax.sum %y : tensor<2xf32> -> tensor<f32>
    %2 = relax.multiply %0, %1 : tensor<f32>, tensor<f32> -> tensor<f32>
    relax.output %2 : tensor<f32>
  }
  return %r : tensor<f32>
}

// No attributes: every float parameter, target 0.
// CHECK-LABEL: func.func @defaults_adjoint(
// CHECK-SAME:    -> tuple<tensor<f32>, tuple<tensor<3xf32>, tensor<2xf32>>>
func.func @defaults(%x: tensor<3xf32>, %y: tensor<2xf32>) -> tensor<f32> {
  %r = relax.dataflow -> (tensor<f32>) {
    %0 = relax.sum %x : tensor<3xf32> -> tensor<f32>
    %1 = relax.sum %y : tensor<2xf32> -> tensor<f32>
    %2 = relax.multiply %0, %1 : tensor<f32>, tensor<f32> -> tensor<f32>
    relax.output %2 : tensor<f32>
  }
  return %r : tensor<f32>
}
