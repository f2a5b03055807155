// RUN: relax-opt %s --split-input-file \
// RUN:   --pass-pipeline="builtin.module(func.func(relax-gpu-block-reductions))" | FileCheck %s
// RUN: relax-opt %s --split-input-file \
// RUN:   --pass-pipeline="builtin.module(func.func(relax-gpu-block-reductions{min-extent=4096 block-size=128}))" \
// RUN:   | FileCheck %s --check-prefix=BIG

// A long row sum (4 rows of 2048): one block of 256 threads per row; each
// thread adds every 256th element from the identity, gpu.all_reduce adds the
// partial sums, thread 0 adds the total to the output element.
// CHECK-LABEL: func.func @row_sum(
// CHECK-DAG:     %[[C4:.*]] = arith.constant 4 : index
// CHECK-DAG:     %[[C256:.*]] = arith.constant 256 : index
// CHECK:         gpu.launch blocks(%[[B:[a-z0-9]+]], %{{.*}}) in (%{{[a-z0-9]+}} = %[[C4]], %{{.*}}) threads(%[[T:[a-z0-9]+]], %{{.*}}) in (%{{[a-z0-9]+}} = %[[C256]],
// CHECK:           %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
// CHECK:           %[[PART:.*]] = scf.for %[[K:.*]] = %[[T]] to %{{.*}} step %[[C256]] iter_args(%[[ACC:.*]] = %[[ZERO]]) -> (f32) {
// CHECK:             %[[X:.*]] = memref.load %arg0[%[[B]], %[[K]]] : memref<4x2048xf32>
// CHECK:             %[[SQ:.*]] = arith.mulf %[[X]], %[[X]] : f32
// CHECK:             %[[NEXT:.*]] = arith.addf %[[SQ]], %[[ACC]] : f32
// CHECK:             scf.yield %[[NEXT]] : f32
// CHECK:           %[[TOTAL:.*]] = gpu.all_reduce add %[[PART]] uniform {
// CHECK:           %[[FIRST:.*]] = arith.cmpi eq, %[[T]], %{{.*}} : index
// CHECK:           scf.if %[[FIRST]] {
// CHECK:             %[[OLD:.*]] = memref.load %arg1[%[[B]]] : memref<4xf32>
// CHECK:             %[[NEW:.*]] = arith.addf %[[TOTAL]], %[[OLD]] : f32
// CHECK:             memref.store %[[NEW]], %arg1[%[[B]]] : memref<4xf32>
// CHECK:           gpu.terminator
// CHECK-NOT:     linalg.generic
// BIG-LABEL: func.func @row_sum(
// BIG:         linalg.generic
// BIG-NOT:     gpu.launch
func.func @row_sum(%x: memref<4x2048xf32>, %out: memref<4xf32>) {
  linalg.generic {indexing_maps = [affine_map<(i, k) -> (i, k)>, affine_map<(i, k) -> (i)>],
                  iterator_types = ["parallel", "reduction"]}
      ins(%x : memref<4x2048xf32>) outs(%out : memref<4xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %sq = arith.mulf %a, %a : f32
    %s = arith.addf %sq, %acc : f32
    linalg.yield %s : f32
  }
  return
}

// -----

