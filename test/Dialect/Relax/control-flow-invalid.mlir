// Verifier errors of the loops and conditionals.
// RUN: relax-opt %s -split-input-file -verify-diagnostics

func.func @xs_length(%c: tensor<f32>, %xs: tensor<4xf32>) {
  // expected-error @+1 {{xs #0 has type 'tensor<4xf32>'; every xs must have a leading axis of size length (5)}}
  %r = relax.scan length = 5 init(%c : tensor<f32>) xs(%xs : tensor<4xf32>) -> (tensor<f32>) {
  ^bb0(%a: tensor<f32>, %x: tensor<f32>):
    relax.yield %a : tensor<f32>
  }
  return
}

// -----

func.func @carry_changes_type(%c: tensor<f32>) {
  // expected-error @+1 {{the carries it returns ('tensor<f64>') must have the types of init ('tensor<f32>')}}
  %r = "relax.scan"(%c) ({
  ^bb0(%a: tensor<f32>):
    relax.yield %a : tensor<f32>
  }) {length = 2 : i64, num_consts = 0 : i64, num_carries = 1 : i64} : (tensor<f32>) -> tensor<f64>
  return
}

// -----

func.func @body_yield(%c: tensor<f32>) {
  %r = relax.scan length = 2 init(%c : tensor<f32>) -> (tensor<f32>) {
  ^bb0(%a: tensor<f32>):
    %e = relax.exp %a : tensor<f32>
    // expected-error @+1 {{yields ('tensor<f32>', 'tensor<f32>') but the body of 'relax.scan' must yield ('tensor<f32>')}}
    relax.yield %a, %e : tensor<f32>, tensor<f32>
  }
  return
}

// -----

func.func @body_arguments(%c: tensor<f32>) {
  // expected-error @+1 {{the body takes ('tensor<2xf32>') but must take ('tensor<f32>')}}
  %r = relax.scan length = 2 init(%c : tensor<f32>) -> (tensor<f32>) {
  ^bb0(%a: tensor<2xf32>):
    %s = relax.sum %a : tensor<2xf32> -> tensor<f32>
    relax.yield %s : tensor<f32>
  }
  return
}

// -----

func.func @stacked_outputs(%c: tensor<f32>) {
  // expected-error @+1 {{ys result #0 has type 'tensor<3xf32>'; the stacked outputs have a leading axis of size length (2)}}
  %r:2 = relax.scan length = 2 init(%c : tensor<f32>) -> (tensor<f32>, tensor<3xf32>) {
  ^bb0(%a: tensor<f32>):
    relax.yield %a, %a : tensor<f32>, tensor<f32>
  }
  return
}

// -----

func.func @bad_groups(%c: tensor<f32>) {
  // expected-error @+1 {{the operand groups (3 operands) do not fit in its 1 operands}}
  %r = "relax.scan"(%c) ({
  ^bb0(%a: tensor<f32>):
    relax.yield %a : tensor<f32>
  }) {length = 2 : i64, num_consts = 1 : i64, num_carries = 2 : i64} : (tensor<f32>) -> tensor<f32>
  return
}

// -----

func.func @negative_length(%c: tensor<f32>) {
  // expected-error @+1 {{length must be non-negative, got -1}}
  %r = relax.scan length = -1 init(%c : tensor<f32>) -> (tensor<f32>) {
  ^bb0(%a: tensor<f32>):
    relax.yield %a : tensor<f32>
  }
  return
}

// -----

func.func @checkpoint_every(%c: tensor<f32>) {
  // expected-error @+1 {{checkpoint_every must be at least 1, got 0}}
  %r = relax.scan length = 2 init(%c : tensor<f32>) -> (tensor<f32>) {
  ^bb0(%a: tensor<f32>):
    relax.yield %a : tensor<f32>
  } {checkpoint_every = 0 : i64}
  return
}

// -----

func.func @captures_from_above(%c: tensor<f32>, %k: tensor<f32>) {
  %r = relax.scan length = 2 init(%c : tensor<f32>) -> (tensor<f32>) {
  ^bb0(%a: tensor<f32>):
    // expected-error @+2 {{using value defined outside the region}}
    // expected-note @-3 {{required by region isolation constraints}}
    %s = relax.add %a, %k : tensor<f32>, tensor<f32> -> tensor<f32>
    relax.yield %s : tensor<f32>
  }
  return
}

