// Reverse mode of the loops and conditionals.
// - scan: the forward scan also stacks the carry entering each iteration (an
//   output after its own), and a scan in the other direction runs the body's
//   adjoint over (xs, stacked carries, output adjoints), recomputing the body;
//   the adjoints of the consts accumulate in carries.
// - checkpoint_every: the scan is nested into chunks first (an outer scan
//   whose body scans one chunk, and a tail scan for the rest).
// - while with max_iterations: nested scans of guarded steps (relax.if)
//   carrying a `done` flag and a counter; a chunk is skipped once done.
// - if: an if over the branches' adjoints.
// RUN: relax-opt %s --relax-convert-to-dataflow --gradient="func=rnn" | FileCheck %s --check-prefix=RNN
// RUN: relax-opt %s --relax-convert-to-dataflow --gradient="func=chunked" | FileCheck %s --check-prefix=CHUNKED
// RUN: relax-opt %s --relax-convert-to-dataflow --gradient="func=newton" | FileCheck %s --check-prefix=NEWTON
// RUN: relax-opt %s --relax-convert-to-dataflow --gradient="func=branch" | FileCheck %s --check-prefix=BRANCH
// RUN: relax-opt %s --relax-convert-to-dataflow --gradient="func=rnn mode=vjp" | FileCheck %s --check-prefix=VJP
// RUN: relax-opt %s --relax-convert-to-dataflow --gradient="func=rnn,chunked,newton,branch" | relax-opt --gradient="func=rnn_adjoint" --relax-flatten-tuples | FileCheck %s --check-prefix=SECOND

// RNN-LABEL: func.func @rnn_adjoint
// The forward scan stacks the carry (third output, fed by the block argument).
// RNN: %[[FWD:.*]]:3 = relax.scan length = 5 consts(%arg0 : tensor<3x3xf32>) init(%arg1 : tensor<3xf32>) xs(%arg2 : tensor<5x3xf32>) -> (tensor<3xf32>, tensor<5x3xf32>, tensor<5x3xf32>) {
// RNN-NEXT: ^bb0(%{{.*}}: tensor<3x3xf32>, %[[H:.*]]: tensor<3xf32>, %{{.*}}: tensor<3xf32>):
// RNN: relax.yield %[[T:.*]], %[[T]], %[[H]] : tensor<3xf32>, tensor<3xf32>, tensor<3xf32>
// The reverse scan: carries (adjoint of h, accumulated adjoint of w), xs
// (x, stacked h, adjoint of ys); it yields the adjoint of each x slice.
// RNN: %[[BWD:.*]]:3 = relax.scan length = 5 reverse consts(%arg0 : tensor<3x3xf32>) init(%{{.*}}, %{{.*}} : tensor<3xf32>, tensor<3x3xf32>) xs(%arg2, %[[FWD]]#2, %{{.*}} : tensor<5x3xf32>, tensor<5x3xf32>, tensor<5x3xf32>) -> (tensor<3xf32>, tensor<3x3xf32>, tensor<5x3xf32>) {
// RNN: relax.tanh
// RNN: relax.yield %{{.*}}, %{{.*}}, %{{.*}} : tensor<3xf32>, tensor<3x3xf32>, tensor<3xf32>
// RNN: relax.tuple(%[[BWD]]#1, %[[BWD]]#0, %[[BWD]]#2 : tensor<3x3xf32>, tensor<3xf32>, tensor<5x3xf32>)
func.func @rnn(%w: tensor<3x3xf32>, %h0: tensor<3xf32>, %xs: tensor<5x3xf32>) -> tensor<f32> {
  %r:2 = relax.scan length = 5 consts(%w : tensor<3x3xf32>) init(%h0 : tensor<3xf32>) xs(%xs : tensor<5x3xf32>) -> (tensor<3xf32>, tensor<5x3xf32>) {
  ^bb0(%wc: tensor<3x3xf32>, %h: tensor<3xf32>, %x: tensor<3xf32>):
    %m = relax.matmul %wc, %h : tensor<3x3xf32>, tensor<3xf32> -> tensor<3xf32>
    %a = relax.add %m, %x : tensor<3xf32>, tensor<3xf32> -> tensor<3xf32>
    %t = relax.tanh %a : tensor<3xf32>
    relax.yield %t, %t : tensor<3xf32>, tensor<3xf32>
  }
  %s = relax.sum %r#1 : tensor<5x3xf32> -> tensor<f32>
  %s2 = relax.sum %r#0 : tensor<3xf32> -> tensor<f32>
  %l = relax.add %s, %s2 : tensor<f32>, tensor<f32> -> tensor<f32>
  return %l : tensor<f32>
}

