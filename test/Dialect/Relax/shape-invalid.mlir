// RUN: relax-opt %s -split-input-file -verify-diagnostics

// Verifier and type-inference errors of the shape ops expand_dims squeeze
// flatten concat split take scatter_add scatter strided_slice tile pad triu tril.

// The axes count in the result, of rank 3 here: 1 and -2 name the same axis.
func.func @expand_dims_axis_repeated(%x: tensor<3xf32>) {
  // expected-error @+2 {{axis -2 is repeated}}
  // expected-error @+1 {{'relax.expand_dims' op failed to infer returned types}}
  %0 = relax.expand_dims %x {axis = array<i64: 1, -2>} : tensor<3xf32> -> tensor<3x1x1xf32>
  return
}

// -----

func.func @expand_dims_wrong_result(%x: tensor<3xf32>) {
  // expected-error @+2 {{'relax.expand_dims' op inferred type(s) 'tensor<1x3xf32>' are incompatible with return type(s) of operation 'tensor<3x1xf32>'}}
  // expected-error @+1 {{'relax.expand_dims' op failed to infer returned types}}
  %0 = relax.expand_dims %x {axis = array<i64: 0>} : tensor<3xf32> -> tensor<3x1xf32>
  return
}

// -----

func.func @squeeze_not_size_one(%x: tensor<1x3xf32>) {
  // expected-error @+2 {{cannot squeeze axis 1 of size 3: only size-1 axes can be removed}}
  // expected-error @+1 {{'relax.squeeze' op failed to infer returned types}}
  %0 = relax.squeeze %x {axis = array<i64: 1>} : tensor<1x3xf32> -> tensor<1xf32>
  return
}

// -----

func.func @squeeze_axis_out_of_range(%x: tensor<1x3xf32>) {
  // expected-error @+2 {{axis 2 is out of range for rank 2}}
  // expected-error @+1 {{'relax.squeeze' op failed to infer returned types}}
  %0 = relax.squeeze %x {axis = array<i64: 2>} : tensor<1x3xf32> -> tensor<1xf32>
  return
}

// -----

func.func @squeeze_axis_repeated(%x: tensor<1x1xf32>) {
  // expected-error @+2 {{axis -2 is repeated}}
  // expected-error @+1 {{'relax.squeeze' op failed to infer returned types}}
  %0 = relax.squeeze %x {axis = array<i64: 0, -2>} : tensor<1x1xf32> -> tensor<1xf32>
  return
}

// -----

func.func @flatten_not_1d(%x: tensor<2x3xf32>) {
  // expected-error @+2 {{'relax.flatten' op inferred type(s) 'tensor<6xf32>' are incompatible with return type(s) of operation 'tensor<2x3xf32>'}}
  // expected-error @+1 {{'relax.flatten' op failed to infer returned types}}
  %0 = relax.flatten %x : tensor<2x3xf32> -> tensor<2x3xf32>
  return
}

// -----

func.func @concat_shape_mismatch(%a: tensor<2x3xf32>, %b: tensor<2x4xf32>) {
  // expected-error @+2 {{operand 1 has shape (2, 4), incompatible with operand 0's (2, 3) off the concatenation axis 0}}
  // expected-error @+1 {{'relax.concat' op failed to infer returned types}}
  %0 = relax.concat %a, %b {axis = 0 : i64} : tensor<2x3xf32>, tensor<2x4xf32> -> tensor<4x3xf32>
  return
}

// -----

func.func @concat_element_types(%a: tensor<2x3xf32>, %b: tensor<2x3xf64>) {
  // expected-error @+2 {{operand 1 has element type 'f64', operand 0 has 'f32'}}
  // expected-error @+1 {{'relax.concat' op failed to infer returned types}}
  %0 = relax.concat %a, %b {axis = 0 : i64} : tensor<2x3xf32>, tensor<2x3xf64> -> tensor<4x3xf32>
  return
}

// -----

func.func @concat_ranks(%a: tensor<2x3xf32>, %b: tensor<3xf32>) {
  // expected-error @+2 {{operand 1 has rank 1, operand 0 has rank 2}}
  // expected-error @+1 {{'relax.concat' op failed to infer returned types}}
  %0 = relax.concat %a, %b {axis = 0 : i64} : tensor<2x3xf32>, tensor<3xf32> -> tensor<5x3xf32>
  return
}

