// conv2d and pooling lower to linalg's named convolution and pooling ops
// (which a later schedule can tile), after padding the input as the windows
// read it.
// RUN: relax-opt %s --convert-relax-to-linalg | FileCheck %s

// Zero padding by fill + insert_slice (only the rows and columns the windows
// read: 1 before, none after here), then conv_2d_nchw_fchw with the strides
// and dilations as attributes.
// CHECK-LABEL: func.func @conv(
// CHECK:         [[Z:%.+]] = linalg.fill ins(%{{.+}} : f32) outs(%{{.+}} : tensor<2x3x9x9xf32>)
// CHECK:         [[XP:%.+]] = tensor.insert_slice %{{.+}} into [[Z]][0, 0, 1, 1] [2, 3, 8, 8] [1, 1, 1, 1]
// CHECK:         linalg.conv_2d_nchw_fchw {dilations = dense<[1, 2]> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>} ins([[XP]], %{{.+}} : tensor<2x3x9x9xf32>, tensor<4x3x3x3xf32>) outs(%{{.+}} : tensor<2x4x4x3xf32>)
func.func @conv(%x: tensor<2x3x8x8xf32>, %w: tensor<4x3x3x3xf32>) -> tensor<2x4x4x3xf32> {
  %y = relax.conv2d %x, %w {strides = array<i64: 2, 2>, padding = array<i64: 1, 1, 1, 1>, dilation = array<i64: 1, 2>} : tensor<2x3x8x8xf32>, tensor<4x3x3x3xf32> -> tensor<2x4x4x3xf32>
  return %y : tensor<2x4x4x3xf32>
}

// Grouped: (N, G, C/G, H, W) and (G, O/G, C/G, KH, KW) views of x and w (one
// expand_shape each), conv_2d_ngchw_gfchw, and the result collapsed back.
// CHECK-LABEL: func.func @conv_grouped(
// CHECK:         tensor.expand_shape %{{.+}} {{\[}}[0], [1, 2], [3], [4]] output_shape [2, 2, 2, 8, 8]
// CHECK:         tensor.expand_shape %{{.+}} {{\[}}[0, 1], [2], [3], [4]] output_shape [2, 3, 2, 3, 3]
// CHECK:         linalg.conv_2d_ngchw_gfchw {{.*}}outs(%{{.+}} : tensor<2x2x3x6x6xf32>)
// CHECK:         tensor.collapse_shape %{{.+}} {{\[}}[0], [1, 2], [3], [4]] : tensor<2x2x3x6x6xf32> into tensor<2x6x6x6xf32>
func.func @conv_grouped(%x: tensor<2x4x8x8xf32>, %w: tensor<6x2x3x3xf32>) -> tensor<2x6x6x6xf32> {
  %y = relax.conv2d %x, %w {groups = 2 : i64} : tensor<2x4x8x8xf32>, tensor<6x2x3x3xf32> -> tensor<2x6x6x6xf32>
  return %y : tensor<2x6x6x6xf32>
}

// f16 accumulates in f32 and is rounded once.
// CHECK-LABEL: func.func @conv_f16(
// CHECK:         linalg.conv_2d_nchw_fchw {{.*}}ins(%{{.+}}, %{{.+}} : tensor<1x1x4x4xf16>, tensor<1x1x3x3xf16>) outs(%{{.+}} : tensor<1x1x2x2xf32>)
// CHECK:         arith.truncf %{{.+}} : f32 to f16
func.func @conv_f16(%x: tensor<1x1x4x4xf16>, %w: tensor<1x1x3x3xf16>) -> tensor<1x1x2x2xf16> {
  %y = relax.conv2d %x, %w : tensor<1x1x4x4xf16>, tensor<1x1x3x3xf16> -> tensor<1x1x2x2xf16>
  return %y : tensor<1x1x2x2xf16>
}