// -----

func.func @while_condition_shape(%c: tensor<2xf32>) {
  %r = relax.while init(%c : tensor<2xf32>) -> (tensor<2xf32>) cond {
  ^bb0(%a: tensor<2xf32>):
    %z = arith.constant dense<0.0> : tensor<2xf32>
    %p = relax.greater %a, %z : tensor<2xf32>, tensor<2xf32> -> tensor<2xi1>
    // expected-error @+1 {{the condition must be a 0-d tensor, got 'tensor<2xi1>'}}
    relax.condition %p : tensor<2xi1>
  } do {
  ^bb0(%a: tensor<2xf32>):
    relax.yield %a : tensor<2xf32>
  }
  return
}

// -----

func.func @while_cond_terminator(%c: tensor<f32>) {
  // expected-error @+1 {{the cond region must end with 'relax.condition'}}
  %r = "relax.while"(%c) ({
  ^bb0(%a: tensor<f32>):
    relax.yield %a : tensor<f32>
  }, {
  ^bb0(%a: tensor<f32>):
    relax.yield %a : tensor<f32>
  }) {num_consts = 0 : i64} : (tensor<f32>) -> tensor<f32>
  return
}

// -----

func.func @while_max_iterations(%c: tensor<f32>, %p: tensor<i1>) {
  // expected-error @+1 {{max_iterations must be non-negative, got -3}}
  %r = relax.while max_iterations = -3 consts(%p : tensor<i1>) init(%c : tensor<f32>) -> (tensor<f32>) cond {
  ^bb0(%q: tensor<i1>, %a: tensor<f32>):
    relax.condition %q : tensor<i1>
  } do {
  ^bb0(%q: tensor<i1>, %a: tensor<f32>):
    relax.yield %a : tensor<f32>
  }
  return
}

// -----

func.func @if_predicate(%p: tensor<2xi1>, %x: tensor<f32>) {
  // expected-error @+1 {{the predicate must be a 0-d tensor, got 'tensor<2xi1>'}}
  %r = relax.if %p : tensor<2xi1> (%x : tensor<f32>) -> (tensor<f32>) {
  ^bb0(%a: tensor<f32>):
    relax.yield %a : tensor<f32>
  } else {
  ^bb0(%a: tensor<f32>):
    relax.yield %a : tensor<f32>
  }
  return
}

// -----

func.func @if_branch_types(%p: tensor<i1>, %x: tensor<f32>) {
  %r = relax.if %p : tensor<i1> (%x : tensor<f32>) -> (tensor<f32>) {
  ^bb0(%a: tensor<f32>):
    relax.yield %a : tensor<f32>
  } else {
  ^bb0(%a: tensor<f32>):
    %c = arith.constant dense<1> : tensor<i32>
    // expected-error @+1 {{yields ('tensor<i32>') but the else region of 'relax.if' must yield ('tensor<f32>')}}
    relax.yield %c : tensor<i32>
  }
  return
}

// -----

func.func @switch_index(%i: tensor<2xi32>, %x: tensor<f32>) {
  // expected-error @+1 {{the index must be a 0-d tensor, got 'tensor<2xi32>'}}
  %r = relax.switch %i : tensor<2xi32> (%x : tensor<f32>) -> (tensor<f32>) [{
  ^bb0(%a: tensor<f32>):
    relax.yield %a : tensor<f32>
  } ]
  return
}

// -----

func.func @switch_branch_arguments(%i: tensor<i32>, %x: tensor<f32>) {
  // expected-error @+1 {{the branch #1 takes () but must take ('tensor<f32>')}}
  %r = relax.switch %i : tensor<i32> (%x : tensor<f32>) -> (tensor<f32>) [{
  ^bb0(%a: tensor<f32>):
    relax.yield %a : tensor<f32>
  }, {
    %c = arith.constant dense<1.0> : tensor<f32>
    relax.yield %c : tensor<f32>
  } ]
  return
}

// -----

func.func @yield_outside(%x: tensor<f32>) {
  // expected-error @+1 {{'relax.yield' op expects parent op to be one of 'relax.scan, relax.while, relax.if, relax.switch'}}
  relax.yield %x : tensor<f32>
}
