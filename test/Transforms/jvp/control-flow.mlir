// Forward mode of the loops and conditionals: each becomes one op of its
// kind over primal and tangent values together (tangent carries after the
// carries, tangent consts and xs after theirs, tangent outputs after the
// outputs); a while's condition reads the primal carries only.
// RUN: relax-opt %s --relax-convert-to-dataflow --jvp="func=rnn wrt=0,1" | FileCheck %s --check-prefix=RNN
// RUN: relax-opt %s --relax-convert-to-dataflow --jvp="func=loop" | FileCheck %s --check-prefix=LOOP
// RUN: relax-opt %s --relax-convert-to-dataflow --jvp="func=pick wrt=1" | FileCheck %s --check-prefix=PICK
// RUN: relax-opt %s --relax-convert-to-dataflow --jvp="func=rnn mode=linearize" | FileCheck %s --check-prefix=LINEAR

// RNN-LABEL: func.func @rnn_jvp
// RNN-SAME: (%[[W:.*]]: tensor<3x3xf32>, %[[H0:.*]]: tensor<3xf32>, %[[XS:.*]]: tensor<5x3xf32>, %[[WD:.*]]: tensor<3x3xf32>, %[[HD:.*]]: tensor<3xf32>)
// RNN: relax.scan length = 5 consts(%[[W]], %[[WD]] : tensor<3x3xf32>, tensor<3x3xf32>) init(%[[H0]], %[[HD]] : tensor<3xf32>, tensor<3xf32>) xs(%[[XS]] : tensor<5x3xf32>) -> (tensor<3xf32>, tensor<3xf32>, tensor<5x3xf32>, tensor<5x3xf32>) {
// RNN: relax.tanh
// RNN: relax.yield %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} : tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>
func.func @rnn(%w: tensor<3x3xf32>, %h0: tensor<3xf32>, %xs: tensor<5x3xf32>) -> tensor<f32> {
  %r:2 = relax.scan length = 5 consts(%w : tensor<3x3xf32>) init(%h0 : tensor<3xf32>) xs(%xs : tensor<5x3xf32>) -> (tensor<3xf32>, tensor<5x3xf32>) {
  ^bb0(%wc: tensor<3x3xf32>, %h: tensor<3xf32>, %x: tensor<3xf32>):
    %m = relax.matmul %wc, %h : tensor<3x3xf32>, tensor<3xf32> -> tensor<3xf32>
    %a = relax.add %m, %x : tensor<3xf32>, tensor<3xf32> -> tensor<3xf32>
    %t = relax.tanh %a : tensor<3xf32>
    relax.yield %t, %t : tensor<3xf32>, tensor<3xf32>
  }
  %s = relax.sum %r#1 : tensor<5x3xf32> -> tensor<f32>
  return %s : tensor<f32>
}

// LOOP-LABEL: func.func @loop_jvp
// LOOP: relax.while max_iterations = 9 init(%arg0, %arg1, %arg2 : tensor<i32>, tensor<f32>, tensor<f32>) -> (tensor<i32>, tensor<f32>, tensor<f32>) cond {
// LOOP-NEXT: ^bb0(%[[I:.*]]: tensor<i32>, %{{.*}}: tensor<f32>, %{{.*}}: tensor<f32>):
// LOOP: relax.less %[[I]]
// LOOP: } do {
// LOOP: relax.cos
func.func @loop(%i0: tensor<i32>, %x: tensor<f32>) -> tensor<f32> {
  %r:2 = relax.while max_iterations = 9 init(%i0, %x : tensor<i32>, tensor<f32>) -> (tensor<i32>, tensor<f32>) cond {
  ^bb0(%i: tensor<i32>, %v: tensor<f32>):
    %n = arith.constant dense<4> : tensor<i32>
    %p = relax.less %i, %n : tensor<i32>, tensor<i32> -> tensor<i1>
    relax.condition %p : tensor<i1>
  } do {
  ^bb0(%i: tensor<i32>, %v: tensor<f32>):
    %one = arith.constant dense<1> : tensor<i32>
    %j = relax.add %i, %one : tensor<i32>, tensor<i32> -> tensor<i32>
    %s = relax.sin %v : tensor<f32>
    relax.yield %j, %s : tensor<i32>, tensor<f32>
  }
  return %r#1 : tensor<f32>
}

// PICK-LABEL: func.func @pick_jvp
// PICK: relax.switch %arg0 : tensor<i32> (%arg1, %arg2 : tensor<2xf32>, tensor<2xf32>) -> (tensor<2xf32>, tensor<2xf32>) [{
// PICK: relax.exp
// PICK: relax.multiply
// PICK: }, {
// PICK-NEXT: ^bb0(%[[A:.*]]: tensor<2xf32>, %[[T:.*]]: tensor<2xf32>):
// PICK-NEXT: relax.yield %[[A]], %[[T]] : tensor<2xf32>, tensor<2xf32>
func.func @pick(%i: tensor<i32>, %x: tensor<2xf32>) -> tensor<2xf32> {
  %r = relax.switch %i : tensor<i32> (%x : tensor<2xf32>) -> (tensor<2xf32>) [{
  ^bb0(%a: tensor<2xf32>):
    %e = relax.exp %a : tensor<2xf32>
    relax.yield %e : tensor<2xf32>
  }, {
  ^bb0(%a: tensor<2xf32>):
    relax.yield %a : tensor<2xf32>
  } ]
  return %r : tensor<2xf32>
}

// The linear half holds the loop over primal and tangent values (it reads
// the primal inputs as residuals).
// LINEAR-LABEL: func.func @rnn_linear
// LINEAR: relax.scan length = 5
