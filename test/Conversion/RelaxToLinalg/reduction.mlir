// RUN: relax-opt %s --convert-relax-to-linalg | FileCheck %s

// Reductions become linalg.generic reductions into a zero-filled accumulator of
// a wider type (f16/bf16 -> f32, f32 -> f64; f64 and integers keep theirs),
// followed by one elementwise generic that divides (mean) and converts back;
// keepdims reshapes the result.

// CHECK-DAG: #[[ID3:map[0-9]*]] = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
// CHECK-DAG: #[[TO0D:map[0-9]*]] = affine_map<(d0, d1, d2) -> ()>
// CHECK-DAG: #[[KEEP02:map[0-9]*]] = affine_map<(d0, d1, d2) -> (d0, d2)>
// CHECK-DAG: #[[KEEP1:map[0-9]*]] = affine_map<(d0, d1, d2) -> (d1)>
// CHECK-DAG: #[[ID1:map[0-9]*]] = affine_map<(d0) -> (d0)>
// CHECK-DAG: #[[ID2:map[0-9]*]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-DAG: #[[KEEPD1:map[0-9]*]] = affine_map<(d0, d1) -> (d1)>
// CHECK-DAG: #[[SCALAR:map[0-9]*]] = affine_map<() -> ()>
// CHECK-DAG: #[[ROW:map[0-9]*]] = affine_map<(d0, d1) -> (d0)>
// CHECK-DAG: #[[TO0DB:map[0-9]*]] = affine_map<(d0) -> ()>
// CHECK-DAG: #[[COL0:map[0-9]*]] = affine_map<(d0, d1) -> (d0, 0)>

// CHECK-LABEL: func.func @sum_all(
// CHECK-SAME:    %[[X:.+]]: tensor<2x3x4xf32>) -> tensor<f32> {
// CHECK:         [[E:%.+]] = tensor.empty() : tensor<f64>
// CHECK:         [[Z:%.+]] = arith.constant 0.000000e+00 : f64
// CHECK:         [[I:%.+]] = linalg.fill ins([[Z]] : f64) outs([[E]] : tensor<f64>) -> tensor<f64>
// CHECK:         [[S:%.+]] = linalg.generic {indexing_maps = [#[[ID3]], #[[TO0D]]], iterator_types = ["reduction", "reduction", "reduction"]} ins(%[[X]] : tensor<2x3x4xf32>) outs([[I]] : tensor<f64>)
// CHECK-NEXT:    ^bb0(%[[IN:.+]]: f32, %[[ACC:.+]]: f64):
// CHECK-NEXT:      [[W:%.+]] = arith.extf %[[IN]] : f32 to f64
// CHECK-NEXT:      [[A:%.+]] = arith.addf [[W]], %[[ACC]] : f64
// CHECK-NEXT:      linalg.yield [[A]] : f64
// CHECK:         [[C:%.+]] = linalg.generic {indexing_maps = [#[[SCALAR]], #[[SCALAR]]], iterator_types = []} ins([[S]] : tensor<f64>) outs(%{{.+}} : tensor<f32>)
// CHECK-NEXT:    ^bb0(%[[IN2:.+]]: f64, %{{.+}}: f32):
// CHECK-NEXT:      [[T:%.+]] = arith.truncf %[[IN2]] : f64 to f32
// CHECK-NEXT:      linalg.yield [[T]] : f32
// CHECK:         return [[C]] : tensor<f32>
func.func @sum_all(%x: tensor<2x3x4xf32>) -> tensor<f32> {
  %r = relax.dataflow -> (tensor<f32>) {
    %0 = relax.sum %x : tensor<2x3x4xf32> -> tensor<f32>
    relax.output %0 : tensor<f32>
  }
  return %r : tensor<f32>
}