// 7 iterations in chunks of 3: an outer scan of 2 chunks (stacking 2 carries)
// whose body scans 3 iterations, then a tail of 1 iteration.
// CHUNKED-LABEL: func.func @chunked_adjoint
// CHUNKED: relax.scan length = 2 init(%arg0 : tensor<2xf32>) xs(%{{.*}} : tensor<2x3x2xf32>) -> (tensor<2xf32>, tensor<2x3x2xf32>, tensor<2x2xf32>) {
// CHUNKED: relax.scan length = 3 init(%{{.*}} : tensor<2xf32>) xs(%{{.*}} : tensor<3x2xf32>) -> (tensor<2xf32>, tensor<3x2xf32>) {
// CHUNKED: relax.scan length = 1 init(%{{.*}} : tensor<2xf32>) xs(%{{.*}} : tensor<1x2xf32>)
// CHUNKED: relax.scan length = 2 reverse
// CHUNKED-NOT: checkpoint_every
func.func @chunked(%c: tensor<2xf32>, %xs: tensor<7x2xf32>) -> tensor<f32> {
  %r:2 = relax.scan length = 7 init(%c : tensor<2xf32>) xs(%xs : tensor<7x2xf32>) -> (tensor<2xf32>, tensor<7x2xf32>) {
  ^bb0(%h: tensor<2xf32>, %x: tensor<2xf32>):
    %m = relax.multiply %h, %x : tensor<2xf32>, tensor<2xf32> -> tensor<2xf32>
    %t = relax.sin %m : tensor<2xf32>
    relax.yield %t, %m : tensor<2xf32>, tensor<2xf32>
  } {checkpoint_every = 3 : i64}
  %s = relax.sum %r#1 : tensor<7x2xf32> -> tensor<f32>
  %s2 = relax.sum %r#0 : tensor<2xf32> -> tensor<f32>
  %l = relax.add %s, %s2 : tensor<f32>, tensor<f32> -> tensor<f32>
  return %l : tensor<f32>
}

