// The first step of the CPU schedule: register tiles on tensors.
// RUN: relax-opt %s --relax-cpu-select-tiles=vector-bits=512 --relax-cpu-pack=vector-bits=512 --relax-cpu-tile --canonicalize | FileCheck %s
// RUN: relax-opt %s --relax-cpu-select-tiles=vector-bits=256 --relax-cpu-pack=vector-bits=256 --relax-cpu-tile --canonicalize | FileCheck %s --check-prefix=AVX2
// RUN: relax-opt %s --relax-cpu-select-tiles=vector-bits=512 --relax-cpu-pack=vector-bits=512 --relax-cpu-tile=num-threads=2 | FileCheck %s --check-prefix=THREADS

#mk = affine_map<(m, n, k) -> (m, k)>
#nk = affine_map<(m, n, k) -> (n, k)>
#km = affine_map<(m, n, k) -> (k, m)>
#kn = affine_map<(m, n, k) -> (k, n)>
#mn = affine_map<(m, n, k) -> (m, n)>
#id = affine_map<(i, j) -> (i, j)>
#row = affine_map<(i, j) -> (j)>

// A 64x784 @ 784x256 matmul: 64 columns (four 16-lane vectors) by 6 rows (24
// accumulators), column tiles outermost, the fill of the output inside the
// tile, one rank-1 update per step of k, and the 4 rows past 60 peeled into a
// 4x64 tile. Neither input is copied: a step reads 6 elements one row apart
// in a and 64 contiguous ones of b (a transposed copy of a was slower).
// The 784 steps run as 4 blocks of 196, each summed from zero and added to
// the tile (rounding error of 196 + 4 additions instead of 784).
// CHECK-LABEL: func.func @matmul(
// CHECK-NOT:     linalg.transpose
// CHECK:         scf.for %[[J:.*]] = %c0 to %c256 step %c64
// CHECK:           scf.for %[[I:.*]] = %c0 to %c60 step %c6
// CHECK:             %[[TILE:.*]] = linalg.fill {{.*}} -> tensor<6x64xf32>
// CHECK:             scf.for %{{.*}} = %c0 to %c784 step %c196 iter_args(%[[ACC:.*]] = %[[TILE]])
// CHECK:               %[[ZERO:.*]] = linalg.fill {{.*}} -> tensor<6x64xf32>
// CHECK:               %[[BLOCK:.*]] = scf.for %{{.*}} = %c0 to %c196 step %c1 iter_args(%{{.*}} = %[[ZERO]])
// CHECK:                 linalg.generic {{.*}} ins({{.*}} : tensor<6x1xf32>, tensor<1x64xf32>) outs({{.*}} : tensor<6x64xf32>)
// CHECK:               linalg.generic {{.*}} ins(%[[BLOCK]] : tensor<6x64xf32>) outs(%[[ACC]] : tensor<6x64xf32>)
// CHECK-NEXT:          ^bb0(%[[B:.*]]: f32, %[[A:.*]]: f32):
// CHECK-NEXT:            arith.addf %[[A]], %[[B]]
// CHECK:           linalg.fill {{.*}} -> tensor<4x64xf32>
// CHECK:           scf.for %{{.*}} = %c0 to %c784 step %c196
// CHECK:             scf.for %{{.*}} = %c0 to %c196 step %c1
// CHECK:               linalg.generic {{.*}} outs({{.*}} : tensor<4x64xf32>)
// CHECK:             linalg.generic {{.*}} outs({{.*}} : tensor<4x64xf32>)
// CHECK-NOT:     linalg.generic
// With 8-lane vectors: 32 columns by 3 rows (12 accumulators of 16 registers).
// AVX2-LABEL: func.func @matmul(
// AVX2-NOT:     linalg.transpose
// AVX2:         scf.for %{{.*}} = %c0 to %c256 step %c32
// AVX2:           scf.for %{{.*}} = %c0 to %c63 step %c3
// AVX2:             linalg.fill {{.*}} -> tensor<3x32xf32>
// The column loop of a big contraction runs on the threads.
// THREADS-LABEL: func.func @matmul(
// THREADS:         scf.for
// THREADS:           scf.for
// THREADS:         } {relax.parallel}
func.func @matmul(%a: tensor<64x784xf32>, %b: tensor<784x256xf32>) -> tensor<64x256xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<64x256xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<64x256xf32>) -> tensor<64x256xf32>
  %r = linalg.generic {indexing_maps = [#mk, #kn, #mn], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%a, %b : tensor<64x784xf32>, tensor<784x256xf32>) outs(%f : tensor<64x256xf32>) {
  ^bb0(%x: f32, %y: f32, %acc: f32):
    %p = arith.mulf %x, %y : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  } -> tensor<64x256xf32>
  return %r : tensor<64x256xf32>
}

