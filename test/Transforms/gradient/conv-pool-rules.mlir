// Gradient rules of conv2d and the pooling ops: every adjoint is built from
// relax ops (convolutions, pads, strided slices, reshapes, masks), so it can be
// differentiated again. One function per case.
// RUN: relax-opt %s --gradient="func=conv2d,conv2d_dense,conv2d_patches,max_pool2d,max_pool2d_overlapping,avg_pool2d,avg_pool2d_overlapping" | FileCheck %s

// dx with strides 2x2: one stride-1 convolution of g per phase of x (rows
// and columns even or odd), each with the taps of the regrouped filter that
// read that phase, reversed (a strided slice with stride -2): with padding 1
// the even positions are read by tap 1 only, the odd ones by taps 2 and 0.
// Phases with fewer positions (2 of 5 odd rows) are padded to 3, the four are
// concatenated into (N, C, 3, 2, 3, 2), reshaped to 6x6 and cropped to 5x5:
// g is never dilated. Grouped, dw is a convolution of the padded x (batch and
// channels exchanged) with g as weights, strides and dilation exchanged.
// CHECK-LABEL: func.func @conv2d_adjoint(
// CHECK-SAME:    %[[X:.+]]: tensor<1x2x5x5xf32>, %[[W:.+]]: tensor<4x1x3x3xf32>)
// CHECK:         [[G:%.+]] = relax.broadcast_to %{{.+}} : tensor<1x1x1x1xf32> -> tensor<1x4x3x3xf32>
// CHECK-NEXT:    relax.reshape %[[W]] : tensor<4x1x3x3xf32> -> tensor<2x2x1x3x3xf32>
// CHECK-NEXT:    relax.permute_dims %{{.+}} {axes = array<i64: 0, 2, 1, 3, 4>}
// CHECK-NEXT:    [[WS:%.+]] = relax.reshape %{{.+}} : tensor<2x1x2x3x3xf32> -> tensor<2x2x3x3xf32>
// CHECK-NEXT:    [[T00:%.+]] = relax.strided_slice [[WS]] {axes = array<i64: 2, 3>, begin = array<i64: 1, 1>, end = array<i64: -3, -3>, strides = array<i64: -2, -2>} : tensor<2x2x3x3xf32> -> tensor<2x2x1x1xf32>
// CHECK-NEXT:    [[P00:%.+]] = relax.conv2d [[G]], [[T00]] {groups = 2 : i64} : tensor<1x4x3x3xf32>, tensor<2x2x1x1xf32> -> tensor<1x2x3x3xf32>
// CHECK-NEXT:    [[R00:%.+]] = relax.reshape [[P00]] : tensor<1x2x3x3xf32> -> tensor<1x2x3x1x3x1xf32>
// CHECK-NEXT:    [[T01:%.+]] = relax.strided_slice [[WS]] {axes = array<i64: 2, 3>, begin = array<i64: 1, 2>, end = array<i64: -3, -4>, strides = array<i64: -2, -2>} : tensor<2x2x3x3xf32> -> tensor<2x2x1x2xf32>
// CHECK-NEXT:    [[P01:%.+]] = relax.conv2d [[G]], [[T01]] {groups = 2 : i64} : tensor<1x4x3x3xf32>, tensor<2x2x1x2xf32> -> tensor<1x2x3x2xf32>
// CHECK-NEXT:    relax.pad [[P01]] {pad_width = array<i64: 0, 0, 0, 0, 0, 0, 0, 1>} : tensor<1x2x3x2xf32> -> tensor<1x2x3x3xf32>
// CHECK-NEXT:    [[R01:%.+]] = relax.reshape
// CHECK-NEXT:    [[ROW0:%.+]] = relax.concat [[R00]], [[R01]] {axis = 5 : i64}
// CHECK:         relax.strided_slice [[WS]] {axes = array<i64: 2, 3>, begin = array<i64: 2, 1>, end = array<i64: -4, -3>, strides = array<i64: -2, -2>} : tensor<2x2x3x3xf32> -> tensor<2x2x2x1xf32>
// CHECK:         relax.strided_slice [[WS]] {axes = array<i64: 2, 3>, begin = array<i64: 2, 2>, end = array<i64: -4, -4>, strides = array<i64: -2, -2>} : tensor<2x2x3x3xf32> -> tensor<2x2x2x2xf32>
// CHECK:         [[ROW1:%.+]] = relax.concat %{{.+}}, %{{.+}} {axis = 5 : i64}
// CHECK-NEXT:    [[ALL:%.+]] = relax.concat [[ROW0]], [[ROW1]] {axis = 3 : i64} : tensor<1x2x3x1x3x2xf32>, tensor<1x2x3x1x3x2xf32> -> tensor<1x2x3x2x3x2xf32>
// CHECK-NEXT:    [[IL:%.+]] = relax.reshape [[ALL]] : tensor<1x2x3x2x3x2xf32> -> tensor<1x2x6x6xf32>
// CHECK-NEXT:    relax.strided_slice [[IL]] {axes = array<i64: 2>, begin = array<i64: 0>, end = array<i64: 5>} : tensor<1x2x6x6xf32> -> tensor<1x2x5x6xf32>
// CHECK-NEXT:    [[DX:%.+]] = relax.strided_slice %{{.+}} {axes = array<i64: 3>, begin = array<i64: 0>, end = array<i64: 5>} : tensor<1x2x5x6xf32> -> tensor<1x2x5x5xf32>
// CHECK-NOT:     relax.pad %{{.+}} : tensor<1x4x3x1x3xf32>
// CHECK:         relax.pad %[[X]] {pad_width = array<i64: 0, 0, 0, 0, 1, 1, 0, 0>}
// CHECK:         [[DWT:%.+]] = relax.conv2d %{{.+}}, %{{.+}} {dilation = array<i64: 2, 2>, groups = 2 : i64} : tensor<1x2x7x7xf32>, tensor<4x1x3x3xf32> -> tensor<1x4x3x3xf32>
// CHECK-NEXT:    [[DW:%.+]] = relax.permute_dims [[DWT]] {axes = array<i64: 1, 0, 2, 3>} : tensor<1x4x3x3xf32> -> tensor<4x1x3x3xf32>
// CHECK:         relax.tuple([[DX]], [[DW]] : tensor<1x2x5x5xf32>, tensor<4x1x3x3xf32>)
func.func @conv2d(%x: tensor<1x2x5x5xf32>, %w: tensor<4x1x3x3xf32>) -> tensor<f32> {
  %r = relax.dataflow -> (tensor<f32>) {
    %y = relax.conv2d %x, %w {strides = array<i64: 2, 2>, padding = array<i64: 1, 1, 1, 1>, groups = 2 : i64} : tensor<1x2x5x5xf32>, tensor<4x1x3x3xf32> -> tensor<1x4x3x3xf32>
    %s = relax.sum %y : tensor<1x4x3x3xf32> -> tensor<f32>
    relax.output %s : tensor<f32>
  }
  return %r : tensor<f32>
}

