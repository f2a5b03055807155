// Checkpointed segments (relax.start_checkpoint / relax.end_checkpoint): the
// markers disappear from the adjoint, each segment is recomputed (clones carry
// {relax.recomputed}) at the point where the backward sweep first needs one of
// its rules, and the recomputation reads only kept values: the segment's input
// and the parameters. One run differentiates every function of this file
// (@keptonly carries its relax.require_grads); the *NM prefixes check that no marker is left in the adjoint (from its label to its
// return). Errors are in checkpoint-errors.mlir, and at the end of this file.
//
// RUN: relax-opt %s --gradient="func={seq, nested, tree, twostarts, unneeded, keptonly}" > %t
// RUN: FileCheck %s --check-prefix=SEQ < %t
// RUN: FileCheck %s --check-prefix=SEQFWD < %t
// RUN: FileCheck %s --check-prefix=SEQNM < %t
// RUN: FileCheck %s --check-prefix=NEST < %t
// RUN: FileCheck %s --check-prefix=NESTNM < %t
// RUN: FileCheck %s --check-prefix=TREE < %t
// RUN: FileCheck %s --check-prefix=TREENM < %t
// RUN: FileCheck %s --check-prefix=TWO < %t
// RUN: FileCheck %s --check-prefix=TWONM < %t
// RUN: FileCheck %s --check-prefix=UNNEEDED < %t
// RUN: FileCheck %s --check-prefix=KEPT < %t
// The options given explicitly build the same adjoint as the defaults.
// RUN: relax-opt %s --gradient="func=unneeded target-index=0 require-grads=1" | FileCheck %s --check-prefix=UNNEEDED
// RUN: not relax-opt %s --gradient="func=norule" --mlir-print-ir-after-failure 2>&1 | FileCheck %s --check-prefix=NORULE

