// RUN: relax-opt %s -split-input-file -verify-diagnostics --gradient="func=main"

// Failures of the gradient pass on functions with checkpoint markers: the
// markers change nothing about what is rejected or where it is reported.
// Success cases are in checkpoint.mlir.

// A start marker outside the dataflow block is a binding outside it.
func.func @main(%x: tensor<3xf32>) -> tensor<f32> {
  // expected-error @+1 {{binding outside the relax.dataflow block of '@main': the gradient pass needs every binding in one dataflow block}}
  %s = relax.start_checkpoint %x : tensor<3xf32>
  %r = relax.dataflow -> (tensor<f32>) {
    %a = relax.tanh %s : tensor<3xf32>
    %e = relax.end_checkpoint %a : tensor<3xf32>
    %l = relax.sum %e : tensor<3xf32> -> tensor<f32>
    relax.output %l : tensor<f32>
  }
  return %r : tensor<f32>
}

// -----

// An end marker after the dataflow block, and a binding before it: both are
// reported.
func.func @main(%x: tensor<3xf32>) -> tensor<f32> {
  // expected-error @+1 {{binding outside the relax.dataflow block of '@main'}}
  %n = relax.negative %x : tensor<3xf32>
  %r = relax.dataflow -> (tensor<3xf32>) {
    %s = relax.start_checkpoint %n : tensor<3xf32>
    %a = relax.tanh %s : tensor<3xf32>
    relax.output %a : tensor<3xf32>
  }
  // expected-error @+1 {{binding outside the relax.dataflow block of '@main'}}
  %e = relax.end_checkpoint %r : tensor<3xf32>
  // expected-error @+1 {{binding outside the relax.dataflow block of '@main'}}
  %l = relax.sum %e : tensor<3xf32> -> tensor<f32>
  return %l : tensor<f32>
}

// -----

// A call inside a segment, on the path to the target.
func.func private @f(tensor<3xf32>) -> tensor<3xf32>

func.func @main(%x: tensor<3xf32>) -> tensor<f32> {
  %r = relax.dataflow -> (tensor<f32>) {
    %s = relax.start_checkpoint %x : tensor<3xf32>
    %a = relax.tanh %s : tensor<3xf32>
    // expected-error @+1 {{call on the path to the target: the callee has no body to inline and differentiate}}
    %b = func.call @f(%a) : (tensor<3xf32>) -> tensor<3xf32>
    %e = relax.end_checkpoint %b : tensor<3xf32>
    %l = relax.sum %e : tensor<3xf32> -> tensor<f32>
    relax.output %l : tensor<f32>
  }
  return %r : tensor<f32>
}

// -----

// An op without a gradient rule inside a segment is reported once, at the
// original binding: the recomputed clone gets no diagnostic of its own.
func.func @main(%x: tensor<3xf32>) -> tensor<f32> {
  %r = relax.dataflow -> (tensor<f32>) {
    %s = relax.start_checkpoint %x : tensor<3xf32>
    %a = relax.tanh %s : tensor<3xf32>
    // expected-error @+1 {{'arith.mulf' is on the path to the target but has no gradient rule}}
    %b = arith.mulf %a, %a : tensor<3xf32>
    %c = relax.exp %b : tensor<3xf32>
    %e = relax.end_checkpoint %c : tensor<3xf32>
    %l = relax.sum %e : tensor<3xf32> -> tensor<f32>
    relax.output %l : tensor<f32>
  }
  return %r : tensor<f32>
}

// -----

// Ops without rules in two sequential segments: both reported.
func.func @main(%x: tensor<3xf32>) -> tensor<f32> {
  %r = relax.dataflow -> (tensor<f32>) {
    %s = relax.start_checkpoint %x : tensor<3xf32>
    // expected-error @+1 {{'arith.addf' is on the path to the target but has no gradient rule}}
    %a = arith.addf %s, %s : tensor<3xf32>
    %e = relax.end_checkpoint %a : tensor<3xf32>
    %s2 = relax.start_checkpoint %e : tensor<3xf32>
    %b = relax.tanh %s2 : tensor<3xf32>
    // expected-error @+1 {{'arith.mulf' is on the path to the target but has no gradient rule}}
    %c = arith.mulf %b, %b : tensor<3xf32>
    %e2 = relax.end_checkpoint %c : tensor<3xf32>
    %m = relax.add %e, %e2 : tensor<3xf32>, tensor<3xf32> -> tensor<3xf32>
    %l = relax.sum %m : tensor<3xf32> -> tensor<f32>
    relax.output %l : tensor<f32>
  }
  return %r : tensor<f32>
}

// -----

// Markers in a second dataflow block do not make it differentiable.
func.func @main(%x: tensor<3xf32>) -> tensor<f32> {
  %r = relax.dataflow -> (tensor<3xf32>) {
    %s = relax.start_checkpoint %x : tensor<3xf32>
    %a = relax.tanh %s : tensor<3xf32>
    %e = relax.end_checkpoint %a : tensor<3xf32>
    relax.output %e : tensor<3xf32>
  }
  // expected-error @+1 {{a second relax.dataflow block in '@main': the gradient pass differentiates exactly one dataflow block}}
  %r2 = relax.dataflow -> (tensor<f32>) {
    %l = relax.sum %r : tensor<3xf32> -> tensor<f32>
    relax.output %l : tensor<f32>
  }
  return %r2 : tensor<f32>
}

// -----

// A marker on the target: the target type is still checked.
// expected-error @+1 {{the target must be a 0-d float tensor (a scalar loss), got 'tensor<3xf32>'}}
func.func @main(%x: tensor<3xf32>) -> tensor<3xf32> {
  %r = relax.dataflow -> (tensor<3xf32>) {
    %s = relax.start_checkpoint %x : tensor<3xf32>
    %a = relax.tanh %s : tensor<3xf32>
    %e = relax.end_checkpoint %a : tensor<3xf32>
    relax.output %e : tensor<3xf32>
  }
  return %r : tensor<3xf32>
}