// Without groups, dw is one matrix product: the patches of x (the forward's
// window, strides and padding) viewed as (C*KH*KW, N*OH*OW) times g viewed as
// (N*OH*OW, O), transposed to (O, C*KH*KW) and reshaped to w's shape.
// CHECK-LABEL: func.func @conv2d_dense_adjoint(
// CHECK-SAME:    %[[X:.+]]: tensor<2x3x5x5xf32>, %[[W:.+]]: tensor<4x3x3x3xf32>)
// CHECK:         [[G:%.+]] = relax.broadcast_to %{{.+}} : tensor<1x1x1x1xf32> -> tensor<2x4x3x3xf32>
// CHECK-NEXT:    [[P:%.+]] = relax.conv2d_patches %[[X]] {kernel_size = array<i64: 3, 3>, padding = array<i64: 1, 1, 1, 1>, strides = array<i64: 2, 2>} : tensor<2x3x5x5xf32> -> tensor<2x27x3x3xf32>
// CHECK-NEXT:    [[P3:%.+]] = relax.reshape [[P]] : tensor<2x27x3x3xf32> -> tensor<2x27x9xf32>
// CHECK-NEXT:    [[PT:%.+]] = relax.permute_dims [[P3]] {axes = array<i64: 1, 0, 2>} : tensor<2x27x9xf32> -> tensor<27x2x9xf32>
// CHECK-NEXT:    [[PM:%.+]] = relax.reshape [[PT]] : tensor<27x2x9xf32> -> tensor<27x18xf32>
// CHECK-NEXT:    [[GT:%.+]] = relax.permute_dims [[G]] {axes = array<i64: 0, 2, 3, 1>} : tensor<2x4x3x3xf32> -> tensor<2x3x3x4xf32>
// CHECK-NEXT:    [[GM:%.+]] = relax.reshape [[GT]] : tensor<2x3x3x4xf32> -> tensor<18x4xf32>
// CHECK-NEXT:    [[MM:%.+]] = relax.matmul [[PM]], [[GM]] : tensor<27x18xf32>, tensor<18x4xf32> -> tensor<27x4xf32>
// CHECK-NEXT:    [[DWT:%.+]] = relax.permute_dims [[MM]] : tensor<27x4xf32> -> tensor<4x27xf32>
// CHECK-NEXT:    [[DW:%.+]] = relax.reshape [[DWT]] : tensor<4x27xf32> -> tensor<4x3x3x3xf32>
// CHECK-NEXT:    relax.tuple([[DW]] : tensor<4x3x3x3xf32>)
func.func @conv2d_dense(%x: tensor<2x3x5x5xf32>, %w: tensor<4x3x3x3xf32>) -> tensor<f32> attributes {relax.require_grads = array<i64: 1>} {
  %r = relax.dataflow -> (tensor<f32>) {
    %y = relax.conv2d %x, %w {strides = array<i64: 2, 2>, padding = array<i64: 1, 1, 1, 1>} : tensor<2x3x5x5xf32>, tensor<4x3x3x3xf32> -> tensor<2x4x3x3xf32>
    %s = relax.sum %y : tensor<2x4x3x3xf32> -> tensor<f32>
    relax.output %s : tensor<f32>
  }
  return %r : tensor<f32>
}