// ---------------------------------------------------------------------------
// Three sequential segments, s0 -> e0 -> s1 -> e1 -> s2 -> e2, each
// tanh(h * w). The forward is computed once as usual (A0 H0 A1 H1 A2 H2); the
// backward first runs the rule of sum, then needs tanh of segment 2, so segment
// 2 is recomputed from its input H1 (kept) and w; then segment 1 from H0; then
// segment 0 from x. Nothing is recomputed before the seed, and no forward
// intermediate of a segment (A0, A1, A2, H2) is read by the backward.
// SEQ-LABEL: func.func @seq(
// SEQ:         relax.start_checkpoint
// SEQ:         relax.end_checkpoint
// SEQ-LABEL: func.func @seq_adjoint(
// SEQ-SAME:    %[[X:[^:]+]]: tensor<4xf32>, %[[W:[^:]+]]: tensor<4xf32>)
// SEQ-NOT:     relax.recomputed
// SEQ:         [[A0:%[0-9]+]] = relax.multiply %[[X]], %[[W]] : tensor<4xf32>
// SEQ-NEXT:    [[H0:%[0-9]+]] = relax.tanh [[A0]] : tensor<4xf32>
// SEQ-NEXT:    [[A1:%[0-9]+]] = relax.multiply [[H0]], %[[W]] : tensor<4xf32>
// SEQ-NEXT:    [[H1:%[0-9]+]] = relax.tanh [[A1]] : tensor<4xf32>
// SEQ-NEXT:    [[A2:%[0-9]+]] = relax.multiply [[H1]], %[[W]] : tensor<4xf32>
// SEQ-NEXT:    [[H2:%[0-9]+]] = relax.tanh [[A2]] : tensor<4xf32>
// SEQ-NEXT:    [[L:%[0-9]+]] = relax.sum [[H2]] : tensor<4xf32> -> tensor<f32>
// SEQ-NOT:     relax.recomputed
// SEQ:         relax.ones : tensor<f32>
// SEQ-NOT:     relax.recomputed
// SEQ:         [[G:%[0-9]+]] = relax.broadcast_to %{{.+}} : tensor<1xf32> -> tensor<4xf32>
// Segment 2, recomputed from H1 and w:
// SEQ-NEXT:    [[RA2:%[0-9]+]] = relax.multiply [[H1]], %[[W]] {relax.recomputed} :
// SEQ-NEXT:    [[RH2:%[0-9]+]] = relax.tanh [[RA2]] {relax.recomputed} :
// SEQ-NOT:     relax.recomputed
// SEQ:         relax.multiply [[RH2]], [[RH2]] :
// SEQ-NOT:     relax.recomputed
// Segment 1, recomputed from H0 and w, after the rules of segment 2:
// SEQ:         [[RA1:%[0-9]+]] = relax.multiply [[H0]], %[[W]] {relax.recomputed} :
// SEQ-NEXT:    [[RH1:%[0-9]+]] = relax.tanh [[RA1]] {relax.recomputed} :
// SEQ-NOT:     relax.recomputed
// SEQ:         relax.multiply [[RH1]], [[RH1]] :
// SEQ-NOT:     relax.recomputed
// Segment 0, recomputed from x and w, last:
// SEQ:         [[RA0:%[0-9]+]] = relax.multiply %[[X]], %[[W]] {relax.recomputed} :
// SEQ-NEXT:    [[RH0:%[0-9]+]] = relax.tanh [[RA0]] {relax.recomputed} :
// SEQ-NOT:     relax.recomputed
// SEQ:         relax.multiply [[RH0]], [[RH0]] :
// SEQ-NOT:     relax.recomputed
// SEQ:         relax.tuple([[L]], %{{.+}} : tensor<f32>, tuple<tensor<4xf32>, tensor<4xf32>>)
// SEQ-NEXT:    relax.output
//
// The forward intermediates inside segments are not read after the forward
// sweep: only the segment inputs H0, H1 (and x, w) are.
// SEQFWD-LABEL: func.func @seq_adjoint(
// SEQFWD:         [[FA0:%[0-9]+]] = relax.multiply %{{[^,]+}}, %{{[^ ]+}} : tensor<4xf32>
// SEQFWD-NEXT:    [[FH0:%[0-9]+]] = relax.tanh [[FA0]]
// SEQFWD-NEXT:    [[FA1:%[0-9]+]] = relax.multiply [[FH0]],
// SEQFWD-NEXT:    [[FH1:%[0-9]+]] = relax.tanh [[FA1]]
// SEQFWD-NEXT:    [[FA2:%[0-9]+]] = relax.multiply [[FH1]],
// SEQFWD-NEXT:    [[FH2:%[0-9]+]] = relax.tanh [[FA2]]
// SEQFWD-NEXT:    relax.sum [[FH2]]
// SEQFWD-NOT:     {{ }}[[FA0]]{{[^0-9]}}
// SEQFWD-NOT:     {{ }}[[FA1]]{{[^0-9]}}
// SEQFWD-NOT:     {{ }}[[FA2]]{{[^0-9]}}
// SEQFWD-NOT:     {{ }}[[FH2]]{{[^0-9]}}
// SEQFWD:         return
//
// SEQNM-LABEL: func.func @seq_adjoint(
// SEQNM-NOT:     checkpoint
// SEQNM:         return
func.func @seq(%x: tensor<4xf32>, %w: tensor<4xf32>) -> tensor<f32> {
  %r = relax.dataflow -> (tensor<f32>) {
    %s0 = relax.start_checkpoint %x : tensor<4xf32>
    %a0 = relax.multiply %s0, %w : tensor<4xf32>, tensor<4xf32> -> tensor<4xf32>
    %h0 = relax.tanh %a0 : tensor<4xf32>
    %e0 = relax.end_checkpoint %h0 : tensor<4xf32>
    %s1 = relax.start_checkpoint %e0 : tensor<4xf32>
    %a1 = relax.multiply %s1, %w : tensor<4xf32>, tensor<4xf32> -> tensor<4xf32>
    %h1 = relax.tanh %a1 : tensor<4xf32>
    %e1 = relax.end_checkpoint %h1 : tensor<4xf32>
    %s2 = relax.start_checkpoint %e1 : tensor<4xf32>
    %a2 = relax.multiply %s2, %w : tensor<4xf32>, tensor<4xf32> -> tensor<4xf32>
    %h2 = relax.tanh %a2 : tensor<4xf32>
    %e2 = relax.end_checkpoint %h2 : tensor<4xf32>
    %l = relax.sum %e2 : tensor<4xf32> -> tensor<f32>
    relax.output %l : tensor<f32>
  }
  return %r : tensor<f32>
}

