// RUN: relax-opt %s --convert-relax-to-linalg | FileCheck %s
// RUN: relax-opt %s --convert-relax-to-linalg --canonicalize | FileCheck %s --check-prefix=TRANSPOSED

// matmul becomes one linalg.generic over (batch..., [n], [m], k) reducing k,
// into a zero-filled init: a 1-D operand has no n (or m) dim, and a broadcast
// batch dim reads index 0.

// CHECK-DAG: #[[A2:map[0-9]*]] = affine_map<(d0, d1, d2) -> (d0, d2)>
// CHECK-DAG: #[[B2:map[0-9]*]] = affine_map<(d0, d1, d2) -> (d2, d1)>
// CHECK-DAG: #[[C2:map[0-9]*]] = affine_map<(d0, d1, d2) -> (d0, d1)>
// CHECK-DAG: #[[V:map[0-9]*]] = affine_map<(d0) -> (d0)>
// CHECK-DAG: #[[V0D:map[0-9]*]] = affine_map<(d0) -> ()>
// CHECK-DAG: #[[MVA:map[0-9]*]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-DAG: #[[MVB:map[0-9]*]] = affine_map<(d0, d1) -> (d1)>
// CHECK-DAG: #[[MVC:map[0-9]*]] = affine_map<(d0, d1) -> (d0)>
// CHECK-DAG: #[[BA:map[0-9]*]] = affine_map<(d0, d1, d2, d3, d4) -> (d0, 0, d2, d4)>
// CHECK-DAG: #[[BB:map[0-9]*]] = affine_map<(d0, d1, d2, d3, d4) -> (d1, d4, d3)>
// CHECK-DAG: #[[BC:map[0-9]*]] = affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2, d3)>
// CHECK-DAG: #[[VBA:map[0-9]*]] = affine_map<(d0, d1, d2) -> (d2)>
// CHECK-DAG: #[[VBB:map[0-9]*]] = affine_map<(d0, d1, d2) -> (d0, d2, d1)>

// CHECK-LABEL: func.func @matmul_2d(
// CHECK-SAME:    %[[A:.+]]: tensor<4x3xf32>, %[[B:.+]]: tensor<3x2xf32>) -> tensor<4x2xf32> {
// CHECK:         [[E:%.+]] = tensor.empty() : tensor<4x2xf32>
// CHECK:         [[Z:%.+]] = arith.constant 0.000000e+00 : f32
// CHECK:         [[I:%.+]] = linalg.fill ins([[Z]] : f32) outs([[E]] : tensor<4x2xf32>) -> tensor<4x2xf32>
// CHECK:         [[R:%.+]] = linalg.generic {indexing_maps = [#[[A2]], #[[B2]], #[[C2]]], iterator_types = ["parallel", "parallel", "reduction"]} ins(%[[A]], %[[B]] : tensor<4x3xf32>, tensor<3x2xf32>) outs([[I]] : tensor<4x2xf32>)
// CHECK-NEXT:    ^bb0(%[[X:.+]]: f32, %[[Y:.+]]: f32, %[[ACC:.+]]: f32):
// CHECK-NEXT:      [[P:%.+]] = arith.mulf %[[X]], %[[Y]] : f32
// CHECK-NEXT:      [[S:%.+]] = arith.addf %[[ACC]], [[P]] : f32
// CHECK-NEXT:      linalg.yield [[S]] : f32
// CHECK:         return [[R]] : tensor<4x2xf32>
func.func @matmul_2d(%a: tensor<4x3xf32>, %b: tensor<3x2xf32>) -> tensor<4x2xf32> {
  %r = relax.dataflow -> (tensor<4x2xf32>) {
    %0 = relax.matmul %a, %b : tensor<4x3xf32>, tensor<3x2xf32> -> tensor<4x2xf32>
    relax.output %0 : tensor<4x2xf32>
  }
  return %r : tensor<4x2xf32>
}

