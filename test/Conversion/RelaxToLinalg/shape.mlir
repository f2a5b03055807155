// RUN: relax-opt %s --convert-relax-to-linalg | FileCheck %s

// CHECK-DAG: #[[BIN:map[0-9]*]] = affine_map<(d0, d1, d2) -> (d2)>
// CHECK-DAG: #[[ID3:map[0-9]*]] = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
// CHECK-DAG: #[[BONE:map[0-9]*]] = affine_map<(d0, d1, d2) -> (0, d1, d2)>
// CHECK-DAG: #[[KEEP1:map[0-9]*]] = affine_map<(d0, d1, d2) -> (d1)>
// CHECK-DAG: #[[TO0D:map[0-9]*]] = affine_map<(d0, d1, d2) -> ()>
// CHECK-DAG: #[[ID2:map[0-9]*]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-DAG: #[[KEEPD1:map[0-9]*]] = affine_map<(d0, d1) -> (d1)>
// CHECK-DAG: #[[REV0:map[0-9]*]] = affine_map<(d0, d1) -> (-d0 + 1, d1)>
// CHECK-DAG: #[[TILE:map[0-9]*]] = affine_map<(d0, d1, d2) -> (d1 mod 2, d2)>

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

// The lowering of the shape ops expand_dims squeeze flatten concat split take
// strided_slice tile pad triu tril.


// expand_dims, squeeze and flatten are reshapes.
// CHECK-LABEL: func.func @regroup(
// CHECK-SAME:    %[[X:.+]]: tensor<3xf32>, %[[Y:.+]]: tensor<1x3x1xf32>, %[[Z:.+]]: tensor<2x3xf32>)
// CHECK-NEXT:    [[E:%.+]] = tensor.expand_shape %[[X]] {{\[\[}}0, 1, 2]] output_shape [1, 3, 1] : tensor<3xf32> into tensor<1x3x1xf32>
// CHECK-NEXT:    [[S:%.+]] = tensor.collapse_shape %[[Y]] {{\[\[}}0, 1, 2]] : tensor<1x3x1xf32> into tensor<3xf32>
// CHECK-NEXT:    [[F:%.+]] = tensor.collapse_shape %[[Z]] {{\[\[}}0, 1]] : tensor<2x3xf32> into tensor<6xf32>
// CHECK-NEXT:    return [[E]], [[S]], [[F]] :
func.func @regroup(%x: tensor<3xf32>, %y: tensor<1x3x1xf32>, %z: tensor<2x3xf32>) -> (tensor<1x3x1xf32>, tensor<3xf32>, tensor<6xf32>) {
  %r:3 = relax.dataflow -> (tensor<1x3x1xf32>, tensor<3xf32>, tensor<6xf32>) {
    %0 = relax.expand_dims %x {axis = array<i64: 0, -1>} : tensor<3xf32> -> tensor<1x3x1xf32>
    %1 = relax.squeeze %y : tensor<1x3x1xf32> -> tensor<3xf32>
    %2 = relax.flatten %z : tensor<2x3xf32> -> tensor<6xf32>
    relax.output %0, %1, %2 : tensor<1x3x1xf32>, tensor<3xf32>, tensor<6xf32>
  }
  return %r#0, %r#1, %r#2 : tensor<1x3x1xf32>, tensor<3xf32>, tensor<6xf32>
}

// concat inserts each operand at its offset along the axis into one empty
// tensor.
// CHECK-LABEL: func.func @concat(
// CHECK-SAME:    %[[A:.+]]: tensor<2x3xf32>, %[[B:.+]]: tensor<2x1xf32>, %[[C:.+]]: tensor<2x2xf32>) -> tensor<2x6xf32> {
// CHECK-NEXT:    [[E:%.+]] = tensor.empty() : tensor<2x6xf32>
// CHECK-NEXT:    [[I0:%.+]] = tensor.insert_slice %[[A]] into [[E]][0, 0] [2, 3] [1, 1] : tensor<2x3xf32> into tensor<2x6xf32>
// CHECK-NEXT:    [[I1:%.+]] = tensor.insert_slice %[[B]] into [[I0]][0, 3] [2, 1] [1, 1] : tensor<2x1xf32> into tensor<2x6xf32>
// CHECK-NEXT:    [[I2:%.+]] = tensor.insert_slice %[[C]] into [[I1]][0, 4] [2, 2] [1, 1] : tensor<2x2xf32> into tensor<2x6xf32>
// CHECK-NEXT:    return [[I2]] : tensor<2x6xf32>
func.func @concat(%a: tensor<2x3xf32>, %b: tensor<2x1xf32>, %c: tensor<2x2xf32>) -> tensor<2x6xf32> {
  %r = relax.dataflow -> (tensor<2x6xf32>) {
    %0 = relax.concat %a, %b, %c {axis = -1 : i64} : tensor<2x3xf32>, tensor<2x1xf32>, tensor<2x2xf32> -> tensor<2x6xf32>
    relax.output %0 : tensor<2x6xf32>
  }
  return %r : tensor<2x6xf32>
}

