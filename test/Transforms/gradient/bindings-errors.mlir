// RUN: relax-opt %s -split-input-file -verify-diagnostics --gradient="func=main"

// Failures of the gradient pass about bindings: aliases, constants and many
// uses do not hide an op without a rule, and bindings outside the dataflow
// block are rejected even when they only re-bind a value. Success cases are in
// bindings.mlir.

// A parameter used many times; one use is by an op without a gradient rule:
// reported once, at that op.
func.func @main(%x: tensor<3xf32>) -> tensor<f32> {
  %r = relax.dataflow -> (tensor<f32>) {
    %a = relax.exp %x : tensor<3xf32>
    %b = relax.multiply %x, %x : tensor<3xf32>, tensor<3xf32> -> tensor<3xf32>
    // expected-error @+1 {{'arith.negf' is on the path to the target but has no gradient rule}}
    %c = arith.negf %x : tensor<3xf32>
    %ab = relax.add %a, %b : tensor<3xf32>, tensor<3xf32> -> tensor<3xf32>
    %abc = relax.add %ab, %c : tensor<3xf32>, tensor<3xf32> -> tensor<3xf32>
    %s = relax.sum %abc : tensor<3xf32> -> tensor<f32>
    relax.output %s : tensor<f32>
  }
  return %r : tensor<f32>
}

// -----

// A constant combined with the parameter by an op without a rule.
func.func @main(%x: tensor<3xf32>) -> tensor<f32> {
  %c = arith.constant dense<2.0> : tensor<3xf32>
  %r = relax.dataflow -> (tensor<f32>) {
    // expected-error @+1 {{'arith.mulf' is on the path to the target but has no gradient rule}}
    %m = arith.mulf %x, %c : tensor<3xf32>
    %s = relax.sum %m : tensor<3xf32> -> tensor<f32>
    relax.output %s : tensor<f32>
  }
  return %r : tensor<f32>
}

// -----

// Re-binding the result after the block with a relax op (not tuple glue) is a
// binding outside the block.
func.func @main(%x: tensor<3xf32>) -> tensor<f32> {
  %r = relax.dataflow -> (tensor<f32>) {
    %s = relax.sum %x : tensor<3xf32> -> tensor<f32>
    relax.output %s : tensor<f32>
  }
  // expected-error @+1 {{binding outside the relax.dataflow block of '@main': the gradient pass needs every binding in one dataflow block}}
  %n = relax.reshape %r : tensor<f32> -> tensor<f32>
  return %n : tensor<f32>
}

// -----

// A value returned through a call outside the block.
func.func private @id(tensor<f32>) -> tensor<f32>

func.func @main(%x: tensor<3xf32>) -> tensor<f32> {
  %r = relax.dataflow -> (tensor<f32>) {
    %s = relax.sum %x : tensor<3xf32> -> tensor<f32>
    relax.output %s : tensor<f32>
  }
  // expected-error @+1 {{binding outside the relax.dataflow block of '@main'}}
  %c = func.call @id(%r) : (tensor<f32>) -> tensor<f32>
  return %c : tensor<f32>
}

// -----

// An integer parameter returned unchanged cannot be the target.
// expected-error @+1 {{the target must be a 0-d float tensor (a scalar loss), got 'tensor<i32>'}}
func.func @main(%k: tensor<i32>, %x: tensor<3xf32>) -> tuple<tensor<i32>, tensor<3xf32>> {
  %r:2 = relax.dataflow -> (tensor<i32>, tensor<3xf32>) {
    relax.output %k, %x : tensor<i32>, tensor<3xf32>
  }
  %t = relax.tuple(%r#0, %r#1 : tensor<i32>, tensor<3xf32>)
  return %t : tuple<tensor<i32>, tensor<3xf32>>
}