// A negative axis counts from the end: -2 is axis 1.
// CHECK-LABEL: func.func @sum_negative_axis(
// CHECK:         linalg.generic {indexing_maps = [#[[ID3]], #[[KEEP02]]], iterator_types = ["parallel", "reduction", "parallel"]} ins(%{{.+}} : tensor<2x3x4xf32>) outs(%{{.+}} : tensor<2x4xf64>)
// CHECK:         return %{{.+}} : tensor<2x4xf32>
func.func @sum_negative_axis(%x: tensor<2x3x4xf32>) -> tensor<2x4xf32> {
  %r = relax.dataflow -> (tensor<2x4xf32>) {
    %0 = relax.sum %x {axis = array<i64: -2>} : tensor<2x3x4xf32> -> tensor<2x4xf32>
    relax.output %0 : tensor<2x4xf32>
  }
  return %r : tensor<2x4xf32>
}

// mean over axes 0 and 2 (2 * 4 = 8 elements) with keepdims: the division runs
// on the f64 accumulator, before the conversion back to f32.
// CHECK-LABEL: func.func @mean_keepdims(
// CHECK:         [[S:%.+]] = linalg.generic {indexing_maps = [#[[ID3]], #[[KEEP1]]], iterator_types = ["reduction", "parallel", "reduction"]} ins(%{{.+}} : tensor<2x3x4xf32>) outs(%{{.+}} : tensor<3xf64>)
// CHECK:           arith.addf
// CHECK:         [[M:%.+]] = linalg.generic {indexing_maps = [#[[ID1]], #[[ID1]]], iterator_types = ["parallel"]} ins([[S]] : tensor<3xf64>) outs(%{{.+}} : tensor<3xf32>)
// CHECK-NEXT:    ^bb0(%[[IN:.+]]: f64, %{{.+}}: f32):
// CHECK-NEXT:      [[N:%.+]] = arith.constant 8.000000e+00 : f64
// CHECK-NEXT:      [[D:%.+]] = arith.divf %[[IN]], [[N]] : f64
// CHECK-NEXT:      [[T:%.+]] = arith.truncf [[D]] : f64 to f32
// CHECK-NEXT:      linalg.yield [[T]] : f32
// CHECK:         [[K:%.+]] = tensor.expand_shape [[M]] {{\[}}[0, 1, 2]] output_shape [1, 3, 1] : tensor<3xf32> into tensor<1x3x1xf32>
// CHECK:         return [[K]] : tensor<1x3x1xf32>
func.func @mean_keepdims(%x: tensor<2x3x4xf32>) -> tensor<1x3x1xf32> {
  %r = relax.dataflow -> (tensor<1x3x1xf32>) {
    %0 = relax.mean %x {axis = array<i64: 0, 2>, keepdims = true} : tensor<2x3x4xf32> -> tensor<1x3x1xf32>
    relax.output %0 : tensor<1x3x1xf32>
  }
  return %r : tensor<1x3x1xf32>
}

// f16 accumulates in f32, and the mean's count (70000, beyond f16's largest
// finite value 65504) is an f32 constant.
// CHECK-LABEL: func.func @mean_f16(
// CHECK:         linalg.generic {{.*}} ins(%{{.+}} : tensor<70000xf16>) outs(%{{.+}} : tensor<f32>)
// CHECK:           arith.extf %{{.+}} : f16 to f32
// CHECK:         linalg.generic {{.*}} ins(%{{.+}} : tensor<f32>) outs(%{{.+}} : tensor<f16>)
// CHECK:           arith.constant 7.000000e+04 : f32
// CHECK:           arith.truncf %{{.+}} : f32 to f16
func.func @mean_f16(%x: tensor<70000xf16>) -> tensor<f16> {
  %r = relax.dataflow -> (tensor<f16>) {
    %0 = relax.mean %x : tensor<70000xf16> -> tensor<f16>
    relax.output %0 : tensor<f16>
  }
  return %r : tensor<f16>
}

// f64 keeps its type: no conversion generic after the reduction.
// CHECK-LABEL: func.func @sum_f64(
// CHECK:         [[S:%.+]] = linalg.generic {{.*}} ins(%{{.+}} : tensor<5xf64>) outs(%{{.+}} : tensor<f64>)
// CHECK-NOT:     arith.truncf
// CHECK:         return [[S]] : tensor<f64>
func.func @sum_f64(%x: tensor<5xf64>) -> tensor<f64> {
  %r = relax.dataflow -> (tensor<f64>) {
    %0 = relax.sum %x : tensor<5xf64> -> tensor<f64>
    relax.output %0 : tensor<f64>
  }
  return %r : tensor<f64>
}