// ---------------------------------------------------------------------------
// A start/end pair inside another: the inner start's operand is inside the
// outer segment, so the two form one segment, recomputed from x alone (the
// inner start value is not kept: exp reads the recomputed tanh). The tanh and
// exp of the adjoint's rules read the recomputed copies, never the forward
// ones. (Whether the binding between the inner and the outer end is recomputed
// is checked in checkpoint-nested.mlir.)
// NEST-LABEL: func.func @nested_adjoint(
// NEST-SAME:    %[[X:[^:]+]]: tensor<3xf32>)
// NEST-NOT:     relax.recomputed
// NEST:         [[T:%[0-9]+]] = relax.tanh %[[X]] : tensor<3xf32>
// NEST-NEXT:    [[E:%[0-9]+]] = relax.exp [[T]] : tensor<3xf32>
// NEST-NOT:     relax.recomputed
// NEST:         relax.ones
// NEST-NOT:     relax.recomputed
// NEST:         [[RT:%[0-9]+]] = relax.tanh %[[X]] {relax.recomputed} : tensor<3xf32>
// NEST-NEXT:    [[RE:%[0-9]+]] = relax.exp [[RT]] {relax.recomputed} : tensor<3xf32>
// NEST-NOT:     {{ }}[[T]]{{[^0-9]}}
// NEST-NOT:     {{ }}[[E]]{{[^0-9]}}
// NEST:         relax.multiply %{{.+}}, [[RE]] :
// NEST-NOT:     {{ }}[[T]]{{[^0-9]}}
// NEST-NOT:     {{ }}[[E]]{{[^0-9]}}
// NEST:         relax.multiply [[RT]], [[RT]] :
// NEST-NOT:     relax.recomputed
// NEST:         return
//
// NESTNM-LABEL: func.func @nested_adjoint(
// NESTNM-NOT:     checkpoint
// NESTNM:         return
func.func @nested(%x: tensor<3xf32>) -> tensor<f32> {
  %r = relax.dataflow -> (tensor<f32>) {
    %s = relax.start_checkpoint %x : tensor<3xf32>
    %a = relax.tanh %s : tensor<3xf32>
    %t = relax.start_checkpoint %a : tensor<3xf32>
    %b = relax.exp %t : tensor<3xf32>
    %u = relax.end_checkpoint %b : tensor<3xf32>
    %c = relax.sigmoid %u : tensor<3xf32>
    %v = relax.end_checkpoint %c : tensor<3xf32>
    %l = relax.sum %v : tensor<3xf32> -> tensor<f32>
    relax.output %l : tensor<f32>
  }
  return %r : tensor<f32>
}

