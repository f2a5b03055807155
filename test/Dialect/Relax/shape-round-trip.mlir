// RUN: relax-opt %s | relax-opt | FileCheck %s
// RUN: relax-opt -mlir-print-op-generic %s | relax-opt | FileCheck %s

// The shape ops expand_dims squeeze flatten concat split take scatter_add scatter
// strided_slice tile pad triu tril parse and print back in their custom form, directly and
// through the generic form.

// CHECK-LABEL: func.func @regroup
// CHECK-SAME: (%[[X:.+]]: tensor<3xf32>, %[[Y:.+]]: tensor<1x3x1xf32>, %[[Z:.+]]: tensor<2x3x4xi64>, %[[S:.+]]: tensor<f32>)
// CHECK: relax.expand_dims %[[X]] {axis = array<i64: 0>} : tensor<3xf32> -> tensor<1x3xf32>
// CHECK: relax.expand_dims %[[X]] {axis = array<i64: 0, -1>} : tensor<3xf32> -> tensor<1x3x1xf32>
// CHECK: relax.expand_dims %[[X]] {axis = array<i64: 2, 1>} : tensor<3xf32> -> tensor<3x1x1xf32>
// CHECK: relax.expand_dims %[[S]] {axis = array<i64: 0>} : tensor<f32> -> tensor<1xf32>
// CHECK: relax.squeeze %[[Y]] : tensor<1x3x1xf32> -> tensor<3xf32>
// CHECK: relax.squeeze %[[Y]] {axis = array<i64: 0>} : tensor<1x3x1xf32> -> tensor<3x1xf32>
// CHECK: relax.squeeze %[[Y]] {axis = array<i64: -1, 0>} : tensor<1x3x1xf32> -> tensor<3xf32>
// CHECK: relax.flatten %[[Z]] : tensor<2x3x4xi64> -> tensor<24xi64>
// CHECK: relax.flatten %[[S]] : tensor<f32> -> tensor<1xf32>
func.func @regroup(%x: tensor<3xf32>, %y: tensor<1x3x1xf32>, %z: tensor<2x3x4xi64>, %s: tensor<f32>) -> tensor<3xf32> {
  %r = relax.dataflow -> (tensor<3xf32>) {
    %0 = relax.expand_dims %x {axis = array<i64: 0>} : tensor<3xf32> -> tensor<1x3xf32>
    %1 = relax.expand_dims %x {axis = array<i64: 0, -1>} : tensor<3xf32> -> tensor<1x3x1xf32>
    %2 = relax.expand_dims %x {axis = array<i64: 2, 1>} : tensor<3xf32> -> tensor<3x1x1xf32>
    %3 = relax.expand_dims %s {axis = array<i64: 0>} : tensor<f32> -> tensor<1xf32>
    %4 = relax.squeeze %y : tensor<1x3x1xf32> -> tensor<3xf32>
    %5 = relax.squeeze %y {axis = array<i64: 0>} : tensor<1x3x1xf32> -> tensor<3x1xf32>
    %6 = relax.squeeze %y {axis = array<i64: -1, 0>} : tensor<1x3x1xf32> -> tensor<3xf32>
    %7 = relax.flatten %z : tensor<2x3x4xi64> -> tensor<24xi64>
    %8 = relax.flatten %s : tensor<f32> -> tensor<1xf32>
    relax.output %4 : tensor<3xf32>
  }
  return %r : tensor<3xf32>
}

