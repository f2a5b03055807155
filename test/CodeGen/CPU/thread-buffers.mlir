// relax-cpu-thread-buffers: the fixed-size stack buffers at the top of a
// parallel loop body (in the memref.alloca_scope that convert-scf-to-openmp
// puts around it) move to the omp.parallel region, once per thread; the
// scope, empty of allocations, is then inlined by canonicalization.
// RUN: relax-opt %s --split-input-file --pass-pipeline="builtin.module(func.func(relax-cpu-thread-buffers))" | FileCheck %s
// RUN: relax-opt %s --split-input-file --pass-pipeline="builtin.module(func.func(relax-cpu-thread-buffers,canonicalize))" | FileCheck %s --check-prefix=CANON

// CHECK-LABEL: func.func @panel_per_thread(
// CHECK:         omp.parallel {
// CHECK-NEXT:      %[[P:.*]] = memref.alloca() {alignment = 64 : i64} : memref<256x64xf32>
// CHECK-NEXT:      omp.wsloop {
// CHECK-NEXT:        omp.loop_nest (%[[J:.*]]) : index
// CHECK-NEXT:          memref.alloca_scope {
// CHECK-NEXT:            vector.load %{{.*}}[%c0, %[[J]]]
// CHECK-NEXT:            vector.store %{{.*}}, %[[P]][%c0, %c0]
// CANON-LABEL: func.func @panel_per_thread(
// CANON:         omp.parallel {
// CANON-NEXT:      %[[P:.*]] = memref.alloca() {alignment = 64 : i64} : memref<256x64xf32>
// CANON:             omp.loop_nest
// CANON-NOT:           memref.alloca_scope
// CANON:               vector.store %{{.*}}, %[[P]]
func.func @panel_per_thread(%w: memref<1024x1024xf32>) {
  %c0 = arith.constant 0 : index
  %c64 = arith.constant 64 : index
  %c1024 = arith.constant 1024 : index
  omp.parallel {
    omp.wsloop {
      omp.loop_nest (%j) : index = (%c0) to (%c1024) step (%c64) {
        memref.alloca_scope {
          %p = memref.alloca() {alignment = 64 : i64} : memref<256x64xf32>
          %v = vector.load %w[%c0, %j] : memref<1024x1024xf32>, vector<64xf32>
          vector.store %v, %p[%c0, %c0] : memref<256x64xf32>, vector<64xf32>
        }
        omp.yield
      }
    }
    omp.terminator
  }
  return
}

// -----

// A buffer whose size an iteration computes stays in its scope; so does one
// outside any parallel region.
// CHECK-LABEL: func.func @stays(
// CHECK:         omp.parallel {
// CHECK-NEXT:      omp.wsloop {
// CHECK-NEXT:        omp.loop_nest (%[[J:.*]]) : index
// CHECK-NEXT:          memref.alloca_scope {
// CHECK-NEXT:            memref.alloca(%[[J]]) : memref<?xf32>
// CHECK:         memref.alloca_scope {
// CHECK-NEXT:      memref.alloca() : memref<64xf32>
func.func @stays(%n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %cst = arith.constant 0.0 : f32
  omp.parallel {
    omp.wsloop {
      omp.loop_nest (%j) : index = (%c0) to (%n) step (%c1) {
        memref.alloca_scope {
          %p = memref.alloca(%j) : memref<?xf32>
          memref.store %cst, %p[%c0] : memref<?xf32>
        }
        omp.yield
      }
    }
    omp.terminator
  }
  memref.alloca_scope {
    %q = memref.alloca() : memref<64xf32>
    memref.store %cst, %q[%c0] : memref<64xf32>
  }
  return
}
