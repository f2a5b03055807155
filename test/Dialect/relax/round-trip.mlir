// RUN: relax-opt %s | relax-opt | FileCheck %s
// RUN: relax-opt -mlir-print-op-generic %s | relax-opt | FileCheck %s

// Every relax op parses and prints back in its custom form, both directly and
// through the generic form.

// CHECK-LABEL: func.func @dataflow_output
// CHECK-SAME: (%[[X:.+]]: tensor<4xf32>)
// CHECK: %[[R:.+]]:2 = relax.dataflow -> (tensor<f32>, tensor<4xf32>) {
// CHECK-NEXT:   %[[S:.+]] = relax.sum %[[X]] : tensor<4xf32> -> tensor<f32>
// CHECK-NEXT:   relax.output %[[S]], %[[X]] : tensor<f32>, tensor<4xf32>
// CHECK-NEXT: }
// CHECK-NEXT: return %[[R]]#0, %[[R]]#1 : tensor<f32>, tensor<4xf32>
func.func @dataflow_output(%x: tensor<4xf32>) -> (tensor<f32>, tensor<4xf32>) {
  %r:2 = relax.dataflow -> (tensor<f32>, tensor<4xf32>) {
    %s = relax.sum %x : tensor<4xf32> -> tensor<f32>
    relax.output %s, %x : tensor<f32>, tensor<4xf32>
  }
  return %r#0, %r#1 : tensor<f32>, tensor<4xf32>
}

// A dataflow block without results.
// CHECK-LABEL: func.func @dataflow_empty
// CHECK: relax.dataflow {
// CHECK-NEXT:   relax.output{{$}}
// CHECK-NEXT: }
func.func @dataflow_empty() {
  relax.dataflow {
    relax.output
  }
  return
}

// CHECK-LABEL: func.func @tuples
// CHECK-SAME: (%[[A:.+]]: tensor<2xf32>, %[[B:.+]]: tensor<f32>)
// CHECK: %[[T:.+]] = relax.tuple(%[[A]], %[[B]] : tensor<2xf32>, tensor<f32>)
// CHECK: %[[N:.+]] = relax.tuple(%[[T]], %[[A]] : tuple<tensor<2xf32>, tensor<f32>>, tensor<2xf32>)
// CHECK: %[[E:.+]] = relax.tuple(){{$}}
// CHECK: %[[I:.+]] = relax.tuple_get_item %[[N]][0] : tuple<tuple<tensor<2xf32>, tensor<f32>>, tensor<2xf32>>
// CHECK: relax.tuple_get_item %[[I]][1] : tuple<tensor<2xf32>, tensor<f32>>
func.func @tuples(%a: tensor<2xf32>, %b: tensor<f32>) -> (tensor<f32>, tuple<>) {
  %r:2 = relax.dataflow -> (tensor<f32>, tuple<>) {
    %t = relax.tuple(%a, %b : tensor<2xf32>, tensor<f32>)
    %n = relax.tuple(%t, %a : tuple<tensor<2xf32>, tensor<f32>>, tensor<2xf32>)
    %e = relax.tuple()
    %i = relax.tuple_get_item %n[0] : tuple<tuple<tensor<2xf32>, tensor<f32>>, tensor<2xf32>>
    %j = relax.tuple_get_item %i[1] : tuple<tensor<2xf32>, tensor<f32>>
    relax.output %j, %e : tensor<f32>, tuple<>
  }
  return %r#0, %r#1 : tensor<f32>, tuple<>
}

