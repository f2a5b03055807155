// RUN: relax-opt %s -split-input-file -verify-diagnostics

// Verifier and type-inference errors of matmul.

func.func @matmul_contracted_dims(%a: tensor<4x3xf32>, %b: tensor<4x2xf32>) {
  // expected-error @+2 {{contracted dims differ: lhs (4, 3) has 3, rhs (4, 2) has 4}}
  // expected-error @+1 {{'relax.matmul' op failed to infer returned types}}
  %0 = relax.matmul %a, %b : tensor<4x3xf32>, tensor<4x2xf32> -> tensor<4x2xf32>
  return
}

// -----

func.func @matmul_vector_contracted_dims(%a: tensor<4x3xf32>, %b: tensor<4xf32>) {
  // expected-error @+2 {{contracted dims differ: lhs (4, 3) has 3, rhs (4) has 4}}
  // expected-error @+1 {{'relax.matmul' op failed to infer returned types}}
  %0 = relax.matmul %a, %b : tensor<4x3xf32>, tensor<4xf32> -> tensor<4xf32>
  return
}

// -----

func.func @matmul_batch(%a: tensor<2x4x3xf32>, %b: tensor<5x3x2xf32>) {
  // expected-error @+2 {{batch dims (2) and (5) are not broadcast-compatible}}
  // expected-error @+1 {{'relax.matmul' op failed to infer returned types}}
  %0 = relax.matmul %a, %b : tensor<2x4x3xf32>, tensor<5x3x2xf32> -> tensor<2x4x2xf32>
  return
}

// -----

func.func @matmul_rank0(%a: tensor<f32>, %b: tensor<3xf32>) {
  // expected-error @+2 {{operands must have rank >= 1 (got ranks 0 and 1)}}
  // expected-error @+1 {{'relax.matmul' op failed to infer returned types}}
  %0 = relax.matmul %a, %b : tensor<f32>, tensor<3xf32> -> tensor<3xf32>
  return
}

// -----

func.func @matmul_wrong_result_type(%a: tensor<3xf32>, %b: tensor<3x2xf32>) {
  // expected-error @+2 {{'relax.matmul' op inferred type(s) 'tensor<2xf32>' are incompatible with return type(s) of operation 'tensor<1x2xf32>'}}
  // expected-error @+1 {{'relax.matmul' op failed to infer returned types}}
  %0 = relax.matmul %a, %b : tensor<3xf32>, tensor<3x2xf32> -> tensor<1x2xf32>
  return
}
