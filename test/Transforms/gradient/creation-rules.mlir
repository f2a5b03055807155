// The gradient rules of the creation ops full full_like zeros_like ones_like:
// one function per case, all differentiated in one run. A filled tensor's
// adjoint flows to its 0-d fill value (summed); the operand of the *_like ops
// only gives a type and receives zeros.
// RUN: relax-opt %s --gradient="func=full,full_like,zeros_like,ones_like" | FileCheck %s

// CHECK-LABEL: func.func @full_adjoint(
// CHECK-SAME:    %[[V:.+]]: tensor<f32>, %[[C:.+]]: tensor<4x3xf32>) -> tuple<tensor<f32>, tuple<tensor<f32>, tensor<4x3xf32>>> {
// CHECK:         [[S:%.+]] = relax.broadcast_to %{{.+}} : tensor<1x1xf32> -> tensor<4x3xf32>
// CHECK-NEXT:    [[G:%.+]] = relax.multiply [[S]], %[[C]] :
// CHECK:         [[DV:%.+]] = relax.collapse_sum_to [[G]] : tensor<4x3xf32> -> tensor<f32>
// CHECK-NEXT:    relax.tuple([[DV]], %{{.+}} : tensor<f32>, tensor<4x3xf32>)
func.func @full(%v: tensor<f32>, %c: tensor<4x3xf32>) -> tensor<f32> {
  %r = relax.dataflow -> (tensor<f32>) {
    %y = relax.full %v : tensor<f32> -> tensor<4x3xf32>
    %p = relax.multiply %y, %c : tensor<4x3xf32>, tensor<4x3xf32> -> tensor<4x3xf32>
    %l = relax.sum %p : tensor<4x3xf32> -> tensor<f32>
    relax.output %l : tensor<f32>
  }
  return %r : tensor<f32>
}

// CHECK-LABEL: func.func @full_like_adjoint(
// CHECK-SAME:    %[[X:.+]]: tensor<4x3xf32>, %[[V:.+]]: tensor<f32>, %[[C:.+]]: tensor<4x3xf32>) -> tuple<tensor<f32>, tuple<tensor<4x3xf32>, tensor<f32>, tensor<4x3xf32>>> {
// CHECK:         [[S:%.+]] = relax.broadcast_to %{{.+}} : tensor<1x1xf32> -> tensor<4x3xf32>
// CHECK-NEXT:    [[G:%.+]] = relax.multiply [[S]], %[[C]] :
// CHECK:         [[DV:%.+]] = relax.collapse_sum_to [[G]] : tensor<4x3xf32> -> tensor<f32>
// CHECK-NEXT:    [[DX:%.+]] = relax.zeros : tensor<4x3xf32>
// CHECK-NEXT:    relax.tuple([[DX]], [[DV]], %{{.+}} : tensor<4x3xf32>, tensor<f32>, tensor<4x3xf32>)
func.func @full_like(%x: tensor<4x3xf32>, %v: tensor<f32>, %c: tensor<4x3xf32>) -> tensor<f32> {
  %r = relax.dataflow -> (tensor<f32>) {
    %y = relax.full_like %x, %v : tensor<4x3xf32>, tensor<f32>
    %p = relax.multiply %y, %c : tensor<4x3xf32>, tensor<4x3xf32> -> tensor<4x3xf32>
    %l = relax.sum %p : tensor<4x3xf32> -> tensor<f32>
    relax.output %l : tensor<f32>
  }
  return %r : tensor<f32>
}

// sum(zeros_like(x) + x): only the add's rhs reaches x.
// CHECK-LABEL: func.func @zeros_like_adjoint(
// CHECK-SAME:    %[[X:.+]]: tensor<3xf32>) -> tuple<tensor<f32>, tuple<tensor<3xf32>>> {
// CHECK:         [[G:%.+]] = relax.broadcast_to %{{.+}} : tensor<1xf32> -> tensor<3xf32>
// CHECK-NEXT:    relax.tuple([[G]] : tensor<3xf32>)
func.func @zeros_like(%x: tensor<3xf32>) -> tensor<f32> {
  %r = relax.dataflow -> (tensor<f32>) {
    %z = relax.zeros_like %x : tensor<3xf32>
    %y = relax.add %z, %x : tensor<3xf32>, tensor<3xf32> -> tensor<3xf32>
    %l = relax.sum %y : tensor<3xf32> -> tensor<f32>
    relax.output %l : tensor<f32>
  }
  return %r : tensor<f32>
}

// sum(ones_like(x)) does not depend on x's values.
// CHECK-LABEL: func.func @ones_like_adjoint(
// CHECK-SAME:    %[[X:.+]]: tensor<3xf32>) -> tuple<tensor<f32>, tuple<tensor<3xf32>>> {
// CHECK:         [[Z:%.+]] = relax.zeros : tensor<3xf32>
// CHECK-NEXT:    relax.tuple([[Z]] : tensor<3xf32>)
func.func @ones_like(%x: tensor<3xf32>) -> tensor<f32> {
  %r = relax.dataflow -> (tensor<f32>) {
    %o = relax.ones_like %x : tensor<3xf32>
    %l = relax.sum %o : tensor<3xf32> -> tensor<f32>
    relax.output %l : tensor<f32>
  }
  return %r : tensor<f32>
}
