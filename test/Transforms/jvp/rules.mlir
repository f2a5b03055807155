// The tangent rules, one function per op family, all in one run: each
// function's tangent bindings follow the op they differentiate, in its one
// dataflow block.
// RUN: relax-opt %s --jvp="func=unary,binary_broadcast,binary_one_side,where,matmul,linear,linear_partial,scatter_max,creation,pad,softmax,log_softmax,variance,max,conv2d,max_pool2d" | FileCheck %s

// Elementwise unary: the derivative times the tangent (the same body as the
// VJP's), right after the op.
// CHECK-LABEL: func.func @unary_jvp(
// CHECK-SAME:    %[[X:.+]]: tensor<3xf32>, %[[T:.+]]: tensor<3xf32>) -> tuple<tensor<3xf32>, tensor<3xf32>> {
// CHECK:         [[Y:%.+]] = relax.tanh %[[X]] : tensor<3xf32>
// CHECK-NEXT:    [[Y2:%.+]] = relax.multiply [[Y]], [[Y]]
// CHECK-NEXT:    [[ONE:%.+]] = arith.constant dense<1.000000e+00> : tensor<f32>
// CHECK-NEXT:    [[D:%.+]] = relax.subtract [[ONE]], [[Y2]]
// CHECK-NEXT:    [[TY:%.+]] = relax.multiply %[[T]], [[D]]
// CHECK-NEXT:    [[R:%.+]] = relax.tuple([[Y]], [[TY]] : tensor<3xf32>, tensor<3xf32>)
// CHECK-NEXT:    relax.output [[R]]
func.func @unary(%x: tensor<3xf32>) -> tensor<3xf32> {
  %r = relax.dataflow -> (tensor<3xf32>) {
    %0 = relax.tanh %x : tensor<3xf32>
    relax.output %0 : tensor<3xf32>
  }
  return %r : tensor<3xf32>
}

// Binary with broadcasting: each operand's partial times its tangent, added
// (numpy broadcasting gives the result's shape).
// CHECK-LABEL: func.func @binary_broadcast_jvp(
// CHECK-SAME:    %[[A:.+]]: tensor<2x3xf32>, %[[B:.+]]: tensor<3xf32>, %[[TA:.+]]: tensor<2x3xf32>, %[[TB:.+]]: tensor<3xf32>)
// CHECK:         relax.multiply %[[A]], %[[B]]
// CHECK-NEXT:    [[DA:%.+]] = relax.multiply %[[TA]], %[[B]] : tensor<2x3xf32>, tensor<3xf32> -> tensor<2x3xf32>
// CHECK-NEXT:    [[DB:%.+]] = relax.multiply %[[TB]], %[[A]] : tensor<3xf32>, tensor<2x3xf32> -> tensor<2x3xf32>
// CHECK-NEXT:    relax.add [[DA]], [[DB]] : tensor<2x3xf32>, tensor<2x3xf32> -> tensor<2x3xf32>
func.func @binary_broadcast(%a: tensor<2x3xf32>, %b: tensor<3xf32>) -> tensor<2x3xf32> {
  %r = relax.dataflow -> (tensor<2x3xf32>) {
    %0 = relax.multiply %a, %b : tensor<2x3xf32>, tensor<3xf32> -> tensor<2x3xf32>
    relax.output %0 : tensor<2x3xf32>
  }
  return %r : tensor<2x3xf32>
}

// Only the smaller operand varies (a is a constant): its tangent is broadcast
// to the result's type.
// CHECK-LABEL: func.func @binary_one_side_jvp(
// CHECK-SAME:    %[[B:.+]]: tensor<3xf32>, %[[TB:.+]]: tensor<3xf32>)
// CHECK:         relax.add %{{.+}}, %[[B]] : tensor<2x3xf32>, tensor<3xf32> -> tensor<2x3xf32>
// CHECK-NEXT:    relax.broadcast_to %[[TB]] : tensor<3xf32> -> tensor<2x3xf32>
func.func @binary_one_side(%b: tensor<3xf32>) -> tensor<2x3xf32> {
  %r = relax.dataflow -> (tensor<2x3xf32>) {
    %a = arith.constant dense<1.5> : tensor<2x3xf32>
    %0 = relax.add %a, %b : tensor<2x3xf32>, tensor<3xf32> -> tensor<2x3xf32>
    relax.output %0 : tensor<2x3xf32>
  }
  return %r : tensor<2x3xf32>
}

