// The gradient pass's own rules: accumulation, zeros, parameter selection and
// order, tuple targets, activity, declarations. One run differentiates every
// case (each function carries its own relax.require_grads / relax.target_index);
// the last differentiates an adjoint again.
// RUN: relax-opt %s --gradient="func={accumulate, unused, order, order_first, target, dup, \
// RUN:   intparam, offpath, tupleacc, ident, decl}" | FileCheck %s
// RUN: relax-opt %s --gradient="func=accumulate" --gradient="func=accumulate_adjoint" | FileCheck %s --check-prefix=TWICE

// A parameter used three times (twice by one multiply, once by exp) gets the
// sum of the three contributions; a parameter that is never used gets zeros.
// CHECK-LABEL: func.func @accumulate_adjoint(
// CHECK-SAME:    %[[X:.+]]: tensor<3xf32>, %[[Y:.+]]: tensor<3xf32>) -> tuple<tensor<f32>, tuple<tensor<3xf32>, tensor<3xf32>>> {
// CHECK:         [[SQ:%.+]] = relax.multiply %[[X]], %[[X]] :
// CHECK:         [[E:%.+]] = relax.exp %[[X]] :
// CHECK:         [[G:%.+]] = relax.broadcast_to %{{.+}} : tensor<1xf32> -> tensor<3xf32>
// CHECK-DAG:     [[C1:%.+]] = relax.multiply [[G]], [[E]] : tensor<3xf32>, tensor<3xf32> -> tensor<3xf32>
// CHECK-DAG:     [[C2:%.+]] = relax.multiply [[G]], %[[X]] : tensor<3xf32>, tensor<3xf32> -> tensor<3xf32>
// CHECK-DAG:     [[C3:%.+]] = relax.multiply [[G]], %[[X]] : tensor<3xf32>, tensor<3xf32> -> tensor<3xf32>
// CHECK:         [[S1:%.+]] = relax.add [[C1]], [[C2]] : tensor<3xf32>, tensor<3xf32> -> tensor<3xf32>
// CHECK:         [[S2:%.+]] = relax.add [[S1]], [[C3]] : tensor<3xf32>, tensor<3xf32> -> tensor<3xf32>
// CHECK:         [[ZY:%.+]] = relax.zeros : tensor<3xf32>
// CHECK:         relax.tuple([[S2]], [[ZY]] : tensor<3xf32>, tensor<3xf32>)
func.func @accumulate(%x: tensor<3xf32>, %y: tensor<3xf32>) -> tensor<f32> {
  %r = relax.dataflow -> (tensor<f32>) {
    %0 = relax.multiply %x, %x : tensor<3xf32>, tensor<3xf32> -> tensor<3xf32>
    %1 = relax.exp %x : tensor<3xf32>
    %2 = relax.add %0, %1 : tensor<3xf32>, tensor<3xf32> -> tensor<3xf32>
    %3 = relax.sum %2 : tensor<3xf32> -> tensor<f32>
    relax.output %3 : tensor<f32>
  }
  return %r : tensor<f32>
}

// A parameter that only feeds dead code, and one that is not used at all, both
// get zeros of their type; the dead binding is not kept in the adjoint.
// CHECK-LABEL: func.func @unused_adjoint(
// CHECK-SAME:    %[[X:.+]]: tensor<3xf32>, %[[D:.+]]: tensor<2x2xf32>, %[[U:.+]]: tensor<5xf64>) -> tuple<tensor<f32>, tuple<tensor<3xf32>, tensor<2x2xf32>, tensor<5xf64>>> {
// CHECK-NOT:    relax.exp
// CHECK:        [[DX:%.+]] = relax.broadcast_to %{{.+}} : tensor<1xf32> -> tensor<3xf32>
// CHECK-NOT:    relax.exp
// CHECK-DAG:    [[ZD:%.+]] = relax.zeros : tensor<2x2xf32>
// CHECK-DAG:    [[ZU:%.+]] = relax.zeros : tensor<5xf64>
// CHECK:        relax.tuple([[DX]], [[ZD]], [[ZU]] : tensor<3xf32>, tensor<2x2xf32>, tensor<5xf64>)
// CHECK:        return
func.func @unused(%x: tensor<3xf32>, %d: tensor<2x2xf32>, %u: tensor<5xf64>) -> tensor<f32> {
  %r = relax.dataflow -> (tensor<f32>) {
    %dead = relax.exp %d : tensor<2x2xf32>
    %0 = relax.sum %x : tensor<3xf32> -> tensor<f32>
    relax.output %0 : tensor<f32>
  }
  return %r : tensor<f32>
}

