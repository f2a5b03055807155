// relax-memory-report: the static peak of live tensor bytes of each function,
// attached as relax.peak_live_bytes (i64) and reported as a remark. A tensor is
// live from the op that defines it to its last use, both included (a value
// read by `return`, through the dataflow results, is live to the end);
// parameters are the caller's and are not counted; relax.tuple,
// relax.tuple_get_item, relax.dataflow results and checkpoint markers alias
// what they hold. Ops are numbered in program order, the dataflow op itself
// included. The expected peaks below are computed by hand from that rule.
//
// RUN: relax-opt %s --relax-memory-report -o - 2>/dev/null | FileCheck %s --check-prefix=ALL
// RUN: relax-opt %s --relax-memory-report -o /dev/null 2>&1 | FileCheck %s --check-prefix=REMARK
// RUN: relax-opt %s --relax-memory-report="func=aliases" -o - 2>/dev/null | FileCheck %s --check-prefix=ONE
// RUN: not relax-opt %s --relax-memory-report="func=nope" -o /dev/null 2>&1 | FileCheck %s --check-prefix=UNKNOWN
// RUN: not relax-opt %s --relax-memory-report="func=decl" -o /dev/null 2>&1 | FileCheck %s --check-prefix=UNKNOWNDECL

// ALL-LABEL: func.func private @decl(
// ALL-NOT:     relax.peak_live_bytes
// ALL-LABEL: func.func @tiny(
// ALL-SAME:    attributes {relax.peak_live_bytes = 48 : i64}
// ALL-LABEL: func.func @aliases(
// ALL-SAME:    attributes {relax.peak_live_bytes = 68 : i64}
// ALL-LABEL: func.func @withconst(
// ALL-SAME:    attributes {relax.peak_live_bytes = 64 : i64}
// ALL-LABEL: func.func @paramonly(
// ALL-SAME:    attributes {relax.peak_live_bytes = 0 : i64}

// REMARK-DAG: memory-report.mlir:[[# @LINE + 21]]:1: remark: peak live tensor bytes: 48
// REMARK-DAG: memory-report.mlir:[[# @LINE + 39]]:1: remark: peak live tensor bytes: 68
// REMARK-DAG: memory-report.mlir:[[# @LINE + 55]]:1: remark: peak live tensor bytes: 64
// REMARK-DAG: memory-report.mlir:[[# @LINE + 65]]:1: remark: peak live tensor bytes: 0

// Only the named function gets the attribute.
// ONE-NOT:     relax.peak_live_bytes = 48
// ONE-LABEL: func.func @aliases(
// ONE-SAME:    attributes {relax.peak_live_bytes = 68 : i64}
// ONE-NOT:     relax.peak_live_bytes

// UNKNOWN: error: relax-memory-report: no function named '@nope'
// A declaration has no body to report on: asking for it is an error too.
// UNKNOWNDECL: error: relax-memory-report: {{.*}}'@decl'

func.func private @decl(tensor<4xf32>) -> tensor<f32>

// 16 bytes per tensor<4xf32>, 4 per tensor<f32>.
//   op 0 dataflow, 1 %a, 2 %b, 3 %c, 4 %d, 5 %s, 6 output, 7 return.
//   %a [1,3], %b [2,3], %c [3,4], %d [4,5], %s [5,7].
//   At op 3: a + b + c = 48; op 4: c + d = 32; op 5: d + s = 20.  Peak 48.
func.func @tiny(%x: tensor<4xf32>) -> tensor<f32> {
  %r = relax.dataflow -> (tensor<f32>) {
    %a = relax.exp %x : tensor<4xf32>
    %b = relax.tanh %a : tensor<4xf32>
    %c = relax.add %a, %b : tensor<4xf32>, tensor<4xf32> -> tensor<4xf32>
    %d = relax.reshape %c : tensor<4xf32> -> tensor<2x2xf32>
    %s = relax.sum %d : tensor<2x2xf32> -> tensor<f32>
    relax.output %s : tensor<f32>
  }
  return %r : tensor<f32>
}

// 32 bytes per tensor<8xf32>. The markers alias x (a parameter: never counted)
// and %a; the tuple aliases %a and %sum, and the returned dataflow result the
// tuple, so %a and %sum live to the return.
//   op 0 dataflow, 1 start, 2 %a, 3 end, 4 %b, 5 %sum, 6 tuple, 7 output,
//   8 return. %a [2,8], %b [4,5], %sum [5,8].
//   At op 4: a + b = 64; op 5: a + b + sum = 68; op 6..8: a + sum = 36.
//   Peak 68.
func.func @aliases(%x: tensor<8xf32>) -> tuple<tensor<8xf32>, tensor<f32>> {
  %r = relax.dataflow -> (tuple<tensor<8xf32>, tensor<f32>>) {
    %s = relax.start_checkpoint %x : tensor<8xf32>
    %a = relax.exp %s : tensor<8xf32>
    %e = relax.end_checkpoint %a : tensor<8xf32>
    %b = relax.tanh %e : tensor<8xf32>
    %sum = relax.sum %b : tensor<8xf32> -> tensor<f32>
    %t = relax.tuple(%e, %sum : tensor<8xf32>, tensor<f32>)
    relax.output %t : tuple<tensor<8xf32>, tensor<f32>>
  }
  return %r : tuple<tensor<8xf32>, tensor<f32>>
}

// Constants are tensors like any other: 32 bytes for tensor<4xf64>.
//   op 0 %c, 1 dataflow, 2 %m, 3 %s, 4 output, 5 return.
//   %c [0,2], %m [2,3] (32 bytes), %s [3,5] (8 bytes).
//   At op 2: c + m = 64; op 3: m + s = 40.  Peak 64.
func.func @withconst(%x: tensor<4xf64>) -> tensor<f64> {
  %c = arith.constant dense<2.0> : tensor<4xf64>
  %r = relax.dataflow -> (tensor<f64>) {
    %m = relax.multiply %x, %c : tensor<4xf64>, tensor<4xf64> -> tensor<4xf64>
    %s = relax.sum %m : tensor<4xf64> -> tensor<f64>
    relax.output %s : tensor<f64>
  }
  return %r : tensor<f64>
}

// Returning a parameter through a tuple allocates nothing: peak 0.
func.func @paramonly(%x: tensor<16xf32>, %y: tensor<f32>) -> tuple<tensor<16xf32>, tensor<f32>> {
  %r:2 = relax.dataflow -> (tensor<16xf32>, tensor<f32>) {
    relax.output %x, %y : tensor<16xf32>, tensor<f32>
  }
  %t = relax.tuple(%r#0, %r#1 : tensor<16xf32>, tensor<f32>)
  return %t : tuple<tensor<16xf32>, tensor<f32>>
}
