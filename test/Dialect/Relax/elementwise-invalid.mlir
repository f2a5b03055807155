// RUN: relax-opt %s -split-input-file -verify-diagnostics

// Verifier and type-inference errors of the elementwise ops sqrt rsqrt sin cos
// tan abs square erf silu gelu softplus log1p leaky_relu clip astype power maximum
// minimum.

func.func @clip_min_greater_than_max(%x: tensor<3xf32>) {
  // expected-error @+1 {{'relax.clip' op min (2.000000e+00) is greater than max (1.000000e+00)}}
  %0 = relax.clip %x {min = 2.0 : f64, max = 1.0 : f64} : tensor<3xf32>
  return
}

// -----

func.func @clip_nan_bound(%x: tensor<3xf32>) {
  // expected-error @+1 {{'relax.clip' op bounds must not be NaN}}
  %0 = relax.clip %x {min = 0x7FF8000000000000 : f64, max = 1.0 : f64} : tensor<3xf32>
  return
}

// -----

// Both bounds are required.
func.func @clip_missing_bound(%x: tensor<3xf32>) {
  // expected-error @+1 {{'relax.clip' op requires attribute 'max'}}
  %0 = relax.clip %x {min = 0.0 : f64} : tensor<3xf32>
  return
}

// -----

// The bounds are F64Attr, as the contract says.
func.func @clip_f32_bounds(%x: tensor<3xf32>) {
  // expected-error @+1 {{'relax.clip' op attribute 'min' failed to satisfy constraint: 64-bit float attribute}}
  %0 = relax.clip %x {min = 1.0 : f32, max = 2.0 : f32} : tensor<3xf32>
  return
}

// -----

func.func @clip_bool(%x: tensor<3xi1>) {
  // expected-error @+1 {{'relax.clip' op operand #0 must be statically shaped tensor of 16-bit float or bfloat16 type or 32-bit float or 64-bit float or 32-bit signless integer or 64-bit signless integer values of fewer than 2^63 bytes, but got 'tensor<3xi1>'}}
  %0 = relax.clip %x {min = 0.0 : f64, max = 1.0 : f64} : tensor<3xi1>
  return
}

// -----

func.func @leaky_relu_alpha_not_f64(%x: tensor<3xf32>) {
  // expected-error @+1 {{'relax.leaky_relu' op attribute 'alpha' failed to satisfy constraint: 64-bit float attribute}}
  %0 = relax.leaky_relu %x {alpha = 1 : i64} : tensor<3xf32>
  return
}

// -----

func.func @astype_shape_change(%x: tensor<3xf32>) {
  // expected-error @+1 {{'relax.astype' op result shape (1, 3) differs from the operand shape (3); astype only converts elements}}
  %0 = relax.astype %x : tensor<3xf32> -> tensor<1x3xi32>
  return
}

// -----

func.func @astype_unsupported_type(%x: tensor<3xf32>) {
  // expected-error @+1 {{'relax.astype' op result #0 must be statically shaped tensor of 16-bit float or bfloat16 type or 32-bit float or 64-bit float or 1-bit signless integer or 32-bit signless integer or 64-bit signless integer values of fewer than 2^63 bytes, but got 'tensor<3xi8>'}}
  %0 = relax.astype %x : tensor<3xf32> -> tensor<3xi8>
  return
}

// -----

// Float-only unary ops reject integer tensors.
func.func @sqrt_integer(%x: tensor<3xi32>) {
  // expected-error @+1 {{'relax.sqrt' op operand #0 must be statically shaped tensor of 16-bit float or bfloat16 type or 32-bit float or 64-bit float values of fewer than 2^63 bytes, but got 'tensor<3xi32>'}}
  %0 = relax.sqrt %x : tensor<3xi32>
  return
}

// -----

