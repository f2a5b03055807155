// RUN: relax-opt %s --convert-relax-to-linalg | FileCheck %s
// RUN: relax-opt %s --convert-relax-to-linalg | FileCheck %s --check-prefix=NORELAX

// No relax op is left anywhere in the module.
// NORELAX: module
// NORELAX-NOT: = relax.
// NORELAX-NOT: relax.output
// NORELAX-NOT: relax.dataflow

// The lowering of the reductions max min prod variance cumsum.

// CHECK-DAG: #[[ID2:map[0-9]*]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-DAG: #[[ROW:map[0-9]*]] = affine_map<(d0, d1) -> (d0)>
// CHECK-DAG: #[[COL:map[0-9]*]] = affine_map<(d0, d1) -> (d1)>
// CHECK-DAG: #[[ID1:map[0-9]*]] = affine_map<(d0) -> (d0)>
// CHECK-DAG: #[[TO0D:map[0-9]*]] = affine_map<(d0) -> ()>
// CHECK-DAG: #[[SCALAR:map[0-9]*]] = affine_map<() -> ()>
// CHECK-DAG: #[[COL0:map[0-9]*]] = affine_map<(d0, d1) -> (d0, 0)>

// max and min reduce from -inf/+inf (INT_MIN/INT_MAX for integers) with
// maximumf/minimumf (NaN propagates) in the element type; keepdims reshapes.
// CHECK-LABEL: func.func @extremum(
// CHECK-SAME:    %[[X:.+]]: tensor<2x3xf32>, %[[I:.+]]: tensor<4xi32>)
// CHECK:         [[E0:%.+]] = tensor.empty() : tensor<2xf32>
// CHECK-NEXT:    [[NINF:%.+]] = arith.constant 0xFF800000 : f32
// CHECK-NEXT:    [[F0:%.+]] = linalg.fill ins([[NINF]] : f32) outs([[E0]] : tensor<2xf32>) -> tensor<2xf32>
// CHECK-NEXT:    [[MAX:%.+]] = linalg.generic {indexing_maps = [#[[ID2]], #[[ROW]]], iterator_types = ["parallel", "reduction"]} ins(%[[X]] : tensor<2x3xf32>) outs([[F0]] : tensor<2xf32>)
// CHECK-NEXT:    ^bb0(%[[A0:.+]]: f32, %[[ACC0:.+]]: f32):
// CHECK-NEXT:      [[M0:%.+]] = arith.maximumf %[[A0]], %[[ACC0]] : f32
// CHECK-NEXT:      linalg.yield [[M0]] : f32
// CHECK:         [[E1:%.+]] = tensor.empty() : tensor<3xf32>
// CHECK-NEXT:    [[PINF:%.+]] = arith.constant 0x7F800000 : f32
// CHECK-NEXT:    [[F1:%.+]] = linalg.fill ins([[PINF]] : f32) outs([[E1]] : tensor<3xf32>) -> tensor<3xf32>
// CHECK-NEXT:    [[MIN:%.+]] = linalg.generic {indexing_maps = [#[[ID2]], #[[COL]]], iterator_types = ["reduction", "parallel"]} ins(%[[X]] : tensor<2x3xf32>) outs([[F1]] : tensor<3xf32>)
// CHECK-NEXT:    ^bb0(%[[A1:.+]]: f32, %[[ACC1:.+]]: f32):
// CHECK-NEXT:      [[M1:%.+]] = arith.minimumf %[[A1]], %[[ACC1]] : f32
// CHECK-NEXT:      linalg.yield [[M1]] : f32
// CHECK:         [[MINK:%.+]] = tensor.expand_shape [[MIN]] {{\[\[}}0, 1]] output_shape [1, 3] : tensor<3xf32> into tensor<1x3xf32>
// CHECK:         [[IMIN:%.+]] = arith.constant -2147483648 : i32
// CHECK-NEXT:    [[F2:%.+]] = linalg.fill ins([[IMIN]] : i32) outs(%{{.+}} : tensor<i32>) -> tensor<i32>
// CHECK-NEXT:    [[IMAX:%.+]] = linalg.generic {indexing_maps = [#[[ID1]], #[[TO0D]]], iterator_types = ["reduction"]} ins(%[[I]] : tensor<4xi32>) outs([[F2]] : tensor<i32>)
// CHECK:           arith.maxsi %{{.+}}, %{{.+}} : i32
// CHECK:         [[IMAXV:%.+]] = arith.constant 2147483647 : i32
// CHECK-NEXT:    [[F3:%.+]] = linalg.fill ins([[IMAXV]] : i32) outs(%{{.+}} : tensor<i32>) -> tensor<i32>
// CHECK-NEXT:    [[IMIN2:%.+]] = linalg.generic {{.*}} ins(%[[I]] : tensor<4xi32>) outs([[F3]] : tensor<i32>)
// CHECK:           arith.minsi %{{.+}}, %{{.+}} : i32
// CHECK:         return [[MAX]], [[MINK]], [[IMAX]], [[IMIN2]] :
func.func @extremum(%x: tensor<2x3xf32>, %i: tensor<4xi32>) -> (tensor<2xf32>, tensor<1x3xf32>, tensor<i32>, tensor<i32>) {
  %r:4 = relax.dataflow -> (tensor<2xf32>, tensor<1x3xf32>, tensor<i32>, tensor<i32>) {
    %0 = relax.max %x {axis = array<i64: 1>} : tensor<2x3xf32> -> tensor<2xf32>
    %1 = relax.min %x {axis = array<i64: 0>, keepdims = true} : tensor<2x3xf32> -> tensor<1x3xf32>
    %2 = relax.max %i : tensor<4xi32> -> tensor<i32>
    %3 = relax.min %i : tensor<4xi32> -> tensor<i32>
    relax.output %0, %1, %2, %3 : tensor<2xf32>, tensor<1x3xf32>, tensor<i32>, tensor<i32>
  }
  return %r#0, %r#1, %r#2, %r#3 : tensor<2xf32>, tensor<1x3xf32>, tensor<i32>, tensor<i32>
}

