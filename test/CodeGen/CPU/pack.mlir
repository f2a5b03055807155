// relax-cpu-pack makes the copies the tiles ask for; what they make of the
// op gets its tiles again (by the same strategy), and so do the copies.
// RUN: relax-opt %s --relax-cpu-select-tiles=vector-bits=512 --relax-cpu-pack=vector-bits=512 | FileCheck %s
// RUN: relax-opt %s --relax-cpu-select-tiles=vector-bits=512 --relax-cpu-pack="vector-bits=512 num-threads=2" | FileCheck %s --check-prefix=THREADS

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
// CHECK-NOT: scf.for
func.func @convolution(%x: tensor<4x3x12x12xf32>, %w: tensor<8x3x3x3xf32>) -> tensor<4x8x10x10xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<4x8x10x10xf32>
  %o = linalg.fill ins(%zero : f32) outs(%e : tensor<4x8x10x10xf32>) -> tensor<4x8x10x10xf32>
  %0 = linalg.conv_2d_nchw_fchw ins(%x, %w : tensor<4x3x12x12xf32>, tensor<8x3x3x3xf32>) outs(%o : tensor<4x8x10x10xf32>) -> tensor<4x8x10x10xf32>
  return %0 : tensor<4x8x10x10xf32>
}

// Patches over 512 KiB for the batch are gathered a chunk of images at a
// time, in a loop whose iterations gather and multiply their images only:
// LeNet's second input gradient (400 x 196 floats, 306 KiB per image, 64
// images) one image per chunk (the per-image product, no transpose back);
// 6 images of 192 KiB (36 x 1369 pixels of 4 bytes) two per chunk (3 would
// be 578 KiB); 5 images of 127 KiB (a prime batch; 4 would fit): one each.
// For code on several threads (num-threads=2), whose tiles split one
// product of the whole batch, no chunks.
// THREADS-LABEL: func.func @chunks
// THREADS-NOT: scf.for
// THREADS: return
// CHECK-LABEL: func.func @chunks
// CHECK: scf.for %[[N:.*]] = %c0 to %c64 step %c1 iter_args(%[[OUT:.*]] = %{{.*}}) -> (tensor<64x6x14x14xf32>)
// CHECK:   tensor.extract_slice %{{.*}}[%[[N]], 0, 0, 0] [1, 16, 18, 18] [1, 1, 1, 1] : tensor<64x16x18x18xf32> to tensor<1x16x18x18xf32>
// CHECK:   linalg.fill {{.*}} -> tensor<1x6x14x14xf32>
// CHECK:   linalg.generic {{.*}} outs(%{{.*}} : tensor<1x16x5x5x14x14xf32>)
// CHECK:   linalg.generic {{.*}} ins(%{{.*}}, %{{.*}} : tensor<6x400xf32>, tensor<1x400x196xf32>)
// CHECK-NOT: linalg.transpose
// CHECK:   tensor.insert_slice %{{.*}} into %[[OUT]][%[[N]], 0, 0, 0] [1, 6, 14, 14] [1, 1, 1, 1]
// CHECK: scf.for %{{.*}} = %c0{{.*}} to %c6 step %c2 iter_args
// CHECK:   tensor.extract_slice {{.*}} [2, 4, 39, 39] [1, 1, 1, 1]
// CHECK: scf.for %{{.*}} = %c0{{.*}} to %c5 step %c1{{.*}} iter_args
// CHECK:   tensor.extract_slice {{.*}} [1, 4, 32, 32] [1, 1, 1, 1]
func.func @chunks(%x: tensor<64x16x18x18xf32>, %w: tensor<6x16x5x5xf32>, %x2: tensor<6x4x39x39xf32>, %w2: tensor<3x4x3x3xf32>, %x3: tensor<5x4x32x32xf32>) -> (tensor<64x6x14x14xf32>, tensor<6x3x37x37xf32>, tensor<5x3x30x30xf32>) {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<64x6x14x14xf32>
  %o = linalg.fill ins(%zero : f32) outs(%e : tensor<64x6x14x14xf32>) -> tensor<64x6x14x14xf32>
  %0 = linalg.conv_2d_nchw_fchw ins(%x, %w : tensor<64x16x18x18xf32>, tensor<6x16x5x5xf32>) outs(%o : tensor<64x6x14x14xf32>) -> tensor<64x6x14x14xf32>
  %e2 = tensor.empty() : tensor<6x3x37x37xf32>
  %o2 = linalg.fill ins(%zero : f32) outs(%e2 : tensor<6x3x37x37xf32>) -> tensor<6x3x37x37xf32>
  %1 = linalg.conv_2d_nchw_fchw ins(%x2, %w2 : tensor<6x4x39x39xf32>, tensor<3x4x3x3xf32>) outs(%o2 : tensor<6x3x37x37xf32>) -> tensor<6x3x37x37xf32>
  %e3 = tensor.empty() : tensor<5x3x30x30xf32>
  %o3 = linalg.fill ins(%zero : f32) outs(%e3 : tensor<5x3x30x30xf32>) -> tensor<5x3x30x30xf32>
  %2 = linalg.conv_2d_nchw_fchw ins(%x3, %w2 : tensor<5x4x32x32xf32>, tensor<3x4x3x3xf32>) outs(%o3 : tensor<5x3x30x30xf32>) -> tensor<5x3x30x30xf32>
  return %0, %1, %2 : tensor<64x6x14x14xf32>, tensor<6x3x37x37xf32>, tensor<5x3x30x30xf32>
}
