// The jvp pass over the structure of a function: tuples (integer fields get
// zero tangents), several results, wrt (a subset, in its order; tangent names
// follow relax.name), checkpoint markers (kept, and marking the tangents
// too), a body without bindings, inlined calls, and its composition with the
// gradient pass in both orders (forward-over-reverse Hessian-vector products,
// reverse-over-forward).
// RUN: relax-opt %s --jvp="func=tuples,several,no_bindings" | FileCheck %s --check-prefix=STRUCT
// RUN: relax-opt %s --jvp="func=named wrt=2,0" | FileCheck %s --check-prefix=WRT
// RUN: relax-opt %s --jvp="func=marked" | FileCheck %s --check-prefix=MARKED
// RUN: relax-opt %s --jvp="func=caller" | FileCheck %s --check-prefix=CALL
// RUN: relax-opt %s --gradient="func=loss" --jvp="func=loss_adjoint wrt=0" | FileCheck %s --check-prefix=HVP
// RUN: relax-opt %s --jvp="func=loss wrt=0" --gradient="func=loss_jvp target-index=1 require-grads=0" | FileCheck %s --check-prefix=ROF
// RUN: relax-opt %s --jvp="func=marked" --gradient="func=marked_jvp target-index=1 require-grads=0" | FileCheck %s --check-prefix=RECOMPUTE

// A tuple parameter gets a tuple tangent; an integer parameter none (only
// float tensors and tuples of them have tangents); an integer field of the
// output gets a zero tangent.
// STRUCT-LABEL: func.func @tuples_jvp(
// STRUCT-SAME:    %[[T:.+]]: tuple<tensor<3xf32>, tensor<2xf32>>, %[[I:.+]]: tensor<3xi64>, %[[DT:.+]]: tuple<tensor<3xf32>, tensor<2xf32>>)
// STRUCT-SAME:    -> tuple<tuple<tensor<3xf32>, tensor<3xi64>>, tuple<tensor<3xf32>, tensor<3xi64>>>
// STRUCT:         [[X:%.+]] = relax.tuple_get_item %[[T]][0]
// STRUCT-NEXT:    [[DX:%.+]] = relax.tuple_get_item %[[DT]][0]
// STRUCT-NEXT:    [[Y:%.+]] = relax.exp [[X]]
// STRUCT-NEXT:    [[DY:%.+]] = relax.multiply [[DX]], [[Y]]
// STRUCT-NEXT:    [[O:%.+]] = relax.tuple([[Y]], %[[I]] : tensor<3xf32>, tensor<3xi64>)
// STRUCT-NEXT:    [[ZI:%.+]] = relax.zeros : tensor<3xi64>
// STRUCT-NEXT:    [[OT:%.+]] = relax.tuple([[DY]], [[ZI]] : tensor<3xf32>, tensor<3xi64>)
// STRUCT-NEXT:    [[R:%.+]] = relax.tuple([[O]], [[OT]] :
// STRUCT-NEXT:    relax.output [[R]]
func.func @tuples(%t: tuple<tensor<3xf32>, tensor<2xf32>>, %i: tensor<3xi64>) -> tuple<tensor<3xf32>, tensor<3xi64>> {
  %r = relax.dataflow -> (tuple<tensor<3xf32>, tensor<3xi64>>) {
    %x = relax.tuple_get_item %t[0] : tuple<tensor<3xf32>, tensor<2xf32>>
    %y = relax.exp %x : tensor<3xf32>
    %o = relax.tuple(%y, %i : tensor<3xf32>, tensor<3xi64>)
    relax.output %o : tuple<tensor<3xf32>, tensor<3xi64>>
  }
  return %r : tuple<tensor<3xf32>, tensor<3xi64>>
}

