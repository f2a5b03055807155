// The gradient rules of the shape ops expand_dims squeeze flatten concat split
// take scatter_add scatter strided_slice tile pad triu tril: one function per case, all
// differentiated in one run. Each loss is sum(op(x) * c) (c makes the adjoint
// g = broadcast(ones) * c reaching the op); the checks follow each rule's key
// ops.
// RUN: relax-opt %s --gradient="func=expand_dims,squeeze,flatten,concat,split,take,take_axis,take_flat,scatter_add,scatter_set,scatter_multiply,strided_slice,strided_slice_stride,strided_slice_negative_stride,strided_slice_empty,tile,pad,triu,tril" | FileCheck %s

// Ops that only regroup elements pass g back reshaped.
// CHECK-LABEL: func.func @expand_dims_adjoint(
// CHECK-SAME:    %[[X:.+]]: tensor<3xf32>, %[[C:.+]]: tensor<1x3x1xf32>)
// CHECK:         [[S:%.+]] = relax.broadcast_to %{{.+}} : tensor<1x1x1xf32> -> tensor<1x3x1xf32>
// CHECK-NEXT:    [[G:%.+]] = relax.multiply [[S]], %[[C]] :
// CHECK:         [[DX:%.+]] = relax.reshape [[G]] : tensor<1x3x1xf32> -> tensor<3xf32>
// CHECK-NEXT:    relax.tuple([[DX]], %{{.+}} : tensor<3xf32>, tensor<1x3x1xf32>)
func.func @expand_dims(%x: tensor<3xf32>, %c: tensor<1x3x1xf32>) -> tensor<f32> {
  %r = relax.dataflow -> (tensor<f32>) {
    %y = relax.expand_dims %x {axis = array<i64: 0, -1>} : tensor<3xf32> -> tensor<1x3x1xf32>
    %p = relax.multiply %y, %c : tensor<1x3x1xf32>, tensor<1x3x1xf32> -> tensor<1x3x1xf32>
    %l = relax.sum %p : tensor<1x3x1xf32> -> tensor<f32>
    relax.output %l : tensor<f32>
  }
  return %r : tensor<f32>
}

// CHECK-LABEL: func.func @squeeze_adjoint(
// CHECK-SAME:    %[[X:.+]]: tensor<1x3x1xf32>, %[[C:.+]]: tensor<3xf32>)
// CHECK:         [[S:%.+]] = relax.broadcast_to %{{.+}} : tensor<1xf32> -> tensor<3xf32>
// CHECK-NEXT:    [[G:%.+]] = relax.multiply [[S]], %[[C]] :
// CHECK:         [[DX:%.+]] = relax.reshape [[G]] : tensor<3xf32> -> tensor<1x3x1xf32>
// CHECK-NEXT:    relax.tuple([[DX]], %{{.+}} : tensor<1x3x1xf32>, tensor<3xf32>)
func.func @squeeze(%x: tensor<1x3x1xf32>, %c: tensor<3xf32>) -> tensor<f32> {
  %r = relax.dataflow -> (tensor<f32>) {
    %y = relax.squeeze %x : tensor<1x3x1xf32> -> tensor<3xf32>
    %p = relax.multiply %y, %c : tensor<3xf32>, tensor<3xf32> -> tensor<3xf32>
    %l = relax.sum %p : tensor<3xf32> -> tensor<f32>
    relax.output %l : tensor<f32>
  }
  return %r : tensor<f32>
}

// CHECK-LABEL: func.func @flatten_adjoint(
// CHECK-SAME:    %[[X:.+]]: tensor<2x3xf32>, %[[C:.+]]: tensor<6xf32>)
// CHECK:         [[S:%.+]] = relax.broadcast_to %{{.+}} : tensor<1xf32> -> tensor<6xf32>
// CHECK-NEXT:    [[G:%.+]] = relax.multiply [[S]], %[[C]] :
// CHECK:         [[DX:%.+]] = relax.reshape [[G]] : tensor<6xf32> -> tensor<2x3xf32>
// CHECK-NEXT:    relax.tuple([[DX]], %{{.+}} : tensor<2x3xf32>, tensor<6xf32>)
func.func @flatten(%x: tensor<2x3xf32>, %c: tensor<6xf32>) -> tensor<f32> {
  %r = relax.dataflow -> (tensor<f32>) {
    %y = relax.flatten %x : tensor<2x3xf32> -> tensor<6xf32>
    %p = relax.multiply %y, %c : tensor<6xf32>, tensor<6xf32> -> tensor<6xf32>
    %l = relax.sum %p : tensor<6xf32> -> tensor<f32>
    relax.output %l : tensor<f32>
  }
  return %r : tensor<f32>
}