// split becomes one extract_slice per part; a split point beyond the axis
// gives an empty part, which is just an empty tensor (as is every relax result
// with no elements).
// CHECK-LABEL: func.func @split(
// CHECK-SAME:    %[[X:.+]]: tensor<5x2xf32>)
// CHECK-NEXT:    [[P0:%.+]] = tensor.extract_slice %[[X]][0, 0] [1, 2] [1, 1] : tensor<5x2xf32> to tensor<1x2xf32>
// CHECK-NEXT:    [[P1:%.+]] = tensor.extract_slice %[[X]][1, 0] [4, 2] [1, 1] : tensor<5x2xf32> to tensor<4x2xf32>
// CHECK-NEXT:    [[P2:%.+]] = tensor.empty() : tensor<0x2xf32>
// CHECK-NEXT:    return [[P0]], [[P1]], [[P2]] :
func.func @split(%x: tensor<5x2xf32>) -> (tensor<1x2xf32>, tensor<4x2xf32>, tensor<0x2xf32>) {
  %r:3 = relax.dataflow -> (tensor<1x2xf32>, tensor<4x2xf32>, tensor<0x2xf32>) {
    %t = relax.split %x {indices_or_sections = array<i64: 1, 7>} : tensor<5x2xf32> -> tuple<tensor<1x2xf32>, tensor<4x2xf32>, tensor<0x2xf32>>
    %a = relax.tuple_get_item %t[0] : tuple<tensor<1x2xf32>, tensor<4x2xf32>, tensor<0x2xf32>>
    %b = relax.tuple_get_item %t[1] : tuple<tensor<1x2xf32>, tensor<4x2xf32>, tensor<0x2xf32>>
    %c = relax.tuple_get_item %t[2] : tuple<tensor<1x2xf32>, tensor<4x2xf32>, tensor<0x2xf32>>
    relax.output %a, %b, %c : tensor<1x2xf32>, tensor<4x2xf32>, tensor<0x2xf32>
  }
  return %r#0, %r#1, %r#2 : tensor<1x2xf32>, tensor<4x2xf32>, tensor<0x2xf32>
}

// Equal sections along axis 1.
// CHECK-LABEL: func.func @split_sections(
// CHECK-SAME:    %[[X:.+]]: tensor<2x4xf32>)
// CHECK-NEXT:    [[P0:%.+]] = tensor.extract_slice %[[X]][0, 0] [2, 2] [1, 1] : tensor<2x4xf32> to tensor<2x2xf32>
// CHECK-NEXT:    [[P1:%.+]] = tensor.extract_slice %[[X]][0, 2] [2, 2] [1, 1] : tensor<2x4xf32> to tensor<2x2xf32>
// CHECK-NEXT:    return [[P0]], [[P1]] :
func.func @split_sections(%x: tensor<2x4xf32>) -> (tensor<2x2xf32>, tensor<2x2xf32>) {
  %r:2 = relax.dataflow -> (tensor<2x2xf32>, tensor<2x2xf32>) {
    %t = relax.split %x {indices_or_sections = 2 : i64, axis = 1 : i64} : tensor<2x4xf32> -> tuple<tensor<2x2xf32>, tensor<2x2xf32>>
    %a = relax.tuple_get_item %t[0] : tuple<tensor<2x2xf32>, tensor<2x2xf32>>
    %b = relax.tuple_get_item %t[1] : tuple<tensor<2x2xf32>, tensor<2x2xf32>>
    relax.output %a, %b : tensor<2x2xf32>, tensor<2x2xf32>
  }
  return %r#0, %r#1 : tensor<2x2xf32>, tensor<2x2xf32>
}

