// RUN: relax-opt %s -split-input-file -verify-diagnostics --gradient="func=main"

// Errors about the shape of the function body. They name the function being
// differentiated, '@main' (the trailing ':' keeps '@main_adjoint' from matching).
// A body without bindings (returning a parameter or a constant) is no error:
// no-bindings.mlir.

func.func @main(%x: tensor<3xf32>) -> tensor<f32> {
  // expected-error @+1 {{binding outside the relax.dataflow block of '@main': the gradient pass needs every binding in one dataflow block}}
  %e = relax.exp %x : tensor<3xf32>
  %r = relax.dataflow -> (tensor<f32>) {
    %1 = relax.sum %e : tensor<3xf32> -> tensor<f32>
    relax.output %1 : tensor<f32>
  }
  return %r : tensor<f32>
}

// -----

// A binding after the dataflow block.
func.func @main(%x: tensor<3xf32>) -> tensor<f32> {
  %r = relax.dataflow -> (tensor<f32>) {
    %1 = relax.sum %x : tensor<3xf32> -> tensor<f32>
    relax.output %1 : tensor<f32>
  }
  // expected-error @+1 {{binding outside the relax.dataflow block of '@main': the gradient pass needs every binding in one dataflow block}}
  %n = relax.negative %r : tensor<f32>
  return %n : tensor<f32>
}

// -----

func.func @main(%x: tensor<3xf32>) -> tensor<f32> {
  %r = relax.dataflow -> (tensor<f32>) {
    %1 = relax.sum %x : tensor<3xf32> -> tensor<f32>
    relax.output %1 : tensor<f32>
  }
  // expected-error @+1 {{a second relax.dataflow block in '@main': the gradient pass differentiates exactly one dataflow block}}
  %r2 = relax.dataflow -> (tensor<f32>) {
    %1 = relax.sum %x : tensor<3xf32> -> tensor<f32>
    relax.output %1 : tensor<f32>
  }
  return %r2 : tensor<f32>
}

// -----

// expected-error @+1 {{cannot differentiate '@main': its body has more than one block}}
func.func @main(%x: tensor<3xf32>) -> tensor<f32> {
  cf.br ^bb1
^bb1:
  %r = relax.dataflow -> (tensor<f32>) {
    %1 = relax.sum %x : tensor<3xf32> -> tensor<f32>
    relax.output %1 : tensor<f32>
  }
  return %r : tensor<f32>
}

// -----

// A body without any dataflow block is one error naming the pass that gathers it.
// expected-error @+1 {{cannot differentiate '@main': its bindings are not in a relax.dataflow block; gather them into one with the relax-convert-to-dataflow pass first}}
func.func @main(%x: tensor<3xf32>) -> tensor<f32> {
  %e = relax.exp %x : tensor<3xf32>
  %s = relax.sum %e : tensor<3xf32> -> tensor<f32>
  return %s : tensor<f32>
}
