// RUN: relax-opt %s --split-input-file --verify-diagnostics \
// RUN:   --pass-pipeline="builtin.module(func.func(relax-gpu-emulate))" | FileCheck %s
// RUN: relax-opt %s --split-input-file --verify-diagnostics \
// RUN:   --pass-pipeline="builtin.module(func.func(relax-gpu-emulate{reverse=1}))" \
// RUN:   | FileCheck %s --check-prefix=REVERSE

// A block of 8 threads sums 64 values through an 8-element shared tile,
// two barriers per step, then divides by the block's total (all_reduce).
// Blocks run in a host loop; shared memory and the per-thread accumulator
// (the loop's iter_arg) are host buffers allocated before it. The loop
// over k stays a loop of the block; in it, the part between the barriers
// is a loop over the threads, and the next step's staging (before the
// first barrier) runs in the same thread loop as this step's yield, as on
// a GPU (nothing separates them). The all_reduce folds the threads' values
// in order; the last part reads the total.
// CHECK-LABEL: func.func @tiles(
// CHECK-SAME:      %[[IN:[a-z0-9]+]]: memref<64xf32>, %[[OUT:[a-z0-9]+]]: memref<8xf32>
// CHECK:         %[[TILE:.*]] = memref.alloc() : memref<8xf32>
// CHECK:         %[[ACC:.*]] = memref.alloc(%[[THREADS:.*]]) : memref<?xf32>
// CHECK:         %[[NEXT:.*]] = memref.alloc(%[[THREADS]]) : memref<?xf32>
// CHECK:         scf.for %[[BLOCK:.*]] = %{{.*}} to %{{.*}} step
// The iter_arg's initial value, per thread.
// CHECK:           scf.for %[[T0:.*]] = %{{.*}} to %[[THREADS]]
// CHECK:             memref.store %{{.*}}, %[[ACC]][%[[T0]]]
// The first step's staging.
// CHECK:           scf.if
// CHECK:             scf.for %[[T1:.*]] = %{{.*}} to %[[THREADS]]
// CHECK:               %[[TX1:.*]] = arith.remui %[[T1]], %c8
// CHECK:               memref.load %[[IN]]
// CHECK:               memref.store %{{.*}}, %[[TILE]][%[[TX1]]]
// CHECK:           scf.for %[[K:.*]] = %{{.*}} to %{{.*}} step %c8
// CHECK:             scf.for %[[T2:.*]] = %{{.*}} to %[[THREADS]]
// CHECK:               %[[OLD:.*]] = memref.load %[[ACC]][%[[T2]]]
// CHECK:               %[[W:.*]] = memref.load %[[TILE]]
// CHECK:               %[[SUM:.*]] = arith.addf %[[OLD]], %[[W]]
// CHECK:               memref.store %[[SUM]], %[[NEXT]][%[[T2]]]
// CHECK-NOT:           gpu.barrier
// CHECK:             scf.for %[[T3:.*]] = %{{.*}} to %[[THREADS]]
// CHECK:               %[[Y:.*]] = memref.load %[[NEXT]][%[[T3]]]
// CHECK:               memref.store %[[Y]], %[[ACC]][%[[T3]]]
// CHECK:               %[[K1:.*]] = arith.addi %[[K]], %c8
// CHECK:               %[[MORE:.*]] = arith.cmpi slt, %[[K1]]
// CHECK:               scf.if %[[MORE]]
// CHECK:                 arith.addi %[[K1]]
// CHECK:                 memref.store %{{.*}}, %[[TILE]]
// CHECK:           %[[FIRST:.*]] = memref.load %[[ACC]][%c0
// CHECK:           %[[TOTAL:.*]] = scf.for %[[T4:.*]] = %c1{{.*}} to %[[THREADS]] {{.*}} iter_args(%[[PARTIAL:.*]] = %[[FIRST]])
// CHECK:             %[[V:.*]] = memref.load %[[ACC]][%[[T4]]]
// CHECK:             arith.addf %[[PARTIAL]], %[[V]]
// CHECK:           scf.for %[[T5:.*]] = %{{.*}} to %[[THREADS]]
// CHECK:             %[[MINE:.*]] = memref.load %[[ACC]][%[[T5]]]
// CHECK:             %[[R:.*]] = arith.divf %[[MINE]], %[[TOTAL]]
// CHECK:             memref.store %[[R]], %[[OUT]]
// CHECK:         memref.dealloc %[[TILE]]
// CHECK-NOT:     gpu.
// REVERSE-LABEL: func.func @tiles(
// Blocks and threads last to first.
// REVERSE:         scf.for %[[I:.*]] = %{{.*}} to %[[BLOCKS:[^ ]+]] step
// REVERSE:           %[[LAST:.*]] = arith.subi %[[BLOCKS]], %c1
// REVERSE:           arith.subi %[[LAST]], %[[I]]
// REVERSE:           scf.for %[[J:.*]] = %{{.*}} to %[[THREADS:[^ ]+]] step
// REVERSE:             %[[LASTT:.*]] = arith.subi %[[THREADS]], %c1
// REVERSE:             %[[T:.*]] = arith.subi %[[LASTT]], %[[J]]
// REVERSE:             memref.store %{{.*}}[%[[T]]]
func.func @tiles(%in: memref<64xf32>, %out: memref<8xf32>) {
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c8, %sy = %c1, %sz = %c1)
             workgroup(%tile : memref<8xf32, #gpu.address_space<workgroup>>) {
    %c0 = arith.constant 0 : index
    %c64 = arith.constant 64 : index
    %zero = arith.constant 0.0 : f32
    %sum = scf.for %k = %c0 to %c64 step %c8 iter_args(%acc = %zero) -> f32 {
      %i = arith.addi %k, %tx : index
      %v = memref.load %in[%i] : memref<64xf32>
      memref.store %v, %tile[%tx] : memref<8xf32, #gpu.address_space<workgroup>>
      gpu.barrier
      %j = arith.subi %c8, %tx : index
      %j1 = arith.subi %j, %c1 : index
      %w = memref.load %tile[%j1] : memref<8xf32, #gpu.address_space<workgroup>>
      %a = arith.addf %acc, %w : f32
      gpu.barrier
      scf.yield %a : f32
    }
    %total = gpu.all_reduce add %sum uniform {} : (f32) -> (f32)
    %r = arith.divf %sum, %total : f32
    memref.store %r, %out[%tx] : memref<8xf32>
    gpu.terminator
  }
  return
}

