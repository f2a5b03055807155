// relax-gpu-map-loops: a loop nest is tiled into blocks of at most 256
// threads, its innermost dimension (contiguous in memory) on x, so that a
// warp's 32 threads touch neighbouring elements.
// RUN: relax-opt %s --split-input-file --relax-gpu-map-loops | FileCheck %s
// RUN: relax-opt %s --split-input-file --relax-gpu-map-loops=block-threads=64 \
// RUN:   | FileCheck %s --check-prefix=T64
// RUN: not relax-opt %s --split-input-file --relax-gpu-map-loops=block-threads=96 2>&1 \
// RUN:   | FileCheck %s --check-prefix=BAD

// BAD: block-threads must be a power of two from 1 to 1024, got 96

// 64x32: 32 threads along the 32 columns (x), 8 along the rows (y); the
// grid is 1 x 8 blocks, no guard (both divide).
// CHECK-LABEL: func.func @rows
// CHECK-DAG:     %[[C8:.*]] = arith.constant 8 : index
// CHECK-DAG:     %[[C32:.*]] = arith.constant 32 : index
// CHECK:         %[[SY:.*]] = arith.muli %{{.*}}, %[[C8]]
// CHECK:         %[[SX:.*]] = arith.muli %{{.*}}, %[[C32]]
// CHECK:         scf.parallel {{.*}} step (%[[SY]], %[[SX]])
// CHECK:           scf.parallel {{.*}} to (%[[SY]], %[[SX]])
// CHECK-NOT:         scf.if
// CHECK:             memref.store
// CHECK:           } {mapping = [#gpu.loop_dim_map<processor = thread_y, {{.*}}>, #gpu.loop_dim_map<processor = thread_x, {{.*}}>]}
// CHECK:         } {mapping = [#gpu.loop_dim_map<processor = block_y, {{.*}}>, #gpu.loop_dim_map<processor = block_x, {{.*}}>]}
// With 64 threads a block: 32 x 2.
// T64-LABEL: func.func @rows
// T64-DAG:     arith.constant 2 : index
// T64-DAG:     arith.constant 32 : index
func.func @rows(%a: memref<64x32xf32>, %b: memref<64x32xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %c32 = arith.constant 32 : index
  scf.parallel (%i, %j) = (%c0, %c0) to (%c64, %c32) step (%c1, %c1) {
    %v = memref.load %a[%i, %j] : memref<64x32xf32>
    memref.store %v, %b[%i, %j] : memref<64x32xf32>
  }
  return
}

// -----

// 1000 elements: blocks of 256 threads, the last one guarded.
// CHECK-LABEL: func.func @line
// CHECK:         %[[C256:.*]] = arith.constant 256 : index
// CHECK:         %[[S:.*]] = arith.muli %{{.*}}, %[[C256]]
// CHECK:         scf.parallel ({{.*}}) = ({{.*}}) to ({{.*}}) step (%[[S]])
// CHECK:           scf.parallel
// CHECK:             arith.cmpi ult
// CHECK:             scf.if
// CHECK:           } {mapping = [#gpu.loop_dim_map<processor = thread_x, {{.*}}>]}
// CHECK:         } {mapping = [#gpu.loop_dim_map<processor = block_x, {{.*}}>]}
func.func @line(%a: memref<1000xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %n = arith.constant 1000 : index
  %f = arith.constant 1.0 : f32
  scf.parallel (%i) = (%c0) to (%n) step (%c1) {
    memref.store %f, %a[%i] : memref<1000xf32>
  }
  return
}

// -----

// Four dimensions: N and C become one (blockIdx.z, 6 of them); W (32) on x,
// H (8) on y.
// CHECK-LABEL: func.func @nchw
// CHECK:         scf.parallel (%{{.*}}, %{{.*}}, %{{.*}}) =
// CHECK:           scf.parallel (%{{.*}}, %{{.*}}, %{{.*}}) =
// CHECK:             arith.remsi
// CHECK:             arith.divsi
// CHECK:             memref.store
// CHECK:           } {mapping = [#gpu.loop_dim_map<processor = thread_z, {{.*}}>, #gpu.loop_dim_map<processor = thread_y, {{.*}}>, #gpu.loop_dim_map<processor = thread_x, {{.*}}>]}
// CHECK:         } {mapping = [#gpu.loop_dim_map<processor = block_z, {{.*}}>, #gpu.loop_dim_map<processor = block_y, {{.*}}>, #gpu.loop_dim_map<processor = block_x, {{.*}}>]}
func.func @nchw(%a: memref<2x3x8x32xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %c8 = arith.constant 8 : index
  %c32 = arith.constant 32 : index
  %f = arith.constant 0.0 : f32
  scf.parallel (%n, %c, %h, %w) = (%c0, %c0, %c0, %c0) to (%c2, %c3, %c8, %c32) step (%c1, %c1, %c1, %c1) {
    memref.store %f, %a[%n, %c, %h, %w] : memref<2x3x8x32xf32>
  }
  return
}

// -----

// 20000000 rows of one element: 256 threads along the rows would need
// 78125 blocks along y (at most 65535): each block walks them in turn.
// CHECK-LABEL: func.func @tall
// CHECK:         } {mapping = [#gpu.loop_dim_map<processor = thread_y, {{.*}}>, #gpu.loop_dim_map<processor = thread_x, {{.*}}>]}
// CHECK:         } {mapping = [#gpu.loop_dim_map<processor = sequential, {{.*}}>, #gpu.loop_dim_map<processor = block_x, {{.*}}>]}
func.func @tall(%a: memref<20000000x1xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %n = arith.constant 20000000 : index
  %f = arith.constant 0.0 : f32
  scf.parallel (%i, %j) = (%c0, %c0) to (%n, %c1) step (%c1, %c1) {
    memref.store %f, %a[%i, %j] : memref<20000000x1xf32>
  }
  return
}

// -----

// An unknown number of rows: they run in turn in each block (y could
// exceed the grid's limit); the 32 columns are still on x.
// CHECK-LABEL: func.func @dynamic
// CHECK:         } {mapping = [#gpu.loop_dim_map<processor = sequential, {{.*}}>, #gpu.loop_dim_map<processor = block_x, {{.*}}>]}
func.func @dynamic(%a: memref<?x32xf32>, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c32 = arith.constant 32 : index
  %f = arith.constant 0.0 : f32
  scf.parallel (%i, %j) = (%c0, %c0) to (%n, %c32) step (%c1, %c1) {
    memref.store %f, %a[%i, %j] : memref<?x32xf32>
  }
  return
}

// -----

// A loop with a reduction is left to gpu-map-parallel-loops.
// CHECK-LABEL: func.func @reduction
// CHECK:         scf.parallel
// CHECK-NOT:     scf.parallel
// CHECK-NOT:     mapping
// CHECK:         return
func.func @reduction(%a: memref<64xf32>) -> f32 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %zero = arith.constant 0.0 : f32
  %r = scf.parallel (%i) = (%c0) to (%c64) step (%c1) init (%zero) -> f32 {
    %v = memref.load %a[%i] : memref<64xf32>
    scf.reduce(%v : f32) {
    ^bb0(%x: f32, %y: f32):
      %s = arith.addf %x, %y : f32
      scf.reduce.return %s : f32
    }
  }
  return %r : f32
}
