// Comparisons equal not_equal greater_equal less less_equal have no gradient
// rule and need none: their i1 result carries no gradient, so a comparison on
// the path (feeding a where condition or an astype mask) is not differentiated
// and gets no adjoint ops; all cases are differentiated in one run.
// RUN: relax-opt %s --gradient="func=equal,not_equal,greater_equal,less,less_equal" | FileCheck %s

// equal as a mask.
// loss = sum(astype(x equal c) * x): dx = astype(mask) * g; c gets zeros.
// CHECK-LABEL: func.func @equal_adjoint(
// CHECK-SAME:    %[[X:.+]]: tensor<3xf32>, %[[C:.+]]: tensor<3xf32>) -> tuple<tensor<f32>, tuple<tensor<3xf32>, tensor<3xf32>>> {
// CHECK:         [[M:%.+]] = relax.equal %[[X]], %[[C]] : tensor<3xf32>, tensor<3xf32> -> tensor<3xi1>
// CHECK:         [[F:%.+]] = relax.astype [[M]] : tensor<3xi1> -> tensor<3xf32>
// CHECK:         [[G:%.+]] = relax.broadcast_to %{{.+}} : tensor<1xf32> -> tensor<3xf32>
// CHECK-NEXT:    [[DX:%.+]] = relax.multiply [[G]], [[F]] : tensor<3xf32>, tensor<3xf32> -> tensor<3xf32>
// CHECK-NEXT:    [[DC:%.+]] = relax.zeros : tensor<3xf32>
// CHECK-NEXT:    relax.tuple([[DX]], [[DC]] : tensor<3xf32>, tensor<3xf32>)
func.func @equal(%x: tensor<3xf32>, %c: tensor<3xf32>) -> tensor<f32> {
  %r = relax.dataflow -> (tensor<f32>) {
    %m = relax.equal %x, %c : tensor<3xf32>, tensor<3xf32> -> tensor<3xi1>
    %f = relax.astype %m : tensor<3xi1> -> tensor<3xf32>
    %y = relax.multiply %f, %x : tensor<3xf32>, tensor<3xf32> -> tensor<3xf32>
    %l = relax.sum %y : tensor<3xf32> -> tensor<f32>
    relax.output %l : tensor<f32>
  }
  return %r : tensor<f32>
}

// not_equal as a mask.
// loss = sum(astype(x not_equal c) * x): dx = astype(mask) * g; c gets zeros.
// CHECK-LABEL: func.func @not_equal_adjoint(
// CHECK-SAME:    %[[X:.+]]: tensor<3xf32>, %[[C:.+]]: tensor<3xf32>) -> tuple<tensor<f32>, tuple<tensor<3xf32>, tensor<3xf32>>> {
// CHECK:         [[M:%.+]] = relax.not_equal %[[X]], %[[C]] : tensor<3xf32>, tensor<3xf32> -> tensor<3xi1>
// CHECK:         [[F:%.+]] = relax.astype [[M]] : tensor<3xi1> -> tensor<3xf32>
// CHECK:         [[G:%.+]] = relax.broadcast_to %{{.+}} : tensor<1xf32> -> tensor<3xf32>
// CHECK-NEXT:    [[DX:%.+]] = relax.multiply [[G]], [[F]] : tensor<3xf32>, tensor<3xf32> -> tensor<3xf32>
// CHECK-NEXT:    [[DC:%.+]] = relax.zeros : tensor<3xf32>
// CHECK-NEXT:    relax.tuple([[DX]], [[DC]] : tensor<3xf32>, tensor<3xf32>)
func.func @not_equal(%x: tensor<3xf32>, %c: tensor<3xf32>) -> tensor<f32> {
  %r = relax.dataflow -> (tensor<f32>) {
    %m = relax.not_equal %x, %c : tensor<3xf32>, tensor<3xf32> -> tensor<3xi1>
    %f = relax.astype %m : tensor<3xi1> -> tensor<3xf32>
    %y = relax.multiply %f, %x : tensor<3xf32>, tensor<3xf32> -> tensor<3xf32>
    %l = relax.sum %y : tensor<3xf32> -> tensor<f32>
    relax.output %l : tensor<f32>
  }
  return %r : tensor<f32>
}

