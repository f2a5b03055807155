// RUN: relax-opt %s --split-input-file \
// RUN:   --pass-pipeline="builtin.module(func.func(relax-gpu-shared-contractions))" | FileCheck %s

// A matmul (64x784 by 784x256): blocks of 16x16 threads per 32x32 output
// tile (8 x 2 blocks), the operands' 32x16 and 16x32 tiles in shared memory,
// two barriers per 16-wide step of k, the payload folded over the step's k.
// CHECK-LABEL: func.func @matmul(
// CHECK-DAG:     %[[C8:.*]] = arith.constant 8 : index
// CHECK-DAG:     %[[C2:.*]] = arith.constant 2 : index
// CHECK:         gpu.launch blocks({{.*}}) in (%{{[a-z0-9]+}} = %[[C8]], %{{[a-z0-9]+}} = %[[C2]], %{{.*}}) threads({{.*}}) in (%{{[a-z0-9]+}} = %c16{{[_0-9]*}}, %{{[a-z0-9]+}} = %c16{{[_0-9]*}}, %{{[a-z0-9]+}} = %{{[a-z0-9_]+}})
// CHECK-SAME:      workgroup(%[[SL:.*]] : memref<32x16xf32, #gpu.address_space<workgroup>>, %[[SR:.*]] : memref<16x32xf32, #gpu.address_space<workgroup>>)
// CHECK-COUNT-4:   memref.load %arg2
// CHECK:           %[[K:.*]]:4 = scf.for %[[K0:.*]] = %{{.*}} to %{{.*}} step %{{.*}} iter_args(
// CHECK-COUNT-2:     memref.store %{{.*}}, %[[SL]]
// CHECK-COUNT-2:     memref.store %{{.*}}, %[[SR]]
// CHECK:             gpu.barrier
// CHECK:             %[[KEND:.*]] = arith.minsi
// CHECK:             scf.for %{{.*}} = %{{.*}} to %[[KEND]] step
// CHECK-COUNT-2:       memref.load %[[SL]]
// CHECK-COUNT-2:       memref.load %[[SR]]
// CHECK:               arith.mulf
// CHECK:               arith.addf
// CHECK:             gpu.barrier
// CHECK-COUNT-4:   memref.store %[[K]]#{{[0-3]}}, %arg2
// CHECK:           gpu.terminator
// CHECK-NOT:     linalg.generic
func.func @matmul(%a: memref<64x784xf32>, %b: memref<784x256xf32>, %c: memref<64x256xf32>) {
  linalg.generic {indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (k, n)>,
                                   affine_map<(m, n, k) -> (m, n)>],
                  iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%a, %b : memref<64x784xf32>, memref<784x256xf32>) outs(%c : memref<64x256xf32>) {
  ^bb0(%x: f32, %y: f32, %acc: f32):
    %p = arith.mulf %x, %y : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  }
  return
}

// -----