// take: a generic over the result reads the index at the result's index dims,
// normalizes it (+ n when negative, then clamped into [0, n)) and extracts x
// there; without axis x is flattened first.
// CHECK-LABEL: func.func @take(
// CHECK-SAME:    %[[X:.+]]: tensor<5x3xf32>, %[[I:.+]]: tensor<2xi64>, %[[J:.+]]: tensor<2x2xi32>)
// CHECK:         [[T0:%.+]] = linalg.generic {indexing_maps = [#[[KEEPD1]], #[[ID2]]], iterator_types = ["parallel", "parallel"]} ins(%[[I]] : tensor<2xi64>) outs(%{{.+}} : tensor<5x2xf32>)
// CHECK-NEXT:    ^bb0(%[[IDX:.+]]: i64, %{{.+}}: f32):
// CHECK-DAG:       [[N:%.+]] = arith.constant 3 : i64
// CHECK-DAG:       [[Z:%.+]] = arith.constant 0 : i64
// CHECK:           [[NEG:%.+]] = arith.cmpi slt, %[[IDX]], [[Z]] : i64
// CHECK-NEXT:      [[WR:%.+]] = arith.addi %[[IDX]], [[N]] : i64
// CHECK-NEXT:      [[NRM:%.+]] = arith.select [[NEG]], [[WR]], %[[IDX]] : i64
// CHECK:           [[LO:%.+]] = arith.maxsi [[NRM]], %{{.+}} : i64
// CHECK-NEXT:      [[HI:%.+]] = arith.constant 2 : i64
// CHECK-NEXT:      [[CL:%.+]] = arith.minsi [[LO]], [[HI]] : i64
// CHECK-NEXT:      [[COLI:%.+]] = arith.index_cast [[CL]] : i64 to index
// CHECK-NEXT:      [[ROW:%.+]] = linalg.index 0 : index
// CHECK-NEXT:      [[V:%.+]] = tensor.extract %[[X]]{{\[}}[[ROW]], [[COLI]]] : tensor<5x3xf32>
// CHECK-NEXT:      linalg.yield [[V]] : f32
// CHECK:         [[FLAT:%.+]] = tensor.collapse_shape %[[X]] {{\[\[}}0, 1]] : tensor<5x3xf32> into tensor<15xf32>
// CHECK:         [[T1:%.+]] = linalg.generic {indexing_maps = [#[[ID2]], #[[ID2]]], iterator_types = ["parallel", "parallel"]} ins(%[[J]] : tensor<2x2xi32>) outs(%{{.+}} : tensor<2x2xf32>)
// CHECK:           arith.constant 15 : i32
// CHECK:           arith.constant 14 : i32
// CHECK:           tensor.extract [[FLAT]][%{{.+}}] : tensor<15xf32>
// CHECK:         return [[T0]], [[T1]] :
func.func @take(%x: tensor<5x3xf32>, %i: tensor<2xi64>, %j: tensor<2x2xi32>) -> (tensor<5x2xf32>, tensor<2x2xf32>) {
  %r:2 = relax.dataflow -> (tensor<5x2xf32>, tensor<2x2xf32>) {
    %0 = relax.take %x, %i {axis = 1 : i64} : tensor<5x3xf32>, tensor<2xi64> -> tensor<5x2xf32>
    %1 = relax.take %x, %j : tensor<5x3xf32>, tensor<2x2xi32> -> tensor<2x2xf32>
    relax.output %0, %1 : tensor<5x2xf32>, tensor<2x2xf32>
  }
  return %r#0, %r#1 : tensor<5x2xf32>, tensor<2x2xf32>
}