// greater_equal as a where condition.
// loss = sum(where(x greater_equal c, x, c)) with c broadcast: g is split by the
// forward mask, c's share summed back to 0-d.
// CHECK-LABEL: func.func @greater_equal_adjoint(
// CHECK-SAME:    %[[X:.+]]: tensor<3xf32>, %[[C:.+]]: tensor<f32>) -> tuple<tensor<f32>, tuple<tensor<3xf32>, tensor<f32>>> {
// CHECK:         [[M:%.+]] = relax.greater_equal %[[X]], %[[C]] : tensor<3xf32>, tensor<f32> -> tensor<3xi1>
// CHECK:         [[G:%.+]] = relax.broadcast_to %{{.+}} : tensor<1xf32> -> tensor<3xf32>
// CHECK-NOT:     relax.greater_equal
// CHECK:         [[DX:%.+]] = relax.where [[M]], [[G]], %{{.+}} : tensor<3xi1>, tensor<3xf32>, tensor<f32> -> tensor<3xf32>
// CHECK-NEXT:    [[GC:%.+]] = relax.where [[M]], %{{.+}}, [[G]] : tensor<3xi1>, tensor<f32>, tensor<3xf32> -> tensor<3xf32>
// CHECK-NEXT:    [[DC:%.+]] = relax.collapse_sum_to [[GC]] : tensor<3xf32> -> tensor<f32>
// CHECK-NEXT:    relax.tuple([[DX]], [[DC]] : tensor<3xf32>, tensor<f32>)
func.func @greater_equal(%x: tensor<3xf32>, %c: tensor<f32>) -> tensor<f32> {
  %r = relax.dataflow -> (tensor<f32>) {
    %m = relax.greater_equal %x, %c : tensor<3xf32>, tensor<f32> -> tensor<3xi1>
    %y = relax.where %m, %x, %c : tensor<3xi1>, tensor<3xf32>, tensor<f32> -> tensor<3xf32>
    %l = relax.sum %y : tensor<3xf32> -> tensor<f32>
    relax.output %l : tensor<f32>
  }
  return %r : tensor<f32>
}

// less as a where condition.
// loss = sum(where(x less c, x, c)) with c broadcast: g is split by the
// forward mask, c's share summed back to 0-d.
// CHECK-LABEL: func.func @less_adjoint(
// CHECK-SAME:    %[[X:.+]]: tensor<3xf32>, %[[C:.+]]: tensor<f32>) -> tuple<tensor<f32>, tuple<tensor<3xf32>, tensor<f32>>> {
// CHECK:         [[M:%.+]] = relax.less %[[X]], %[[C]] : tensor<3xf32>, tensor<f32> -> tensor<3xi1>
// CHECK:         [[G:%.+]] = relax.broadcast_to %{{.+}} : tensor<1xf32> -> tensor<3xf32>
// CHECK-NOT:     relax.less
// CHECK:         [[DX:%.+]] = relax.where [[M]], [[G]], %{{.+}} : tensor<3xi1>, tensor<3xf32>, tensor<f32> -> tensor<3xf32>
// CHECK-NEXT:    [[GC:%.+]] = relax.where [[M]], %{{.+}}, [[G]] : tensor<3xi1>, tensor<f32>, tensor<3xf32> -> tensor<3xf32>
// CHECK-NEXT:    [[DC:%.+]] = relax.collapse_sum_to [[GC]] : tensor<3xf32> -> tensor<f32>
// CHECK-NEXT:    relax.tuple([[DX]], [[DC]] : tensor<3xf32>, tensor<f32>)
func.func @less(%x: tensor<3xf32>, %c: tensor<f32>) -> tensor<f32> {
  %r = relax.dataflow -> (tensor<f32>) {
    %m = relax.less %x, %c : tensor<3xf32>, tensor<f32> -> tensor<3xi1>
    %y = relax.where %m, %x, %c : tensor<3xi1>, tensor<3xf32>, tensor<f32> -> tensor<3xf32>
    %l = relax.sum %y : tensor<3xf32> -> tensor<f32>
    relax.output %l : tensor<f32>
  }
  return %r : tensor<f32>
}

// less_equal as a where condition.
// loss = sum(where(x less_equal c, x, c)) with c broadcast: g is split by the
// forward mask, c's share summed back to 0-d.
// CHECK-LABEL: func.func @less_equal_adjoint(
// CHECK-SAME:    %[[X:.+]]: tensor<3xf32>, %[[C:.+]]: tensor<f32>) -> tuple<tensor<f32>, tuple<tensor<3xf32>, tensor<f32>>> {
// CHECK:         [[M:%.+]] = relax.less_equal %[[X]], %[[C]] : tensor<3xf32>, tensor<f32> -> tensor<3xi1>
// CHECK:         [[G:%.+]] = relax.broadcast_to %{{.+}} : tensor<1xf32> -> tensor<3xf32>
// CHECK-NOT:     relax.less_equal
// CHECK:         [[DX:%.+]] = relax.where [[M]], [[G]], %{{.+}} : tensor<3xi1>, tensor<3xf32>, tensor<f32> -> tensor<3xf32>
// CHECK-NEXT:    [[GC:%.+]] = relax.where [[M]], %{{.+}}, [[G]] : tensor<3xi1>, tensor<f32>, tensor<3xf32> -> tensor<3xf32>
// CHECK-NEXT:    [[DC:%.+]] = relax.collapse_sum_to [[GC]] : tensor<3xf32> -> tensor<f32>
// CHECK-NEXT:    relax.tuple([[DX]], [[DC]] : tensor<3xf32>, tensor<f32>)
func.func @less_equal(%x: tensor<3xf32>, %c: tensor<f32>) -> tensor<f32> {
  %r = relax.dataflow -> (tensor<f32>) {
    %m = relax.less_equal %x, %c : tensor<3xf32>, tensor<f32> -> tensor<3xi1>
    %y = relax.where %m, %x, %c : tensor<3xi1>, tensor<3xf32>, tensor<f32> -> tensor<3xf32>
    %l = relax.sum %y : tensor<3xf32> -> tensor<f32>
    relax.output %l : tensor<f32>
  }
  return %r : tensor<f32>
}
