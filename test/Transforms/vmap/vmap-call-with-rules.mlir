// vmap of relax.call_with_rules (custom_vjp/custom_jvp under vmap): it stays
// a call_with_rules, of the callee and the rules batched over the batched
// operands (x here; w is shared), so a gradient taken afterwards still uses
// the given rules. The vjp of the shared operand is summed over the batch.
// RUN: relax-opt %s --vmap="func=main batch-size=4 batched=0" | FileCheck %s
// RUN: relax-opt %s --vmap="func=main batch-size=4 batched=0" --jvp="func=main_vmap" | FileCheck %s --check-prefix=JVP
// RUN: relax-opt %s --vmap="func=main batch-size=4 batched=0" --relax-to-llvm | FileCheck %s --check-prefix=LLVM

// CHECK-LABEL: func.func private @f(
// CHECK-LABEL: func.func private @f_vmap(
// CHECK-SAME:    %{{.+}}: tensor<4x3xf32>, %{{.+}}: tensor<3xf32>) -> tensor<4x3xf32>
// CHECK-LABEL: func.func private @f_jvp_vmap(
// CHECK-SAME:    tensor<4x3xf32>, %{{.+}}: tensor<3xf32>, %{{.+}}: tensor<4x3xf32>, %{{.+}}: tensor<3xf32>)
// CHECK-SAME:    -> tuple<tensor<4x3xf32>, tensor<4x3xf32>>
// CHECK-LABEL: func.func private @f_vjp_vmap(
// CHECK-SAME:    tensor<4x3xf32>, %{{.+}}: tensor<3xf32>, %{{.+}}: tensor<4x3xf32>)
// CHECK-SAME:    -> tuple<tensor<4x3xf32>, tensor<4x3xf32>>
// The shared operand's gradient: the batched vjp's, summed over the batch.
// CHECK-LABEL: func.func private @f_vjp_vmap_shared(
// CHECK-SAME:    -> tuple<tensor<4x3xf32>, tensor<3xf32>>
// CHECK:         [[ALL:%.+]] = func.call @f_vjp_vmap(
// CHECK-DAG:     [[DX:%.+]] = relax.tuple_get_item [[ALL]][0]
// CHECK-DAG:     [[DW:%.+]] = relax.tuple_get_item [[ALL]][1]
// CHECK:         [[SUM:%.+]] = relax.sum [[DW]] {axis = array<i64: 0>}
// CHECK:         relax.tuple([[DX]], [[SUM]] :
// CHECK-LABEL: func.func @main_vmap(
// CHECK-SAME:    %[[X:.+]]: tensor<4x3xf32>, %[[W:.+]]: tensor<3xf32>)
// CHECK:         relax.call_with_rules @f_vmap(%[[X]], %[[W]]) jvp @f_jvp_vmap vjp @f_vjp_vmap_shared
// CHECK-SAME:      : (tensor<4x3xf32>, tensor<3xf32>) -> tensor<4x3xf32>

// JVP-LABEL: func.func @main_vmap_jvp(
// JVP:         func.call @f_jvp_vmap(

// LLVM-NOT: relax.call_with_rules
// LLVM: llvm.func @main_vmap

func.func private @f(%x: tensor<3xf32>, %w: tensor<3xf32>) -> tensor<3xf32> {
  %r = relax.dataflow -> (tensor<3xf32>) {
    %0 = relax.multiply %x, %w : tensor<3xf32>, tensor<3xf32> -> tensor<3xf32>
    relax.output %0 : tensor<3xf32>
  }
  return %r : tensor<3xf32>
}
// Deliberately different rules: d f = 2 tx + tw; the transpose (3 g, 5 g).
func.func private @f_jvp(%x: tensor<3xf32>, %w: tensor<3xf32>, %tx: tensor<3xf32>, %tw: tensor<3xf32>) -> tuple<tensor<3xf32>, tensor<3xf32>> {
  %r = relax.dataflow -> (tuple<tensor<3xf32>, tensor<3xf32>>) {
    %0 = relax.multiply %x, %w : tensor<3xf32>, tensor<3xf32> -> tensor<3xf32>
    %two = arith.constant dense<2.0> : tensor<f32>
    %1 = relax.multiply %tx, %two : tensor<3xf32>, tensor<f32> -> tensor<3xf32>
    %2 = relax.add %1, %tw : tensor<3xf32>, tensor<3xf32> -> tensor<3xf32>
    %3 = relax.tuple(%0, %2 : tensor<3xf32>, tensor<3xf32>)
    relax.output %3 : tuple<tensor<3xf32>, tensor<3xf32>>
  }
  return %r : tuple<tensor<3xf32>, tensor<3xf32>>
}
func.func private @f_vjp(%x: tensor<3xf32>, %w: tensor<3xf32>, %g: tensor<3xf32>) -> tuple<tensor<3xf32>, tensor<3xf32>> {
  %r = relax.dataflow -> (tuple<tensor<3xf32>, tensor<3xf32>>) {
    %three = arith.constant dense<3.0> : tensor<f32>
    %five = arith.constant dense<5.0> : tensor<f32>
    %0 = relax.multiply %g, %three : tensor<3xf32>, tensor<f32> -> tensor<3xf32>
    %1 = relax.multiply %g, %five : tensor<3xf32>, tensor<f32> -> tensor<3xf32>
    %2 = relax.tuple(%0, %1 : tensor<3xf32>, tensor<3xf32>)
    relax.output %2 : tuple<tensor<3xf32>, tensor<3xf32>>
  }
  return %r : tuple<tensor<3xf32>, tensor<3xf32>>
}
func.func @main(%x: tensor<3xf32>, %w: tensor<3xf32>) -> tensor<f32> {
  %r = relax.dataflow -> (tensor<f32>) {
    %0 = relax.call_with_rules @f(%x, %w) jvp @f_jvp vjp @f_vjp : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
    %1 = relax.sum %0 : tensor<3xf32> -> tensor<f32>
    relax.output %1 : tensor<f32>
  }
  return %r : tensor<f32>
}
