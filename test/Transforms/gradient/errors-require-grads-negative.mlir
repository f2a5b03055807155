// RUN: relax-opt %s -verify-diagnostics --gradient="func=main require-grads=-1"

// A negative parameter index is out of range.

// expected-error @+1 {{require-grads index -1 is out of range: '@main' has 1 parameters}}
func.func @main(%x: tensor<3xf32>) -> tensor<f32> {
  %r = relax.dataflow -> (tensor<f32>) {
    %0 = relax.sum %x : tensor<3xf32> -> tensor<f32>
    relax.output %0 : tensor<f32>
  }
  return %r : tensor<f32>
}