// The lhs read transposed through its indexing map: the tile reads a 1x6 row
// of the 64x784 operand (no transposed copy), and the same 6x64 tiles.
// CHECK-LABEL: func.func @matmul_transposed_lhs(
// CHECK-NOT:     linalg.transpose
// CHECK:         scf.for %{{.*}} = %c0 to %c256 step %c64
// CHECK:           scf.for %{{.*}} = %c0 to %c780 step %c6
// CHECK:             scf.for %{{.*}} = %c0 to %c64 step %c1
// CHECK:               tensor.extract_slice {{.*}} : tensor<64x6xf32> to tensor<1x6xf32>
// CHECK:               linalg.generic {{.*}} ins({{.*}} : tensor<1x6xf32>, tensor<1x64xf32>) outs({{.*}} : tensor<6x64xf32>)
func.func @matmul_transposed_lhs(%a: tensor<64x784xf32>, %b: tensor<64x256xf32>) -> tensor<784x256xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<784x256xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<784x256xf32>) -> tensor<784x256xf32>
  %r = linalg.generic {indexing_maps = [#km, #kn, #mn], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%a, %b : tensor<64x784xf32>, tensor<64x256xf32>) outs(%f : tensor<784x256xf32>) {
  ^bb0(%x: f32, %y: f32, %acc: f32):
    %p = arith.mulf %x, %y : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  } -> tensor<784x256xf32>
  return %r : tensor<784x256xf32>
}

// A narrow output (10 columns, less than a vector) keeps all 10 columns and
// takes 16 rows.
// CHECK-LABEL: func.func @matmul_narrow(
// CHECK:         scf.for %{{.*}} = %c0 to %c64 step %c16
// CHECK:           linalg.fill {{.*}} -> tensor<16x10xf32>
func.func @matmul_narrow(%a: tensor<64x256xf32>, %b: tensor<256x10xf32>) -> tensor<64x10xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<64x10xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<64x10xf32>) -> tensor<64x10xf32>
  %r = linalg.generic {indexing_maps = [#mk, #kn, #mn], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%a, %b : tensor<64x256xf32>, tensor<256x10xf32>) outs(%f : tensor<64x10xf32>) {
  ^bb0(%x: f32, %y: f32, %acc: f32):
    %p = arith.mulf %x, %y : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  } -> tensor<64x10xf32>
  return %r : tensor<64x10xf32>
}

// Elementwise: one row at a time, 128 elements (eight vectors) per step.
// Small ops are not parallelized.
// CHECK-LABEL: func.func @bias_relu(
// CHECK:         scf.for %{{.*}} = %c0 to %c64 step %c1
// CHECK:           scf.for %{{.*}} = %c0 to %c256 step %c128
// CHECK:             linalg.generic {{.*}} outs({{.*}} : tensor<1x128xf32>)
// THREADS-LABEL: func.func @bias_relu(
// THREADS-NOT:     relax.parallel
// THREADS:       return
func.func @bias_relu(%x: tensor<64x256xf32>, %b: tensor<256xf32>) -> tensor<64x256xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<64x256xf32>
  %r = linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x, %b : tensor<64x256xf32>, tensor<256xf32>) outs(%e : tensor<64x256xf32>) {
  ^bb0(%v: f32, %w: f32, %o: f32):
    %s = arith.addf %v, %w : f32
    %m = arith.maximumf %s, %zero : f32
    linalg.yield %m : f32
  } -> tensor<64x256xf32>
  return %r : tensor<64x256xf32>
}