// The patches' adjoint: the transposed convolution (as conv2d's dx) of g
// with a one-hot filter (channel (c * KH + kh) * KW + kw picks window element
// (kh, kw) of channel c), one group per channel.
// CHECK-LABEL: func.func @conv2d_patches_adjoint(
// CHECK-SAME:    %[[X:.+]]: tensor<1x2x3x3xf32>)
// CHECK:         [[ONEHOT:%.+]] = arith.constant dense<{{\[\[\[\[}}1.000000e+00, 0.000000e+00], [0.000000e+00, 0.000000e+00]]], {{\[\[\[}}0.000000e+00, 1.000000e+00], [0.000000e+00, 0.000000e+00]]],
// CHECK-SAME:      : tensor<8x1x2x2xf32>
// CHECK:         relax.reshape [[ONEHOT]] : tensor<8x1x2x2xf32> -> tensor<2x4x1x2x2xf32>
// CHECK:         [[DX:%.+]] = relax.conv2d %{{.+}}, %{{.+}} {groups = 2 : i64} : tensor<1x8x4x4xf32>, tensor<2x4x2x2xf32> -> tensor<1x2x3x3xf32>
// CHECK-NEXT:    relax.tuple([[DX]] : tensor<1x2x3x3xf32>)
func.func @conv2d_patches(%x: tensor<1x2x3x3xf32>) -> tensor<f32> {
  %r = relax.dataflow -> (tensor<f32>) {
    %p = relax.conv2d_patches %x {kernel_size = array<i64: 2, 2>} : tensor<1x2x3x3xf32> -> tensor<1x8x2x2xf32>
    %s = relax.sum %p : tensor<1x8x2x2xf32> -> tensor<f32>
    relax.output %s : tensor<f32>
  }
  return %r : tensor<f32>
}