// concat: each operand gets its slice of g along the (normalized) axis.
// CHECK-LABEL: func.func @concat_adjoint(
// CHECK-SAME:    %[[A:.+]]: tensor<2x3xf32>, %[[B:.+]]: tensor<2x1xf32>, %[[D:.+]]: tensor<2x2xf32>, %[[C:.+]]: tensor<2x6xf32>)
// CHECK:         [[S:%.+]] = relax.broadcast_to %{{.+}} : tensor<1x1xf32> -> tensor<2x6xf32>
// CHECK-NEXT:    [[G:%.+]] = relax.multiply [[S]], %[[C]] :
// CHECK:         [[DA:%.+]] = relax.strided_slice [[G]] {axes = array<i64: 1>, begin = array<i64: 0>, end = array<i64: 3>} : tensor<2x6xf32> -> tensor<2x3xf32>
// CHECK-NEXT:    [[DB:%.+]] = relax.strided_slice [[G]] {axes = array<i64: 1>, begin = array<i64: 3>, end = array<i64: 4>} : tensor<2x6xf32> -> tensor<2x1xf32>
// CHECK-NEXT:    [[DD:%.+]] = relax.strided_slice [[G]] {axes = array<i64: 1>, begin = array<i64: 4>, end = array<i64: 6>} : tensor<2x6xf32> -> tensor<2x2xf32>
// CHECK-NEXT:    relax.tuple([[DA]], [[DB]], [[DD]], %{{.+}} : tensor<2x3xf32>, tensor<2x1xf32>, tensor<2x2xf32>, tensor<2x6xf32>)
func.func @concat(%a: tensor<2x3xf32>, %b: tensor<2x1xf32>, %d: tensor<2x2xf32>, %c: tensor<2x6xf32>) -> tensor<f32> {
  %r = relax.dataflow -> (tensor<f32>) {
    %y = relax.concat %a, %b, %d {axis = -1 : i64} : tensor<2x3xf32>, tensor<2x1xf32>, tensor<2x2xf32> -> tensor<2x6xf32>
    %p = relax.multiply %y, %c : tensor<2x6xf32>, tensor<2x6xf32> -> tensor<2x6xf32>
    %l = relax.sum %p : tensor<2x6xf32> -> tensor<f32>
    relax.output %l : tensor<f32>
  }
  return %r : tensor<f32>
}

// split: the parts' adjoints are concatenated back; the unused middle part
// contributes zeros. loss = sum(part0) * sum(part2).
// CHECK-LABEL: func.func @split_adjoint(
// CHECK-SAME:    %[[X:.+]]: tensor<5x2xf32>) -> tuple<tensor<f32>, tuple<tensor<5x2xf32>>> {
// CHECK:         [[T:%.+]] = relax.split %[[X]] {indices_or_sections = array<i64: 1, 3>} : tensor<5x2xf32> -> tuple<tensor<1x2xf32>, tensor<2x2xf32>, tensor<2x2xf32>>
// CHECK:         [[G2:%.+]] = relax.broadcast_to %{{.+}} : tensor<1x1xf32> -> tensor<2x2xf32>
// CHECK:         [[G0:%.+]] = relax.broadcast_to %{{.+}} : tensor<1x1xf32> -> tensor<1x2xf32>
// CHECK-NEXT:    [[Z:%.+]] = relax.zeros : tensor<2x2xf32>
// CHECK-NEXT:    [[DX:%.+]] = relax.concat [[G0]], [[Z]], [[G2]] {axis = 0 : i64} : tensor<1x2xf32>, tensor<2x2xf32>, tensor<2x2xf32> -> tensor<5x2xf32>
// CHECK-NEXT:    relax.tuple([[DX]] : tensor<5x2xf32>)
func.func @split(%x: tensor<5x2xf32>) -> tensor<f32> {
  %r = relax.dataflow -> (tensor<f32>) {
    %t = relax.split %x {indices_or_sections = array<i64: 1, 3>} : tensor<5x2xf32> -> tuple<tensor<1x2xf32>, tensor<2x2xf32>, tensor<2x2xf32>>
    %a = relax.tuple_get_item %t[0] : tuple<tensor<1x2xf32>, tensor<2x2xf32>, tensor<2x2xf32>>
    %b = relax.tuple_get_item %t[2] : tuple<tensor<1x2xf32>, tensor<2x2xf32>, tensor<2x2xf32>>
    %sa = relax.sum %a : tensor<1x2xf32> -> tensor<f32>
    %sb = relax.sum %b : tensor<2x2xf32> -> tensor<f32>
    %l = relax.multiply %sa, %sb : tensor<f32>, tensor<f32> -> tensor<f32>
    relax.output %l : tensor<f32>
  }
  return %r : tensor<f32>
}

