// RUN: relax-opt %s --convert-relax-to-linalg | FileCheck %s
// RUN: relax-opt %s --convert-relax-to-linalg | FileCheck %s --check-prefix=NORELAX

// No relax op is left anywhere in the module.
// NORELAX: module
// NORELAX-NOT: = relax.
// NORELAX-NOT: relax.output
// NORELAX-NOT: relax.dataflow

// Reductions become linalg.generic reductions into a zero-filled init; mean
// divides by the number of reduced elements; keepdims reshapes the result.

// CHECK-DAG: #[[ID3:map[0-9]*]] = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
// CHECK-DAG: #[[TO0D:map[0-9]*]] = affine_map<(d0, d1, d2) -> ()>
// CHECK-DAG: #[[KEEP02:map[0-9]*]] = affine_map<(d0, d1, d2) -> (d0, d2)>
// CHECK-DAG: #[[KEEP1:map[0-9]*]] = affine_map<(d0, d1, d2) -> (d1)>
// CHECK-DAG: #[[ID1:map[0-9]*]] = affine_map<(d0) -> (d0)>
// CHECK-DAG: #[[ID2:map[0-9]*]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-DAG: #[[KEEPD1:map[0-9]*]] = affine_map<(d0, d1) -> (d1)>

// CHECK-LABEL: func.func @sum_all(
// CHECK-SAME:    %[[X:.+]]: tensor<2x3x4xf32>) -> tensor<f32> {
// CHECK:         [[E:%.+]] = tensor.empty() : tensor<f32>
// CHECK:         [[Z:%.+]] = arith.constant 0.000000e+00 : f32
// CHECK:         [[I:%.+]] = linalg.fill ins([[Z]] : f32) outs([[E]] : tensor<f32>) -> tensor<f32>
// CHECK:         [[S:%.+]] = linalg.generic {indexing_maps = [#[[ID3]], #[[TO0D]]], iterator_types = ["reduction", "reduction", "reduction"]} ins(%[[X]] : tensor<2x3x4xf32>) outs([[I]] : tensor<f32>)
// CHECK-NEXT:    ^bb0(%[[IN:.+]]: f32, %[[ACC:.+]]: f32):
// CHECK-NEXT:      [[A:%.+]] = arith.addf %[[IN]], %[[ACC]] : f32
// CHECK-NEXT:      linalg.yield [[A]] : f32
// CHECK:         return [[S]] : tensor<f32>
func.func @sum_all(%x: tensor<2x3x4xf32>) -> tensor<f32> {
  %r = relax.dataflow -> (tensor<f32>) {
    %0 = relax.sum %x : tensor<2x3x4xf32> -> tensor<f32>
    relax.output %0 : tensor<f32>
  }
  return %r : tensor<f32>
}

// A negative axis counts from the end: -2 is axis 1.
// CHECK-LABEL: func.func @sum_negative_axis(
// CHECK:         linalg.generic {indexing_maps = [#[[ID3]], #[[KEEP02]]], iterator_types = ["parallel", "reduction", "parallel"]} ins(%{{.+}} : tensor<2x3x4xf32>) outs(%{{.+}} : tensor<2x4xf32>)
// CHECK:         return %{{.+}} : tensor<2x4xf32>
func.func @sum_negative_axis(%x: tensor<2x3x4xf32>) -> tensor<2x4xf32> {
  %r = relax.dataflow -> (tensor<2x4xf32>) {
    %0 = relax.sum %x {axis = array<i64: -2>} : tensor<2x3x4xf32> -> tensor<2x4xf32>
    relax.output %0 : tensor<2x4xf32>
  }
  return %r : tensor<2x4xf32>
}