// prod multiplies from 1 in the accumulator type (f32 in f64, f16 in f32,
// integers in their own type) and rounds once at the end.
// CHECK-LABEL: func.func @prod(
// CHECK-SAME:    %[[X:.+]]: tensor<2x3xf32>, %[[H:.+]]: tensor<4xf16>, %[[I:.+]]: tensor<4xi64>)
// CHECK:         [[E0:%.+]] = tensor.empty() : tensor<3xf64>
// CHECK-NEXT:    [[ONE:%.+]] = arith.constant 1.000000e+00 : f64
// CHECK-NEXT:    [[F0:%.+]] = linalg.fill ins([[ONE]] : f64) outs([[E0]] : tensor<3xf64>) -> tensor<3xf64>
// CHECK-NEXT:    [[P:%.+]] = linalg.generic {indexing_maps = [#[[ID2]], #[[COL]]], iterator_types = ["reduction", "parallel"]} ins(%[[X]] : tensor<2x3xf32>) outs([[F0]] : tensor<3xf64>)
// CHECK-NEXT:    ^bb0(%[[A0:.+]]: f32, %[[ACC0:.+]]: f64):
// CHECK-NEXT:      [[W0:%.+]] = arith.extf %[[A0]] : f32 to f64
// CHECK-NEXT:      [[M0:%.+]] = arith.mulf [[W0]], %[[ACC0]] : f64
// CHECK-NEXT:      linalg.yield [[M0]] : f64
// CHECK:         [[PR:%.+]] = linalg.generic {indexing_maps = [#[[ID1]], #[[ID1]]], iterator_types = ["parallel"]} ins([[P]] : tensor<3xf64>) outs(%{{.+}} : tensor<3xf32>)
// CHECK-NEXT:    ^bb0(%[[R0:.+]]: f64, %{{.+}}: f32):
// CHECK-NEXT:      [[T0:%.+]] = arith.truncf %[[R0]] : f64 to f32
// CHECK-NEXT:      linalg.yield [[T0]] : f32
// CHECK:         [[ONE32:%.+]] = arith.constant 1.000000e+00 : f32
// CHECK-NEXT:    [[F1:%.+]] = linalg.fill ins([[ONE32]] : f32) outs(%{{.+}} : tensor<f32>) -> tensor<f32>
// CHECK-NEXT:    [[PH:%.+]] = linalg.generic {indexing_maps = [#[[ID1]], #[[TO0D]]], iterator_types = ["reduction"]} ins(%[[H]] : tensor<4xf16>) outs([[F1]] : tensor<f32>)
// CHECK-NEXT:    ^bb0(%[[A1:.+]]: f16, %[[ACC1:.+]]: f32):
// CHECK-NEXT:      [[W1:%.+]] = arith.extf %[[A1]] : f16 to f32
// CHECK-NEXT:      arith.mulf [[W1]], %[[ACC1]] : f32
// CHECK:         [[PHR:%.+]] = linalg.generic {indexing_maps = [#[[SCALAR]], #[[SCALAR]]], iterator_types = []} ins([[PH]] : tensor<f32>) outs(%{{.+}} : tensor<f16>)
// CHECK:           arith.truncf %{{.+}} : f32 to f16
// CHECK:         [[ONE64:%.+]] = arith.constant 1 : i64
// CHECK-NEXT:    [[F2:%.+]] = linalg.fill ins([[ONE64]] : i64) outs(%{{.+}} : tensor<i64>) -> tensor<i64>
// CHECK-NEXT:    [[PI:%.+]] = linalg.generic {{.*}} ins(%[[I]] : tensor<4xi64>) outs([[F2]] : tensor<i64>)
// CHECK-NEXT:    ^bb0(%[[A2:.+]]: i64, %[[ACC2:.+]]: i64):
// CHECK-NEXT:      arith.muli %[[A2]], %[[ACC2]] : i64
// CHECK:         return [[PR]], [[PHR]], [[PI]] :
func.func @prod(%x: tensor<2x3xf32>, %h: tensor<4xf16>, %i: tensor<4xi64>) -> (tensor<3xf32>, tensor<f16>, tensor<i64>) {
  %r:3 = relax.dataflow -> (tensor<3xf32>, tensor<f16>, tensor<i64>) {
    %0 = relax.prod %x {axis = array<i64: 0>} : tensor<2x3xf32> -> tensor<3xf32>
    %1 = relax.prod %h : tensor<4xf16> -> tensor<f16>
    %2 = relax.prod %i : tensor<4xi64> -> tensor<i64>
    relax.output %0, %1, %2 : tensor<3xf32>, tensor<f16>, tensor<i64>
  }
  return %r#0, %r#1, %r#2 : tensor<3xf32>, tensor<f16>, tensor<i64>
}