// -----

// Host memory ops: device buffers become host buffers.
// CHECK-LABEL: func.func @host_ops(
// CHECK:         %[[A:.*]] = memref.alloc() : memref<16xf32>
// CHECK:         memref.copy %arg0, %[[A]]
// CHECK:         linalg.fill ins(%{{.*}} : f32) outs(%[[A]] : memref<16xf32>)
// CHECK:         memref.dealloc %[[A]]
// CHECK-NOT:     gpu.
func.func @host_ops(%x: memref<16xf32>) {
  %a = gpu.alloc () : memref<16xf32>
  gpu.memcpy %a, %x : memref<16xf32>, memref<16xf32>
  %zero = arith.constant 0.0 : f32
  gpu.memset %a, %zero : memref<16xf32>, f32
  gpu.dealloc %a : memref<16xf32>
  return
}

// -----

func.func @thread_dependent_loop(%n: memref<8xindex>) {
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c8, %sy = %c1, %sz = %c1) {
    %c0 = arith.constant 0 : index
    %end = memref.load %n[%tx] : memref<8xindex>
    // expected-error @below {{GPU emulation: the bounds of a loop holding a barrier must be the same in every thread of a block}}
    scf.for %i = %c0 to %end step %c1 {
      gpu.barrier
    }
    gpu.terminator
  }
  return
}

// -----

func.func @thread_dependent_branch() {
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c8, %sy = %c1, %sz = %c1) {
    %c0 = arith.constant 0 : index
    %first = arith.cmpi eq, %tx, %c0 : index
    // expected-error @below {{GPU emulation: the condition of a branch holding a barrier must be the same in every thread of a block}}
    scf.if %first {
      gpu.barrier
    }
    gpu.terminator
  }
  return
}

// -----

func.func @shuffle(%x: memref<32xf32>) {
  %c1 = arith.constant 1 : index
  %c32 = arith.constant 32 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c32, %sy = %c1, %sz = %c1) {
    %v = memref.load %x[%tx] : memref<32xf32>
    %o = arith.constant 1 : i32
    %w = arith.constant 32 : i32
    // expected-error @below {{GPU emulation: 'gpu.shuffle' is not supported}}
    %s, %ok = gpu.shuffle xor %v, %o, %w : f32
    memref.store %s, %x[%tx] : memref<32xf32>
    gpu.terminator
  }
  return
}

// -----

func.func @async_launch() {
  %c1 = arith.constant 1 : index
  // expected-error @below {{GPU emulation: asynchronous gpu.launch is not supported (emulate before gpu-async-region)}}
  %t = gpu.launch async blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1) {
    gpu.terminator
  }
  return
}