// where: the selected tangents; the condition carries none.
// CHECK-LABEL: func.func @where_jvp(
// CHECK-SAME:    %[[C:.+]]: tensor<3xi1>, %[[A:.+]]: tensor<3xf32>, %[[B:.+]]: tensor<f32>, %[[TA:.+]]: tensor<3xf32>, %[[TB:.+]]: tensor<f32>)
// CHECK:         relax.where %[[C]], %[[A]], %[[B]]
// CHECK-NEXT:    relax.where %[[C]], %[[TA]], %[[TB]] : tensor<3xi1>, tensor<3xf32>, tensor<f32> -> tensor<3xf32>
func.func @where(%c: tensor<3xi1>, %a: tensor<3xf32>, %b: tensor<f32>) -> tensor<3xf32> {
  %r = relax.dataflow -> (tensor<3xf32>) {
    %0 = relax.where %c, %a, %b : tensor<3xi1>, tensor<3xf32>, tensor<f32> -> tensor<3xf32>
    relax.output %0 : tensor<3xf32>
  }
  return %r : tensor<3xf32>
}

// Bilinear: ta b + a tb, each a copy of the op with one operand replaced (by
// position: matmul(x, x) gets tx x + x tx).
// CHECK-LABEL: func.func @matmul_jvp(
// CHECK-SAME:    %[[X:.+]]: tensor<3x3xf32>, %[[T:.+]]: tensor<3x3xf32>)
// CHECK:         relax.matmul %[[X]], %[[X]]
// CHECK-NEXT:    [[L:%.+]] = relax.matmul %[[T]], %[[X]]
// CHECK-NEXT:    [[R:%.+]] = relax.matmul %[[X]], %[[T]]
// CHECK-NEXT:    relax.add [[L]], [[R]]
func.func @matmul(%x: tensor<3x3xf32>) -> tensor<3x3xf32> {
  %r = relax.dataflow -> (tensor<3x3xf32>) {
    %0 = relax.matmul %x, %x : tensor<3x3xf32>, tensor<3x3xf32> -> tensor<3x3xf32>
    relax.output %0 : tensor<3x3xf32>
  }
  return %r : tensor<3x3xf32>
}

// Linear ops (Relax_Linear): the op applied to the tangent, integer operands
// (take's indices) as they are.
// CHECK-LABEL: func.func @linear_jvp(
// CHECK-SAME:    %[[X:.+]]: tensor<4x3xf32>, %[[I:.+]]: tensor<2xi64>, %[[T:.+]]: tensor<4x3xf32>)
// CHECK:         relax.take %[[X]], %[[I]] {axis = 0 : i64}
// CHECK-NEXT:    [[TT:%.+]] = relax.take %[[T]], %[[I]] {axis = 0 : i64} : tensor<4x3xf32>, tensor<2xi64> -> tensor<2x3xf32>
// CHECK:         relax.permute_dims
// CHECK-NEXT:    [[TP:%.+]] = relax.permute_dims [[TT]] {axes = array<i64: 1, 0>}
// CHECK:         relax.sum
// CHECK-NEXT:    relax.sum [[TP]] {axis = array<i64: 1>} : tensor<3x2xf32> -> tensor<3xf32>
func.func @linear(%x: tensor<4x3xf32>, %i: tensor<2xi64>) -> tensor<3xf32> {
  %r = relax.dataflow -> (tensor<3xf32>) {
    %0 = relax.take %x, %i {axis = 0 : i64} : tensor<4x3xf32>, tensor<2xi64> -> tensor<2x3xf32>
    %1 = relax.permute_dims %0 {axes = array<i64: 1, 0>} : tensor<2x3xf32> -> tensor<3x2xf32>
    %2 = relax.sum %1 {axis = array<i64: 1>} : tensor<3x2xf32> -> tensor<3xf32>
    relax.output %2 : tensor<3xf32>
  }
  return %r : tensor<3xf32>
}