// variance is the mean of squared deviations from the mean (two passes): a
// keepdims mean (summed in f64, divided by 3), the centered values, their
// squares, and their mean.
// CHECK-LABEL: func.func @variance(
// CHECK-SAME:    %[[X:.+]]: tensor<2x3xf32>) -> tensor<2xf32> {
// CHECK:         [[S:%.+]] = linalg.generic {indexing_maps = [#[[ID2]], #[[ROW]]], iterator_types = ["parallel", "reduction"]} ins(%[[X]] : tensor<2x3xf32>) outs(%{{.+}} : tensor<2xf64>)
// CHECK:         [[M:%.+]] = linalg.generic {{.*}} ins([[S]] : tensor<2xf64>)
// CHECK:           [[N:%.+]] = arith.constant 3.000000e+00 : f64
// CHECK-NEXT:      arith.divf %{{.+}}, [[N]] : f64
// CHECK:         [[MK:%.+]] = tensor.expand_shape [[M]] {{\[\[}}0, 1]] output_shape [2, 1] : tensor<2xf32> into tensor<2x1xf32>
// CHECK:         [[C:%.+]] = linalg.generic {indexing_maps = [#[[ID2]], #[[COL0]], #[[ID2]]], {{.*}} ins(%[[X]], [[MK]] : tensor<2x3xf32>, tensor<2x1xf32>)
// CHECK:           arith.subf
// CHECK:         [[SQ:%.+]] = linalg.generic {{.*}} ins([[C]], [[C]] : tensor<2x3xf32>, tensor<2x3xf32>)
// CHECK:           arith.mulf
// CHECK:         [[S2:%.+]] = linalg.generic {indexing_maps = [#[[ID2]], #[[ROW]]], iterator_types = ["parallel", "reduction"]} ins([[SQ]] : tensor<2x3xf32>) outs(%{{.+}} : tensor<2xf64>)
// CHECK:         [[V:%.+]] = linalg.generic {{.*}} ins([[S2]] : tensor<2xf64>)
// CHECK:           arith.divf %{{.+}}, %{{.+}} : f64
// CHECK:         return [[V]] : tensor<2xf32>
func.func @variance(%x: tensor<2x3xf32>) -> tensor<2xf32> {
  %r = relax.dataflow -> (tensor<2xf32>) {
    %0 = relax.variance %x {axis = array<i64: 1>} : tensor<2x3xf32> -> tensor<2xf32>
    relax.output %0 : tensor<2xf32>
  }
  return %r : tensor<2xf32>
}

