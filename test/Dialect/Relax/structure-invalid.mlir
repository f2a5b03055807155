// RUN: relax-opt %s -split-input-file -verify-diagnostics

// Verifier and type-inference errors of the structure ops (dataflow, output, tuples).

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

// -----

func.func private @f(%x: tensor<3xf32>) -> tensor<3xf32>
func.func private @f_vjp(%x: tensor<3xf32>, %g: tensor<3xf32>) -> tuple<tensor<3xf32>>
func.func @missing_rule(%x: tensor<3xf32>) -> tensor<3xf32> {
  // expected-error @+1 {{'relax.call_with_rules' op names '@nope' as its jvp, which is not a function of the module}}
  %0 = relax.call_with_rules @f(%x) jvp @nope vjp @f_vjp : (tensor<3xf32>) -> tensor<3xf32>
  return %0 : tensor<3xf32>
}

// -----

func.func private @f(%x: tensor<3xf32>) -> tensor<3xf32>
func.func private @f_jvp(%x: tensor<3xf32>, %t: tensor<3xf32>) -> tuple<tensor<3xf32>, tensor<3xf32>>
func.func private @f_vjp(%x: tensor<3xf32>, %g: tensor<3xf32>) -> tensor<3xf32>
func.func @wrong_vjp_type(%x: tensor<3xf32>) -> tensor<3xf32> {
  // expected-error @+1 {{'relax.call_with_rules' op expects its vjp '@f_vjp' to have type '(tensor<3xf32>, tensor<3xf32>) -> tuple<tensor<3xf32>>', not '(tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>'}}
  %0 = relax.call_with_rules @f(%x) jvp @f_jvp vjp @f_vjp : (tensor<3xf32>) -> tensor<3xf32>
  return %0 : tensor<3xf32>
}

// -----

func.func private @f(%x: tensor<3xf32>, %i: tensor<2xi64>) -> tensor<2xf32>
func.func private @f_jvp(%x: tensor<3xf32>, %i: tensor<2xi64>, %t: tensor<3xf32>, %ti: tensor<2xi64>) -> tuple<tensor<2xf32>, tensor<2xf32>>
func.func private @f_vjp(%x: tensor<3xf32>, %i: tensor<2xi64>, %g: tensor<2xf32>) -> tuple<tensor<3xf32>>
func.func @integer_operands_take_no_tangent(%x: tensor<3xf32>, %i: tensor<2xi64>) -> tensor<2xf32> {
  // expected-error @+1 {{'relax.call_with_rules' op expects its jvp '@f_jvp' to have type '(tensor<3xf32>, tensor<2xi64>, tensor<3xf32>) -> tuple<tensor<2xf32>, tensor<2xf32>>'}}
  %0 = relax.call_with_rules @f(%x, %i) jvp @f_jvp vjp @f_vjp : (tensor<3xf32>, tensor<2xi64>) -> tensor<2xf32>
  return %0 : tensor<2xf32>
}
