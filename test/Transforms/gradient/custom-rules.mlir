// relax.call_with_rules: the differentiation passes call its rule functions
// instead of differentiating the callee (deliberately different rules here:
// 2 t forward, 3 g backward, where exp would give exp(x) t); MLIR's inliner
// lowers it as a call.
// RUN: relax-opt %s --gradient | FileCheck %s
// RUN: relax-opt %s --jvp | FileCheck %s --check-prefix=JVP
// RUN: relax-opt %s --gradient --jvp="func=main_adjoint" | FileCheck %s --check-prefix=SECOND
// RUN: relax-opt %s --gradient --relax-to-llvm | FileCheck %s --check-prefix=LLVM

// CHECK-LABEL: func.func @main_adjoint(
// CHECK-SAME:    %[[X:.+]]: tensor<3xf32>)
// CHECK:         relax.call_with_rules @f(%[[X]]) jvp @f_jvp vjp @f_vjp
// CHECK:         [[G:%.+]] = relax.broadcast_to
// CHECK-NEXT:    [[R:%.+]] = func.call @f_vjp(%[[X]], [[G]])
// CHECK-NEXT:    [[DX:%.+]] = relax.tuple_get_item [[R]][0]
// CHECK-NEXT:    relax.tuple([[DX]] : tensor<3xf32>)
// JVP-LABEL: func.func @main_jvp(
// JVP-SAME:    %[[X:.+]]: tensor<3xf32>, %[[T:.+]]: tensor<3xf32>)
// JVP:         relax.call_with_rules @f(%[[X]])
// JVP-NEXT:    [[R:%.+]] = func.call @f_jvp(%[[X]], %[[T]])
// JVP-NEXT:    relax.tuple_get_item [[R]][1]
// Second order goes through the rules' bodies (the calls they emit are
// plain calls, inlined): the rule 3 g is constant in x, so H v = 0.
// SECOND-LABEL: func.func @main_adjoint_jvp(
// SECOND:         [[Z:%.+]] = relax.zeros : tensor<3xf32>
// SECOND:         relax.tuple([[Z]] : tensor<3xf32>)
// LLVM-NOT: relax.call_with_rules
// LLVM: llvm.func @main_adjoint
func.func private @f(%x: tensor<3xf32>) -> tensor<3xf32> {
  %r = relax.dataflow -> (tensor<3xf32>) {
    %0 = relax.exp %x : tensor<3xf32>
    relax.output %0 : tensor<3xf32>
  }
  return %r : tensor<3xf32>
}
// A deliberately different rule: d f = 2 t.
func.func private @f_jvp(%x: tensor<3xf32>, %t: tensor<3xf32>) -> tuple<tensor<3xf32>, tensor<3xf32>> {
  %r = relax.dataflow -> (tuple<tensor<3xf32>, tensor<3xf32>>) {
    %0 = relax.exp %x : tensor<3xf32>
    %two = arith.constant dense<2.0> : tensor<f32>
    %1 = relax.multiply %t, %two : tensor<3xf32>, tensor<f32> -> tensor<3xf32>
    %2 = relax.tuple(%0, %1 : tensor<3xf32>, tensor<3xf32>)
    relax.output %2 : tuple<tensor<3xf32>, tensor<3xf32>>
  }
  return %r : tuple<tensor<3xf32>, tensor<3xf32>>
}
// Its transpose: g -> 3 g (another deliberate choice).
func.func private @f_vjp(%x: tensor<3xf32>, %g: tensor<3xf32>) -> tuple<tensor<3xf32>> {
  %r = relax.dataflow -> (tuple<tensor<3xf32>>) {
    %three = arith.constant dense<3.0> : tensor<f32>
    %1 = relax.multiply %g, %three : tensor<3xf32>, tensor<f32> -> tensor<3xf32>
    %2 = relax.tuple(%1 : tensor<3xf32>)
    relax.output %2 : tuple<tensor<3xf32>>
  }
  return %r : tuple<tensor<3xf32>>
}
func.func @main(%x: tensor<3xf32>) -> tensor<f32> {
  %r = relax.dataflow -> (tensor<f32>) {
    %0 = relax.call_with_rules @f(%x) jvp @f_jvp vjp @f_vjp : (tensor<3xf32>) -> tensor<3xf32>
    %1 = relax.sum %0 : tensor<3xf32> -> tensor<f32>
    relax.output %1 : tensor<f32>
  }
  return %r : tensor<f32>
}
