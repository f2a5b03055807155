// vmap's diagnostics: every op without a batching rule at once, bad options;
// the module is left as it was.
// RUN: relax-opt %s --split-input-file --verify-diagnostics --vmap="func=main batch-size=4 batched=0"

// Every op without a rule is reported, also inside the bodies of ops that
// have one (a loop's, a batched branch's: inlined, then dropped). (Every
// relax op has a rule: arith.addf on tensors stands for an op without one.)
// expected-error @+1 {{vmap: '@main' has ops without a batching rule (each reported above)}}
func.func @main(%w: tensor<1x1x2x2xf32>, %img: tensor<1x1x3x3xf32>) -> tensor<1x1x2x2xf32> {
  %r = relax.dataflow -> (tensor<1x1x2x2xf32>) {
    // expected-error @+1 {{'arith.addf' op has no batching rule (vmap): keep its operands unbatched (in_axes=None), or map this part with a Python loop}}
    %c = arith.addf %w, %w : tensor<1x1x2x2xf32>
    %imgs = relax.broadcast_to %img : tensor<1x1x3x3xf32> -> tensor<2x1x1x3x3xf32>
    %z = relax.zeros : tensor<1x1x2x2xf32>
    %s = relax.scan length = 2 consts(%w : tensor<1x1x2x2xf32>) init(%z : tensor<1x1x2x2xf32>) xs(%imgs : tensor<2x1x1x3x3xf32>) -> (tensor<1x1x2x2xf32>) {
    ^bb0(%wc: tensor<1x1x2x2xf32>, %carry: tensor<1x1x2x2xf32>, %x: tensor<1x1x3x3xf32>):
      // expected-error @+1 {{'arith.addf' op has no batching rule (vmap)}}
      %d = arith.addf %wc, %wc : tensor<1x1x2x2xf32>
      %m = relax.add %carry, %d : tensor<1x1x2x2xf32>, tensor<1x1x2x2xf32> -> tensor<1x1x2x2xf32>
      relax.yield %m : tensor<1x1x2x2xf32>
    }
    %sum = relax.sum %w : tensor<1x1x2x2xf32> -> tensor<f32>
    %zero = arith.constant dense<0.0> : tensor<f32>
    %pos = relax.greater %sum, %zero : tensor<f32>, tensor<f32> -> tensor<i1>
    %y = relax.if %pos : tensor<i1> (%w, %img : tensor<1x1x2x2xf32>, tensor<1x1x3x3xf32>) -> (tensor<1x1x2x2xf32>) {
    ^bb0(%a: tensor<1x1x2x2xf32>, %b: tensor<1x1x3x3xf32>):
      // expected-error @+1 {{'arith.addf' op has no batching rule (vmap)}}
      %e = arith.addf %a, %a : tensor<1x1x2x2xf32>
      relax.yield %e : tensor<1x1x2x2xf32>
    } else {
    ^bb0(%a: tensor<1x1x2x2xf32>, %b: tensor<1x1x3x3xf32>):
      relax.yield %a : tensor<1x1x2x2xf32>
    }
    %ys = relax.add %y, %s : tensor<1x1x2x2xf32>, tensor<1x1x2x2xf32> -> tensor<1x1x2x2xf32>
    %out = relax.add %ys, %c : tensor<1x1x2x2xf32>, tensor<1x1x2x2xf32> -> tensor<1x1x2x2xf32>
    relax.output %out : tensor<1x1x2x2xf32>
  }
  return %r : tensor<1x1x2x2xf32>
}

// -----

// expected-error @+1 {{vmap: parameter 0 of '@main' is not a tensor or a tuple}}
func.func @main(%n: index) -> index {
  return %n : index
}

// -----

// A call with rules whose callee has no body: nothing to batch; the module
// is left as it was (no batched rule function stays behind).
func.func private @f(%x: tensor<3xf32>) -> tensor<3xf32>
func.func private @f_jvp(%x: tensor<3xf32>, %t: tensor<3xf32>) -> tuple<tensor<3xf32>, tensor<3xf32>>
func.func private @f_vjp(%x: tensor<3xf32>, %g: tensor<3xf32>) -> tuple<tensor<3xf32>>
// expected-error @+1 {{vmap: '@main' has ops without a batching rule (each reported above)}}
func.func @main(%x: tensor<3xf32>) -> tensor<3xf32> {
  %r = relax.dataflow -> (tensor<3xf32>) {
    // expected-error @+1 {{vmap: '@f' has no body to batch}}
    %0 = relax.call_with_rules @f(%x) jvp @f_jvp vjp @f_vjp : (tensor<3xf32>) -> tensor<3xf32>
    relax.output %0 : tensor<3xf32>
  }
  return %r : tensor<3xf32>
}