// A full max over two reduction dimensions (64x128, one output): the
// identity is -inf; the flat iteration index splits into both dimensions.
// CHECK-LABEL: func.func @full_max(
// CHECK:         gpu.launch
// CHECK:           %[[NINF:.*]] = arith.constant 0xFF800000 : f32
// CHECK:           scf.for %[[K:.*]] = %{{.*}} to %{{.*}} step %{{.*}} iter_args(%{{.*}} = %[[NINF]])
// CHECK:             %[[J:.*]] = arith.remui %[[K]], %{{.*}} : index
// CHECK:             %[[I:.*]] = arith.divui %[[K]], %{{.*}} : index
// CHECK:             memref.load %arg0[%[[I]], %[[J]]]
// CHECK:             arith.maximumf
// CHECK:           gpu.all_reduce maximumf
// CHECK:           memref.load %arg1[]
// CHECK:           arith.maximumf
// CHECK:           memref.store %{{.*}}, %arg1[]
// With min-extent=4096 block-size=128: the 8192-long max is still a block
// reduction, of 128 threads.
// BIG-LABEL: func.func @full_max(
// BIG:         %[[C128:.*]] = arith.constant 128 : index
// BIG:         gpu.launch {{.*}} threads(%{{[a-z0-9]+}}, %{{.*}}) in (%{{[a-z0-9]+}} = %[[C128]],
func.func @full_max(%x: memref<64x128xf32>, %out: memref<f32>) {
  linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> ()>],
                  iterator_types = ["reduction", "reduction"]}
      ins(%x : memref<64x128xf32>) outs(%out : memref<f32>) {
  ^bb0(%a: f32, %acc: f32):
    %m = arith.maximumf %acc, %a : f32
    linalg.yield %m : f32
  }
  return
}

// -----

// Short reductions (a matmul's 784) and many outputs keep the one-thread loop;
// so do reductions whose payload is not `acc <op> x` (here the accumulator is
// used twice).
// CHECK-LABEL: func.func @kept(
// CHECK-NOT:     gpu.launch
// CHECK:         linalg.matmul
// CHECK:         linalg.generic
func.func @kept(%a: memref<64x784xf32>, %b: memref<784x256xf32>, %c: memref<64x256xf32>,
                %x: memref<4096xf32>, %out: memref<f32>) {
  linalg.matmul ins(%a, %b : memref<64x784xf32>, memref<784x256xf32>)
                outs(%c : memref<64x256xf32>)
  linalg.generic {indexing_maps = [affine_map<(k) -> (k)>, affine_map<(k) -> ()>],
                  iterator_types = ["reduction"]}
      ins(%x : memref<4096xf32>) outs(%out : memref<f32>) {
  ^bb0(%v: f32, %acc: f32):
    %sq = arith.mulf %acc, %acc : f32
    %s = arith.addf %sq, %v : f32
    linalg.yield %s : f32
  }
  return
}

// -----

// The accumulator is a fresh allocation a fill sets just before: thread 0
// combines the total with the fill's scalar (no load) and the fill goes.
// CHECK-LABEL: func.func @filled(
// CHECK:         %[[INIT:.*]] = arith.constant 1.000000e+00 : f32
// CHECK:         %[[ACC:.*]] = memref.alloc() : memref<4xf32>
// CHECK-NOT:     linalg.fill
// CHECK:         gpu.launch
// CHECK:           %[[TOTAL:.*]] = gpu.all_reduce add
// CHECK:           scf.if
// CHECK-NOT:         memref.load
// CHECK:             %[[NEW:.*]] = arith.addf %[[TOTAL]], %[[INIT]] : f32
// CHECK:             memref.store %[[NEW]], %[[ACC]][%{{.*}}] : memref<4xf32>
// BIG-LABEL: func.func @filled(
// BIG:         linalg.fill
func.func @filled(%x: memref<4x2048xf32>, %out: memref<4xf32>) {
  %one = arith.constant 1.0 : f32
  %acc = memref.alloc() : memref<4xf32>
  linalg.fill ins(%one : f32) outs(%acc : memref<4xf32>)
  linalg.generic {indexing_maps = [affine_map<(i, k) -> (i, k)>, affine_map<(i, k) -> (i)>],
                  iterator_types = ["parallel", "reduction"]}
      ins(%x : memref<4x2048xf32>) outs(%acc : memref<4xf32>) {
  ^bb0(%v: f32, %a: f32):
    %s = arith.addf %v, %a : f32
    linalg.yield %s : f32
  }
  memref.copy %acc, %out : memref<4xf32> to memref<4xf32>
  memref.dealloc %acc : memref<4xf32>
  return
}
