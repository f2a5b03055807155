// A start/end pair nested inside another must not cut the enclosing segment
// short: the bindings between the inner end and the outer end are computed
// from the outer start value and come before the outer end, so they belong to
// the outer segment and are recomputed with it; their forward values are not
// read by the backward sweep. (The inner start already joins the outer
// segment, see checkpoint.mlir @nested.)
//
// RUN: relax-opt %s --gradient="func=tail" | FileCheck %s

// loss = sum(tanh(sigmoid(exp(tanh(x))))), with the outer segment around all
// four ops and an inner one around exp.
// CHECK-LABEL: func.func @tail_adjoint(
// CHECK-SAME:    %[[X:[^:]+]]: tensor<3xf32>)
// CHECK:         [[T:%[0-9]+]] = relax.tanh %[[X]] : tensor<3xf32>
// CHECK-NEXT:    [[E:%[0-9]+]] = relax.exp [[T]] : tensor<3xf32>
// CHECK-NEXT:    [[S:%[0-9]+]] = relax.sigmoid [[E]] : tensor<3xf32>
// CHECK-NEXT:    [[U:%[0-9]+]] = relax.tanh [[S]] : tensor<3xf32>
// CHECK-NEXT:    relax.sum [[U]]
// CHECK:         relax.ones
// CHECK-NOT:     {{ }}[[S]]{{[^0-9]}}
// CHECK-NOT:     {{ }}[[U]]{{[^0-9]}}
// CHECK-DAG:     [[RT:%[0-9]+]] = relax.tanh %[[X]] {relax.recomputed} : tensor<3xf32>
// CHECK-DAG:     [[RE:%[0-9]+]] = relax.exp [[RT]] {relax.recomputed} : tensor<3xf32>
// CHECK-DAG:     [[RS:%[0-9]+]] = relax.sigmoid [[RE]] {relax.recomputed} : tensor<3xf32>
// CHECK-DAG:     [[RU:%[0-9]+]] = relax.tanh [[RS]] {relax.recomputed} : tensor<3xf32>
// CHECK-NOT:     {{ }}[[S]]{{[^0-9]}}
// CHECK-NOT:     {{ }}[[U]]{{[^0-9]}}
// CHECK:         return
func.func @tail(%x: tensor<3xf32>) -> tensor<f32> {
  %r = relax.dataflow -> (tensor<f32>) {
    %s = relax.start_checkpoint %x : tensor<3xf32>
    %a = relax.tanh %s : tensor<3xf32>
    %t = relax.start_checkpoint %a : tensor<3xf32>
    %b = relax.exp %t : tensor<3xf32>
    %u = relax.end_checkpoint %b : tensor<3xf32>
    %c = relax.sigmoid %u : tensor<3xf32>
    %d = relax.tanh %c : tensor<3xf32>
    %v = relax.end_checkpoint %d : tensor<3xf32>
    %l = relax.sum %v : tensor<3xf32> -> tensor<f32>
    relax.output %l : tensor<f32>
  }
  return %r : tensor<f32>
}
