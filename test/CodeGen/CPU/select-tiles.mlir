// The CPU schedule's strategy: the #relax_cpu.tiles that
// relax-cpu-select-tiles chooses, one case on each side of every tuned
// constant (TilePlan.cpp), at 512-bit vectors (AVX-512: 16 f32 lanes, 24
// accumulator registers) and 256-bit (AVX2, 8 lanes and 12 registers).
// RUN: relax-opt %s --relax-cpu-select-tiles=vector-bits=512 | FileCheck %s
// RUN: relax-opt %s --relax-cpu-select-tiles=vector-bits=256 | FileCheck %s --check-prefix=AVX2

#mk = affine_map<(m, n, k) -> (m, k)>
#nk = affine_map<(m, n, k) -> (n, k)>
#kn = affine_map<(m, n, k) -> (k, n)>
#km = affine_map<(m, n, k) -> (k, m)>
#mn = affine_map<(m, n, k) -> (m, n)>

// The register tile: 4 vectors of columns, as many rows as the accumulator
// registers take (24 / 4 = 6; AVX2 12 / 4 = 3), one reduction step each.
// CHECK-LABEL: func.func @register_tile
// CHECK: linalg.matmul {relax_cpu.tiles = #relax_cpu.tiles<outer = [6, 64, 0], inner = [0, 0, 1], contraction = true>}
// AVX2-LABEL: func.func @register_tile
// AVX2: linalg.matmul {relax_cpu.tiles = #relax_cpu.tiles<outer = [3, 32, 0], inner = [0, 0, 1], contraction = true>}
func.func @register_tile(%a: tensor<64x128xf32>, %b: tensor<128x256xf32>, %c: tensor<64x256xf32>) -> tensor<64x256xf32> {
  %0 = linalg.matmul ins(%a, %b : tensor<64x128xf32>, tensor<128x256xf32>) outs(%c : tensor<64x256xf32>) -> tensor<64x256xf32>
  return %0 : tensor<64x256xf32>
}

// One vector of columns: at most 16 rows (of 24 registers).
// CHECK-LABEL: func.func @narrow_output
// CHECK: #relax_cpu.tiles<outer = [16, 16, 0], inner = [0, 0, 1], contraction = true>
func.func @narrow_output(%a: tensor<64x128xf32>, %b: tensor<128x16xf32>, %c: tensor<64x16xf32>) -> tensor<64x16xf32> {
  %0 = linalg.matmul ins(%a, %b : tensor<64x128xf32>, tensor<128x16xf32>) outs(%c : tensor<64x16xf32>) -> tensor<64x16xf32>
  return %0 : tensor<64x16xf32>
}

// Cache blocks of 256 reduction steps from 768 (more than 2 x 256, a
// multiple of it); none at 512.
// CHECK-LABEL: func.func @cache_blocks
// CHECK: #relax_cpu.tiles<outer = [6, 64, 0], inner = [0, 0, 1], cache_block = [0, 0, 256], contraction = true>
// CHECK: #relax_cpu.tiles<outer = [6, 64, 0], inner = [0, 0, 1], contraction = true>
func.func @cache_blocks(%a: tensor<64x768xf32>, %b: tensor<768x64xf32>, %a2: tensor<64x512xf32>, %b2: tensor<512x64xf32>, %c: tensor<64x64xf32>) -> (tensor<64x64xf32>, tensor<64x64xf32>) {
  %0 = linalg.matmul ins(%a, %b : tensor<64x768xf32>, tensor<768x64xf32>) outs(%c : tensor<64x64xf32>) -> tensor<64x64xf32>
  %1 = linalg.matmul ins(%a2, %b2 : tensor<64x512xf32>, tensor<512x64xf32>) outs(%c : tensor<64x64xf32>) -> tensor<64x64xf32>
  return %0, %1 : tensor<64x64xf32>, tensor<64x64xf32>
}

