// RUN: relax-opt %s -canonicalize -split-input-file | FileCheck %s

// Adding zeros, multiplying by ones and subtracting zeros fold to the other
// operand when it already has the result type.
// CHECK-LABEL: func.func @identities(
// CHECK-SAME:    %[[X:.+]]: tensor<4x3xf32>
// CHECK-NOT:     relax.add
// CHECK-NOT:     relax.multiply
// CHECK-NOT:     relax.subtract
// CHECK:         return %[[X]], %[[X]], %[[X]], %[[X]]
func.func @identities(%x: tensor<4x3xf32>) -> (tensor<4x3xf32>, tensor<4x3xf32>, tensor<4x3xf32>, tensor<4x3xf32>) {
  %z = relax.zeros : tensor<4x3xf32>
  %o = relax.ones : tensor<3xf32>
  %c = arith.constant dense<1.0> : tensor<f32>
  %0 = relax.add %z, %x : tensor<4x3xf32>, tensor<4x3xf32> -> tensor<4x3xf32>
  %1 = relax.multiply %x, %o : tensor<4x3xf32>, tensor<3xf32> -> tensor<4x3xf32>
  %2 = relax.subtract %x, %z : tensor<4x3xf32>, tensor<4x3xf32> -> tensor<4x3xf32>
  %3 = relax.multiply %c, %x : tensor<f32>, tensor<4x3xf32> -> tensor<4x3xf32>
  return %0, %1, %2, %3 : tensor<4x3xf32>, tensor<4x3xf32>, tensor<4x3xf32>, tensor<4x3xf32>
}

// -----

// A zero that broadcasts the other operand to a bigger shape must stay.
// CHECK-LABEL: func.func @broadcasting_zero_stays(
// CHECK:         relax.add
func.func @broadcasting_zero_stays(%x: tensor<3xf32>) -> tensor<4x3xf32> {
  %z = relax.zeros : tensor<4x3xf32>
  %0 = relax.add %x, %z : tensor<3xf32>, tensor<4x3xf32> -> tensor<4x3xf32>
  return %0 : tensor<4x3xf32>
}

// -----

// Transpose of transpose, identity permutations and same-shape reshape,
// broadcast_to and collapse_sum_to all disappear; reshape of reshape reads the
// original.
// CHECK-LABEL: func.func @shapes(
// CHECK-SAME:    %[[X:.+]]: tensor<2x3x4xf32>
// CHECK-NOT:     relax.permute_dims
// CHECK-NOT:     relax.broadcast_to
// CHECK-NOT:     relax.collapse_sum_to
// CHECK:         [[R:%.+]] = relax.reshape %[[X]] : tensor<2x3x4xf32> -> tensor<24xf32>
// CHECK-NOT:     relax.reshape
// CHECK:         return %[[X]], %[[X]], %[[X]], %[[X]], [[R]]
func.func @shapes(%x: tensor<2x3x4xf32>) -> (tensor<2x3x4xf32>, tensor<2x3x4xf32>, tensor<2x3x4xf32>, tensor<2x3x4xf32>, tensor<24xf32>) {
  %t = relax.permute_dims %x {axes = array<i64: 1, 2, 0>} : tensor<2x3x4xf32> -> tensor<3x4x2xf32>
  %tt = relax.permute_dims %t {axes = array<i64: 2, 0, 1>} : tensor<3x4x2xf32> -> tensor<2x3x4xf32>
  %id = relax.permute_dims %x {axes = array<i64: 0, 1, 2>} : tensor<2x3x4xf32> -> tensor<2x3x4xf32>
  %b = relax.broadcast_to %x : tensor<2x3x4xf32> -> tensor<2x3x4xf32>
  %c = relax.collapse_sum_to %x : tensor<2x3x4xf32> -> tensor<2x3x4xf32>
  %r0 = relax.reshape %x : tensor<2x3x4xf32> -> tensor<6x4xf32>
  %r1 = relax.reshape %r0 : tensor<6x4xf32> -> tensor<24xf32>
  return %tt, %id, %b, %c, %r1 : tensor<2x3x4xf32>, tensor<2x3x4xf32>, tensor<2x3x4xf32>, tensor<2x3x4xf32>, tensor<24xf32>
}

// -----

// Two transposes that do not cancel both stay.
// CHECK-LABEL: func.func @no_cancel(
// CHECK-COUNT-2: relax.permute_dims
func.func @no_cancel(%x: tensor<2x3x4xf32>) -> tensor<2x4x3xf32> {
  %t = relax.permute_dims %x {axes = array<i64: 1, 2, 0>} : tensor<2x3x4xf32> -> tensor<3x4x2xf32>
  %tt = relax.permute_dims %t {axes = array<i64: 2, 1, 0>} : tensor<3x4x2xf32> -> tensor<2x4x3xf32>
  return %tt : tensor<2x4x3xf32>
}

// -----

// The transpose of a matmul with a transposed operand is a matmul of the
// original operands, with no transpose left on that side.
// CHECK-LABEL: func.func @transpose_of_matmul(
// CHECK-SAME:    %[[A:.+]]: tensor<4x3xf32>, %[[W:.+]]: tensor<5x3xf32>
// CHECK:         [[AT:%.+]] = relax.permute_dims %[[A]] : tensor<4x3xf32> -> tensor<3x4xf32>
// CHECK-NEXT:    [[M:%.+]] = relax.matmul %[[W]], [[AT]] : tensor<5x3xf32>, tensor<3x4xf32> -> tensor<5x4xf32>
// CHECK-NEXT:    return [[M]]
func.func @transpose_of_matmul(%a: tensor<4x3xf32>, %w: tensor<5x3xf32>) -> tensor<5x4xf32> {
  %wt = relax.permute_dims %w : tensor<5x3xf32> -> tensor<3x5xf32>
  %m = relax.matmul %a, %wt : tensor<4x3xf32>, tensor<3x5xf32> -> tensor<4x5xf32>
  %t = relax.permute_dims %m : tensor<4x5xf32> -> tensor<5x4xf32>
  return %t : tensor<5x4xf32>
}

// -----

// Without a transposed operand the transpose stays on the result.
// CHECK-LABEL: func.func @transpose_of_plain_matmul(
// CHECK:         relax.matmul
// CHECK-NEXT:    relax.permute_dims
func.func @transpose_of_plain_matmul(%a: tensor<4x3xf32>, %b: tensor<3x5xf32>) -> tensor<5x4xf32> {
  %m = relax.matmul %a, %b : tensor<4x3xf32>, tensor<3x5xf32> -> tensor<4x5xf32>
  %t = relax.permute_dims %m : tensor<4x5xf32> -> tensor<5x4xf32>
  return %t : tensor<5x4xf32>
}
