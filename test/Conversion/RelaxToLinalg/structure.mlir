// RUN: relax-opt %s --convert-relax-to-linalg | FileCheck %s
// RUN: relax-opt %s --relax-flatten-tuples | FileCheck %s --check-prefix=FLAT

// Tuple-typed parameters and results are replaced by their tensor leaves
// (depth-first, left to right); tuple_get_item of parameters and relax.tuple of
// results fold away; argument attributes stay on their arguments.

// CHECK-LABEL: func.func @nested(
// CHECK-SAME:    %[[A:[a-z0-9]+]]: tensor<2xf32>, %[[S:[a-z0-9]+]]: tensor<f32>, %[[V:[a-z0-9]+]]: tensor<3xf32>, %[[Y:[a-z0-9]+]]: tensor<2xf32>) -> (tensor<2xf32>, tensor<f32>) {
// CHECK:         [[ADD:%.+]] = linalg.generic {{.*}} ins(%[[A]], %[[Y]] : tensor<2xf32>, tensor<2xf32>)
// CHECK:           arith.addf
// CHECK:         return [[ADD]], %[[S]] : tensor<2xf32>, tensor<f32>
// CHECK-NOT:     relax.
// CHECK-NOT:     tuple<

// FLAT-LABEL: func.func @nested(
// FLAT-SAME:    %[[A:[a-z0-9]+]]: tensor<2xf32>, %[[S:[a-z0-9]+]]: tensor<f32>, %[[V:[a-z0-9]+]]: tensor<3xf32>, %[[Y:[a-z0-9]+]]: tensor<2xf32>) -> (tensor<2xf32>, tensor<f32>) {
// FLAT-NEXT:      [[ADD:%.+]] = relax.add %[[A]], %[[Y]] : tensor<2xf32>, tensor<2xf32> -> tensor<2xf32>
// FLAT-NEXT:      return [[ADD]], %[[S]] : tensor<2xf32>, tensor<f32>
// FLAT-NEXT:    }
func.func @nested(%t: tuple<tensor<2xf32>, tuple<tensor<f32>, tensor<3xf32>>>, %y: tensor<2xf32>) -> tuple<tensor<2xf32>, tuple<tensor<f32>>> {
  %r:2 = relax.dataflow -> (tensor<2xf32>, tensor<f32>) {
    %a = relax.tuple_get_item %t[0] : tuple<tensor<2xf32>, tuple<tensor<f32>, tensor<3xf32>>>
    %i = relax.tuple_get_item %t[1] : tuple<tensor<2xf32>, tuple<tensor<f32>, tensor<3xf32>>>
    %s = relax.tuple_get_item %i[0] : tuple<tensor<f32>, tensor<3xf32>>
    %0 = relax.add %a, %y : tensor<2xf32>, tensor<2xf32> -> tensor<2xf32>
    relax.output %0, %s : tensor<2xf32>, tensor<f32>
  }
  %in = relax.tuple(%r#1 : tensor<f32>)
  %o = relax.tuple(%r#0, %in : tensor<2xf32>, tuple<tensor<f32>>)
  return %o : tuple<tensor<2xf32>, tuple<tensor<f32>>>
}

// CHECK-LABEL: func.func @attrs(
// CHECK-SAME:    %{{.+}}: tensor<2xf32> {relax.name = "x"}, %{{[a-z0-9]+}}: tensor<2xf32>, %{{[a-z0-9]+}}: tensor<f32>, %{{.+}}: tensor<2xf32> {relax.name = "y"}) -> tensor<2xf32>
// FLAT-LABEL: func.func @attrs(
// FLAT-SAME:    %{{.+}}: tensor<2xf32> {relax.name = "x"}, %{{[a-z0-9]+}}: tensor<2xf32>, %{{[a-z0-9]+}}: tensor<f32>, %{{.+}}: tensor<2xf32> {relax.name = "y"}) -> tensor<2xf32>
func.func @attrs(%x: tensor<2xf32> {relax.name = "x"}, %t: tuple<tensor<2xf32>, tensor<f32>>, %y: tensor<2xf32> {relax.name = "y"}) -> tensor<2xf32> {
  %a = relax.tuple_get_item %t[0] : tuple<tensor<2xf32>, tensor<f32>>
  %0 = relax.add %a, %y : tensor<2xf32>, tensor<2xf32> -> tensor<2xf32>
  %1 = relax.add %0, %x : tensor<2xf32>, tensor<2xf32> -> tensor<2xf32>
  return %1 : tensor<2xf32>
}

// A result tuple built from a parameter that is itself a tuple.
// CHECK-LABEL: func.func @passthrough(
// CHECK-SAME:    %[[P:[a-z0-9]+]]: tensor<2xf32>, %[[Q:[a-z0-9]+]]: tensor<f32>) -> (tensor<f32>, tensor<2xf32>, tensor<f32>)
// CHECK-NEXT:    return %[[Q]], %[[P]], %[[Q]] : tensor<f32>, tensor<2xf32>, tensor<f32>
func.func @passthrough(%t: tuple<tensor<2xf32>, tensor<f32>>) -> tuple<tensor<f32>, tuple<tensor<2xf32>, tensor<f32>>> {
  %q = relax.tuple_get_item %t[1] : tuple<tensor<2xf32>, tensor<f32>>
  %o = relax.tuple(%q, %t : tensor<f32>, tuple<tensor<2xf32>, tensor<f32>>)
  return %o : tuple<tensor<f32>, tuple<tensor<2xf32>, tensor<f32>>>
}
