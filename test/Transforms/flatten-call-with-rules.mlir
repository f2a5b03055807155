// relax-flatten-tuples turns relax.call_with_rules into a call of its callee
// before flattening signatures: the rule functions (one returns a tuple) are
// flattened like any other function, and no call is left naming them as rules
// (it was invalid IR: found by the relax-opt fuzzer).
// RUN: relax-opt %s --relax-flatten-tuples | FileCheck %s

// CHECK-LABEL: func.func private @f_jvp
// CHECK-SAME: -> (tensor<6xf32>, tensor<6xf32>)
// CHECK-LABEL: func.func @main
// CHECK: %[[Y:.*]] = call @f(%arg0) : (tensor<6xf32>) -> tensor<6xf32>
// CHECK-NOT: call_with_rules
func.func private @f(%x: tensor<6xf32>) -> tensor<6xf32> {
  %r = relax.dataflow -> (tensor<6xf32>) {
    %0 = relax.exp %x : tensor<6xf32>
    relax.output %0 : tensor<6xf32>
  }
  return %r : tensor<6xf32>
}
func.func private @f_jvp(%x: tensor<6xf32>, %t: tensor<6xf32>) -> tuple<tensor<6xf32>, tensor<6xf32>> {
  %r = relax.dataflow -> (tuple<tensor<6xf32>, tensor<6xf32>>) {
    %0 = relax.exp %x : tensor<6xf32>
    %two = arith.constant dense<2.0> : tensor<f32>
    %1 = relax.multiply %t, %two : tensor<6xf32>, tensor<f32> -> tensor<6xf32>
    %2 = relax.tuple(%0, %1 : tensor<6xf32>, tensor<6xf32>)
    relax.output %2 : tuple<tensor<6xf32>, tensor<6xf32>>
  }
  return %r : tuple<tensor<6xf32>, tensor<6xf32>>
}
func.func private @f_vjp(%x: tensor<6xf32>, %g: tensor<6xf32>) -> tuple<tensor<6xf32>> {
  %r = relax.dataflow -> (tuple<tensor<6xf32>>) {
    %three = arith.constant dense<3.0> : tensor<f32>
    %1 = relax.multiply %g, %three : tensor<6xf32>, tensor<f32> -> tensor<6xf32>
    %2 = relax.tuple(%1 : tensor<6xf32>)
    relax.output %2 : tuple<tensor<6xf32>>
  }
  return %r : tuple<tensor<6xf32>>
}
func.func @main(%x: tensor<6xf32>) -> tensor<f32> {
  %r = relax.dataflow -> (tensor<f32>) {
    %0 = relax.call_with_rules @f(%x) jvp @f_jvp vjp @f_vjp : (tensor<6xf32>) -> tensor<6xf32>
    %1 = relax.sum %0 : tensor<6xf32> -> tensor<f32>
    relax.output %1 : tensor<f32>
  }
  return %r : tensor<f32>
}