// take: the adjoint adds g's slices back into zeros at the same indices
// (scatter_add normalizes them as take does, and repeated indices
// accumulate); the other operand's adjoint is unaffected.
// CHECK-LABEL: func.func @take_adjoint(
// CHECK-SAME:    %[[X:.+]]: tensor<5x3xf32>, %[[I:.+]]: tensor<4xi64>, %[[C:.+]]: tensor<4x3xf32>) -> tuple<tensor<f32>, tuple<tensor<5x3xf32>, tensor<4x3xf32>>> {
// CHECK:         [[S:%.+]] = relax.broadcast_to %{{.+}} : tensor<1x1xf32> -> tensor<4x3xf32>
// CHECK-NEXT:    [[G:%.+]] = relax.multiply [[S]], %[[C]] :
// CHECK:         [[Z:%.+]] = relax.zeros : tensor<5x3xf32>
// CHECK-NEXT:    [[DX:%.+]] = relax.scatter_add [[Z]], %[[I]], [[G]] {axis = 0 : i64} : tensor<5x3xf32>, tensor<4xi64>, tensor<4x3xf32> -> tensor<5x3xf32>
// CHECK-NEXT:    relax.tuple([[DX]], %{{.+}} : tensor<5x3xf32>, tensor<4x3xf32>)
func.func @take(%x: tensor<5x3xf32>, %i: tensor<4xi64>, %c: tensor<4x3xf32>) -> tensor<f32> {
  %r = relax.dataflow -> (tensor<f32>) {
    %y = relax.take %x, %i {axis = 0 : i64} : tensor<5x3xf32>, tensor<4xi64> -> tensor<4x3xf32>
    %p = relax.multiply %y, %c : tensor<4x3xf32>, tensor<4x3xf32> -> tensor<4x3xf32>
    %l = relax.sum %p : tensor<4x3xf32> -> tensor<f32>
    relax.output %l : tensor<f32>
  }
  return %r : tensor<f32>
}

// scatter "set": slot j + 1 of each update is scattered into zeros the same
// way, so that the slot a position holds is the update written there last
// (0: none). x's adjoint is g where nothing was written; an update's is
// take(g) where it is the one written last.
// CHECK-LABEL: func.func @scatter_set_adjoint(
// CHECK-SAME:    %[[X:.+]]: tensor<5x3xf32>, %[[I:.+]]: tensor<2xi64>, %[[U:.+]]: tensor<2x3xf32>)
// CHECK:         [[G:%.+]] = relax.broadcast_to %{{.+}} : tensor<1x1xf32> -> tensor<5x3xf32>
// CHECK-DAG:     [[ZERO:%.+]] = arith.constant dense<0.000000e+00> : tensor<f32>
// CHECK-DAG:     [[ONE:%.+]] = arith.constant dense<1.000000e+00> : tensor<f32>
// CHECK-DAG:     [[IOTA:%.+]] = arith.constant dense<[0, 1]> : tensor<2xi64>
// CHECK-DAG:     [[ONEI:%.+]] = arith.constant dense<1> : tensor<i64>
// CHECK:         [[SLOT:%.+]] = relax.add [[IOTA]], [[ONEI]] : tensor<2xi64>, tensor<i64> -> tensor<2xi64>
// CHECK:         [[SLOTS:%.+]] = relax.broadcast_to %{{.+}} : tensor<2x1xi64> -> tensor<2x3xi64>
// CHECK:         [[NONE:%.+]] = relax.zeros : tensor<5x3xi64>
// CHECK-NEXT:    [[HELD:%.+]] = relax.scatter [[NONE]], %[[I]], [[SLOTS]] {axis = 0 : i64} : tensor<5x3xi64>, tensor<2xi64>, tensor<2x3xi64> -> tensor<5x3xi64>
// CHECK-NEXT:    [[Z:%.+]] = arith.constant dense<0> : tensor<i64>
// CHECK-NEXT:    [[FREE:%.+]] = relax.equal [[HELD]], [[Z]]
// CHECK-NEXT:    [[DXM:%.+]] = relax.where [[FREE]], [[ONE]], [[ZERO]]
// CHECK-NEXT:    [[AT:%.+]] = relax.take [[HELD]], %[[I]] {axis = 0 : i64}
// CHECK-NEXT:    [[LAST:%.+]] = relax.equal [[AT]], [[SLOTS]]
// CHECK-NEXT:    [[DUM:%.+]] = relax.where [[LAST]], [[ONE]], [[ZERO]]
// CHECK-NEXT:    [[DX:%.+]] = relax.multiply [[G]], [[DXM]]
// CHECK-NEXT:    [[GU:%.+]] = relax.take [[G]], %[[I]] {axis = 0 : i64}
// CHECK-NEXT:    [[DU:%.+]] = relax.multiply [[GU]], [[DUM]]
// CHECK-NEXT:    relax.tuple([[DX]], [[DU]] : tensor<5x3xf32>, tensor<2x3xf32>)
func.func @scatter_set(%x: tensor<5x3xf32>, %i: tensor<2xi64>, %u: tensor<2x3xf32>) -> tensor<f32> {
  %r = relax.dataflow -> (tensor<f32>) {
    %y = relax.scatter %x, %i, %u {axis = 0 : i64} : tensor<5x3xf32>, tensor<2xi64>, tensor<2x3xf32> -> tensor<5x3xf32>
    %l = relax.sum %y : tensor<5x3xf32> -> tensor<f32>
    relax.output %l : tensor<f32>
  }
  return %r : tensor<f32>
}