// scatter_add: x and updates viewed as [pre, n, post] / [pre, m, post]; an
// scf.for over the m indices carries the result, normalizes index j as take
// does and adds update slice j into the slice at it, in place (the generic's
// output is the extracted slice of the carried tensor).
// CHECK-LABEL: func.func @scatter_add(
// CHECK-SAME:    %[[X:.+]]: tensor<2x5x3xf32>, %[[I:.+]]: tensor<2x2xi32>, %[[U:.+]]: tensor<2x2x2x3xf32>)
// CHECK-DAG:     [[UP:%.+]] = tensor.collapse_shape %[[U]] {{.+}} : tensor<2x2x2x3xf32> into tensor<2x4x3xf32>
// CHECK-DAG:     [[IF:%.+]] = tensor.collapse_shape %[[I]] {{.+}} : tensor<2x2xi32> into tensor<4xi32>
// CHECK-DAG:     [[C0:%.+]] = arith.constant 0 : index
// CHECK-DAG:     [[C1:%.+]] = arith.constant 1 : index
// CHECK-DAG:     [[C4:%.+]] = arith.constant 4 : index
// CHECK:         [[R:%.+]] = scf.for [[J:%.+]] = [[C0]] to [[C4]] step [[C1]] iter_args([[ACC:%.+]] = %[[X]]) -> (tensor<2x5x3xf32>) {
// CHECK-NEXT:      [[IDX:%.+]] = tensor.extract [[IF]]{{\[}}[[J]]] : tensor<4xi32>
// CHECK:           arith.constant 5 : i32
// CHECK:           arith.cmpi slt, [[IDX]]
// CHECK:           arith.constant 4 : i32
// CHECK:           [[AT:%.+]] = arith.index_cast %{{.+}} : i32 to index
// CHECK-NEXT:      [[ROW:%.+]] = tensor.extract_slice [[ACC]][0, [[AT]], 0] [2, 1, 3] [1, 1, 1] : tensor<2x5x3xf32> to tensor<2x3xf32>
// CHECK-NEXT:      [[UPD:%.+]] = tensor.extract_slice [[UP]][0, [[J]], 0] [2, 1, 3] [1, 1, 1] : tensor<2x4x3xf32> to tensor<2x3xf32>
// CHECK-NEXT:      [[SUM:%.+]] = linalg.generic {indexing_maps = [#[[ID2]], #[[ID2]]], iterator_types = ["parallel", "parallel"]} ins([[UPD]] : tensor<2x3xf32>) outs([[ROW]] : tensor<2x3xf32>)
// CHECK-NEXT:      ^bb0(%[[IN:.+]]: f32, %[[OUT:.+]]: f32):
// CHECK-NEXT:        [[ADD:%.+]] = arith.addf %[[OUT]], %[[IN]] : f32
// CHECK-NEXT:        linalg.yield [[ADD]] : f32
// CHECK:           [[INS:%.+]] = tensor.insert_slice [[SUM]] into [[ACC]][0, [[AT]], 0] [2, 1, 3] [1, 1, 1] : tensor<2x3xf32> into tensor<2x5x3xf32>
// CHECK-NEXT:      scf.yield [[INS]] : tensor<2x5x3xf32>
// CHECK:         return [[R]] : tensor<2x5x3xf32>
func.func @scatter_add(%x: tensor<2x5x3xf32>, %i: tensor<2x2xi32>, %u: tensor<2x2x2x3xf32>) -> tensor<2x5x3xf32> {
  %r = relax.scatter_add %x, %i, %u {axis = 1 : i64} : tensor<2x5x3xf32>, tensor<2x2xi32>, tensor<2x2x2x3xf32> -> tensor<2x5x3xf32>
  return %r : tensor<2x5x3xf32>
}

// scatter: scatter_add's loop with the reduction's combination in the slice
// generic (here the maximum, maximumf: NaN propagates).
// CHECK-LABEL: func.func @scatter(
// CHECK-SAME:    %[[X:.+]]: tensor<5x3xf32>, %[[I:.+]]: tensor<2xi64>, %[[U:.+]]: tensor<2x3xf32>)
// CHECK:         scf.for {{.*}} -> (tensor<1x5x3xf32>) {
// CHECK:           [[ROW:%.+]] = tensor.extract_slice %{{.+}}[0, [[AT:%.+]], 0] [1, 1, 3] [1, 1, 1] : tensor<1x5x3xf32> to tensor<1x3xf32>
// CHECK:           linalg.generic {{.*}} outs([[ROW]] : tensor<1x3xf32>)
// CHECK-NEXT:      ^bb0(%[[NEW:.+]]: f32, %[[OLD:.+]]: f32):
// CHECK-NEXT:        [[M:%.+]] = arith.maximumf %[[OLD]], %[[NEW]] : f32
// CHECK-NEXT:        linalg.yield [[M]] : f32
// CHECK:           tensor.insert_slice {{%.+}} into %{{.+}}[0, [[AT]], 0]
func.func @scatter(%x: tensor<5x3xf32>, %i: tensor<2xi64>, %u: tensor<2x3xf32>) -> tensor<5x3xf32> {
  %r = relax.dataflow -> (tensor<5x3xf32>) {
    %0 = relax.scatter %x, %i, %u {axis = 0 : i64, reduction = "max"} : tensor<5x3xf32>, tensor<2xi64>, tensor<2x3xf32> -> tensor<5x3xf32>
    relax.output %0 : tensor<5x3xf32>
  }
  return %r : tensor<5x3xf32>
}