// concat of one, two and three operands; split by sections and by points
// (points beyond the axis give empty parts; the default axis = 0 is not
// printed).
// CHECK-LABEL: func.func @concat_split
// CHECK-SAME: (%[[A:.+]]: tensor<2x3xf32>, %[[B:.+]]: tensor<4x3xf32>, %[[C:.+]]: tensor<2x5xf32>, %[[M:.+]]: tensor<2xi1>)
// CHECK: relax.concat %[[A]] {axis = 0 : i64} : tensor<2x3xf32> -> tensor<2x3xf32>
// CHECK: relax.concat %[[A]], %[[B]] {axis = 0 : i64} : tensor<2x3xf32>, tensor<4x3xf32> -> tensor<6x3xf32>
// CHECK: relax.concat %[[A]], %[[C]], %[[A]] {axis = -1 : i64} : tensor<2x3xf32>, tensor<2x5xf32>, tensor<2x3xf32> -> tensor<2x11xf32>
// CHECK: relax.concat %[[M]], %[[M]] {axis = 0 : i64} : tensor<2xi1>, tensor<2xi1> -> tensor<4xi1>
// CHECK: relax.split %[[B]] {indices_or_sections = 2 : i64} : tensor<4x3xf32> -> tuple<tensor<2x3xf32>, tensor<2x3xf32>>
// CHECK: relax.split %[[B]] {axis = 1 : i64, indices_or_sections = 3 : i64} : tensor<4x3xf32> -> tuple<tensor<4x1xf32>, tensor<4x1xf32>, tensor<4x1xf32>>
// CHECK: relax.split %[[C]] {axis = -1 : i64, indices_or_sections = array<i64: 1, 3>} : tensor<2x5xf32> -> tuple<tensor<2x1xf32>, tensor<2x2xf32>, tensor<2x2xf32>>
// CHECK: relax.split %[[C]] {axis = 1 : i64, indices_or_sections = array<i64: 2, 2, 7>} : tensor<2x5xf32> -> tuple<tensor<2x2xf32>, tensor<2x0xf32>, tensor<2x3xf32>, tensor<2x0xf32>>
// CHECK: relax.split %[[A]] {indices_or_sections = array<i64>} : tensor<2x3xf32> -> tuple<tensor<2x3xf32>>
func.func @concat_split(%a: tensor<2x3xf32>, %b: tensor<4x3xf32>, %c: tensor<2x5xf32>, %m: tensor<2xi1>) -> tensor<6x3xf32> {
  %r = relax.dataflow -> (tensor<6x3xf32>) {
    %0 = relax.concat %a {axis = 0 : i64} : tensor<2x3xf32> -> tensor<2x3xf32>
    %1 = relax.concat %a, %b {axis = 0 : i64} : tensor<2x3xf32>, tensor<4x3xf32> -> tensor<6x3xf32>
    %2 = relax.concat %a, %c, %a {axis = -1 : i64} : tensor<2x3xf32>, tensor<2x5xf32>, tensor<2x3xf32> -> tensor<2x11xf32>
    %3 = relax.concat %m, %m {axis = 0 : i64} : tensor<2xi1>, tensor<2xi1> -> tensor<4xi1>
    %4 = relax.split %b {indices_or_sections = 2 : i64} : tensor<4x3xf32> -> tuple<tensor<2x3xf32>, tensor<2x3xf32>>
    %5 = relax.split %b {indices_or_sections = 3 : i64, axis = 1 : i64} : tensor<4x3xf32> -> tuple<tensor<4x1xf32>, tensor<4x1xf32>, tensor<4x1xf32>>
    %6 = relax.split %c {indices_or_sections = array<i64: 1, 3>, axis = -1 : i64} : tensor<2x5xf32> -> tuple<tensor<2x1xf32>, tensor<2x2xf32>, tensor<2x2xf32>>
    %7 = relax.split %c {indices_or_sections = array<i64: 2, 2, 7>, axis = 1 : i64} : tensor<2x5xf32> -> tuple<tensor<2x2xf32>, tensor<2x0xf32>, tensor<2x3xf32>, tensor<2x0xf32>>
    %8 = relax.split %a {indices_or_sections = array<i64>} : tensor<2x3xf32> -> tuple<tensor<2x3xf32>>
    relax.output %1 : tensor<6x3xf32>
  }
  return %r : tensor<6x3xf32>
}

