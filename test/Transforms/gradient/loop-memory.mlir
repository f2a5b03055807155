// What reverse mode stores for a loop, as relax-memory-report sees it: the
// adjoint of a scan of 64 iterations over a 1 KiB carry stacks the 64 carries
// (64 KiB); with checkpoint_every = 8 it stacks 8 chunk carries, and each
// chunk's backward pass 8 more (8 KiB each), so the peak drops from 68 KiB to
// 21 KiB.
// RUN: relax-opt %s --relax-convert-to-dataflow --gradient="func=store_all,checkpointed,bounded_while" | relax-opt --relax-memory-report -o /dev/null --mlir-print-op-on-diagnostic=false 2>&1 | FileCheck %s

// CHECK: remark: peak live tensor bytes: 69636
// CHECK: remark: scan of 64 iterations stacks 65536 bytes
// CHECK: remark: peak live tensor bytes: 21508
// CHECK: remark: scan of 8 iterations stacks 8192 bytes
// CHECK: remark: scan of 8 iterations stacks 8192 bytes
// CHECK-NOT: stacks
func.func @store_all(%c: tensor<256xf32>) -> tensor<f32> {
  %r = relax.scan length = 64 init(%c : tensor<256xf32>) -> (tensor<256xf32>) {
  ^bb0(%h: tensor<256xf32>):
    %t = relax.sin %h : tensor<256xf32>
    relax.yield %t : tensor<256xf32>
  }
  %s = relax.sum %r : tensor<256xf32> -> tensor<f32>
  return %s : tensor<f32>
}
func.func @checkpointed(%c: tensor<256xf32>) -> tensor<f32> {
  %r = relax.scan length = 64 init(%c : tensor<256xf32>) -> (tensor<256xf32>) {
  ^bb0(%h: tensor<256xf32>):
    %t = relax.sin %h : tensor<256xf32>
    relax.yield %t : tensor<256xf32>
  } {checkpoint_every = 8 : i64}
  %s = relax.sum %r : tensor<256xf32> -> tensor<f32>
  return %s : tensor<f32>
}

// A while loop of at most 4096 iterations over the same carry (fan-out 8:
// a top scan of 8 chunks of 512, then levels of 8 below): each of the 4 levels
// stacks 8 states (the 1 KiB carry, its done flag and counter), 4 x 8 of 4096
// carries: a peak of 43 KiB where storing every carry would take 4 MiB.
// CHECK: remark: peak live tensor bytes: 44325
// CHECK: remark: scan of 8 iterations stacks 8264 bytes
// CHECK: remark: scan of 8 iterations stacks 8264 bytes
// CHECK: remark: scan of 8 iterations stacks 8264 bytes
// CHECK: remark: scan of 8 iterations stacks 8264 bytes
// CHECK-NOT: stacks
func.func @bounded_while(%c: tensor<256xf32>) -> tensor<f32> {
  %r = relax.while max_iterations = 4096 init(%c : tensor<256xf32>) -> (tensor<256xf32>) cond {
  ^bb0(%h: tensor<256xf32>):
    %s = relax.sum %h : tensor<256xf32> -> tensor<f32>
    %z = arith.constant dense<0.0> : tensor<f32>
    %p = relax.greater %s, %z : tensor<f32>, tensor<f32> -> tensor<i1>
    relax.condition %p : tensor<i1>
  } do {
  ^bb0(%h: tensor<256xf32>):
    %t = relax.sin %h : tensor<256xf32>
    relax.yield %t : tensor<256xf32>
  }
  %s = relax.sum %r : tensor<256xf32> -> tensor<f32>
  return %s : tensor<f32>
}