// -----

func.func @concat_axis_out_of_range(%a: tensor<2x3xf32>) {
  // expected-error @+2 {{axis 2 is out of range for rank 2}}
  // expected-error @+1 {{'relax.concat' op failed to infer returned types}}
  %0 = relax.concat %a, %a {axis = 2 : i64} : tensor<2x3xf32>, tensor<2x3xf32> -> tensor<4x3xf32>
  return
}

// -----

func.func @concat_0d(%a: tensor<f32>) {
  // expected-error @+2 {{cannot concatenate 0-d tensors}}
  // expected-error @+1 {{'relax.concat' op failed to infer returned types}}
  %0 = relax.concat %a, %a {axis = 0 : i64} : tensor<f32>, tensor<f32> -> tensor<2xf32>
  return
}

// -----

func.func @concat_no_operands() {
  // expected-error @+2 {{needs at least one operand}}
  // expected-error @+1 {{'relax.concat' op failed to infer returned types}}
  %0 = "relax.concat"() {axis = 0 : i64} : () -> tensor<2xf32>
  return
}

// -----

func.func @concat_wrong_result(%a: tensor<2x3xf32>) {
  // expected-error @+2 {{'relax.concat' op inferred type(s) 'tensor<4x3xf32>' are incompatible with return type(s) of operation 'tensor<4x6xf32>'}}
  // expected-error @+1 {{'relax.concat' op failed to infer returned types}}
  %0 = relax.concat %a, %a {axis = 0 : i64} : tensor<2x3xf32>, tensor<2x3xf32> -> tensor<4x6xf32>
  return
}

// -----

func.func @split_not_divisible(%x: tensor<5x3xf32>) {
  // expected-error @+2 {{an axis of size 5 cannot be split into 2 equal sections}}
  // expected-error @+1 {{'relax.split' op failed to infer returned types}}
  %0 = relax.split %x {indices_or_sections = 2 : i64} : tensor<5x3xf32> -> tuple<tensor<2x3xf32>, tensor<3x3xf32>>
  return
}

// -----

func.func @split_points_unsorted(%x: tensor<5x3xf32>) {
  // expected-error @+2 {{split points must be sorted (after counting negative ones from the end), got 1 after 3}}
  // expected-error @+1 {{'relax.split' op failed to infer returned types}}
  %0 = relax.split %x {indices_or_sections = array<i64: 3, 1>} : tensor<5x3xf32> -> tuple<tensor<3x3xf32>, tensor<0x3xf32>, tensor<4x3xf32>>
  return
}

// -----

func.func @split_zero_sections(%x: tensor<5x3xf32>) {
  // expected-error @+2 {{indices_or_sections must be a positive number of sections, got 0}}
  // expected-error @+1 {{'relax.split' op failed to infer returned types}}
  %0 = relax.split %x {indices_or_sections = 0 : i64} : tensor<5x3xf32> -> tuple<>
  return
}

// -----

func.func @split_axis_out_of_range(%x: tensor<5x3xf32>) {
  // expected-error @+2 {{axis 2 is out of range for rank 2}}
  // expected-error @+1 {{'relax.split' op failed to infer returned types}}
  %0 = relax.split %x {indices_or_sections = 1 : i64, axis = 2 : i64} : tensor<5x3xf32> -> tuple<tensor<5x3xf32>>
  return
}

// -----

func.func @split_0d(%x: tensor<f32>) {
  // expected-error @+2 {{cannot split a 0-d tensor}}
  // expected-error @+1 {{'relax.split' op failed to infer returned types}}
  %0 = relax.split %x {indices_or_sections = 1 : i64} : tensor<f32> -> tuple<tensor<f32>>
  return
}

// -----

func.func @split_float_sections(%x: tensor<5x3xf32>) {
  // expected-error @+1 {{'relax.split' op attribute 'indices_or_sections' failed to satisfy constraint: 64-bit signless integer attribute or i64 dense array attribute}}
  %0 = relax.split %x {indices_or_sections = 1.0 : f64} : tensor<5x3xf32> -> tuple<tensor<5x3xf32>>
  return
}

