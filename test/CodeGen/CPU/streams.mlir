// relax-cpu-prefetch and relax-cpu-stream-stores: memory hints for
// register-tile reduction loops (scf.for carrying vectors): prefetches of rows read one per step far apart,
// and non-temporal stores of tiles into large results the function only
// writes. Local panels (panels.mlir) are off, so that the rows stay far apart.
// RUN: relax-opt %s --split-input-file --relax-cpu-hoist-transfers --relax-cpu-pack-panels="panel-bytes=0" --relax-cpu-prefetch --relax-cpu-stream-stores \
// RUN:   --relax-cpu-lower-vectors | FileCheck %s
// RUN: relax-opt %s --split-input-file --relax-cpu-hoist-transfers --relax-cpu-pack-panels="panel-bytes=0" --relax-cpu-prefetch="prefetch-distance=0" --relax-cpu-stream-stores="streaming-store-bytes=0" \
// RUN:   --relax-cpu-lower-vectors | FileCheck %s --check-prefix=OFF
// RUN: relax-opt %s --split-input-file --relax-cpu-hoist-transfers --relax-cpu-pack-panels="panel-bytes=0" --relax-cpu-prefetch="prefetch-distance=8" --relax-cpu-stream-stores \
// RUN:   --relax-cpu-lower-vectors | FileCheck %s --check-prefix=FAR

// x @ w: rows of w (4 KiB apart) one per step; the 64 columns are 4 lines.
// The rows of x are read along the step (contiguous): not prefetched.
// CHECK-LABEL: func.func @rows_far_apart(
// CHECK-SAME:    %[[X:[a-z0-9]+]]: memref<128x1024xf32>, %[[W:[a-z0-9]+]]: memref<1024x1024xf32>
// CHECK:         scf.for %[[K:.*]] = %c0 to %c256 step %c1 iter_args(
// CHECK:           %[[NEXT:.*]] = arith.addi %[[K]], %c4
// CHECK:           %[[AHEAD:.*]] = arith.minsi %[[NEXT]], %c255
// CHECK:           %[[ROW:.*]] = affine.apply #{{.*}}()[%{{.*}}, %[[AHEAD]]]
// CHECK:           memref.prefetch %[[W]][%[[ROW]], %[[J:[a-z0-9]+]]], read, locality<3>, data
// CHECK:           %[[J16:.*]] = arith.addi %[[J]], %c16
// CHECK:           memref.prefetch %[[W]][%[[ROW]], %[[J16]]], read, locality<3>, data
// CHECK:           %[[J32:.*]] = arith.addi %[[J]], %c32
// CHECK:           memref.prefetch %[[W]][%[[ROW]], %[[J32]]], read, locality<3>, data
// CHECK:           %[[J48:.*]] = arith.addi %[[J]], %c48
// CHECK:           memref.prefetch %[[W]][%[[ROW]], %[[J48]]], read, locality<3>, data
// CHECK-NOT:       memref.prefetch
// CHECK:           scf.yield
// The accumulator tile is read back: its stores stay ordinary.
// CHECK-NOT:     nontemporal
// OFF-LABEL: func.func @rows_far_apart(
// OFF-NOT:     memref.prefetch
// FAR-LABEL: func.func @rows_far_apart(
// FAR:         arith.addi %{{.*}}, %c8
// FAR:         memref.prefetch
#kk = affine_map<()[s0, s1] -> (s0 + s1)>
func.func @rows_far_apart(%x: memref<128x1024xf32>, %w: memref<1024x1024xf32>, %out: memref<128x1024xf32>) {
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
        %acc = vector.transfer_read %out[%i, %j], %pad {in_bounds = [true, true]} : memref<128x1024xf32>, vector<6x64xf32>
        %r = scf.for %k = %c0 to %c256 step %c1 iter_args(%a = %acc) -> (vector<6x64xf32>) {
          %kk = affine.apply #kk()[%kb, %k]
          %l = vector.transfer_read %x[%i, %kk], %pad {in_bounds = [true, true]} : memref<128x1024xf32>, vector<6x1xf32>
          %rr = vector.transfer_read %w[%kk, %j], %pad {in_bounds = [true]} : memref<1024x1024xf32>, vector<64xf32>
          %rb = vector.broadcast %rr : vector<64xf32> to vector<1x64xf32>
          %c = vector.contract {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d2, d1)>, affine_map<(d0, d1, d2) -> (d0, d1)>], iterator_types = ["parallel", "parallel", "reduction"], kind = #vector.kind<add>} %l, %rb, %a : vector<6x1xf32>, vector<1x64xf32> into vector<6x64xf32>
          scf.yield %c : vector<6x64xf32>
        }
        vector.transfer_write %r, %out[%i, %j] {in_bounds = [true, true]} : vector<6x64xf32>, memref<128x1024xf32>
      }
    }
  }
  return
}

