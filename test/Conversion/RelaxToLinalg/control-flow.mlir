// RUN: relax-opt %s --convert-relax-to-linalg | FileCheck %s

// Loops and conditionals become scf ops on tensors: a scan is an scf.for
// over the iteration index carrying the carries and the stacked outputs,
// reading a slice of each xs and inserting the output slice in place; the
// relax ops of the bodies are lowered like the others.

// CHECK-LABEL: func.func @scan
// CHECK-DAG: %[[C0:.*]] = arith.constant 0 : index
// CHECK-DAG: %[[C5:.*]] = arith.constant 5 : index
// CHECK-DAG: %[[C4:.*]] = arith.constant 4 : index
// CHECK-DAG: %[[YS:.*]] = tensor.empty() : tensor<5x3xf32>
// CHECK: scf.for %[[I:.*]] = %[[C0]] to %[[C5]] step %{{.*}} iter_args(%[[H:.*]] = %arg1, %[[ACC:.*]] = %[[YS]]) -> (tensor<3xf32>, tensor<5x3xf32>) {
// CHECK: %[[ROW:.*]] = arith.subi %[[C4]], %[[I]] : index
// CHECK: tensor.extract_slice %arg2[%[[ROW]], 0] [1, 3] [1, 1] : tensor<5x3xf32> to tensor<3xf32>
// CHECK: linalg.generic
// CHECK: math.tanh
// CHECK: %[[INS:.*]] = tensor.insert_slice %{{.*}} into %[[ACC]][%[[ROW]], 0] [1, 3] [1, 1] : tensor<3xf32> into tensor<5x3xf32>
// CHECK: scf.yield %{{.*}}, %[[INS]] : tensor<3xf32>, tensor<5x3xf32>
// CHECK-NOT: = relax.
func.func @scan(%w: tensor<3x3xf32>, %h0: tensor<3xf32>, %xs: tensor<5x3xf32>) -> (tensor<3xf32>, tensor<5x3xf32>) {
  %r:2 = relax.scan length = 5 reverse consts(%w : tensor<3x3xf32>) init(%h0 : tensor<3xf32>) xs(%xs : tensor<5x3xf32>) -> (tensor<3xf32>, tensor<5x3xf32>) {
  ^bb0(%wc: tensor<3x3xf32>, %h: tensor<3xf32>, %x: tensor<3xf32>):
    %m = relax.matmul %wc, %h : tensor<3x3xf32>, tensor<3xf32> -> tensor<3xf32>
    %a = relax.add %m, %x : tensor<3xf32>, tensor<3xf32> -> tensor<3xf32>
    %t = relax.tanh %a : tensor<3xf32>
    relax.yield %t, %t : tensor<3xf32>, tensor<3xf32>
  }
  return %r#0, %r#1 : tensor<3xf32>, tensor<5x3xf32>
}

// A while with max_iterations counts its iterations in an index carry.
// CHECK-LABEL: func.func @loop
// CHECK: scf.while (%[[N:.*]] = %{{.*}}, %{{.*}} = %arg0) : (index, tensor<f32>) -> (index, tensor<f32>) {
// CHECK: %[[P:.*]] = tensor.extract %{{.*}}[] : tensor<i1>
// CHECK: %[[BELOW:.*]] = arith.cmpi slt, %[[N]], %{{.*}} : index
// CHECK: %[[GO:.*]] = arith.andi %[[P]], %[[BELOW]] : i1
// CHECK: scf.condition(%[[GO]])
// CHECK: } do {
// CHECK: arith.addi %{{.*}}, %{{.*}} : index
// CHECK: scf.yield
func.func @loop(%x: tensor<f32>) -> tensor<f32> {
  %r = relax.while max_iterations = 7 init(%x : tensor<f32>) -> (tensor<f32>) cond {
  ^bb0(%v: tensor<f32>):
    %one = arith.constant dense<1.0> : tensor<f32>
    %p = relax.less %v, %one : tensor<f32>, tensor<f32> -> tensor<i1>
    relax.condition %p : tensor<i1>
  } do {
  ^bb0(%v: tensor<f32>):
    %e = relax.exp %v : tensor<f32>
    relax.yield %e : tensor<f32>
  }
  return %r : tensor<f32>
}

// CHECK-LABEL: func.func @branches
// CHECK: %[[P:.*]] = tensor.extract %arg0[] : tensor<i1>
// CHECK: scf.if %[[P]] -> (tensor<2xf32>) {
// CHECK: } else {
// JAX's clamping of the index, then an index switch.
// CHECK: %[[I:.*]] = tensor.extract %arg1[] : tensor<i32>
// CHECK: %[[LO:.*]] = arith.maxsi %[[I]], %{{.*}} : i32
// CHECK: %[[HI:.*]] = arith.minsi %[[LO]], %{{.*}} : i32
// CHECK: %[[IDX:.*]] = arith.index_cast %[[HI]] : i32 to index
// CHECK: scf.index_switch %[[IDX]] {relax.control_flow} -> tensor<2xf32>
// CHECK: case 0 {
// CHECK: case 1 {
// CHECK: default {
func.func @branches(%p: tensor<i1>, %i: tensor<i32>, %x: tensor<2xf32>) -> (tensor<2xf32>, tensor<2xf32>) {
  %a = relax.if %p : tensor<i1> (%x : tensor<2xf32>) -> (tensor<2xf32>) {
  ^bb0(%v: tensor<2xf32>):
    %e = relax.exp %v : tensor<2xf32>
    relax.yield %e : tensor<2xf32>
  } else {
  ^bb0(%v: tensor<2xf32>):
    relax.yield %v : tensor<2xf32>
  }
  %b = relax.switch %i : tensor<i32> (%x : tensor<2xf32>) -> (tensor<2xf32>) [{
  ^bb0(%v: tensor<2xf32>):
    relax.yield %v : tensor<2xf32>
  }, {
  ^bb0(%v: tensor<2xf32>):
    %n = relax.negative %v : tensor<2xf32>
    relax.yield %n : tensor<2xf32>
  }, {
  ^bb0(%v: tensor<2xf32>):
    %s = relax.sin %v : tensor<2xf32>
    relax.yield %s : tensor<2xf32>
  } ]
  return %a, %b : tensor<2xf32>, tensor<2xf32>
}
