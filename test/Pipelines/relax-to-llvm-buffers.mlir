// Where results and temporaries live, on both pipelines: a result is computed
// in the caller's out-parameter (no temporary copied into it at the end), and
// each temporary is freed after its last use, not when the function returns.
// RUN: relax-opt %s --relax-to-llvm --mlir-print-ir-after=relax-early-dealloc --mlir-disable-threading -o /dev/null 2>&1 | FileCheck %s
// RUN: relax-opt %s --relax-to-llvm=opt-level=0 --mlir-print-ir-after=relax-early-dealloc --mlir-disable-threading -o /dev/null 2>&1 | FileCheck %s

// The temporaries (x @ w, tanh of it) are all freed before the
// elementwise tail runs: the second matmul is the last use of each. The two
// results are computed in the out-parameters directly, never copied into them.
// CHECK-LABEL: func.func @two_layers(
// CHECK-SAME:    %[[X:[a-z0-9]+]]: memref<64x128xf32>, %[[W:[a-z0-9]+]]: memref<128x128xf32>,
// CHECK-SAME:    %[[OUT0:[a-z0-9]+]]: memref<64x128xf32>, %[[OUT1:[a-z0-9]+]]: memref<64x128xf32>)
// CHECK-NOT:     memref.copy {{.*}}, %[[OUT0]]
// CHECK-NOT:     memref.copy {{.*}}, %[[OUT1]]
// CHECK:         math.tanh
// CHECK-NOT:     memref.copy {{.*}}, %[[OUT0]]
// CHECK-NOT:     memref.copy {{.*}}, %[[OUT1]]
// CHECK:         memref.dealloc
// CHECK-NOT:     memref.copy {{.*}}, %[[OUT0]]
// CHECK-NOT:     memref.copy {{.*}}, %[[OUT1]]
// CHECK:         math.exp
// CHECK-NOT:     memref.dealloc
// CHECK-NOT:     memref.copy
// CHECK:         return
func.func @two_layers(%x: tensor<64x128xf32>, %w: tensor<128x128xf32>)
    -> tuple<tensor<64x128xf32>, tensor<64x128xf32>> {
  %m = relax.matmul %x, %w : tensor<64x128xf32>, tensor<128x128xf32> -> tensor<64x128xf32>
  %h = relax.tanh %m : tensor<64x128xf32>
  %m2 = relax.matmul %h, %w : tensor<64x128xf32>, tensor<128x128xf32> -> tensor<64x128xf32>
  %e = relax.exp %m2 : tensor<64x128xf32>
  %t = relax.tuple(%m2, %e : tensor<64x128xf32>, tensor<64x128xf32>)
  return %t : tuple<tensor<64x128xf32>, tensor<64x128xf32>>
}

// A matmul computed over column panels (the rhs rows are 4 KiB) writes its
// result viewed as 512x16x64: that view is of the out-parameter itself.
// CHECK-LABEL: func.func @panels(
// CHECK-SAME:    %{{[a-z0-9]+}}: memref<512x256xf32>, %{{[a-z0-9]+}}: memref<256x1024xf32>, %[[OUT:[a-z0-9]+]]: memref<512x1024xf32>)
// CHECK-NOT:     memref.copy {{.*}}, %[[OUT]]
// CHECK-NOT:     linalg.copy {{.*}} outs(%[[OUT]]
// CHECK:         return
func.func @panels(%a: tensor<512x256xf32>, %b: tensor<256x1024xf32>) -> tensor<512x1024xf32> {
  %r = relax.matmul %a, %b : tensor<512x256xf32>, tensor<256x1024xf32> -> tensor<512x1024xf32>
  return %r : tensor<512x1024xf32>
}
