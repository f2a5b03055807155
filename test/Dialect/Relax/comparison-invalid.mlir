// RUN: relax-opt %s -split-input-file -verify-diagnostics

// Verifier and type-inference errors of the comparisons equal not_equal
// greater_equal less less_equal.

func.func @equal_not_broadcastable(%a: tensor<3xf32>, %b: tensor<2xf32>) {
  // expected-error @+2 {{operand shapes (3) and (2) are not broadcast-compatible}}
  // expected-error @+1 {{'relax.equal' op failed to infer returned types}}
  %0 = relax.equal %a, %b : tensor<3xf32>, tensor<2xf32> -> tensor<3xi1>
  return
}

// -----

func.func @less_element_types(%a: tensor<3xf32>, %b: tensor<3xi64>) {
  // expected-error @+2 {{operands have different element types 'f32' and 'i64'}}
  // expected-error @+1 {{'relax.less' op failed to infer returned types}}
  %0 = relax.less %a, %b : tensor<3xf32>, tensor<3xi64> -> tensor<3xi1>
  return
}

// -----

// The result is i1, never the operands' element type.
func.func @greater_equal_float_result(%a: tensor<3xf32>) {
  // expected-error @+1 {{'relax.greater_equal' op result #0 must be statically shaped tensor of 1-bit signless integer values of fewer than 2^63 bytes, but got 'tensor<3xf32>'}}
  %0 = relax.greater_equal %a, %a : tensor<3xf32>, tensor<3xf32> -> tensor<3xf32>
  return
}

// -----

// The result has the broadcast shape.
func.func @less_equal_wrong_shape(%a: tensor<3xf32>, %b: tensor<2x1xf32>) {
  // expected-error @+2 {{'relax.less_equal' op inferred type(s) 'tensor<2x3xi1>' are incompatible with return type(s) of operation 'tensor<3xi1>'}}
  // expected-error @+1 {{'relax.less_equal' op failed to infer returned types}}
  %0 = relax.less_equal %a, %b : tensor<3xf32>, tensor<2x1xf32> -> tensor<3xi1>
  return
}

// -----

func.func @not_equal_generic_wrong_shape(%a: tensor<4x1xi32>, %b: tensor<1x5xi32>) {
  // expected-error @+2 {{'relax.not_equal' op inferred type(s) 'tensor<4x5xi1>' are incompatible with return type(s) of operation 'tensor<4x1xi1>'}}
  // expected-error @+1 {{'relax.not_equal' op failed to infer returned types}}
  %0 = "relax.not_equal"(%a, %b) : (tensor<4x1xi32>, tensor<1x5xi32>) -> tensor<4x1xi1>
  return
}

// -----

func.func @greater_element_types(%a: tensor<3xi32>, %b: tensor<3xf32>) {
  // expected-error @+2 {{operands have different element types 'i32' and 'f32'}}
  // expected-error @+1 {{'relax.greater' op failed to infer returned types}}
  %0 = relax.greater %a, %b : tensor<3xi32>, tensor<3xf32> -> tensor<3xi1>
  return
}
