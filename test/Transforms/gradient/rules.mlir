// The gradient pass's own rules: accumulation, zeros, parameter selection and
// order, tuple targets, activity, declarations. Each RUN differentiates one
// function of this file.
// RUN: relax-opt %s --gradient="func=accumulate" | FileCheck %s --check-prefix=ACC
// RUN: relax-opt %s --gradient="func=unused" | FileCheck %s --check-prefix=UNUSED
// RUN: relax-opt %s --gradient="func=order require-grads=1,0" | FileCheck %s --check-prefix=ORDER
// RUN: relax-opt %s --gradient="func=order require-grads=0" | FileCheck %s --check-prefix=SUBSET
// RUN: relax-opt %s --gradient="func=target target-index=2" | FileCheck %s --check-prefix=TARGET
// RUN: relax-opt %s --gradient="func=dup" | FileCheck %s --check-prefix=DUP
// RUN: relax-opt %s --gradient="func=intparam" | FileCheck %s --check-prefix=INT
// RUN: relax-opt %s --gradient="func=offpath require-grads=0" | FileCheck %s --check-prefix=OFFPATH
// RUN: relax-opt %s --gradient="func=tupleacc" | FileCheck %s --check-prefix=TUPLEACC
// RUN: relax-opt %s --gradient="func=ident" | FileCheck %s --check-prefix=IDENT
// RUN: relax-opt %s --gradient="func=decl" | FileCheck %s --check-prefix=DECL
// RUN: relax-opt %s --gradient="func=accumulate" --gradient="func=accumulate_adjoint" | FileCheck %s --check-prefix=TWICE

// A parameter used three times (twice by one multiply, once by exp) gets the
// sum of the three contributions; a parameter that is never used gets zeros.
// ACC-LABEL: func.func @accumulate_adjoint(
// ACC-SAME:    %[[X:.+]]: tensor<3xf32>, %[[Y:.+]]: tensor<3xf32>) -> tuple<tensor<f32>, tuple<tensor<3xf32>, tensor<3xf32>>> {
// ACC:         [[SQ:%.+]] = relax.multiply %[[X]], %[[X]] :
// ACC:         [[E:%.+]] = relax.exp %[[X]] :
// ACC:         [[G:%.+]] = relax.broadcast_to %{{.+}} : tensor<1xf32> -> tensor<3xf32>
// ACC-DAG:     [[C1:%.+]] = relax.multiply [[G]], [[E]] : tensor<3xf32>, tensor<3xf32> -> tensor<3xf32>
// ACC-DAG:     [[C2:%.+]] = relax.multiply [[G]], %[[X]] : tensor<3xf32>, tensor<3xf32> -> tensor<3xf32>
// ACC-DAG:     [[C3:%.+]] = relax.multiply [[G]], %[[X]] : tensor<3xf32>, tensor<3xf32> -> tensor<3xf32>
// ACC:         [[S1:%.+]] = relax.add [[C1]], [[C2]] : tensor<3xf32>, tensor<3xf32> -> tensor<3xf32>
// ACC:         [[S2:%.+]] = relax.add [[S1]], [[C3]] : tensor<3xf32>, tensor<3xf32> -> tensor<3xf32>
// ACC:         [[ZY:%.+]] = relax.zeros : tensor<3xf32>
// ACC:         relax.tuple([[S2]], [[ZY]] : tensor<3xf32>, tensor<3xf32>)
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
// UNUSED-LABEL: func.func @unused_adjoint(
// UNUSED-SAME:    %[[X:.+]]: tensor<3xf32>, %[[D:.+]]: tensor<2x2xf32>, %[[U:.+]]: tensor<5xf64>) -> tuple<tensor<f32>, tuple<tensor<3xf32>, tensor<2x2xf32>, tensor<5xf64>>> {
// UNUSED-NOT:    relax.exp
// UNUSED:        [[DX:%.+]] = relax.broadcast_to %{{.+}} : tensor<1xf32> -> tensor<3xf32>
// UNUSED-NOT:    relax.exp
// UNUSED-DAG:    [[ZD:%.+]] = relax.zeros : tensor<2x2xf32>
// UNUSED-DAG:    [[ZU:%.+]] = relax.zeros : tensor<5xf64>
// UNUSED:        relax.tuple([[DX]], [[ZD]], [[ZU]] : tensor<3xf32>, tensor<2x2xf32>, tensor<5xf64>)
// UNUSED:        return
func.func @unused(%x: tensor<3xf32>, %d: tensor<2x2xf32>, %u: tensor<5xf64>) -> tensor<f32> {
  %r = relax.dataflow -> (tensor<f32>) {
    %dead = relax.exp %d : tensor<2x2xf32>
    %0 = relax.sum %x : tensor<3xf32> -> tensor<f32>
    relax.output %0 : tensor<f32>
  }
  return %r : tensor<f32>
}

