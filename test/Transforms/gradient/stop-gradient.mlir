// stop_gradient: both passes treat its result as a constant, and it stays in
// what they produce, so that a second derivative does not see through it;
// lowering removes it.
// RUN: relax-opt %s --gradient="func=f" | FileCheck %s
// RUN: relax-opt %s --jvp="func=f" | FileCheck %s --check-prefix=JVP
// RUN: relax-opt %s --gradient="func=f" --jvp="func=f_adjoint" | FileCheck %s --check-prefix=SECOND
// RUN: relax-opt %s --gradient="func=f" --convert-relax-to-linalg | FileCheck %s --check-prefix=LOWERED

// f(x) = sum(x * stop_gradient(x)): its gradient is stop_gradient(x) (not 2x).
// CHECK-LABEL: func.func @f_adjoint(
// CHECK-SAME:    %[[X:.+]]: tensor<3xf32>)
// CHECK:         [[S:%.+]] = relax.stop_gradient %[[X]]
// CHECK:         relax.broadcast_to
// CHECK-NEXT:    [[G:%.+]] = relax.multiply %{{.+}}, [[S]]
// CHECK-NEXT:    relax.tuple([[G]] : tensor<3xf32>)
// JVP-LABEL: func.func @f_jvp(
// JVP-SAME:    %[[X:.+]]: tensor<3xf32>, %[[T:.+]]: tensor<3xf32>)
// JVP:         [[S:%.+]] = relax.stop_gradient %[[X]]
// JVP-NEXT:    relax.multiply %[[X]], [[S]]
// JVP-NEXT:    relax.multiply %[[T]], [[S]]
// JVP-NOT:     relax.add
// The tangent of the gradient stop_gradient(x) * 1 is zero: the Hessian of f
// is 0, as in JAX.
// SECOND-LABEL: func.func @f_adjoint_jvp(
// SECOND:         [[Z:%.+]] = relax.zeros : tensor<3xf32>
// SECOND-NEXT:    relax.tuple([[Z]] : tensor<3xf32>)
// LOWERED-NOT: relax.stop_gradient
func.func @f(%x: tensor<3xf32>) -> tensor<f32> {
  %r = relax.dataflow -> (tensor<f32>) {
    %s = relax.stop_gradient %x : tensor<3xf32>
    %m = relax.multiply %x, %s : tensor<3xf32>, tensor<3xf32> -> tensor<3xf32>
    %l = relax.sum %m : tensor<3xf32> -> tensor<f32>
    relax.output %l : tensor<f32>
  }
  return %r : tensor<f32>
}