// A linear op with one varying float operand of two: the other's tangent is
// zeros, built before the op's copy reads them.
// CHECK-LABEL: func.func @linear_partial_jvp(
// CHECK-SAME:    %[[I:.+]]: tensor<2xi64>, %[[U:.+]]: tensor<2x3xf32>, %[[TU:.+]]: tensor<2x3xf32>)
// CHECK:         relax.scatter_add
// CHECK-NEXT:    [[Z:%.+]] = relax.zeros : tensor<4x3xf32>
// CHECK-NEXT:    relax.scatter_add [[Z]], %[[I]], %[[TU]] {axis = 0 : i64}
func.func @linear_partial(%i: tensor<2xi64>, %u: tensor<2x3xf32>) -> tensor<4x3xf32> {
  %r = relax.dataflow -> (tensor<4x3xf32>) {
    %x = relax.ones : tensor<4x3xf32>
    %0 = relax.scatter_add %x, %i, %u {axis = 0 : i64} : tensor<4x3xf32>, tensor<2xi64>, tensor<2x3xf32> -> tensor<4x3xf32>
    relax.output %0 : tensor<4x3xf32>
  }
  return %r : tensor<4x3xf32>
}

// scatter "max": the tangents of x and of the updates equal to the result,
// averaged over the ties (x's at each position, the updates' added there).
// CHECK-LABEL: func.func @scatter_max_jvp(
// CHECK-SAME:    %[[X:.+]]: tensor<5xf32>, %[[I:.+]]: tensor<2xi64>, %[[U:.+]]: tensor<2xf32>, %[[TX:.+]]: tensor<5xf32>, %[[TU:.+]]: tensor<2xf32>)
// CHECK:         [[Y:%.+]] = relax.scatter %[[X]], %[[I]], %[[U]] {reduction = "max"}
// CHECK-NEXT:    [[XT:%.+]] = relax.equal %[[X]], [[Y]]
// CHECK-NEXT:    [[HX:%.+]] = relax.astype [[XT]]
// CHECK-NEXT:    [[YI:%.+]] = relax.take [[Y]], %[[I]]
// CHECK-NEXT:    [[UT:%.+]] = relax.equal %[[U]], [[YI]]
// CHECK-NEXT:    [[HU:%.+]] = relax.astype [[UT]]
// CHECK:         [[UC:%.+]] = relax.scatter_add %{{.+}}, %[[I]], [[HU]]
// CHECK-NEXT:    [[COUNT:%.+]] = relax.add [[HX]], [[UC]]
// CHECK-NEXT:    [[DX:%.+]] = relax.divide [[HX]], [[COUNT]]
// CHECK-NEXT:    [[CI:%.+]] = relax.take [[COUNT]], %[[I]]
// CHECK-NEXT:    [[DU:%.+]] = relax.divide [[HU]], [[CI]]
// CHECK-NEXT:    [[A:%.+]] = relax.multiply [[DX]], %[[TX]]
// CHECK-NEXT:    [[B:%.+]] = relax.multiply [[DU]], %[[TU]]
// CHECK:         [[S:%.+]] = relax.scatter_add %{{.+}}, %[[I]], [[B]]
// CHECK-NEXT:    [[T:%.+]] = relax.add [[A]], [[S]]
// CHECK-NEXT:    relax.tuple([[Y]], [[T]] :
func.func @scatter_max(%x: tensor<5xf32>, %i: tensor<2xi64>, %u: tensor<2xf32>) -> tensor<5xf32> {
  %r = relax.dataflow -> (tensor<5xf32>) {
    %0 = relax.scatter %x, %i, %u {reduction = "max"} : tensor<5xf32>, tensor<2xi64>, tensor<2xf32> -> tensor<5xf32>
    relax.output %0 : tensor<5xf32>
  }
  return %r : tensor<5xf32>
}

// Creation: full_like's tangent is the fill value's, spread like the value
// (x only gives the type: no tangent through it); zeros_like has none.
// CHECK-LABEL: func.func @creation_jvp(
// CHECK-SAME:    %[[X:.+]]: tensor<2x3xf32>, %[[V:.+]]: tensor<f32>, %[[TX:.+]]: tensor<2x3xf32>, %[[TV:.+]]: tensor<f32>)
// CHECK:         relax.full_like %[[X]], %[[V]]
// CHECK-NEXT:    [[T:%.+]] = relax.full_like %[[X]], %[[TV]]
// CHECK-NOT:     %[[TX]]
// CHECK:         relax.tuple(%{{.+}}, [[T]] :
func.func @creation(%x: tensor<2x3xf32>, %v: tensor<f32>) -> tensor<2x3xf32> {
  %r = relax.dataflow -> (tensor<2x3xf32>) {
    %0 = relax.full_like %x, %v : tensor<2x3xf32>, tensor<f32>
    %1 = relax.zeros_like %x : tensor<2x3xf32>
    %2 = relax.add %0, %1 : tensor<2x3xf32>, tensor<2x3xf32> -> tensor<2x3xf32>
    relax.output %2 : tensor<2x3xf32>
  }
  return %r : tensor<2x3xf32>
}

