// RUN: relax-opt %s -split-input-file -verify-diagnostics --gradient="func=main require-grads=0"

// Found by tools/fuzz/relax_fuzz.py. A parameter that no relax op can take (a
// dynamic shape, a float element type other than f16/bf16/f32/f64) passed the
// require-grads check ("only float tensors ... have gradients"), and the pass
// then built `relax.zeros : tensor<?xf32>` (or `tensor<3xf8E4M3FN>`) for its
// gradient: IR that does not verify ("'relax.zeros' op result #0 must be
// statically shaped tensor of 16-bit float ...", reported at the return), and
// a segfault in a later pass under --verify-each=false. Naming such a parameter
// must be rejected like an integer one.

// expected-error @+1 {{require-grads: parameter 0 has type 'tensor<?xf32>'}}
func.func @main(%p: tensor<?xf32>, %x: tensor<3xf32>) -> tensor<f32> {
  %r = relax.dataflow -> (tensor<f32>) {
    %l = relax.sum %x : tensor<3xf32> -> tensor<f32>
    relax.output %l : tensor<f32>
  }
  return %r : tensor<f32>
}

// -----

// expected-error @+1 {{require-grads: parameter 0 has type 'tensor<3xf8E4M3FN>'}}
func.func @main(%p: tensor<3xf8E4M3FN>, %x: tensor<3xf32>) -> tensor<f32> {
  %r = relax.dataflow -> (tensor<f32>) {
    %l = relax.sum %x : tensor<3xf32> -> tensor<f32>
    relax.output %l : tensor<f32>
  }
  return %r : tensor<f32>
}

// -----

// expected-error @+1 {{require-grads: parameter 0 has type 'tuple<tensor<2xf32>, tensor<2x?xf64>>'}}
func.func @main(%p: tuple<tensor<2xf32>, tensor<2x?xf64>>, %x: tensor<3xf32>) -> tensor<f32> {
  %r = relax.dataflow -> (tensor<f32>) {
    %l = relax.sum %x : tensor<3xf32> -> tensor<f32>
    relax.output %l : tensor<f32>
  }
  return %r : tensor<f32>
}