// Several results: a tuple of the results and a tuple of their tangents; a
// result that does not depend on the parameter gets zeros.
// STRUCT-LABEL: func.func @several_jvp(
// STRUCT-SAME:    %[[X:.+]]: tensor<3xf32>, %[[C:.+]]: tensor<2xf32>, %[[TX:.+]]: tensor<3xf32>, %[[TC:.+]]: tensor<2xf32>)
// STRUCT-SAME:    -> tuple<tuple<tensor<f32>, tensor<2xf32>>, tuple<tensor<f32>, tensor<2xf32>>>
// STRUCT:         [[S:%.+]] = relax.sum %[[X]]
// STRUCT-NEXT:    [[DS:%.+]] = relax.sum %[[TX]]
// STRUCT:         [[OUT:%.+]] = relax.tuple([[S]], %[[C]] : tensor<f32>, tensor<2xf32>)
// STRUCT-NEXT:    [[TAN:%.+]] = relax.tuple([[DS]], %[[TC]] : tensor<f32>, tensor<2xf32>)
// STRUCT-NEXT:    relax.tuple([[OUT]], [[TAN]] :
func.func @several(%x: tensor<3xf32>, %c: tensor<2xf32>) -> (tensor<f32>, tensor<2xf32>) {
  %r = relax.dataflow -> (tensor<f32>) {
    %s = relax.sum %x : tensor<3xf32> -> tensor<f32>
    relax.output %s : tensor<f32>
  }
  return %r, %c : tensor<f32>, tensor<2xf32>
}

// No bindings: the output is a parameter, its tangent the tangent parameter.
// STRUCT-LABEL: func.func @no_bindings_jvp(
// STRUCT-SAME:    %[[X:.+]]: tensor<3xf32>, %[[TX:.+]]: tensor<3xf32>)
// STRUCT:         relax.tuple(%[[X]], %[[TX]] : tensor<3xf32>, tensor<3xf32>)
func.func @no_bindings(%x: tensor<3xf32>) -> tensor<3xf32> {
  return %x : tensor<3xf32>
}

// wrt=2,0: tangents for parameters 2 and 0, in that order, named after them.
// WRT-LABEL: func.func @named_jvp(
// WRT-SAME:    %[[A:.+]]: tensor<3xf32> {relax.name = "a"}, %[[B:.+]]: tensor<3xf32> {relax.name = "b"}, %[[C:.+]]: tensor<3xf32> {relax.name = "c"},
// WRT-SAME:    %[[TC:.+]]: tensor<3xf32> {relax.name = "c_dot"}, %[[TA:.+]]: tensor<3xf32> {relax.name = "a_dot"})
// WRT:         relax.multiply %[[A]], %[[B]]
// WRT-NEXT:    relax.multiply %[[TA]], %[[B]]
// WRT:         relax.add %{{.+}}, %[[TC]]
func.func @named(%a: tensor<3xf32> {relax.name = "a"}, %b: tensor<3xf32> {relax.name = "b"},
                 %c: tensor<3xf32> {relax.name = "c"}) -> tensor<3xf32> {
  %r = relax.dataflow -> (tensor<3xf32>) {
    %0 = relax.multiply %a, %b : tensor<3xf32>, tensor<3xf32> -> tensor<3xf32>
    %1 = relax.add %0, %c : tensor<3xf32>, tensor<3xf32> -> tensor<3xf32>
    relax.output %1 : tensor<3xf32>
  }
  return %r : tensor<3xf32>
}

