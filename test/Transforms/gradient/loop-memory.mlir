// What reverse mode stores for a loop, as relax-memory-report sees it: the
// adjoint of a scan of 64 iterations over a 1 KiB carry stacks the 64 carries
// (64 KiB); with checkpoint_every = 8 it stacks 8 chunk carries, and each
// chunk's backward pass 8 more (8 KiB each), so the peak drops from 68 KiB to
// 21 KiB.
// RUN: relax-opt %s --relax-convert-to-dataflow --gradient="func=store_all,checkpointed" | relax-opt --relax-memory-report -o /dev/null --mlir-print-op-on-diagnostic=false 2>&1 | FileCheck %s

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
