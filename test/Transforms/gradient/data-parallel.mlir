// The gradient pass's data-parallel option: every process runs the adjoint on
// its own data; the gradients and the target are packed into one flat buffer
// per element type (here f32: the gradients of w (6) and x (12), the loss, and
// a 1 whose sum counts the processes for the mean; f64: v's gradient and a 1),
// each reduced by
// one relax.all_reduce, then sliced back and scaled by 1 / count.
// RUN: relax-opt %s --gradient="func=main data-parallel=mean" | FileCheck %s
// RUN: relax-opt %s --gradient="func=main data-parallel=sum" | FileCheck %s --check-prefix=SUM
// RUN: relax-opt %s --gradient="func=main data-parallel=mean mode=vjp" | FileCheck %s --check-prefix=VJP
// RUN: not relax-opt %s --gradient="func=main data-parallel=max" 2>&1 | FileCheck %s --check-prefix=BAD

// CHECK-LABEL: func.func @main_adjoint(
// CHECK:         %[[ONE:.*]] = relax.ones : tensor<1xf32>
// CHECK:         %[[F32:.*]] = relax.concat %{{.*}}, %{{.*}}, %{{.*}}, %[[ONE]] {axis = 0 : i64} : tensor<6xf32>, tensor<12xf32>, tensor<1xf32>, tensor<1xf32> -> tensor<20xf32>
// CHECK:         %[[R32:.*]] = relax.all_reduce %[[F32]] : tensor<20xf32>
// CHECK:         %[[N:.*]] = relax.strided_slice %[[R32]] {axes = array<i64: 0>, begin = array<i64: 19>, end = array<i64: 20>
// CHECK:         %[[SCALE:.*]] = relax.divide %{{.*}}, %{{.*}} : tensor<f32>, tensor<f32> -> tensor<f32>
// CHECK:         %[[GW:.*]] = relax.strided_slice %[[R32]] {axes = array<i64: 0>, begin = array<i64: 0>, end = array<i64: 6>
// CHECK:         relax.multiply %[[GW]], %[[SCALE]]
// CHECK:         relax.all_reduce %{{.*}} : tensor<5xf64>
// CHECK-NOT:     relax.all_reduce
// CHECK:         return
// SUM-LABEL: func.func @main_adjoint(
// SUM-NOT:     relax.ones
// SUM:         relax.all_reduce %{{.*}} : tensor<19xf32>
// SUM:         relax.all_reduce %{{.*}} : tensor<4xf64>
// VJP-LABEL: func.func @main_fwd(
// VJP-NOT:     relax.all_reduce
// VJP-LABEL: func.func @main_bwd(
// VJP:         relax.all_reduce %{{.*}} : tensor<19xf32>
// VJP:         relax.all_reduce %{{.*}} : tensor<5xf64>
// BAD: gradient: data-parallel must be 'none', 'mean' or 'sum', got 'max'
func.func @main(%w: tensor<3x2xf32>, %x: tensor<4x3xf32>, %v: tensor<4xf64>) -> tensor<f32> {
  %r = relax.dataflow -> (tensor<f32>) {
    %y = relax.matmul %x, %w : tensor<4x3xf32>, tensor<3x2xf32> -> tensor<4x2xf32>
    %t = relax.tanh %y : tensor<4x2xf32>
    %s = relax.sum %t : tensor<4x2xf32> -> tensor<f32>
    %vs = relax.sum %v : tensor<4xf64> -> tensor<f64>
    %v32 = relax.astype %vs : tensor<f64> -> tensor<f32>
    %l = relax.multiply %s, %v32 : tensor<f32>, tensor<f32> -> tensor<f32>
    relax.output %l : tensor<f32>
  }
  return %r : tensor<f32>
}