// A row length with no multiple of 16 up to 128 that divides it: 128-element
// tiles up to 896 and a peeled 104-element tail.
// CHECK-LABEL: func.func @ragged_rows(
// CHECK:         scf.for %{{.*}} = %c0 to %c896 step %c128
// CHECK:           linalg.generic {{.*}} outs({{.*}} : tensor<1x128xf32>)
// CHECK:         linalg.generic {{.*}} outs({{.*}} : tensor<1x104xf32>)
func.func @ragged_rows(%x: tensor<3x1000xf32>) -> tensor<3x1000xf32> {
  %e = tensor.empty() : tensor<3x1000xf32>
  %r = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<3x1000xf32>) outs(%e : tensor<3x1000xf32>) {
  ^bb0(%v: f32, %o: f32):
    %n = arith.negf %v : f32
    linalg.yield %n : f32
  } -> tensor<3x1000xf32>
  return %r : tensor<3x1000xf32>
}

// Left alone: i1 buffers (LLVM packs a vector of i1 into bits), gathers, and a
// reduction that adds a constant (upstream vectorizes it as one add per
// vector).
// CHECK-LABEL: func.func @untouched(
// CHECK-NOT:     scf.for
// CHECK:         return
func.func @untouched(%x: tensor<64x256xf32>, %idx: tensor<64xi64>) -> (tensor<64x256xi1>, tensor<64xf32>, tensor<f32>) {
  %zero = arith.constant 0.0 : f32
  %one = arith.constant 1.0 : f32
  %e1 = tensor.empty() : tensor<64x256xi1>
  %c = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<64x256xf32>) outs(%e1 : tensor<64x256xi1>) {
  ^bb0(%v: f32, %o: i1):
    %p = arith.cmpf ogt, %v, %zero : f32
    linalg.yield %p : i1
  } -> tensor<64x256xi1>
  %e2 = tensor.empty() : tensor<64xf32>
  %g = linalg.generic {indexing_maps = [affine_map<(i) -> (i)>, affine_map<(i) -> (i)>], iterator_types = ["parallel"]}
      ins(%idx : tensor<64xi64>) outs(%e2 : tensor<64xf32>) {
  ^bb0(%j: i64, %o: f32):
    %i = linalg.index 0 : index
    %jj = arith.index_cast %j : i64 to index
    %v = tensor.extract %x[%i, %jj] : tensor<64x256xf32>
    linalg.yield %v : f32
  } -> tensor<64xf32>
  %e3 = tensor.empty() : tensor<f32>
  %f3 = linalg.fill ins(%zero : f32) outs(%e3 : tensor<f32>) -> tensor<f32>
  %s = linalg.generic {indexing_maps = [affine_map<(i) -> (i)>, affine_map<(i) -> ()>], iterator_types = ["reduction"]}
      ins(%idx : tensor<64xi64>) outs(%f3 : tensor<f32>) {
  ^bb0(%j: i64, %o: f32):
    %a = arith.addf %o, %one : f32
    linalg.yield %a : f32
  } -> tensor<f32>
  return %c, %g, %s : tensor<64x256xi1>, tensor<64xf32>, tensor<f32>
}

