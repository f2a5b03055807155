// Tuples and the gradient pass: a tuple parameter gets a tuple of gradients
// (nested like the parameter), fields that receive no contribution get
// relax.zeros of their type, reads of reads (get-item of get-item) route the
// gradient to the right leaf, tuples built in the body fold away, and
// constants held in tuples get no gradient. Errors are in tuples-errors.mlir
// and at the end of this file.
// One run differentiates every function that succeeds (options as their
// relax.require_grads / relax.target_index attributes).
//
// RUN: relax-opt %s --gradient="func={tparam, nested, getget, built, tupletarget}" > %t
// RUN: FileCheck %s --check-prefix=TPARAM < %t
// RUN: FileCheck %s --check-prefix=NESTED < %t
// RUN: FileCheck %s --check-prefix=GETGET < %t
// RUN: FileCheck %s --check-prefix=BUILT < %t
// RUN: FileCheck %s --check-prefix=TTARGET < %t
// RUN: not relax-opt %s --gradient="func=nested target-index=0" 2>&1 | FileCheck %s --check-prefix=NESTED0
// RUN: not relax-opt %s --gradient="func=tupletarget target-index=1" 2>&1 | FileCheck %s --check-prefix=TTARGET1

// loss = sum(a * b), (a, b) = t: dt = (b, a), returned as a tuple inside the
// gradient tuple.
// TPARAM-LABEL: func.func @tparam_adjoint(
// TPARAM-SAME:    %[[T:[^:]+]]: tuple<tensor<3xf32>, tensor<3xf32>>) -> tuple<tensor<f32>, tuple<tuple<tensor<3xf32>, tensor<3xf32>>>> {
// TPARAM:         [[A:%[0-9]+]] = relax.tuple_get_item %[[T]][0]
// TPARAM-NEXT:    [[B:%[0-9]+]] = relax.tuple_get_item %[[T]][1]
// TPARAM:         [[G:%[0-9]+]] = relax.broadcast_to
// TPARAM-DAG:     [[DA:%[0-9]+]] = relax.multiply [[G]], [[B]] :
// TPARAM-DAG:     [[DB:%[0-9]+]] = relax.multiply [[G]], [[A]] :
// TPARAM:         [[DT:%[0-9]+]] = relax.tuple([[DA]], [[DB]] : tensor<3xf32>, tensor<3xf32>)
// TPARAM-NEXT:    [[GT:%[0-9]+]] = relax.tuple([[DT]] : tuple<tensor<3xf32>, tensor<3xf32>>)
// TPARAM-NEXT:    relax.tuple(%{{.+}}, [[GT]] : tensor<f32>, tuple<tuple<tensor<3xf32>, tensor<3xf32>>>)
func.func @tparam(%t: tuple<tensor<3xf32>, tensor<3xf32>>) -> tensor<f32> {
  %r = relax.dataflow -> (tensor<f32>) {
    %a = relax.tuple_get_item %t[0] : tuple<tensor<3xf32>, tensor<3xf32>>
    %b = relax.tuple_get_item %t[1] : tuple<tensor<3xf32>, tensor<3xf32>>
    %m = relax.multiply %a, %b : tensor<3xf32>, tensor<3xf32> -> tensor<3xf32>
    %s = relax.sum %m : tensor<3xf32> -> tensor<f32>
    relax.output %s : tensor<f32>
  }
  return %r : tensor<f32>
}