// relax.require_grads = [1, 0] returns the gradients in that order: d/dy first.
// loss = sum(x) * sum(exp(y)): dx = sum(exp(y)), dy = sum(x) * exp(y).
// CHECK-LABEL: func.func @order_adjoint(
// CHECK-SAME:    %[[X:.+]]: tensor<3xf32>, %[[Y:.+]]: tensor<2x2xf32>) -> tuple<tensor<f32>, tuple<tensor<2x2xf32>, tensor<3xf32>>> {
// CHECK:         [[E:%.+]] = relax.exp %[[Y]] : tensor<2x2xf32>
// CHECK:         [[SE:%.+]] = relax.sum [[E]] :
// CHECK:         [[SX:%.+]] = relax.sum %[[X]] :
// CHECK:         [[L:%.+]] = relax.multiply [[SX]], [[SE]] :
// CHECK-NOT:     relax.ones
// CHECK-DAG:     [[RX:%.+]] = relax.reshape [[SE]] : tensor<f32> -> tensor<1xf32>
// CHECK-DAG:     [[DX:%.+]] = relax.broadcast_to [[RX]] : tensor<1xf32> -> tensor<3xf32>
// CHECK-DAG:     [[RE:%.+]] = relax.reshape [[SX]] : tensor<f32> -> tensor<1x1xf32>
// CHECK-DAG:     [[GE:%.+]] = relax.broadcast_to [[RE]] : tensor<1x1xf32> -> tensor<2x2xf32>
// CHECK-DAG:     [[DY:%.+]] = relax.multiply [[GE]], [[E]] : tensor<2x2xf32>, tensor<2x2xf32> -> tensor<2x2xf32>
// CHECK:         [[GT:%.+]] = relax.tuple([[DY]], [[DX]] : tensor<2x2xf32>, tensor<3xf32>)
// CHECK:         relax.tuple([[L]], [[GT]] : tensor<f32>, tuple<tensor<2x2xf32>, tensor<3xf32>>)

func.func @order(%x: tensor<3xf32>, %y: tensor<2x2xf32>) -> tensor<f32>
    attributes {relax.require_grads = array<i64: 1, 0>} {
  %r = relax.dataflow -> (tensor<f32>) {
    %e = relax.exp %y : tensor<2x2xf32>
    %se = relax.sum %e : tensor<2x2xf32> -> tensor<f32>
    %sx = relax.sum %x : tensor<3xf32> -> tensor<f32>
    %l = relax.multiply %sx, %se : tensor<f32>, tensor<f32> -> tensor<f32>
    relax.output %l : tensor<f32>
  }
  return %r : tensor<f32>
}

// With relax.require_grads = [0] only d/dx is returned, and nothing is differentiated
// through exp(y): the only rule ops are those of the multiply's lhs and of sum(x).
// CHECK-LABEL: func.func @order_first_adjoint(
// CHECK-SAME:    %[[X:.+]]: tensor<3xf32>, %[[Y:.+]]: tensor<2x2xf32>) -> tuple<tensor<f32>, tuple<tensor<3xf32>>> {
// CHECK:         [[E:%.+]] = relax.exp %[[Y]] :
// CHECK:         [[SE:%.+]] = relax.sum [[E]] :
// CHECK:         relax.multiply
// CHECK-NEXT:    [[RX:%.+]] = relax.reshape [[SE]] : tensor<f32> -> tensor<1xf32>
// CHECK-NEXT:    [[DX:%.+]] = relax.broadcast_to [[RX]] : tensor<1xf32> -> tensor<3xf32>
// CHECK-NEXT:    [[GT:%.+]] = relax.tuple([[DX]] : tensor<3xf32>)
// CHECK-NOT:     tensor<2x2xf32>
// CHECK:         return
func.func @order_first(%x: tensor<3xf32>, %y: tensor<2x2xf32>) -> tensor<f32>
    attributes {relax.require_grads = array<i64: 0>} {
  %r = relax.dataflow -> (tensor<f32>) {
    %e = relax.exp %y : tensor<2x2xf32>
    %se = relax.sum %e : tensor<2x2xf32> -> tensor<f32>
    %sx = relax.sum %x : tensor<3xf32> -> tensor<f32>
    %l = relax.multiply %sx, %se : tensor<f32>, tensor<f32> -> tensor<f32>
    relax.output %l : tensor<f32>
  }
  return %r : tensor<f32>
}