// a @ b^T (both inputs contiguous along k, the output's columns strided in
// b): k split into 4 steps of 16-lane partial sums, a 6x4 tile of partial-sum
// vectors updated by an elementwise fma per step, then summed over the lanes;
// no transposed copy of b.
// CHECK-LABEL: func.func @matmul_bt(
// CHECK-NOT:     linalg.transpose
// CHECK:         tensor.expand_shape %arg0 {{\[\[}}0], [1, 2]] output_shape [12, 4, 16]
// CHECK:         tensor.expand_shape %arg1 {{\[\[}}0], [1, 2]] output_shape [32, 4, 16]
// CHECK:         scf.for %{{.*}} = %c0 to %c32 step %c4
// CHECK:           scf.for %{{.*}} = %c0 to %c12 step %c6
// CHECK:             linalg.fill {{.*}} -> tensor<6x4x16xf32>
// CHECK:             scf.for %{{.*}} = %c0 to %c4 step %c1
// CHECK:               linalg.generic {{.*}} iterator_types = ["parallel", "parallel", "parallel"]} ins({{.*}} : tensor<6x16xf32>, tensor<4x16xf32>) outs({{.*}} : tensor<6x4x16xf32>)
// CHECK:                 math.fma
// CHECK:             linalg.generic {{.*}} iterator_types = ["parallel", "parallel", "reduction"]} ins({{.*}} : tensor<6x4x16xf32>) outs({{.*}} : tensor<6x4xf32>)
func.func @matmul_bt(%a: tensor<12x64xf32>, %b: tensor<32x64xf32>) -> tensor<12x32xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<12x32xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<12x32xf32>) -> tensor<12x32xf32>
  %r = linalg.generic {indexing_maps = [#mk, #nk, #mn], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%a, %b : tensor<12x64xf32>, tensor<32x64xf32>) outs(%f : tensor<12x32xf32>) {
  ^bb0(%x: f32, %y: f32, %acc: f32):
    %p = arith.mulf %x, %y : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  } -> tensor<12x32xf32>
  return %r : tensor<12x32xf32>
}

// A reduction of 1024: cache blocks of 256 outside the register tiles (the
// fill then stays outside too).
// CHECK-LABEL: func.func @matmul_deep(
// CHECK:         linalg.fill {{.*}} -> tensor<1x64xf32>
// CHECK:         scf.for %{{.*}} = %c0 to %c1024 step %c256
// CHECK:           scf.for %{{.*}} = %c0 to %c12 step %c6
// CHECK:             scf.for %{{.*}} = %c0 to %c256 step %c1
// CHECK:               linalg.generic {{.*}} outs({{.*}} : tensor<6x64xf32>)
func.func @matmul_deep(%a: tensor<12x1024xf32>, %b: tensor<1024x64xf32>) -> tensor<12x64xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<12x64xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<12x64xf32>) -> tensor<12x64xf32>
  %r = linalg.generic {indexing_maps = [#mk, #kn, #mn], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%a, %b : tensor<12x1024xf32>, tensor<1024x64xf32>) outs(%f : tensor<12x64xf32>) {
  ^bb0(%x: f32, %y: f32, %acc: f32):
    %p = arith.mulf %x, %y : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  } -> tensor<12x64xf32>
  return %r : tensor<12x64xf32>
}

// The same form with 1024 output rows: b is copied transposed once (a packing
// step, in 16x16 tiles), then ordinary 12x32 outer-product tiles read the copy.
// CHECK-LABEL: func.func @matmul_bt_many_rows(
// CHECK:         %[[T:.*]] = scf.for {{.*}} -> (tensor<64x32xf32>)
// CHECK:           scf.for {{.*}} -> (tensor<64x32xf32>)
// CHECK:             linalg.transpose ins(%{{.*}} : tensor<16x16xf32>) outs(%{{.*}} : tensor<16x16xf32>) permutation = [1, 0]
// CHECK-NOT:     math.fma
// CHECK:         scf.for %{{.*}} = %c0 to %c1020 step %c12
// CHECK:           scf.for %{{.*}} = %c0 to %c64 step %c1
// CHECK:             tensor.extract_slice %[[T]][%{{.*}}, 0] [1, 32]
// CHECK:             linalg.generic {{.*}} outs({{.*}} : tensor<12x32xf32>)
func.func @matmul_bt_many_rows(%a: tensor<1024x64xf32>, %b: tensor<32x64xf32>) -> tensor<1024x32xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1024x32xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<1024x32xf32>) -> tensor<1024x32xf32>
  %r = linalg.generic {indexing_maps = [#mk, #nk, #mn], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%a, %b : tensor<1024x64xf32>, tensor<32x64xf32>) outs(%f : tensor<1024x32xf32>) {
  ^bb0(%x: f32, %y: f32, %acc: f32):
    %p = arith.mulf %x, %y : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  } -> tensor<1024x32xf32>
  return %r : tensor<1024x32xf32>
}