// pad is affine: the tangent pads with zeros, whatever the fill value.
// CHECK-LABEL: func.func @pad_jvp(
// CHECK-SAME:    %[[X:.+]]: tensor<3xf32>, %[[T:.+]]: tensor<3xf32>)
// CHECK:         relax.pad %[[X]] {pad_value = 2.500000e+00 : f64, pad_width = array<i64: 1, 2>}
// CHECK-NEXT:    relax.pad %[[T]] {pad_width = array<i64: 1, 2>} : tensor<3xf32> -> tensor<6xf32>
func.func @pad(%x: tensor<3xf32>) -> tensor<6xf32> {
  %r = relax.dataflow -> (tensor<6xf32>) {
    %0 = relax.pad %x {pad_width = array<i64: 1, 2>, pad_value = 2.5 : f64} : tensor<3xf32> -> tensor<6xf32>
    relax.output %0 : tensor<6xf32>
  }
  return %r : tensor<6xf32>
}

// softmax: y (t - sum(t y)) along the axis.
// CHECK-LABEL: func.func @softmax_jvp(
// CHECK-SAME:    %[[X:.+]]: tensor<2x3xf32>, %[[T:.+]]: tensor<2x3xf32>)
// CHECK:         [[Y:%.+]] = relax.softmax %[[X]]
// CHECK-NEXT:    [[TY:%.+]] = relax.multiply %[[T]], [[Y]]
// CHECK-NEXT:    [[S:%.+]] = relax.sum [[TY]] {axis = array<i64: 1>, keepdims = true}
// CHECK-NEXT:    [[D:%.+]] = relax.subtract %[[T]], [[S]]
// CHECK-NEXT:    relax.multiply [[Y]], [[D]]
func.func @softmax(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %r = relax.dataflow -> (tensor<2x3xf32>) {
    %0 = relax.softmax %x : tensor<2x3xf32>
    relax.output %0 : tensor<2x3xf32>
  }
  return %r : tensor<2x3xf32>
}

// log_softmax: t - sum(exp(y) t).
// CHECK-LABEL: func.func @log_softmax_jvp(
// CHECK-SAME:    %[[X:.+]]: tensor<2x3xf32>, %[[T:.+]]: tensor<2x3xf32>)
// CHECK:         [[Y:%.+]] = relax.log_softmax %[[X]] {axis = 0 : i64}
// CHECK-NEXT:    [[E:%.+]] = relax.exp [[Y]]
// CHECK-NEXT:    [[ET:%.+]] = relax.multiply [[E]], %[[T]]
// CHECK-NEXT:    [[S:%.+]] = relax.sum [[ET]] {axis = array<i64: 0>, keepdims = true}
// CHECK-NEXT:    relax.subtract %[[T]], [[S]]
func.func @log_softmax(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %r = relax.dataflow -> (tensor<2x3xf32>) {
    %0 = relax.log_softmax %x {axis = 0 : i64} : tensor<2x3xf32>
    relax.output %0 : tensor<2x3xf32>
  }
  return %r : tensor<2x3xf32>
}

// variance: 2 sum((x - mean) t) / N, reduced like the op (keepdims kept).
// CHECK-LABEL: func.func @variance_jvp(
// CHECK:         relax.variance
// CHECK:         [[P:%.+]] = relax.multiply %{{.+}}, %{{.+}} : tensor<2x3xf32>, tensor<2x3xf32> -> tensor<2x3xf32>
// CHECK-NEXT:    [[S:%.+]] = relax.sum [[P]] {axis = array<i64: 1>, keepdims = true} : tensor<2x3xf32> -> tensor<2x1xf32>
// CHECK-NEXT:    [[K:%.+]] = arith.constant dense<0.666666686> : tensor<f32>
// CHECK-NEXT:    relax.multiply [[S]], [[K]]
func.func @variance(%x: tensor<2x3xf32>) -> tensor<2x1xf32> {
  %r = relax.dataflow -> (tensor<2x1xf32>) {
    %0 = relax.variance %x {axis = array<i64: 1>, keepdims = true} : tensor<2x3xf32> -> tensor<2x1xf32>
    relax.output %0 : tensor<2x1xf32>
  }
  return %r : tensor<2x1xf32>
}