// Windows that tile the input (2x2, stride 2): x is viewed as
// [N, C, OH, KH, OW, KW]; for each window offset in row-major order its slice
// is compared with the result, offsets already matched are masked out
// (1 - claimed), and the per-offset adjoints g * mask are concatenated back in
// that view: no scatters.
// CHECK-LABEL: func.func @max_pool2d_adjoint(
// CHECK-SAME:    %[[X:.+]]: tensor<1x1x4x4xf32>)
// CHECK:         [[Y:%.+]] = relax.max_pool2d %[[X]]
// CHECK:         [[X6:%.+]] = relax.reshape %[[X]] : tensor<1x1x4x4xf32> -> tensor<1x1x2x2x2x2xf32>
// CHECK:         [[S0:%.+]] = relax.strided_slice [[X6]] {axes = array<i64: 3, 5>, begin = array<i64: 0, 0>, end = array<i64: 1, 1>}
// CHECK-NEXT:    [[P0:%.+]] = relax.reshape [[S0]] : tensor<1x1x2x1x2x1xf32> -> tensor<1x1x2x2xf32>
// CHECK-NEXT:    [[E0:%.+]] = relax.equal [[P0]], [[Y]]
// CHECK-NEXT:    [[M0:%.+]] = relax.astype [[E0]] : tensor<1x1x2x2xi1> -> tensor<1x1x2x2xf32>
// CHECK:         relax.strided_slice [[X6]] {axes = array<i64: 3, 5>, begin = array<i64: 0, 1>, end = array<i64: 1, 2>}
// CHECK:         relax.subtract %{{.+}}, [[M0]] : tensor<f32>, tensor<1x1x2x2xf32> -> tensor<1x1x2x2xf32>
// CHECK:         [[ROW0:%.+]] = relax.concat %{{.+}}, %{{.+}} {axis = 5 : i64} : tensor<1x1x2x1x2x1xf32>, tensor<1x1x2x1x2x1xf32> -> tensor<1x1x2x1x2x2xf32>
// CHECK:         relax.strided_slice [[X6]] {axes = array<i64: 3, 5>, begin = array<i64: 1, 0>, end = array<i64: 2, 1>}
// CHECK:         relax.strided_slice [[X6]] {axes = array<i64: 3, 5>, begin = array<i64: 1, 1>, end = array<i64: 2, 2>}
// CHECK:         [[ROW1:%.+]] = relax.concat %{{.+}}, %{{.+}} {axis = 5 : i64}
// CHECK:         [[DX6:%.+]] = relax.concat [[ROW0]], [[ROW1]] {axis = 3 : i64} : {{.*}} -> tensor<1x1x2x2x2x2xf32>
// CHECK:         [[DX:%.+]] = relax.reshape [[DX6]] : tensor<1x1x2x2x2x2xf32> -> tensor<1x1x4x4xf32>
// CHECK-NOT:     relax.pad
// CHECK:         relax.tuple([[DX]] : tensor<1x1x4x4xf32>)
func.func @max_pool2d(%x: tensor<1x1x4x4xf32>) -> tensor<f32> {
  %r = relax.dataflow -> (tensor<f32>) {
    %y = relax.max_pool2d %x {pool_size = array<i64: 2, 2>} : tensor<1x1x4x4xf32> -> tensor<1x1x2x2xf32>
    %s = relax.sum %y : tensor<1x1x2x2xf32> -> tensor<f32>
    relax.output %s : tensor<f32>
  }
  return %r : tensor<f32>
}

