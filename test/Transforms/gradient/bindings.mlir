// Bindings and the gradient pass: aliases (a parameter or a value returned
// unchanged, re-bound through dataflow results and tuples), constants in ops
// and in tuples (no gradient, no rule), a parameter used many times (its
// contributions added), dead code (removed from the adjoint, even an op
// without a gradient rule), and values off the path to the target (not
// differentiated, gone after clean-up). Errors are in bindings-errors.mlir and
// at the end of this file.
// One run differentiates every function that succeeds (options as their
// relax.require_grads / relax.target_index attributes).
//
// RUN: relax-opt %s --gradient="func={paramtarget, rebound, consts, consttarget, many, dead}" > %t
// RUN: FileCheck %s --check-prefix=PARAM < %t
// RUN: FileCheck %s --check-prefix=REBOUND < %t
// RUN: FileCheck %s --check-prefix=CONSTS < %t
// RUN: FileCheck %s --check-prefix=CTARGET < %t
// RUN: FileCheck %s --check-prefix=MANY < %t
// RUN: FileCheck %s --check-prefix=DEAD < %t
// The options given to the run, overriding the function's own:
// RUN: relax-opt %s --gradient="func=paramtarget require-grads=1,0" | FileCheck %s --check-prefix=PARAM10
// RUN: not relax-opt %s --gradient="func=aliasnorule" 2>&1 | FileCheck %s --check-prefix=ALIASNORULE

