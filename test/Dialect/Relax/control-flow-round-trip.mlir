// Loops and conditionals print in their custom form and parse back to the same
// IR (also from the generic form).
// RUN: relax-opt %s | relax-opt | FileCheck %s
// RUN: relax-opt %s --mlir-print-op-generic | relax-opt | FileCheck %s

// CHECK-LABEL: func.func @rnn
// CHECK: %[[R:.*]]:2 = relax.scan length = 8 consts(%{{.*}} : tensor<4x4xf32>) init(%{{.*}} : tensor<4xf32>) xs(%{{.*}} : tensor<8x4xf32>) -> (tensor<4xf32>, tensor<8x4xf32>) {
// CHECK-NEXT: ^bb0(%{{.*}}: tensor<4x4xf32>, %{{.*}}: tensor<4xf32>, %{{.*}}: tensor<4xf32>):
// CHECK: relax.yield %{{.*}}, %{{.*}} : tensor<4xf32>, tensor<4xf32>
// CHECK: return %[[R]]#0
func.func @rnn(%w: tensor<4x4xf32>, %h0: tensor<4xf32>, %xs: tensor<8x4xf32>) -> tensor<4xf32> {
  %r:2 = relax.scan length = 8 consts(%w : tensor<4x4xf32>) init(%h0 : tensor<4xf32>)
      xs(%xs : tensor<8x4xf32>) -> (tensor<4xf32>, tensor<8x4xf32>) {
  ^bb0(%wc: tensor<4x4xf32>, %h: tensor<4xf32>, %x: tensor<4xf32>):
    %m = relax.matmul %wc, %h : tensor<4x4xf32>, tensor<4xf32> -> tensor<4xf32>
    %a = relax.add %m, %x : tensor<4xf32>, tensor<4xf32> -> tensor<4xf32>
    %t = relax.tanh %a : tensor<4xf32>
    relax.yield %t, %t : tensor<4xf32>, tensor<4xf32>
  }
  return %r#0 : tensor<4xf32>
}

// A scan with no consts and no xs (a counted loop), reversed, with the
// checkpoint interval; and one with no carries (a map).
// CHECK-LABEL: func.func @counted
// CHECK: relax.scan length = 5 reverse init(%{{.*}} : tensor<f32>) -> (tensor<f32>) {
// CHECK: } {checkpoint_every = 2 : i64}
// CHECK: relax.scan length = 3 init() xs(%{{.*}} : tensor<3x2xf32>) -> (tensor<3x2xf32>) {
func.func @counted(%x: tensor<f32>, %xs: tensor<3x2xf32>) -> (tensor<f32>, tensor<3x2xf32>) {
  %r = relax.scan length = 5 reverse init(%x : tensor<f32>) -> (tensor<f32>) {
  ^bb0(%c: tensor<f32>):
    %s = relax.sin %c : tensor<f32>
    relax.yield %s : tensor<f32>
  } {checkpoint_every = 2 : i64}
  %m = relax.scan length = 3 init() xs(%xs : tensor<3x2xf32>) -> (tensor<3x2xf32>) {
  ^bb0(%row: tensor<2xf32>):
    %e = relax.exp %row : tensor<2xf32>
    relax.yield %e : tensor<2xf32>
  }
  return %r, %m : tensor<f32>, tensor<3x2xf32>
}

// CHECK-LABEL: func.func @newton
// CHECK: relax.while max_iterations = 50 consts(%{{.*}} : tensor<f32>) init(%{{.*}} : tensor<f32>) -> (tensor<f32>) cond {
// CHECK: relax.condition %{{.*}} : tensor<i1>
// CHECK: } do {
// CHECK: relax.yield %{{.*}} : tensor<f32>
func.func @newton(%a: tensor<f32>) -> tensor<f32> {
  %r = relax.while max_iterations = 50 consts(%a : tensor<f32>) init(%a : tensor<f32>)
      -> (tensor<f32>) cond {
  ^bb0(%ac: tensor<f32>, %x: tensor<f32>):
    %sq = relax.multiply %x, %x : tensor<f32>, tensor<f32> -> tensor<f32>
    %d = relax.subtract %sq, %ac : tensor<f32>, tensor<f32> -> tensor<f32>
    %e = relax.abs %d : tensor<f32>
    %tol = arith.constant dense<1.0e-6> : tensor<f32>
    %p = relax.greater %e, %tol : tensor<f32>, tensor<f32> -> tensor<i1>
    relax.condition %p : tensor<i1>
  } do {
  ^bb0(%ac: tensor<f32>, %x: tensor<f32>):
    %q = relax.divide %ac, %x : tensor<f32>, tensor<f32> -> tensor<f32>
    %s = relax.add %x, %q : tensor<f32>, tensor<f32> -> tensor<f32>
    %half = arith.constant dense<0.5> : tensor<f32>
    %h = relax.multiply %s, %half : tensor<f32>, tensor<f32> -> tensor<f32>
    relax.yield %h : tensor<f32>
  }
  return %r : tensor<f32>
}

// CHECK-LABEL: func.func @branches
// CHECK: relax.if %{{.*}} : tensor<i1> (%{{.*}} : tensor<3xf32>) -> (tensor<3xf32>) {
// CHECK: } else {
// CHECK: relax.switch %{{.*}} : tensor<i32> (%{{.*}} : tensor<3xf32>) -> (tensor<3xf32>) [{
// CHECK: }, {
// CHECK: }]
func.func @branches(%p: tensor<i1>, %i: tensor<i32>, %x: tensor<3xf32>) -> (tensor<3xf32>, tensor<3xf32>) {
  %a = relax.if %p : tensor<i1> (%x : tensor<3xf32>) -> (tensor<3xf32>) {
  ^bb0(%v: tensor<3xf32>):
    %e = relax.exp %v : tensor<3xf32>
    relax.yield %e : tensor<3xf32>
  } else {
  ^bb0(%v: tensor<3xf32>):
    relax.yield %v : tensor<3xf32>
  }
  %b = relax.switch %i : tensor<i32> (%x : tensor<3xf32>) -> (tensor<3xf32>) [{
  ^bb0(%v: tensor<3xf32>):
    relax.yield %v : tensor<3xf32>
  }, {
  ^bb0(%v: tensor<3xf32>):
    %n = relax.negative %v : tensor<3xf32>
    relax.yield %n : tensor<3xf32>
  }]
  return %a, %b : tensor<3xf32>, tensor<3xf32>
}
