// RUN: relax-opt %s -split-input-file -verify-diagnostics --gradient="func=main"

// Found by tools/fuzz/relax_fuzz.py. The target check ("the target must be a
// 0-d float tensor") accepted any float element type, and the pass seeded the
// backward pass with `relax.ones : tensor<f80>`, which does not verify
// ("'relax.ones' op result #0 must be statically shaped tensor of 16-bit float
// ...", reported at the return). A target of an element type relax does not
// support must be rejected like an integer one.

// expected-error @+1 {{the target must be a 0-d float tensor (a scalar loss), got 'tensor<f80>'}}
func.func @main(%p: tensor<f80>) -> tensor<f80> {
  return %p : tensor<f80>
}

// -----

// expected-error @+1 {{the target must be a 0-d float tensor (a scalar loss), got 'tensor<f8E4M3FN>'}}
func.func @main(%p: tensor<f8E4M3FN>, %x: tensor<3xf32>) -> tensor<f8E4M3FN> {
  %r = relax.dataflow -> (tensor<f8E4M3FN>) {
    relax.output %p : tensor<f8E4M3FN>
  }
  return %r : tensor<f8E4M3FN>
}