// require-grads=1,0 returns the gradients in that order: d/dy first.
// loss = sum(x) * sum(exp(y)): dx = sum(exp(y)), dy = sum(x) * exp(y).
// ORDER-LABEL: func.func @order_adjoint(
// ORDER-SAME:    %[[X:.+]]: tensor<3xf32>, %[[Y:.+]]: tensor<2x2xf32>) -> tuple<tensor<f32>, tuple<tensor<2x2xf32>, tensor<3xf32>>> {
// ORDER:         [[E:%.+]] = relax.exp %[[Y]] : tensor<2x2xf32>
// ORDER:         [[SE:%.+]] = relax.sum [[E]] :
// ORDER:         [[SX:%.+]] = relax.sum %[[X]] :
// ORDER:         [[L:%.+]] = relax.multiply [[SX]], [[SE]] :
// ORDER-NOT:     relax.ones
// ORDER-DAG:     [[RX:%.+]] = relax.reshape [[SE]] : tensor<f32> -> tensor<1xf32>
// ORDER-DAG:     [[DX:%.+]] = relax.broadcast_to [[RX]] : tensor<1xf32> -> tensor<3xf32>
// ORDER-DAG:     [[RE:%.+]] = relax.reshape [[SX]] : tensor<f32> -> tensor<1x1xf32>
// ORDER-DAG:     [[GE:%.+]] = relax.broadcast_to [[RE]] : tensor<1x1xf32> -> tensor<2x2xf32>
// ORDER-DAG:     [[DY:%.+]] = relax.multiply [[GE]], [[E]] : tensor<2x2xf32>, tensor<2x2xf32> -> tensor<2x2xf32>
// ORDER:         [[GT:%.+]] = relax.tuple([[DY]], [[DX]] : tensor<2x2xf32>, tensor<3xf32>)
// ORDER:         relax.tuple([[L]], [[GT]] : tensor<f32>, tuple<tensor<2x2xf32>, tensor<3xf32>>)

// With require-grads=0 only d/dx is returned, and nothing is differentiated
// through exp(y): the only rule ops are those of the multiply's lhs and of sum(x).
// SUBSET-LABEL: func.func @order_adjoint(
// SUBSET-SAME:    %[[X:.+]]: tensor<3xf32>, %[[Y:.+]]: tensor<2x2xf32>) -> tuple<tensor<f32>, tuple<tensor<3xf32>>> {
// SUBSET:         [[E:%.+]] = relax.exp %[[Y]] :
// SUBSET:         [[SE:%.+]] = relax.sum [[E]] :
// SUBSET:         relax.multiply
// SUBSET-NEXT:    [[RX:%.+]] = relax.reshape [[SE]] : tensor<f32> -> tensor<1xf32>
// SUBSET-NEXT:    [[DX:%.+]] = relax.broadcast_to [[RX]] : tensor<1xf32> -> tensor<3xf32>
// SUBSET-NEXT:    [[GT:%.+]] = relax.tuple([[DX]] : tensor<3xf32>)
// SUBSET-NOT:     tensor<2x2xf32>
// SUBSET:         return
func.func @order(%x: tensor<3xf32>, %y: tensor<2x2xf32>) -> tensor<f32> {
  %r = relax.dataflow -> (tensor<f32>) {
    %e = relax.exp %y : tensor<2x2xf32>
    %se = relax.sum %e : tensor<2x2xf32> -> tensor<f32>
    %sx = relax.sum %x : tensor<3xf32> -> tensor<f32>
    %l = relax.multiply %sx, %se : tensor<f32>, tensor<f32> -> tensor<f32>
    relax.output %l : tensor<f32>
  }
  return %r : tensor<f32>
}