// strided_slice with positive strides is one tensor.extract_slice. With a
// negative stride the same elements are read from the lowest up (x[4:1:-2]
// reads rows 2 and 4) and one generic reverses that axis.
// CHECK-LABEL: func.func @strided_slice(
// CHECK-SAME:    %[[X:.+]]: tensor<5x3xf32>)
// CHECK-NEXT:    [[S0:%.+]] = tensor.extract_slice %[[X]][1, 0] [2, 3] [2, 1] : tensor<5x3xf32> to tensor<2x3xf32>
// CHECK-NEXT:    [[S1:%.+]] = tensor.extract_slice %[[X]][2, 0] [2, 2] [2, 1] : tensor<5x3xf32> to tensor<2x2xf32>
// CHECK-NEXT:    [[E:%.+]] = tensor.empty() : tensor<2x2xf32>
// CHECK-NEXT:    [[R:%.+]] = linalg.generic {indexing_maps = [#[[REV0]], #[[ID2]]], iterator_types = ["parallel", "parallel"]} ins([[S1]] : tensor<2x2xf32>) outs([[E]] : tensor<2x2xf32>)
// CHECK-NEXT:    ^bb0(%[[IN:.+]]: f32, %{{.+}}: f32):
// CHECK-NEXT:      linalg.yield %[[IN]] : f32
// CHECK:         return [[S0]], [[R]] :
func.func @strided_slice(%x: tensor<5x3xf32>) -> (tensor<2x3xf32>, tensor<2x2xf32>) {
  %r:2 = relax.dataflow -> (tensor<2x3xf32>, tensor<2x2xf32>) {
    %0 = relax.strided_slice %x {axes = array<i64: 0>, begin = array<i64: 1>, end = array<i64: 5>, strides = array<i64: 2>} : tensor<5x3xf32> -> tensor<2x3xf32>
    %1 = relax.strided_slice %x {axes = array<i64: 0, 1>, begin = array<i64: 4, 0>, end = array<i64: 1, 2>, strides = array<i64: -2, 1>} : tensor<5x3xf32> -> tensor<2x2xf32>
    relax.output %0, %1 : tensor<2x3xf32>, tensor<2x2xf32>
  }
  return %r#0, %r#1 : tensor<2x3xf32>, tensor<2x2xf32>
}

// tile reads x at i mod size along each repeated axis; the leading new axis is
// not read.
// CHECK-LABEL: func.func @tile(
// CHECK-SAME:    %[[X:.+]]: tensor<2x3xf32>) -> tensor<2x4x3xf32> {
// CHECK:         [[T:%.+]] = linalg.generic {indexing_maps = [#[[TILE]], #[[ID3]]], iterator_types = ["parallel", "parallel", "parallel"]} ins(%[[X]] : tensor<2x3xf32>) outs(%{{.+}} : tensor<2x4x3xf32>)
// CHECK-NEXT:    ^bb0(%[[IN:.+]]: f32, %{{.+}}: f32):
// CHECK-NEXT:      linalg.yield %[[IN]] : f32
// CHECK:         return [[T]] : tensor<2x4x3xf32>
func.func @tile(%x: tensor<2x3xf32>) -> tensor<2x4x3xf32> {
  %r = relax.dataflow -> (tensor<2x4x3xf32>) {
    %0 = relax.tile %x {repeats = array<i64: 2, 2, 1>} : tensor<2x3xf32> -> tensor<2x4x3xf32>
    relax.output %0 : tensor<2x4x3xf32>
  }
  return %r : tensor<2x4x3xf32>
}

