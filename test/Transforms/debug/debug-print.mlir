// relax.debug_print through the transformations: the gradient and jvp passes
// keep it with the forward computation of the function they derive (it
// prints when that function runs); vmap prints each example in turn.
// RUN: relax-opt %s --gradient=func=main | FileCheck %s --check-prefix=GRAD
// RUN: relax-opt %s --jvp=func=main | FileCheck %s --check-prefix=JVP
// RUN: relax-opt %s --vmap="func=main batch-size=2 batched=0" | FileCheck %s --check-prefix=VMAP

// GRAD-LABEL: func.func @main_adjoint(
// GRAD-SAME:    %[[X:[^:]+]]: tensor<3xf32> {{.*}}, %[[N:[^:]+]]: tensor<i64>
// GRAD:         relax.debug_print "{\22format\22: \22{} {}\22}" %[[X]], %[[N]] : tensor<3xf32>, tensor<i64>
// GRAD:         relax.tanh %[[X]]

// JVP-LABEL: func.func @main_jvp(
// JVP-SAME:    %[[X:[^:]+]]: tensor<3xf32> {{.*}}, %[[N:[^:]+]]: tensor<i64>
// JVP:         relax.debug_print "{\22format\22: \22{} {}\22}" %[[X]], %[[N]] : tensor<3xf32>, tensor<i64>

// VMAP-LABEL: func.func @main_vmap(
// VMAP-SAME:    %[[X:[^:]+]]: tensor<2x3xf32> {{.*}}, %[[N:[^:]+]]: tensor<i64>
// VMAP:         [[S0:%.+]] = relax.strided_slice %[[X]] {axes = array<i64: 0>, begin = array<i64: 0>, end = array<i64: 1>}
// VMAP-NEXT:    [[E0:%.+]] = relax.reshape [[S0]] : tensor<1x3xf32> -> tensor<3xf32>
// VMAP-NEXT:    relax.debug_print "{\22format\22: \22{} {}\22}" [[E0]], %[[N]]
// VMAP-NEXT:    [[S1:%.+]] = relax.strided_slice %[[X]] {axes = array<i64: 0>, begin = array<i64: 1>, end = array<i64: 2>}
// VMAP-NEXT:    [[E1:%.+]] = relax.reshape [[S1]] : tensor<1x3xf32> -> tensor<3xf32>
// VMAP-NEXT:    relax.debug_print "{\22format\22: \22{} {}\22}" [[E1]], %[[N]]
func.func @main(%x: tensor<3xf32> {relax.name = "x"}, %n: tensor<i64> {relax.name = "n"}) -> tensor<f32> {
  %r = relax.dataflow -> (tensor<f32>) {
    relax.debug_print "{\"format\": \"{} {}\"}" %x, %n : tensor<3xf32>, tensor<i64>
    %t = relax.tanh %x : tensor<3xf32>
    %s = relax.sum %t : tensor<3xf32> -> tensor<f32>
    relax.output %s : tensor<f32>
  }
  return %r : tensor<f32>
}