// -----

// x^T @ g into a 4 MiB result that is only written: the x^T column (6
// floats of a row 4 KiB from the last) is prefetched; the packed panel of g
// (rows of 64 floats one after the other) is one stream and is not; the tile
// rows are stored non-temporally, and a fence follows the loop nest. Each
// row store checks its address: a multiple of 64 takes the whole-vector
// store (alignment 64: movntps), any other a plain store.
// CHECK-LABEL: func.func @streamed_result(
// CHECK-SAME:    %[[X:[a-z0-9]+]]: memref<128x1024xf32>, %[[P:[a-z0-9]+]]: memref<16x128x64xf32>, %[[OUT:[a-z0-9]+]]: memref<1024x1024xf32>
// CHECK:         scf.for
// CHECK:           scf.for %[[I:[a-z0-9]+]] =
// CHECK:             scf.for %[[K:.*]] = %c0 to %c128 step %c1 iter_args(
// CHECK:               %[[AHEAD:.*]] = arith.minsi
// CHECK:               memref.prefetch %[[X]][%[[AHEAD]], %[[I]]], read, locality<3>, data
// CHECK-NOT:           memref.prefetch
// CHECK:               scf.yield
// CHECK:           %[[PTR:.*]] = memref.extract_aligned_pointer_as_index %[[OUT]]
// CHECK:           %[[ROW:.*]] = vector.extract %{{.*}}[0] : vector<64xf32> from vector<6x64xf32>
// CHECK:           %[[LIN:.*]] = arith.muli %[[I]], %c1024
// CHECK:           %[[EL:.*]] = arith.addi %[[LIN]], %[[J:[a-z0-9]+]] : index
// CHECK:           %[[BYTES:.*]] = arith.muli %[[EL]], %c4
// CHECK:           %[[ADDR:.*]] = arith.addi %[[PTR]], %[[BYTES]]
// CHECK:           %[[LOW:.*]] = arith.andi %[[ADDR]], %c63
// CHECK:           %[[OK:.*]] = arith.cmpi eq, %[[LOW]], %c0
// CHECK:           scf.if %[[OK]] {
// CHECK-NEXT:        vector.store %[[ROW]], %[[OUT]][%[[I]], %[[J]]] {alignment = 64 : i64, nontemporal = true} : memref<1024x1024xf32>, vector<64xf32>
// CHECK-NEXT:      } else {
// CHECK-NEXT:        vector.store %[[ROW]], %[[OUT]][%[[I]], %[[J]]] : memref<1024x1024xf32>, vector<64xf32>
// CHECK-NEXT:      }
// CHECK-COUNT-5:   vector.store {{.*}}, %[[OUT]][{{.*}}] {alignment = 64 : i64, nontemporal = true} : memref<1024x1024xf32>, vector<64xf32>
// CHECK-NEXT:      } else {
// CHECK-NEXT:        vector.store {{.*}}, %[[OUT]][{{.*}}] : memref<1024x1024xf32>, vector<64xf32>
// CHECK-NEXT:      }
// CHECK-NEXT:      }
// CHECK-NEXT:    }
// CHECK-NEXT:    llvm.fence seq_cst
// CHECK-NEXT:    return
// OFF-LABEL: func.func @streamed_result(
// OFF-NOT:     nontemporal
// OFF-NOT:     llvm.fence
// OFF:         return
func.func @streamed_result(%x: memref<128x1024xf32>, %p: memref<16x128x64xf32>, %out: memref<1024x1024xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c6 = arith.constant 6 : index
  %c16 = arith.constant 16 : index
  %c64 = arith.constant 64 : index
  %c128 = arith.constant 128 : index
  %c1020 = arith.constant 1020 : index
  %pad = ub.poison : f32
  %zero = arith.constant dense<0.0> : vector<6x64xf32>
  scf.for %jb = %c0 to %c16 step %c1 {
    %j = arith.muli %jb, %c64 : index
    scf.for %i = %c0 to %c1020 step %c6 {
      %r = scf.for %k = %c0 to %c128 step %c1 iter_args(%a = %zero) -> (vector<6x64xf32>) {
        %l = vector.transfer_read %x[%k, %i], %pad {in_bounds = [true]} : memref<128x1024xf32>, vector<6xf32>
        %rr = vector.transfer_read %p[%jb, %k, %c0], %pad {in_bounds = [true]} : memref<16x128x64xf32>, vector<64xf32>
        %lb = vector.broadcast %l : vector<6xf32> to vector<1x6xf32>
        %rb = vector.broadcast %rr : vector<64xf32> to vector<1x64xf32>
        %f = vector.contract {indexing_maps = [affine_map<(d0, d1, d2) -> (d2, d0)>, affine_map<(d0, d1, d2) -> (d2, d1)>, affine_map<(d0, d1, d2) -> (d0, d1)>], iterator_types = ["parallel", "parallel", "reduction"], kind = #vector.kind<add>} %lb, %rb, %a : vector<1x6xf32>, vector<1x64xf32> into vector<6x64xf32>
        scf.yield %f : vector<6x64xf32>
      }
      vector.transfer_write %r, %out[%i, %j] {in_bounds = [true, true]} : vector<6x64xf32>, memref<1024x1024xf32>
    }
  }
  return
}

// -----

// The same loop into a result under the threshold (256 KiB): ordinary stores.
// CHECK-LABEL: func.func @small_result(
// CHECK-NOT:     nontemporal
// CHECK-NOT:     llvm.fence
// CHECK:         return
func.func @small_result(%x: memref<128x256xf32>, %p: memref<4x128x64xf32>, %out: memref<256x256xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c6 = arith.constant 6 : index
  %c4 = arith.constant 4 : index
  %c64 = arith.constant 64 : index
  %c128 = arith.constant 128 : index
  %c252 = arith.constant 252 : index
  %pad = ub.poison : f32
  %zero = arith.constant dense<0.0> : vector<6x64xf32>
  scf.for %jb = %c0 to %c4 step %c1 {
    %j = arith.muli %jb, %c64 : index
    scf.for %i = %c0 to %c252 step %c6 {
      %r = scf.for %k = %c0 to %c128 step %c1 iter_args(%a = %zero) -> (vector<6x64xf32>) {
        %l = vector.transfer_read %x[%k, %i], %pad {in_bounds = [true]} : memref<128x256xf32>, vector<6xf32>
        %rr = vector.transfer_read %p[%jb, %k, %c0], %pad {in_bounds = [true]} : memref<4x128x64xf32>, vector<64xf32>
        %lb = vector.broadcast %l : vector<6xf32> to vector<1x6xf32>
        %rb = vector.broadcast %rr : vector<64xf32> to vector<1x64xf32>
        %f = vector.contract {indexing_maps = [affine_map<(d0, d1, d2) -> (d2, d0)>, affine_map<(d0, d1, d2) -> (d2, d1)>, affine_map<(d0, d1, d2) -> (d0, d1)>], iterator_types = ["parallel", "parallel", "reduction"], kind = #vector.kind<add>} %lb, %rb, %a : vector<1x6xf32>, vector<1x64xf32> into vector<6x64xf32>
        scf.yield %f : vector<6x64xf32>
      }
      vector.transfer_write %r, %out[%i, %j] {in_bounds = [true, true]} : vector<6x64xf32>, memref<256x256xf32>
    }
  }
  return
}

// -----

// Rank-0 vectors (a reduction to a scalar, one row per step): no hint, no
// crash (a random program's adjoint crashed the pass before).
// CHECK-LABEL: func.func @rank0(
// CHECK-NOT:     memref.prefetch
// CHECK-NOT:     nontemporal
// CHECK:         return
func.func @rank0(%x: memref<4x3xf64>, %out: memref<f64>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %pad = ub.poison : f64
  %zero = arith.constant dense<0.0> : vector<f64>
  %r = scf.for %k = %c0 to %c4 step %c1 iter_args(%a = %zero) -> (vector<f64>) {
    %v = vector.transfer_read %x[%k, %c0], %pad : memref<4x3xf64>, vector<f64>
    %s = arith.addf %a, %v : vector<f64>
    scf.yield %s : vector<f64>
  }
  vector.transfer_write %r, %out[] : vector<f64>, memref<f64>
  return
}
