// RUN: relax-opt %s -split-input-file -verify-diagnostics --gradient="func=main require-grads=1,1"

// Errors of the require-grads option (here "1,1").

// expected-error @+1 {{require-grads index 1 is out of range: '@main' has 1 parameters}}
func.func @main(%x: tensor<3xf32>) -> tensor<f32> {
  %r = relax.dataflow -> (tensor<f32>) {
    %0 = relax.sum %x : tensor<3xf32> -> tensor<f32>
    relax.output %0 : tensor<f32>
  }
  return %r : tensor<f32>
}

// -----

// expected-error @+1 {{require-grads lists parameter 1 twice}}
func.func @main(%x: tensor<3xf32>, %y: tensor<3xf32>) -> tensor<f32> {
  %r = relax.dataflow -> (tensor<f32>) {
    %0 = relax.multiply %x, %y : tensor<3xf32>, tensor<3xf32> -> tensor<3xf32>
    %1 = relax.sum %0 : tensor<3xf32> -> tensor<f32>
    relax.output %1 : tensor<f32>
  }
  return %r : tensor<f32>
}

// -----

// expected-error @+1 {{require-grads: parameter 1 has type 'tensor<3xi32>'; only float tensors (and tuples of them) have gradients}}
func.func @main(%x: tensor<3xf32>, %labels: tensor<3xi32>) -> tensor<f32> {
  %r = relax.dataflow -> (tensor<f32>) {
    %0 = relax.sum %x : tensor<3xf32> -> tensor<f32>
    relax.output %0 : tensor<f32>
  }
  return %r : tensor<f32>
}

// -----

// A tuple with an integer leaf has no gradient either.
// expected-error @+1 {{require-grads: parameter 1 has type 'tuple<tensor<3xf32>, tensor<i64>>'; only float tensors (and tuples of them) have gradients}}
func.func @main(%x: tensor<3xf32>, %t: tuple<tensor<3xf32>, tensor<i64>>) -> tensor<f32> {
  %r = relax.dataflow -> (tensor<f32>) {
    %0 = relax.sum %x : tensor<3xf32> -> tensor<f32>
    relax.output %0 : tensor<f32>
  }
  return %r : tensor<f32>
}

// -----

// A mask parameter (i1) has no gradient.
// expected-error @+1 {{require-grads: parameter 1 has type 'tensor<3xi1>'; only float tensors (and tuples of them) have gradients}}
func.func @main(%x: tensor<3xf32>, %m: tensor<3xi1>) -> tensor<f32> {
  %r = relax.dataflow -> (tensor<f32>) {
    %0 = relax.sum %x : tensor<3xf32> -> tensor<f32>
    relax.output %0 : tensor<f32>
  }
  return %r : tensor<f32>
}