// A tuple result with relax.target_index = 2: the adjoint returns the whole tuple, and
// only field 2 (sum(exp(y))) is differentiated; tanh(x) and sum(x) are not on
// the path, so x gets zeros and no tanh rule is built.
// CHECK-LABEL: func.func @target_adjoint(
// CHECK-SAME:    %[[X:.+]]: tensor<3xf32>, %[[Y:.+]]: tensor<2xf32>) -> tuple<tuple<tensor<f32>, tensor<3xf32>, tensor<f32>>, tuple<tensor<3xf32>, tensor<2xf32>>> {
// CHECK:         [[T:%.+]] = relax.tanh %[[X]] :
// CHECK:         [[S:%.+]] = relax.sum %[[X]] :
// CHECK:         [[E:%.+]] = relax.exp %[[Y]] :
// CHECK:         [[L:%.+]] = relax.sum [[E]] :
// CHECK:         [[RES:%.+]] = relax.tuple([[S]], [[T]], [[L]] : tensor<f32>, tensor<3xf32>, tensor<f32>)
// CHECK-NOT:     relax.subtract
// CHECK-NOT:     [[T]]{{[^0-9]}}
// CHECK:         [[G:%.+]] = relax.broadcast_to %{{.+}} : tensor<1xf32> -> tensor<2xf32>
// CHECK:         [[DY:%.+]] = relax.multiply [[G]], [[E]] :
// CHECK-NOT:     relax.subtract
// CHECK-NOT:     [[T]]{{[^0-9]}}
// CHECK:         [[ZX:%.+]] = relax.zeros : tensor<3xf32>
// CHECK:         [[GT:%.+]] = relax.tuple([[ZX]], [[DY]] : tensor<3xf32>, tensor<2xf32>)
// CHECK:         relax.tuple([[RES]], [[GT]] : tuple<tensor<f32>, tensor<3xf32>, tensor<f32>>, tuple<tensor<3xf32>, tensor<2xf32>>)
func.func @target(%x: tensor<3xf32>, %y: tensor<2xf32>) -> tuple<tensor<f32>, tensor<3xf32>, tensor<f32>>
    attributes {relax.target_index = 2 : i64} {
  %r:3 = relax.dataflow -> (tensor<f32>, tensor<3xf32>, tensor<f32>) {
    %t = relax.tanh %x : tensor<3xf32>
    %s = relax.sum %x : tensor<3xf32> -> tensor<f32>
    %e = relax.exp %y : tensor<2xf32>
    %l = relax.sum %e : tensor<2xf32> -> tensor<f32>
    relax.output %s, %t, %l : tensor<f32>, tensor<3xf32>, tensor<f32>
  }
  %tt = relax.tuple(%r#0, %r#1, %r#2 : tensor<f32>, tensor<3xf32>, tensor<f32>)
  return %tt : tuple<tensor<f32>, tensor<3xf32>, tensor<f32>>
}

// The same value returned in two tuple fields: only the target field (0) is
// seeded, so d/dx is ones, not twice ones.
// CHECK-LABEL: func.func @dup_adjoint(
// CHECK-SAME:    %[[X:.+]]: tensor<3xf32>) -> tuple<tuple<tensor<f32>, tensor<f32>>, tuple<tensor<3xf32>>> {
// CHECK-NOT:     relax.add
// CHECK:         [[DX:%.+]] = relax.broadcast_to %{{.+}} : tensor<1xf32> -> tensor<3xf32>
// CHECK-NOT:     relax.add
// CHECK:         relax.tuple([[DX]] : tensor<3xf32>)
func.func @dup(%x: tensor<3xf32>) -> tuple<tensor<f32>, tensor<f32>> {
  %r = relax.dataflow -> (tensor<f32>) {
    %0 = relax.sum %x : tensor<3xf32> -> tensor<f32>
    relax.output %0 : tensor<f32>
  }
  %t = relax.tuple(%r, %r : tensor<f32>, tensor<f32>)
  return %t : tuple<tensor<f32>, tensor<f32>>
}

// Without require-grads, integer and i1 parameters get no gradient: the
// gradient tuple holds the float parameters only, in parameter order.
// CHECK-LABEL: func.func @intparam_adjoint(
// CHECK-SAME:    %{{.+}}: tensor<4xi32>, %[[X:.+]]: tensor<4x3xf32>, %[[M:.+]]: tensor<4x3xi1>, %[[B:.+]]: tensor<3xf32>) -> tuple<tensor<f32>, tuple<tensor<4x3xf32>, tensor<3xf32>>> {
// CHECK:         relax.tuple(%{{.+}}, %{{.+}} : tensor<4x3xf32>, tensor<3xf32>)
// CHECK-NOT:     xi32
// CHECK:         return
func.func @intparam(%labels: tensor<4xi32>, %x: tensor<4x3xf32>, %m: tensor<4x3xi1>, %b: tensor<3xf32>) -> tensor<f32> {
  %r = relax.dataflow -> (tensor<f32>) {
    %0 = relax.where %m, %x, %b : tensor<4x3xi1>, tensor<4x3xf32>, tensor<3xf32> -> tensor<4x3xf32>
    %1 = relax.sum %0 : tensor<4x3xf32> -> tensor<f32>
    relax.output %1 : tensor<f32>
  }
  return %r : tensor<f32>
}

// An op without a gradient rule is fine off the path: arith.addf only sees the
// parameter that is not required. The constant defined before the dataflow
// block is moved into the adjoint's block.
// CHECK-LABEL: func.func @offpath_adjoint(
// CHECK-SAME:    %[[X:.+]]: tensor<3xf32>, %[[Y:.+]]: tensor<3xf32>) -> tuple<tensor<f32>, tuple<tensor<3xf32>>> {
// CHECK-NEXT:    relax.dataflow
// CHECK-NEXT:    [[C:%.+]] = arith.constant dense<2.000000e+00> : tensor<3xf32>
// CHECK-NEXT:    [[U:%.+]] = arith.addf %[[Y]], %[[Y]] :
// CHECK-NEXT:    [[P:%.+]] = relax.multiply %[[X]], [[U]] :
// CHECK-NEXT:    [[Q:%.+]] = relax.multiply [[P]], [[C]] :
// CHECK:         [[G:%.+]] = relax.broadcast_to %{{.+}} : tensor<1xf32> -> tensor<3xf32>
// CHECK-NEXT:    [[GP:%.+]] = relax.multiply [[G]], [[C]] :
// CHECK-NEXT:    [[DX:%.+]] = relax.multiply [[GP]], [[U]] :
// CHECK-NEXT:    relax.tuple([[DX]] : tensor<3xf32>)
func.func @offpath(%x: tensor<3xf32>, %y: tensor<3xf32>) -> tensor<f32>
    attributes {relax.require_grads = array<i64: 0>} {
  %c = arith.constant dense<2.0> : tensor<3xf32>
  %r = relax.dataflow -> (tensor<f32>) {
    %u = arith.addf %y, %y : tensor<3xf32>
    %0 = relax.multiply %x, %u : tensor<3xf32>, tensor<3xf32> -> tensor<3xf32>
    %1 = relax.multiply %0, %c : tensor<3xf32>, tensor<3xf32> -> tensor<3xf32>
    %2 = relax.sum %1 : tensor<3xf32> -> tensor<f32>
    relax.output %2 : tensor<f32>
  }
  return %r : tensor<f32>
}

// A tuple parameter read three times (field 0 twice): the tuple adjoints are
// added fieldwise. loss = sum(a * b + a) with (a, b) = t:
// da = g * b + g, db = g * a.
// CHECK-LABEL: func.func @tupleacc_adjoint(
// CHECK-SAME:    %[[T:.+]]: tuple<tensor<3xf32>, tensor<3xf32>>) -> tuple<tensor<f32>, tuple<tuple<tensor<3xf32>, tensor<3xf32>>>> {
// CHECK:         [[A:%.+]] = relax.tuple_get_item %[[T]][0]
// CHECK:         [[B:%.+]] = relax.tuple_get_item %[[T]][1]
// CHECK:         [[G:%.+]] = relax.broadcast_to %{{.+}} : tensor<1xf32> -> tensor<3xf32>
// CHECK-DAG:     [[GB:%.+]] = relax.multiply [[G]], [[B]] :
// CHECK-DAG:     [[DB:%.+]] = relax.multiply [[G]], [[A]] :
// CHECK:         [[DA:%.+]] = relax.add [[G]], [[GB]] :
// CHECK:         [[DT:%.+]] = relax.tuple([[DA]], [[DB]] : tensor<3xf32>, tensor<3xf32>)
// CHECK:         relax.tuple([[DT]] : tuple<tensor<3xf32>, tensor<3xf32>>)
func.func @tupleacc(%t: tuple<tensor<3xf32>, tensor<3xf32>>) -> tensor<f32> {
  %r = relax.dataflow -> (tensor<f32>) {
    %a = relax.tuple_get_item %t[0] : tuple<tensor<3xf32>, tensor<3xf32>>
    %b = relax.tuple_get_item %t[1] : tuple<tensor<3xf32>, tensor<3xf32>>
    %c = relax.tuple_get_item %t[0] : tuple<tensor<3xf32>, tensor<3xf32>>
    %0 = relax.multiply %a, %b : tensor<3xf32>, tensor<3xf32> -> tensor<3xf32>
    %1 = relax.add %0, %c : tensor<3xf32>, tensor<3xf32> -> tensor<3xf32>
    %2 = relax.sum %1 : tensor<3xf32> -> tensor<f32>
    relax.output %2 : tensor<f32>
  }
  return %r : tensor<f32>
}

// The target is the parameter itself: its gradient is the seed.
// CHECK-LABEL: func.func @ident_adjoint(
// CHECK-SAME:    %[[X:.+]]: tensor<f32>) -> tuple<tensor<f32>, tuple<tensor<f32>>> {
// CHECK:         [[ONE:%.+]] = relax.ones : tensor<f32>
// CHECK-NEXT:    [[GT:%.+]] = relax.tuple([[ONE]] : tensor<f32>)
// CHECK-NEXT:    [[RES:%.+]] = relax.tuple(%[[X]], [[GT]] : tensor<f32>, tuple<tensor<f32>>)
// CHECK-NEXT:    relax.output [[RES]] :
func.func @ident(%x: tensor<f32>) -> tensor<f32> {
  %r = relax.dataflow -> (tensor<f32>) {
    relax.output %x : tensor<f32>
  }
  return %r : tensor<f32>
}

// A body-less declaration of the adjoint (so that @caller can call it) is
// replaced by the definition, which keeps the declaration's visibility.
// CHECK-NOT:   func.func private @decl_adjoint(tensor<3xf32>)
// CHECK-LABEL: func.func @caller(
// CHECK:         call @decl_adjoint(
// CHECK-LABEL: func.func @decl(
// CHECK-LABEL: func.func private @decl_adjoint(
// CHECK-SAME:    %[[X:.+]]: tensor<3xf32>) -> tuple<tensor<f32>, tuple<tensor<3xf32>>> {
// CHECK-NEXT:    relax.dataflow
// CHECK-NEXT:    relax.sum %[[X]] :
// CHECK:         relax.ones
// CHECK-NOT:   @decl_adjoint
func.func private @decl_adjoint(tensor<3xf32>) -> tuple<tensor<f32>, tuple<tensor<3xf32>>>

func.func @caller(%x: tensor<3xf32>) -> tuple<tensor<f32>, tuple<tensor<3xf32>>> {
  %0 = call @decl_adjoint(%x) : (tensor<3xf32>) -> tuple<tensor<f32>, tuple<tensor<3xf32>>>
  return %0 : tuple<tensor<f32>, tuple<tensor<3xf32>>>
}

func.func @decl(%x: tensor<3xf32>) -> tensor<f32> {
  %r = relax.dataflow -> (tensor<f32>) {
    %0 = relax.sum %x : tensor<3xf32> -> tensor<f32>
    relax.output %0 : tensor<f32>
  }
  return %r : tensor<f32>
}

// An adjoint is itself differentiable (its rules build relax ops only): the
// adjoint of @accumulate_adjoint returns its tuple and the gradients.
// TWICE-LABEL: func.func @accumulate_adjoint(
// TWICE-LABEL: func.func @accumulate_adjoint_adjoint(
// TWICE-SAME:    tensor<3xf32>, %{{.+}}: tensor<3xf32>) -> tuple<tuple<tensor<f32>, tuple<tensor<3xf32>, tensor<3xf32>>>, tuple<tensor<3xf32>, tensor<3xf32>>> {