// take along an axis (negative too), without an axis (x flattened), with 0-d
// and 2-d indices.
// CHECK-LABEL: func.func @take
// CHECK-SAME: (%[[X:.+]]: tensor<5x3xf32>, %[[I:.+]]: tensor<2xi64>, %[[J:.+]]: tensor<i32>, %[[K:.+]]: tensor<2x2xi32>)
// CHECK: relax.take %[[X]], %[[I]] {axis = 0 : i64} : tensor<5x3xf32>, tensor<2xi64> -> tensor<2x3xf32>
// CHECK: relax.take %[[X]], %[[I]] {axis = -1 : i64} : tensor<5x3xf32>, tensor<2xi64> -> tensor<5x2xf32>
// CHECK: relax.take %[[X]], %[[I]] : tensor<5x3xf32>, tensor<2xi64> -> tensor<2xf32>
// CHECK: relax.take %[[X]], %[[J]] {axis = 1 : i64} : tensor<5x3xf32>, tensor<i32> -> tensor<5xf32>
// CHECK: relax.take %[[X]], %[[J]] : tensor<5x3xf32>, tensor<i32> -> tensor<f32>
// CHECK: relax.take %[[X]], %[[K]] {axis = 1 : i64} : tensor<5x3xf32>, tensor<2x2xi32> -> tensor<5x2x2xf32>
func.func @take(%x: tensor<5x3xf32>, %i: tensor<2xi64>, %j: tensor<i32>, %k: tensor<2x2xi32>) -> tensor<2x3xf32> {
  %r = relax.dataflow -> (tensor<2x3xf32>) {
    %0 = relax.take %x, %i {axis = 0 : i64} : tensor<5x3xf32>, tensor<2xi64> -> tensor<2x3xf32>
    %1 = relax.take %x, %i {axis = -1 : i64} : tensor<5x3xf32>, tensor<2xi64> -> tensor<5x2xf32>
    %2 = relax.take %x, %i : tensor<5x3xf32>, tensor<2xi64> -> tensor<2xf32>
    %3 = relax.take %x, %j {axis = 1 : i64} : tensor<5x3xf32>, tensor<i32> -> tensor<5xf32>
    %4 = relax.take %x, %j : tensor<5x3xf32>, tensor<i32> -> tensor<f32>
    %5 = relax.take %x, %k {axis = 1 : i64} : tensor<5x3xf32>, tensor<2x2xi32> -> tensor<5x2x2xf32>
    relax.output %0 : tensor<2x3xf32>
  }
  return %r : tensor<2x3xf32>
}

// scatter_add along an axis (negative too), without an axis (x flattened),
// with 2-d indices.
// CHECK-LABEL: func.func @scatter_add
// CHECK-SAME:    (%[[X:.+]]: tensor<5x3xf32>, %[[I:.+]]: tensor<2xi64>, %[[K:.+]]: tensor<2x2xi32>, %[[U:.+]]: tensor<2x3xf32>, %[[V:.+]]: tensor<5x2xf32>, %[[W:.+]]: tensor<2x2xf32>)
// CHECK: [[A:%.+]] = relax.scatter_add %[[X]], %[[I]], %[[U]] {axis = 0 : i64} : tensor<5x3xf32>, tensor<2xi64>, tensor<2x3xf32> -> tensor<5x3xf32>
// CHECK: [[B:%.+]] = relax.scatter_add [[A]], %[[I]], %[[V]] {axis = -1 : i64} : tensor<5x3xf32>, tensor<2xi64>, tensor<5x2xf32> -> tensor<5x3xf32>
// CHECK: relax.scatter_add [[B]], %[[K]], %[[W]] : tensor<5x3xf32>, tensor<2x2xi32>, tensor<2x2xf32> -> tensor<5x3xf32>
func.func @scatter_add(%x: tensor<5x3xf32>, %i: tensor<2xi64>, %k: tensor<2x2xi32>, %u: tensor<2x3xf32>, %v: tensor<5x2xf32>, %w: tensor<2x2xf32>) -> tensor<5x3xf32> {
  %0 = relax.scatter_add %x, %i, %u {axis = 0 : i64} : tensor<5x3xf32>, tensor<2xi64>, tensor<2x3xf32> -> tensor<5x3xf32>
  %1 = relax.scatter_add %0, %i, %v {axis = -1 : i64} : tensor<5x3xf32>, tensor<2xi64>, tensor<5x2xf32> -> tensor<5x3xf32>
  %2 = relax.scatter_add %1, %k, %w : tensor<5x3xf32>, tensor<2x2xi32>, tensor<2x2xf32> -> tensor<5x3xf32>
  return %2 : tensor<5x3xf32>
}