// cumsum is an scf.for along the axis carrying the running sum of one slice
// (f32 accumulates in f64) and the result, into which each step inserts the
// rounded running sum.
// CHECK-LABEL: func.func @cumsum(
// CHECK-SAME:    %[[X:.+]]: tensor<2x3xf32>, %[[I:.+]]: tensor<5xi32>)
// CHECK:         [[Z:%.+]] = arith.constant 0.000000e+00 : f64
// CHECK-NEXT:    [[E:%.+]] = tensor.empty() : tensor<2x1xf64>
// CHECK-NEXT:    [[INIT:%.+]] = linalg.fill ins([[Z]] : f64) outs([[E]] : tensor<2x1xf64>) -> tensor<2x1xf64>
// CHECK-NEXT:    [[OUT:%.+]] = tensor.empty() : tensor<2x3xf32>
// CHECK-DAG:     [[C0:%.+]] = arith.constant 0 : index
// CHECK-DAG:     [[C3:%.+]] = arith.constant 3 : index
// CHECK-DAG:     [[C1:%.+]] = arith.constant 1 : index
// CHECK:         [[LOOP:%.+]]:2 = scf.for %[[IV:.+]] = [[C0]] to [[C3]] step [[C1]] iter_args(%[[RSUM:.+]] = [[INIT]], %[[RES:.+]] = [[OUT]]) -> (tensor<2x1xf64>, tensor<2x3xf32>) {
// CHECK-NEXT:      [[SL:%.+]] = tensor.extract_slice %[[X]][0, %[[IV]]] [2, 1] [1, 1] : tensor<2x3xf32> to tensor<2x1xf32>
// CHECK-NEXT:      [[NEXT:%.+]] = linalg.generic {indexing_maps = [#[[ID2]], #[[ID2]]], iterator_types = ["parallel", "parallel"]} ins([[SL]] : tensor<2x1xf32>) outs(%[[RSUM]] : tensor<2x1xf64>)
// CHECK-NEXT:      ^bb0(%[[IN:.+]]: f32, %[[ACC:.+]]: f64):
// CHECK-NEXT:        [[W:%.+]] = arith.extf %[[IN]] : f32 to f64
// CHECK-NEXT:        [[ADD:%.+]] = arith.addf %[[ACC]], [[W]] : f64
// CHECK-NEXT:        linalg.yield [[ADD]] : f64
// CHECK:           [[RND:%.+]] = linalg.generic {{.*}} ins([[NEXT]] : tensor<2x1xf64>) outs(%{{.+}} : tensor<2x1xf32>)
// CHECK:             arith.truncf %{{.+}} : f64 to f32
// CHECK:           [[INS:%.+]] = tensor.insert_slice [[RND]] into %[[RES]][0, %[[IV]]] [2, 1] [1, 1] : tensor<2x1xf32> into tensor<2x3xf32>
// CHECK-NEXT:      scf.yield [[NEXT]], [[INS]] : tensor<2x1xf64>, tensor<2x3xf32>
// CHECK-NEXT:    }
// Integers accumulate in their own type; the running sum is inserted as is.
// CHECK:         [[ILOOP:%.+]]:2 = scf.for %[[IV2:.+]] = %{{.+}} to %{{.+}} step %{{.+}} iter_args(%[[RSUM2:.+]] = %{{.+}}, %[[RES2:.+]] = %{{.+}}) -> (tensor<1xi32>, tensor<5xi32>) {
// CHECK-NEXT:      [[SL2:%.+]] = tensor.extract_slice %[[I]][%[[IV2]]] [1] [1] : tensor<5xi32> to tensor<1xi32>
// CHECK-NEXT:      [[NEXT2:%.+]] = linalg.generic {{.*}} ins([[SL2]] : tensor<1xi32>) outs(%[[RSUM2]] : tensor<1xi32>)
// CHECK:             arith.addi %{{.+}}, %{{.+}} : i32
// CHECK:           [[INS2:%.+]] = tensor.insert_slice [[NEXT2]] into %[[RES2]][%[[IV2]]] [1] [1] : tensor<1xi32> into tensor<5xi32>
// CHECK-NEXT:      scf.yield [[NEXT2]], [[INS2]] : tensor<1xi32>, tensor<5xi32>
// CHECK:         return [[LOOP]]#1, [[ILOOP]]#1 : tensor<2x3xf32>, tensor<5xi32>
func.func @cumsum(%x: tensor<2x3xf32>, %i: tensor<5xi32>) -> (tensor<2x3xf32>, tensor<5xi32>) {
  %r:2 = relax.dataflow -> (tensor<2x3xf32>, tensor<5xi32>) {
    %0 = relax.cumsum %x {axis = -1 : i64} : tensor<2x3xf32>
    %1 = relax.cumsum %i {axis = 0 : i64} : tensor<5xi32>
    relax.output %0, %1 : tensor<2x3xf32>, tensor<5xi32>
  }
  return %r#0, %r#1 : tensor<2x3xf32>, tensor<5xi32>
}