// CHECK-LABEL: func.func @unary
// CHECK-SAME: (%[[X:.+]]: tensor<4x3xf32>, %[[I:.+]]: tensor<5xi32>)
// CHECK: %[[N:.+]] = relax.negative %[[X]] : tensor<4x3xf32>
// CHECK: %[[E:.+]] = relax.exp %[[N]] : tensor<4x3xf32>
// CHECK: %[[L:.+]] = relax.log %[[E]] : tensor<4x3xf32>
// CHECK: %[[T:.+]] = relax.tanh %[[L]] : tensor<4x3xf32>
// CHECK: %[[S:.+]] = relax.sigmoid %[[T]] : tensor<4x3xf32>
// CHECK: relax.relu %[[S]] : tensor<4x3xf32>
// CHECK: %[[NI:.+]] = relax.negative %[[I]] : tensor<5xi32>
// CHECK: relax.relu %[[NI]] : tensor<5xi32>
func.func @unary(%x: tensor<4x3xf32>, %i: tensor<5xi32>) -> (tensor<4x3xf32>, tensor<5xi32>) {
  %r:2 = relax.dataflow -> (tensor<4x3xf32>, tensor<5xi32>) {
    %0 = relax.negative %x : tensor<4x3xf32>
    %1 = relax.exp %0 : tensor<4x3xf32>
    %2 = relax.log %1 : tensor<4x3xf32>
    %3 = relax.tanh %2 : tensor<4x3xf32>
    %4 = relax.sigmoid %3 : tensor<4x3xf32>
    %5 = relax.relu %4 : tensor<4x3xf32>
    %6 = relax.negative %i : tensor<5xi32>
    %7 = relax.relu %6 : tensor<5xi32>
    relax.output %5, %7 : tensor<4x3xf32>, tensor<5xi32>
  }
  return %r#0, %r#1 : tensor<4x3xf32>, tensor<5xi32>
}

// CHECK-LABEL: func.func @binary
// CHECK-SAME: (%[[A:.+]]: tensor<4x3xf32>, %[[B:.+]]: tensor<3xf32>, %[[C:.+]]: tensor<4x1xf32>, %[[S:.+]]: tensor<f32>)
// CHECK: %[[ADD:.+]] = relax.add %[[A]], %[[B]] : tensor<4x3xf32>, tensor<3xf32> -> tensor<4x3xf32>
// CHECK: %[[SUB:.+]] = relax.subtract %[[C]], %[[B]] : tensor<4x1xf32>, tensor<3xf32> -> tensor<4x3xf32>
// CHECK: %[[MUL:.+]] = relax.multiply %[[S]], %[[ADD]] : tensor<f32>, tensor<4x3xf32> -> tensor<4x3xf32>
// CHECK: %[[DIV:.+]] = relax.divide %[[MUL]], %[[SUB]] : tensor<4x3xf32>, tensor<4x3xf32> -> tensor<4x3xf32>
// CHECK: %[[GT:.+]] = relax.greater %[[DIV]], %[[S]] : tensor<4x3xf32>, tensor<f32> -> tensor<4x3xi1>
// CHECK: relax.where %[[GT]], %[[DIV]], %[[S]] : tensor<4x3xi1>, tensor<4x3xf32>, tensor<f32> -> tensor<4x3xf32>
func.func @binary(%a: tensor<4x3xf32>, %b: tensor<3xf32>, %c: tensor<4x1xf32>, %s: tensor<f32>) -> tensor<4x3xf32> {
  %r = relax.dataflow -> (tensor<4x3xf32>) {
    %0 = relax.add %a, %b : tensor<4x3xf32>, tensor<3xf32> -> tensor<4x3xf32>
    %1 = relax.subtract %c, %b : tensor<4x1xf32>, tensor<3xf32> -> tensor<4x3xf32>
    %2 = relax.multiply %s, %0 : tensor<f32>, tensor<4x3xf32> -> tensor<4x3xf32>
    %3 = relax.divide %2, %1 : tensor<4x3xf32>, tensor<4x3xf32> -> tensor<4x3xf32>
    %4 = relax.greater %3, %s : tensor<4x3xf32>, tensor<f32> -> tensor<4x3xi1>
    %5 = relax.where %4, %3, %s : tensor<4x3xi1>, tensor<4x3xf32>, tensor<f32> -> tensor<4x3xf32>
    relax.output %5 : tensor<4x3xf32>
  }
  return %r : tensor<4x3xf32>
}