// A nested-tuple parameter and a nested-tuple result; the target is field 1
// (a scalar), field 0 is a tuple that is returned but not differentiated.
// With a = t[0], b = t[1][0]: target = sum(a * 2 * y), so dt = (2 y, (0, 0))
// and dy = 2 a (= m, the kept product). exp(b) only feeds field 0: no rule.
// The constant 2 is read through a tuple built in the body, which folds away.
// NESTED-LABEL: func.func @nested_adjoint(
// NESTED-SAME:    %[[T:[^:]+]]: tuple<tensor<3xf32>, tuple<tensor<2xf32>, tensor<f32>>>, %[[Y:[^:]+]]: tensor<3xf32>)
// NESTED-SAME:    -> tuple<tuple<tuple<tensor<3xf32>, tensor<2xf32>>, tensor<f32>>, tuple<tuple<tensor<3xf32>, tuple<tensor<2xf32>, tensor<f32>>>, tensor<3xf32>>> {
// NESTED:         [[C:%.+]] = arith.constant dense<2.000000e+00> : tensor<3xf32>
// NESTED:         [[A:%[0-9]+]] = relax.tuple_get_item %[[T]][0]
// NESTED:         [[M:%[0-9]+]] = relax.multiply [[A]], [[C]] :
// NESTED:         [[RES:%[0-9]+]] = relax.tuple(%{{.+}}, %{{.+}} : tuple<tensor<3xf32>, tensor<2xf32>>, tensor<f32>)
// NESTED-NOT:     relax.exp
// NESTED-NOT:     relax.subtract
// NESTED:         [[G:%[0-9]+]] = relax.broadcast_to
// NESTED-DAG:     [[GM:%[0-9]+]] = relax.multiply [[G]], %[[Y]] :
// NESTED-DAG:     [[DY:%[0-9]+]] = relax.multiply [[G]], [[M]] :
// NESTED-DAG:     [[DA:%[0-9]+]] = relax.multiply [[GM]], [[C]] :
// NESTED-DAG:     [[Z2:%[0-9]+]] = relax.zeros : tensor<2xf32>
// NESTED-DAG:     [[Z0:%[0-9]+]] = relax.zeros : tensor<f32>
// NESTED:         [[DIN:%[0-9]+]] = relax.tuple([[Z2]], [[Z0]] : tensor<2xf32>, tensor<f32>)
// NESTED-NEXT:    [[DT:%[0-9]+]] = relax.tuple([[DA]], [[DIN]] : tensor<3xf32>, tuple<tensor<2xf32>, tensor<f32>>)
// NESTED-NEXT:    [[GT:%[0-9]+]] = relax.tuple([[DT]], [[DY]] : tuple<tensor<3xf32>, tuple<tensor<2xf32>, tensor<f32>>>, tensor<3xf32>)
// NESTED-NEXT:    relax.tuple([[RES]], [[GT]] :
// NESTED-NOT:     relax.exp
// NESTED:         return
//
// target-index=0 points at the tuple field, which cannot be the target:
// NESTED0: tuples.mlir:[[# @LINE + 1]]:1: error: target-index 0 points at a tuple 'tuple<tensor<3xf32>, tensor<2xf32>>'; the target must be a 0-d float tensor
func.func @nested(%t: tuple<tensor<3xf32>, tuple<tensor<2xf32>, tensor<f32>>>, %y: tensor<3xf32>) -> tuple<tuple<tensor<3xf32>, tensor<2xf32>>, tensor<f32>>
    attributes {relax.target_index = 1 : i64} {
  %c = arith.constant dense<2.0> : tensor<3xf32>
  %r = relax.dataflow -> (tuple<tuple<tensor<3xf32>, tensor<2xf32>>, tensor<f32>>) {
    %a = relax.tuple_get_item %t[0] : tuple<tensor<3xf32>, tuple<tensor<2xf32>, tensor<f32>>>
    %in = relax.tuple_get_item %t[1] : tuple<tensor<3xf32>, tuple<tensor<2xf32>, tensor<f32>>>
    %b = relax.tuple_get_item %in[0] : tuple<tensor<2xf32>, tensor<f32>>
    %e = relax.exp %b : tensor<2xf32>
    %ct = relax.tuple(%c, %a : tensor<3xf32>, tensor<3xf32>)
    %c2 = relax.tuple_get_item %ct[0] : tuple<tensor<3xf32>, tensor<3xf32>>
    %a2 = relax.tuple_get_item %ct[1] : tuple<tensor<3xf32>, tensor<3xf32>>
    %m = relax.multiply %a2, %c2 : tensor<3xf32>, tensor<3xf32> -> tensor<3xf32>
    %m2 = relax.multiply %m, %y : tensor<3xf32>, tensor<3xf32> -> tensor<3xf32>
    %s = relax.sum %m2 : tensor<3xf32> -> tensor<f32>
    %inner = relax.tuple(%m, %e : tensor<3xf32>, tensor<2xf32>)
    %outer = relax.tuple(%inner, %s : tuple<tensor<3xf32>, tensor<2xf32>>, tensor<f32>)
    relax.output %outer : tuple<tuple<tensor<3xf32>, tensor<2xf32>>, tensor<f32>>
  }
  return %r : tuple<tuple<tensor<3xf32>, tensor<2xf32>>, tensor<f32>>
}

