// A float value that reaches the target through a tuple which also holds an
// integer tensor still gets its gradient: integer tensors get no gradient, but
// the float field of the tuple is on the path. loss = sum(exp(x)) with x read
// back from (x, k): dx = exp(x), not zeros.
//
// RUN: relax-opt %s --gradient="func=main" | FileCheck %s

// CHECK-LABEL: func.func @main_adjoint(
// CHECK-SAME:    %[[X:[^:]+]]: tensor<3xf32>, %[[K:[^:]+]]: tensor<3xi32>) -> tuple<tensor<f32>, tuple<tensor<3xf32>>> {
// CHECK:         [[E:%[0-9]+]] = relax.exp %[[X]] : tensor<3xf32>
// CHECK-NOT:     relax.zeros
// CHECK:         [[G:%[0-9]+]] = relax.broadcast_to %{{.+}} : tensor<1xf32> -> tensor<3xf32>
// CHECK-NEXT:    [[DX:%[0-9]+]] = relax.multiply [[G]], [[E]] :
// CHECK-NOT:     relax.zeros
// CHECK:         relax.tuple([[DX]] : tensor<3xf32>)
func.func @main(%x: tensor<3xf32>, %k: tensor<3xi32>) -> tensor<f32> {
  %r = relax.dataflow -> (tensor<f32>) {
    %t = relax.tuple(%x, %k : tensor<3xf32>, tensor<3xi32>)
    %a = relax.tuple_get_item %t[0] : tuple<tensor<3xf32>, tensor<3xi32>>
    %e = relax.exp %a : tensor<3xf32>
    %s = relax.sum %e : tensor<3xf32> -> tensor<f32>
    relax.output %s : tensor<f32>
  }
  return %r : tensor<f32>
}