// scatter with each reduction; "set" is the default (not printed).
// CHECK-LABEL: func.func @scatter
// CHECK-SAME:    (%[[X:.+]]: tensor<5x3xf32>, %[[I:.+]]: tensor<2xi64>, %[[U:.+]]: tensor<2x3xf32>, %[[K:.+]]: tensor<2x2xi32>, %[[W:.+]]: tensor<2x2xi64>, %[[N:.+]]: tensor<5x3xi64>)
// CHECK: [[A:%.+]] = relax.scatter %[[X]], %[[I]], %[[U]] {axis = 0 : i64} : tensor<5x3xf32>, tensor<2xi64>, tensor<2x3xf32> -> tensor<5x3xf32>
// CHECK: [[B:%.+]] = relax.scatter [[A]], %[[I]], %[[U]] {axis = -2 : i64, reduction = "multiply"} : tensor<5x3xf32>, tensor<2xi64>, tensor<2x3xf32> -> tensor<5x3xf32>
// CHECK: relax.scatter [[B]], %[[I]], %[[U]] {axis = 0 : i64, reduction = "max"} : tensor<5x3xf32>, tensor<2xi64>, tensor<2x3xf32> -> tensor<5x3xf32>
// CHECK: relax.scatter %[[N]], %[[K]], %[[W]] {reduction = "min"} : tensor<5x3xi64>, tensor<2x2xi32>, tensor<2x2xi64> -> tensor<5x3xi64>
func.func @scatter(%x: tensor<5x3xf32>, %i: tensor<2xi64>, %u: tensor<2x3xf32>, %k: tensor<2x2xi32>, %w: tensor<2x2xi64>, %n: tensor<5x3xi64>) -> (tensor<5x3xf32>, tensor<5x3xi64>) {
  %0 = relax.scatter %x, %i, %u {axis = 0 : i64, reduction = "set"} : tensor<5x3xf32>, tensor<2xi64>, tensor<2x3xf32> -> tensor<5x3xf32>
  %1 = relax.scatter %0, %i, %u {axis = -2 : i64, reduction = "multiply"} : tensor<5x3xf32>, tensor<2xi64>, tensor<2x3xf32> -> tensor<5x3xf32>
  %2 = relax.scatter %1, %i, %u {axis = 0 : i64, reduction = "max"} : tensor<5x3xf32>, tensor<2xi64>, tensor<2x3xf32> -> tensor<5x3xf32>
  %3 = relax.scatter %n, %k, %w {reduction = "min"} : tensor<5x3xi64>, tensor<2x2xi32>, tensor<2x2xi64> -> tensor<5x3xi64>
  return %2, %3 : tensor<5x3xf32>, tensor<5x3xi64>
}

// strided_slice with numpy's slice rules: negative begin and end count from
// the end and are clamped, strides may be negative, strides default to 1.
// CHECK-LABEL: func.func @strided_slice
// CHECK-SAME: (%[[X:.+]]: tensor<5x3xf32>)
// CHECK: relax.strided_slice %[[X]] {axes = array<i64: 0>, begin = array<i64: 1>, end = array<i64: 4>} : tensor<5x3xf32> -> tensor<3x3xf32>
// CHECK: relax.strided_slice %[[X]] {axes = array<i64: 0>, begin = array<i64: 4>, end = array<i64: -6>, strides = array<i64: -2>} : tensor<5x3xf32> -> tensor<3x3xf32>
// CHECK: relax.strided_slice %[[X]] {axes = array<i64: 1, 0>, begin = array<i64: -2, 0>, end = array<i64: 100, 5>, strides = array<i64: 1, 2>} : tensor<5x3xf32> -> tensor<3x2xf32>
// CHECK: relax.strided_slice %[[X]] {axes = array<i64: -1>, begin = array<i64: 2>, end = array<i64: 1>} : tensor<5x3xf32> -> tensor<5x0xf32>
// CHECK: relax.strided_slice %[[X]] {axes = array<i64>, begin = array<i64>, end = array<i64>} : tensor<5x3xf32> -> tensor<5x3xf32>
func.func @strided_slice(%x: tensor<5x3xf32>) -> tensor<3x3xf32> {
  %r = relax.dataflow -> (tensor<3x3xf32>) {
    %0 = relax.strided_slice %x {axes = array<i64: 0>, begin = array<i64: 1>, end = array<i64: 4>} : tensor<5x3xf32> -> tensor<3x3xf32>
    %1 = relax.strided_slice %x {axes = array<i64: 0>, begin = array<i64: 4>, end = array<i64: -6>, strides = array<i64: -2>} : tensor<5x3xf32> -> tensor<3x3xf32>
    %2 = relax.strided_slice %x {axes = array<i64: 1, 0>, begin = array<i64: -2, 0>, end = array<i64: 100, 5>, strides = array<i64: 1, 2>} : tensor<5x3xf32> -> tensor<3x2xf32>
    %3 = relax.strided_slice %x {axes = array<i64: -1>, begin = array<i64: 2>, end = array<i64: 1>} : tensor<5x3xf32> -> tensor<5x0xf32>
    %4 = relax.strided_slice %x {axes = array<i64>, begin = array<i64>, end = array<i64>} : tensor<5x3xf32> -> tensor<5x3xf32>
    relax.output %1 : tensor<3x3xf32>
  }
  return %r : tensor<3x3xf32>
}

