// RUN: relax-opt %s --gradient=func=main | FileCheck %s

// The adjoint of x @ w^T would hold permute_dims(permute_dims(w)) in d/dx and
// the seed ones times the mean's scale; both fold away. Same-shape
// collapse_sum_to / broadcast_to never appear, and nothing adds zeros.
// CHECK-LABEL: func.func @main_adjoint(
// CHECK-SAME:    %[[X:.+]]: tensor<4x3xf32>, %[[W:.+]]: tensor<5x3xf32>
// CHECK-NOT:     relax.ones
// CHECK-NOT:     relax.zeros
// CHECK-NOT:     relax.collapse_sum_to {{.*}} : tensor<4x5xf32> -> tensor<4x5xf32>
// CHECK-NOT:     relax.broadcast_to {{.*}} : tensor<4x5xf32> -> tensor<4x5xf32>
// CHECK:         [[DX:%.+]] = relax.matmul {{%.+}}, %[[W]] : tensor<4x5xf32>, tensor<5x3xf32> -> tensor<4x3xf32>
// CHECK-NOT:     relax.permute_dims [[P:%.+]] {{.*}}tensor<3x5xf32> -> tensor<5x3xf32>
// CHECK:         return
func.func @main(%x: tensor<4x3xf32>, %w: tensor<5x3xf32>) -> tensor<f32> {
  %r = relax.dataflow -> (tensor<f32>) {
    %wt = relax.permute_dims %w : tensor<5x3xf32> -> tensor<3x5xf32>
    %y = relax.matmul %x, %wt : tensor<4x3xf32>, tensor<3x5xf32> -> tensor<4x5xf32>
    %z = relax.zeros : tensor<4x5xf32>
    %y2 = relax.add %y, %z : tensor<4x5xf32>, tensor<4x5xf32> -> tensor<4x5xf32>
    %l = relax.mean %y2 : tensor<4x5xf32> -> tensor<f32>
    relax.output %l : tensor<f32>
  }
  return %r : tensor<f32>
}
