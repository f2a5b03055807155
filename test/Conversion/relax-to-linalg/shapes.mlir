// RUN: relax-opt %s --convert-relax-to-linalg | FileCheck %s
// RUN: relax-opt %s --convert-relax-to-linalg | FileCheck %s --check-prefix=NORELAX

// No relax op is left anywhere in the module.
// NORELAX: module
// NORELAX-NOT: = relax.
// NORELAX-NOT: relax.output
// NORELAX-NOT: relax.dataflow

// CHECK-DAG: #[[BIN:map[0-9]*]] = affine_map<(d0, d1, d2) -> (d2)>
// CHECK-DAG: #[[ID3:map[0-9]*]] = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
// CHECK-DAG: #[[BONE:map[0-9]*]] = affine_map<(d0, d1, d2) -> (0, d1, d2)>
// CHECK-DAG: #[[KEEP1:map[0-9]*]] = affine_map<(d0, d1, d2) -> (d1)>
// CHECK-DAG: #[[TO0D:map[0-9]*]] = affine_map<(d0, d1, d2) -> ()>
// CHECK-DAG: #[[ID2:map[0-9]*]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-DAG: #[[KEEPD1:map[0-9]*]] = affine_map<(d0, d1) -> (d1)>

// permute_dims becomes linalg.transpose; without axes it reverses.
// CHECK-LABEL: func.func @permute_dims(
// CHECK-SAME:    %[[X:.+]]: tensor<2x3x4xf32>)
// CHECK:         [[E0:%.+]] = tensor.empty() : tensor<3x4x2xf32>
// CHECK:         [[T0:%.+]] = linalg.transpose ins(%[[X]] : tensor<2x3x4xf32>) outs([[E0]] : tensor<3x4x2xf32>) permutation = [1, 2, 0]
// CHECK:         [[E1:%.+]] = tensor.empty() : tensor<4x3x2xf32>
// CHECK:         [[T1:%.+]] = linalg.transpose ins(%[[X]] : tensor<2x3x4xf32>) outs([[E1]] : tensor<4x3x2xf32>) permutation = [2, 1, 0]
// CHECK:         [[E2:%.+]] = tensor.empty() : tensor<4x2x3xf32>
// CHECK:         [[T2:%.+]] = linalg.transpose ins(%[[X]] : tensor<2x3x4xf32>) outs([[E2]] : tensor<4x2x3xf32>) permutation = [2, 0, 1]
// CHECK:         return [[T0]], [[T1]], [[T2]]
func.func @permute_dims(%x: tensor<2x3x4xf32>) -> (tensor<3x4x2xf32>, tensor<4x3x2xf32>, tensor<4x2x3xf32>) {
  %r:3 = relax.dataflow -> (tensor<3x4x2xf32>, tensor<4x3x2xf32>, tensor<4x2x3xf32>) {
    %0 = relax.permute_dims %x {axes = array<i64: 1, 2, 0>} : tensor<2x3x4xf32> -> tensor<3x4x2xf32>
    %1 = relax.permute_dims %x : tensor<2x3x4xf32> -> tensor<4x3x2xf32>
    %2 = relax.permute_dims %x {axes = array<i64: -1, 0, 1>} : tensor<2x3x4xf32> -> tensor<4x2x3xf32>
    relax.output %0, %1, %2 : tensor<3x4x2xf32>, tensor<4x3x2xf32>, tensor<4x2x3xf32>
  }
  return %r#0, %r#1, %r#2 : tensor<3x4x2xf32>, tensor<4x3x2xf32>, tensor<4x2x3xf32>
}