// pad is a linalg.fill with the pad value (converted to the element type; for
// i1, value != 0) and x inserted at the before-widths.
// CHECK-LABEL: func.func @pad(
// CHECK-SAME:    %[[X:.+]]: tensor<2x3xf32>, %[[I:.+]]: tensor<3xi32>, %[[M:.+]]: tensor<2xi1>)
// CHECK:         [[V:%.+]] = arith.constant -1.500000e+00 : f32
// CHECK-NEXT:    [[E:%.+]] = tensor.empty() : tensor<3x7xf32>
// CHECK-NEXT:    [[F:%.+]] = linalg.fill ins([[V]] : f32) outs([[E]] : tensor<3x7xf32>) -> tensor<3x7xf32>
// CHECK-NEXT:    [[P:%.+]] = tensor.insert_slice %[[X]] into [[F]][1, 2] [2, 3] [1, 1] : tensor<2x3xf32> into tensor<3x7xf32>
// CHECK-NEXT:    [[VI:%.+]] = arith.constant 7 : i32
// CHECK-NEXT:    [[EI:%.+]] = tensor.empty() : tensor<5xi32>
// CHECK-NEXT:    [[FI:%.+]] = linalg.fill ins([[VI]] : i32) outs([[EI]] : tensor<5xi32>) -> tensor<5xi32>
// CHECK-NEXT:    [[PI:%.+]] = tensor.insert_slice %[[I]] into [[FI]][0] [3] [1] : tensor<3xi32> into tensor<5xi32>
// CHECK-NEXT:    [[VB:%.+]] = arith.constant true
// CHECK-NEXT:    [[EB:%.+]] = tensor.empty() : tensor<3xi1>
// CHECK-NEXT:    [[FB:%.+]] = linalg.fill ins([[VB]] : i1) outs([[EB]] : tensor<3xi1>) -> tensor<3xi1>
// CHECK-NEXT:    [[PB:%.+]] = tensor.insert_slice %[[M]] into [[FB]][1] [2] [1] : tensor<2xi1> into tensor<3xi1>
// CHECK-NEXT:    return [[P]], [[PI]], [[PB]] :
func.func @pad(%x: tensor<2x3xf32>, %i: tensor<3xi32>, %m: tensor<2xi1>) -> (tensor<3x7xf32>, tensor<5xi32>, tensor<3xi1>) {
  %r:3 = relax.dataflow -> (tensor<3x7xf32>, tensor<5xi32>, tensor<3xi1>) {
    %0 = relax.pad %x {pad_width = array<i64: 1, 0, 2, 2>, pad_value = -1.5 : f64} : tensor<2x3xf32> -> tensor<3x7xf32>
    %1 = relax.pad %i {pad_width = array<i64: 0, 2>, pad_value = 7.0 : f64} : tensor<3xi32> -> tensor<5xi32>
    %2 = relax.pad %m {pad_width = array<i64: 1, 0>, pad_value = 1.0 : f64} : tensor<2xi1> -> tensor<3xi1>
    relax.output %0, %1, %2 : tensor<3x7xf32>, tensor<5xi32>, tensor<3xi1>
  }
  return %r#0, %r#1, %r#2 : tensor<3x7xf32>, tensor<5xi32>, tensor<3xi1>
}

// triu and tril keep x where j - i >= k (<= k) on the last two axes, else 0.
// CHECK-LABEL: func.func @triangles(
// CHECK-SAME:    %[[X:.+]]: tensor<2x3x4xf32>)
// CHECK:         [[U:%.+]] = linalg.generic {indexing_maps = [#[[ID3]], #[[ID3]]], iterator_types = ["parallel", "parallel", "parallel"]} ins(%[[X]] : tensor<2x3x4xf32>)
// CHECK-NEXT:    ^bb0(%[[IN:.+]]: f32, %{{.+}}: f32):
// CHECK-NEXT:      [[I:%.+]] = linalg.index 1 : index
// CHECK-NEXT:      [[J:%.+]] = linalg.index 2 : index
// CHECK-NEXT:      [[D:%.+]] = arith.subi [[J]], [[I]] : index
// CHECK-NEXT:      [[K:%.+]] = arith.constant 1 : index
// CHECK-NEXT:      [[KEEP:%.+]] = arith.cmpi sge, [[D]], [[K]] : index
// CHECK-NEXT:      [[Z:%.+]] = arith.constant 0.000000e+00 : f32
// CHECK-NEXT:      [[S:%.+]] = arith.select [[KEEP]], %[[IN]], [[Z]] : f32
// CHECK-NEXT:      linalg.yield [[S]] : f32
// CHECK:         [[L:%.+]] = linalg.generic {{.*}} ins(%[[X]] : tensor<2x3x4xf32>)
// CHECK:           [[KL:%.+]] = arith.constant -1 : index
// CHECK-NEXT:      arith.cmpi sle, %{{.+}}, [[KL]] : index
// CHECK:         return [[U]], [[L]] :
func.func @triangles(%x: tensor<2x3x4xf32>) -> (tensor<2x3x4xf32>, tensor<2x3x4xf32>) {
  %r:2 = relax.dataflow -> (tensor<2x3x4xf32>, tensor<2x3x4xf32>) {
    %0 = relax.triu %x {k = 1 : i64} : tensor<2x3x4xf32>
    %1 = relax.tril %x {k = -1 : i64} : tensor<2x3x4xf32>
    relax.output %0, %1 : tensor<2x3x4xf32>, tensor<2x3x4xf32>
  }
  return %r#0, %r#1 : tensor<2x3x4xf32>, tensor<2x3x4xf32>
}