// tile with repeats of the rank, longer (leading axes added) and shorter
// (leading axes repeated once); pad with the default pad_value = 0 not printed.
// CHECK-LABEL: func.func @tile_pad
// CHECK-SAME: (%[[X:.+]]: tensor<2x3xf32>, %[[I:.+]]: tensor<3xi32>)
// CHECK: relax.tile %[[X]] {repeats = array<i64: 2, 1>} : tensor<2x3xf32> -> tensor<4x3xf32>
// CHECK: relax.tile %[[X]] {repeats = array<i64: 2, 1, 3>} : tensor<2x3xf32> -> tensor<2x2x9xf32>
// CHECK: relax.tile %[[X]] {repeats = array<i64: 2>} : tensor<2x3xf32> -> tensor<2x6xf32>
// CHECK: relax.tile %[[X]] {repeats = array<i64: 0, 1>} : tensor<2x3xf32> -> tensor<0x3xf32>
// CHECK: relax.pad %[[X]] {pad_width = array<i64: 1, 0, 2, 2>} : tensor<2x3xf32> -> tensor<3x7xf32>
// CHECK: relax.pad %[[X]] {pad_value = -1.500000e+00 : f64, pad_width = array<i64: 0, 0, 0, 1>} : tensor<2x3xf32> -> tensor<2x4xf32>
// CHECK: relax.pad %[[I]] {pad_value = 7.000000e+00 : f64, pad_width = array<i64: 2, 1>} : tensor<3xi32> -> tensor<6xi32>
func.func @tile_pad(%x: tensor<2x3xf32>, %i: tensor<3xi32>) -> tensor<4x3xf32> {
  %r = relax.dataflow -> (tensor<4x3xf32>) {
    %0 = relax.tile %x {repeats = array<i64: 2, 1>} : tensor<2x3xf32> -> tensor<4x3xf32>
    %1 = relax.tile %x {repeats = array<i64: 2, 1, 3>} : tensor<2x3xf32> -> tensor<2x2x9xf32>
    %2 = relax.tile %x {repeats = array<i64: 2>} : tensor<2x3xf32> -> tensor<2x6xf32>
    %3 = relax.tile %x {repeats = array<i64: 0, 1>} : tensor<2x3xf32> -> tensor<0x3xf32>
    %4 = relax.pad %x {pad_width = array<i64: 1, 0, 2, 2>} : tensor<2x3xf32> -> tensor<3x7xf32>
    %5 = relax.pad %x {pad_width = array<i64: 0, 0, 0, 1>, pad_value = -1.5 : f64} : tensor<2x3xf32> -> tensor<2x4xf32>
    %6 = relax.pad %i {pad_width = array<i64: 2, 1>, pad_value = 7.0 : f64} : tensor<3xi32> -> tensor<6xi32>
    relax.output %0 : tensor<4x3xf32>
  }
  return %r : tensor<4x3xf32>
}