// Long rhs rows (1024 floats: each row a page apart) and 512 output rows to
// reuse them: b is copied once into 16 panels of 64 columns, each a
// contiguous 256x64 block; the op gets a panel loop (outermost, so a panel
// stays in cache across the row tiles) and its output is the 512x1024 result
// viewed as 512x16x64.
// CHECK-LABEL: func.func @matmul_panels(
// CHECK-SAME:    %[[A:[a-z0-9]+]]: tensor<512x256xf32>, %[[B:[a-z0-9]+]]: tensor<256x1024xf32>
// CHECK:         %[[SPLIT:.*]] = tensor.expand_shape %[[B]] {{\[}}[0], [1, 2]] output_shape [256, 16, 64]
// CHECK:         %[[P:.*]] = scf.for {{.*}} -> (tensor<16x256x64xf32>)
// CHECK:           tensor.extract_slice %[[SPLIT]]
// CHECK:           linalg.transpose ins(%{{.*}} : tensor<1x1x64xf32>) outs(%{{.*}} : tensor<1x1x64xf32>) permutation = [1, 0, 2]
// CHECK:         %[[OUT:[a-z0-9]+]] = scf.for %[[NB:[a-z0-9]+]] = %c0 to %c16 step %c1 {{.*}} -> (tensor<512x16x64xf32>)
// CHECK:           scf.for %{{.*}} = %c0 to %c510 step %c6
// CHECK:             tensor.extract_slice %[[P]][%[[NB]], 0, 0] [1, 256, 64]
// CHECK:             scf.for %{{.*}} = %c0 to %c256 step %c1
// CHECK:               linalg.generic {{.*}} iterator_types = ["parallel", "parallel", "reduction", "parallel"]{{.*}} outs({{.*}} : tensor<6x1x64xf32>)
// CHECK:         tensor.collapse_shape %[[OUT]] {{\[}}[0], [1, 2]] : tensor<512x16x64xf32> into tensor<512x1024xf32>
// AVX2-LABEL: func.func @matmul_panels(
// AVX2:         tensor.expand_shape %{{.*}} {{\[}}[0], [1, 2]] output_shape [256, 32, 32]
func.func @matmul_panels(%a: tensor<512x256xf32>, %b: tensor<256x1024xf32>) -> tensor<512x1024xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<512x1024xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<512x1024xf32>) -> tensor<512x1024xf32>
  %r = linalg.generic {indexing_maps = [#mk, #kn, #mn], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%a, %b : tensor<512x256xf32>, tensor<256x1024xf32>) outs(%f : tensor<512x1024xf32>) {
  ^bb0(%x: f32, %y: f32, %acc: f32):
    %p = arith.mulf %x, %y : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  } -> tensor<512x1024xf32>
  return %r : tensor<512x1024xf32>
}

// The same rhs with 64 output rows: the copy would cost about as much as it
// saves (128x1024x1024 ran 15% faster without it), so b is read in place.
// CHECK-LABEL: func.func @matmul_few_rows(
// CHECK-NOT:     tensor.expand_shape
// CHECK-NOT:     linalg.transpose
// CHECK:         scf.for %{{.*}} = %c0 to %c1024 step %c64
// CHECK:           scf.for %{{.*}} = %c0 to %c60 step %c6
// CHECK:             linalg.generic {{.*}} outs({{.*}} : tensor<6x64xf32>)
func.func @matmul_few_rows(%a: tensor<64x256xf32>, %b: tensor<256x1024xf32>) -> tensor<64x1024xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<64x1024xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<64x1024xf32>) -> tensor<64x1024xf32>
  %r = linalg.generic {indexing_maps = [#mk, #kn, #mn], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%a, %b : tensor<64x256xf32>, tensor<256x1024xf32>) outs(%f : tensor<64x1024xf32>) {
  ^bb0(%x: f32, %y: f32, %acc: f32):
    %p = arith.mulf %x, %y : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  } -> tensor<64x1024xf32>
  return %r : tensor<64x1024xf32>
}