// conv2d_patches: the padded x (rows and columns the windows read), then one
// gather over [N, C, KH, KW, OH, OW] reading x[n, c, y * sh + i * dh,
// z * sw + j * dw], collapsed to [N, C*KH*KW, OH, OW].
// CHECK-LABEL: func.func @patches(
// CHECK:         [[XP:%.+]] = tensor.insert_slice %{{.+}} into %{{.+}}[0, 0, 1, 1] [2, 3, 8, 8] [1, 1, 1, 1] : tensor<2x3x8x8xf32> into tensor<2x3x9x9xf32>
// CHECK:         [[T:%.+]] = linalg.generic {indexing_maps = [#{{.+}}], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel", "parallel"]} outs(%{{.+}} : tensor<2x3x3x2x4x4xf32>)
// CHECK-DAG:       [[N:%.+]] = linalg.index 0 : index
// CHECK-DAG:       [[C:%.+]] = linalg.index 1 : index
// CHECK-DAG:       [[I:%.+]] = linalg.index 2 : index
// CHECK-DAG:       [[J:%.+]] = linalg.index 3 : index
// CHECK-DAG:       [[Y:%.+]] = linalg.index 4 : index
// CHECK-DAG:       [[Z:%.+]] = linalg.index 5 : index
// CHECK:           [[YS:%.+]] = arith.muli [[Y]], %{{.+}} : index
// CHECK:           [[ID:%.+]] = arith.muli [[I]], %{{.+}} : index
// CHECK:           [[ROW:%.+]] = arith.addi [[YS]], [[ID]] : index
// CHECK:           [[ZS:%.+]] = arith.muli [[Z]], %{{.+}} : index
// CHECK:           [[JD:%.+]] = arith.muli [[J]], %{{.+}} : index
// CHECK:           [[COL:%.+]] = arith.addi [[ZS]], [[JD]] : index
// CHECK:           [[V:%.+]] = tensor.extract [[XP]]{{\[}}[[N]], [[C]], [[ROW]], [[COL]]] : tensor<2x3x9x9xf32>
// CHECK:           linalg.yield [[V]] : f32
// CHECK:         tensor.collapse_shape [[T]] {{\[}}[0], [1, 2, 3], [4], [5]] : tensor<2x3x3x2x4x4xf32> into tensor<2x18x4x4xf32>
func.func @patches(%x: tensor<2x3x8x8xf32>) -> tensor<2x18x4x4xf32> {
  %p = relax.conv2d_patches %x {kernel_size = array<i64: 3, 2>, strides = array<i64: 2, 2>, padding = array<i64: 1, 1, 1, 1>, dilation = array<i64: 1, 2>} : tensor<2x3x8x8xf32> -> tensor<2x18x4x4xf32>
  return %p : tensor<2x18x4x4xf32>
}

// Max pooling pads with -inf (here one row and column more for ceil_mode)
// and reduces from -inf.
// CHECK-LABEL: func.func @max_pool(
// CHECK:         [[NEG:%.+]] = arith.constant 0xFF800000 : f32
// CHECK:         linalg.fill ins([[NEG]] : f32) outs(%{{.+}} : tensor<1x2x8x8xf32>)
// CHECK:         [[XP:%.+]] = tensor.insert_slice %{{.+}} into %{{.+}}[0, 0, 0, 0] [1, 2, 7, 7] [1, 1, 1, 1]
// CHECK:         [[INIT:%.+]] = linalg.fill ins([[NEG]] : f32) outs(%{{.+}} : tensor<1x2x4x4xf32>)
// CHECK:         linalg.pooling_nchw_max {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>} ins([[XP]], %{{.+}} : tensor<1x2x8x8xf32>, tensor<2x2xf32>) outs([[INIT]] : tensor<1x2x4x4xf32>)
func.func @max_pool(%x: tensor<1x2x7x7xf32>) -> tensor<1x2x4x4xf32> {
  %y = relax.max_pool2d %x {pool_size = array<i64: 2, 2>, ceil_mode = true} : tensor<1x2x7x7xf32> -> tensor<1x2x4x4xf32>
  return %y : tensor<1x2x4x4xf32>
}

// Average pooling sums in the accumulator type (f32 for f16) and divides by
// each window's count (a constant: 4 at the corners, 6 on the edges, 9 inside
// without count_include_pad).
// CHECK-LABEL: func.func @avg_pool(
// CHECK:         [[S:%.+]] = linalg.pooling_nchw_sum {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%{{.+}}, %{{.+}} : tensor<1x1x6x6xf16>, tensor<3x3xf16>) outs(%{{.+}} : tensor<1x1x4x4xf32>)
// CHECK:         [[D:%.+]] = arith.constant dense<{{\[\[}}4.000000e+00, 6.000000e+00, 6.000000e+00, 4.000000e+00], [6.000000e+00, 9.000000e+00, 9.000000e+00, 6.000000e+00], [6.000000e+00, 9.000000e+00, 9.000000e+00, 6.000000e+00], [4.000000e+00, 6.000000e+00, 6.000000e+00, 4.000000e+00]]> : tensor<4x4xf32>
// CHECK:         linalg.generic {{.*}} ins([[S]], [[D]] : tensor<1x1x4x4xf32>, tensor<4x4xf32>)
// CHECK:           arith.divf
// CHECK-NEXT:      arith.truncf %{{.+}} : f32 to f16
func.func @avg_pool(%x: tensor<1x1x4x4xf16>) -> tensor<1x1x4x4xf16> {
  %y = relax.avg_pool2d %x {pool_size = array<i64: 3, 3>, strides = array<i64: 1, 1>, padding = array<i64: 1, 1, 1, 1>} : tensor<1x1x4x4xf16> -> tensor<1x1x4x4xf16>
  return %y : tensor<1x1x4x4xf16>
}