// get-item of get-item: loss = sum(exp(t[1][0])) * t[1][1]. The gradient
// reaches both leaves of t[1]: (c * exp(a), sum(exp(a))); t[0] gets zeros.
// GETGET-LABEL: func.func @getget_adjoint(
// GETGET-SAME:    %[[T:[^:]+]]: tuple<tensor<2xf32>, tuple<tensor<3xf32>, tensor<f32>>>)
// GETGET:         [[IN:%[0-9]+]] = relax.tuple_get_item %[[T]][1]
// GETGET-NEXT:    [[A:%[0-9]+]] = relax.tuple_get_item [[IN]][0]
// GETGET-NEXT:    [[C:%[0-9]+]] = relax.tuple_get_item [[IN]][1]
// GETGET-NEXT:    [[E:%[0-9]+]] = relax.exp [[A]]
// GETGET-NEXT:    [[S:%[0-9]+]] = relax.sum [[E]]
// GETGET-NEXT:    relax.multiply [[S]], [[C]]
// GETGET:         [[RC:%[0-9]+]] = relax.reshape [[C]] : tensor<f32> -> tensor<1xf32>
// GETGET-NEXT:    [[GC:%[0-9]+]] = relax.broadcast_to [[RC]] : tensor<1xf32> -> tensor<3xf32>
// GETGET-NEXT:    [[DA:%[0-9]+]] = relax.multiply [[GC]], [[E]]
// GETGET-NEXT:    [[DIN:%[0-9]+]] = relax.tuple([[DA]], [[S]] : tensor<3xf32>, tensor<f32>)
// GETGET-NEXT:    [[Z:%[0-9]+]] = relax.zeros : tensor<2xf32>
// GETGET-NEXT:    [[DT:%[0-9]+]] = relax.tuple([[Z]], [[DIN]] : tensor<2xf32>, tuple<tensor<3xf32>, tensor<f32>>)
// GETGET-NEXT:    relax.tuple([[DT]] : tuple<tensor<2xf32>, tuple<tensor<3xf32>, tensor<f32>>>)
func.func @getget(%t: tuple<tensor<2xf32>, tuple<tensor<3xf32>, tensor<f32>>>) -> tensor<f32> {
  %r = relax.dataflow -> (tensor<f32>) {
    %in = relax.tuple_get_item %t[1] : tuple<tensor<2xf32>, tuple<tensor<3xf32>, tensor<f32>>>
    %a = relax.tuple_get_item %in[0] : tuple<tensor<3xf32>, tensor<f32>>
    %c = relax.tuple_get_item %in[1] : tuple<tensor<3xf32>, tensor<f32>>
    %e = relax.exp %a : tensor<3xf32>
    %s = relax.sum %e : tensor<3xf32> -> tensor<f32>
    %l = relax.multiply %s, %c : tensor<f32>, tensor<f32> -> tensor<f32>
    relax.output %l : tensor<f32>
  }
  return %r : tensor<f32>
}

// Tuples built in the body, one holding a constant, read back by get-items:
// they fold away; loss = sum(x * 3), so dx = 3 and y (in the tuple but never
// read) gets zeros. No tuple_get_item and no inner tuple is left.
// BUILT-LABEL: func.func @built_adjoint(
// BUILT-SAME:    %[[X:[^:]+]]: tensor<3xf32>, %[[Y:[^:]+]]: tensor<3xf32>)
// BUILT-NOT:     relax.tuple_get_item
// BUILT:         [[C:%.+]] = arith.constant dense<3.000000e+00> : tensor<3xf32>
// BUILT-NEXT:    [[M:%[0-9]+]] = relax.multiply %[[X]], [[C]] :
// BUILT-NOT:     relax.tuple_get_item
// BUILT:         [[G:%[0-9]+]] = relax.broadcast_to
// BUILT-NEXT:    [[DX:%[0-9]+]] = relax.multiply [[G]], [[C]] :
// BUILT-NEXT:    [[DY:%[0-9]+]] = relax.zeros : tensor<3xf32>
// BUILT-NEXT:    relax.tuple([[DX]], [[DY]] : tensor<3xf32>, tensor<3xf32>)
// BUILT-NOT:     relax.tuple_get_item
// BUILT:         return
func.func @built(%x: tensor<3xf32>, %y: tensor<3xf32>) -> tensor<f32> {
  %c = arith.constant dense<3.0> : tensor<3xf32>
  %r = relax.dataflow -> (tensor<f32>) {
    %t = relax.tuple(%x, %c : tensor<3xf32>, tensor<3xf32>)
    %u = relax.tuple(%t, %y : tuple<tensor<3xf32>, tensor<3xf32>>, tensor<3xf32>)
    %in = relax.tuple_get_item %u[0] : tuple<tuple<tensor<3xf32>, tensor<3xf32>>, tensor<3xf32>>
    %a = relax.tuple_get_item %in[0] : tuple<tensor<3xf32>, tensor<3xf32>>
    %k = relax.tuple_get_item %in[1] : tuple<tensor<3xf32>, tensor<3xf32>>
    %m = relax.multiply %a, %k : tensor<3xf32>, tensor<3xf32> -> tensor<3xf32>
    %s = relax.sum %m : tensor<3xf32> -> tensor<f32>
    relax.output %s : tensor<f32>
  }
  return %r : tensor<f32>
}

