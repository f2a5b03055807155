// RUN: relax-opt %s -split-input-file -verify-diagnostics

// Verifier and type-inference errors of the relax ops.

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

func.func @greater_element_types(%a: tensor<3xi32>, %b: tensor<3xf32>) {
  // expected-error @+2 {{operands have different element types 'i32' and 'f32'}}
  // expected-error @+1 {{'relax.greater' op failed to infer returned types}}
  %0 = relax.greater %a, %b : tensor<3xi32>, tensor<3xf32> -> tensor<3xi1>
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

func.func @sum_wrong_result_type(%a: tensor<4x3xf32>) {
  // expected-error @+2 {{'relax.sum' op inferred type(s) 'tensor<4xf32>' are incompatible with return type(s) of operation 'tensor<4x1xf32>'}}
  // expected-error @+1 {{'relax.sum' op failed to infer returned types}}
  %0 = relax.sum %a {axis = array<i64: 1>} : tensor<4x3xf32> -> tensor<4x1xf32>
  return
}

// -----

func.func @sum_axis_out_of_range(%a: tensor<4x3xf32>) {
  // expected-error @+2 {{axis 2 is out of range for a tensor of rank 2}}
  // expected-error @+1 {{'relax.sum' op failed to infer returned types}}
  %0 = relax.sum %a {axis = array<i64: 2>} : tensor<4x3xf32> -> tensor<4xf32>
  return
}

// -----

func.func @mean_negative_axis_out_of_range(%a: tensor<4x3xf32>) {
  // expected-error @+2 {{axis -3 is out of range for a tensor of rank 2}}
  // expected-error @+1 {{'relax.mean' op failed to infer returned types}}
  %0 = relax.mean %a {axis = array<i64: -3>} : tensor<4x3xf32> -> tensor<4xf32>
  return
}

// -----

// 1 and -1 name the same axis of a rank-2 tensor.
func.func @sum_axis_repeated(%a: tensor<4x3xf32>) {
  // expected-error @+2 {{axis -1 is repeated}}
  // expected-error @+1 {{'relax.sum' op failed to infer returned types}}
  %0 = relax.sum %a {axis = array<i64: 1, -1>} : tensor<4x3xf32> -> tensor<4xf32>
  return
}

// -----

func.func @mean_integer(%a: tensor<4x3xi32>) {
  // expected-error @+1 {{'relax.mean' op operand #0 must be statically shaped tensor of 16-bit float or bfloat16 type or 32-bit float or 64-bit float values of fewer than 2^63 bytes, but got 'tensor<4x3xi32>'}}
  %0 = relax.mean %a : tensor<4x3xi32> -> tensor<i32>
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

// -----

func.func @permute_dims_repeated(%a: tensor<2x3x4xf32>) {
  // expected-error @+2 {{axes is not a permutation: axis 0 is repeated}}
  // expected-error @+1 {{'relax.permute_dims' op failed to infer returned types}}
  %0 = relax.permute_dims %a {axes = array<i64: 0, 0, 1>} : tensor<2x3x4xf32> -> tensor<2x2x3xf32>
  return
}

// -----

func.func @permute_dims_count(%a: tensor<2x3x4xf32>) {
  // expected-error @+2 {{axes has 2 entries for a tensor of rank 3}}
  // expected-error @+1 {{'relax.permute_dims' op failed to infer returned types}}
  %0 = relax.permute_dims %a {axes = array<i64: 1, 0>} : tensor<2x3x4xf32> -> tensor<3x2xf32>
  return
}

// -----

func.func @permute_dims_out_of_range(%a: tensor<2x3xf32>) {
  // expected-error @+2 {{axis 2 is out of range for a tensor of rank 2}}
  // expected-error @+1 {{'relax.permute_dims' op failed to infer returned types}}
  %0 = relax.permute_dims %a {axes = array<i64: 2, 0>} : tensor<2x3xf32> -> tensor<3x2xf32>
  return
}

// -----

func.func @reshape_count(%a: tensor<2x3x4xf32>) {
  // expected-error @+1 {{'relax.reshape' op cannot reshape 'tensor<2x3x4xf32>' (24 elements) to 'tensor<5x5xf32>' (25 elements)}}
  %0 = relax.reshape %a : tensor<2x3x4xf32> -> tensor<5x5xf32>
  return
}

// -----

// Element counts that overflow int64 are rejected by the type constraint
// (before: 2^32 * 2^32 wrapped to 0 and this reshape verified).
func.func @reshape_count_overflow(%a: tensor<4294967296x4294967296xf32>) {
  // expected-error @+1 {{'relax.reshape' op operand #0 must be statically shaped tensor of 16-bit float or bfloat16 type or 32-bit float or 64-bit float or 1-bit signless integer or 32-bit signless integer or 64-bit signless integer values of fewer than 2^63 bytes, but got 'tensor<4294967296x4294967296xf32>'}}
  %0 = relax.reshape %a : tensor<4294967296x4294967296xf32> -> tensor<0xf32>
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

func.func @reshape_element_type(%a: tensor<6xf32>) {
  // expected-error @+1 {{'relax.reshape' op result element type 'f64' differs from the operand's 'f32'}}
  %0 = relax.reshape %a : tensor<6xf32> -> tensor<2x3xf64>
  return
}

// -----

func.func @broadcast_to_invalid(%a: tensor<2x3xf32>) {
  // expected-error @+1 {{'relax.broadcast_to' op cannot broadcast 'tensor<2x3xf32>' to 'tensor<4x3xf32>'}}
  %0 = relax.broadcast_to %a : tensor<2x3xf32> -> tensor<4x3xf32>
  return
}

// -----

// Broadcasting never drops dims.
func.func @broadcast_to_lower_rank(%a: tensor<1x3xf32>) {
  // expected-error @+1 {{'relax.broadcast_to' op cannot broadcast 'tensor<1x3xf32>' to 'tensor<3xf32>'}}
  %0 = relax.broadcast_to %a : tensor<1x3xf32> -> tensor<3xf32>
  return
}

// -----

func.func @collapse_sum_to_invalid(%a: tensor<2x3xf32>) {
  // expected-error @+1 {{'relax.collapse_sum_to' op cannot collapse-sum 'tensor<2x3xf32>' to 'tensor<2x2xf32>': the result shape must broadcast to the operand shape}}
  %0 = relax.collapse_sum_to %a : tensor<2x3xf32> -> tensor<2x2xf32>
  return
}

// -----

func.func @collapse_sum_to_higher_rank(%a: tensor<3xf32>) {
  // expected-error @+1 {{'relax.collapse_sum_to' op cannot collapse-sum 'tensor<3xf32>' to 'tensor<1x3xf32>': the result shape must broadcast to the operand shape}}
  %0 = relax.collapse_sum_to %a : tensor<3xf32> -> tensor<1x3xf32>
  return
}

// -----

func.func @collapse_sum_to_element_type(%a: tensor<2x3xf32>) {
  // expected-error @+1 {{'relax.collapse_sum_to' op result element type 'f16' differs from the operand's 'f32'}}
  %0 = relax.collapse_sum_to %a : tensor<2x3xf32> -> tensor<3xf16>
  return
}

// -----

func.func @tuple_get_item_out_of_range(%a: tuple<tensor<2xf32>>) {
  // expected-error @+1 {{index 1 is out of range for a tuple of 1 fields}}
  %0 = relax.tuple_get_item %a[1] : tuple<tensor<2xf32>>
  return
}

// -----

func.func @tuple_get_item_generic_out_of_range(%a: tuple<tensor<2xf32>, tensor<f32>>) {
  // expected-error @+2 {{index -1 is out of range for a tuple of 2 fields}}
  // expected-error @+1 {{'relax.tuple_get_item' op failed to infer returned types}}
  %0 = "relax.tuple_get_item"(%a) {index = -1 : i64} : (tuple<tensor<2xf32>, tensor<f32>>) -> tensor<f32>
  return
}

// -----

func.func @tuple_get_item_wrong_result_type(%a: tuple<tensor<2xf32>, tensor<f32>>) {
  // expected-error @+2 {{'relax.tuple_get_item' op inferred type(s) 'tensor<f32>' are incompatible with return type(s) of operation 'tensor<2xf32>'}}
  // expected-error @+1 {{'relax.tuple_get_item' op failed to infer returned types}}
  %0 = "relax.tuple_get_item"(%a) {index = 1 : i64} : (tuple<tensor<2xf32>, tensor<f32>>) -> tensor<2xf32>
  return
}

// -----

func.func @dataflow_output_type(%a: tensor<2xf32>) {
  // expected-error @+1 {{'relax.dataflow' op has result types ('tensor<3xf32>') but its 'relax.output' yields ('tensor<2xf32>')}}
  %r = relax.dataflow -> (tensor<3xf32>) {
    relax.output %a : tensor<2xf32>
  }
  return
}

// -----

func.func @dataflow_output_count(%a: tensor<2xf32>) {
  // expected-error @+1 {{'relax.dataflow' op has result types ('tensor<2xf32>', 'tensor<2xf32>') but its 'relax.output' yields ('tensor<2xf32>')}}
  %r:2 = relax.dataflow -> (tensor<2xf32>, tensor<2xf32>) {
    relax.output %a : tensor<2xf32>
  }
  return
}

// -----

func.func @output_outside_dataflow(%a: tensor<2xf32>) {
  // expected-error @+1 {{'relax.output' op expects parent op 'relax.dataflow'}}
  relax.output %a : tensor<2xf32>
}
