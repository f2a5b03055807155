// relax-cpu-lower-vectors sums the rows of a multi_reduction over the
// innermost dimension as one tree over all rows: R rows of L lanes in about
// R adds and 2R shuffles (not R lane reductions of log2(L) steps each).
// RUN: relax-opt %s --split-input-file --relax-cpu-lower-vectors | FileCheck %s

// The partial dot products of an a @ b^T tile: 24 rows of 16 lanes, four
// levels (12, 6, 3, then 2 vectors), one shuffle gathering the 24 sums.
// CHECK-LABEL: func.func @tile_6x4(
// CHECK-NOT:     vector.reduction
// CHECK-COUNT-2: vector.shuffle {{.*}} : vector<16xf32>, vector<16xf32>
// CHECK-NEXT:    arith.addf {{.*}} : vector<16xf32>
// CHECK-COUNT-44: vector.shuffle {{.*}} : vector<16xf32>, vector<16xf32>
// CHECK:         %[[SUMS:.*]] = vector.shuffle %{{.*}}, %{{.*}} [0, 1, 2, {{.*}}, 23] : vector<16xf32>, vector<16xf32>
// CHECK-NOT:     vector.shuffle
// CHECK-NOT:     vector.reduction
// CHECK:         vector.extract_strided_slice %[[SUMS]] {offsets = [0], sizes = [4], strides = [1]} : vector<24xf32> to vector<4xf32>
// CHECK:         %[[R:.*]] = arith.addf %{{.*}}, %{{.*}} : vector<6x4xf32>
// CHECK:         return %[[R]]
func.func @tile_6x4(%v: vector<6x4x16xf32>, %acc: vector<6x4xf32>) -> vector<6x4xf32> {
  %r = vector.multi_reduction <add>, %v, %acc [2] : vector<6x4x16xf32> to vector<6x4xf32>
  return %r : vector<6x4xf32>
}

// -----

// An odd number of integer rows: the one left over pairs with itself.
// CHECK-LABEL: func.func @odd_rows_i32(
// CHECK-NOT:     vector.reduction
// CHECK-COUNT-6: vector.shuffle
// CHECK:         vector.shuffle {{.*}} [0, 1, 2] : vector<8xi32>, vector<8xi32>
// CHECK:         arith.addi {{.*}} : vector<3xi32>
func.func @odd_rows_i32(%v: vector<3x8xi32>, %acc: vector<3xi32>) -> vector<3xi32> {
  %r = vector.multi_reduction <add>, %v, %acc [1] : vector<3x8xi32> to vector<3xi32>
  return %r : vector<3xi32>
}

// -----

// More rows than twice the lanes (16 rows of 4, as upstream makes of a column
// sum of 4x16): the parts are concatenated, then one shuffle gathers the sums.
// CHECK-LABEL: func.func @many_rows(
// CHECK-NOT:     vector.reduction
// CHECK-NOT:     vector.extract {{.*}} : f32
// CHECK:         vector.shuffle {{.*}} : vector<12xf32>, vector<4xf32>
// CHECK:         arith.addf {{.*}} : vector<16xf32>
func.func @many_rows(%v: vector<16x4xf32>, %acc: vector<16xf32>) -> vector<16xf32> {
  %r = vector.multi_reduction <add>, %v, %acc [1] : vector<16x4xf32> to vector<16xf32>
  return %r : vector<16xf32>
}

// -----

// Not for one row, nor max.
// CHECK-LABEL: func.func @left_alone(
// CHECK-NOT:     vector.shuffle
// CHECK:         return
func.func @left_alone(%a: vector<1x16xf32>, %b: vector<4x16xf32>, %acc1: vector<1xf32>,
                      %acc4: vector<4xf32>) -> (vector<1xf32>, vector<4xf32>) {
  %r1 = vector.multi_reduction <add>, %a, %acc1 [1] : vector<1x16xf32> to vector<1xf32>
  %r3 = vector.multi_reduction <maximumf>, %b, %acc4 [1] : vector<4x16xf32> to vector<4xf32>
  return %r1, %r3 : vector<1xf32>, vector<4xf32>
}