// ---------------------------------------------------------------------------
// Tree-shaped segments: one start value feeds two branches, each closed by its
// own end marker, so they are two segments sharing the input x. loss =
// sum(exp(tanh(x)) * tanh(sigmoid(x))). The backward reaches the second
// branch (sigmoid, tanh) first, so it is recomputed first, then the first
// branch; both read x only, and their contributions to dx are added.
// TREE-LABEL: func.func @tree_adjoint(
// TREE-SAME:    %[[X:[^:]+]]: tensor<3xf32>)
// TREE-NOT:     relax.recomputed
// TREE:         relax.ones
// TREE-NOT:     relax.recomputed
// TREE:         [[RS:%[0-9]+]] = relax.sigmoid %[[X]] {relax.recomputed} : tensor<3xf32>
// TREE-NEXT:    [[RB:%[0-9]+]] = relax.tanh [[RS]] {relax.recomputed} : tensor<3xf32>
// TREE-NOT:     relax.recomputed
// TREE:         relax.multiply [[RB]], [[RB]] :
// TREE:         relax.subtract %{{.+}}, [[RS]] :
// TREE-NEXT:    relax.multiply [[RS]], %{{.+}} :
// TREE-NEXT:    [[DB:%[0-9]+]] = relax.multiply %{{.+}}, %{{.+}} :
// TREE-NEXT:    [[RT:%[0-9]+]] = relax.tanh %[[X]] {relax.recomputed} : tensor<3xf32>
// TREE-NEXT:    [[RE:%[0-9]+]] = relax.exp [[RT]] {relax.recomputed} : tensor<3xf32>
// TREE-NOT:     relax.recomputed
// TREE:         relax.multiply %{{.+}}, [[RE]] :
// TREE-NEXT:    relax.multiply [[RT]], [[RT]] :
// TREE-NOT:     relax.recomputed
// TREE:         [[DA:%[0-9]+]] = relax.multiply %{{.+}}, %{{.+}} :
// TREE-NEXT:    [[DX:%[0-9]+]] = relax.add [[DB]], [[DA]] : tensor<3xf32>, tensor<3xf32> -> tensor<3xf32>
// TREE-NEXT:    relax.tuple([[DX]] : tensor<3xf32>)
//
// TREENM-LABEL: func.func @tree_adjoint(
// TREENM-NOT:     checkpoint
// TREENM:         return
func.func @tree(%x: tensor<3xf32>) -> tensor<f32> {
  %r = relax.dataflow -> (tensor<f32>) {
    %s = relax.start_checkpoint %x : tensor<3xf32>
    %a = relax.tanh %s : tensor<3xf32>
    %a2 = relax.exp %a : tensor<3xf32>
    %ea = relax.end_checkpoint %a2 : tensor<3xf32>
    %b = relax.sigmoid %s : tensor<3xf32>
    %b2 = relax.tanh %b : tensor<3xf32>
    %eb = relax.end_checkpoint %b2 : tensor<3xf32>
    %m = relax.multiply %ea, %eb : tensor<3xf32>, tensor<3xf32> -> tensor<3xf32>
    %l = relax.sum %m : tensor<3xf32> -> tensor<f32>
    relax.output %l : tensor<f32>
  }
  return %r : tensor<f32>
}