// -----

func.func @split_wrong_result(%x: tensor<4x3xf32>) {
  // expected-error @+2 {{'relax.split' op inferred type(s) 'tuple<tensor<2x3xf32>, tensor<2x3xf32>>' are incompatible with return type(s) of operation 'tuple<tensor<2x3xf32>, tensor<3x3xf32>>'}}
  // expected-error @+1 {{'relax.split' op failed to infer returned types}}
  %0 = relax.split %x {indices_or_sections = 2 : i64} : tensor<4x3xf32> -> tuple<tensor<2x3xf32>, tensor<3x3xf32>>
  return
}

// -----

func.func @take_axis_out_of_range(%x: tensor<4x3xf32>, %i: tensor<2xi64>) {
  // expected-error @+2 {{axis 2 is out of range for rank 2}}
  // expected-error @+1 {{'relax.take' op failed to infer returned types}}
  %0 = relax.take %x, %i {axis = 2 : i64} : tensor<4x3xf32>, tensor<2xi64> -> tensor<4x2xf32>
  return
}

// -----

func.func @take_float_indices(%x: tensor<4x3xf32>, %i: tensor<2xf32>) {
  // expected-error @+1 {{'relax.take' op operand #1 must be statically shaped tensor of 32-bit signless integer or 64-bit signless integer values of fewer than 2^63 bytes, but got 'tensor<2xf32>'}}
  %0 = relax.take %x, %i {axis = 0 : i64} : tensor<4x3xf32>, tensor<2xf32> -> tensor<2x3xf32>
  return
}

// -----

func.func @take_from_empty_axis(%x: tensor<0x3xf32>, %i: tensor<2xi64>) {
  // expected-error @+2 {{cannot index an axis of size 0}}
  // expected-error @+1 {{'relax.take' op failed to infer returned types}}
  %0 = relax.take %x, %i {axis = 0 : i64} : tensor<0x3xf32>, tensor<2xi64> -> tensor<2x3xf32>
  return
}

// -----

func.func @take_wrong_result(%x: tensor<4x3xf32>, %i: tensor<2xi64>) {
  // expected-error @+2 {{'relax.take' op inferred type(s) 'tensor<2x3xf32>' are incompatible with return type(s) of operation 'tensor<3x2xf32>'}}
  // expected-error @+1 {{'relax.take' op failed to infer returned types}}
  %0 = relax.take %x, %i {axis = 0 : i64} : tensor<4x3xf32>, tensor<2xi64> -> tensor<3x2xf32>
  return
}

// -----

func.func @scatter_add_wrong_updates(%x: tensor<4x3xf32>, %i: tensor<2xi64>, %u: tensor<3x2xf32>) {
  // expected-error @+1 {{'relax.scatter_add' op updates must have type 'tensor<2x3xf32>' (x's shape with the axis replaced by the indices' shape), got 'tensor<3x2xf32>'}}
  %0 = relax.scatter_add %x, %i, %u {axis = 0 : i64} : tensor<4x3xf32>, tensor<2xi64>, tensor<3x2xf32> -> tensor<4x3xf32>
  return
}

// -----

func.func @scatter_add_updates_type(%x: tensor<4x3xf32>, %i: tensor<2xi64>, %u: tensor<2x3xf64>) {
  // expected-error @+1 {{'relax.scatter_add' op updates must have type 'tensor<2x3xf32>'}}
  %0 = relax.scatter_add %x, %i, %u {axis = 0 : i64} : tensor<4x3xf32>, tensor<2xi64>, tensor<2x3xf64> -> tensor<4x3xf32>
  return
}

// -----

func.func @scatter_add_axis(%x: tensor<4x3xf32>, %i: tensor<2xi64>, %u: tensor<2x3xf32>) {
  // expected-error @+1 {{axis 2 is out of range for rank 2}}
  %0 = relax.scatter_add %x, %i, %u {axis = 2 : i64} : tensor<4x3xf32>, tensor<2xi64>, tensor<2x3xf32> -> tensor<4x3xf32>
  return
}

// -----

