// mode=linearize: @<f>_primal computes the outputs and the residuals (the
// primal values the tangents read), @<f>_linear the linear map alone, from
// the residuals and the tangents, with no primal computation in it.
// RUN: relax-opt %s --jvp="func=f mode=linearize" | FileCheck %s
// RUN: relax-opt %s --jvp="func=several mode=linearize" | FileCheck %s --check-prefix=SEVERAL
// RUN: not relax-opt %s --jvp="func=f mode=other" 2>&1 | FileCheck %s --check-prefix=MODE

// f(x, w) = sum(tanh(x @ w)): the tangent is sum((1 - y^2) (tx @ w + x @ tw)).
// CHECK-LABEL: func.func @f_primal(
// CHECK-SAME:    %[[X:.+]]: tensor<2x3xf32>, %[[W:.+]]: tensor<3x4xf32>)
// CHECK-SAME:    -> tuple<tensor<f32>, tuple<
// CHECK:         [[H:%.+]] = relax.matmul %[[X]], %[[W]]
// CHECK-NEXT:    [[Y:%.+]] = relax.tanh [[H]]
// CHECK-NOT:     relax.matmul
// CHECK:         relax.tuple(
// CHECK-LABEL: func.func @f_linear(
// CHECK-NOT:     relax.tanh
// CHECK:         relax.matmul
// CHECK:         relax.matmul
// CHECK:         relax.sum
// CHECK:         return
// CHECK-NOT:     @f_jvp
func.func @f(%x: tensor<2x3xf32>, %w: tensor<3x4xf32>) -> tensor<f32> {
  %r = relax.dataflow -> (tensor<f32>) {
    %h = relax.matmul %x, %w : tensor<2x3xf32>, tensor<3x4xf32> -> tensor<2x4xf32>
    %y = relax.tanh %h : tensor<2x4xf32>
    %s = relax.sum %y : tensor<2x4xf32> -> tensor<f32>
    relax.output %s : tensor<f32>
  }
  return %r : tensor<f32>
}

// Two results, one not depending on the parameter: a tuple of tangents, the
// second zeros (rebuilt in @several_linear, not kept as a residual).
// SEVERAL-LABEL: func.func @several_primal(
// SEVERAL-SAME:    %[[X:.+]]: tensor<3xf32>, %[[C:.+]]: tensor<2xf32>)
// SEVERAL-LABEL: func.func @several_linear(
// SEVERAL-SAME:    %[[R:.+]]: tensor<3xf32>, %[[TX:.+]]: tensor<3xf32>, %[[TC:.+]]: tensor<2xf32>) -> tuple<tensor<3xf32>, tensor<2xf32>>
// SEVERAL:         [[T:%.+]] = relax.multiply %[[TX]], %[[R]]
// SEVERAL:         relax.tuple([[T]], %[[TC]] :
func.func @several(%x: tensor<3xf32>, %c: tensor<2xf32>) -> (tensor<3xf32>, tensor<2xf32>) {
  %r = relax.dataflow -> (tensor<3xf32>) {
    %e = relax.exp %x : tensor<3xf32>
    relax.output %e : tensor<3xf32>
  }
  return %r, %c : tensor<3xf32>, tensor<2xf32>
}

// MODE: error: jvp: mode must be 'jvp' or 'linearize', got 'other'
