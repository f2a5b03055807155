// The vmap pass: each op that reads a batched value is replaced by its
// batching rule's ops; ops that read none stay (run once); results batched.
// RUN: relax-opt %s --split-input-file --vmap="func=main batch-size=8 batched=0" | FileCheck %s

// A vector example times a shared matrix: one matmul of the batch; the
// reduction's axis moves past the batch; the shared exp(w) runs once and is
// broadcast.
// CHECK-LABEL: func.func @main_vmap(
// CHECK-SAME: %[[X:.*]]: tensor<8x3xf32> {relax.name = "x"}, %[[W:.*]]: tensor<3x2xf32> {relax.name = "w"})
// CHECK-SAME: -> tuple<tensor<8xf32>, tensor<8x3x2xf32>>
// CHECK: %[[R:.*]] = relax.reshape %[[X]] : tensor<8x3xf32> -> tensor<8x1x3xf32>
// CHECK: relax.matmul %[[R]], %[[W]] : tensor<8x1x3xf32>, tensor<3x2xf32> -> tensor<8x1x2xf32>
// CHECK: relax.sum %{{.*}} {axis = array<i64: 1>} : tensor<8x2xf32> -> tensor<8xf32>
// CHECK: %[[E:.*]] = relax.exp %[[W]] : tensor<3x2xf32>
// CHECK: relax.broadcast_to %[[E]] : tensor<3x2xf32> -> tensor<8x3x2xf32>
func.func @main(%x: tensor<3xf32> {relax.name = "x"}, %w: tensor<3x2xf32> {relax.name = "w"})
    -> tuple<tensor<f32>, tensor<3x2xf32>> {
  %r = relax.dataflow -> (tuple<tensor<f32>, tensor<3x2xf32>>) {
    %y = relax.matmul %x, %w : tensor<3xf32>, tensor<3x2xf32> -> tensor<2xf32>
    %s = relax.sum %y : tensor<2xf32> -> tensor<f32>
    %e = relax.exp %w : tensor<3x2xf32>
    %t = relax.tuple(%s, %e : tensor<f32>, tensor<3x2xf32>)
    relax.output %t : tuple<tensor<f32>, tensor<3x2xf32>>
  }
  return %r : tuple<tensor<f32>, tensor<3x2xf32>>
}

// -----

// Broadcasting: the batched operand gets unit axes after the batch so that
// it lines up with the shared one; axes of shape ops move past the batch.
// CHECK-LABEL: func.func @main_vmap(
// CHECK-SAME: %[[X:.*]]: tensor<8xf32>, %[[B:.*]]: tensor<4xf32>
// CHECK: %[[P:.*]] = relax.reshape %[[X]] : tensor<8xf32> -> tensor<8x1xf32>
// CHECK: %[[A:.*]] = relax.add %[[P]], %[[B]] : tensor<8x1xf32>, tensor<4xf32> -> tensor<8x4xf32>
// CHECK: %[[T:.*]] = relax.expand_dims %[[A]] {axis = array<i64: 2>} : tensor<8x4xf32> -> tensor<8x4x1xf32>
// CHECK: relax.permute_dims %[[T]] {axes = array<i64: 0, 2, 1>} : tensor<8x4x1xf32> -> tensor<8x1x4xf32>
// CHECK: relax.softmax %{{.*}} {axis = 2 : i64}
func.func @main(%x: tensor<f32>, %b: tensor<4xf32>) -> tensor<1x4xf32> {
  %r = relax.dataflow -> (tensor<1x4xf32>) {
    %a = relax.add %x, %b : tensor<f32>, tensor<4xf32> -> tensor<4xf32>
    %e = relax.expand_dims %a {axis = array<i64: -1>} : tensor<4xf32> -> tensor<4x1xf32>
    %t = relax.permute_dims %e : tensor<4x1xf32> -> tensor<1x4xf32>
    %s = relax.softmax %t : tensor<1x4xf32>
    relax.output %s : tensor<1x4xf32>
  }
  return %r : tensor<1x4xf32>
}

// -----