// Two start markers on the same value open two segments with the same input.
// loss = sum(tanh(x * w) + sigmoid(exp(x))). The exp/sigmoid segment (later in
// program order) is recomputed first, then the multiply/tanh one, each from
// the parameters only.
// TWO-LABEL: func.func @twostarts_adjoint(
// TWO-SAME:    %[[X:[^:]+]]: tensor<3xf32>, %[[W:[^:]+]]: tensor<3xf32>)
// TWO-NOT:     relax.recomputed
// TWO:         relax.ones
// TWO-NOT:     relax.recomputed
// TWO:         [[RE:%[0-9]+]] = relax.exp %[[X]] {relax.recomputed} : tensor<3xf32>
// TWO-NEXT:    [[RS:%[0-9]+]] = relax.sigmoid [[RE]] {relax.recomputed} : tensor<3xf32>
// TWO-NOT:     relax.recomputed
// TWO:         [[D1:%[0-9]+]] = relax.multiply %{{.+}}, [[RE]] :
// TWO-NEXT:    [[RM:%[0-9]+]] = relax.multiply %[[X]], %[[W]] {relax.recomputed} :
// TWO-NEXT:    [[RT:%[0-9]+]] = relax.tanh [[RM]] {relax.recomputed} : tensor<3xf32>
// TWO-NOT:     relax.recomputed
// TWO:         relax.multiply [[RT]], [[RT]] :
// TWO:         [[D2:%[0-9]+]] = relax.multiply %{{.+}}, %[[W]] :
// TWO-NEXT:    [[DW:%[0-9]+]] = relax.multiply %{{.+}}, %[[X]] :
// TWO-NEXT:    [[DX:%[0-9]+]] = relax.add [[D1]], [[D2]] :
// TWO-NEXT:    relax.tuple([[DX]], [[DW]] : tensor<3xf32>, tensor<3xf32>)
//
// TWONM-LABEL: func.func @twostarts_adjoint(
// TWONM-NOT:     checkpoint
// TWONM:         return
func.func @twostarts(%x: tensor<3xf32>, %w: tensor<3xf32>) -> tensor<f32> {
  %r = relax.dataflow -> (tensor<f32>) {
    %p = relax.start_checkpoint %x : tensor<3xf32>
    %q = relax.start_checkpoint %x : tensor<3xf32>
    %a = relax.multiply %p, %w : tensor<3xf32>, tensor<3xf32> -> tensor<3xf32>
    %a2 = relax.tanh %a : tensor<3xf32>
    %ea = relax.end_checkpoint %a2 : tensor<3xf32>
    %b = relax.exp %q : tensor<3xf32>
    %b2 = relax.sigmoid %b : tensor<3xf32>
    %eb = relax.end_checkpoint %b2 : tensor<3xf32>
    %m = relax.add %ea, %eb : tensor<3xf32>, tensor<3xf32> -> tensor<3xf32>
    %l = relax.sum %m : tensor<3xf32> -> tensor<f32>
    relax.output %l : tensor<f32>
  }
  return %r : tensor<f32>
}

