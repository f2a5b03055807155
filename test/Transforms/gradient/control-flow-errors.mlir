// Loops on the path to the target that reverse mode cannot differentiate: a
// while without max_iterations (its memory would be unbounded), and an op of
// a body without a rule (reported at the op inside the body). The module is
// left unchanged.
// RUN: relax-opt %s -split-input-file -verify-diagnostics --relax-convert-to-dataflow --gradient
// RUN: relax-opt %s -split-input-file -verify-diagnostics --relax-convert-to-dataflow --gradient 2>/dev/null | FileCheck %s

func.func @main(%x: tensor<f32>) -> tensor<f32> {
  // expected-error @+1 {{'relax.while' is on the path to the target but has no max_iterations: reverse mode needs a bound on the iterations to bound what it stores (Python: while_loop(..., max_iterations=n), or fori_loop when the trip count is known)}}
  %r = relax.while init(%x : tensor<f32>) -> (tensor<f32>) cond {
  ^bb0(%v: tensor<f32>):
    %one = arith.constant dense<1.0> : tensor<f32>
    %p = relax.less %v, %one : tensor<f32>, tensor<f32> -> tensor<i1>
    relax.condition %p : tensor<i1>
  } do {
  ^bb0(%v: tensor<f32>):
    %e = relax.exp %v : tensor<f32>
    relax.yield %e : tensor<f32>
  }
  return %r : tensor<f32>
}

// -----

func.func @main(%x: tensor<3xf32>) -> tensor<f32> {
  %r = relax.scan length = 2 init(%x : tensor<3xf32>) -> (tensor<3xf32>) {
  ^bb0(%v: tensor<3xf32>):
    // expected-error @+1 {{'arith.negf' is on the path to the target but has no gradient rule}}
    %f = arith.negf %v : tensor<3xf32>
    relax.yield %f : tensor<3xf32>
  }
  %s = relax.sum %r : tensor<3xf32> -> tensor<f32>
  return %s : tensor<f32>
}

// -----

// A while off the path needs no bound.
// CHECK-LABEL: @main_adjoint
// CHECK: relax.while init
func.func @main(%x: tensor<f32>, %n: tensor<i32>) -> tensor<f32> {
  %r = relax.while init(%n : tensor<i32>) -> (tensor<i32>) cond {
  ^bb0(%v: tensor<i32>):
    %z = arith.constant dense<0> : tensor<i32>
    %p = relax.greater %v, %z : tensor<i32>, tensor<i32> -> tensor<i1>
    relax.condition %p : tensor<i1>
  } do {
  ^bb0(%v: tensor<i32>):
    %one = arith.constant dense<1> : tensor<i32>
    %d = relax.subtract %v, %one : tensor<i32>, tensor<i32> -> tensor<i32>
    relax.yield %d : tensor<i32>
  }
  %f = relax.astype %r : tensor<i32> -> tensor<f32>
  %y = relax.multiply %x, %f : tensor<f32>, tensor<f32> -> tensor<f32>
  return %y : tensor<f32>
}