// `where` broadcasts its condition too.
// CHECK-LABEL: func.func @where_broadcast_cond
// CHECK: relax.where %{{.+}}, %{{.+}}, %{{.+}} : tensor<1x3xi1>, tensor<4x1xf64>, tensor<f64> -> tensor<4x3xf64>
func.func @where_broadcast_cond(%m: tensor<1x3xi1>, %a: tensor<4x1xf64>, %b: tensor<f64>) -> tensor<4x3xf64> {
  %r = relax.dataflow -> (tensor<4x3xf64>) {
    %0 = relax.where %m, %a, %b : tensor<1x3xi1>, tensor<4x1xf64>, tensor<f64> -> tensor<4x3xf64>
    relax.output %0 : tensor<4x3xf64>
  }
  return %r : tensor<4x3xf64>
}

// CHECK-LABEL: func.func @reductions
// CHECK-SAME: (%[[X:.+]]: tensor<2x3x4xf32>)
// CHECK: relax.sum %[[X]] : tensor<2x3x4xf32> -> tensor<f32>
// CHECK: relax.sum %[[X]] {axis = array<i64: 1>} : tensor<2x3x4xf32> -> tensor<2x4xf32>
// CHECK: relax.sum %[[X]] {axis = array<i64: -1, 0>, keepdims = true} : tensor<2x3x4xf32> -> tensor<1x3x1xf32>
// CHECK: relax.sum %[[X]] {axis = array<i64: -2>} : tensor<2x3x4xf32> -> tensor<2x4xf32>
// CHECK: relax.mean %[[X]] : tensor<2x3x4xf32> -> tensor<f32>
// CHECK: relax.mean %[[X]] {axis = array<i64: 0, 2>, keepdims = true} : tensor<2x3x4xf32> -> tensor<1x3x1xf32>
// The default keepdims = false is not printed.
// CHECK: relax.mean %[[X]] {axis = array<i64: -3>} : tensor<2x3x4xf32> -> tensor<3x4xf32>
func.func @reductions(%x: tensor<2x3x4xf32>) -> tensor<f32> {
  %r = relax.dataflow -> (tensor<f32>) {
    %0 = relax.sum %x : tensor<2x3x4xf32> -> tensor<f32>
    %1 = relax.sum %x {axis = array<i64: 1>} : tensor<2x3x4xf32> -> tensor<2x4xf32>
    %2 = relax.sum %x {axis = array<i64: -1, 0>, keepdims = true} : tensor<2x3x4xf32> -> tensor<1x3x1xf32>
    %3 = relax.sum %x {axis = array<i64: -2>} : tensor<2x3x4xf32> -> tensor<2x4xf32>
    %4 = relax.mean %x : tensor<2x3x4xf32> -> tensor<f32>
    %5 = relax.mean %x {axis = array<i64: 0, 2>, keepdims = true} : tensor<2x3x4xf32> -> tensor<1x3x1xf32>
    %6 = relax.mean %x {axis = array<i64: -3>, keepdims = false} : tensor<2x3x4xf32> -> tensor<3x4xf32>
    relax.output %0 : tensor<f32>
  }
  return %r : tensor<f32>
}

// Integer sums are allowed (mean is float-only).
// CHECK-LABEL: func.func @sum_int
// CHECK: relax.sum %{{.+}} {axis = array<i64: 0>} : tensor<3x2xi64> -> tensor<2xi64>
func.func @sum_int(%x: tensor<3x2xi64>) -> tensor<2xi64> {
  %r = relax.dataflow -> (tensor<2xi64>) {
    %0 = relax.sum %x {axis = array<i64: 0>} : tensor<3x2xi64> -> tensor<2xi64>
    relax.output %0 : tensor<2xi64>
  }
  return %r : tensor<2xi64>
}