// scatter "multiply": x's adjoint is g times the product of its updates; an
// update's is g times x times the product of the other updates at its index,
// without dividing by a zero update (the non-zero updates' product Q, and the
// count of zero updates, at each index).
// CHECK-LABEL: func.func @scatter_multiply_adjoint(
// CHECK-SAME:    %[[X:.+]]: tensor<5xf32>, %[[I:.+]]: tensor<2xi64>, %[[U:.+]]: tensor<2xf32>)
// CHECK:         [[G:%.+]] = relax.broadcast_to %{{.+}} : tensor<1xf32> -> tensor<5xf32>
// CHECK:         [[ISZ:%.+]] = relax.equal %[[U]], %{{.+}} : tensor<2xf32>, tensor<f32> -> tensor<2xi1>
// CHECK-NEXT:    [[NZ:%.+]] = relax.where [[ISZ]], %{{.+}}, %[[U]]
// CHECK-NEXT:    [[ONES:%.+]] = relax.ones_like %[[X]] : tensor<5xf32>
// CHECK-NEXT:    [[QS:%.+]] = relax.scatter [[ONES]], %[[I]], [[NZ]] {reduction = "multiply"}
// CHECK-NEXT:    [[Q:%.+]] = relax.take [[QS]], %[[I]]
// CHECK:         [[ZS:%.+]] = relax.scatter_add %{{.+}}, %[[I]], %{{.+}} : tensor<5xf32>, tensor<2xi64>, tensor<2xf32> -> tensor<5xf32>
// CHECK-NEXT:    [[ZC:%.+]] = relax.take [[ZS]], %[[I]]
// CHECK-NEXT:    relax.divide [[Q]], [[NZ]]
// CHECK:         [[OTHERS:%.+]] = relax.where [[ISZ]], %{{.+}}, %{{.+}} : tensor<2xi1>, tensor<2xf32>, tensor<2xf32> -> tensor<2xf32>
// CHECK-NEXT:    [[P:%.+]] = relax.scatter [[ONES]], %[[I]], %[[U]] {reduction = "multiply"}
// CHECK-NEXT:    [[XI:%.+]] = relax.take %[[X]], %[[I]]
// CHECK-NEXT:    [[DUP:%.+]] = relax.multiply [[XI]], [[OTHERS]]
// CHECK-NEXT:    [[DX:%.+]] = relax.multiply [[G]], [[P]]
// CHECK-NEXT:    [[GU:%.+]] = relax.take [[G]], %[[I]]
// CHECK-NEXT:    [[DU:%.+]] = relax.multiply [[GU]], [[DUP]]
// CHECK-NEXT:    relax.tuple([[DX]], [[DU]] : tensor<5xf32>, tensor<2xf32>)
func.func @scatter_multiply(%x: tensor<5xf32>, %i: tensor<2xi64>, %u: tensor<2xf32>) -> tensor<f32> {
  %r = relax.dataflow -> (tensor<f32>) {
    %y = relax.scatter %x, %i, %u {reduction = "multiply"} : tensor<5xf32>, tensor<2xi64>, tensor<2xf32> -> tensor<5xf32>
    %l = relax.sum %y : tensor<5xf32> -> tensor<f32>
    relax.output %l : tensor<f32>
  }
  return %r : tensor<f32>
}