// A reshape that only merges (or only splits) neighbouring dims is one
// collapse_shape (expand_shape) keeping the other dims; any other goes through a
// 1-D tensor; 0-d tensors use empty reassociations.
// CHECK-LABEL: func.func @reshape(
// CHECK-SAME:    %[[X:.+]]: tensor<2x3x4xf32>, %[[S:.+]]: tensor<f32>, %[[M:.+]]: tensor<1x1xf32>)
// CHECK:         [[R0:%.+]] = tensor.collapse_shape %[[X]] {{\[}}[0, 1], [2]] : tensor<2x3x4xf32> into tensor<6x4xf32>
// CHECK:         [[R1:%.+]] = tensor.collapse_shape %[[X]] {{\[}}[0, 1, 2]] : tensor<2x3x4xf32> into tensor<24xf32>
// CHECK:         [[S1:%.+]] = tensor.expand_shape %[[S]] [] output_shape [1] : tensor<f32> into tensor<1xf32>
// CHECK:         [[R2:%.+]] = tensor.expand_shape [[S1]] {{\[}}[0, 1]] output_shape [1, 1] : tensor<1xf32> into tensor<1x1xf32>
// CHECK:         [[B1:%.+]] = tensor.collapse_shape %[[M]] {{\[}}[0, 1]] : tensor<1x1xf32> into tensor<1xf32>
// CHECK:         [[R3:%.+]] = tensor.collapse_shape [[B1]] [] : tensor<1xf32> into tensor<f32>
// CHECK:         return [[R0]], [[R1]], [[R2]], [[R3]]
func.func @reshape(%x: tensor<2x3x4xf32>, %s: tensor<f32>, %m: tensor<1x1xf32>) -> (tensor<6x4xf32>, tensor<24xf32>, tensor<1x1xf32>, tensor<f32>) {
  %r:4 = relax.dataflow -> (tensor<6x4xf32>, tensor<24xf32>, tensor<1x1xf32>, tensor<f32>) {
    %0 = relax.reshape %x : tensor<2x3x4xf32> -> tensor<6x4xf32>
    %1 = relax.reshape %x : tensor<2x3x4xf32> -> tensor<24xf32>
    %2 = relax.reshape %s : tensor<f32> -> tensor<1x1xf32>
    %3 = relax.reshape %m : tensor<1x1xf32> -> tensor<f32>
    relax.output %0, %1, %2, %3 : tensor<6x4xf32>, tensor<24xf32>, tensor<1x1xf32>, tensor<f32>
  }
  return %r#0, %r#1, %r#2, %r#3 : tensor<6x4xf32>, tensor<24xf32>, tensor<1x1xf32>, tensor<f32>
}

// Splitting dims is one expand_shape; a reshape that is neither a pure merge
// nor a pure split (2x3 -> 3x2) goes through 1-D.
// CHECK-LABEL: func.func @reshape_split(
// CHECK:         tensor.expand_shape %{{.+}} {{\[}}[0], [1, 2]] output_shape [4, 2, 3] : tensor<4x6xf32> into tensor<4x2x3xf32>
// CHECK:         [[F:%.+]] = tensor.collapse_shape %{{.+}} {{\[}}[0, 1]] : tensor<2x3xf32> into tensor<6xf32>
// CHECK:         tensor.expand_shape [[F]] {{\[}}[0, 1]] output_shape [3, 2] : tensor<6xf32> into tensor<3x2xf32>
func.func @reshape_split(%x: tensor<4x6xf32>, %y: tensor<2x3xf32>) -> (tensor<4x2x3xf32>, tensor<3x2xf32>) {
  %r:2 = relax.dataflow -> (tensor<4x2x3xf32>, tensor<3x2xf32>) {
    %0 = relax.reshape %x : tensor<4x6xf32> -> tensor<4x2x3xf32>
    %1 = relax.reshape %y : tensor<2x3xf32> -> tensor<3x2xf32>
    relax.output %0, %1 : tensor<4x2x3xf32>, tensor<3x2xf32>
  }
  return %r#0, %r#1 : tensor<4x2x3xf32>, tensor<3x2xf32>
}

