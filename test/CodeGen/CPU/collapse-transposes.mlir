// relax-cpu-collapse-transposes: a transposing copy over one loop per run of
// loops that every operand reads in order. The filter gradient's
// [64,3,3,128] -> [128,64,3,3] is the 2-D transpose [576,128] -> [128,576],
// which relax-cpu-select-tiles then copies in 16x16 tiles (square: both
// loops a multiple of 16).
// RUN: relax-opt %s --pass-pipeline='builtin.module(func.func(relax-cpu-collapse-transposes))' | FileCheck %s
// RUN: relax-opt %s --pass-pipeline='builtin.module(func.func(relax-cpu-collapse-transposes,relax-cpu-select-tiles{vector-bits=512}))' | FileCheck %s --check-prefix=TILES

// CHECK-LABEL: func.func @filter_gradient(
// CHECK-SAME:    %[[G:.*]]: tensor<64x3x3x128xf32>
// CHECK:         %[[IN:.*]] = tensor.collapse_shape %[[G]] {{\[}}[0, 1, 2], [3]] : tensor<64x3x3x128xf32> into tensor<576x128xf32>
// CHECK:         %[[T:.*]] = linalg.generic {{.*}}iterator_types = ["parallel", "parallel"]{{.*}} ins(%[[IN]] : tensor<576x128xf32>) outs(%{{.*}} : tensor<128x576xf32>)
// CHECK:         %[[OUT:.*]] = tensor.expand_shape %[[T]] {{\[}}[0], [1, 2, 3]] output_shape [128, 64, 3, 3] : tensor<128x576xf32> into tensor<128x64x3x3xf32>
// CHECK:         return %[[OUT]]
// TILES-LABEL: func.func @filter_gradient(
// TILES:         linalg.generic {{.*}}relax_cpu.tiles = #relax_cpu.tiles<outer = [16, 16]
func.func @filter_gradient(%g: tensor<64x3x3x128xf32>) -> tensor<128x64x3x3xf32> {
  %e = tensor.empty() : tensor<128x64x3x3xf32>
  %t = linalg.transpose ins(%g : tensor<64x3x3x128xf32>) outs(%e : tensor<128x64x3x3xf32>) permutation = [3, 0, 1, 2]
  return %t : tensor<128x64x3x3xf32>
}

// NCHW -> NHWC: H and W stay together (a run), N and C do not.
// CHECK-LABEL: func.func @to_channels_last(
// CHECK:         tensor.collapse_shape %{{.*}} {{\[}}[0], [1], [2, 3]] : tensor<16x64x16x16xf32> into tensor<16x64x256xf32>
// CHECK:         linalg.generic {{.*}} ins(%{{.*}} : tensor<16x64x256xf32>) outs(%{{.*}} : tensor<16x256x64xf32>)
// CHECK:         tensor.expand_shape %{{.*}} {{\[}}[0], [1, 2], [3]] output_shape [16, 16, 16, 64]
func.func @to_channels_last(%x: tensor<16x64x16x16xf32>) -> tensor<16x16x16x64xf32> {
  %e = tensor.empty() : tensor<16x16x16x64xf32>
  %t = linalg.transpose ins(%x : tensor<16x64x16x16xf32>) outs(%e : tensor<16x16x16x64xf32>) permutation = [0, 2, 3, 1]
  return %t : tensor<16x16x16x64xf32>
}

// Left alone: a plain 2-D transpose (no run), a copy that keeps the
// innermost loop (no transposition).
// CHECK-LABEL: func.func @unchanged(
// CHECK-NOT:     tensor.collapse_shape
// CHECK-NOT:     tensor.expand_shape
// CHECK:         return
func.func @unchanged(%a: tensor<64x128xf32>, %b: tensor<8x4x16x32xf32>) -> (tensor<128x64xf32>, tensor<4x8x16x32xf32>) {
  %e0 = tensor.empty() : tensor<128x64xf32>
  %t0 = linalg.transpose ins(%a : tensor<64x128xf32>) outs(%e0 : tensor<128x64xf32>) permutation = [1, 0]
  %e1 = tensor.empty() : tensor<4x8x16x32xf32>
  %t1 = linalg.transpose ins(%b : tensor<8x4x16x32xf32>) outs(%e1 : tensor<4x8x16x32xf32>) permutation = [1, 0, 2, 3]
  return %t0, %t1 : tensor<128x64xf32>, tensor<4x8x16x32xf32>
}

// A transposing add: every operand reads d0 then d1 (collapsed); the second
// input reads d3 before d2, so those stay.
// CHECK-LABEL: func.func @partial(
// CHECK-COUNT-3: tensor.collapse_shape %{{.*}} {{\[}}[0, 1], [2], [3]]
// CHECK:         linalg.generic {{.*}}iterator_types = ["parallel", "parallel", "parallel"]
// CHECK:         tensor.expand_shape %{{.*}} {{\[}}[0, 1], [2], [3]] output_shape [4, 8, 16, 32]
func.func @partial(%c: tensor<4x8x16x32xf32>, %d: tensor<4x8x32x16xf32>) -> tensor<4x8x16x32xf32> {
  %e = tensor.empty() : tensor<4x8x16x32xf32>
  %t = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>,
                                        affine_map<(d0, d1, d2, d3) -> (d0, d1, d3, d2)>,
                                        affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>],
                       iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%c, %d : tensor<4x8x16x32xf32>, tensor<4x8x32x16xf32>) outs(%e : tensor<4x8x16x32xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %s = arith.addf %x, %y : f32
    linalg.yield %s : f32
  } -> tensor<4x8x16x32xf32>
  return %t : tensor<4x8x16x32xf32>
}