// Checkpoint markers stay, and the tangent of a marked value is marked too, so
// that the tangents inside a segment belong to it.
// MARKED-LABEL: func.func @marked_jvp(
// MARKED-SAME:    %[[X:.+]]: tensor<3xf32>, %[[TX:.+]]: tensor<3xf32>)
// MARKED:         [[S:%.+]] = relax.start_checkpoint %[[X]]
// MARKED-NEXT:    [[TS:%.+]] = relax.start_checkpoint %[[TX]]
// MARKED-NEXT:    [[Y:%.+]] = relax.tanh [[S]]
// MARKED:         [[TY:%.+]] = relax.multiply [[TS]], %{{.+}}
// MARKED-NEXT:    relax.end_checkpoint [[Y]]
// MARKED-NEXT:    relax.end_checkpoint [[TY]]
func.func @marked(%x: tensor<3xf32>) -> tensor<f32> {
  %r = relax.dataflow -> (tensor<f32>) {
    %s = relax.start_checkpoint %x : tensor<3xf32>
    %y = relax.tanh %s : tensor<3xf32>
    %e = relax.end_checkpoint %y : tensor<3xf32>
    %l = relax.sum %e : tensor<3xf32> -> tensor<f32>
    relax.output %l : tensor<f32>
  }
  return %r : tensor<f32>
}

// A gradient of the JVP function (target: the tangent) treats the segment,
// tangents included, as a segment: its rules read a recomputed tanh.
// RECOMPUTE-LABEL: func.func @marked_jvp_adjoint(
// RECOMPUTE-NOT:   relax.start_checkpoint
// RECOMPUTE:       [[Y:%.+]] = relax.tanh %{{.+}} {relax.recomputed}
// RECOMPUTE:       relax.multiply [[Y]], [[Y]]

// Calls to functions with a body are inlined first.
// CALL-LABEL: func.func @caller_jvp(
// CALL-SAME:    %[[X:.+]]: tensor<3xf32>, %[[TX:.+]]: tensor<3xf32>)
// CALL-NOT:     call
// CALL:         relax.sin %[[X]]
// CALL-NEXT:    relax.cos %[[X]]
func.func @callee(%x: tensor<3xf32>) -> tensor<3xf32> {
  %r = relax.dataflow -> (tensor<3xf32>) {
    %0 = relax.sin %x : tensor<3xf32>
    relax.output %0 : tensor<3xf32>
  }
  return %r : tensor<3xf32>
}
func.func @caller(%x: tensor<3xf32>) -> tensor<3xf32> {
  %r = relax.dataflow -> (tensor<3xf32>) {
    %0 = func.call @callee(%x) : (tensor<3xf32>) -> tensor<3xf32>
    relax.output %0 : tensor<3xf32>
  }
  return %r : tensor<3xf32>
}

// Forward over reverse: the JVP of the adjoint along v holds (loss, grad) and
// their tangents (v . grad, H v).
// HVP-LABEL: func.func @loss_adjoint_jvp(
// HVP-SAME:    %[[X:.+]]: tensor<3xf32>, %[[W:.+]]: tensor<3xf32>, %[[V:.+]]: tensor<3xf32>)
// HVP-SAME:    -> tuple<tuple<tensor<f32>, tuple<tensor<3xf32>, tensor<3xf32>>>, tuple<tensor<f32>, tuple<tensor<3xf32>, tensor<3xf32>>>>
// HVP:         relax.sin %[[X]]
// HVP:         relax.cos %[[X]]
// Reverse over forward: the gradient of the tangent of the loss.
// ROF-LABEL: func.func @loss_jvp_adjoint(
// ROF-SAME:    %[[X:.+]]: tensor<3xf32>, %[[W:.+]]: tensor<3xf32>, %[[V:.+]]: tensor<3xf32>)
// ROF-SAME:    -> tuple<tuple<tensor<f32>, tensor<f32>>, tuple<tensor<3xf32>>>
func.func @loss(%x: tensor<3xf32>, %w: tensor<3xf32>) -> tensor<f32> {
  %r = relax.dataflow -> (tensor<f32>) {
    %0 = relax.sin %x : tensor<3xf32>
    %1 = relax.multiply %0, %w : tensor<3xf32>, tensor<3xf32> -> tensor<3xf32>
    %2 = relax.sum %1 : tensor<3xf32> -> tensor<f32>
    relax.output %2 : tensor<f32>
  }
  return %r : tensor<f32>
}