func.func @rsqrt_integer(%x: tensor<3xi64>) {
  // expected-error @+1 {{'relax.rsqrt' op operand #0 must be statically shaped tensor of 16-bit float or bfloat16 type or 32-bit float or 64-bit float values of fewer than 2^63 bytes, but got 'tensor<3xi64>'}}
  %0 = relax.rsqrt %x : tensor<3xi64>
  return
}

// -----

func.func @sin_integer(%x: tensor<2x2xi32>) {
  // expected-error @+1 {{'relax.sin' op operand #0 must be statically shaped tensor of 16-bit float or bfloat16 type or 32-bit float or 64-bit float values of fewer than 2^63 bytes, but got 'tensor<2x2xi32>'}}
  %0 = "relax.sin"(%x) : (tensor<2x2xi32>) -> tensor<2x2xi32>
  return
}

// -----

func.func @erf_integer(%x: tensor<3xi32>) {
  // expected-error @+1 {{'relax.erf' op operand #0 must be statically shaped tensor of 16-bit float or bfloat16 type or 32-bit float or 64-bit float values of fewer than 2^63 bytes, but got 'tensor<3xi32>'}}
  %0 = relax.erf %x : tensor<3xi32>
  return
}

// -----

func.func @gelu_integer(%x: tensor<3xi64>) {
  // expected-error @+1 {{'relax.gelu' op operand #0 must be statically shaped tensor of 16-bit float or bfloat16 type or 32-bit float or 64-bit float values of fewer than 2^63 bytes, but got 'tensor<3xi64>'}}
  %0 = relax.gelu %x : tensor<3xi64>
  return
}

// -----

func.func @log1p_int(%x: tensor<3xi32>) {
  // expected-error @+1 {{'relax.log1p' op operand #0 must be statically shaped tensor of 16-bit float or bfloat16 type or 32-bit float or 64-bit float values of fewer than 2^63 bytes, but got 'tensor<3xi32>'}}
  %0 = relax.log1p %x : tensor<3xi32>
  return
}

// -----

func.func @softplus_bool(%x: tensor<3xi1>) {
  // expected-error @+1 {{'relax.softplus' op operand #0 must be statically shaped tensor of 16-bit float or bfloat16 type or 32-bit float or 64-bit float values of fewer than 2^63 bytes, but got 'tensor<3xi1>'}}
  %0 = relax.softplus %x : tensor<3xi1>
  return
}

// -----

func.func @leaky_relu_integer(%x: tensor<3xi32>) {
  // expected-error @+1 {{'relax.leaky_relu' op operand #0 must be statically shaped tensor of 16-bit float or bfloat16 type or 32-bit float or 64-bit float values of fewer than 2^63 bytes, but got 'tensor<3xi32>'}}
  %0 = relax.leaky_relu %x : tensor<3xi32>
  return
}

// -----

// abs and square take integers, not booleans.
func.func @abs_bool(%x: tensor<3xi1>) {
  // expected-error @+1 {{'relax.abs' op operand #0 must be statically shaped tensor of 16-bit float or bfloat16 type or 32-bit float or 64-bit float or 32-bit signless integer or 64-bit signless integer values of fewer than 2^63 bytes, but got 'tensor<3xi1>'}}
  %0 = relax.abs %x : tensor<3xi1>
  return
}

// -----

// The unary ops keep the operand type.
func.func @tan_result_type(%x: tensor<3xf32>) {
  // expected-error @+1 {{'relax.tan' op requires the same type for all operands and results}}
  %0 = "relax.tan"(%x) : (tensor<3xf32>) -> tensor<3xf64>
  return
}

// -----

func.func @silu_result_shape(%x: tensor<3xf32>) {
  // expected-error @+1 {{'relax.silu' op requires the same type for all operands and results}}
  %0 = "relax.silu"(%x) : (tensor<3xf32>) -> tensor<1x3xf32>
  return
}

// -----

