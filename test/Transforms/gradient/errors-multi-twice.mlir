// RUN: relax-opt %s -split-input-file -verify-diagnostics --gradient="func=a,a"

// A function listed twice in one run is an error (its adjoint would be
// created twice).

// The module-level diagnostic is at the module's location, so this split uses
// an explicit module.
// expected-error @+1 {{gradient: function '@a' is listed twice}}
module {
  func.func @a(%x: tensor<3xf32>) -> tensor<f32> {
    %r = relax.dataflow -> (tensor<f32>) {
      %0 = relax.sum %x : tensor<3xf32> -> tensor<f32>
      relax.output %0 : tensor<f32>
    }
    return %r : tensor<f32>
  }
}