// A reduction over no axes (a 0-d operand, or `axis = array<i64>`) is the
// identity: never an all-parallel generic that reads its init (elementwise
// fusion re-accumulated such a generic inside a broadcasting consumer).
// CHECK-LABEL: func.func @sum_no_axes(
// CHECK-SAME:    %[[S0:.+]]: tensor<f64>, %[[Y:.+]]: tensor<2x3xf64>, %[[F:.+]]: tensor<2x3xf32>)
// CHECK-NOT:     linalg.fill
// CHECK:         [[MF:%.+]] = linalg.generic {{.*}} ins(%[[F]] : tensor<2x3xf32>) outs(%{{.+}} : tensor<2x3xf64>)
// CHECK-NEXT:    ^bb0(%[[IN:.+]]: f32, %{{.+}}: f64):
// CHECK-NEXT:      arith.extf %[[IN]] : f32 to f64
// CHECK:         linalg.generic {{.*}} ins([[MF]] : tensor<2x3xf64>) outs(%{{.+}} : tensor<2x3xf32>)
// CHECK-NOT:     linalg.fill
// CHECK:         return %[[S0]], %[[Y]], %{{.+}} :
func.func @sum_no_axes(%s: tensor<f64>, %y: tensor<2x3xf64>, %f: tensor<2x3xf32>) -> (tensor<f64>, tensor<2x3xf64>, tensor<2x3xf32>) {
  %r:3 = relax.dataflow -> (tensor<f64>, tensor<2x3xf64>, tensor<2x3xf32>) {
    %0 = relax.sum %s : tensor<f64> -> tensor<f64>
    %1 = relax.sum %y {axis = array<i64>} : tensor<2x3xf64> -> tensor<2x3xf64>
    %2 = relax.mean %f {axis = array<i64>} : tensor<2x3xf32> -> tensor<2x3xf32>
    relax.output %0, %1, %2 : tensor<f64>, tensor<2x3xf64>, tensor<2x3xf32>
  }
  return %r#0, %r#1, %r#2 : tensor<f64>, tensor<2x3xf64>, tensor<2x3xf32>
}

// sum with keepdims: a reduction to the kept dims, then expand_shape.
// CHECK-LABEL: func.func @sum_keepdims(
// CHECK:         linalg.generic {indexing_maps = [#[[ID2]], #[[KEEPD1]]], iterator_types = ["reduction", "parallel"]} ins(%{{.+}} : tensor<4x3xf32>) outs(%{{.+}} : tensor<3xf64>)
// CHECK:         [[C:%.+]] = linalg.generic {{.*}} outs(%{{.+}} : tensor<3xf32>)
// CHECK:         [[K:%.+]] = tensor.expand_shape [[C]] {{\[}}[0, 1]] output_shape [1, 3] : tensor<3xf32> into tensor<1x3xf32>
// CHECK:         return [[K]] : tensor<1x3xf32>
func.func @sum_keepdims(%x: tensor<4x3xf32>) -> tensor<1x3xf32> {
  %r = relax.dataflow -> (tensor<1x3xf32>) {
    %0 = relax.sum %x {axis = array<i64: 0>, keepdims = true} : tensor<4x3xf32> -> tensor<1x3xf32>
    relax.output %0 : tensor<1x3xf32>
  }
  return %r : tensor<1x3xf32>
}

// An integer sum accumulates with addi into a zero integer of its own type.
// CHECK-LABEL: func.func @sum_int(
// CHECK:         [[Z:%.+]] = arith.constant 0 : i32
// CHECK:         linalg.fill ins([[Z]] : i32)
// CHECK:         [[S:%.+]] = linalg.generic {indexing_maps = [#[[ID2]], #[[KEEPD1]]], iterator_types = ["reduction", "parallel"]} ins(%{{.+}} : tensor<3x2xi32>) outs(%{{.+}} : tensor<2xi32>)
// CHECK:           arith.addi
// CHECK:         return [[S]]
func.func @sum_int(%x: tensor<3x2xi32>) -> tensor<2xi32> {
  %r = relax.dataflow -> (tensor<2xi32>) {
    %0 = relax.sum %x {axis = array<i64: 0>} : tensor<3x2xi32> -> tensor<2xi32>
    relax.output %0 : tensor<2xi32>
  }
  return %r : tensor<2xi32>
}