// vector . vector (0-d result) and matrix . vector.
// CHECK-LABEL: func.func @matmul_vectors(
// CHECK:         linalg.generic {indexing_maps = [#[[V]], #[[V]], #[[V0D]]], iterator_types = ["reduction"]} ins(%{{.+}}, %{{.+}} : tensor<3xf32>, tensor<3xf32>) outs(%{{.+}} : tensor<f32>)
// CHECK:         linalg.generic {indexing_maps = [#[[MVA]], #[[MVB]], #[[MVC]]], iterator_types = ["parallel", "reduction"]} ins(%{{.+}}, %{{.+}} : tensor<4x3xf32>, tensor<3xf32>) outs(%{{.+}} : tensor<4xf32>)
func.func @matmul_vectors(%a: tensor<3xf32>, %b: tensor<3xf32>, %m: tensor<4x3xf32>) -> (tensor<f32>, tensor<4xf32>) {
  %r:2 = relax.dataflow -> (tensor<f32>, tensor<4xf32>) {
    %0 = relax.matmul %a, %b : tensor<3xf32>, tensor<3xf32> -> tensor<f32>
    %1 = relax.matmul %m, %a : tensor<4x3xf32>, tensor<3xf32> -> tensor<4xf32>
    relax.output %0, %1 : tensor<f32>, tensor<4xf32>
  }
  return %r#0, %r#1 : tensor<f32>, tensor<4xf32>
}

// A 1-D lhs against a batched rhs: (3) x (5, 3, 2) -> (5, 2) over (d0 = batch,
// d1 = m, d2 = k).
// CHECK-LABEL: func.func @matmul_vector_batched(
// CHECK:         linalg.generic {indexing_maps = [#[[VBA]], #[[VBB]], #[[C2]]], iterator_types = ["parallel", "parallel", "reduction"]} ins(%{{.+}}, %{{.+}} : tensor<3xf32>, tensor<5x3x2xf32>) outs(%{{.+}} : tensor<5x2xf32>)
func.func @matmul_vector_batched(%a: tensor<3xf32>, %b: tensor<5x3x2xf32>) -> tensor<5x2xf32> {
  %r = relax.dataflow -> (tensor<5x2xf32>) {
    %0 = relax.matmul %a, %b : tensor<3xf32>, tensor<5x3x2xf32> -> tensor<5x2xf32>
    relax.output %0 : tensor<5x2xf32>
  }
  return %r : tensor<5x2xf32>
}

// Batch dims broadcast: (2, 1, 4, 3) x (5, 3, 2) -> (2, 5, 4, 2); the lhs's
// size-1 batch dim reads index 0.
// CHECK-LABEL: func.func @matmul_batched(
// CHECK:         linalg.generic {indexing_maps = [#[[BA]], #[[BB]], #[[BC]]], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]} ins(%{{.+}}, %{{.+}} : tensor<2x1x4x3xf32>, tensor<5x3x2xf32>) outs(%{{.+}} : tensor<2x5x4x2xf32>)
func.func @matmul_batched(%a: tensor<2x1x4x3xf32>, %b: tensor<5x3x2xf32>) -> tensor<2x5x4x2xf32> {
  %r = relax.dataflow -> (tensor<2x5x4x2xf32>) {
    %0 = relax.matmul %a, %b : tensor<2x1x4x3xf32>, tensor<5x3x2xf32> -> tensor<2x5x4x2xf32>
    relax.output %0 : tensor<2x5x4x2xf32>
  }
  return %r : tensor<2x5x4x2xf32>
}