// The adjoint of a gradient is batched like any function (its call inlined
// first): per-example gradients.
// CHECK-LABEL: func.func @main_vmap(
// CHECK-SAME: %{{.*}}: tensor<8x3xf32>, %{{.*}}: tensor<3xf32>) -> tuple<tensor<8xf32>, tuple<tensor<8x3xf32>>>
// CHECK-NOT: func.call
// CHECK: relax.multiply {{.*}} -> tensor<8x3xf32>
func.func private @adjoint(%x: tensor<3xf32>, %w: tensor<3xf32>) -> tuple<tensor<f32>, tuple<tensor<3xf32>>> {
  %r = relax.dataflow -> (tuple<tensor<f32>, tuple<tensor<3xf32>>>) {
    %p = relax.multiply %x, %w : tensor<3xf32>, tensor<3xf32> -> tensor<3xf32>
    %s = relax.sum %p : tensor<3xf32> -> tensor<f32>
    %g = relax.tuple(%x : tensor<3xf32>)
    %t = relax.tuple(%s, %g : tensor<f32>, tuple<tensor<3xf32>>)
    relax.output %t : tuple<tensor<f32>, tuple<tensor<3xf32>>>
  }
  return %r : tuple<tensor<f32>, tuple<tensor<3xf32>>>
}
func.func @main(%x: tensor<3xf32>, %w: tensor<3xf32>) -> tuple<tensor<f32>, tuple<tensor<3xf32>>> {
  %r = relax.dataflow -> (tuple<tensor<f32>, tuple<tensor<3xf32>>>) {
    %c = func.call @adjoint(%x, %w) : (tensor<3xf32>, tensor<3xf32>) -> tuple<tensor<f32>, tuple<tensor<3xf32>>>
    relax.output %c : tuple<tensor<f32>, tuple<tensor<3xf32>>>
  }
  return %r : tuple<tensor<f32>, tuple<tensor<3xf32>>>
}

// -----

// A batch of indices into a shared x: one scatter over the batch flattened
// with x's axis, each example's indices normalized as take's (negative from
// the end, clamped into [0, 5) so that none reaches another example's rows)
// and offset by its example's 5 rows.
// CHECK-LABEL: func.func @main_vmap(
// CHECK-SAME: %[[I:.*]]: tensor<8x2xi64> {relax.name = "i"}, %[[X:.*]]: tensor<5xf32> {relax.name = "x"}, %[[U:.*]]: tensor<2xf32> {relax.name = "u"})
// CHECK-DAG: [[XB:%.+]] = relax.broadcast_to %[[X]] : tensor<5xf32> -> tensor<8x5xf32>
// CHECK-DAG: [[UB:%.+]] = relax.broadcast_to %[[U]] : tensor<2xf32> -> tensor<8x2xf32>
// CHECK-DAG: [[TABLE:%.+]] = relax.reshape [[XB]] : tensor<8x5xf32> -> tensor<40xf32>
// CHECK-DAG: [[UPD:%.+]] = relax.reshape [[UB]] : tensor<8x2xf32> -> tensor<16xf32>
// CHECK: [[N:%.+]] = relax.where
// CHECK-NEXT: [[C:%.+]] = relax.clip [[N]] {max = 4.000000e+00 : f64, min = 0.000000e+00 : f64} : tensor<8x2xi64>
// CHECK-NEXT: [[IOTA:%.+]] = arith.constant dense<{{\[\[}}0], [1], [2], [3], [4], [5], [6], [7]]> : tensor<8x1xi64>
// CHECK-NEXT: [[OFF:%.+]] = relax.multiply [[IOTA]], %{{.+}} : tensor<8x1xi64>, tensor<i64> -> tensor<8x1xi64>
// CHECK-NEXT: [[ROWS:%.+]] = relax.add [[C]], [[OFF]]
// CHECK-NEXT: [[FLAT:%.+]] = relax.reshape [[ROWS]] : tensor<8x2xi64> -> tensor<16xi64>
// CHECK-NEXT: [[S:%.+]] = relax.scatter [[TABLE]], [[FLAT]], [[UPD]] {axis = 0 : i64, reduction = "max"} : tensor<40xf32>, tensor<16xi64>, tensor<16xf32> -> tensor<40xf32>
// CHECK-NEXT: relax.reshape [[S]] : tensor<40xf32> -> tensor<8x5xf32>
func.func @main(%i: tensor<2xi64> {relax.name = "i"}, %x: tensor<5xf32> {relax.name = "x"}, %u: tensor<2xf32> {relax.name = "u"}) -> tensor<5xf32> {
  %r = relax.dataflow -> (tensor<5xf32>) {
    %0 = relax.scatter %x, %i, %u {reduction = "max"} : tensor<5xf32>, tensor<2xi64>, tensor<2xf32> -> tensor<5xf32>
    relax.output %0 : tensor<5xf32>
  }
  return %r : tensor<5xf32>
}