func.func @scatter_add_bool(%x: tensor<4xi1>, %i: tensor<2xi64>, %u: tensor<2xi1>) {
  // expected-error @+1 {{'relax.scatter_add' op operand #0 must be}}
  %0 = relax.scatter_add %x, %i, %u : tensor<4xi1>, tensor<2xi64>, tensor<2xi1> -> tensor<4xi1>
  return
}

// -----

func.func @scatter_reduction(%x: tensor<4x3xf32>, %i: tensor<2xi64>, %u: tensor<2x3xf32>) {
  // expected-error @+1 {{'relax.scatter' op reduction must be "set", "multiply", "min" or "max" (relax.scatter_add adds), got "add"}}
  %0 = relax.scatter %x, %i, %u {axis = 0 : i64, reduction = "add"} : tensor<4x3xf32>, tensor<2xi64>, tensor<2x3xf32> -> tensor<4x3xf32>
  return
}

// -----

func.func @scatter_wrong_updates(%x: tensor<4x3xf32>, %i: tensor<2xi64>, %u: tensor<2x4xf32>) {
  // expected-error @+1 {{'relax.scatter' op updates must have type 'tensor<2x3xf32>' (x's shape with the axis replaced by the indices' shape), got 'tensor<2x4xf32>'}}
  %0 = relax.scatter %x, %i, %u {axis = 0 : i64, reduction = "max"} : tensor<4x3xf32>, tensor<2xi64>, tensor<2x4xf32> -> tensor<4x3xf32>
  return
}

// -----

func.func @scatter_float_indices(%x: tensor<4xf32>, %i: tensor<2xf32>, %u: tensor<2xf32>) {
  // expected-error @+1 {{'relax.scatter' op operand #1 must be}}
  %0 = relax.scatter %x, %i, %u : tensor<4xf32>, tensor<2xf32>, tensor<2xf32> -> tensor<4xf32>
  return
}

// -----

func.func @strided_slice_zero_stride(%x: tensor<5x3xf32>) {
  // expected-error @+2 {{stride of axis 0 is 0}}
  // expected-error @+1 {{'relax.strided_slice' op failed to infer returned types}}
  %0 = relax.strided_slice %x {axes = array<i64: 0>, begin = array<i64: 0>, end = array<i64: 5>, strides = array<i64: 0>} : tensor<5x3xf32> -> tensor<5x3xf32>
  return
}

// -----

func.func @strided_slice_length_mismatch(%x: tensor<5x3xf32>) {
  // expected-error @+2 {{axes, begin, end and strides must have one entry per sliced axis; got 1, 1, 1 and 2}}
  // expected-error @+1 {{'relax.strided_slice' op failed to infer returned types}}
  %0 = relax.strided_slice %x {axes = array<i64: 0>, begin = array<i64: 0>, end = array<i64: 5>, strides = array<i64: 1, 1>} : tensor<5x3xf32> -> tensor<5x3xf32>
  return
}

// -----

func.func @strided_slice_axis_out_of_range(%x: tensor<5x3xf32>) {
  // expected-error @+2 {{axis 2 is out of range for rank 2}}
  // expected-error @+1 {{'relax.strided_slice' op failed to infer returned types}}
  %0 = relax.strided_slice %x {axes = array<i64: 2>, begin = array<i64: 0>, end = array<i64: 5>} : tensor<5x3xf32> -> tensor<5x3xf32>
  return
}

// -----

func.func @strided_slice_axis_repeated(%x: tensor<5x3xf32>) {
  // expected-error @+2 {{axis -2 is repeated}}
  // expected-error @+1 {{'relax.strided_slice' op failed to infer returned types}}
  %0 = relax.strided_slice %x {axes = array<i64: 0, -2>, begin = array<i64: 0, 0>, end = array<i64: 5, 5>} : tensor<5x3xf32> -> tensor<5x3xf32>
  return
}

// -----

// x[0:5:2] has 3 rows.
func.func @strided_slice_wrong_result(%x: tensor<5x3xf32>) {
  // expected-error @+2 {{'relax.strided_slice' op inferred type(s) 'tensor<3x3xf32>' are incompatible with return type(s) of operation 'tensor<2x3xf32>'}}
  // expected-error @+1 {{'relax.strided_slice' op failed to infer returned types}}
  %0 = relax.strided_slice %x {axes = array<i64: 0>, begin = array<i64: 0>, end = array<i64: 5>, strides = array<i64: 2>} : tensor<5x3xf32> -> tensor<2x3xf32>
  return
}

