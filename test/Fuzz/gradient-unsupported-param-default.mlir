// RUN: relax-opt %s -split-input-file -verify-diagnostics --gradient="func=main"

// Found by tools/fuzz/relax_fuzz.py. With require-grads omitted every float
// parameter is differentiated. A float parameter that no relax op can take (a
// dynamic shape, an element type other than f16/bf16/f32/f64) got a
// `relax.zeros` of its own type as gradient, which does not verify:
//   error: 'relax.zeros' op result #0 must be statically shaped tensor of
//   16-bit float ... but got 'tensor<?xf32>'     (reported at the return)
// and crashed a later pass under --verify-each=false. The pass must say which
// parameter it cannot differentiate instead (the same words as the
// require-grads error, "parameter N has type '...'").

// expected-error @+1 {{parameter 0 has type 'tensor<?xf32>'}}
func.func @main(%p: tensor<?xf32>, %x: tensor<3xf32>) -> tensor<f32> {
  %r = relax.dataflow -> (tensor<f32>) {
    %l = relax.sum %x : tensor<3xf32> -> tensor<f32>
    relax.output %l : tensor<f32>
  }
  return %r : tensor<f32>
}

// -----

// Inside a tuple parameter (the fuzzer's original find).
// expected-error @+1 {{parameter 0 has type 'tuple<tensor<3x?xf32>, tensor<1xf32>>'}}
func.func @main(%p: tuple<tensor<3x?xf32>, tensor<1xf32>>, %x: tensor<3x3x4xf32>) -> tensor<f32> {
  %r = relax.dataflow -> (tensor<f32>) {
    %l = relax.mean %x : tensor<3x3x4xf32> -> tensor<f32>
    relax.output %l : tensor<f32>
  }
  return %r : tensor<f32>
}

// -----

// expected-error @+1 {{parameter 1 has type 'tensor<2xtf32>'}}
func.func @main(%x: tensor<3xf32>, %p: tensor<2xtf32>) -> tensor<f32> {
  %r = relax.dataflow -> (tensor<f32>) {
    %l = relax.sum %x : tensor<3xf32> -> tensor<f32>
    relax.output %l : tensor<f32>
  }
  return %r : tensor<f32>
}
