// RUN: relax-opt %s | relax-opt | FileCheck %s
// RUN: relax-opt -mlir-print-op-generic %s | relax-opt | FileCheck %s

// Round trips of the structure ops (dataflow blocks, outputs, tuples;
// a whole program in generic form): the custom form, directly and through the
// generic form.

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

// stop_gradient: an identity, on tensors and tuples.
// CHECK-LABEL: func.func @stop_gradient
// CHECK: relax.stop_gradient %{{.+}} : tensor<2x3xf32>
// CHECK: relax.stop_gradient %{{.+}} : tuple<tensor<2x3xf32>, tensor<i64>>
func.func @stop_gradient(%x: tensor<2x3xf32>, %t: tuple<tensor<2x3xf32>, tensor<i64>>)
    -> tuple<tensor<2x3xf32>, tuple<tensor<2x3xf32>, tensor<i64>>> {
  %0 = relax.stop_gradient %x : tensor<2x3xf32>
  %1 = relax.stop_gradient %t : tuple<tensor<2x3xf32>, tensor<i64>>
  %2 = relax.tuple(%0, %1 : tensor<2x3xf32>, tuple<tensor<2x3xf32>, tensor<i64>>)
  return %2 : tuple<tensor<2x3xf32>, tuple<tensor<2x3xf32>, tensor<i64>>>
}

// call_with_rules: a call naming its derivative functions.
// CHECK-LABEL: func.func @call_with_rules
// CHECK: relax.call_with_rules @g(%{{.+}}) jvp @g_jvp vjp @g_vjp : (tensor<3xf32>) -> tensor<3xf32>
func.func private @g(tensor<3xf32>) -> tensor<3xf32>
func.func private @g_jvp(tensor<3xf32>, tensor<3xf32>) -> tuple<tensor<3xf32>, tensor<3xf32>>
func.func private @g_vjp(tensor<3xf32>, tensor<3xf32>) -> tuple<tensor<3xf32>>
func.func @call_with_rules(%x: tensor<3xf32>) -> tensor<3xf32> {
  %0 = relax.call_with_rules @g(%x) jvp @g_jvp vjp @g_vjp : (tensor<3xf32>) -> tensor<3xf32>
  return %0 : tensor<3xf32>
}

// debug_print: a format object (JSON in a string) and any number of values;
// it has no result.
// CHECK-LABEL: func.func @debug_print
// CHECK-SAME: (%[[X:.+]]: tensor<3xf32>, %[[N:.+]]: tensor<i64>)
// CHECK: relax.debug_print "{\22format\22: \22x = {} n = {}\22}" %[[X]], %[[N]] : tensor<3xf32>, tensor<i64>
// CHECK: relax.debug_print "{\22format\22: \22hello\22}"{{$}}
func.func @debug_print(%x: tensor<3xf32>, %n: tensor<i64>) -> tensor<3xf32> {
  %r = relax.dataflow -> (tensor<3xf32>) {
    relax.debug_print "{\"format\": \"x = {} n = {}\"}" %x, %n : tensor<3xf32>, tensor<i64>
    relax.debug_print "{\"format\": \"hello\"}"
    relax.output %x : tensor<3xf32>
  }
  return %r : tensor<3xf32>
}