// 50 iterations at most, in chunks of 8 (the default fan-out): a top scan of
// 7 chunks over (done, count, x) stacks 7 states; a chunk entered once the
// loop is done is skipped (the if on `done`); inside, a scan of 8 steps, each
// run only while not done, count < 50 and the condition holds. The backward
// scan recomputes a chunk (stacking its 8 states) only where it ran.
// NEWTON-LABEL: func.func @newton_adjoint
// NEWTON-DAG: %[[FALSE:.*]] = arith.constant dense<false> : tensor<i1>
// NEWTON-DAG: %[[ZERO:.*]] = arith.constant dense<0> : tensor<i64>
// NEWTON: %[[FWD:.*]]:6 = relax.scan length = 7 consts(%arg0 : tensor<f32>) init(%[[FALSE]], %[[ZERO]], %arg0 : tensor<i1>, tensor<i64>, tensor<f32>) -> (tensor<i1>, tensor<i64>, tensor<f32>, tensor<7xi1>, tensor<7xi64>, tensor<7xf32>)
// NEWTON-NEXT: ^bb0(%{{.*}}: tensor<f32>, %[[DONE:.*]]: tensor<i1>, %{{.*}}: tensor<i64>, %{{.*}}: tensor<f32>):
// NEWTON-NEXT: relax.if %[[DONE]] : tensor<i1>
// NEWTON: relax.scan length = 8 consts
// NEWTON: %[[MAX:.*]] = arith.constant dense<50> : tensor<i64>
// NEWTON: relax.less %{{.*}}, %[[MAX]] : tensor<i64>, tensor<i64> -> tensor<i1>
// NEWTON: relax.if
// NEWTON: relax.scan length = 7 reverse {{.*}} xs(%[[FWD]]#3, %[[FWD]]#4, %[[FWD]]#5 :
// NEWTON: relax.scan length = 8 consts{{.*}} -> (tensor<i1>, tensor<i64>, tensor<f32>, tensor<8xi1>, tensor<8xi64>, tensor<8xf32>)
// NEWTON: relax.scan length = 8 reverse
// NEWTON-NOT: relax.while
// NEWTON: return
func.func @newton(%a: tensor<f32>) -> tensor<f32> {
  %r = relax.while max_iterations = 50 consts(%a : tensor<f32>) init(%a : tensor<f32>) -> (tensor<f32>) cond {
  ^bb0(%ac: tensor<f32>, %x: tensor<f32>):
    %sq = relax.multiply %x, %x : tensor<f32>, tensor<f32> -> tensor<f32>
    %d = relax.subtract %sq, %ac : tensor<f32>, tensor<f32> -> tensor<f32>
    %e = relax.abs %d : tensor<f32>
    %tol = arith.constant dense<1.0e-6> : tensor<f32>
    %p = relax.greater %e, %tol : tensor<f32>, tensor<f32> -> tensor<i1>
    relax.condition %p : tensor<i1>
  } do {
  ^bb0(%ac: tensor<f32>, %x: tensor<f32>):
    %q = relax.divide %ac, %x : tensor<f32>, tensor<f32> -> tensor<f32>
    %s = relax.add %x, %q : tensor<f32>, tensor<f32> -> tensor<f32>
    %half = arith.constant dense<0.5> : tensor<f32>
    %h = relax.multiply %s, %half : tensor<f32>, tensor<f32> -> tensor<f32>
    relax.yield %h : tensor<f32>
  }
  return %r : tensor<f32>
}

// BRANCH-LABEL: func.func @branch_adjoint
// BRANCH: %[[G:.*]] = relax.if %arg0 : tensor<i1> (%arg1, %{{.*}} : tensor<3xf32>, tensor<3xf32>) -> (tensor<3xf32>) {
// BRANCH: relax.exp
// BRANCH: relax.multiply
// BRANCH: } else {
// BRANCH-NEXT: ^bb0(%{{.*}}: tensor<3xf32>, %[[S:.*]]: tensor<3xf32>):
// BRANCH-NEXT: relax.yield %[[S]] : tensor<3xf32>
func.func @branch(%p: tensor<i1>, %x: tensor<3xf32>) -> tensor<f32> {
  %a = relax.if %p : tensor<i1> (%x : tensor<3xf32>) -> (tensor<3xf32>) {
  ^bb0(%v: tensor<3xf32>):
    %e = relax.exp %v : tensor<3xf32>
    relax.yield %e : tensor<3xf32>
  } else {
  ^bb0(%v: tensor<3xf32>):
    relax.yield %v : tensor<3xf32>
  }
  %s = relax.sum %a : tensor<3xf32> -> tensor<f32>
  return %s : tensor<f32>
}

// In vjp mode the stacked carries are residuals of @rnn_fwd.
// VJP-LABEL: func.func @rnn_fwd
// VJP: relax.scan length = 5 {{.*}} -> (tensor<3xf32>, tensor<5x3xf32>, tensor<5x3xf32>)
// VJP-LABEL: func.func @rnn_bwd
// VJP: relax.scan length = 5 reverse

// The adjoint's loops differentiate again (grad of grad).
// SECOND-LABEL: func.func @rnn_adjoint_adjoint
// SECOND: relax.scan length = 5 reverse