// A tuple result with target-index=2: the adjoint returns the whole tuple, and
// only field 2 (sum(exp(y))) is differentiated; tanh(x) and sum(x) are not on
// the path, so x gets zeros and no tanh rule is built.
// TARGET-LABEL: func.func @target_adjoint(
// TARGET-SAME:    %[[X:.+]]: tensor<3xf32>, %[[Y:.+]]: tensor<2xf32>) -> tuple<tuple<tensor<f32>, tensor<3xf32>, tensor<f32>>, tuple<tensor<3xf32>, tensor<2xf32>>> {
// TARGET:         [[T:%.+]] = relax.tanh %[[X]] :
// TARGET:         [[S:%.+]] = relax.sum %[[X]] :
// TARGET:         [[E:%.+]] = relax.exp %[[Y]] :
// TARGET:         [[L:%.+]] = relax.sum [[E]] :
// TARGET:         [[RES:%.+]] = relax.tuple([[S]], [[T]], [[L]] : tensor<f32>, tensor<3xf32>, tensor<f32>)
// TARGET-NOT:     relax.subtract
// TARGET-NOT:     [[T]]{{[^0-9]}}
// TARGET:         [[G:%.+]] = relax.broadcast_to %{{.+}} : tensor<1xf32> -> tensor<2xf32>
// TARGET:         [[DY:%.+]] = relax.multiply [[G]], [[E]] :
// TARGET-NOT:     relax.subtract
// TARGET-NOT:     [[T]]{{[^0-9]}}
// TARGET:         [[ZX:%.+]] = relax.zeros : tensor<3xf32>
// TARGET:         [[GT:%.+]] = relax.tuple([[ZX]], [[DY]] : tensor<3xf32>, tensor<2xf32>)
// TARGET:         relax.tuple([[RES]], [[GT]] : tuple<tensor<f32>, tensor<3xf32>, tensor<f32>>, tuple<tensor<3xf32>, tensor<2xf32>>)
func.func @target(%x: tensor<3xf32>, %y: tensor<2xf32>) -> tuple<tensor<f32>, tensor<3xf32>, tensor<f32>> {
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
// DUP-LABEL: func.func @dup_adjoint(
// DUP-SAME:    %[[X:.+]]: tensor<3xf32>) -> tuple<tuple<tensor<f32>, tensor<f32>>, tuple<tensor<3xf32>>> {
// DUP-NOT:     relax.add
// DUP:         [[DX:%.+]] = relax.broadcast_to %{{.+}} : tensor<1xf32> -> tensor<3xf32>
// DUP-NOT:     relax.add
// DUP:         relax.tuple([[DX]] : tensor<3xf32>)
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
// INT-LABEL: func.func @intparam_adjoint(
// INT-SAME:    %{{.+}}: tensor<4xi32>, %[[X:.+]]: tensor<4x3xf32>, %[[M:.+]]: tensor<4x3xi1>, %[[B:.+]]: tensor<3xf32>) -> tuple<tensor<f32>, tuple<tensor<4x3xf32>, tensor<3xf32>>> {
// INT:         relax.tuple(%{{.+}}, %{{.+}} : tensor<4x3xf32>, tensor<3xf32>)
// INT-NOT:     xi32
// INT:         return
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
// OFFPATH-LABEL: func.func @offpath_adjoint(
// OFFPATH-SAME:    %[[X:.+]]: tensor<3xf32>, %[[Y:.+]]: tensor<3xf32>) -> tuple<tensor<f32>, tuple<tensor<3xf32>>> {
// OFFPATH-NEXT:    relax.dataflow
// OFFPATH-NEXT:    [[C:%.+]] = arith.constant dense<2.000000e+00> : tensor<3xf32>
// OFFPATH-NEXT:    [[U:%.+]] = arith.addf %[[Y]], %[[Y]] :
// OFFPATH-NEXT:    [[P:%.+]] = relax.multiply %[[X]], [[U]] :
// OFFPATH-NEXT:    [[Q:%.+]] = relax.multiply [[P]], [[C]] :
// OFFPATH:         [[G:%.+]] = relax.broadcast_to %{{.+}} : tensor<1xf32> -> tensor<3xf32>
// OFFPATH-NEXT:    [[GP:%.+]] = relax.multiply [[G]], [[C]] :
// OFFPATH-NEXT:    [[DX:%.+]] = relax.multiply [[GP]], [[U]] :
// OFFPATH-NEXT:    relax.tuple([[DX]] : tensor<3xf32>)
func.func @offpath(%x: tensor<3xf32>, %y: tensor<3xf32>) -> tensor<f32> {
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
// TUPLEACC-LABEL: func.func @tupleacc_adjoint(
// TUPLEACC-SAME:    %[[T:.+]]: tuple<tensor<3xf32>, tensor<3xf32>>) -> tuple<tensor<f32>, tuple<tuple<tensor<3xf32>, tensor<3xf32>>>> {
// TUPLEACC:         [[A:%.+]] = relax.tuple_get_item %[[T]][0]
// TUPLEACC:         [[B:%.+]] = relax.tuple_get_item %[[T]][1]
// TUPLEACC:         [[G:%.+]] = relax.broadcast_to %{{.+}} : tensor<1xf32> -> tensor<3xf32>
// TUPLEACC-DAG:     [[GB:%.+]] = relax.multiply [[G]], [[B]] :
// TUPLEACC-DAG:     [[DB:%.+]] = relax.multiply [[G]], [[A]] :
// TUPLEACC:         [[DA:%.+]] = relax.add [[G]], [[GB]] :
// TUPLEACC:         [[DT:%.+]] = relax.tuple([[DA]], [[DB]] : tensor<3xf32>, tensor<3xf32>)
// TUPLEACC:         relax.tuple([[DT]] : tuple<tensor<3xf32>, tensor<3xf32>>)
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
// IDENT-LABEL: func.func @ident_adjoint(
// IDENT-SAME:    %[[X:.+]]: tensor<f32>) -> tuple<tensor<f32>, tuple<tensor<f32>>> {
// IDENT:         [[ONE:%.+]] = relax.ones : tensor<f32>
// IDENT-NEXT:    [[GT:%.+]] = relax.tuple([[ONE]] : tensor<f32>)
// IDENT-NEXT:    [[RES:%.+]] = relax.tuple(%[[X]], [[GT]] : tensor<f32>, tuple<tensor<f32>>)
// IDENT-NEXT:    relax.output [[RES]] :
func.func @ident(%x: tensor<f32>) -> tensor<f32> {
  %r = relax.dataflow -> (tensor<f32>) {
    relax.output %x : tensor<f32>
  }
  return %r : tensor<f32>
}

// A body-less declaration of the adjoint (so that @caller can call it) is
// replaced by the definition, which keeps the declaration's visibility.
// DECL-NOT:   func.func private @decl_adjoint(tensor<3xf32>)
// DECL-LABEL: func.func @caller(
// DECL:         call @decl_adjoint(
// DECL-LABEL: func.func @decl(
// DECL-LABEL: func.func private @decl_adjoint(
// DECL-SAME:    %[[X:.+]]: tensor<3xf32>) -> tuple<tensor<f32>, tuple<tensor<3xf32>>> {
// DECL-NEXT:    relax.dataflow
// DECL-NEXT:    relax.sum %[[X]] :
// DECL:         relax.ones
// DECL-NOT:   @decl_adjoint
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
