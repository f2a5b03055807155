// The gradient rules of the reductions variance max min prod cumsum: one
// function per case, all differentiated in one run. Each loss is
// sum(op(x) * c) or op(x) itself when 0-d; the checks follow each rule's key
// ops.
// RUN: relax-opt %s --gradient="func=variance,max,min,prod,cumsum" | FileCheck %s

// d var(x) = g * (2 / N) * (x - mean(x)), with g reshaped to keep the reduced
// axis (N = 3, 2/3 = 0.666666686 in f32).
// CHECK-LABEL: func.func @variance_adjoint(
// CHECK-SAME:    %[[X:.+]]: tensor<4x3xf32>, %[[C:.+]]: tensor<4xf32>) -> tuple<tensor<f32>, tuple<tensor<4x3xf32>, tensor<4xf32>>> {
// CHECK:         [[S:%.+]] = relax.broadcast_to %{{.+}} : tensor<1xf32> -> tensor<4xf32>
// CHECK-NEXT:    [[G:%.+]] = relax.multiply [[S]], %[[C]] : tensor<4xf32>, tensor<4xf32> -> tensor<4xf32>
// CHECK:         [[GK:%.+]] = relax.reshape [[G]] : tensor<4xf32> -> tensor<4x1xf32>
// CHECK:         [[M:%.+]] = relax.mean %[[X]] {axis = array<i64: 1>, keepdims = true} : tensor<4x3xf32> -> tensor<4x1xf32>
// CHECK:         [[CEN:%.+]] = relax.subtract %[[X]], [[M]] : tensor<4x3xf32>, tensor<4x1xf32> -> tensor<4x3xf32>
// CHECK:         [[K:%.+]] = arith.constant dense<0.666666686> : tensor<f32>
// CHECK:         [[GS:%.+]] = relax.multiply [[GK]], [[K]] : tensor<4x1xf32>, tensor<f32> -> tensor<4x1xf32>
// CHECK:         [[DX:%.+]] = relax.multiply [[GS]], [[CEN]] : tensor<4x1xf32>, tensor<4x3xf32> -> tensor<4x3xf32>
// CHECK:         relax.tuple([[DX]], %{{.+}} : tensor<4x3xf32>, tensor<4xf32>)
func.func @variance(%x: tensor<4x3xf32>, %c: tensor<4xf32>) -> tensor<f32> {
  %r = relax.dataflow -> (tensor<f32>) {
    %y = relax.variance %x {axis = array<i64: 1>} : tensor<4x3xf32> -> tensor<4xf32>
    %p = relax.multiply %y, %c : tensor<4xf32>, tensor<4xf32> -> tensor<4xf32>
    %l = relax.sum %p : tensor<4xf32> -> tensor<f32>
    relax.output %l : tensor<f32>
  }
  return %r : tensor<f32>
}

// max: g is split evenly among the elements equal to the maximum,
// mask * (g / count(mask)); with keepdims the result already has x's rank.
// CHECK-LABEL: func.func @max_adjoint(
// CHECK-SAME:    %[[X:.+]]: tensor<4x3xf32>, %[[C:.+]]: tensor<4x1xf32>) -> tuple<tensor<f32>, tuple<tensor<4x3xf32>, tensor<4x1xf32>>> {
// CHECK:         [[Y:%.+]] = relax.max %[[X]] {axis = array<i64: -1>, keepdims = true} : tensor<4x3xf32> -> tensor<4x1xf32>
// CHECK:         [[S:%.+]] = relax.broadcast_to %{{.+}} : tensor<1x1xf32> -> tensor<4x1xf32>
// CHECK-NEXT:    [[G:%.+]] = relax.multiply [[S]], %[[C]] : tensor<4x1xf32>, tensor<4x1xf32> -> tensor<4x1xf32>
// CHECK:         [[EQ:%.+]] = relax.equal %[[X]], [[Y]] : tensor<4x3xf32>, tensor<4x1xf32> -> tensor<4x3xi1>
// CHECK:         [[MASK:%.+]] = relax.astype [[EQ]] : tensor<4x3xi1> -> tensor<4x3xf32>
// CHECK:         [[CNT:%.+]] = relax.sum [[MASK]] {axis = array<i64: 1>, keepdims = true} : tensor<4x3xf32> -> tensor<4x1xf32>
// CHECK:         [[SHARE:%.+]] = relax.divide [[G]], [[CNT]] : tensor<4x1xf32>, tensor<4x1xf32> -> tensor<4x1xf32>
// CHECK:         [[DX:%.+]] = relax.multiply [[MASK]], [[SHARE]] : tensor<4x3xf32>, tensor<4x1xf32> -> tensor<4x3xf32>
// CHECK:         relax.tuple([[DX]], %{{.+}} : tensor<4x3xf32>, tensor<4x1xf32>)
func.func @max(%x: tensor<4x3xf32>, %c: tensor<4x1xf32>) -> tensor<f32> {
  %r = relax.dataflow -> (tensor<f32>) {
    %y = relax.max %x {axis = array<i64: -1>, keepdims = true} : tensor<4x3xf32> -> tensor<4x1xf32>
    %p = relax.multiply %y, %c : tensor<4x1xf32>, tensor<4x1xf32> -> tensor<4x1xf32>
    %l = relax.sum %p : tensor<4x1xf32> -> tensor<f32>
    relax.output %l : tensor<f32>
  }
  return %r : tensor<f32>
}