// take along a middle axis (negative): scatter_add keeps the axis as given.
// CHECK-LABEL: func.func @take_axis_adjoint(
// CHECK-SAME:    %[[X:.+]]: tensor<2x5x3xf32>, %[[I:.+]]: tensor<4xi32>)
// CHECK:         [[G:%.+]] = relax.multiply %{{.+}}, %{{.+}} : tensor<2x4x3xf32>, tensor<2x4x3xf32> -> tensor<2x4x3xf32>
// CHECK-NEXT:    [[Z:%.+]] = relax.zeros : tensor<2x5x3xf32>
// CHECK-NEXT:    [[DX:%.+]] = relax.scatter_add [[Z]], %[[I]], [[G]] {axis = -2 : i64} : tensor<2x5x3xf32>, tensor<4xi32>, tensor<2x4x3xf32> -> tensor<2x5x3xf32>
// CHECK-NEXT:    relax.tuple([[DX]] : tensor<2x5x3xf32>)
func.func @take_axis(%x: tensor<2x5x3xf32>, %i: tensor<4xi32>) -> tensor<f32> {
  %r = relax.dataflow -> (tensor<f32>) {
    %y = relax.take %x, %i {axis = -2 : i64} : tensor<2x5x3xf32>, tensor<4xi32> -> tensor<2x4x3xf32>
    %s = relax.square %y : tensor<2x4x3xf32>
    %l = relax.sum %s : tensor<2x4x3xf32> -> tensor<f32>
    relax.output %l : tensor<f32>
  }
  return %r : tensor<f32>
}

// take without axis reads x flattened: so does scatter_add without axis.
// CHECK-LABEL: func.func @take_flat_adjoint(
// CHECK-SAME:    %[[X:.+]]: tensor<2x3xf32>, %[[I:.+]]: tensor<2x2xi32>) -> tuple<tensor<f32>, tuple<tensor<2x3xf32>>> {
// CHECK:         [[G:%.+]] = relax.broadcast_to %{{.+}} : tensor<1x1xf32> -> tensor<2x2xf32>
// CHECK-NEXT:    [[Z:%.+]] = relax.zeros : tensor<2x3xf32>
// CHECK-NEXT:    [[DX:%.+]] = relax.scatter_add [[Z]], %[[I]], [[G]] : tensor<2x3xf32>, tensor<2x2xi32>, tensor<2x2xf32> -> tensor<2x3xf32>
// CHECK-NEXT:    relax.tuple([[DX]] : tensor<2x3xf32>)
func.func @take_flat(%x: tensor<2x3xf32>, %i: tensor<2x2xi32>) -> tensor<f32> {
  %r = relax.dataflow -> (tensor<f32>) {
    %y = relax.take %x, %i : tensor<2x3xf32>, tensor<2x2xi32> -> tensor<2x2xf32>
    %l = relax.sum %y : tensor<2x2xf32> -> tensor<f32>
    relax.output %l : tensor<f32>
  }
  return %r : tensor<f32>
}

// scatter_add is linear: x's adjoint is g itself, the updates' adjoint takes
// g at the same indices and axis.
// CHECK-LABEL: func.func @scatter_add_adjoint(
// CHECK-SAME:    %[[X:.+]]: tensor<5x3xf32>, %[[I:.+]]: tensor<4xi64>, %[[U:.+]]: tensor<4x3xf32>, %[[C:.+]]: tensor<5x3xf32>)
// CHECK:         relax.broadcast_to %{{.+}} -> tensor<5x3xf32>
// CHECK-NEXT:    [[G:%.+]] = relax.multiply %{{.+}}, %[[C]] : tensor<5x3xf32>, tensor<5x3xf32> -> tensor<5x3xf32>
// CHECK-NEXT:    [[DU:%.+]] = relax.take [[G]], %[[I]] {axis = 0 : i64} : tensor<5x3xf32>, tensor<4xi64> -> tensor<4x3xf32>
// CHECK-NEXT:    relax.tuple([[G]], [[DU]] : tensor<5x3xf32>, tensor<4x3xf32>)
func.func @scatter_add(%x: tensor<5x3xf32>, %i: tensor<4xi64>, %u: tensor<4x3xf32>, %c: tensor<5x3xf32>) -> tensor<f32> attributes {relax.require_grads = array<i64: 0, 2>} {
  %r = relax.dataflow -> (tensor<f32>) {
    %y = relax.scatter_add %x, %i, %u {axis = 0 : i64} : tensor<5x3xf32>, tensor<4xi64>, tensor<4x3xf32> -> tensor<5x3xf32>
    %p = relax.multiply %y, %c : tensor<5x3xf32>, tensor<5x3xf32> -> tensor<5x3xf32>
    %l = relax.sum %p : tensor<5x3xf32> -> tensor<f32>
    relax.output %l : tensor<f32>
  }
  return %r : tensor<f32>
}