// a @ b^T: partial dot products of a vector's lanes (rows x cols = 6 x 4 of
// them) below 1024 output rows when b holds more elements than the output
// (64x128 @ (256x128)^T: b 32K elements, output 16K); from 1024 rows b is
// copied transposed.
// CHECK-LABEL: func.func @dot_products
// CHECK: #relax_cpu.tiles<outer = [6, 4, 0], contraction = true, split_k = 16>
// CHECK: #relax_cpu.tiles<contraction = true, pack = columns>
// AVX2-LABEL: func.func @dot_products
// AVX2: #relax_cpu.tiles<outer = [3, 4, 0], contraction = true, split_k = 8>
func.func @dot_products(%a: tensor<64x128xf32>, %b: tensor<256x128xf32>, %c: tensor<64x256xf32>, %a2: tensor<1024x128xf32>, %c2: tensor<1024x256xf32>) -> (tensor<64x256xf32>, tensor<1024x256xf32>) {
  %0 = linalg.generic {indexing_maps = [#mk, #nk, #mn], iterator_types = ["parallel", "parallel", "reduction"]} ins(%a, %b : tensor<64x128xf32>, tensor<256x128xf32>) outs(%c : tensor<64x256xf32>) {
  ^bb0(%x: f32, %y: f32, %acc: f32):
    %m = arith.mulf %x, %y : f32
    %s = arith.addf %acc, %m : f32
    linalg.yield %s : f32
  } -> tensor<64x256xf32>
  %1 = linalg.generic {indexing_maps = [#mk, #nk, #mn], iterator_types = ["parallel", "parallel", "reduction"]} ins(%a2, %b : tensor<1024x128xf32>, tensor<256x128xf32>) outs(%c2 : tensor<1024x256xf32>) {
  ^bb0(%x: f32, %y: f32, %acc: f32):
    %m = arith.mulf %x, %y : f32
    %s = arith.addf %acc, %m : f32
    linalg.yield %s : f32
  } -> tensor<1024x256xf32>
  return %0, %1 : tensor<64x256xf32>, tensor<1024x256xf32>
}

// Fewer than 1024 rows, but b no larger than the output: copied transposed
// (attention's q @ k^T, batches of 128x64 @ (128x64)^T: b 8K elements per
// batch, the output 16K). At 64 rows of the same b (output 8K) it is still
// copied; at 32 rows (output 4K) partial dot products.
// CHECK-LABEL: func.func @small_transposed_rhs
// CHECK: #relax_cpu.tiles<contraction = true, pack = columns>
// CHECK: #relax_cpu.tiles<contraction = true, pack = columns>
// CHECK: #relax_cpu.tiles<outer = [1, 6, 4, 0], contraction = true, split_k = 16>
#bmk = affine_map<(b, m, n, k) -> (b, m, k)>
#bnk = affine_map<(b, m, n, k) -> (b, n, k)>
#bmn = affine_map<(b, m, n, k) -> (b, m, n)>
func.func @small_transposed_rhs(%q: tensor<4x128x64xf32>, %k: tensor<4x128x64xf32>, %s: tensor<4x128x128xf32>, %q2: tensor<4x64x64xf32>, %s2: tensor<4x64x128xf32>, %q3: tensor<4x32x64xf32>, %s3: tensor<4x32x128xf32>) -> (tensor<4x128x128xf32>, tensor<4x64x128xf32>, tensor<4x32x128xf32>) {
  %0 = linalg.generic {indexing_maps = [#bmk, #bnk, #bmn], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%q, %k : tensor<4x128x64xf32>, tensor<4x128x64xf32>) outs(%s : tensor<4x128x128xf32>) {
  ^bb0(%x: f32, %y: f32, %acc: f32):
    %m = arith.mulf %x, %y : f32
    %a = arith.addf %acc, %m : f32
    linalg.yield %a : f32
  } -> tensor<4x128x128xf32>
  %1 = linalg.generic {indexing_maps = [#bmk, #bnk, #bmn], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%q2, %k : tensor<4x64x64xf32>, tensor<4x128x64xf32>) outs(%s2 : tensor<4x64x128xf32>) {
  ^bb0(%x: f32, %y: f32, %acc: f32):
    %m = arith.mulf %x, %y : f32
    %a = arith.addf %acc, %m : f32
    linalg.yield %a : f32
  } -> tensor<4x64x128xf32>
  %2 = linalg.generic {indexing_maps = [#bmk, #bnk, #bmn], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%q3, %k : tensor<4x32x64xf32>, tensor<4x128x64xf32>) outs(%s3 : tensor<4x32x128xf32>) {
  ^bb0(%x: f32, %y: f32, %acc: f32):
    %m = arith.mulf %x, %y : f32
    %a = arith.addf %acc, %m : f32
    linalg.yield %a : f32
  } -> tensor<4x32x128xf32>
  return %0, %1, %2 : tensor<4x128x128xf32>, tensor<4x64x128xf32>, tensor<4x32x128xf32>
}

// Strided columns with a reduction that is not a multiple of the vector
// (dz @ w^T with 10 classes): copied transposed from 8 output rows, not at 4.
// CHECK-LABEL: func.func @strided_columns
// CHECK: #relax_cpu.tiles<contraction = true, pack = columns>
// CHECK: #relax_cpu.tiles<outer = [4, 64, 0], inner = [0, 0, 1], contraction = true>
func.func @strided_columns(%dz: tensor<8x10xf32>, %w: tensor<64x10xf32>, %c: tensor<8x64xf32>, %dz2: tensor<4x10xf32>, %c2: tensor<4x64xf32>) -> (tensor<8x64xf32>, tensor<4x64xf32>) {
  %0 = linalg.generic {indexing_maps = [#mk, #nk, #mn], iterator_types = ["parallel", "parallel", "reduction"]} ins(%dz, %w : tensor<8x10xf32>, tensor<64x10xf32>) outs(%c : tensor<8x64xf32>) {
  ^bb0(%x: f32, %y: f32, %acc: f32):
    %m = arith.mulf %x, %y : f32
    %s = arith.addf %acc, %m : f32
    linalg.yield %s : f32
  } -> tensor<8x64xf32>
  %1 = linalg.generic {indexing_maps = [#mk, #nk, #mn], iterator_types = ["parallel", "parallel", "reduction"]} ins(%dz2, %w : tensor<4x10xf32>, tensor<64x10xf32>) outs(%c2 : tensor<4x64xf32>) {
  ^bb0(%x: f32, %y: f32, %acc: f32):
    %m = arith.mulf %x, %y : f32
    %s = arith.addf %acc, %m : f32
    linalg.yield %s : f32
  } -> tensor<4x64xf32>
  return %0, %1 : tensor<8x64xf32>, tensor<4x64xf32>
}

// x^T @ g with rows of 1024 floats (steps 4 KiB apart, one L1 set), read by
// 256 / 64 = 4 column tiles: the lhs is copied with the reduction innermost.
// Not with 3 column tiles (n = 192), nor with rows of 784 floats (3136
// bytes: all 64 sets).
// CHECK-LABEL: func.func @transposed_lhs
// CHECK: #relax_cpu.tiles<contraction = true, pack = rows>
// CHECK: #relax_cpu.tiles<outer = [6, 64, 0], inner = [0, 0, 1], contraction = true>
// CHECK: #relax_cpu.tiles<outer = [6, 64, 0], inner = [0, 0, 1], contraction = true>
func.func @transposed_lhs(%x: tensor<128x1024xf32>, %g: tensor<128x256xf32>, %c: tensor<1024x256xf32>, %g2: tensor<128x192xf32>, %c2: tensor<1024x192xf32>, %x3: tensor<128x784xf32>, %c3: tensor<784x256xf32>) -> (tensor<1024x256xf32>, tensor<1024x192xf32>, tensor<784x256xf32>) {
  %0 = linalg.generic {indexing_maps = [#km, #kn, #mn], iterator_types = ["parallel", "parallel", "reduction"]} ins(%x, %g : tensor<128x1024xf32>, tensor<128x256xf32>) outs(%c : tensor<1024x256xf32>) {
  ^bb0(%a: f32, %b: f32, %acc: f32):
    %m = arith.mulf %a, %b : f32
    %s = arith.addf %acc, %m : f32
    linalg.yield %s : f32
  } -> tensor<1024x256xf32>
  %1 = linalg.generic {indexing_maps = [#km, #kn, #mn], iterator_types = ["parallel", "parallel", "reduction"]} ins(%x, %g2 : tensor<128x1024xf32>, tensor<128x192xf32>) outs(%c2 : tensor<1024x192xf32>) {
  ^bb0(%a: f32, %b: f32, %acc: f32):
    %m = arith.mulf %a, %b : f32
    %s = arith.addf %acc, %m : f32
    linalg.yield %s : f32
  } -> tensor<1024x192xf32>
  %2 = linalg.generic {indexing_maps = [#km, #kn, #mn], iterator_types = ["parallel", "parallel", "reduction"]} ins(%x3, %g : tensor<128x784xf32>, tensor<128x256xf32>) outs(%c3 : tensor<784x256xf32>) {
  ^bb0(%a: f32, %b: f32, %acc: f32):
    %m = arith.mulf %a, %b : f32
    %s = arith.addf %acc, %m : f32
    linalg.yield %s : f32
  } -> tensor<784x256xf32>
  return %0, %1, %2 : tensor<1024x256xf32>, tensor<1024x192xf32>, tensor<784x256xf32>
}

// Rhs rows of 2 KiB (512 floats) reused by 512 output rows: copied into
// panels of the tile's 64 columns. Not for 256 rows, nor for rows of 256
// floats.
// CHECK-LABEL: func.func @panels
// CHECK: #relax_cpu.tiles<outer = [6, 64, 0], inner = [0, 0, 1], contraction = true, pack = panels, panel_cols = 64>
// CHECK: #relax_cpu.tiles<outer = [6, 64, 0], inner = [0, 0, 1], contraction = true>
// CHECK: #relax_cpu.tiles<outer = [6, 64, 0], inner = [0, 0, 1], contraction = true>
func.func @panels(%x: tensor<512x128xf32>, %w: tensor<128x512xf32>, %c: tensor<512x512xf32>, %x2: tensor<256x128xf32>, %c2: tensor<256x512xf32>, %w3: tensor<128x256xf32>, %c3: tensor<512x256xf32>) -> (tensor<512x512xf32>, tensor<256x512xf32>, tensor<512x256xf32>) {
  %0 = linalg.generic {indexing_maps = [#mk, #kn, #mn], iterator_types = ["parallel", "parallel", "reduction"]} ins(%x, %w : tensor<512x128xf32>, tensor<128x512xf32>) outs(%c : tensor<512x512xf32>) {
  ^bb0(%a: f32, %b: f32, %acc: f32):
    %m = arith.mulf %a, %b : f32
    %s = arith.addf %acc, %m : f32
    linalg.yield %s : f32
  } -> tensor<512x512xf32>
  %1 = linalg.generic {indexing_maps = [#mk, #kn, #mn], iterator_types = ["parallel", "parallel", "reduction"]} ins(%x2, %w : tensor<256x128xf32>, tensor<128x512xf32>) outs(%c2 : tensor<256x512xf32>) {
  ^bb0(%a: f32, %b: f32, %acc: f32):
    %m = arith.mulf %a, %b : f32
    %s = arith.addf %acc, %m : f32
    linalg.yield %s : f32
  } -> tensor<256x512xf32>
  %2 = linalg.generic {indexing_maps = [#mk, #kn, #mn], iterator_types = ["parallel", "parallel", "reduction"]} ins(%x, %w3 : tensor<512x128xf32>, tensor<128x256xf32>) outs(%c3 : tensor<512x256xf32>) {
  ^bb0(%a: f32, %b: f32, %acc: f32):
    %m = arith.mulf %a, %b : f32
    %s = arith.addf %acc, %m : f32
    linalg.yield %s : f32
  } -> tensor<512x256xf32>
  return %0, %1, %2 : tensor<512x512xf32>, tensor<256x512xf32>, tensor<512x256xf32>
}

// A transposing copy: square tiles of a vector's lanes, at most 16 (f32:
// 16, f64: 8; with AVX2 f32 gets 8). A loop that is not a multiple of the
// square (LeNet's 400x120 weight, 120 = 7 x 16 + 8) still gets squares, and
// a peeled partial one; a loop shorter than the square (6 channels) gets
// rows of the input.
// CHECK-LABEL: func.func @transposes
// CHECK: linalg.transpose {{.*}}#relax_cpu.tiles<outer = [16, 16]>
// CHECK: linalg.transpose {{.*}}#relax_cpu.tiles<outer = [8, 8]>
// CHECK: linalg.transpose {{.*}}#relax_cpu.tiles<outer = [16, 16]>
// CHECK: linalg.transpose {{.*}}#relax_cpu.tiles<outer = [112, 1]>
// AVX2-LABEL: func.func @transposes
// AVX2: linalg.transpose {{.*}}#relax_cpu.tiles<outer = [8, 8]>
func.func @transposes(%a: tensor<64x32xf32>, %b: tensor<32x64xf32>, %c: tensor<64x32xf64>, %d: tensor<32x64xf64>,
                      %e: tensor<400x120xf32>, %f: tensor<120x400xf32>, %g: tensor<784x6xf32>, %h: tensor<6x784xf32>)
    -> (tensor<32x64xf32>, tensor<32x64xf64>, tensor<120x400xf32>, tensor<784x6xf32>) {
  %0 = linalg.transpose ins(%a : tensor<64x32xf32>) outs(%b : tensor<32x64xf32>) permutation = [1, 0]
  %1 = linalg.transpose ins(%c : tensor<64x32xf64>) outs(%d : tensor<32x64xf64>) permutation = [1, 0]
  %2 = linalg.transpose ins(%e : tensor<400x120xf32>) outs(%f : tensor<120x400xf32>) permutation = [1, 0]
  %3 = linalg.transpose ins(%h : tensor<6x784xf32>) outs(%g : tensor<784x6xf32>) permutation = [1, 0]
  return %0, %1, %2, %3 : tensor<32x64xf32>, tensor<32x64xf64>, tensor<120x400xf32>, tensor<784x6xf32>
}

// Everything else: rows of the innermost dimension, whole up to 8 vectors
// (128 f32), else the largest multiple of the vector that divides it (256:
// 128), else 128 and a peeled tail (200).
// CHECK-LABEL: func.func @rows
// CHECK: #relax_cpu.tiles<outer = [1, 100]>
// CHECK: #relax_cpu.tiles<outer = [1, 128]>
// CHECK: #relax_cpu.tiles<outer = [1, 128]>
func.func @rows(%a: tensor<4x100xf32>, %b: tensor<4x256xf32>, %c: tensor<4x200xf32>) -> (tensor<4x100xf32>, tensor<4x256xf32>, tensor<4x200xf32>) {
  %0 = linalg.exp ins(%a : tensor<4x100xf32>) outs(%a : tensor<4x100xf32>) -> tensor<4x100xf32>
  %1 = linalg.exp ins(%b : tensor<4x256xf32>) outs(%b : tensor<4x256xf32>) -> tensor<4x256xf32>
  %2 = linalg.exp ins(%c : tensor<4x200xf32>) outs(%c : tensor<4x200xf32>) -> tensor<4x200xf32>
  return %0, %1, %2 : tensor<4x100xf32>, tensor<4x256xf32>, tensor<4x200xf32>
}

// A convolution as the product of its filter with its patches: for the
// whole batch below 256 output pixels per image (10 x 10), per image from
// 256 (16 x 16) and for a batch of one; integers get nothing.
// CHECK-LABEL: func.func @convolutions
// CHECK: linalg.conv_2d_nchw_fchw {relax_cpu.tiles = #relax_cpu.tiles<pack = im2col_batch>
// CHECK: linalg.conv_2d_nchw_fchw {relax_cpu.tiles = #relax_cpu.tiles<pack = im2col_image>
// CHECK: linalg.conv_2d_nchw_fchw {relax_cpu.tiles = #relax_cpu.tiles<pack = im2col_image>
// CHECK: linalg.conv_2d_nchw_fchw ins
func.func @convolutions(%x: tensor<4x3x12x12xf32>, %w: tensor<8x3x3x3xf32>, %o: tensor<4x8x10x10xf32>, %x2: tensor<4x3x18x18xf32>, %o2: tensor<4x8x16x16xf32>, %x3: tensor<1x3x12x12xf32>, %o3: tensor<1x8x10x10xf32>, %xi: tensor<4x3x12x12xi32>, %wi: tensor<8x3x3x3xi32>, %oi: tensor<4x8x10x10xi32>) -> (tensor<4x8x10x10xf32>, tensor<4x8x16x16xf32>, tensor<1x8x10x10xf32>, tensor<4x8x10x10xi32>) {
  %0 = linalg.conv_2d_nchw_fchw ins(%x, %w : tensor<4x3x12x12xf32>, tensor<8x3x3x3xf32>) outs(%o : tensor<4x8x10x10xf32>) -> tensor<4x8x10x10xf32>
  %1 = linalg.conv_2d_nchw_fchw ins(%x2, %w : tensor<4x3x18x18xf32>, tensor<8x3x3x3xf32>) outs(%o2 : tensor<4x8x16x16xf32>) -> tensor<4x8x16x16xf32>
  %2 = linalg.conv_2d_nchw_fchw ins(%x3, %w : tensor<1x3x12x12xf32>, tensor<8x3x3x3xf32>) outs(%o3 : tensor<1x8x10x10xf32>) -> tensor<1x8x10x10xf32>
  %3 = linalg.conv_2d_nchw_fchw ins(%xi, %wi : tensor<4x3x12x12xi32>, tensor<8x3x3x3xi32>) outs(%oi : tensor<4x8x10x10xi32>) -> tensor<4x8x10x10xi32>
  return %0, %1, %2, %3 : tensor<4x8x10x10xf32>, tensor<4x8x16x16xf32>, tensor<1x8x10x10xf32>, tensor<4x8x10x10xi32>
}