// mean over axes 0 and 2 (2 * 4 = 8 elements) with keepdims.
// CHECK-LABEL: func.func @mean_keepdims(
// CHECK:         [[S:%.+]] = linalg.generic {indexing_maps = [#[[ID3]], #[[KEEP1]]], iterator_types = ["reduction", "parallel", "reduction"]} ins(%{{.+}} : tensor<2x3x4xf32>) outs(%{{.+}} : tensor<3xf32>)
// CHECK:           arith.addf
// CHECK:         [[N:%.+]] = arith.constant 8.000000e+00 : f32
// CHECK:         [[M:%.+]] = linalg.generic {indexing_maps = [#[[ID1]], #[[ID1]]], iterator_types = ["parallel"]} ins([[S]] : tensor<3xf32>)
// CHECK-NEXT:    ^bb0(%[[IN:.+]]: f32, %{{.+}}: f32):
// CHECK-NEXT:      [[D:%.+]] = arith.divf %[[IN]], [[N]] : f32
// CHECK-NEXT:      linalg.yield [[D]] : f32
// CHECK:         [[K:%.+]] = tensor.expand_shape [[M]] {{\[}}[0, 1, 2]] output_shape [1, 3, 1] : tensor<3xf32> into tensor<1x3x1xf32>
// CHECK:         return [[K]] : tensor<1x3x1xf32>
func.func @mean_keepdims(%x: tensor<2x3x4xf32>) -> tensor<1x3x1xf32> {
  %r = relax.dataflow -> (tensor<1x3x1xf32>) {
    %0 = relax.mean %x {axis = array<i64: 0, 2>, keepdims = true} : tensor<2x3x4xf32> -> tensor<1x3x1xf32>
    relax.output %0 : tensor<1x3x1xf32>
  }
  return %r : tensor<1x3x1xf32>
}

// mean over all 24 elements.
// CHECK-LABEL: func.func @mean_all(
// CHECK:         [[S:%.+]] = linalg.generic {indexing_maps = [#[[ID3]], #[[TO0D]]], iterator_types = ["reduction", "reduction", "reduction"]}
// CHECK:         [[N:%.+]] = arith.constant 2.400000e+01 : f32
// CHECK:         [[M:%.+]] = linalg.generic {{.*}} ins([[S]] : tensor<f32>) outs(%{{.+}} : tensor<f32>)
// CHECK:           arith.divf %{{.+}}, [[N]] : f32
// CHECK:         return [[M]] : tensor<f32>
func.func @mean_all(%x: tensor<2x3x4xf32>) -> tensor<f32> {
  %r = relax.dataflow -> (tensor<f32>) {
    %0 = relax.mean %x : tensor<2x3x4xf32> -> tensor<f32>
    relax.output %0 : tensor<f32>
  }
  return %r : tensor<f32>
}

// sum with keepdims: a reduction to the kept dims, then expand_shape.
// CHECK-LABEL: func.func @sum_keepdims(
// CHECK:         [[S:%.+]] = linalg.generic {indexing_maps = [#[[ID2]], #[[KEEPD1]]], iterator_types = ["reduction", "parallel"]} ins(%{{.+}} : tensor<4x3xf32>) outs(%{{.+}} : tensor<3xf32>)
// CHECK:         [[K:%.+]] = tensor.expand_shape [[S]] {{\[}}[0, 1]] output_shape [1, 3] : tensor<3xf32> into tensor<1x3xf32>
// CHECK:         return [[K]] : tensor<1x3xf32>
func.func @sum_keepdims(%x: tensor<4x3xf32>) -> tensor<1x3xf32> {
  %r = relax.dataflow -> (tensor<1x3xf32>) {
    %0 = relax.sum %x {axis = array<i64: 0>, keepdims = true} : tensor<4x3xf32> -> tensor<1x3xf32>
    relax.output %0 : tensor<1x3xf32>
  }
  return %r : tensor<1x3xf32>
}

// An integer sum accumulates with addi into a zero integer.
// CHECK-LABEL: func.func @sum_int(
// CHECK:         [[Z:%.+]] = arith.constant 0 : i32
// CHECK:         linalg.fill ins([[Z]] : i32)
// CHECK:         linalg.generic {indexing_maps = [#[[ID2]], #[[KEEPD1]]], iterator_types = ["reduction", "parallel"]} ins(%{{.+}} : tensor<3x2xi32>) outs(%{{.+}} : tensor<2xi32>)
// CHECK:           arith.addi
func.func @sum_int(%x: tensor<3x2xi32>) -> tensor<2xi32> {
  %r = relax.dataflow -> (tensor<2xi32>) {
    %0 = relax.sum %x {axis = array<i64: 0>} : tensor<3x2xi32> -> tensor<2xi32>
    relax.output %0 : tensor<2xi32>
  }
  return %r : tensor<2xi32>
}