// min over all axes, the loss itself: the 0-d result and the seed are
// reshaped to (1, 1) to compare and divide.
// CHECK-LABEL: func.func @min_adjoint(
// CHECK-SAME:    %[[X:.+]]: tensor<4x3xf32>) -> tuple<tensor<f32>, tuple<tensor<4x3xf32>>> {
// CHECK:         [[Y:%.+]] = relax.min %[[X]] : tensor<4x3xf32> -> tensor<f32>
// CHECK:         [[ONE:%.+]] = relax.ones : tensor<f32>
// CHECK:         [[YK:%.+]] = relax.reshape [[Y]] : tensor<f32> -> tensor<1x1xf32>
// CHECK:         [[EQ:%.+]] = relax.equal %[[X]], [[YK]] : tensor<4x3xf32>, tensor<1x1xf32> -> tensor<4x3xi1>
// CHECK:         [[MASK:%.+]] = relax.astype [[EQ]] : tensor<4x3xi1> -> tensor<4x3xf32>
// CHECK:         [[CNT:%.+]] = relax.sum [[MASK]] {axis = array<i64: 0, 1>, keepdims = true} : tensor<4x3xf32> -> tensor<1x1xf32>
// CHECK:         [[GK:%.+]] = relax.reshape [[ONE]] : tensor<f32> -> tensor<1x1xf32>
// CHECK:         [[SHARE:%.+]] = relax.divide [[GK]], [[CNT]] : tensor<1x1xf32>, tensor<1x1xf32> -> tensor<1x1xf32>
// CHECK:         [[DX:%.+]] = relax.multiply [[MASK]], [[SHARE]] : tensor<4x3xf32>, tensor<1x1xf32> -> tensor<4x3xf32>
// CHECK:         relax.tuple([[DX]] : tensor<4x3xf32>)
func.func @min(%x: tensor<4x3xf32>) -> tensor<f32> {
  %r = relax.dataflow -> (tensor<f32>) {
    %y = relax.min %x : tensor<4x3xf32> -> tensor<f32>
    relax.output %y : tensor<f32>
  }
  return %r : tensor<f32>
}