// -----

// A scan over a batch of xs with a shared initial carry: one scan whose carry
// becomes batched (the body makes it differ per example; init broadcast),
// the xs read along their second axis, the stacked outputs' batch moved back
// in front; the shared weight stays a constant of the loop.
// CHECK-LABEL: func.func @main_vmap(
// CHECK-SAME: %[[XS:.*]]: tensor<8x5x3xf32> {relax.name = "xs"}, %[[W:.*]]: tensor<3x3xf32> {relax.name = "w"}, %[[H:.*]]: tensor<3xf32> {relax.name = "h0"})
// CHECK: [[XT:%.+]] = relax.permute_dims %[[XS]] {axes = array<i64: 1, 0, 2>} : tensor<8x5x3xf32> -> tensor<5x8x3xf32>
// CHECK: [[H0:%.+]] = relax.broadcast_to %[[H]] : tensor<3xf32> -> tensor<8x3xf32>
// CHECK: [[S:%.+]]:2 = relax.scan length = 5 consts(%[[W]] : tensor<3x3xf32>) init([[H0]] : tensor<8x3xf32>) xs([[XT]] : tensor<5x8x3xf32>) -> (tensor<8x3xf32>, tensor<5x8xf32>)
// CHECK: ^bb0(%{{.+}}: tensor<3x3xf32>, %{{.+}}: tensor<8x3xf32>, %{{.+}}: tensor<8x3xf32>):
// CHECK: relax.tanh {{.*}} : tensor<8x3xf32>
// CHECK: relax.yield {{.*}} : tensor<8x3xf32>, tensor<8xf32>
// CHECK: relax.permute_dims [[S]]#1 {axes = array<i64: 1, 0>} : tensor<5x8xf32> -> tensor<8x5xf32>
func.func @main(%xs: tensor<5x3xf32> {relax.name = "xs"}, %w: tensor<3x3xf32> {relax.name = "w"}, %h0: tensor<3xf32> {relax.name = "h0"}) -> (tensor<3xf32>, tensor<5xf32>) {
  %r:2 = relax.dataflow -> (tensor<3xf32>, tensor<5xf32>) {
    %s:2 = relax.scan length = 5 consts(%w : tensor<3x3xf32>) init(%h0 : tensor<3xf32>) xs(%xs : tensor<5x3xf32>) -> (tensor<3xf32>, tensor<5xf32>) {
    ^bb0(%wc: tensor<3x3xf32>, %hc: tensor<3xf32>, %x: tensor<3xf32>):
      %m = relax.matmul %hc, %wc : tensor<3xf32>, tensor<3x3xf32> -> tensor<3xf32>
      %a = relax.add %m, %x : tensor<3xf32>, tensor<3xf32> -> tensor<3xf32>
      %t = relax.tanh %a : tensor<3xf32>
      %y = relax.sum %t : tensor<3xf32> -> tensor<f32>
      relax.yield %t, %y : tensor<3xf32>, tensor<f32>
    }
    relax.output %s#0, %s#1 : tensor<3xf32>, tensor<5xf32>
  }
  return %r#0, %r#1 : tensor<3xf32>, tensor<5xf32>
}

// -----