// A result tuple holding a tuple parameter, a constant and the target
// (field 2): the seed is ones for field 2 and nothing else; t is returned as it
// is, and only its field 1 reaches the target: dt = (0, 2 * t1).
// TTARGET-LABEL: func.func @tupletarget_adjoint(
// TTARGET-SAME:    %[[T:[^:]+]]: tuple<tensor<2xf32>, tensor<2xf32>>)
// TTARGET-SAME:    -> tuple<tuple<tuple<tensor<2xf32>, tensor<2xf32>>, tensor<2xf32>, tensor<f32>>, tuple<tuple<tensor<2xf32>, tensor<2xf32>>>> {
// TTARGET:         [[K:%.+]] = arith.constant dense<[1.000000e+00, 2.000000e+00]> : tensor<2xf32>
// TTARGET:         [[B:%[0-9]+]] = relax.tuple_get_item %[[T]][1]
// TTARGET:         [[RES:%[0-9]+]] = relax.tuple(%[[T]], [[K]], %{{.+}} : tuple<tensor<2xf32>, tensor<2xf32>>, tensor<2xf32>, tensor<f32>)
// TTARGET:         [[G:%[0-9]+]] = relax.broadcast_to
// TTARGET-DAG:     [[P1:%[0-9]+]] = relax.multiply [[G]], [[B]] :
// TTARGET-DAG:     [[P2:%[0-9]+]] = relax.multiply [[G]], [[B]] :
// TTARGET:         [[DB:%[0-9]+]] = relax.add [[P1]], [[P2]] :
// TTARGET:         [[Z:%[0-9]+]] = relax.zeros : tensor<2xf32>
// TTARGET-NEXT:    [[DT:%[0-9]+]] = relax.tuple([[Z]], [[DB]] : tensor<2xf32>, tensor<2xf32>)
// TTARGET-NEXT:    [[GT:%[0-9]+]] = relax.tuple([[DT]] : tuple<tensor<2xf32>, tensor<2xf32>>)
// TTARGET-NEXT:    relax.tuple([[RES]], [[GT]] :
//
// field 1 is a tensor<2xf32>, not a scalar:
// TTARGET1: tuples.mlir:[[# @LINE + 1]]:1: error: the target must be a 0-d float tensor (a scalar loss), got 'tensor<2xf32>'
func.func @tupletarget(%t: tuple<tensor<2xf32>, tensor<2xf32>>) -> tuple<tuple<tensor<2xf32>, tensor<2xf32>>, tensor<2xf32>, tensor<f32>>
    attributes {relax.target_index = 2 : i64} {
  %k = arith.constant dense<[1.0, 2.0]> : tensor<2xf32>
  %r = relax.dataflow -> (tensor<f32>) {
    %b = relax.tuple_get_item %t[1] : tuple<tensor<2xf32>, tensor<2xf32>>
    %sq = relax.multiply %b, %b : tensor<2xf32>, tensor<2xf32> -> tensor<2xf32>
    %s = relax.sum %sq : tensor<2xf32> -> tensor<f32>
    relax.output %s : tensor<f32>
  }
  %res = relax.tuple(%t, %k, %r : tuple<tensor<2xf32>, tensor<2xf32>>, tensor<2xf32>, tensor<f32>)
  return %res : tuple<tuple<tensor<2xf32>, tensor<2xf32>>, tensor<2xf32>, tensor<f32>>
}