// A weight gradient x^T @ dz (k is the rows of both, 64) in a batch of 3
// (blockIdx.z): the lhs is read transposed through its indexing map.
// CHECK-LABEL: func.func @transposed_batch(
// CHECK:         %[[C3:.*]] = arith.constant 3 : index
// CHECK:         gpu.launch blocks(%{{.*}}, %{{.*}}, %[[BZ:[a-z0-9]+]]) in ({{.*}}, %{{[a-z0-9]+}} = %[[C3]])
// CHECK:           memref.load %arg0[%[[BZ]], %{{.*}}, %{{.*}}] : memref<3x64x100xf64>
// CHECK:           gpu.barrier
func.func @transposed_batch(%x: memref<3x64x100xf64>, %dz: memref<3x64x40xf64>,
                            %w: memref<3x100x40xf64>) {
  linalg.generic {indexing_maps = [affine_map<(b, m, n, k) -> (b, k, m)>,
                                   affine_map<(b, m, n, k) -> (b, k, n)>,
                                   affine_map<(b, m, n, k) -> (b, m, n)>],
                  iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
      ins(%x, %dz : memref<3x64x100xf64>, memref<3x64x40xf64>) outs(%w : memref<3x100x40xf64>) {
  ^bb0(%p: f64, %q: f64, %acc: f64):
    %m = arith.mulf %p, %q : f64
    %s = arith.addf %acc, %m : f64
    linalg.yield %s : f64
  }
  return
}

// -----

// Kept: a convolution (non-permutation maps), too few outputs, an
// elementwise op.
// CHECK-LABEL: func.func @kept(
// CHECK-NOT:     gpu.launch
// CHECK-COUNT-2: linalg.generic
func.func @kept(%x: memref<1x34xf32>, %w: memref<3xf32>, %y: memref<1x32xf32>,
                %a: memref<8x64xf32>, %b: memref<64x8xf32>, %c: memref<8x8xf32>) {
  linalg.generic {indexing_maps = [affine_map<(n, o, k) -> (n, o + k)>, affine_map<(n, o, k) -> (k)>,
                                   affine_map<(n, o, k) -> (n, o)>],
                  iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%x, %w : memref<1x34xf32>, memref<3xf32>) outs(%y : memref<1x32xf32>) {
  ^bb0(%p: f32, %q: f32, %acc: f32):
    %m = arith.mulf %p, %q : f32
    %s = arith.addf %acc, %m : f32
    linalg.yield %s : f32
  }
  linalg.generic {indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (k, n)>,
                                   affine_map<(m, n, k) -> (m, n)>],
                  iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%a, %b : memref<8x64xf32>, memref<64x8xf32>) outs(%c : memref<8x8xf32>) {
  ^bb0(%p: f32, %q: f32, %acc: f32):
    %m = arith.mulf %p, %q : f32
    %s = arith.addf %acc, %m : f32
    linalg.yield %s : f32
  }
  return
}

// -----

// More row tiles than a grid's y dimension takes (65535 of 64 rows): kept.
// CHECK-LABEL: func.func @tall(
// CHECK-NOT:     gpu.launch
// CHECK:         linalg.generic
func.func @tall(%a: memref<4194272x16xf32>, %b: memref<16x16xf32>, %c: memref<4194272x16xf32>) {
  linalg.generic {indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (k, n)>,
                                   affine_map<(m, n, k) -> (m, n)>],
                  iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%a, %b : memref<4194272x16xf32>, memref<16x16xf32>) outs(%c : memref<4194272x16xf32>) {
  ^bb0(%p: f32, %q: f32, %acc: f32):
    %m = arith.mulf %p, %q : f32
    %s = arith.addf %acc, %m : f32
    linalg.yield %s : f32
  }
  return
}

// -----

// With at least wide-tile-min-blocks (264) 64x64 output tiles (16 x 32 here),
// a block computes a 64x64 tile, each thread 4x4 outputs, through 64x16 and
// 16x64 operand tiles.
// CHECK-LABEL: func.func @wide(
// CHECK-DAG:     %[[C32:.*]] = arith.constant 32 : index
// CHECK-DAG:     %[[C16:.*]] = arith.constant 16 : index
// CHECK:         gpu.launch blocks({{.*}}) in (%{{[a-z0-9]+}} = %[[C32]], %{{[a-z0-9]+}} = %[[C16]], %{{[a-z0-9]+}} = %{{[a-z0-9_]+}}) threads
// CHECK-SAME:      workgroup(%[[SL:.*]] : memref<64x16xf32, #gpu.address_space<workgroup>>, %[[SR:.*]] : memref<16x64xf32, #gpu.address_space<workgroup>>)
// CHECK-COUNT-16:  memref.load %arg2
// CHECK:           scf.for {{.*}} -> (f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32)
// CHECK-COUNT-4:     memref.store %{{.*}}, %[[SL]]
// CHECK-COUNT-4:     memref.store %{{.*}}, %[[SR]]
// CHECK:             gpu.barrier
// CHECK-COUNT-4:       memref.load %[[SL]]
// CHECK-COUNT-4:       memref.load %[[SR]]
// CHECK-COUNT-16:      arith.mulf
// CHECK:             gpu.barrier
// CHECK-COUNT-16:  memref.store %{{.*}}, %arg2
func.func @wide(%a: memref<1024x40xf32>, %b: memref<40x2048xf32>, %c: memref<1024x2048xf32>) {
  linalg.generic {indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (k, n)>,
                                   affine_map<(m, n, k) -> (m, n)>],
                  iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%a, %b : memref<1024x40xf32>, memref<40x2048xf32>) outs(%c : memref<1024x2048xf32>) {
  ^bb0(%p: f32, %q: f32, %acc: f32):
    %m = arith.mulf %p, %q : f32
    %s = arith.addf %acc, %m : f32
    linalg.yield %s : f32
  }
  return
}

