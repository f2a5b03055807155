// RUN: relax-opt %s -split-input-file --pass-pipeline="builtin.module(func.func(relax-convert-to-dataflow))" | FileCheck %s
// RUN: relax-opt %s --pass-pipeline="builtin.module(func.func(relax-convert-to-dataflow),gradient{func=plain})" | FileCheck %s --check-prefix=GRAD

// A plain body becomes one dataflow block, constants included; the tuple it
// returns is built inside.
// CHECK-LABEL: func.func @plain(
// CHECK-SAME:    %[[X:.+]]: tensor<3xf32>
// CHECK-NEXT:    [[R:%.+]] = relax.dataflow -> (tuple<tensor<f32>, tensor<3xf32>>) {
// CHECK-NEXT:      arith.constant
// CHECK-NEXT:      [[E:%.+]] = relax.exp %[[X]]
// CHECK-NEXT:      relax.multiply
// CHECK-NEXT:      [[S:%.+]] = relax.sum
// CHECK-NEXT:      [[T:%.+]] = relax.tuple([[S]], [[E]]
// CHECK-NEXT:      relax.output [[T]]
// CHECK-NEXT:    }
// CHECK-NEXT:    return [[R]]
// GRAD: func.func @plain_adjoint(
func.func @plain(%x: tensor<3xf32>) -> tuple<tensor<f32>, tensor<3xf32>> {
  %c = arith.constant dense<2.0> : tensor<f32>
  %0 = relax.exp %x : tensor<3xf32>
  %1 = relax.multiply %0, %c : tensor<3xf32>, tensor<f32> -> tensor<3xf32>
  %2 = relax.sum %1 : tensor<3xf32> -> tensor<f32>
  %t = relax.tuple(%2, %0 : tensor<f32>, tensor<3xf32>)
  return %t : tuple<tensor<f32>, tensor<3xf32>>
}

// -----

// A call is a binding too: it joins the block with the ops that use it.
// CHECK-LABEL: func.func @with_call(
// CHECK-NEXT:    [[R:%.+]] = relax.dataflow -> (tensor<f32>) {
// CHECK-NEXT:      [[E:%.+]] = relax.exp
// CHECK-NEXT:      [[C:%.+]] = func.call @g([[E]])
// CHECK-NEXT:      [[S:%.+]] = relax.sum [[C]]
// CHECK-NEXT:      relax.output [[S]]
// CHECK-NEXT:    }
// CHECK-NEXT:    return [[R]]
func.func private @g(tensor<3xf32>) -> tensor<3xf32>
func.func @with_call(%x: tensor<3xf32>) -> tensor<f32> {
  %0 = relax.exp %x : tensor<3xf32>
  %1 = func.call @g(%0) : (tensor<3xf32>) -> tensor<3xf32>
  %2 = relax.sum %1 : tensor<3xf32> -> tensor<f32>
  return %2 : tensor<f32>
}

// -----

// A function that already has a dataflow block is left as it is.
// CHECK-LABEL: func.func @already(
// CHECK-COUNT-1: relax.dataflow
// CHECK-NOT:     relax.dataflow
func.func @already(%x: tensor<3xf32>) -> tensor<f32> {
  %r = relax.dataflow -> (tensor<f32>) {
    %0 = relax.sum %x : tensor<3xf32> -> tensor<f32>
    relax.output %0 : tensor<f32>
  }
  return %r : tensor<f32>
}
