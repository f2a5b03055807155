// relax-cpu-pack-panels (with the rest of the CPU memref passes): the rows that register-tile
// reduction loops read one per step, 2 KiB or more apart (the rhs of x @ w),
// copied once into a contiguous stack buffer that those loops then read.
// RUN: relax-opt %s --split-input-file --relax-cpu-hoist-transfers --relax-cpu-pack-panels --relax-cpu-prefetch --relax-cpu-stream-stores \
// RUN:   --relax-cpu-lower-vectors | FileCheck %s
// RUN: relax-opt %s --split-input-file --relax-cpu-hoist-transfers --relax-cpu-pack-panels="panel-bytes=0" --relax-cpu-prefetch --relax-cpu-stream-stores \
// RUN:   --relax-cpu-lower-vectors | FileCheck %s --check-prefix=OFF
// The panels below take 256 x 64 floats: 64 KiB.
// RUN: relax-opt %s --split-input-file --relax-cpu-hoist-transfers --relax-cpu-pack-panels="panel-bytes=65535" --relax-cpu-prefetch --relax-cpu-stream-stores \
// RUN:   --relax-cpu-lower-vectors | FileCheck %s --check-prefix=OFF

// x @ w on two threads: the 6-row tiles and the 2-row remainder tile of one
// column block read the same 256 rows of w. One panel per thread (at the top
// of the parallel loop's body), filled before the first tile, read by both.
// CHECK-LABEL: func.func @shared_by_main_and_remainder(
// CHECK-SAME:    %[[X:[a-z0-9]+]]: memref<128x1024xf32>, %[[W:[a-z0-9]+]]: memref<1024x1024xf32>
// CHECK:         scf.for %[[KB:[a-z0-9]+]] =
// CHECK-NEXT:      scf.for %[[J:[a-z0-9]+]] =
// CHECK-NEXT:        %[[S:.*]] = memref.alloca() {alignment = 64 : i64} : memref<65536xi8>
// CHECK-NEXT:        %[[P:.*]] = memref.view %[[S]][%c0][] : memref<65536xi8> to memref<256x64xf32>
// CHECK-NEXT:        scf.for %[[R:[a-z0-9]+]] = %c0 to %c256 step %c1 {
// CHECK-NEXT:          %[[ROW:.*]] = arith.addi %[[KB]], %[[R]]
// CHECK-NEXT:          %[[V:.*]] = vector.load %[[W]][%[[ROW]], %[[J]]] : memref<1024x1024xf32>, vector<64xf32>
// CHECK-NEXT:          vector.store %[[V]], %[[P]][%[[R]], %c0] : memref<256x64xf32>, vector<64xf32>
// CHECK-NEXT:        }
// CHECK-NEXT:        scf.for %[[I:[a-z0-9]+]] = %c0 to %c126 step %c6 {
// CHECK:               scf.for %[[K:[a-z0-9]+]] = %c0 to %c256 step %c1 iter_args(
// CHECK-NOT:             %[[W]]
// CHECK:                 vector.load %[[P]][%[[K]], %c0] : memref<256x64xf32>, vector<64xf32>
// CHECK-NOT:             %[[W]]
// CHECK:                 scf.yield
// CHECK:             scf.for %[[K2:[a-z0-9]+]] = %c0 to %c256 step %c1 iter_args(
// CHECK-NOT:           %[[W]]
// CHECK:               vector.load %[[P]][%[[K2]], %c0] : memref<256x64xf32>, vector<64xf32>
// CHECK-NOT:           %[[W]]
// CHECK:               scf.yield
// CHECK:           } {relax.parallel}
// The rows are contiguous now: nothing to prefetch.
// CHECK-NOT:     memref.prefetch
// OFF-LABEL: func.func @shared_by_main_and_remainder(
// OFF-NOT:     memref.alloca
// OFF:         memref.prefetch
#kk = affine_map<()[s0, s1] -> (s0 + s1)>
#mm = affine_map<(d0, d1, d2) -> (d0, d2)>
#nn = affine_map<(d0, d1, d2) -> (d2, d1)>
#oo = affine_map<(d0, d1, d2) -> (d0, d1)>
func.func @shared_by_main_and_remainder(%x: memref<128x1024xf32>, %w: memref<1024x1024xf32>, %out: memref<128x1024xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c6 = arith.constant 6 : index
  %c12 = arith.constant 12 : index
  %c64 = arith.constant 64 : index
  %c126 = arith.constant 126 : index
  %c256 = arith.constant 256 : index
  %c1024 = arith.constant 1024 : index
  %pad = ub.poison : f32
  scf.for %kb = %c0 to %c1024 step %c256 {
    scf.for %j = %c0 to %c1024 step %c64 {
      scf.for %i = %c0 to %c126 step %c6 {
          %acc = vector.transfer_read %out[%i, %j], %pad {in_bounds = [true, true]} : memref<128x1024xf32>, vector<6x64xf32>
          %r = scf.for %k = %c0 to %c256 step %c1 iter_args(%a = %acc) -> (vector<6x64xf32>) {
            %kk = affine.apply #kk()[%kb, %k]
            %l = vector.transfer_read %x[%i, %kk], %pad {in_bounds = [true, true]} : memref<128x1024xf32>, vector<6x1xf32>
            %rr = vector.transfer_read %w[%kk, %j], %pad {in_bounds = [true]} : memref<1024x1024xf32>, vector<64xf32>
            %rb = vector.broadcast %rr : vector<64xf32> to vector<1x64xf32>
            %c = vector.contract {indexing_maps = [#mm, #nn, #oo], iterator_types = ["parallel", "parallel", "reduction"], kind = #vector.kind<add>} %l, %rb, %a : vector<6x1xf32>, vector<1x64xf32> into vector<6x64xf32>
            scf.yield %c : vector<6x64xf32>
          }
          vector.transfer_write %r, %out[%i, %j] {in_bounds = [true, true]} : vector<6x64xf32>, memref<128x1024xf32>
      }
      %acc2 = vector.transfer_read %out[%c126, %j], %pad {in_bounds = [true, true]} : memref<128x1024xf32>, vector<2x64xf32>
      %r2 = scf.for %k = %c0 to %c256 step %c1 iter_args(%a = %acc2) -> (vector<2x64xf32>) {
        %kk = affine.apply #kk()[%kb, %k]
        %l = vector.transfer_read %x[%c126, %kk], %pad {in_bounds = [true, true]} : memref<128x1024xf32>, vector<2x1xf32>
        %rr = vector.transfer_read %w[%kk, %j], %pad {in_bounds = [true]} : memref<1024x1024xf32>, vector<64xf32>
        %rb = vector.broadcast %rr : vector<64xf32> to vector<1x64xf32>
        %c = vector.contract {indexing_maps = [#mm, #nn, #oo], iterator_types = ["parallel", "parallel", "reduction"], kind = #vector.kind<add>} %l, %rb, %a : vector<2x1xf32>, vector<1x64xf32> into vector<2x64xf32>
        scf.yield %c : vector<2x64xf32>
      }
      vector.transfer_write %r2, %out[%c126, %j] {in_bounds = [true, true]} : vector<2x64xf32>, memref<128x1024xf32>
    } {relax.parallel}
  }
  return
}

// -----

// One thread: the panel is on the function's stack, allocated once, filled
// per column block.
// CHECK-LABEL: func.func @one_thread(
// CHECK:         %[[S:.*]] = memref.alloca() {alignment = 64 : i64} : memref<65536xi8>
// CHECK-NEXT:    scf.for
// CHECK-NEXT:      scf.for
// CHECK-NEXT:        %[[P:.*]] = memref.view %[[S]]
// CHECK-NEXT:        scf.for
// CHECK:               vector.store %{{.*}}, %[[P]]
// CHECK-NOT:     memref.alloca
// CHECK:         return
#kk = affine_map<()[s0, s1] -> (s0 + s1)>
#mm = affine_map<(d0, d1, d2) -> (d0, d2)>
#nn = affine_map<(d0, d1, d2) -> (d2, d1)>
#oo = affine_map<(d0, d1, d2) -> (d0, d1)>
func.func @one_thread(%x: memref<128x1024xf32>, %w: memref<1024x1024xf32>, %out: memref<128x1024xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c6 = arith.constant 6 : index
  %c12 = arith.constant 12 : index
  %c64 = arith.constant 64 : index
  %c126 = arith.constant 126 : index
  %c256 = arith.constant 256 : index
  %c1024 = arith.constant 1024 : index
  %pad = ub.poison : f32
  scf.for %kb = %c0 to %c1024 step %c256 {
    scf.for %j = %c0 to %c1024 step %c64 {
      scf.for %i = %c0 to %c126 step %c6 {
          %acc = vector.transfer_read %out[%i, %j], %pad {in_bounds = [true, true]} : memref<128x1024xf32>, vector<6x64xf32>
          %r = scf.for %k = %c0 to %c256 step %c1 iter_args(%a = %acc) -> (vector<6x64xf32>) {
            %kk = affine.apply #kk()[%kb, %k]
            %l = vector.transfer_read %x[%i, %kk], %pad {in_bounds = [true, true]} : memref<128x1024xf32>, vector<6x1xf32>
            %rr = vector.transfer_read %w[%kk, %j], %pad {in_bounds = [true]} : memref<1024x1024xf32>, vector<64xf32>
            %rb = vector.broadcast %rr : vector<64xf32> to vector<1x64xf32>
            %c = vector.contract {indexing_maps = [#mm, #nn, #oo], iterator_types = ["parallel", "parallel", "reduction"], kind = #vector.kind<add>} %l, %rb, %a : vector<6x1xf32>, vector<1x64xf32> into vector<6x64xf32>
            scf.yield %c : vector<6x64xf32>
          }
          vector.transfer_write %r, %out[%i, %j] {in_bounds = [true, true]} : vector<6x64xf32>, memref<128x1024xf32>
      }
    }
  }
  return
}

// -----

// Two tiles per panel: the copy would cost as much as it saves (fewer than
// four tiles read it). The rows stay in w and are prefetched.
// CHECK-LABEL: func.func @too_few_tiles(
// CHECK-NOT:     memref.alloca
// CHECK:         memref.prefetch
#kk = affine_map<()[s0, s1] -> (s0 + s1)>
#mm = affine_map<(d0, d1, d2) -> (d0, d2)>
#nn = affine_map<(d0, d1, d2) -> (d2, d1)>
#oo = affine_map<(d0, d1, d2) -> (d0, d1)>
func.func @too_few_tiles(%x: memref<128x1024xf32>, %w: memref<1024x1024xf32>, %out: memref<128x1024xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c6 = arith.constant 6 : index
  %c12 = arith.constant 12 : index
  %c64 = arith.constant 64 : index
  %c126 = arith.constant 126 : index
  %c256 = arith.constant 256 : index
  %c1024 = arith.constant 1024 : index
  %pad = ub.poison : f32
  scf.for %kb = %c0 to %c1024 step %c256 {
    scf.for %j = %c0 to %c1024 step %c64 {
      scf.for %i = %c0 to %c12 step %c6 {
          %acc = vector.transfer_read %out[%i, %j], %pad {in_bounds = [true, true]} : memref<128x1024xf32>, vector<6x64xf32>
          %r = scf.for %k = %c0 to %c256 step %c1 iter_args(%a = %acc) -> (vector<6x64xf32>) {
            %kk = affine.apply #kk()[%kb, %k]
            %l = vector.transfer_read %x[%i, %kk], %pad {in_bounds = [true, true]} : memref<128x1024xf32>, vector<6x1xf32>
            %rr = vector.transfer_read %w[%kk, %j], %pad {in_bounds = [true]} : memref<1024x1024xf32>, vector<64xf32>
            %rb = vector.broadcast %rr : vector<64xf32> to vector<1x64xf32>
            %c = vector.contract {indexing_maps = [#mm, #nn, #oo], iterator_types = ["parallel", "parallel", "reduction"], kind = #vector.kind<add>} %l, %rb, %a : vector<6x1xf32>, vector<1x64xf32> into vector<6x64xf32>
            scf.yield %c : vector<6x64xf32>
          }
          vector.transfer_write %r, %out[%i, %j] {in_bounds = [true, true]} : vector<6x64xf32>, memref<128x1024xf32>
      }
    }
  }
  return
}

// -----

// w is written between two row loops that read the same rows: a panel made
// before the first would hold stale rows for the second. The first reads w
// (prefetched); the panel is filled after the write, for the second only.
// CHECK-LABEL: func.func @written_between(
// CHECK-SAME:    %[[W:[a-z0-9]+]]: memref<1024x1024xf32>
// CHECK:         %[[S:.*]] = memref.alloca() {alignment = 64 : i64} : memref<65536xi8>
// CHECK:             scf.for
// CHECK:               memref.prefetch %[[W]]
// CHECK:               vector.load %[[W]]
// CHECK:           vector.store %{{.*}}, %[[W]][%c0
// CHECK-NEXT:      %[[P:.*]] = memref.view %[[S]]
// CHECK-NEXT:      scf.for
// CHECK:             vector.load %[[W]]
// CHECK-NEXT:        vector.store %{{.*}}, %[[P]]
// CHECK:           scf.for
// CHECK:             scf.for
// CHECK-NOT:           %[[W]]
// CHECK:               vector.load %[[P]]
// CHECK-NOT:           %[[W]]
// CHECK:         return
#kk = affine_map<()[s0, s1] -> (s0 + s1)>
#mm = affine_map<(d0, d1, d2) -> (d0, d2)>
#nn = affine_map<(d0, d1, d2) -> (d2, d1)>
#oo = affine_map<(d0, d1, d2) -> (d0, d1)>
func.func @written_between(%x: memref<128x1024xf32>, %w: memref<1024x1024xf32>, %out: memref<128x1024xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c6 = arith.constant 6 : index
  %c12 = arith.constant 12 : index
  %c64 = arith.constant 64 : index
  %c126 = arith.constant 126 : index
  %c256 = arith.constant 256 : index
  %c1024 = arith.constant 1024 : index
  %pad = ub.poison : f32
  scf.for %kb = %c0 to %c1024 step %c256 {
    scf.for %j = %c0 to %c1024 step %c64 {
      scf.for %i = %c0 to %c126 step %c6 {
          %acc = vector.transfer_read %out[%i, %j], %pad {in_bounds = [true, true]} : memref<128x1024xf32>, vector<6x64xf32>
          %r = scf.for %k = %c0 to %c256 step %c1 iter_args(%a = %acc) -> (vector<6x64xf32>) {
            %kk = affine.apply #kk()[%kb, %k]
            %l = vector.transfer_read %x[%i, %kk], %pad {in_bounds = [true, true]} : memref<128x1024xf32>, vector<6x1xf32>
            %rr = vector.transfer_read %w[%kk, %j], %pad {in_bounds = [true]} : memref<1024x1024xf32>, vector<64xf32>
            %rb = vector.broadcast %rr : vector<64xf32> to vector<1x64xf32>
            %c = vector.contract {indexing_maps = [#mm, #nn, #oo], iterator_types = ["parallel", "parallel", "reduction"], kind = #vector.kind<add>} %l, %rb, %a : vector<6x1xf32>, vector<1x64xf32> into vector<6x64xf32>
            scf.yield %c : vector<6x64xf32>
          }
          vector.transfer_write %r, %out[%i, %j] {in_bounds = [true, true]} : vector<6x64xf32>, memref<128x1024xf32>
      }
      %zero = arith.constant dense<0.0> : vector<64xf32>
      vector.transfer_write %zero, %w[%c0, %j] {in_bounds = [true]} : vector<64xf32>, memref<1024x1024xf32>
      scf.for %i = %c0 to %c126 step %c6 {
          %accb = vector.transfer_read %out[%i, %j], %pad {in_bounds = [true, true]} : memref<128x1024xf32>, vector<6x64xf32>
          %rb = scf.for %k = %c0 to %c256 step %c1 iter_args(%a = %accb) -> (vector<6x64xf32>) {
            %kk = affine.apply #kk()[%kb, %k]
            %l = vector.transfer_read %x[%i, %kk], %pad {in_bounds = [true, true]} : memref<128x1024xf32>, vector<6x1xf32>
            %rr = vector.transfer_read %w[%kk, %j], %pad {in_bounds = [true]} : memref<1024x1024xf32>, vector<64xf32>
            %rb = vector.broadcast %rr : vector<64xf32> to vector<1x64xf32>
            %c = vector.contract {indexing_maps = [#mm, #nn, #oo], iterator_types = ["parallel", "parallel", "reduction"], kind = #vector.kind<add>} %l, %rb, %a : vector<6x1xf32>, vector<1x64xf32> into vector<6x64xf32>
            scf.yield %c : vector<6x64xf32>
          }
          vector.transfer_write %rb, %out[%i, %j] {in_bounds = [true, true]} : vector<6x64xf32>, memref<128x1024xf32>
      }
    }
  }
  return
}

// -----

// Two products one after the other (x @ w, then x @ v): their panels are
// never held at once and share one stack buffer. A loop that reads rows of w
// and of v in each step holds both panels: two buffers.
// CHECK-LABEL: func.func @buffers_shared_when_disjoint(
// CHECK-SAME:    %[[W:[a-z0-9]+]]: memref<1024x1024xf32>, %[[V:[a-z0-9]+]]: memref<1024x1024xf32>
// CHECK:         %[[S:.*]] = memref.alloca() {alignment = 64 : i64} : memref<65536xi8>
// CHECK-NOT:     memref.alloca
// CHECK:         memref.view %[[S]]
// CHECK:         vector.load %[[W]]
// CHECK:         memref.view %[[S]]
// CHECK:         vector.load %[[V]]
// CHECK:         return
// CHECK-LABEL: func.func @buffers_apart_when_held_together(
// CHECK-COUNT-2: memref.alloca() {alignment = 64 : i64} : memref<65536xi8>
// CHECK-NOT:     memref.alloca
// CHECK:         return
#kk = affine_map<()[s0, s1] -> (s0 + s1)>
func.func @buffers_shared_when_disjoint(%x: memref<128x1024xf32>, %w: memref<1024x1024xf32>, %v: memref<1024x1024xf32>, %out: memref<128x1024xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c6 = arith.constant 6 : index
  %c64 = arith.constant 64 : index
  %c126 = arith.constant 126 : index
  %c256 = arith.constant 256 : index
  %c1024 = arith.constant 1024 : index
  %pad = ub.poison : f32
  scf.for %kb = %c0 to %c1024 step %c256 {
    scf.for %j = %c0 to %c1024 step %c64 {
      scf.for %i = %c0 to %c126 step %c6 {
        %acc = vector.transfer_read %out[%i, %j], %pad {in_bounds = [true]} : memref<128x1024xf32>, vector<64xf32>
        %r = scf.for %k = %c0 to %c256 step %c1 iter_args(%a = %acc) -> (vector<64xf32>) {
          %kk = affine.apply #kk()[%kb, %k]
          %rw = vector.transfer_read %w[%kk, %j], %pad {in_bounds = [true]} : memref<1024x1024xf32>, vector<64xf32>
          %s = arith.addf %a, %rw : vector<64xf32>
          scf.yield %s : vector<64xf32>
        }
        vector.transfer_write %r, %out[%i, %j] {in_bounds = [true]} : vector<64xf32>, memref<128x1024xf32>
      }
    }
  }
  scf.for %kb = %c0 to %c1024 step %c256 {
    scf.for %j = %c0 to %c1024 step %c64 {
      scf.for %i = %c0 to %c126 step %c6 {
        %acc = vector.transfer_read %out[%i, %j], %pad {in_bounds = [true]} : memref<128x1024xf32>, vector<64xf32>
        %r = scf.for %k = %c0 to %c256 step %c1 iter_args(%a = %acc) -> (vector<64xf32>) {
          %kk = affine.apply #kk()[%kb, %k]
          %rv = vector.transfer_read %v[%kk, %j], %pad {in_bounds = [true]} : memref<1024x1024xf32>, vector<64xf32>
          %s = arith.addf %a, %rv : vector<64xf32>
          scf.yield %s : vector<64xf32>
        }
        vector.transfer_write %r, %out[%i, %j] {in_bounds = [true]} : vector<64xf32>, memref<128x1024xf32>
      }
    }
  }
  return
}
func.func @buffers_apart_when_held_together(%x: memref<128x1024xf32>, %w: memref<1024x1024xf32>, %v: memref<1024x1024xf32>, %out: memref<128x1024xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c6 = arith.constant 6 : index
  %c64 = arith.constant 64 : index
  %c126 = arith.constant 126 : index
  %c256 = arith.constant 256 : index
  %c1024 = arith.constant 1024 : index
  %pad = ub.poison : f32
  scf.for %kb = %c0 to %c1024 step %c256 {
    scf.for %j = %c0 to %c1024 step %c64 {
      scf.for %i = %c0 to %c126 step %c6 {
        %acc = vector.transfer_read %out[%i, %j], %pad {in_bounds = [true]} : memref<128x1024xf32>, vector<64xf32>
        %r = scf.for %k = %c0 to %c256 step %c1 iter_args(%a = %acc) -> (vector<64xf32>) {
          %kk = affine.apply #kk()[%kb, %k]
          %rw = vector.transfer_read %w[%kk, %j], %pad {in_bounds = [true]} : memref<1024x1024xf32>, vector<64xf32>
          %rv = vector.transfer_read %v[%kk, %j], %pad {in_bounds = [true]} : memref<1024x1024xf32>, vector<64xf32>
          %p = arith.mulf %rw, %rv : vector<64xf32>
          %s = arith.addf %a, %p : vector<64xf32>
          scf.yield %s : vector<64xf32>
        }
        vector.transfer_write %r, %out[%i, %j] {in_bounds = [true]} : vector<64xf32>, memref<128x1024xf32>
      }
    }
  }
  return
}