// Overlapping windows (2x2, stride 1): each output's window offset is chosen
// by comparing the strided slice of x at each offset with the result, last
// offset first, so that the first match in row-major order wins (offsets
// (1,1)=4, (1,0)=3, (0,1)=1, (0,0)=0 in the 3-wide input); offset + window
// origin (row * 3 + column) + plane give flat positions in x, and one
// scatter_add carries g there. No per-offset adjoint of x's size.
// CHECK-LABEL: func.func @max_pool2d_overlapping_adjoint(
// CHECK-SAME:    %[[X:.+]]: tensor<1x1x3x3xf32>)
// CHECK:         [[Y:%.+]] = relax.max_pool2d %[[X]]
// CHECK:         [[G:%.+]] = relax.broadcast_to %{{.+}} -> tensor<1x1x2x2xf32>
// CHECK-DAG:     [[O11:%.+]] = arith.constant dense<4> : tensor<i64>
// CHECK-DAG:     [[O10:%.+]] = arith.constant dense<3> : tensor<i64>
// CHECK:         [[S10:%.+]] = relax.strided_slice %[[X]] {axes = array<i64: 2, 3>, begin = array<i64: 1, 0>, end = array<i64: 3, 2>, strides = array<i64: 1, 1>}
// CHECK-NEXT:    [[E10:%.+]] = relax.equal [[S10]], [[Y]]
// CHECK-NEXT:    [[C10:%.+]] = relax.where [[E10]], [[O10]], [[O11]] : tensor<1x1x2x2xi1>, tensor<i64>, tensor<i64> -> tensor<1x1x2x2xi64>
// CHECK-NEXT:    [[O01:%.+]] = arith.constant dense<1> : tensor<i64>
// CHECK-NEXT:    [[S01:%.+]] = relax.strided_slice %[[X]] {axes = array<i64: 2, 3>, begin = array<i64: 0, 1>, end = array<i64: 2, 3>, strides = array<i64: 1, 1>}
// CHECK-NEXT:    [[E01:%.+]] = relax.equal [[S01]], [[Y]]
// CHECK-NEXT:    [[C01:%.+]] = relax.where [[E01]], [[O01]], [[C10]]
// CHECK-NEXT:    [[O00:%.+]] = arith.constant dense<0> : tensor<i64>
// CHECK-NEXT:    [[S00:%.+]] = relax.strided_slice %[[X]] {axes = array<i64: 2, 3>, begin = array<i64: 0, 0>, end = array<i64: 2, 2>, strides = array<i64: 1, 1>}
// CHECK-NEXT:    [[E00:%.+]] = relax.equal [[S00]], [[Y]]
// CHECK-NEXT:    [[C00:%.+]] = relax.where [[E00]], [[O00]], [[C01]]
// CHECK:         [[ORIGIN:%.+]] = relax.add %{{.+}}, %{{.+}} : tensor<1x1x2x1xi64>, tensor<1x1x1x2xi64> -> tensor<1x1x2x2xi64>
// CHECK:         [[AT:%.+]] = relax.add [[C00]], [[ORIGIN]]
// CHECK-NEXT:    [[POS:%.+]] = relax.add [[AT]], %{{.+}} : tensor<1x1x2x2xi64>, tensor<1x1x1x1xi64> -> tensor<1x1x2x2xi64>
// CHECK-NEXT:    [[Z:%.+]] = relax.zeros : tensor<1x1x3x3xf32>
// CHECK-NEXT:    [[DX:%.+]] = relax.scatter_add [[Z]], [[POS]], [[G]] : tensor<1x1x3x3xf32>, tensor<1x1x2x2xi64>, tensor<1x1x2x2xf32> -> tensor<1x1x3x3xf32>
// CHECK-NOT:     relax.max_pool2d
// CHECK:         relax.tuple([[DX]] : tensor<1x1x3x3xf32>)
func.func @max_pool2d_overlapping(%x: tensor<1x1x3x3xf32>) -> tensor<f32> {
  %r = relax.dataflow -> (tensor<f32>) {
    %y = relax.max_pool2d %x {pool_size = array<i64: 2, 2>, strides = array<i64: 1, 1>} : tensor<1x1x3x3xf32> -> tensor<1x1x2x2xf32>
    %s = relax.sum %y : tensor<1x1x2x2xf32> -> tensor<f32>
    relax.output %s : tensor<f32>
  }
  return %r : tensor<f32>
}

