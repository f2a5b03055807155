// RUN: relax-opt %s --convert-relax-to-linalg | FileCheck %s

// The comparisons equal not_equal greater_equal less less_equal become
// parallel generics into i1 tensors: ordered float predicates (false with a
// NaN operand) except not_equal, which is unordered (true with a NaN operand),
// as in numpy; signed integer predicates.

// CHECK-DAG: #[[ID2:map[0-9]*]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-DAG: #[[LAST:map[0-9]*]] = affine_map<(d0, d1) -> (d1)>
// CHECK-DAG: #[[SCALAR:map[0-9]*]] = affine_map<(d0, d1) -> ()>

// CHECK-LABEL: func.func @float(
// CHECK-SAME:    %[[A:.+]]: tensor<2x3xf32>, %[[B:.+]]: tensor<3xf32>, %[[S:.+]]: tensor<f32>)
// CHECK:         [[E:%.+]] = tensor.empty() : tensor<2x3xi1>
// CHECK-NEXT:    [[EQ:%.+]] = linalg.generic {indexing_maps = [#[[ID2]], #[[LAST]], #[[ID2]]], iterator_types = ["parallel", "parallel"]} ins(%[[A]], %[[B]] : tensor<2x3xf32>, tensor<3xf32>) outs([[E]] : tensor<2x3xi1>)
// CHECK-NEXT:    ^bb0(%[[X0:.+]]: f32, %[[Y0:.+]]: f32, %{{.+}}: i1):
// CHECK-NEXT:      [[C0:%.+]] = arith.cmpf oeq, %[[X0]], %[[Y0]] : f32
// CHECK-NEXT:      linalg.yield [[C0]] : i1
// CHECK:         [[NE:%.+]] = linalg.generic {indexing_maps = [#[[ID2]], #[[SCALAR]], #[[ID2]]], {{.*}} ins(%[[A]], %[[S]] : tensor<2x3xf32>, tensor<f32>)
// CHECK-NEXT:    ^bb0(%[[X1:.+]]: f32, %[[Y1:.+]]: f32, %{{.+}}: i1):
// CHECK-NEXT:      [[C1:%.+]] = arith.cmpf une, %[[X1]], %[[Y1]] : f32
// CHECK:         [[GE:%.+]] = linalg.generic {{.*}} ins(%[[B]], %[[A]] : tensor<3xf32>, tensor<2x3xf32>)
// CHECK-NEXT:    ^bb0(%[[X2:.+]]: f32, %[[Y2:.+]]: f32, %{{.+}}: i1):
// CHECK-NEXT:      [[C2:%.+]] = arith.cmpf oge, %[[X2]], %[[Y2]] : f32
// CHECK:         [[LT:%.+]] = linalg.generic {{.*}} ins(%[[A]], %[[A]] : tensor<2x3xf32>, tensor<2x3xf32>)
// CHECK-NEXT:    ^bb0(%[[X3:.+]]: f32, %[[Y3:.+]]: f32, %{{.+}}: i1):
// CHECK-NEXT:      [[C3:%.+]] = arith.cmpf olt, %[[X3]], %[[Y3]] : f32
// CHECK:         [[LE:%.+]] = linalg.generic {{.*}} ins(%[[S]], %[[A]] : tensor<f32>, tensor<2x3xf32>)
// CHECK-NEXT:    ^bb0(%[[X4:.+]]: f32, %[[Y4:.+]]: f32, %{{.+}}: i1):
// CHECK-NEXT:      [[C4:%.+]] = arith.cmpf ole, %[[X4]], %[[Y4]] : f32
// CHECK:         return [[EQ]], [[NE]], [[GE]], [[LT]], [[LE]] :
func.func @float(%a: tensor<2x3xf32>, %b: tensor<3xf32>, %s: tensor<f32>)
    -> (tensor<2x3xi1>, tensor<2x3xi1>, tensor<2x3xi1>, tensor<2x3xi1>, tensor<2x3xi1>) {
  %r:5 = relax.dataflow -> (tensor<2x3xi1>, tensor<2x3xi1>, tensor<2x3xi1>, tensor<2x3xi1>, tensor<2x3xi1>) {
    %0 = relax.equal %a, %b : tensor<2x3xf32>, tensor<3xf32> -> tensor<2x3xi1>
    %1 = relax.not_equal %a, %s : tensor<2x3xf32>, tensor<f32> -> tensor<2x3xi1>
    %2 = relax.greater_equal %b, %a : tensor<3xf32>, tensor<2x3xf32> -> tensor<2x3xi1>
    %3 = relax.less %a, %a : tensor<2x3xf32>, tensor<2x3xf32> -> tensor<2x3xi1>
    %4 = relax.less_equal %s, %a : tensor<f32>, tensor<2x3xf32> -> tensor<2x3xi1>
    relax.output %0, %1, %2, %3, %4 : tensor<2x3xi1>, tensor<2x3xi1>, tensor<2x3xi1>, tensor<2x3xi1>, tensor<2x3xi1>
  }
  return %r#0, %r#1, %r#2, %r#3, %r#4 : tensor<2x3xi1>, tensor<2x3xi1>, tensor<2x3xi1>, tensor<2x3xi1>, tensor<2x3xi1>
}