// -----

func.func @tile_negative_repeats(%x: tensor<2x3xf32>) {
  // expected-error @+2 {{repeats must be non-negative, got -1}}
  // expected-error @+1 {{'relax.tile' op failed to infer returned types}}
  %0 = relax.tile %x {repeats = array<i64: -1, 1>} : tensor<2x3xf32> -> tensor<2x3xf32>
  return
}

// -----

func.func @tile_overflow(%x: tensor<2x3xf32>) {
  // expected-error @+2 {{tiled shape overflows int64}}
  // expected-error @+1 {{'relax.tile' op failed to infer returned types}}
  %0 = relax.tile %x {repeats = array<i64: 4611686018427387904, 4>} : tensor<2x3xf32> -> tensor<2x3xf32>
  return
}

// -----

func.func @tile_wrong_result(%x: tensor<2x3xf32>) {
  // expected-error @+2 {{'relax.tile' op inferred type(s) 'tensor<4x6xf32>' are incompatible with return type(s) of operation 'tensor<4x3xf32>'}}
  // expected-error @+1 {{'relax.tile' op failed to infer returned types}}
  %0 = relax.tile %x {repeats = array<i64: 2, 2>} : tensor<2x3xf32> -> tensor<4x3xf32>
  return
}

// -----

func.func @pad_wrong_length(%x: tensor<2x3xf32>) {
  // expected-error @+2 {{pad_width must have 2 * rank = 4 entries ((before, after) per axis), got 2}}
  // expected-error @+1 {{'relax.pad' op failed to infer returned types}}
  %0 = relax.pad %x {pad_width = array<i64: 1, 1>} : tensor<2x3xf32> -> tensor<4x3xf32>
  return
}

// -----

func.func @pad_negative(%x: tensor<2x3xf32>) {
  // expected-error @+2 {{pad widths must be non-negative, got (-1, 0) for axis 1}}
  // expected-error @+1 {{'relax.pad' op failed to infer returned types}}
  %0 = relax.pad %x {pad_width = array<i64: 0, 0, -1, 0>} : tensor<2x3xf32> -> tensor<2x2xf32>
  return
}

// -----

func.func @pad_overflow(%x: tensor<2x3xf32>) {
  // expected-error @+2 {{padded shape overflows int64}}
  // expected-error @+1 {{'relax.pad' op failed to infer returned types}}
  %0 = relax.pad %x {pad_width = array<i64: 0, 0, 9223372036854775807, 0>} : tensor<2x3xf32> -> tensor<2x5xf32>
  return
}

// -----

func.func @pad_wrong_result(%x: tensor<2x3xf32>) {
  // expected-error @+2 {{'relax.pad' op inferred type(s) 'tensor<2x4xf32>' are incompatible with return type(s) of operation 'tensor<2x5xf32>'}}
  // expected-error @+1 {{'relax.pad' op failed to infer returned types}}
  %0 = relax.pad %x {pad_width = array<i64: 0, 0, 1, 0>} : tensor<2x3xf32> -> tensor<2x5xf32>
  return
}

// -----

func.func @triu_rank_1(%x: tensor<3xf32>) {
  // expected-error @+1 {{'relax.triu' op needs a tensor of rank 2 or more, got rank 1}}
  %0 = relax.triu %x : tensor<3xf32>
  return
}

// -----

func.func @tril_rank_0(%x: tensor<f32>) {
  // expected-error @+1 {{'relax.tril' op needs a tensor of rank 2 or more, got rank 0}}
  %0 = relax.tril %x {k = 1 : i64} : tensor<f32>
  return
}

// -----

func.func @triu_result_type(%x: tensor<3x3xf32>) {
  // expected-error @+1 {{'relax.triu' op requires the same type for all operands and results}}
  %0 = "relax.triu"(%x) : (tensor<3x3xf32>) -> tensor<3x3xf64>
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
