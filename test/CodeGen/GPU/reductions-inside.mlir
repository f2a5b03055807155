// relax-gpu-reductions-inside: a reduction whose reduced dimension comes
// first (a column sum: a bias gradient) gets its parallel loop outermost, so
// that the GPU mapping gives each thread its own columns; before, the rows
// were a sequential loop around the columns and the whole sum ran in one
// thread.
// RUN: relax-opt %s --relax-gpu-reductions-inside | FileCheck %s
// RUN: relax-opt %s --relax-gpu-reductions-inside --convert-linalg-to-parallel-loops \
// RUN:   | FileCheck %s --check-prefix=LOOPS
// RUN: relax-opt %s --relax-gpu-reductions-inside --convert-linalg-to-parallel-loops \
// RUN:   --relax-gpu-map-loops --convert-parallel-loops-to-gpu --canonicalize | FileCheck %s --check-prefix=GPU

// The maps follow the new order (d0 = column, d1 = row); the payload is
// unchanged, so each column still adds its rows in order.
// CHECK-DAG: #[[IN:.*]] = affine_map<(d0, d1) -> (d1, d0)>
// CHECK-DAG: #[[OUT:.*]] = affine_map<(d0, d1) -> (d0)>
// CHECK-LABEL: func.func @col_sums
// CHECK:         linalg.generic {indexing_maps = [#[[IN]], #[[OUT]]], iterator_types = ["parallel", "reduction"]}
// CHECK:           arith.extf
// CHECK:           arith.addf
// LOOPS-LABEL: func.func @col_sums
// LOOPS:         scf.parallel (%[[COL:.*]]) =
// LOOPS:           scf.for %[[ROW:.*]] =
// LOOPS:             memref.load %{{.*}}[%[[ROW]], %[[COL]]] : memref<128x1024xf32>
// GPU-LABEL: func.func @col_sums
// GPU:         gpu.launch blocks({{.*}}) in ({{.*}} = %c4, {{.*}} = %c1, {{.*}} = %c1) threads({{.*}}) in ({{.*}} = %c256, {{.*}} = %c1, {{.*}} = %c1)
// GPU:           scf.for
func.func @col_sums(%x: memref<128x1024xf32>, %acc: memref<1024xf64>) {
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1)>],
                  iterator_types = ["reduction", "parallel"]}
      ins(%x : memref<128x1024xf32>) outs(%acc : memref<1024xf64>) {
  ^bb0(%in: f32, %out: f64):
    %0 = arith.extf %in : f32 to f64
    %1 = arith.addf %0, %out : f64
    linalg.yield %1 : f64
  }
  return
}

// Parallel dimensions already first: left as it is.
// CHECK-LABEL: func.func @row_sums
// CHECK:         iterator_types = ["parallel", "reduction"]
func.func @row_sums(%x: memref<64x10xf32>, %acc: memref<64xf32>) {
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>],
                  iterator_types = ["parallel", "reduction"]}
      ins(%x : memref<64x10xf32>) outs(%acc : memref<64xf32>) {
  ^bb0(%in: f32, %out: f32):
    %0 = arith.addf %in, %out : f32
    linalg.yield %0 : f32
  }
  return
}