// triu and tril on the last two axes; the default k = 0 is not printed.
// CHECK-LABEL: func.func @triangles
// CHECK-SAME: (%[[X:.+]]: tensor<4x4xf32>, %[[B:.+]]: tensor<2x3x5xi64>)
// CHECK: relax.triu %[[X]] : tensor<4x4xf32>
// CHECK: relax.triu %[[X]] {k = 1 : i64} : tensor<4x4xf32>
// CHECK: relax.tril %[[X]] : tensor<4x4xf32>
// CHECK: relax.tril %[[B]] {k = -2 : i64} : tensor<2x3x5xi64>
func.func @triangles(%x: tensor<4x4xf32>, %b: tensor<2x3x5xi64>) -> tensor<4x4xf32> {
  %r = relax.dataflow -> (tensor<4x4xf32>) {
    %0 = relax.triu %x : tensor<4x4xf32>
    %1 = relax.triu %x {k = 1 : i64} : tensor<4x4xf32>
    %2 = relax.tril %x {k = 0 : i64} : tensor<4x4xf32>
    %3 = relax.tril %b {k = -2 : i64} : tensor<2x3x5xi64>
    relax.output %0 : tensor<4x4xf32>
  }
  return %r : tensor<4x4xf32>
}

// The generic forms of the interchange contract.
// CHECK-LABEL: func.func @generic_input
// CHECK-SAME: (%[[X:.+]]: tensor<4x3xf32>, %[[I:.+]]: tensor<2xi64>)
// CHECK: relax.expand_dims %[[X]] {axis = array<i64: 1>} : tensor<4x3xf32> -> tensor<4x1x3xf32>
// CHECK-NEXT: relax.squeeze %{{.+}} : tensor<4x1x3xf32> -> tensor<4x3xf32>
// CHECK-NEXT: relax.flatten %[[X]] : tensor<4x3xf32> -> tensor<12xf32>
// CHECK-NEXT: relax.concat %[[X]], %[[X]] {axis = 1 : i64} : tensor<4x3xf32>, tensor<4x3xf32> -> tensor<4x6xf32>
// CHECK-NEXT: relax.split %[[X]] {indices_or_sections = array<i64: 1>} : tensor<4x3xf32> -> tuple<tensor<1x3xf32>, tensor<3x3xf32>>
// CHECK-NEXT: relax.take %[[X]], %[[I]] {axis = 1 : i64} : tensor<4x3xf32>, tensor<2xi64> -> tensor<4x2xf32>
// CHECK-NEXT: relax.strided_slice %[[X]] {axes = array<i64: 0>, begin = array<i64: -1>, end = array<i64: -5>, strides = array<i64: -1>} : tensor<4x3xf32> -> tensor<4x3xf32>
// CHECK-NEXT: relax.tile %[[X]] {repeats = array<i64: 1, 2>} : tensor<4x3xf32> -> tensor<4x6xf32>
// CHECK-NEXT: relax.pad %[[X]] {pad_value = 2.000000e+00 : f64, pad_width = array<i64: 0, 1, 1, 0>} : tensor<4x3xf32> -> tensor<5x4xf32>
// CHECK-NEXT: relax.triu %[[X]] {k = -1 : i64} : tensor<4x3xf32>
// CHECK-NEXT: relax.tril %[[X]] : tensor<4x3xf32>
func.func @generic_input(%x: tensor<4x3xf32>, %i: tensor<2xi64>) -> tensor<4x3xf32> {
  %r = "relax.dataflow"() ({
    %0 = "relax.expand_dims"(%x) {axis = array<i64: 1>} : (tensor<4x3xf32>) -> tensor<4x1x3xf32>
    %1 = "relax.squeeze"(%0) : (tensor<4x1x3xf32>) -> tensor<4x3xf32>
    %2 = "relax.flatten"(%x) : (tensor<4x3xf32>) -> tensor<12xf32>
    %3 = "relax.concat"(%x, %x) {axis = 1 : i64} : (tensor<4x3xf32>, tensor<4x3xf32>) -> tensor<4x6xf32>
    %4 = "relax.split"(%x) {indices_or_sections = array<i64: 1>, axis = 0 : i64} : (tensor<4x3xf32>) -> tuple<tensor<1x3xf32>, tensor<3x3xf32>>
    %5 = "relax.take"(%x, %i) {axis = 1 : i64} : (tensor<4x3xf32>, tensor<2xi64>) -> tensor<4x2xf32>
    %6 = "relax.strided_slice"(%x) {axes = array<i64: 0>, begin = array<i64: -1>, end = array<i64: -5>, strides = array<i64: -1>} : (tensor<4x3xf32>) -> tensor<4x3xf32>
    %7 = "relax.tile"(%x) {repeats = array<i64: 1, 2>} : (tensor<4x3xf32>) -> tensor<4x6xf32>
    %8 = "relax.pad"(%x) {pad_width = array<i64: 0, 1, 1, 0>, pad_value = 2.0 : f64} : (tensor<4x3xf32>) -> tensor<5x4xf32>
    %9 = "relax.triu"(%x) {k = -1 : i64} : (tensor<4x3xf32>) -> tensor<4x3xf32>
    %10 = "relax.tril"(%x) : (tensor<4x3xf32>) -> tensor<4x3xf32>
    "relax.output"(%10) : (tensor<4x3xf32>) -> ()
  }) : () -> tensor<4x3xf32>
  return %r : tensor<4x3xf32>
}