func.func @power_integer(%x: tensor<3xi32>) {
  // expected-error @+1 {{'relax.power' op operand #0 must be statically shaped tensor of 16-bit float or bfloat16 type or 32-bit float or 64-bit float values of fewer than 2^63 bytes, but got 'tensor<3xi32>'}}
  %0 = relax.power %x, %x : tensor<3xi32>, tensor<3xi32> -> tensor<3xi32>
  return
}

// -----

func.func @power_wrong_result_type(%a: tensor<3xf32>, %b: tensor<3xf32>) {
  // expected-error @+2 {{'relax.power' op inferred type(s) 'tensor<3xf32>' are incompatible with return type(s) of operation 'tensor<1x3xf32>'}}
  // expected-error @+1 {{'relax.power' op failed to infer returned types}}
  %0 = relax.power %a, %b : tensor<3xf32>, tensor<3xf32> -> tensor<1x3xf32>
  return
}

// -----

func.func @maximum_not_broadcastable(%a: tensor<3xf32>, %b: tensor<2xf32>) {
  // expected-error @+2 {{operand shapes (3) and (2) are not broadcast-compatible}}
  // expected-error @+1 {{'relax.maximum' op failed to infer returned types}}
  %0 = relax.maximum %a, %b : tensor<3xf32>, tensor<2xf32> -> tensor<3xf32>
  return
}

// -----

func.func @minimum_element_types(%a: tensor<3xf32>, %b: tensor<3xf16>) {
  // expected-error @+2 {{operands have different element types 'f32' and 'f16'}}
  // expected-error @+1 {{'relax.minimum' op failed to infer returned types}}
  %0 = relax.minimum %a, %b : tensor<3xf32>, tensor<3xf16> -> tensor<3xf32>
  return
}

// -----

func.func @maximum_bool(%a: tensor<3xi1>) {
  // expected-error @+1 {{'relax.maximum' op operand #0 must be statically shaped tensor of 16-bit float or bfloat16 type or 32-bit float or 64-bit float or 32-bit signless integer or 64-bit signless integer values of fewer than 2^63 bytes, but got 'tensor<3xi1>'}}
  %0 = relax.maximum %a, %a : tensor<3xi1>, tensor<3xi1> -> tensor<3xi1>
  return
}

// -----

func.func @add_not_broadcastable(%a: tensor<4x3xf32>, %b: tensor<4xf32>) {
  // expected-error @+2 {{operand shapes (4, 3) and (4) are not broadcast-compatible}}
  // expected-error @+1 {{'relax.add' op failed to infer returned types}}
  %0 = relax.add %a, %b : tensor<4x3xf32>, tensor<4xf32> -> tensor<4x3xf32>
  return
}

// -----

func.func @multiply_not_broadcastable(%a: tensor<2x3x4xf32>, %b: tensor<2x1xf32>) {
  // expected-error @+2 {{operand shapes (2, 3, 4) and (2, 1) are not broadcast-compatible}}
  // expected-error @+1 {{'relax.multiply' op failed to infer returned types}}
  %0 = relax.multiply %a, %b : tensor<2x3x4xf32>, tensor<2x1xf32> -> tensor<2x3x4xf32>
  return
}

// -----

func.func @add_element_types(%a: tensor<4x3xf32>, %b: tensor<3xf64>) {
  // expected-error @+2 {{operands have different element types 'f32' and 'f64'}}
  // expected-error @+1 {{'relax.add' op failed to infer returned types}}
  %0 = relax.add %a, %b : tensor<4x3xf32>, tensor<3xf64> -> tensor<4x3xf32>
  return
}

// -----

func.func @where_cond_not_broadcastable(%m: tensor<2xi1>, %a: tensor<4x3xf32>, %b: tensor<f32>) {
  // expected-error @+2 {{condition shape (2) is not broadcast-compatible with the operands}}
  // expected-error @+1 {{'relax.where' op failed to infer returned types}}
  %0 = relax.where %m, %a, %b : tensor<2xi1>, tensor<4x3xf32>, tensor<f32> -> tensor<4x3xf32>
  return
}

// -----