// prod: the product of the other elements without dividing by zero. With
// z = count of zeros in the slice and P' = prod(where(x == 0, 1, x)):
// at a zero P' if z == 1 (else 0); elsewhere P' / x if z == 0 (else 0).
// CHECK-LABEL: func.func @prod_adjoint(
// CHECK-SAME:    %[[X:.+]]: tensor<4x3xf32>, %[[C:.+]]: tensor<3xf32>) -> tuple<tensor<f32>, tuple<tensor<4x3xf32>, tensor<3xf32>>> {
// CHECK:         [[S:%.+]] = relax.broadcast_to %{{.+}} : tensor<1xf32> -> tensor<3xf32>
// CHECK-NEXT:    [[G:%.+]] = relax.multiply [[S]], %[[C]] : tensor<3xf32>, tensor<3xf32> -> tensor<3xf32>
// CHECK-DAG:     [[ZERO:%.+]] = arith.constant dense<0.000000e+00> : tensor<f32>
// CHECK-DAG:     [[ONE:%.+]] = arith.constant dense<1.000000e+00> : tensor<f32>
// CHECK:         [[ISZ:%.+]] = relax.equal %[[X]], [[ZERO]] : tensor<4x3xf32>, tensor<f32> -> tensor<4x3xi1>
// CHECK:         [[ZF:%.+]] = relax.astype [[ISZ]] : tensor<4x3xi1> -> tensor<4x3xf32>
// CHECK:         [[Z:%.+]] = relax.sum [[ZF]] {axis = array<i64: 0>, keepdims = true} : tensor<4x3xf32> -> tensor<1x3xf32>
// CHECK:         [[NZ:%.+]] = relax.where [[ISZ]], [[ONE]], %[[X]] : tensor<4x3xi1>, tensor<f32>, tensor<4x3xf32> -> tensor<4x3xf32>
// CHECK:         [[P:%.+]] = relax.prod [[NZ]] {axis = array<i64: 0>, keepdims = true} : tensor<4x3xf32> -> tensor<1x3xf32>
// CHECK:         [[Z1:%.+]] = relax.equal [[Z]], [[ONE]] : tensor<1x3xf32>, tensor<f32> -> tensor<1x3xi1>
// CHECK:         [[ATZ:%.+]] = relax.where [[Z1]], [[P]], [[ZERO]] :
// CHECK:         [[Q:%.+]] = relax.divide [[P]], [[NZ]] : tensor<1x3xf32>, tensor<4x3xf32> -> tensor<4x3xf32>
// CHECK:         [[Z0:%.+]] = relax.equal [[Z]], [[ZERO]] : tensor<1x3xf32>, tensor<f32> -> tensor<1x3xi1>
// CHECK:         [[ELSE:%.+]] = relax.where [[Z0]], [[Q]], [[ZERO]] :
// CHECK:         [[LOCAL:%.+]] = relax.where [[ISZ]], [[ATZ]], [[ELSE]] : tensor<4x3xi1>, tensor<1x3xf32>, tensor<4x3xf32> -> tensor<4x3xf32>
// CHECK:         [[GK:%.+]] = relax.reshape [[G]] : tensor<3xf32> -> tensor<1x3xf32>
// CHECK:         [[DX:%.+]] = relax.multiply [[GK]], [[LOCAL]] : tensor<1x3xf32>, tensor<4x3xf32> -> tensor<4x3xf32>
// CHECK:         relax.tuple([[DX]], %{{.+}} : tensor<4x3xf32>, tensor<3xf32>)
func.func @prod(%x: tensor<4x3xf32>, %c: tensor<3xf32>) -> tensor<f32> {
  %r = relax.dataflow -> (tensor<f32>) {
    %y = relax.prod %x {axis = array<i64: 0>} : tensor<4x3xf32> -> tensor<3xf32>
    %p = relax.multiply %y, %c : tensor<3xf32>, tensor<3xf32> -> tensor<3xf32>
    %l = relax.sum %p : tensor<3xf32> -> tensor<f32>
    relax.output %l : tensor<f32>
  }
  return %r : tensor<f32>
}

// cumsum: the reversed cumsum of the reversed adjoint; the reversal is a
// strided_slice with stride -1 along the (normalized) axis.
// CHECK-LABEL: func.func @cumsum_adjoint(
// CHECK-SAME:    %[[X:.+]]: tensor<4x3xf32>, %[[C:.+]]: tensor<4x3xf32>) -> tuple<tensor<f32>, tuple<tensor<4x3xf32>, tensor<4x3xf32>>> {
// CHECK:         [[S:%.+]] = relax.broadcast_to %{{.+}} : tensor<1x1xf32> -> tensor<4x3xf32>
// CHECK-NEXT:    [[G:%.+]] = relax.multiply [[S]], %[[C]] :
// CHECK:         [[R1:%.+]] = relax.strided_slice [[G]] {axes = array<i64: 1>, begin = array<i64: 2>, end = array<i64: -4>, strides = array<i64: -1>} : tensor<4x3xf32> -> tensor<4x3xf32>
// CHECK-NEXT:    [[CS:%.+]] = relax.cumsum [[R1]] {axis = 1 : i64} : tensor<4x3xf32>
// CHECK-NEXT:    [[DX:%.+]] = relax.strided_slice [[CS]] {axes = array<i64: 1>, begin = array<i64: 2>, end = array<i64: -4>, strides = array<i64: -1>} : tensor<4x3xf32> -> tensor<4x3xf32>
// CHECK:         relax.tuple([[DX]], %{{.+}} : tensor<4x3xf32>, tensor<4x3xf32>)
func.func @cumsum(%x: tensor<4x3xf32>, %c: tensor<4x3xf32>) -> tensor<f32> {
  %r = relax.dataflow -> (tensor<f32>) {
    %y = relax.cumsum %x {axis = -1 : i64} : tensor<4x3xf32>
    %p = relax.multiply %y, %c : tensor<4x3xf32>, tensor<4x3xf32> -> tensor<4x3xf32>
    %l = relax.sum %p : tensor<4x3xf32> -> tensor<f32>
    relax.output %l : tensor<f32>
  }
  return %r : tensor<f32>
}
