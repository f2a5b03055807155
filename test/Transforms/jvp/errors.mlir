// RUN: relax-opt %s -split-input-file -verify-diagnostics --jvp="func=main"
// RUN: not relax-opt %s -split-input-file --jvp="func=main wrt=5" 2>&1 | FileCheck %s --check-prefix=RANGE
// RUN: not relax-opt %s -split-input-file --jvp="func=main wrt=0,0" 2>&1 | FileCheck %s --check-prefix=TWICE
// RUN: not relax-opt %s -split-input-file --jvp="func=main,main" 2>&1 | FileCheck %s --check-prefix=LISTED
// RUN: not relax-opt %s -split-input-file --jvp="func=nothere" 2>&1 | FileCheck %s --check-prefix=MISSING

// RANGE: error: wrt index 5 is out of range: '@main' has
// TWICE: error: wrt lists parameter 0 twice
// LISTED: error: jvp: function '@main' is listed twice
// MISSING: error: jvp: no function named '@nothere' in the module

// Every op without a tangent rule is reported, not only the first; an op
// that does not depend on the parameters needs none.
func.func @main(%x: tensor<3xf32>, %c: tensor<3xf32>) -> tensor<f32> {
  %r = relax.dataflow -> (tensor<f32>) {
    %k = arith.constant dense<2.0> : tensor<3xf32>
    %off = arith.mulf %k, %k : tensor<3xf32>
    // expected-error @+1 {{'arith.mulf' depends on a differentiated parameter but has no tangent rule}}
    %0 = arith.mulf %x, %off : tensor<3xf32>
    %1 = relax.exp %0 : tensor<3xf32>
    // expected-error @+1 {{'arith.addf' depends on a differentiated parameter but has no tangent rule}}
    %2 = arith.addf %1, %c : tensor<3xf32>
    %3 = relax.sum %2 : tensor<3xf32> -> tensor<f32>
    relax.output %3 : tensor<f32>
  }
  return %r : tensor<f32>
}

// -----

// An integer parameter has no tangent (wrt would name it: see wrt-int below);
// by default only float parameters get one.
func.func @main(%x: tensor<3xf32>, %i: tensor<3xi32>) -> tensor<f32> {
  %r = relax.dataflow -> (tensor<f32>) {
    %0 = relax.sum %x : tensor<3xf32> -> tensor<f32>
    relax.output %0 : tensor<f32>
  }
  return %r : tensor<f32>
}
func.func private @main_jvp(tensor<3xf32>, tensor<3xi32>, tensor<3xf32>) -> tuple<tensor<f32>, tensor<f32>>

// -----

// A call to a function without a body on the path.
func.func private @external(tensor<3xf32>) -> tensor<3xf32>
func.func @main(%x: tensor<3xf32>) -> tensor<3xf32> {
  %r = relax.dataflow -> (tensor<3xf32>) {
    // expected-error @+1 {{call depending on a differentiated parameter: the callee has no body to inline and differentiate}}
    %0 = func.call @external(%x) : (tensor<3xf32>) -> tensor<3xf32>
    relax.output %0 : tensor<3xf32>
  }
  return %r : tensor<3xf32>
}

// -----

// An op reading a parameter inside its regions.
func.func @main(%x: tensor<3xf32>) -> tensor<3xf32> {
  %r = relax.dataflow -> (tensor<3xf32>) {
    // expected-error @+1 {{'scf.execute_region' depends on a differentiated parameter through values its regions read; the jvp pass does not differentiate through regions}}
    %e = scf.execute_region -> tensor<3xf32> {
      %0 = relax.exp %x : tensor<3xf32>
      scf.yield %0 : tensor<3xf32>
    }
    relax.output %e : tensor<3xf32>
  }
  return %r : tensor<3xf32>
}

// -----

// expected-error @+1 {{cannot differentiate '@main': it returns nothing}}
func.func @main(%x: tensor<3xf32>) {
  return
}

// -----

// expected-error @+1 {{cannot create '@main_jvp': the module already has a symbol of that name}}
func.func @main_jvp(%x: tensor<3xf32>) -> tensor<3xf32> {
  return %x : tensor<3xf32>
}
func.func @main(%x: tensor<3xf32>) -> tensor<3xf32> {
  return %x : tensor<3xf32>
}

// -----

// expected-error @+1 {{declaration of '@main_jvp' has type '(tensor<3xf32>) -> tensor<3xf32>' but the JVP function has type '(tensor<3xf32>, tensor<3xf32>) -> tuple<tensor<3xf32>, tensor<3xf32>>'}}
func.func private @main_jvp(tensor<3xf32>) -> tensor<3xf32>
func.func @main(%x: tensor<3xf32>) -> tensor<3xf32> {
  return %x : tensor<3xf32>
}

// -----

// expected-error @+1 {{cannot differentiate '@main': it has no body}}
func.func private @main(tensor<3xf32>) -> tensor<3xf32>