// Strides as large as 2^63 - 1 or as small as -2^63 read one element (no
// overflow in the element count).
// CHECK-LABEL: func.func @strided_slice_huge_strides
// CHECK:         relax.strided_slice %{{.+}} : tensor<4x3xf32> -> tensor<1x3xf32>
// CHECK:         relax.strided_slice %{{.+}} : tensor<4x3xf32> -> tensor<1x3xf32>
func.func @strided_slice_huge_strides(%x: tensor<4x3xf32>) -> (tensor<1x3xf32>, tensor<1x3xf32>) {
  %a = "relax.strided_slice"(%x) {axes = array<i64: 0>, begin = array<i64: 0>, end = array<i64: 4>, strides = array<i64: 9223372036854775807>} : (tensor<4x3xf32>) -> tensor<1x3xf32>
  %b = "relax.strided_slice"(%x) {axes = array<i64: 0>, begin = array<i64: 3>, end = array<i64: -100>, strides = array<i64: -9223372036854775808>} : (tensor<4x3xf32>) -> tensor<1x3xf32>
  return %a, %b : tensor<1x3xf32>, tensor<1x3xf32>
}

// CHECK-LABEL: func.func @shapes
// CHECK-SAME: (%[[X:.+]]: tensor<2x3x4xf32>, %[[V:.+]]: tensor<3xf32>)
// CHECK: relax.permute_dims %[[X]] : tensor<2x3x4xf32> -> tensor<4x3x2xf32>
// CHECK: relax.permute_dims %[[X]] {axes = array<i64: 1, 0, 2>} : tensor<2x3x4xf32> -> tensor<3x2x4xf32>
// CHECK: relax.permute_dims %[[X]] {axes = array<i64: -1, 0, 1>} : tensor<2x3x4xf32> -> tensor<4x2x3xf32>
// CHECK: relax.reshape %[[X]] : tensor<2x3x4xf32> -> tensor<6x4xf32>
// CHECK: relax.reshape %[[V]] : tensor<3xf32> -> tensor<1x3x1xf32>
// CHECK: %[[BC:.+]] = relax.broadcast_to %[[V]] : tensor<3xf32> -> tensor<2x4x3xf32>
// CHECK: relax.collapse_sum_to %[[BC]] : tensor<2x4x3xf32> -> tensor<1x3xf32>
// CHECK: relax.collapse_sum_to %[[X]] : tensor<2x3x4xf32> -> tensor<f32>
func.func @shapes(%x: tensor<2x3x4xf32>, %v: tensor<3xf32>) -> tensor<1x3xf32> {
  %r = relax.dataflow -> (tensor<1x3xf32>) {
    %0 = relax.permute_dims %x : tensor<2x3x4xf32> -> tensor<4x3x2xf32>
    %1 = relax.permute_dims %x {axes = array<i64: 1, 0, 2>} : tensor<2x3x4xf32> -> tensor<3x2x4xf32>
    %2 = relax.permute_dims %x {axes = array<i64: -1, 0, 1>} : tensor<2x3x4xf32> -> tensor<4x2x3xf32>
    %3 = relax.reshape %x : tensor<2x3x4xf32> -> tensor<6x4xf32>
    %4 = relax.reshape %v : tensor<3xf32> -> tensor<1x3x1xf32>
    %5 = relax.broadcast_to %v : tensor<3xf32> -> tensor<2x4x3xf32>
    %6 = relax.collapse_sum_to %5 : tensor<2x4x3xf32> -> tensor<1x3xf32>
    %7 = relax.collapse_sum_to %x : tensor<2x3x4xf32> -> tensor<f32>
    relax.output %6 : tensor<1x3xf32>
  }
  return %r : tensor<1x3xf32>
}
