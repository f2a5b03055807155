// relax-prepare-entry-points: the results a function lists in
// relax.donated_results (jit's donate_argnums: the caller passes a parameter's
// buffer as their out-parameter) are copied right before the return, after
// every read of the parameters; the attribute is dropped.
// RUN: relax-opt %s --split-input-file --verify-diagnostics --relax-prepare-entry-points | FileCheck %s

// CHECK-LABEL: func.func @step(
// CHECK-SAME:    %[[A:.*]]: tensor<4xf32> {bufferization.writable = false}
// CHECK-NOT:     relax.donated_results
// CHECK:         %[[D:.*]] = arith.mulf %[[A]], %[[A]]
// CHECK:         %[[S:.*]] = arith.addf %[[A]], %[[D]]
// CHECK:         %[[E:.*]] = tensor.empty() : tensor<4xf32>
// CHECK:         %[[C:.*]] = linalg.copy ins(%[[D]] : tensor<4xf32>) outs(%[[E]] : tensor<4xf32>)
// CHECK-NEXT:    return %[[C]], %[[S]]
func.func @step(%a: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) attributes {relax.donated_results = array<i64: 0>} {
  %d = arith.mulf %a, %a : tensor<4xf32>
  %s = arith.addf %a, %d : tensor<4xf32>
  return %d, %s : tensor<4xf32>, tensor<4xf32>
}

// -----

func.func @bad(%a: tensor<4xf32>) -> tensor<4xf32> attributes {relax.donated_results = array<i64: 3>} {
  // expected-error @+1 {{relax.donated_results names result 3 of 1}}
  return %a : tensor<4xf32>
}