// CHECK-LABEL: func.func @integer(
// CHECK-SAME:    %[[I:.+]]: tensor<3xi64>, %[[J:.+]]: tensor<3xi32>)
// CHECK:         linalg.generic {{.*}} ins(%[[I]], %[[I]] : tensor<3xi64>, tensor<3xi64>)
// CHECK:           arith.cmpi eq, %{{.+}}, %{{.+}} : i64
// CHECK:         linalg.generic {{.*}} ins(%[[I]], %[[I]] : tensor<3xi64>, tensor<3xi64>)
// CHECK:           arith.cmpi ne, %{{.+}}, %{{.+}} : i64
// CHECK:         linalg.generic {{.*}} ins(%[[J]], %[[J]] : tensor<3xi32>, tensor<3xi32>)
// CHECK:           arith.cmpi sge, %{{.+}}, %{{.+}} : i32
// CHECK:         linalg.generic {{.*}} ins(%[[J]], %[[J]] : tensor<3xi32>, tensor<3xi32>)
// CHECK:           arith.cmpi slt, %{{.+}}, %{{.+}} : i32
// CHECK:         linalg.generic {{.*}} ins(%[[I]], %[[I]] : tensor<3xi64>, tensor<3xi64>)
// CHECK:           arith.cmpi sle, %{{.+}}, %{{.+}} : i64
func.func @integer(%i: tensor<3xi64>, %j: tensor<3xi32>)
    -> (tensor<3xi1>, tensor<3xi1>, tensor<3xi1>, tensor<3xi1>, tensor<3xi1>) {
  %r:5 = relax.dataflow -> (tensor<3xi1>, tensor<3xi1>, tensor<3xi1>, tensor<3xi1>, tensor<3xi1>) {
    %0 = relax.equal %i, %i : tensor<3xi64>, tensor<3xi64> -> tensor<3xi1>
    %1 = relax.not_equal %i, %i : tensor<3xi64>, tensor<3xi64> -> tensor<3xi1>
    %2 = relax.greater_equal %j, %j : tensor<3xi32>, tensor<3xi32> -> tensor<3xi1>
    %3 = relax.less %j, %j : tensor<3xi32>, tensor<3xi32> -> tensor<3xi1>
    %4 = relax.less_equal %i, %i : tensor<3xi64>, tensor<3xi64> -> tensor<3xi1>
    relax.output %0, %1, %2, %3, %4 : tensor<3xi1>, tensor<3xi1>, tensor<3xi1>, tensor<3xi1>, tensor<3xi1>
  }
  return %r#0, %r#1, %r#2, %r#3, %r#4 : tensor<3xi1>, tensor<3xi1>, tensor<3xi1>, tensor<3xi1>, tensor<3xi1>
}