// CHECK-LABEL: func.func @matmul
// CHECK: relax.matmul %{{.+}}, %{{.+}} : tensor<8x64xf32>, tensor<64x10xf32> -> tensor<8x10xf32>
// CHECK: relax.matmul %{{.+}}, %{{.+}} : tensor<64xf32>, tensor<64x10xf32> -> tensor<10xf32>
// CHECK: relax.matmul %{{.+}}, %{{.+}} : tensor<8x64xf32>, tensor<64xf32> -> tensor<8xf32>
// CHECK: relax.matmul %{{.+}}, %{{.+}} : tensor<64xf32>, tensor<64xf32> -> tensor<f32>
// CHECK: relax.matmul %{{.+}}, %{{.+}} : tensor<2x1x8x64xf32>, tensor<5x64x10xf32> -> tensor<2x5x8x10xf32>
// CHECK: relax.matmul %{{.+}}, %{{.+}} : tensor<64xf32>, tensor<5x64x10xf32> -> tensor<5x10xf32>
// CHECK: relax.matmul %{{.+}}, %{{.+}} : tensor<5x8x64xf32>, tensor<64xf32> -> tensor<5x8xf32>
// CHECK: relax.matmul %{{.+}}, %{{.+}} : tensor<2x3xi32>, tensor<3x4xi32> -> tensor<2x4xi32>
func.func @matmul(%a: tensor<8x64xf32>, %b: tensor<64x10xf32>, %v: tensor<64xf32>,
                  %ba: tensor<2x1x8x64xf32>, %bb: tensor<5x64x10xf32>, %bc: tensor<5x8x64xf32>,
                  %ia: tensor<2x3xi32>, %ib: tensor<3x4xi32>) -> tensor<f32> {
  %r = relax.dataflow -> (tensor<f32>) {
    %0 = relax.matmul %a, %b : tensor<8x64xf32>, tensor<64x10xf32> -> tensor<8x10xf32>
    %1 = relax.matmul %v, %b : tensor<64xf32>, tensor<64x10xf32> -> tensor<10xf32>
    %2 = relax.matmul %a, %v : tensor<8x64xf32>, tensor<64xf32> -> tensor<8xf32>
    %3 = relax.matmul %v, %v : tensor<64xf32>, tensor<64xf32> -> tensor<f32>
    %4 = relax.matmul %ba, %bb : tensor<2x1x8x64xf32>, tensor<5x64x10xf32> -> tensor<2x5x8x10xf32>
    %5 = relax.matmul %v, %bb : tensor<64xf32>, tensor<5x64x10xf32> -> tensor<5x10xf32>
    %6 = relax.matmul %bc, %v : tensor<5x8x64xf32>, tensor<64xf32> -> tensor<5x8xf32>
    %7 = relax.matmul %ia, %ib : tensor<2x3xi32>, tensor<3x4xi32> -> tensor<2x4xi32>
    relax.output %3 : tensor<f32>
  }
  return %r : tensor<f32>
}

// CHECK-LABEL: func.func @shapes
// CHECK-SAME: (%[[X:.+]]: tensor<2x3x4xf32>, %[[V:.+]]: tensor<3xf32>)
// CHECK: relax.permute_dims %[[X]] : tensor<2x3x4xf32> -> tensor<4x3x2xf32>
// CHECK: relax.permute_dims %[[X]] {axes = array<i64: 1, 0, 2>} : tensor<2x3x4xf32> -> tensor<3x2x4xf32>
// CHECK: relax.permute_dims %[[X]] {axes = array<i64: -1, 0, 1>} : tensor<2x3x4xf32> -> tensor<4x2x3xf32>
// CHECK: relax.reshape %[[X]] : tensor<2x3x4xf32> -> tensor<6x4xf32>
// CHECK: relax.reshape %[[V]] : tensor<3xf32> -> tensor<1x3x1xf32>
// CHECK: %[[BC:.+]] = relax.broadcast_to %[[V]] : tensor<3xf32> -> tensor<2x4x3xf32>
// CHECK: relax.collapse_sum_to %[[BC]] : tensor<2x4x3xf32> -> tensor<1x3xf32>
// CHECK: relax.collapse_sum_to %[[X]] : tensor<2x3x4xf32> -> tensor<f32>
func.func @shapes(%x: tensor<2x3x4xf32>, %v: tensor<3xf32>) -> tensor<1x3xf32> {
  %r = relax.dataflow -> (tensor<1x3xf32>) {
    %0 = relax.permute_dims %x : tensor<2x3x4xf32> -> tensor<4x3x2xf32>
    %1 = relax.permute_dims %x {axes = array<i64: 1, 0, 2>} : tensor<2x3x4xf32> -> tensor<3x2x4xf32>
    %2 = relax.permute_dims %x {axes = array<i64: -1, 0, 1>} : tensor<2x3x4xf32> -> tensor<4x2x3xf32>
    %3 = relax.reshape %x : tensor<2x3x4xf32> -> tensor<6x4xf32>
    %4 = relax.reshape %v : tensor<3xf32> -> tensor<1x3x1xf32>
    %5 = relax.broadcast_to %v : tensor<3xf32> -> tensor<2x4x3xf32>
    %6 = relax.collapse_sum_to %5 : tensor<2x4x3xf32> -> tensor<1x3xf32>
    %7 = relax.collapse_sum_to %x : tensor<2x3x4xf32> -> tensor<f32>
    relax.output %6 : tensor<1x3xf32>
  }
  return %r : tensor<1x3xf32>
}