// Integer matmul multiplies and accumulates with integer ops.
// CHECK-LABEL: func.func @matmul_int(
// CHECK:         [[Z:%.+]] = arith.constant 0 : i32
// CHECK:         linalg.fill ins([[Z]] : i32)
// CHECK:         linalg.generic {indexing_maps = [#[[A2]], #[[B2]], #[[C2]]]
// CHECK:           [[P:%.+]] = arith.muli
// CHECK-NEXT:      arith.addi %{{.+}}, [[P]] : i32
func.func @matmul_int(%a: tensor<2x3xi32>, %b: tensor<3x4xi32>) -> tensor<2x4xi32> {
  %r = relax.dataflow -> (tensor<2x4xi32>) {
    %0 = relax.matmul %a, %b : tensor<2x3xi32>, tensor<3x4xi32> -> tensor<2x4xi32>
    relax.output %0 : tensor<2x4xi32>
  }
  return %r : tensor<2x4xi32>
}

// An operand transposed by permute_dims (last two axes swapped, batch axes
// kept) is read through a transposed indexing map: no linalg.transpose is
// materialized for it (the canonicalizer then drops the dead permute). A
// permutation that moves a batch axis stays a transpose.
// TRANSPOSED-DAG:     #[[AT:.+]] = affine_map<(d0, d1, d2, d3) -> (d3, d1)>
// TRANSPOSED-DAG:     #[[BT:.+]] = affine_map<(d0, d1, d2, d3) -> (d0, d2, d3)>
// TRANSPOSED-DAG:     #[[DT:.+]] = affine_map<(d0, d1, d2, d3) -> (d2, d3)>
// TRANSPOSED-LABEL: func.func @transposed_operands(
// TRANSPOSED-SAME:    %[[A:.+]]: tensor<5x4xf32>, %[[B:.+]]: tensor<2x6x5xf32>, %[[C:.+]]: tensor<2x5x6xf32>, %[[D:.+]]: tensor<3x6xf32>)
// TRANSPOSED:         [[T:%.+]] = linalg.generic {{.*}} ins(%[[B]] : tensor<2x6x5xf32>)
// TRANSPOSED:         linalg.generic {indexing_maps = [#[[AT]], #[[BT]], #{{.+}}], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%[[A]], [[T]] : tensor<5x4xf32>, tensor<2x6x5xf32>)
// TRANSPOSED:         [[CT:%.+]] = linalg.transpose ins(%[[C]] : tensor<2x5x6xf32>) outs(%{{.+}} : tensor<5x2x6xf32>) permutation = [1, 0, 2]
// TRANSPOSED:         linalg.generic {indexing_maps = [#{{.+}}, #[[DT]], #{{.+}}], {{.*}} ins([[CT]], %[[D]] : tensor<5x2x6xf32>, tensor<3x6xf32>)
func.func @transposed_operands(%a: tensor<5x4xf32>, %b: tensor<2x6x5xf32>, %c: tensor<2x5x6xf32>, %d: tensor<3x6xf32>) -> (tensor<2x4x6xf32>, tensor<5x2x3xf32>) {
  %r:2 = relax.dataflow -> (tensor<2x4x6xf32>, tensor<5x2x3xf32>) {
    %at = relax.permute_dims %a : tensor<5x4xf32> -> tensor<4x5xf32>
    %t = relax.tanh %b : tensor<2x6x5xf32>
    %bt = relax.permute_dims %t {axes = array<i64: 0, 2, 1>} : tensor<2x6x5xf32> -> tensor<2x5x6xf32>
    %m = relax.matmul %at, %bt : tensor<4x5xf32>, tensor<2x5x6xf32> -> tensor<2x4x6xf32>
    %ct = relax.permute_dims %c {axes = array<i64: 1, 0, 2>} : tensor<2x5x6xf32> -> tensor<5x2x6xf32>
    %dt = relax.permute_dims %d : tensor<3x6xf32> -> tensor<6x3xf32>
    %n = relax.matmul %ct, %dt : tensor<5x2x6xf32>, tensor<6x3xf32> -> tensor<5x2x3xf32>
    relax.output %m, %n : tensor<2x4x6xf32>, tensor<5x2x3xf32>
  }
  return %r#0, %r#1 : tensor<2x4x6xf32>, tensor<5x2x3xf32>
}