// strided_slice with stride 1: g padded back with zeros before and after.
// CHECK-LABEL: func.func @strided_slice_adjoint(
// CHECK-SAME:    %[[X:.+]]: tensor<5x3xf32>, %[[C:.+]]: tensor<3x3xf32>)
// CHECK:         [[S:%.+]] = relax.broadcast_to %{{.+}} : tensor<1x1xf32> -> tensor<3x3xf32>
// CHECK-NEXT:    [[G:%.+]] = relax.multiply [[S]], %[[C]] :
// CHECK:         [[DX:%.+]] = relax.pad [[G]] {pad_width = array<i64: 1, 1, 0, 0>} : tensor<3x3xf32> -> tensor<5x3xf32>
// CHECK-NEXT:    relax.tuple([[DX]], %{{.+}} : tensor<5x3xf32>, tensor<3x3xf32>)
func.func @strided_slice(%x: tensor<5x3xf32>, %c: tensor<3x3xf32>) -> tensor<f32> {
  %r = relax.dataflow -> (tensor<f32>) {
    %y = relax.strided_slice %x {axes = array<i64: 0>, begin = array<i64: 1>, end = array<i64: 4>} : tensor<5x3xf32> -> tensor<3x3xf32>
    %p = relax.multiply %y, %c : tensor<3x3xf32>, tensor<3x3xf32> -> tensor<3x3xf32>
    %l = relax.sum %p : tensor<3x3xf32> -> tensor<f32>
    relax.output %l : tensor<f32>
  }
  return %r : tensor<f32>
}

// x[1:7:2] reads rows 1, 3, 5: g gains a size-1 axis, is padded to (3, 2, 3)
// (one zero after each row), merged to (6, 3) and padded by one row before.
// CHECK-LABEL: func.func @strided_slice_stride_adjoint(
// CHECK-SAME:    %[[X:.+]]: tensor<7x3xf32>, %[[C:.+]]: tensor<3x3xf32>)
// CHECK:         [[S:%.+]] = relax.broadcast_to %{{.+}} : tensor<1x1xf32> -> tensor<3x3xf32>
// CHECK-NEXT:    [[G:%.+]] = relax.multiply [[S]], %[[C]] :
// CHECK:         [[R1:%.+]] = relax.reshape [[G]] : tensor<3x3xf32> -> tensor<3x1x3xf32>
// CHECK-NEXT:    [[P1:%.+]] = relax.pad [[R1]] {pad_width = array<i64: 0, 0, 0, 1, 0, 0>} : tensor<3x1x3xf32> -> tensor<3x2x3xf32>
// CHECK-NEXT:    [[R2:%.+]] = relax.reshape [[P1]] : tensor<3x2x3xf32> -> tensor<6x3xf32>
// CHECK-NEXT:    [[DX:%.+]] = relax.pad [[R2]] {pad_width = array<i64: 1, 0, 0, 0>} : tensor<6x3xf32> -> tensor<7x3xf32>
// CHECK-NEXT:    relax.tuple([[DX]], %{{.+}} : tensor<7x3xf32>, tensor<3x3xf32>)
func.func @strided_slice_stride(%x: tensor<7x3xf32>, %c: tensor<3x3xf32>) -> tensor<f32> {
  %r = relax.dataflow -> (tensor<f32>) {
    %y = relax.strided_slice %x {axes = array<i64: 0>, begin = array<i64: 1>, end = array<i64: 7>, strides = array<i64: 2>} : tensor<7x3xf32> -> tensor<3x3xf32>
    %p = relax.multiply %y, %c : tensor<3x3xf32>, tensor<3x3xf32> -> tensor<3x3xf32>
    %l = relax.sum %p : tensor<3x3xf32> -> tensor<f32>
    relax.output %l : tensor<f32>
  }
  return %r : tensor<f32>
}