// -----

// The output is a fresh allocation that a fill zeroes just before the
// contraction: the accumulators start from the fill's scalar (no load of the
// output) and the fill goes, one kernel and one pass over the output fewer.
// CHECK-LABEL: func.func @filled(
// CHECK:         %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
// CHECK:         %[[C:.*]] = memref.alloc() : memref<64x256xf32>
// CHECK-NOT:     linalg.fill
// CHECK:         gpu.launch
// CHECK-NOT:       memref.load %[[C]]
// CHECK:           scf.for {{.*}} iter_args(%{{.*}} = %[[ZERO]], %{{.*}} = %[[ZERO]], %{{.*}} = %[[ZERO]], %{{.*}} = %[[ZERO]])
// CHECK-COUNT-4:   memref.store %{{.*}}, %[[C]]
// CHECK:           gpu.terminator
// CHECK:         memref.copy %[[C]], %arg2
func.func @filled(%a: memref<64x784xf32>, %b: memref<784x256xf32>, %out: memref<64x256xf32>) {
  %zero = arith.constant 0.0 : f32
  %c = memref.alloc() : memref<64x256xf32>
  linalg.fill ins(%zero : f32) outs(%c : memref<64x256xf32>)
  linalg.generic {indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (k, n)>,
                                   affine_map<(m, n, k) -> (m, n)>],
                  iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%a, %b : memref<64x784xf32>, memref<784x256xf32>) outs(%c : memref<64x256xf32>) {
  ^bb0(%x: f32, %y: f32, %acc: f32):
    %p = arith.mulf %x, %y : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  }
  memref.copy %c, %out : memref<64x256xf32> to memref<64x256xf32>
  memref.dealloc %c : memref<64x256xf32>
  return
}

// -----

// The fill stays, and the kernel reads the output, when the filled buffer
// is a parameter (it may alias another), or when something reads the
// allocation between the fill and the contraction.
// CHECK-LABEL: func.func @fill_kept(
// CHECK:         linalg.fill ins(%{{.*}} : f32) outs(%arg2 : memref<64x256xf32>)
// CHECK:         linalg.fill ins(%{{.*}} : f32) outs(%[[C:.*]] : memref<64x256xf32>)
// CHECK:         memref.load %[[C]]
// CHECK:         gpu.launch
// CHECK:           memref.load %arg2
// CHECK:         gpu.launch
// CHECK:           memref.load %[[C]]
func.func @fill_kept(%a: memref<64x784xf32>, %b: memref<784x256xf32>, %out: memref<64x256xf32>,
                     %seen: memref<f32>) {
  %zero = arith.constant 0.0 : f32
  %i = arith.constant 0 : index
  linalg.fill ins(%zero : f32) outs(%out : memref<64x256xf32>)
  %c = memref.alloc() : memref<64x256xf32>
  linalg.fill ins(%zero : f32) outs(%c : memref<64x256xf32>)
  %v = memref.load %c[%i, %i] : memref<64x256xf32>
  memref.store %v, %seen[] : memref<f32>
  linalg.generic {indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (k, n)>,
                                   affine_map<(m, n, k) -> (m, n)>],
                  iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%a, %b : memref<64x784xf32>, memref<784x256xf32>) outs(%out : memref<64x256xf32>) {
  ^bb0(%x: f32, %y: f32, %acc: f32):
    %p = arith.mulf %x, %y : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  }
  linalg.generic {indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (k, n)>,
                                   affine_map<(m, n, k) -> (m, n)>],
                  iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%a, %b : memref<64x784xf32>, memref<784x256xf32>) outs(%c : memref<64x256xf32>) {
  ^bb0(%x: f32, %y: f32, %acc: f32):
    %p = arith.mulf %x, %y : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  }
  memref.dealloc %c : memref<64x256xf32>
  return
}

