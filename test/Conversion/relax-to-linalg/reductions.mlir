// RUN: relax-opt %s --convert-relax-to-linalg | FileCheck %s
// RUN: relax-opt %s --convert-relax-to-linalg | FileCheck %s --check-prefix=NORELAX

// No relax op is left anywhere in the module.
// NORELAX: module
// NORELAX-NOT: = relax.
// NORELAX-NOT: relax.output
// NORELAX-NOT: relax.dataflow

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