// max: the mean of the tangent over the elements equal to the maximum (the
// transpose of the VJP, which splits the adjoint among ties).
// CHECK-LABEL: func.func @max_jvp(
// CHECK-SAME:    %[[X:.+]]: tensor<2x3xf32>, %[[T:.+]]: tensor<2x3xf32>)
// CHECK:         [[EQ:%.+]] = relax.equal %[[X]], %{{.+}} : tensor<2x3xf32>, tensor<2x1xf32> -> tensor<2x3xi1>
// CHECK-NEXT:    [[M:%.+]] = relax.astype [[EQ]]
// CHECK-NEXT:    [[MT:%.+]] = relax.multiply [[M]], %[[T]]
// CHECK-NEXT:    [[NUM:%.+]] = relax.sum [[MT]] {axis = array<i64: 1>} : tensor<2x3xf32> -> tensor<2xf32>
// CHECK-NEXT:    [[DEN:%.+]] = relax.sum [[M]] {axis = array<i64: 1>} : tensor<2x3xf32> -> tensor<2xf32>
// CHECK-NEXT:    relax.divide [[NUM]], [[DEN]]
func.func @max(%x: tensor<2x3xf32>) -> tensor<2xf32> {
  %r = relax.dataflow -> (tensor<2xf32>) {
    %0 = relax.max %x {axis = array<i64: 1>} : tensor<2x3xf32> -> tensor<2xf32>
    relax.output %0 : tensor<2xf32>
  }
  return %r : tensor<2xf32>
}

// conv2d is bilinear: conv(tx, w) + conv(x, tw), with the op's attributes.
// CHECK-LABEL: func.func @conv2d_jvp(
// CHECK-SAME:    %[[X:.+]]: tensor<1x2x5x5xf32>, %[[W:.+]]: tensor<3x2x3x3xf32>, %[[TX:.+]]: tensor<1x2x5x5xf32>, %[[TW:.+]]: tensor<3x2x3x3xf32>)
// CHECK:         relax.conv2d %[[X]], %[[W]] {strides = array<i64: 2, 2>}
// CHECK-NEXT:    [[A:%.+]] = relax.conv2d %[[TX]], %[[W]] {strides = array<i64: 2, 2>}
// CHECK-NEXT:    [[B:%.+]] = relax.conv2d %[[X]], %[[TW]] {strides = array<i64: 2, 2>}
// CHECK-NEXT:    relax.add [[A]], [[B]]
func.func @conv2d(%x: tensor<1x2x5x5xf32>, %w: tensor<3x2x3x3xf32>) -> tensor<1x3x2x2xf32> {
  %r = relax.dataflow -> (tensor<1x3x2x2xf32>) {
    %0 = relax.conv2d %x, %w {strides = array<i64: 2, 2>} : tensor<1x2x5x5xf32>, tensor<3x2x3x3xf32> -> tensor<1x3x2x2xf32>
    relax.output %0 : tensor<1x3x2x2xf32>
  }
  return %r : tensor<1x3x2x2xf32>
}

// max_pool2d: the tangent at each window's first maximum, a take of the
// (zero-padded) tangent at the flat positions its VJP scatters to.
// CHECK-LABEL: func.func @max_pool2d_jvp(
// CHECK-SAME:    %[[X:.+]]: tensor<1x1x4x4xf32>, %[[T:.+]]: tensor<1x1x4x4xf32>)
// CHECK:         relax.max_pool2d %[[X]]
// CHECK:         [[TH:%.+]] = relax.pad %[[T]] {pad_width = array<i64: 0, 0, 0, 0, 1, 1, 0, 0>}
// CHECK-NEXT:    [[TP:%.+]] = relax.pad [[TH]] {pad_width = array<i64: 0, 0, 0, 0, 0, 0, 1, 1>}
// CHECK-NEXT:    relax.take [[TP]], %{{.+}} : tensor<1x1x6x6xf32>, tensor<1x1x4x4xi64> -> tensor<1x1x4x4xf32>
func.func @max_pool2d(%x: tensor<1x1x4x4xf32>) -> tensor<1x1x4x4xf32> {
  %r = relax.dataflow -> (tensor<1x1x4x4xf32>) {
    %0 = relax.max_pool2d %x {pool_size = array<i64: 3, 3>, strides = array<i64: 1, 1>, padding = array<i64: 1, 1, 1, 1>} : tensor<1x1x4x4xf32> -> tensor<1x1x4x4xf32>
    relax.output %0 : tensor<1x1x4x4xf32>
  }
  return %r : tensor<1x1x4x4xf32>
}