// -----

// An epilogue: the bias add and the ReLU after a matmul are computed in its
// kernel from the accumulators (the bias loaded per element), and their
// linalg ops go. The matmul's own buffer is read by nothing else (the add
// was its only reader): it is neither stored nor allocated any more. The
// add's result is returned, so it is stored, as is the clamp's. The
// constant made between the matmul and the clamp is made before the kernel,
// once, and the kernel uses it (as it does the one made before).
// CHECK-LABEL: func.func @epilogue(
// CHECK-SAME:      %[[BIAS:[a-z0-9]+]]: memref<256xf32>)
// CHECK:         %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
// CHECK:         %[[H:.*]] = gpu.alloc () : memref<64x256xf32>
// CHECK-NEXT:    %[[R:.*]] = gpu.alloc () : memref<64x256xf32>
// CHECK-NEXT:    %[[SIX:.*]] = arith.constant 6.000000e+00 : f32
// CHECK-NEXT:    gpu.launch
// CHECK:           scf.for
// CHECK:           scf.if %{{[0-9]+}} {
// CHECK-NEXT:        %[[B:.*]] = memref.load %[[BIAS]][%{{.*}}] : memref<256xf32>
// CHECK-NEXT:        %[[SUM:.*]] = arith.addf %{{.*}}, %[[B]] : f32
// CHECK-NEXT:        memref.store %[[SUM]], %[[H]][%{{.*}}, %{{.*}}] : memref<64x256xf32>
// CHECK-NEXT:        %[[RELU:.*]] = arith.maximumf %[[SUM]], %[[ZERO]] : f32
// CHECK-NEXT:        %[[CLAMP:.*]] = arith.minimumf %[[RELU]], %[[SIX]] : f32
// CHECK-NEXT:        memref.store %[[CLAMP]], %[[R]][%{{.*}}, %{{.*}}] : memref<64x256xf32>
// CHECK-NOT:         arith.constant
// CHECK:           gpu.terminator
// CHECK-NOT:     linalg.generic
// CHECK-NOT:     gpu.alloc
// CHECK-NOT:     gpu.dealloc
// CHECK:         return %[[H]], %[[R]]
#mm = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (k, n)>, affine_map<(m, n, k) -> (m, n)>]
#id = affine_map<(i, j) -> (i, j)>
#row = affine_map<(i, j) -> (j)>
func.func @epilogue(%a: memref<64x784xf32>, %w: memref<784x256xf32>, %bias: memref<256xf32>)
    -> (memref<64x256xf32>, memref<64x256xf32>) {
  %zero = arith.constant 0.0 : f32
  %c = gpu.alloc () : memref<64x256xf32>
  linalg.fill ins(%zero : f32) outs(%c : memref<64x256xf32>)
  linalg.generic {indexing_maps = #mm, iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%a, %w : memref<64x784xf32>, memref<784x256xf32>) outs(%c : memref<64x256xf32>) {
  ^bb0(%x: f32, %y: f32, %acc: f32):
    %p = arith.mulf %x, %y : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  }
  %h = gpu.alloc () : memref<64x256xf32>
  linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel"]}
      ins(%c, %bias : memref<64x256xf32>, memref<256xf32>) outs(%h : memref<64x256xf32>) {
  ^bb0(%x: f32, %b: f32, %o: f32):
    %s = arith.addf %x, %b : f32
    linalg.yield %s : f32
  }
  gpu.dealloc %c : memref<64x256xf32>
  %six = arith.constant 6.0 : f32
  %r = gpu.alloc () : memref<64x256xf32>
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%h : memref<64x256xf32>) outs(%r : memref<64x256xf32>) {
  ^bb0(%x: f32, %o: f32):
    %m = arith.maximumf %x, %zero : f32
    %n = arith.minimumf %m, %six : f32
    linalg.yield %n : f32
  }
  return %h, %r : memref<64x256xf32>, memref<64x256xf32>
}

