// relax-fuse-elementwise fuses a producer only into a consumer that reads
// each of its elements once: tanh(x + b) stays out of the matmul that reads
// it (which would recompute it per output column), exp fuses into the row sum.
// RUN: relax-opt %s --convert-relax-to-linalg --canonicalize --relax-fuse-elementwise | FileCheck %s

// CHECK-LABEL: func.func @not_into_matmul(
// CHECK:         %[[H:.*]] = linalg.generic {{.*}} iterator_types = ["parallel", "parallel"]
// CHECK:           math.tanh
// CHECK:         linalg.generic {{.*}} iterator_types = ["parallel", "parallel", "reduction"]} ins(%[[H]], %arg2
// CHECK-NOT:       math.tanh
// CHECK:           arith.mulf
// CHECK:           arith.addf
func.func @not_into_matmul(%x: tensor<8x16xf32>, %b: tensor<16xf32>, %w: tensor<16x4xf32>) -> tensor<8x4xf32> {
  %r = relax.dataflow -> (tensor<8x4xf32>) {
    %a = relax.add %x, %b : tensor<8x16xf32>, tensor<16xf32> -> tensor<8x16xf32>
    %h = relax.tanh %a : tensor<8x16xf32>
    %m = relax.matmul %h, %w : tensor<8x16xf32>, tensor<16x4xf32> -> tensor<8x4xf32>
    relax.output %m : tensor<8x4xf32>
  }
  return %r : tensor<8x4xf32>
}

// CHECK-LABEL: func.func @into_reduction(
// CHECK-NOT:     iterator_types = ["parallel", "parallel"]
// CHECK:         linalg.generic {{.*}} iterator_types = ["parallel", "reduction"]} ins(%arg0
// CHECK:           math.exp
// CHECK:           arith.addf
// CHECK-NOT:     math.exp
// CHECK:         return
func.func @into_reduction(%x: tensor<8x16xf32>) -> tensor<8xf32> {
  %r = relax.dataflow -> (tensor<8xf32>) {
    %e = relax.exp %x : tensor<8x16xf32>
    %s = relax.sum %e {axis = array<i64: 1>} : tensor<8x16xf32> -> tensor<8xf32>
    relax.output %s : tensor<8xf32>
  }
  return %r : tensor<8xf32>
}
