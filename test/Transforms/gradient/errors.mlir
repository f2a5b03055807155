// RUN: relax-opt %s -split-input-file -verify-diagnostics --gradient="func=main"

// Errors of the gradient pass with its default options (target-index=0, every
// float parameter). Options-specific errors are in errors-*.mlir.

// The module-level diagnostic is at the module's location, so this split uses
// an explicit module.
// expected-error @+1 {{gradient: no function named '@main' in the module}}
module {
  func.func @other(%x: tensor<f32>) -> tensor<f32> {
    return %x : tensor<f32>
  }
}

// -----

// expected-error @+1 {{cannot differentiate '@main': it has no body}}
func.func private @main(tensor<3xf32>) -> tensor<f32>

// -----

// expected-error @+1 {{cannot differentiate '@main': it must return exactly one value, not 2}}
func.func @main(%x: tensor<3xf32>) -> (tensor<f32>, tensor<f32>) {
  %r = relax.dataflow -> (tensor<f32>) {
    %0 = relax.sum %x : tensor<3xf32> -> tensor<f32>
    relax.output %0 : tensor<f32>
  }
  return %r, %r : tensor<f32>, tensor<f32>
}

// -----

// expected-error @+1 {{cannot differentiate '@main': it must return exactly one value, not 0}}
func.func @main(%x: tensor<3xf32>) {
  relax.dataflow {
    relax.output
  }
  return
}

// -----

// expected-error @+1 {{the target must be a 0-d float tensor (a scalar loss), got 'tensor<3xf32>'}}
func.func @main(%x: tensor<3xf32>) -> tensor<3xf32> {
  %r = relax.dataflow -> (tensor<3xf32>) {
    %0 = relax.exp %x : tensor<3xf32>
    relax.output %0 : tensor<3xf32>
  }
  return %r : tensor<3xf32>
}

// -----

// expected-error @+1 {{the target must be a 0-d float tensor (a scalar loss), got 'tensor<i32>'}}
func.func @main(%x: tensor<3xi32>) -> tensor<i32> {
  %r = relax.dataflow -> (tensor<i32>) {
    %0 = relax.sum %x : tensor<3xi32> -> tensor<i32>
    relax.output %0 : tensor<i32>
  }
  return %r : tensor<i32>
}

// -----

// A tuple result: the target is field 0, here not a scalar.
// expected-error @+1 {{the target must be a 0-d float tensor (a scalar loss), got 'tensor<3xf32>'}}
func.func @main(%x: tensor<3xf32>) -> tuple<tensor<3xf32>, tensor<f32>> {
  %r:2 = relax.dataflow -> (tensor<3xf32>, tensor<f32>) {
    %0 = relax.sum %x : tensor<3xf32> -> tensor<f32>
    relax.output %x, %0 : tensor<3xf32>, tensor<f32>
  }
  %t = relax.tuple(%r#0, %r#1 : tensor<3xf32>, tensor<f32>)
  return %t : tuple<tensor<3xf32>, tensor<f32>>
}

// -----

// An upstream op on tensors has no gradient rule.
func.func @main(%x: tensor<3xf32>) -> tensor<f32> {
  %r = relax.dataflow -> (tensor<f32>) {
    // expected-error @+1 {{'arith.addf' is on the path to the target but has no gradient rule}}
    %0 = arith.addf %x, %x : tensor<3xf32>
    %1 = relax.sum %0 : tensor<3xf32> -> tensor<f32>
    relax.output %1 : tensor<f32>
  }
  return %r : tensor<f32>
}

// -----

func.func private @f(tensor<3xf32>) -> tensor<3xf32>

func.func @main(%x: tensor<3xf32>) -> tensor<f32> {
  %r = relax.dataflow -> (tensor<f32>) {
    // expected-error @+1 {{call on the path to the target: the callee has no body to inline and differentiate}}
    %0 = func.call @f(%x) : (tensor<3xf32>) -> tensor<3xf32>
    %1 = relax.sum %0 : tensor<3xf32> -> tensor<f32>
    relax.output %1 : tensor<f32>
  }
  return %r : tensor<f32>
}

// -----

// The adjoint's name is taken by a function with a body.
// expected-error @+1 {{cannot create '@main_adjoint': the module already has a symbol of that name}}
func.func @main_adjoint(%x: tensor<3xf32>) -> tensor<f32> {
  %r = relax.dataflow -> (tensor<f32>) {
    %0 = relax.sum %x : tensor<3xf32> -> tensor<f32>
    relax.output %0 : tensor<f32>
  }
  return %r : tensor<f32>
}

func.func @main(%x: tensor<3xf32>) -> tensor<f32> {
  %r = relax.dataflow -> (tensor<f32>) {
    %0 = relax.sum %x : tensor<3xf32> -> tensor<f32>
    relax.output %0 : tensor<f32>
  }
  return %r : tensor<f32>
}

// -----

// The adjoint's name is taken by a symbol that is not a function.
// expected-error @+1 {{cannot create '@main_adjoint': the module already has a symbol of that name}}
memref.global "private" @main_adjoint : memref<2xf32>

func.func @main(%x: tensor<3xf32>) -> tensor<f32> {
  %r = relax.dataflow -> (tensor<f32>) {
    %0 = relax.sum %x : tensor<3xf32> -> tensor<f32>
    relax.output %0 : tensor<f32>
  }
  return %r : tensor<f32>
}

// -----

// A declaration of the adjoint must have the adjoint's type.
// expected-error @+1 {{declaration of '@main_adjoint' has type '(tensor<3xf32>) -> tensor<f32>' but the adjoint has type '(tensor<3xf32>) -> tuple<tensor<f32>, tuple<tensor<3xf32>>>'}}
func.func private @main_adjoint(tensor<3xf32>) -> tensor<f32>

func.func @main(%x: tensor<3xf32>) -> tensor<f32> {
  %r = relax.dataflow -> (tensor<f32>) {
    %0 = relax.sum %x : tensor<3xf32> -> tensor<f32>
    relax.output %0 : tensor<f32>
  }
  return %r : tensor<f32>
}