func.func @where_cond_not_i1(%m: tensor<3xf32>, %a: tensor<3xf32>) {
  // expected-error @+1 {{'relax.where' op operand #0 must be statically shaped tensor of 1-bit signless integer values}}
  %0 = relax.where %m, %a, %a : tensor<3xf32>, tensor<3xf32>, tensor<3xf32> -> tensor<3xf32>
  return
}

// -----

// The declared result type of a broadcasting op must be the inferred one.
func.func @add_wrong_result_type(%a: tensor<4x3xf32>, %b: tensor<3xf32>) {
  // expected-error @+2 {{'relax.add' op inferred type(s) 'tensor<4x3xf32>' are incompatible with return type(s) of operation 'tensor<3xf32>'}}
  // expected-error @+1 {{'relax.add' op failed to infer returned types}}
  %0 = relax.add %a, %b : tensor<4x3xf32>, tensor<3xf32> -> tensor<3xf32>
  return
}

// -----

func.func @exp_integer(%a: tensor<3xi64>) {
  // expected-error @+1 {{'relax.exp' op operand #0 must be statically shaped tensor of 16-bit float or bfloat16 type or 32-bit float or 64-bit float values of fewer than 2^63 bytes, but got 'tensor<3xi64>'}}
  %0 = relax.exp %a : tensor<3xi64>
  return
}

// -----

func.func @dynamic_shape(%a: tensor<?xf32>) {
  // expected-error @+1 {{'relax.negative' op operand #0 must be statically shaped tensor}}
  %0 = relax.negative %a : tensor<?xf32>
  return
}

// -----

// The byte size counts too: 2^62 f32 elements are 2^64 bytes.
func.func @add_bytes_overflow(%a: tensor<4611686018427387904xf32>) {
  // expected-error @+1 {{'relax.add' op operand #0 must be statically shaped tensor of 16-bit float or bfloat16 type or 32-bit float or 64-bit float or 32-bit signless integer or 64-bit signless integer values of fewer than 2^63 bytes, but got 'tensor<4611686018427387904xf32>'}}
  %0 = relax.add %a, %a : tensor<4611686018427387904xf32>, tensor<4611686018427387904xf32> -> tensor<4611686018427387904xf32>
  return
}

// -----

func.func @expm1_int(%x: tensor<3xi64>) {
  // expected-error @+1 {{'relax.expm1' op operand #0 must be statically shaped tensor of 16-bit float or bfloat16 type or 32-bit float or 64-bit float values}}
  %0 = relax.expm1 %x : tensor<3xi64>
  return
}

// -----

func.func @bitcast_width(%x: tensor<3xf32>) {
  // expected-error @+1 {{'relax.bitcast' op reinterprets bits between element types of one width; 'f32' has 32 bits and 'i64' has 64}}
  %0 = relax.bitcast %x : tensor<3xf32> -> tensor<3xi64>
  return
}

// -----

func.func @bitcast_shape(%x: tensor<3xf32>) {
  // expected-error @+1 {{'relax.bitcast' op result must have the operand's shape 'tensor<3xf32>', got 'tensor<1x3xi32>'}}
  %0 = relax.bitcast %x : tensor<3xf32> -> tensor<1x3xi32>
  return
}

// -----

func.func @shift_float(%x: tensor<3xf32>) {
  // expected-error @+1 {{'relax.left_shift' op operand #0 must be statically shaped tensor of 32-bit signless integer or 64-bit signless integer values}}
  %0 = relax.left_shift %x, %x : tensor<3xf32>, tensor<3xf32> -> tensor<3xf32>
  return
}

// -----

func.func @xor_mixed(%a: tensor<3xi32>, %b: tensor<3xi64>) {
  // expected-error @+2 {{operands have different element types}}
  // expected-error @+1 {{'relax.bitwise_xor' op failed to infer returned types}}
  %0 = relax.bitwise_xor %a, %b : tensor<3xi32>, tensor<3xi64> -> tensor<3xi32>
  return
}
