// relax-cpu-pack makes the copies the tiles ask for; what they make of the
// op gets its tiles again (by the same strategy), and so do the copies.
// RUN: relax-opt %s --relax-cpu-select-tiles=vector-bits=512 --relax-cpu-pack=vector-bits=512 | FileCheck %s

#km = affine_map<(m, n, k) -> (k, m)>
#mk = affine_map<(m, n, k) -> (m, k)>
#kn = affine_map<(m, n, k) -> (k, n)>
#mn = affine_map<(m, n, k) -> (m, n)>

// x^T @ g: x copied with the reduction innermost (square 16x16 transposing
// tiles), then the product reads the copy as (m, k) with ordinary register
// tiles.
// CHECK: #map = affine_map<(d0, d1, d2) -> (d0, d2)>
// CHECK-LABEL: func.func @rows
// CHECK: %[[T:.*]] = linalg.transpose ins(%arg0 : tensor<128x1024xf32>) outs(%{{.*}} : tensor<1024x128xf32>) permutation = [1, 0] {relax_cpu.tiles = #relax_cpu.tiles<outer = [16, 16]>}
// CHECK: linalg.generic {indexing_maps = [#map, #map1, #map2]
// CHECK-SAME: ins(%[[T]], %arg1 : tensor<1024x128xf32>, tensor<128x256xf32>)
// CHECK: } -> tensor<1024x256xf32>
// CHECK-NOT: pack =
func.func @rows(%x: tensor<128x1024xf32>, %g: tensor<128x256xf32>, %c: tensor<1024x256xf32>) -> tensor<1024x256xf32> {
  %0 = linalg.generic {indexing_maps = [#km, #kn, #mn], iterator_types = ["parallel", "parallel", "reduction"]} ins(%x, %g : tensor<128x1024xf32>, tensor<128x256xf32>) outs(%c : tensor<1024x256xf32>) {
  ^bb0(%a: f32, %b: f32, %acc: f32):
    %m = arith.mulf %a, %b : f32
    %s = arith.addf %acc, %m : f32
    linalg.yield %s : f32
  } -> tensor<1024x256xf32>
  return %0 : tensor<1024x256xf32>
}

// w (128 x 512) in panels of 64 columns, [8, 128, 64]; the product gets a
// fourth loop, the panel, tiled by 1, and its 64 columns whole.
// CHECK-LABEL: func.func @panels
// CHECK: %[[E:.*]] = tensor.expand_shape %arg1 {{\[\[}}0], [1, 2]] output_shape [128, 8, 64]
// CHECK: %[[P:.*]] = linalg.transpose ins(%[[E]] : tensor<128x8x64xf32>) outs(%{{.*}} : tensor<8x128x64xf32>)
// CHECK: linalg.generic
// CHECK-SAME: iterator_types = ["parallel", "parallel", "reduction", "parallel"]
// CHECK-SAME: ins(%arg0, %[[P]] : tensor<512x128xf32>, tensor<8x128x64xf32>)
// CHECK: relax_cpu.tiles = #relax_cpu.tiles<outer = [6, 64, 0, 1], inner = [0, 0, 1, 0], contraction = true>
// CHECK: tensor.collapse_shape {{.*}} : tensor<512x8x64xf32> into tensor<512x512xf32>
func.func @panels(%x: tensor<512x128xf32>, %w: tensor<128x512xf32>, %c: tensor<512x512xf32>) -> tensor<512x512xf32> {
  %0 = linalg.generic {indexing_maps = [#mk, #kn, #mn], iterator_types = ["parallel", "parallel", "reduction"]} ins(%x, %w : tensor<512x128xf32>, tensor<128x512xf32>) outs(%c : tensor<512x512xf32>) {
  ^bb0(%a: f32, %b: f32, %acc: f32):
    %m = arith.mulf %a, %b : f32
    %s = arith.addf %acc, %m : f32
    linalg.yield %s : f32
  } -> tensor<512x512xf32>
  return %0 : tensor<512x512xf32>
}

// A convolution with 100 output pixels per image: its patches gathered as
// [C, KH, KW, N, OH, OW] (rows of 10 pixels), the filter [8, 27] times them
// as one [8, 27] x [27, 400] product (400 = 25 x 16: one vector of columns,
// all 8 rows), then transposed to NCHW.
// CHECK-LABEL: func.func @convolution
// CHECK: linalg.generic {{.*}} outs(%{{.*}} : tensor<3x3x3x4x10x10xf32>) attrs =  {relax_cpu.tiles = #relax_cpu.tiles<outer = [1, 1, 1, 1, 1, 10]>}
// CHECK: tensor.collapse_shape {{.*}} into tensor<27x400xf32>
// CHECK: linalg.generic
// CHECK-SAME: ins(%{{.*}}, %{{.*}} : tensor<8x27xf32>, tensor<27x400xf32>)
// CHECK: relax_cpu.tiles = #relax_cpu.tiles<outer = [8, 16, 0], inner = [0, 0, 1], contraction = true>
// CHECK: linalg.transpose {{.*}} permutation = [1, 0, 2, 3]
// CHECK-NOT: linalg.conv_2d_nchw_fchw
func.func @convolution(%x: tensor<4x3x12x12xf32>, %w: tensor<8x3x3x3xf32>) -> tensor<4x8x10x10xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<4x8x10x10xf32>
  %o = linalg.fill ins(%zero : f32) outs(%e : tensor<4x8x10x10xf32>) -> tensor<4x8x10x10xf32>
  %0 = linalg.conv_2d_nchw_fchw ins(%x, %w : tensor<4x3x12x12xf32>, tensor<8x3x3x3xf32>) outs(%o : tensor<4x8x10x10xf32>) -> tensor<4x8x10x10xf32>
  return %0 : tensor<4x8x10x10xf32>
}