// -----

// No epilogue: the bias is written between the matmul and its add (the add
// must see the new bias), and a transposing reader of a (square) output does
// not read the element its thread holds. Both stay linalg ops after the
// kernel, which stores its output.
// CHECK-LABEL: func.func @no_epilogue(
// CHECK:         gpu.launch
// CHECK:           memref.store %{{.*}}, %[[C:alloc[_0-9]*]][
// CHECK:         memref.copy
// CHECK:         linalg.generic {{.*}} ins(%[[C]], %{{.*}} : memref<64x256xf32>, memref<256xf32>)
// CHECK:         gpu.launch
// CHECK:           memref.store %{{.*}}, %[[C2:alloc[_0-9]*]][
// CHECK:         linalg.generic {{.*}} ins(%[[C2]] : memref<64x64xf32>)
#mm = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (k, n)>, affine_map<(m, n, k) -> (m, n)>]
#id = affine_map<(i, j) -> (i, j)>
#row = affine_map<(i, j) -> (j)>
#t = affine_map<(i, j) -> (j, i)>
func.func @no_epilogue(%a: memref<64x784xf32>, %w: memref<784x256xf32>, %bias: memref<256xf32>,
                       %fresh: memref<256xf32>, %out: memref<64x256xf32>,
                       %w2: memref<784x64xf32>, %t: memref<64x64xf32>) {
  %zero = arith.constant 0.0 : f32
  %c = memref.alloc () : memref<64x256xf32>
  linalg.fill ins(%zero : f32) outs(%c : memref<64x256xf32>)
  linalg.generic {indexing_maps = #mm, iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%a, %w : memref<64x784xf32>, memref<784x256xf32>) outs(%c : memref<64x256xf32>) {
  ^bb0(%x: f32, %y: f32, %acc: f32):
    %p = arith.mulf %x, %y : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  }
  memref.copy %fresh, %bias : memref<256xf32> to memref<256xf32>
  %h = memref.alloc () : memref<64x256xf32>
  linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel"]}
      ins(%c, %bias : memref<64x256xf32>, memref<256xf32>) outs(%h : memref<64x256xf32>) {
  ^bb0(%x: f32, %b: f32, %o: f32):
    %s = arith.addf %x, %b : f32
    linalg.yield %s : f32
  }
  memref.dealloc %c : memref<64x256xf32>
  memref.copy %h, %out : memref<64x256xf32> to memref<64x256xf32>
  memref.dealloc %h : memref<64x256xf32>
  %c2 = memref.alloc () : memref<64x64xf32>
  linalg.fill ins(%zero : f32) outs(%c2 : memref<64x64xf32>)
  linalg.generic {indexing_maps = #mm, iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%a, %w2 : memref<64x784xf32>, memref<784x64xf32>) outs(%c2 : memref<64x64xf32>) {
  ^bb0(%x: f32, %y: f32, %acc: f32):
    %p = arith.mulf %x, %y : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  }
  %u = memref.alloc () : memref<64x64xf32>
  linalg.generic {indexing_maps = [#t, #id], iterator_types = ["parallel", "parallel"]}
      ins(%c2 : memref<64x64xf32>) outs(%u : memref<64x64xf32>) {
  ^bb0(%x: f32, %o: f32):
    linalg.yield %x : f32
  }
  memref.copy %u, %t : memref<64x64xf32> to memref<64x64xf32>
  memref.dealloc %u : memref<64x64xf32>
  memref.dealloc %c2 : memref<64x64xf32>
  return
}
