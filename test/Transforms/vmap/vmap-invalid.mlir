// vmap's diagnostics: every op without a batching rule at once, bad options;
// the module is left as it was.
// RUN: relax-opt %s --split-input-file --verify-diagnostics --vmap="func=main batch-size=4 batched=0"

// Every op without a rule is reported, also inside the bodies of ops that
// have one (a scan's, a batched branch's: inlined, then dropped).
// expected-error @+1 {{vmap: '@main' has ops without a batching rule (each reported above)}}
func.func @main(%x: tensor<3xf32>) -> tensor<3xf32> {
  %r = relax.dataflow -> (tensor<3xf32>) {
    // expected-error @+1 {{'relax.while' op has no batching rule (vmap)}}
    %w = relax.while max_iterations = 4 init(%x : tensor<3xf32>) -> (tensor<3xf32>) cond {
    ^bb0(%v: tensor<3xf32>):
      %p = relax.sum %v : tensor<3xf32> -> tensor<f32>
      %z = arith.constant dense<9.0> : tensor<f32>
      %c = relax.less %p, %z : tensor<f32>, tensor<f32> -> tensor<i1>
      relax.condition %c : tensor<i1>
    } do {
    ^bb0(%v: tensor<3xf32>):
      %d = relax.add %v, %v : tensor<3xf32>, tensor<3xf32> -> tensor<3xf32>
      relax.yield %d : tensor<3xf32>
    }
    %xs = relax.broadcast_to %x : tensor<3xf32> -> tensor<2x3xf32>
    %s = relax.scan length = 2 init(%x : tensor<3xf32>) xs(%xs : tensor<2x3xf32>) -> (tensor<3xf32>) {
    ^bb0(%carry: tensor<3xf32>, %e: tensor<3xf32>):
      // expected-error @+1 {{'relax.while' op has no batching rule (vmap)}}
      %inner = relax.while init(%e : tensor<3xf32>) -> (tensor<3xf32>) cond {
      ^bb0(%v: tensor<3xf32>):
        %p = relax.sum %v : tensor<3xf32> -> tensor<f32>
        %z = arith.constant dense<9.0> : tensor<f32>
        %c = relax.less %p, %z : tensor<f32>, tensor<f32> -> tensor<i1>
        relax.condition %c : tensor<i1>
      } do {
      ^bb0(%v: tensor<3xf32>):
        %d = relax.add %v, %v : tensor<3xf32>, tensor<3xf32> -> tensor<3xf32>
        relax.yield %d : tensor<3xf32>
      }
      %m = relax.add %carry, %inner : tensor<3xf32>, tensor<3xf32> -> tensor<3xf32>
      relax.yield %m : tensor<3xf32>
    }
    %sum = relax.sum %x : tensor<3xf32> -> tensor<f32>
    %zero = arith.constant dense<0.0> : tensor<f32>
    %pos = relax.greater %sum, %zero : tensor<f32>, tensor<f32> -> tensor<i1>
    %y = relax.if %pos : tensor<i1> (%x : tensor<3xf32>) -> (tensor<3xf32>) {
    ^bb0(%a: tensor<3xf32>):
      // expected-error @+1 {{'relax.while' op has no batching rule (vmap)}}
      %b = relax.while init(%a : tensor<3xf32>) -> (tensor<3xf32>) cond {
      ^bb0(%v: tensor<3xf32>):
        %p = relax.sum %v : tensor<3xf32> -> tensor<f32>
        %z = arith.constant dense<9.0> : tensor<f32>
        %c = relax.less %p, %z : tensor<f32>, tensor<f32> -> tensor<i1>
        relax.condition %c : tensor<i1>
      } do {
      ^bb0(%v: tensor<3xf32>):
        %d = relax.add %v, %v : tensor<3xf32>, tensor<3xf32> -> tensor<3xf32>
        relax.yield %d : tensor<3xf32>
      }
      relax.yield %b : tensor<3xf32>
    } else {
    ^bb0(%a: tensor<3xf32>):
      relax.yield %a : tensor<3xf32>
    }
    %yw = relax.add %y, %w : tensor<3xf32>, tensor<3xf32> -> tensor<3xf32>
    %out = relax.add %yw, %s : tensor<3xf32>, tensor<3xf32> -> tensor<3xf32>
    relax.output %out : tensor<3xf32>
  }
  return %r : tensor<3xf32>
}

// -----

// expected-error @+1 {{vmap: parameter 0 of '@main' is not a tensor or a tuple}}
func.func @main(%n: index) -> index {
  return %n : index
}
