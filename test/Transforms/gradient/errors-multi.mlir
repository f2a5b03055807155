// RUN: relax-opt %s -split-input-file -verify-diagnostics --gradient="func=a,b"

// Errors of a run differentiating several functions: the first function is
// fine, the second one fails; the diagnostic is the second function's own.
// (errors-no-partial.mlir checks that @a_adjoint is then removed again.)

func.func @a(%x: tensor<3xf32>) -> tensor<f32> {
  %r = relax.dataflow -> (tensor<f32>) {
    %0 = relax.sum %x : tensor<3xf32> -> tensor<f32>
    relax.output %0 : tensor<f32>
  }
  return %r : tensor<f32>
}

func.func @b(%x: tensor<3xf32>) -> tensor<f32> {
  %r = relax.dataflow -> (tensor<f32>) {
    // expected-error @+1 {{'arith.mulf' is on the path to the target but has no gradient rule}}
    %0 = arith.mulf %x, %x : tensor<3xf32>
    %1 = relax.sum %0 : tensor<3xf32> -> tensor<f32>
    relax.output %1 : tensor<f32>
  }
  return %r : tensor<f32>
}

// -----

// The module-level diagnostic is at the module's location, so this split uses
// an explicit module.
// expected-error @+1 {{gradient: no function named '@b' in the module}}
module {
  func.func @a(%x: tensor<3xf32>) -> tensor<f32> {
    %r = relax.dataflow -> (tensor<f32>) {
      %0 = relax.sum %x : tensor<3xf32> -> tensor<f32>
      relax.output %0 : tensor<f32>
    }
    return %r : tensor<f32>
  }
}

// -----

func.func @a(%x: tensor<3xf32>) -> tensor<f32> {
  %r = relax.dataflow -> (tensor<f32>) {
    %0 = relax.sum %x : tensor<3xf32> -> tensor<f32>
    relax.output %0 : tensor<f32>
  }
  return %r : tensor<f32>
}

// expected-error @+1 {{cannot differentiate '@b': it has no body}}
func.func private @b(tensor<3xf32>) -> tensor<f32>

// -----

// A symbol already named like the second adjoint.
func.func @a(%x: tensor<3xf32>) -> tensor<f32> {
  %r = relax.dataflow -> (tensor<f32>) {
    %0 = relax.sum %x : tensor<3xf32> -> tensor<f32>
    relax.output %0 : tensor<f32>
  }
  return %r : tensor<f32>
}

func.func @b(%x: tensor<3xf32>) -> tensor<f32> {
  %r = relax.dataflow -> (tensor<f32>) {
    %0 = relax.sum %x : tensor<3xf32> -> tensor<f32>
    relax.output %0 : tensor<f32>
  }
  return %r : tensor<f32>
}

// expected-error @+1 {{cannot create '@b_adjoint': the module already has a symbol of that name}}
func.func @b_adjoint(%x: tensor<3xf32>) -> tensor<3xf32> {
  return %x : tensor<3xf32>
}
