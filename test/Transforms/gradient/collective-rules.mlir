// The derivatives and batching of relax.all_reduce: it is linear, so its
// JVP is an all-reduce of the tangent and its VJP an all-reduce of the
// cotangent (every process's adjoint summed back into each operand); a batch
// is reduced as one tensor.
// RUN: relax-opt %s --gradient="func=main" | FileCheck %s --check-prefix=VJP
// RUN: relax-opt %s --jvp="func=main" | FileCheck %s --check-prefix=JVP
// RUN: relax-opt %s --vmap="func=main batch-size=4 batched=0" | FileCheck %s --check-prefix=VMAP

// VJP-LABEL: func.func @main_adjoint(
// VJP:         %[[S:.*]] = relax.all_reduce %arg0 : tensor<3xf32>
// VJP:         %[[D:.*]] = relax.add
// VJP:         %[[G:.*]] = relax.all_reduce %[[D]] : tensor<3xf32>
// VJP:         relax.tuple(%[[G]] : tensor<3xf32>)
// JVP-LABEL: func.func @main_jvp(
// JVP-SAME:    %[[X:.*]]: tensor<3xf32>, %[[T:.*]]: tensor<3xf32>)
// JVP:         relax.all_reduce %[[X]] : tensor<3xf32>
// JVP:         relax.all_reduce %[[T]] : tensor<3xf32>
// VMAP-LABEL: func.func @main_vmap(
// VMAP-SAME:    %[[X:.*]]: tensor<4x3xf32>)
// VMAP:         relax.all_reduce %[[X]] : tensor<4x3xf32>
func.func @main(%x: tensor<3xf32>) -> tensor<f32> {
  %r = relax.dataflow -> (tensor<f32>) {
    %s = relax.all_reduce %x : tensor<3xf32>
    %q = relax.multiply %s, %s : tensor<3xf32>, tensor<3xf32> -> tensor<3xf32>
    %l = relax.sum %q : tensor<3xf32> -> tensor<f32>
    relax.output %l : tensor<f32>
  }
  return %r : tensor<f32>
}
