// vmap's diagnostics: every op without a batching rule at once, bad options;
// the module is left as it was.
// RUN: relax-opt %s --split-input-file --verify-diagnostics --vmap="func=main batch-size=4 batched=0"

// expected-error @+1 {{vmap: '@main' has ops without a batching rule (each reported above)}}
func.func @main(%x: tensor<3xf32>) -> tensor<3xf32> {
  %r = relax.dataflow -> (tensor<3xf32>) {
    %c = arith.constant dense<true> : tensor<i1>
    // expected-error @+1 {{'relax.if' op has no batching rule (vmap)}}
    %y = relax.if %c : tensor<i1> (%x : tensor<3xf32>) -> (tensor<3xf32>) {
    ^bb0(%a: tensor<3xf32>):
      relax.yield %a : tensor<3xf32>
    } else {
    ^bb0(%a: tensor<3xf32>):
      relax.yield %a : tensor<3xf32>
    }
    %xs = relax.broadcast_to %y : tensor<3xf32> -> tensor<2x3xf32>
    // expected-error @+1 {{'relax.scan' op has no batching rule (vmap)}}
    %s = relax.scan length = 2 init(%y : tensor<3xf32>) xs(%xs : tensor<2x3xf32>) -> (tensor<3xf32>) {
    ^bb0(%carry: tensor<3xf32>, %e: tensor<3xf32>):
      %m = relax.add %carry, %e : tensor<3xf32>, tensor<3xf32> -> tensor<3xf32>
      relax.yield %m : tensor<3xf32>
    }
    relax.output %s : tensor<3xf32>
  }
  return %r : tensor<3xf32>
}

// -----

// expected-error @+1 {{vmap: parameter 0 of '@main' is not a tensor or a tuple}}
func.func @main(%n: index) -> index {
  return %n : index
}