// An if with a batched predicate: each branch on the whole batch (here the
// inputs are shared: each runs once), then each example takes its own.
// CHECK-LABEL: func.func @main_vmap(
// CHECK-SAME: %[[P:.*]]: tensor<8xi1> {relax.name = "p"}, %[[X:.*]]: tensor<3xf32> {relax.name = "x"})
// CHECK: [[E:%.+]] = relax.exp %[[X]] : tensor<3xf32>
// CHECK: [[T:%.+]] = relax.broadcast_to [[E]] : tensor<3xf32> -> tensor<8x3xf32>
// CHECK: [[F:%.+]] = relax.broadcast_to %[[X]] : tensor<3xf32> -> tensor<8x3xf32>
// CHECK: [[C:%.+]] = relax.reshape %[[P]] : tensor<8xi1> -> tensor<8x1xi1>
// CHECK: relax.where [[C]], [[T]], [[F]] : tensor<8x1xi1>, tensor<8x3xf32>, tensor<8x3xf32> -> tensor<8x3xf32>
// CHECK-NOT: relax.if
func.func @main(%p: tensor<i1> {relax.name = "p"}, %x: tensor<3xf32> {relax.name = "x"}) -> tensor<3xf32> {
  %r = relax.dataflow -> (tensor<3xf32>) {
    %y = relax.if %p : tensor<i1> (%x : tensor<3xf32>) -> (tensor<3xf32>) {
    ^bb0(%a: tensor<3xf32>):
      %e = relax.exp %a : tensor<3xf32>
      relax.yield %e : tensor<3xf32>
    } else {
    ^bb0(%a: tensor<3xf32>):
      relax.yield %a : tensor<3xf32>
    }
    relax.output %y : tensor<3xf32>
  }
  return %r : tensor<3xf32>
}

// -----

// A while whose predicate differs per example: it runs while any example's
// holds (a count of the batch's predicates), and the body asks each
// example's predicate again to keep the carry of the examples that stopped.
// CHECK-LABEL: func.func @main_vmap(
// CHECK-SAME: %[[X:.*]]: tensor<8x3xf32> {relax.name = "x"})
// CHECK: relax.while max_iterations = 50 init(%[[X]] : tensor<8x3xf32>) -> (tensor<8x3xf32>) cond {
// CHECK:   [[P:%.+]] = relax.greater {{.*}} : tensor<8xf32>, tensor<f32> -> tensor<8xi1>
// CHECK:   [[N:%.+]] = relax.astype [[P]] : tensor<8xi1> -> tensor<8xi64>
// CHECK:   [[COUNT:%.+]] = relax.sum [[N]] {axis = array<i64: 0>} : tensor<8xi64> -> tensor<i64>
// CHECK:   [[ANY:%.+]] = relax.greater [[COUNT]], %{{.+}} : tensor<i64>, tensor<i64> -> tensor<i1>
// CHECK:   relax.condition [[ANY]] : tensor<i1>
// CHECK: } do {
// CHECK: ^bb0(%[[V:.+]]: tensor<8x3xf32>):
// CHECK:   [[Q:%.+]] = relax.greater {{.*}} -> tensor<8xi1>
// CHECK:   [[H:%.+]] = relax.multiply %[[V]]
// CHECK:   [[Q2:%.+]] = relax.reshape [[Q]] : tensor<8xi1> -> tensor<8x1xi1>
// CHECK:   [[KEEP:%.+]] = relax.where [[Q2]], [[H]], %[[V]]
// CHECK:   relax.yield [[KEEP]] : tensor<8x3xf32>
func.func @main(%x: tensor<3xf32> {relax.name = "x"}) -> tensor<3xf32> {
  %r = relax.dataflow -> (tensor<3xf32>) {
    %w = relax.while max_iterations = 50 init(%x : tensor<3xf32>) -> (tensor<3xf32>) cond {
    ^bb0(%v: tensor<3xf32>):
      %p = relax.sum %v : tensor<3xf32> -> tensor<f32>
      %one = arith.constant dense<1.0> : tensor<f32>
      %c = relax.greater %p, %one : tensor<f32>, tensor<f32> -> tensor<i1>
      relax.condition %c : tensor<i1>
    } do {
    ^bb0(%v: tensor<3xf32>):
      %h = arith.constant dense<0.5> : tensor<f32>
      %d = relax.multiply %v, %h : tensor<3xf32>, tensor<f32> -> tensor<3xf32>
      relax.yield %d : tensor<3xf32>
    }
    relax.output %w : tensor<3xf32>
  }
  return %r : tensor<3xf32>
}