// Windows that tile the input: g divided by each output's divisor (a
// constant) is spread over its window, broadcast in the [N, C, OH, KH, OW, KW]
// view of x. No convolution.
// CHECK-LABEL: func.func @avg_pool2d_adjoint(
// CHECK:         [[DIV:%.+]] = arith.constant dense<4.000000e+00> : tensor<2x2xf32>
// CHECK-NEXT:    [[S:%.+]] = relax.divide %{{.+}}, [[DIV]] : tensor<1x2x2x2xf32>, tensor<2x2xf32> -> tensor<1x2x2x2xf32>
// CHECK-NEXT:    [[S6:%.+]] = relax.reshape [[S]] : tensor<1x2x2x2xf32> -> tensor<1x2x2x1x2x1xf32>
// CHECK-NEXT:    [[B:%.+]] = relax.broadcast_to [[S6]] : tensor<1x2x2x1x2x1xf32> -> tensor<1x2x2x2x2x2xf32>
// CHECK-NEXT:    [[DX:%.+]] = relax.reshape [[B]] : tensor<1x2x2x2x2x2xf32> -> tensor<1x2x4x4xf32>
// CHECK-NEXT:    relax.tuple([[DX]] : tensor<1x2x4x4xf32>)
func.func @avg_pool2d(%x: tensor<1x2x4x4xf32>) -> tensor<f32> {
  %r = relax.dataflow -> (tensor<f32>) {
    %y = relax.avg_pool2d %x {pool_size = array<i64: 2, 2>} : tensor<1x2x4x4xf32> -> tensor<1x2x2x2xf32>
    %s = relax.sum %y : tensor<1x2x2x2xf32> -> tensor<f32>
    relax.output %s : tensor<f32>
  }
  return %r : tensor<f32>
}

// Overlapping windows (3x3, stride 2, padding 1): the average is a depthwise
// convolution with a ones kernel, and its adjoint the transposed convolution
// of g / divisor, one stride-1 convolution per phase of x (1x1, 1x2, 2x1 and
// 2x2 taps of the ones kernel).
// CHECK-LABEL: func.func @avg_pool2d_overlapping_adjoint(
// CHECK:         [[S:%.+]] = relax.divide %{{.+}}, %{{.+}} : tensor<1x2x3x3xf32>, tensor<3x3xf32> -> tensor<1x2x3x3xf32>
// CHECK:         [[ONES:%.+]] = relax.ones : tensor<2x1x3x3xf32>
// CHECK:         relax.conv2d [[S]], %{{.+}} {groups = 2 : i64} : tensor<1x2x3x3xf32>, tensor<2x1x1x1xf32> -> tensor<1x2x3x3xf32>
// CHECK:         relax.conv2d [[S]], %{{.+}} {groups = 2 : i64} : tensor<1x2x3x3xf32>, tensor<2x1x1x2xf32> -> tensor<1x2x3x2xf32>
// CHECK:         relax.conv2d [[S]], %{{.+}} {groups = 2 : i64} : tensor<1x2x3x3xf32>, tensor<2x1x2x1xf32> -> tensor<1x2x2x3xf32>
// CHECK:         relax.conv2d [[S]], %{{.+}} {groups = 2 : i64} : tensor<1x2x3x3xf32>, tensor<2x1x2x2xf32> -> tensor<1x2x2x2xf32>
// CHECK:         relax.reshape %{{.+}} : tensor<1x2x3x2x3x2xf32> -> tensor<1x2x6x6xf32>
// CHECK:         [[DX:%.+]] = relax.strided_slice %{{.+}} {axes = array<i64: 3>, begin = array<i64: 0>, end = array<i64: 5>} : tensor<1x2x5x6xf32> -> tensor<1x2x5x5xf32>
// CHECK-NEXT:    relax.tuple([[DX]] : tensor<1x2x5x5xf32>)
func.func @avg_pool2d_overlapping(%x: tensor<1x2x5x5xf32>) -> tensor<f32> {
  %r = relax.dataflow -> (tensor<f32>) {
    %y = relax.avg_pool2d %x {pool_size = array<i64: 3, 3>, strides = array<i64: 2, 2>, padding = array<i64: 1, 1, 1, 1>} : tensor<1x2x5x5xf32> -> tensor<1x2x3x3xf32>
    %s = relax.sum %y : tensor<1x2x3x3xf32> -> tensor<f32>
    relax.output %s : tensor<f32>
  }
  return %r : tensor<f32>
}