// The target is the parameter x itself, returned unchanged through the
// dataflow results and a tuple built after the block: dx is the seed (ones),
// y (only in the other field) gets zeros. The forward (sum(y)) is kept for the
// result.
// PARAM-LABEL: func.func @paramtarget_adjoint(
// PARAM-SAME:    %[[X:[^:]+]]: tensor<f32>, %[[Y:[^:]+]]: tensor<3xf32>) -> tuple<tuple<tensor<f32>, tensor<f32>>, tuple<tensor<f32>, tensor<3xf32>>> {
// PARAM:         [[S:%[0-9]+]] = relax.sum %[[Y]]
// PARAM-NEXT:    [[RES:%[0-9]+]] = relax.tuple(%[[X]], [[S]] : tensor<f32>, tensor<f32>)
// PARAM-NEXT:    [[ONE:%[0-9]+]] = relax.ones : tensor<f32>
// PARAM-NEXT:    [[ZY:%[0-9]+]] = relax.zeros : tensor<3xf32>
// PARAM-NEXT:    [[GT:%[0-9]+]] = relax.tuple([[ONE]], [[ZY]] : tensor<f32>, tensor<3xf32>)
// PARAM-NEXT:    relax.tuple([[RES]], [[GT]] :
// PARAM-NEXT:    relax.output
//
// PARAM10-LABEL: func.func @paramtarget_adjoint(
// PARAM10-SAME:    -> tuple<tuple<tensor<f32>, tensor<f32>>, tuple<tensor<3xf32>, tensor<f32>>> {
// PARAM10:         [[ONE:%[0-9]+]] = relax.ones : tensor<f32>
// PARAM10:         [[ZY:%[0-9]+]] = relax.zeros : tensor<3xf32>
// PARAM10-NEXT:    relax.tuple([[ZY]], [[ONE]] : tensor<3xf32>, tensor<f32>)
func.func @paramtarget(%x: tensor<f32>, %y: tensor<3xf32>) -> tuple<tensor<f32>, tensor<f32>> {
  %r:2 = relax.dataflow -> (tensor<f32>, tensor<f32>) {
    %s = relax.sum %y : tensor<3xf32> -> tensor<f32>
    relax.output %x, %s : tensor<f32>, tensor<f32>
  }
  %t = relax.tuple(%r#0, %r#1 : tensor<f32>, tensor<f32>)
  return %t : tuple<tensor<f32>, tensor<f32>>
}

// A value re-bound: sum(exp(x)) leaves the block twice, is packed in a tuple
// and read back (field 1) as the returned scalar. The returned value is that
// same sum, and dx = exp(x) once (no doubled or lost contribution).
// REBOUND-LABEL: func.func @rebound_adjoint(
// REBOUND-SAME:    %[[X:[^:]+]]: tensor<3xf32>) -> tuple<tensor<f32>, tuple<tensor<3xf32>>> {
// REBOUND-NOT:     relax.tuple_get_item
// REBOUND:         [[E:%[0-9]+]] = relax.exp %[[X]]
// REBOUND-NEXT:    [[S:%[0-9]+]] = relax.sum [[E]]
// REBOUND-NOT:     relax.add
// REBOUND:         [[G:%[0-9]+]] = relax.broadcast_to %{{.+}} : tensor<1xf32> -> tensor<3xf32>
// REBOUND-NEXT:    [[DX:%[0-9]+]] = relax.multiply [[G]], [[E]]
// REBOUND-NEXT:    [[GT:%[0-9]+]] = relax.tuple([[DX]] : tensor<3xf32>)
// REBOUND-NEXT:    relax.tuple([[S]], [[GT]] : tensor<f32>, tuple<tensor<3xf32>>)
// REBOUND-NOT:     relax.tuple_get_item
// REBOUND:         return
func.func @rebound(%x: tensor<3xf32>) -> tensor<f32> {
  %r:2 = relax.dataflow -> (tensor<f32>, tensor<f32>) {
    %e = relax.exp %x : tensor<3xf32>
    %s = relax.sum %e : tensor<3xf32> -> tensor<f32>
    relax.output %s, %s : tensor<f32>, tensor<f32>
  }
  %t = relax.tuple(%r#0, %r#1 : tensor<f32>, tensor<f32>)
  %g = relax.tuple_get_item %t[1] : tuple<tensor<f32>, tensor<f32>>
  return %g : tensor<f32>
}

// Constants in ops (a broadcast multiply, a scalar add) and in the result
// tuple: loss = sum(x * c + 0.5), dx = broadcast(1) * c. The constants get no
// gradient (no rule for the added 0.5: no collapse_sum_to) and the returned
// constant is returned as it is.
// CONSTS-LABEL: func.func @consts_adjoint(
// CONSTS-SAME:    %[[X:[^:]+]]: tensor<2x3xf32>) -> tuple<tuple<tensor<f32>, tensor<3xf32>>, tuple<tensor<2x3xf32>>> {
// CONSTS-DAG:     [[C:%.+]] = arith.constant dense<[1.000000e+00, 2.000000e+00, 3.000000e+00]> : tensor<3xf32>
// CONSTS-DAG:     [[H:%.+]] = arith.constant dense<5.000000e-01> : tensor<f32>
// CONSTS:         [[M:%[0-9]+]] = relax.multiply %[[X]], [[C]]
// CONSTS-NEXT:    [[A:%[0-9]+]] = relax.add [[M]], [[H]]
// CONSTS-NEXT:    [[S:%[0-9]+]] = relax.sum [[A]]
// CONSTS-NEXT:    [[RES:%[0-9]+]] = relax.tuple([[S]], [[C]] : tensor<f32>, tensor<3xf32>)
// CONSTS-NOT:     relax.collapse_sum_to
// CONSTS:         [[G:%[0-9]+]] = relax.broadcast_to %{{.+}} : tensor<1x1xf32> -> tensor<2x3xf32>
// CONSTS-NEXT:    [[DX:%[0-9]+]] = relax.multiply [[G]], [[C]] : tensor<2x3xf32>, tensor<3xf32> -> tensor<2x3xf32>
// CONSTS-NEXT:    [[GT:%[0-9]+]] = relax.tuple([[DX]] : tensor<2x3xf32>)
// CONSTS-NEXT:    relax.tuple([[RES]], [[GT]] :
func.func @consts(%x: tensor<2x3xf32>) -> tuple<tensor<f32>, tensor<3xf32>> {
  %c = arith.constant dense<[1.0, 2.0, 3.0]> : tensor<3xf32>
  %r = relax.dataflow -> (tensor<f32>) {
    %h = arith.constant dense<0.5> : tensor<f32>
    %m = relax.multiply %x, %c : tensor<2x3xf32>, tensor<3xf32> -> tensor<2x3xf32>
    %a = relax.add %m, %h : tensor<2x3xf32>, tensor<f32> -> tensor<2x3xf32>
    %s = relax.sum %a : tensor<2x3xf32> -> tensor<f32>
    relax.output %s : tensor<f32>
  }
  %t = relax.tuple(%r, %c : tensor<f32>, tensor<3xf32>)
  return %t : tuple<tensor<f32>, tensor<3xf32>>
}

// The target is a constant: nothing depends on x, which gets zeros; the
// unused exp(x) is dropped.
// CTARGET-LABEL: func.func @consttarget_adjoint(
// CTARGET-SAME:    %{{[^:]+}}: tensor<3xf32>) -> tuple<tensor<f32>, tuple<tensor<3xf32>>> {
// CTARGET-NEXT:    relax.dataflow
// CTARGET-NEXT:    [[C:%.+]] = arith.constant dense<5.000000e+00> : tensor<f32>
// CTARGET-NEXT:    [[Z:%[0-9]+]] = relax.zeros : tensor<3xf32>
// CTARGET-NEXT:    [[GT:%[0-9]+]] = relax.tuple([[Z]] : tensor<3xf32>)
// CTARGET-NEXT:    relax.tuple([[C]], [[GT]] : tensor<f32>, tuple<tensor<3xf32>>)
// CTARGET-NEXT:    relax.output
func.func @consttarget(%x: tensor<3xf32>) -> tensor<f32> {
  %c = arith.constant dense<5.0> : tensor<f32>
  %r = relax.dataflow -> (tensor<f32>) {
    %e = relax.exp %x : tensor<3xf32>
    relax.output %c : tensor<f32>
  }
  return %r : tensor<f32>
}

// x used six times: by exp, tanh, sigmoid, negative, and twice by one
// multiply. dx = exp(x) + (1 - tanh(x)^2) + s (1 - s) - 1 + 2 x: each
// contribution appears once and they are summed by five adds into dx.
// MANY-LABEL: func.func @many_adjoint(
// MANY-SAME:    %[[X:[^:]+]]: tensor<3xf32>)
// MANY:         [[E:%[0-9]+]] = relax.exp %[[X]]
// MANY-NEXT:    [[T:%[0-9]+]] = relax.tanh %[[X]]
// MANY-NEXT:    [[S:%[0-9]+]] = relax.sigmoid %[[X]]
// MANY:         [[G:%[0-9]+]] = relax.broadcast_to %{{.+}} : tensor<1xf32> -> tensor<3xf32>
// MANY-DAG:     [[M1:%[0-9]+]] = relax.multiply [[G]], %[[X]] :
// MANY-DAG:     [[M2:%[0-9]+]] = relax.multiply [[G]], %[[X]] :
// MANY-DAG:     [[N:%[0-9]+]] = relax.negative [[G]] :
// MANY-DAG:     [[SS:%[0-9]+]] = relax.multiply [[S]], %{{.+}} :
// MANY-DAG:     [[CS:%[0-9]+]] = relax.multiply [[G]], [[SS]] :
// MANY-DAG:     [[TT:%[0-9]+]] = relax.multiply [[T]], [[T]] :
// MANY-DAG:     [[CE:%[0-9]+]] = relax.multiply [[G]], [[E]] :
// MANY-DAG:     [[A1:%[0-9]+]] = relax.add [[M1]], [[M2]] :
// MANY-DAG:     [[A2:%[0-9]+]] = relax.add [[A1]], [[N]] :
// MANY-DAG:     [[A3:%[0-9]+]] = relax.add [[A2]], [[CS]] :
// MANY-DAG:     [[A4:%[0-9]+]] = relax.add [[A3]], %{{.+}} :
// MANY-DAG:     [[A5:%[0-9]+]] = relax.add [[A4]], [[CE]] :
// MANY:         relax.tuple([[A5]] : tensor<3xf32>)
func.func @many(%x: tensor<3xf32>) -> tensor<f32> {
  %r = relax.dataflow -> (tensor<f32>) {
    %a = relax.exp %x : tensor<3xf32>
    %b = relax.tanh %x : tensor<3xf32>
    %c = relax.sigmoid %x : tensor<3xf32>
    %d = relax.negative %x : tensor<3xf32>
    %e = relax.multiply %x, %x : tensor<3xf32>, tensor<3xf32> -> tensor<3xf32>
    %ab = relax.add %a, %b : tensor<3xf32>, tensor<3xf32> -> tensor<3xf32>
    %cd = relax.add %c, %d : tensor<3xf32>, tensor<3xf32> -> tensor<3xf32>
    %abcd = relax.add %ab, %cd : tensor<3xf32>, tensor<3xf32> -> tensor<3xf32>
    %all = relax.add %abcd, %e : tensor<3xf32>, tensor<3xf32> -> tensor<3xf32>
    %s = relax.sum %all : tensor<3xf32> -> tensor<f32>
    relax.output %s : tensor<f32>
  }
  return %r : tensor<f32>
}

// Dead code and values off the path, with only x required. exp(x) * y, its
// tuple with a constant and arith.mulf (no gradient rule, but dead) are
// removed; tanh(x) is returned in the other field, so it is kept but not
// differentiated (no `1 - t*t`); dy is not required, so the multiply's rule for
// y (g * x) is not built either: the only backward product is g * y.
// DEAD-LABEL: func.func @dead_adjoint(
// DEAD-SAME:    %[[X:[^:]+]]: tensor<3xf32>, %[[Y:[^:]+]]: tensor<3xf32>) -> tuple<tuple<tensor<f32>, tensor<3xf32>>, tuple<tensor<3xf32>>> {
// DEAD-NOT:     relax.exp
// DEAD-NOT:     arith.mulf
// DEAD-NOT:     arith.constant
// DEAD:         [[T:%[0-9]+]] = relax.tanh %[[X]]
// DEAD-NEXT:    [[M:%[0-9]+]] = relax.multiply %[[X]], %[[Y]]
// DEAD-NEXT:    [[S:%[0-9]+]] = relax.sum [[M]]
// DEAD-NEXT:    [[RES:%[0-9]+]] = relax.tuple([[S]], [[T]] : tensor<f32>, tensor<3xf32>)
// DEAD-NEXT:    relax.ones
// DEAD-NEXT:    relax.reshape
// DEAD-NEXT:    [[G:%[0-9]+]] = relax.broadcast_to
// DEAD-NEXT:    [[DX:%[0-9]+]] = relax.multiply [[G]], %[[Y]] :
// DEAD-NEXT:    [[GT:%[0-9]+]] = relax.tuple([[DX]] : tensor<3xf32>)
// DEAD-NEXT:    relax.tuple([[RES]], [[GT]] :
// DEAD-NEXT:    relax.output
func.func @dead(%x: tensor<3xf32>, %y: tensor<3xf32>) -> tuple<tensor<f32>, tensor<3xf32>>
    attributes {relax.require_grads = array<i64: 0>} {
  %r:2 = relax.dataflow -> (tensor<f32>, tensor<3xf32>) {
    %k = arith.constant dense<7.0> : tensor<3xf32>
    %junk = relax.exp %x : tensor<3xf32>
    %junk2 = relax.multiply %junk, %y : tensor<3xf32>, tensor<3xf32> -> tensor<3xf32>
    %jt = relax.tuple(%junk2, %k : tensor<3xf32>, tensor<3xf32>)
    %nr = arith.mulf %x, %x : tensor<3xf32>
    %aux = relax.tanh %x : tensor<3xf32>
    %m = relax.multiply %x, %y : tensor<3xf32>, tensor<3xf32> -> tensor<3xf32>
    %s = relax.sum %m : tensor<3xf32> -> tensor<f32>
    relax.output %s, %aux : tensor<f32>, tensor<3xf32>
  }
  %t = relax.tuple(%r#0, %r#1 : tensor<f32>, tensor<3xf32>)
  return %t : tuple<tensor<f32>, tensor<3xf32>>
}

// Failure: the target is an alias (through the dataflow results and a tuple)
// of a value computed by an op without a gradient rule: still reported, at
// that op.
// ALIASNORULE: bindings.mlir:[[# @LINE + 4]]:10: error: 'arith.mulf' is on the path to the target but has no gradient rule
// ALIASNORULE-NOT: error
func.func @aliasnorule(%x: tensor<f32>) -> tensor<f32> {
  %r = relax.dataflow -> (tensor<f32>) {
    %m = arith.mulf %x, %x : tensor<f32>
    relax.output %m : tensor<f32>
  }
  %t = relax.tuple(%r, %r : tensor<f32>, tensor<f32>)
  %g = relax.tuple_get_item %t[0] : tuple<tensor<f32>, tensor<f32>>
  return %g : tensor<f32>
}