// The lowering of the reductions max min prod variance cumsum.


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
// CHECK-NEXT:    [[MIN:%.+]] = linalg.generic {indexing_maps = [#[[ID2]], #[[KEEPD1]]], iterator_types = ["reduction", "parallel"]} ins(%[[X]] : tensor<2x3xf32>) outs([[F1]] : tensor<3xf32>)
// CHECK-NEXT:    ^bb0(%[[A1:.+]]: f32, %[[ACC1:.+]]: f32):
// CHECK-NEXT:      [[M1:%.+]] = arith.minimumf %[[A1]], %[[ACC1]] : f32
// CHECK-NEXT:      linalg.yield [[M1]] : f32
// CHECK:         [[MINK:%.+]] = tensor.expand_shape [[MIN]] {{\[\[}}0, 1]] output_shape [1, 3] : tensor<3xf32> into tensor<1x3xf32>
// CHECK:         [[IMIN:%.+]] = arith.constant -2147483648 : i32
// CHECK-NEXT:    [[F2:%.+]] = linalg.fill ins([[IMIN]] : i32) outs(%{{.+}} : tensor<i32>) -> tensor<i32>
// CHECK-NEXT:    [[IMAX:%.+]] = linalg.generic {indexing_maps = [#[[ID1]], #[[TO0DB]]], iterator_types = ["reduction"]} ins(%[[I]] : tensor<4xi32>) outs([[F2]] : tensor<i32>)
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
// CHECK-NEXT:    [[P:%.+]] = linalg.generic {indexing_maps = [#[[ID2]], #[[KEEPD1]]], iterator_types = ["reduction", "parallel"]} ins(%[[X]] : tensor<2x3xf32>) outs([[F0]] : tensor<3xf64>)
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
// CHECK-NEXT:    [[PH:%.+]] = linalg.generic {indexing_maps = [#[[ID1]], #[[TO0DB]]], iterator_types = ["reduction"]} ins(%[[H]] : tensor<4xf16>) outs([[F1]] : tensor<f32>)
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

// argmax: the maximum along the axis (kept), then the least position where x
// equals it or is NaN: positions [0, 1, 2] along the axis, 3 (past the end)
// elsewhere, an i64 min over the axis.
// CHECK-LABEL: func.func @argmax(
// CHECK-SAME:    %[[X:.+]]: tensor<4x3xf32>) -> tensor<4xi64> {
// CHECK:         arith.maximumf
// CHECK:         [[POS:%.+]] = arith.constant dense<{{\[\[}}0, 1, 2]]> : tensor<1x3xi64>
// CHECK-NEXT:    [[PAST:%.+]] = arith.constant dense<3> : tensor<i64>
// CHECK:         arith.cmpf oeq
// CHECK:         linalg.generic {{.*}} ins({{%.+}}, [[POS]], [[PAST]] : tensor<4x3xi1>, tensor<1x3xi64>, tensor<i64>)
// CHECK:           arith.select
// CHECK:         arith.cmpf une
// CHECK:         linalg.generic {{.*}} ins({{%.+}}, [[POS]], {{%.+}} : tensor<4x3xi1>, tensor<1x3xi64>, tensor<4x3xi64>)
// CHECK:         [[BIG:%.+]] = arith.constant 9223372036854775807 : i64
// CHECK:         linalg.generic {{.*}}iterator_types = ["parallel", "reduction"]
// CHECK-NEXT:    ^bb0(%{{.+}}: i64, %{{.+}}: i64):
// CHECK-NEXT:      arith.minsi
func.func @argmax(%x: tensor<4x3xf32>) -> tensor<4xi64> {
  %r = relax.dataflow -> (tensor<4xi64>) {
    %0 = relax.argmax %x {axis = 1 : i64} : tensor<4x3xf32> -> tensor<4xi64>
    relax.output %0 : tensor<4xi64>
  }
  return %r : tensor<4xi64>
}