// x[3:0:-2] reads rows 3, 1: g is reversed first (a stride -1 strided_slice),
// then scattered with stride 2 from row 1.
// CHECK-LABEL: func.func @strided_slice_negative_stride_adjoint(
// CHECK-SAME:    %[[X:.+]]: tensor<5x3xf32>, %[[C:.+]]: tensor<2x3xf32>)
// CHECK:         [[S:%.+]] = relax.broadcast_to %{{.+}} : tensor<1x1xf32> -> tensor<2x3xf32>
// CHECK-NEXT:    [[G:%.+]] = relax.multiply [[S]], %[[C]] :
// CHECK:         [[REV:%.+]] = relax.strided_slice [[G]] {axes = array<i64: 0>, begin = array<i64: 1>, end = array<i64: -3>, strides = array<i64: -1>} : tensor<2x3xf32> -> tensor<2x3xf32>
// CHECK-NEXT:    [[R1:%.+]] = relax.reshape [[REV]] : tensor<2x3xf32> -> tensor<2x1x3xf32>
// CHECK-NEXT:    [[P1:%.+]] = relax.pad [[R1]] {pad_width = array<i64: 0, 0, 0, 1, 0, 0>} : tensor<2x1x3xf32> -> tensor<2x2x3xf32>
// CHECK-NEXT:    [[R2:%.+]] = relax.reshape [[P1]] : tensor<2x2x3xf32> -> tensor<4x3xf32>
// CHECK-NEXT:    [[DX:%.+]] = relax.pad [[R2]] {pad_width = array<i64: 1, 0, 0, 0>} : tensor<4x3xf32> -> tensor<5x3xf32>
// CHECK-NEXT:    relax.tuple([[DX]], %{{.+}} : tensor<5x3xf32>, tensor<2x3xf32>)
func.func @strided_slice_negative_stride(%x: tensor<5x3xf32>, %c: tensor<2x3xf32>) -> tensor<f32> {
  %r = relax.dataflow -> (tensor<f32>) {
    %y = relax.strided_slice %x {axes = array<i64: 0>, begin = array<i64: 3>, end = array<i64: 0>, strides = array<i64: -2>} : tensor<5x3xf32> -> tensor<2x3xf32>
    %p = relax.multiply %y, %c : tensor<2x3xf32>, tensor<2x3xf32> -> tensor<2x3xf32>
    %l = relax.sum %p : tensor<2x3xf32> -> tensor<f32>
    relax.output %l : tensor<f32>
  }
  return %r : tensor<f32>
}

// An empty slice reads nothing: x gets zeros.
// CHECK-LABEL: func.func @strided_slice_empty_adjoint(
// CHECK-SAME:    %[[X:.+]]: tensor<5x3xf32>, %[[S:.+]]: tensor<f32>)
// CHECK-NOT:     relax.pad
// CHECK:         [[DX:%.+]] = relax.zeros : tensor<5x3xf32>
// CHECK-NEXT:    relax.tuple([[DX]], %{{.+}} : tensor<5x3xf32>, tensor<f32>)
func.func @strided_slice_empty(%x: tensor<5x3xf32>, %s: tensor<f32>) -> tensor<f32> {
  %r = relax.dataflow -> (tensor<f32>) {
    %y = relax.strided_slice %x {axes = array<i64: 0>, begin = array<i64: 3>, end = array<i64: 1>} : tensor<5x3xf32> -> tensor<0x3xf32>
    %q = relax.sum %y : tensor<0x3xf32> -> tensor<f32>
    %l = relax.add %q, %s : tensor<f32>, tensor<f32> -> tensor<f32>
    relax.output %l : tensor<f32>
  }
  return %r : tensor<f32>
}

// tile: g viewed as (rep_0, size_0, rep_1, size_1, ...) is summed over the
// repetitions; a leading new axis has size 1.
// CHECK-LABEL: func.func @tile_adjoint(
// CHECK-SAME:    %[[X:.+]]: tensor<2x3xf32>, %[[C:.+]]: tensor<2x4x3xf32>)
// CHECK:         [[S:%.+]] = relax.broadcast_to %{{.+}} : tensor<1x1x1xf32> -> tensor<2x4x3xf32>
// CHECK-NEXT:    [[G:%.+]] = relax.multiply [[S]], %[[C]] :
// CHECK:         [[R:%.+]] = relax.reshape [[G]] : tensor<2x4x3xf32> -> tensor<2x1x2x2x1x3xf32>
// CHECK-NEXT:    [[SUM:%.+]] = relax.sum [[R]] {axis = array<i64: 0, 2, 4>} : tensor<2x1x2x2x1x3xf32> -> tensor<1x2x3xf32>
// CHECK-NEXT:    [[DX:%.+]] = relax.reshape [[SUM]] : tensor<1x2x3xf32> -> tensor<2x3xf32>
// CHECK-NEXT:    relax.tuple([[DX]], %{{.+}} : tensor<2x3xf32>, tensor<2x4x3xf32>)
func.func @tile(%x: tensor<2x3xf32>, %c: tensor<2x4x3xf32>) -> tensor<f32> {
  %r = relax.dataflow -> (tensor<f32>) {
    %y = relax.tile %x {repeats = array<i64: 2, 2, 1>} : tensor<2x3xf32> -> tensor<2x4x3xf32>
    %p = relax.multiply %y, %c : tensor<2x4x3xf32>, tensor<2x4x3xf32> -> tensor<2x4x3xf32>
    %l = relax.sum %p : tensor<2x4x3xf32> -> tensor<f32>
    relax.output %l : tensor<f32>
  }
  return %r : tensor<f32>
}

