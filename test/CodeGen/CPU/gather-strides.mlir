// relax-address-strided-gathers addresses a vector.gather from a strided view
// through the view's strides: the vectorizer numbers the lanes in the view's
// row-major order, which upstream's lowering adds to the base address as if
// the rows were contiguous (W[:, :3][tokens] read the wrong columns) or
// refuses when the innermost stride is not 1 (W[:, ::2][tokens]).
// It runs right after bufferization: the canonicalizer folds a gather of
// consecutive row-major positions into a contiguous vector.load, which from a
// row-strided view read a run of the rows (a column of x[1::2] summed
// x.flat[4:12] in soak seed 33004).
// RUN: relax-opt %s --relax-address-strided-gathers --relax-cpu-lower-vectors | FileCheck %s
// RUN: relax-opt %s --relax-address-strided-gathers --canonicalize | FileCheck %s --check-prefix=CANON

// CHECK-LABEL: func.func @column_slice(
// CHECK-SAME:    %[[W:.*]]: memref<10x3xf32, strided<[6, 1]>>, %[[IDX:.*]]: vector<4xindex>
// The lane's row is idx / 3, its column idx % 3, its element 6 * row + column
// of the 57 the view spans.
// CHECK-DAG:     %[[C57:.*]] = arith.constant 57 : index
// CHECK-DAG:     %[[SIX:.*]] = arith.constant dense<6> : vector<4xindex>
// CHECK-DAG:     %[[THREE:.*]] = arith.constant dense<3> : vector<4xindex>
// CHECK:         %[[BASE:.*]], %{{.*}}, %{{.*}}:2, %{{.*}}:2 = memref.extract_strided_metadata %[[W]]
// CHECK:         %[[COL:.*]] = arith.remui %[[IDX]], %[[THREE]]
// CHECK:         %[[ROW:.*]] = arith.divui %[[IDX]], %[[THREE]]
// CHECK:         %[[ROWOFF:.*]] = arith.muli %[[ROW]], %[[SIX]]
// CHECK:         %[[AT:.*]] = arith.addi %[[COL]], %[[ROWOFF]]
// CHECK:         %[[FLAT:.*]] = memref.reinterpret_cast %[[BASE]] to offset: [%{{.*}}], sizes: [%[[C57]]], strides: [1]
// CHECK:         vector.gather %[[FLAT]][%c0] [%[[AT]]]
// CHECK-NOT:     vector.gather %[[W]]
func.func @column_slice(%w: memref<10x3xf32, strided<[6, 1]>>, %idx: vector<4xindex>,
                        %mask: vector<4xi1>, %pass: vector<4xf32>) -> vector<4xf32> {
  %c0 = arith.constant 0 : index
  %g = vector.gather %w[%c0, %c0] [%idx], %mask, %pass
      : memref<10x3xf32, strided<[6, 1]>>, vector<4xindex>, vector<4xi1>, vector<4xf32> into vector<4xf32>
  return %g : vector<4xf32>
}

// Contiguous buffers keep their gathers.
// CHECK-LABEL: func.func @contiguous(
// CHECK-SAME:    %[[W:[a-z0-9]+]]: memref<10x3xf32>
// CHECK-NOT:     memref.reinterpret_cast
// CHECK:         vector.gather %[[W]]
func.func @contiguous(%w: memref<10x3xf32>, %idx: vector<4xindex>,
                      %mask: vector<4xi1>, %pass: vector<4xf32>) -> vector<4xf32> {
  %c0 = arith.constant 0 : index
  %g = vector.gather %w[%c0, %c0] [%idx], %mask, %pass
      : memref<10x3xf32>, vector<4xindex>, vector<4xi1>, vector<4xf32> into vector<4xf32>
  return %g : vector<4xf32>
}

// One element of a strided view, read to be broadcast: a 0-d transfer, which
// upstream lowers to vector.load only from unit-stride buffers (it stayed and
// failed LLVM translation: x[1:6:2][0:1] broadcast to 2, found by the random
// programs through views). It becomes a memref.load.
// CHECK-LABEL: func.func @element_of_strided_view(
// CHECK-SAME:    %[[V:.*]]: memref<3xf64, strided<[2], offset: 1>>
// CHECK-NOT:     vector.transfer_read
// CHECK:         %[[E:.*]] = memref.load %[[V]][%c0]
// CHECK:         vector.broadcast %[[E]] : f64 to vector<2xf64>
func.func @element_of_strided_view(%v: memref<3xf64, strided<[2], offset: 1>>, %out: memref<2xf64>) {
  %c0 = arith.constant 0 : index
  %p = ub.poison : f64
  %e = vector.transfer_read %v[%c0], %p : memref<3xf64, strided<[2], offset: 1>>, vector<f64>
  %b = vector.broadcast %e : vector<f64> to vector<2xf64>
  vector.transfer_write %b, %out[%c0] {in_bounds = [true]} : vector<2xf64>, memref<2xf64>
  return
}

// CANON-LABEL: func.func @column_of_strided_rows(
// The positions 0..7 of an 8x1 view with row stride 6 are the elements 0, 6,
// ..., 42 of the buffer: still a gather after canonicalization, not a load
// of 8 consecutive elements.
// CANON:         %[[AT:.*]] = arith.constant dense<[0, 6, 12, 18, 24, 30, 36, 42]> : vector<8xindex>
// CANON:         memref.reinterpret_cast %{{.*}} to offset: [4], sizes: [43], strides: [1]
// CANON:         vector.gather %{{.*}}[%{{.*}}] [%[[AT]]]{{.*}} : memref<?xf32
// CANON-NOT:     vector.load
func.func @column_of_strided_rows(%x: memref<16x3xf32>) -> vector<8xf32> {
  %c0 = arith.constant 0 : index
  %step = arith.constant dense<[0, 1, 2, 3, 4, 5, 6, 7]> : vector<8xindex>
  %mask = arith.constant dense<true> : vector<8xi1>
  %pass = arith.constant dense<0.0> : vector<8xf32>
  %v = memref.subview %x[1, 1] [8, 1] [2, 1] : memref<16x3xf32> to memref<8x1xf32, strided<[6, 1], offset: 4>>
  %g = vector.gather %v[%c0, %c0] [%step], %mask, %pass
      : memref<8x1xf32, strided<[6, 1], offset: 4>>, vector<8xindex>, vector<8xi1>, vector<8xf32> into vector<8xf32>
  return %g : vector<8xf32>
}