// ---------------------------------------------------------------------------
// A segment the target does not depend on: it only feeds the second result
// field. Its forward is kept (it is returned), but nothing of it is recomputed
// and no rule of it is built (no tanh rule: no `1 - t*t` subtract); x gets
// zeros. The same holds when x is not required at all.
// UNNEEDED-LABEL: func.func @unneeded_adjoint(
// UNNEEDED-SAME:    %[[X:[^:]+]]: tensor<3xf32>, %[[Y:[^:]+]]: tensor<3xf32>)
// UNNEEDED:         [[T:%[0-9]+]] = relax.tanh %[[X]] : tensor<3xf32>
// UNNEEDED-NEXT:    [[E:%[0-9]+]] = relax.exp [[T]] : tensor<3xf32>
// UNNEEDED-NOT:     relax.recomputed
// UNNEEDED-NOT:     relax.subtract
// UNNEEDED-NOT:     checkpoint
// UNNEEDED:         relax.tuple(%{{.+}}, [[E]] : tensor<f32>, tensor<3xf32>)
// UNNEEDED-NOT:     relax.recomputed
// UNNEEDED-NOT:     relax.subtract
// UNNEEDED-NOT:     checkpoint
// UNNEEDED:         return
func.func @unneeded(%x: tensor<3xf32>, %y: tensor<3xf32>) -> tuple<tensor<f32>, tensor<3xf32>> {
  %r:2 = relax.dataflow -> (tensor<f32>, tensor<3xf32>) {
    %s = relax.start_checkpoint %x : tensor<3xf32>
    %a = relax.tanh %s : tensor<3xf32>
    %b = relax.exp %a : tensor<3xf32>
    %e = relax.end_checkpoint %b : tensor<3xf32>
    %m = relax.multiply %y, %y : tensor<3xf32>, tensor<3xf32> -> tensor<3xf32>
    %l = relax.sum %m : tensor<3xf32> -> tensor<f32>
    relax.output %l, %e : tensor<f32>, tensor<3xf32>
  }
  %t = relax.tuple(%r#0, %r#1 : tensor<f32>, tensor<3xf32>)
  return %t : tuple<tensor<f32>, tensor<3xf32>>
}

// Only y is required: the segment's output is needed (dy = e), but as its kept
// end value; no rule of the segment runs, so nothing is recomputed.
// KEPT-LABEL: func.func @keptonly_adjoint(
// KEPT-SAME:    %[[X:[^:]+]]: tensor<3xf32>, %[[Y:[^:]+]]: tensor<3xf32>) -> tuple<tensor<f32>, tuple<tensor<3xf32>>>
// KEPT:         [[T:%[0-9]+]] = relax.tanh %[[X]] : tensor<3xf32>
// KEPT-NEXT:    [[E:%[0-9]+]] = relax.exp [[T]] : tensor<3xf32>
// KEPT-NOT:     relax.recomputed
// KEPT:         [[G:%[0-9]+]] = relax.broadcast_to
// KEPT-NEXT:    [[DY:%[0-9]+]] = relax.multiply [[G]], [[E]] :
// KEPT-NEXT:    relax.tuple([[DY]] : tensor<3xf32>)
// KEPT-NOT:     relax.recomputed
// KEPT:         return
func.func @keptonly(%x: tensor<3xf32>, %y: tensor<3xf32>) -> tensor<f32>
    attributes {relax.require_grads = array<i64: 1>} {
  %r = relax.dataflow -> (tensor<f32>) {
    %s = relax.start_checkpoint %x : tensor<3xf32>
    %a = relax.tanh %s : tensor<3xf32>
    %b = relax.exp %a : tensor<3xf32>
    %e = relax.end_checkpoint %b : tensor<3xf32>
    %m = relax.multiply %e, %y : tensor<3xf32>, tensor<3xf32> -> tensor<3xf32>
    %l = relax.sum %m : tensor<3xf32> -> tensor<f32>
    relax.output %l : tensor<f32>
  }
  return %r : tensor<f32>
}

// ---------------------------------------------------------------------------
// Failure: ops without a gradient rule inside two segments are both reported,
// at the original bindings (not at recomputed clones), and the failed pass
// leaves the module as it was: no adjoint, no recomputed clone, the markers of
// @norule in place. More failures in checkpoint-errors.mlir.
// NORULE-DAG:  checkpoint.mlir:[[# @LINE + 14]]:10: error: 'arith.mulf' is on the path to the target but has no gradient rule
// NORULE-DAG:  checkpoint.mlir:[[# @LINE + 16]]:10: error: 'arith.addf' is on the path to the target but has no gradient rule
// NORULE:      IR Dump After GradientPass Failed
// NORULE-NOT:  _adjoint
// NORULE-NOT:  relax.recomputed
// NORULE:      func.func @norule(
// NORULE-NEXT:   relax.dataflow
// NORULE-NEXT:   relax.start_checkpoint
// NORULE-NOT:  _adjoint
// NORULE-NOT:  relax.recomputed
func.func @norule(%x: tensor<3xf32>) -> tensor<f32> {
  %r = relax.dataflow -> (tensor<f32>) {
    %s = relax.start_checkpoint %x : tensor<3xf32>
    %a = relax.tanh %s : tensor<3xf32>
    %b = arith.mulf %a, %a : tensor<3xf32>
    %e = relax.end_checkpoint %b : tensor<3xf32>
    %s2 = relax.start_checkpoint %e : tensor<3xf32>
    %c = arith.addf %s2, %s2 : tensor<3xf32>
    %d = relax.exp %c : tensor<3xf32>
    %e2 = relax.end_checkpoint %d : tensor<3xf32>
    %m = relax.add %e, %e2 : tensor<3xf32>, tensor<3xf32> -> tensor<3xf32>
    %l = relax.sum %m : tensor<3xf32> -> tensor<f32>
    relax.output %l : tensor<f32>
  }
  return %r : tensor<f32>
}
