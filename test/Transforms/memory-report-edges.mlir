// relax-memory-report on edge cases (the rule is in gradient/memory-report.mlir):
// a tensor that leaves the dataflow block inside a tuple stays live until its
// last use after the block (it was undercounted: the block's results were
// resolved before the tuple inside was recorded), and totals beyond int64
// saturate instead of wrapping around.
//
// RUN: relax-opt %s --relax-memory-report -o - 2>/dev/null | FileCheck %s
// RUN: relax-opt %s --relax-memory-report -o /dev/null 2>&1 | FileCheck %s --check-prefix=REMARK

// Ops in program order: dataflow(0) exp(1) sum(2) tuple(3) output(4) exp(5)
// tuple(6) return(7). %e (16 bytes) and %s (4) are returned through the tuple,
// so they are live at op 5 together with %u (16): peak 36 (it was 20).
// CHECK-LABEL: func.func @tuple_out(
// CHECK-SAME:    attributes {relax.peak_live_bytes = 36 : i64}
func.func @tuple_out(%x: tensor<4xf32>) -> tuple<tuple<tensor<4xf32>, tensor<f32>>, tensor<4xf32>> {
  %r = relax.dataflow -> (tuple<tensor<4xf32>, tensor<f32>>) {
    %e = relax.exp %x : tensor<4xf32>
    %s = relax.sum %e : tensor<4xf32> -> tensor<f32>
    %t = relax.tuple(%e, %s : tensor<4xf32>, tensor<f32>)
    relax.output %t : tuple<tensor<4xf32>, tensor<f32>>
  }
  %u = relax.exp %x : tensor<4xf32>
  %t2 = relax.tuple(%r, %u : tuple<tensor<4xf32>, tensor<f32>>, tensor<4xf32>)
  return %t2 : tuple<tuple<tensor<4xf32>, tensor<f32>>, tensor<4xf32>>
}

// Two live tensors of (2^61 - 1) * 4 bytes each: the sum does not fit in
// int64, so the peak saturates at INT64_MAX (it wrapped to a negative number).
// CHECK-LABEL: func.func @huge(
// CHECK-SAME:    attributes {relax.peak_live_bytes = 9223372036854775807 : i64}
// REMARK: memory-report-edges.mlir:[[# @LINE + 1]]:1: remark: peak live tensor bytes: at least 9223372036854775807 (saturated: the total does not fit in int64)
func.func @huge(%x: tensor<2305843009213693951xf32>) -> tensor<2305843009213693951xf32> {
  %r = relax.dataflow -> (tensor<2305843009213693951xf32>) {
    %a = relax.exp %x : tensor<2305843009213693951xf32>
    %b = relax.exp %a : tensor<2305843009213693951xf32>
    %c = relax.add %a, %b : tensor<2305843009213693951xf32>, tensor<2305843009213693951xf32> -> tensor<2305843009213693951xf32>
    relax.output %c : tensor<2305843009213693951xf32>
  }
  return %r : tensor<2305843009213693951xf32>
}