// broadcast_to is an identity linalg.generic with a broadcasting input map.
// CHECK-LABEL: func.func @broadcast_to(
// CHECK-SAME:    %[[V:.+]]: tensor<3xf32>, %[[W:.+]]: tensor<1x4x3xf32>)
// CHECK:         linalg.generic {indexing_maps = [#[[BIN]], #[[ID3]]], iterator_types = ["parallel", "parallel", "parallel"]} ins(%[[V]] : tensor<3xf32>) outs(%{{.+}} : tensor<2x4x3xf32>)
// CHECK-NEXT:    ^bb0(%[[IN:.+]]: f32, %{{.+}}: f32):
// CHECK-NEXT:      linalg.yield %[[IN]] : f32
// CHECK:         linalg.generic {indexing_maps = [#[[BONE]], #[[ID3]]], iterator_types = ["parallel", "parallel", "parallel"]} ins(%[[W]] : tensor<1x4x3xf32>) outs(%{{.+}} : tensor<2x4x3xf32>)
func.func @broadcast_to(%v: tensor<3xf32>, %w: tensor<1x4x3xf32>) -> (tensor<2x4x3xf32>, tensor<2x4x3xf32>) {
  %r:2 = relax.dataflow -> (tensor<2x4x3xf32>, tensor<2x4x3xf32>) {
    %0 = relax.broadcast_to %v : tensor<3xf32> -> tensor<2x4x3xf32>
    %1 = relax.broadcast_to %w : tensor<1x4x3xf32> -> tensor<2x4x3xf32>
    relax.output %0, %1 : tensor<2x4x3xf32>, tensor<2x4x3xf32>
  }
  return %r#0, %r#1 : tensor<2x4x3xf32>, tensor<2x4x3xf32>
}

// collapse_sum_to sums the leading dims and the dims broadcast from 1, then
// reshapes to the result type.
// CHECK-LABEL: func.func @collapse_sum_to(
// CHECK-SAME:    %[[X:.+]]: tensor<2x4x3xf32>, %[[Y:.+]]: tensor<4x3xf32>)
// CHECK:         [[S0:%.+]] = linalg.generic {indexing_maps = [#[[ID3]], #[[KEEP1]]], iterator_types = ["reduction", "parallel", "reduction"]} ins(%[[X]] : tensor<2x4x3xf32>) outs(%{{.+}} : tensor<4xf64>)
// CHECK:           arith.addf
// CHECK:         [[C0:%.+]] = linalg.generic {{.*}} ins([[S0]] : tensor<4xf64>) outs(%{{.+}} : tensor<4xf32>)
// CHECK:           arith.truncf
// CHECK:         [[R0:%.+]] = tensor.expand_shape [[C0]] {{\[}}[0, 1]] output_shape [4, 1] : tensor<4xf32> into tensor<4x1xf32>
// CHECK:         [[S1:%.+]] = linalg.generic {indexing_maps = [#[[ID3]], #[[TO0D]]], iterator_types = ["reduction", "reduction", "reduction"]} ins(%[[X]] : tensor<2x4x3xf32>) outs(%{{.+}} : tensor<f64>)
// CHECK:         [[C1:%.+]] = linalg.generic {{.*}} ins([[S1]] : tensor<f64>) outs(%{{.+}} : tensor<f32>)
// CHECK:         [[S2:%.+]] = linalg.generic {indexing_maps = [#[[ID2]], #[[KEEPD1]]], iterator_types = ["reduction", "parallel"]} ins(%[[Y]] : tensor<4x3xf32>) outs(%{{.+}} : tensor<3xf64>)
// CHECK:         [[C2:%.+]] = linalg.generic {{.*}} ins([[S2]] : tensor<3xf64>) outs(%{{.+}} : tensor<3xf32>)
// CHECK:         return [[R0]], [[C1]], [[C2]]
func.func @collapse_sum_to(%x: tensor<2x4x3xf32>, %y: tensor<4x3xf32>) -> (tensor<4x1xf32>, tensor<f32>, tensor<3xf32>) {
  %r:3 = relax.dataflow -> (tensor<4x1xf32>, tensor<f32>, tensor<3xf32>) {
    %0 = relax.collapse_sum_to %x : tensor<2x4x3xf32> -> tensor<4x1xf32>
    %1 = relax.collapse_sum_to %x : tensor<2x4x3xf32> -> tensor<f32>
    %2 = relax.collapse_sum_to %y : tensor<4x3xf32> -> tensor<3xf32>
    relax.output %0, %1, %2 : tensor<4x1xf32>, tensor<f32>, tensor<3xf32>
  }
  return %r#0, %r#1, %r#2 : tensor<4x1xf32>, tensor<f32>, tensor<3xf32>
}