// CHECK-LABEL: func.func @creation
// CHECK: relax.zeros : tensor<4x3xf32>
// CHECK: relax.ones : tensor<f32>
// CHECK: relax.zeros : tensor<2xi1>
// CHECK: relax.ones : tensor<2x2xbf16>
func.func @creation() -> tensor<f32> {
  %r = relax.dataflow -> (tensor<f32>) {
    %0 = relax.zeros : tensor<4x3xf32>
    %1 = relax.ones : tensor<f32>
    %2 = relax.zeros : tensor<2xi1>
    %3 = relax.ones : tensor<2x2xbf16>
    relax.output %1 : tensor<f32>
  }
  return %r : tensor<f32>
}

// The generic forms of the interchange contract parse and mean the same ops.
// CHECK-LABEL: func.func @generic_input
// CHECK-SAME: (%[[X:.+]]: tensor<4x3xf32>)
// CHECK: %[[R:.+]] = relax.dataflow -> (tensor<4x1xf32>) {
// CHECK-NEXT: %[[S:.+]] = relax.sum %[[X]] {axis = array<i64: 1>, keepdims = true} : tensor<4x3xf32> -> tensor<4x1xf32>
// CHECK-NEXT: %[[M:.+]] = relax.mean %[[X]] {axis = array<i64: -2>} : tensor<4x3xf32> -> tensor<3xf32>
// CHECK-NEXT: %[[T:.+]] = relax.tuple(%[[S]], %[[M]] : tensor<4x1xf32>, tensor<3xf32>)
// CHECK-NEXT: %[[G:.+]] = relax.tuple_get_item %[[T]][0] : tuple<tensor<4x1xf32>, tensor<3xf32>>
// CHECK-NEXT: %[[P:.+]] = relax.permute_dims %[[X]] {axes = array<i64: 1, 0>} : tensor<4x3xf32> -> tensor<3x4xf32>
// CHECK-NEXT: %[[Z:.+]] = relax.zeros : tensor<4x1xf32>
// CHECK-NEXT: %[[A:.+]] = relax.add %[[G]], %[[Z]] : tensor<4x1xf32>, tensor<4x1xf32> -> tensor<4x1xf32>
// CHECK-NEXT: relax.output %[[A]] : tensor<4x1xf32>
func.func @generic_input(%x: tensor<4x3xf32>) -> tensor<4x1xf32> {
  %r = "relax.dataflow"() ({
    %s = "relax.sum"(%x) {axis = array<i64: 1>, keepdims = true} : (tensor<4x3xf32>) -> tensor<4x1xf32>
    %m = "relax.mean"(%x) {axis = array<i64: -2>} : (tensor<4x3xf32>) -> tensor<3xf32>
    %t = "relax.tuple"(%s, %m) : (tensor<4x1xf32>, tensor<3xf32>) -> tuple<tensor<4x1xf32>, tensor<3xf32>>
    %g = "relax.tuple_get_item"(%t) {index = 0 : i64} : (tuple<tensor<4x1xf32>, tensor<3xf32>>) -> tensor<4x1xf32>
    %p = "relax.permute_dims"(%x) {axes = array<i64: 1, 0>} : (tensor<4x3xf32>) -> tensor<3x4xf32>
    %z = "relax.zeros"() : () -> tensor<4x1xf32>
    %a = "relax.add"(%g, %z) : (tensor<4x1xf32>, tensor<4x1xf32>) -> tensor<4x1xf32>
    "relax.output"(%a) : (tensor<4x1xf32>) -> ()
  }) : () -> tensor<4x1xf32>
  return %r : tensor<4x1xf32>
}