// pad: x's window of g, whatever the pad value.
// CHECK-LABEL: func.func @pad_adjoint(
// CHECK-SAME:    %[[X:.+]]: tensor<2x3xf32>, %[[C:.+]]: tensor<3x7xf32>)
// CHECK:         [[S:%.+]] = relax.broadcast_to %{{.+}} : tensor<1x1xf32> -> tensor<3x7xf32>
// CHECK-NEXT:    [[G:%.+]] = relax.multiply [[S]], %[[C]] :
// CHECK:         [[DX:%.+]] = relax.strided_slice [[G]] {axes = array<i64: 0, 1>, begin = array<i64: 1, 2>, end = array<i64: 3, 5>} : tensor<3x7xf32> -> tensor<2x3xf32>
// CHECK-NEXT:    relax.tuple([[DX]], %{{.+}} : tensor<2x3xf32>, tensor<3x7xf32>)
func.func @pad(%x: tensor<2x3xf32>, %c: tensor<3x7xf32>) -> tensor<f32> {
  %r = relax.dataflow -> (tensor<f32>) {
    %y = relax.pad %x {pad_width = array<i64: 1, 0, 2, 2>, pad_value = 5.0 : f64} : tensor<2x3xf32> -> tensor<3x7xf32>
    %p = relax.multiply %y, %c : tensor<3x7xf32>, tensor<3x7xf32> -> tensor<3x7xf32>
    %l = relax.sum %p : tensor<3x7xf32> -> tensor<f32>
    relax.output %l : tensor<f32>
  }
  return %r : tensor<f32>
}

// triu and tril mask g with the same triangle.
// CHECK-LABEL: func.func @triu_adjoint(
// CHECK-SAME:    %[[X:.+]]: tensor<3x3xf32>, %[[C:.+]]: tensor<3x3xf32>)
// CHECK:         [[S:%.+]] = relax.broadcast_to %{{.+}} : tensor<1x1xf32> -> tensor<3x3xf32>
// CHECK-NEXT:    [[G:%.+]] = relax.multiply [[S]], %[[C]] :
// CHECK:         [[DX:%.+]] = relax.triu [[G]] {k = 1 : i64} : tensor<3x3xf32>
// CHECK-NEXT:    relax.tuple([[DX]], %{{.+}} : tensor<3x3xf32>, tensor<3x3xf32>)
func.func @triu(%x: tensor<3x3xf32>, %c: tensor<3x3xf32>) -> tensor<f32> {
  %r = relax.dataflow -> (tensor<f32>) {
    %y = relax.triu %x {k = 1 : i64} : tensor<3x3xf32>
    %p = relax.multiply %y, %c : tensor<3x3xf32>, tensor<3x3xf32> -> tensor<3x3xf32>
    %l = relax.sum %p : tensor<3x3xf32> -> tensor<f32>
    relax.output %l : tensor<f32>
  }
  return %r : tensor<f32>
}

// CHECK-LABEL: func.func @tril_adjoint(
// CHECK-SAME:    %[[X:.+]]: tensor<2x3x3xf32>, %[[C:.+]]: tensor<2x3x3xf32>)
// CHECK:         [[S:%.+]] = relax.broadcast_to %{{.+}} : tensor<1x1x1xf32> -> tensor<2x3x3xf32>
// CHECK-NEXT:    [[G:%.+]] = relax.multiply [[S]], %[[C]] :
// CHECK:         [[DX:%.+]] = relax.tril [[G]] {k = -1 : i64} : tensor<2x3x3xf32>
// CHECK-NEXT:    relax.tuple([[DX]], %{{.+}} : tensor<2x3x3xf32>, tensor<2x3x3xf32>)
func.func @tril(%x: tensor<2x3x3xf32>, %c: tensor<2x3x3xf32>) -> tensor<f32> {
  %r = relax.dataflow -> (tensor<f32>) {
    %y = relax.tril %x {k = -1 : i64} : tensor<2x3x3xf32>
    %p = relax.multiply %y, %c : tensor<2x3x3xf32>, tensor<2x3x3xf32> -> tensor<2x3x3xf32>
    %l = relax.sum %p : tensor<2x3x3xf32> -> tensor<f32>
    relax.output %l : tensor<f32>
  }
  return %r : tensor<f32>
}
