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

// An accumulation whose terms are computed in between (a shared weight's
// gradient) stays a chain of adds, one after each term: fused into one op at
// the end it would hold every term until then. Adjacent elementwise ops whose
// operands stay live anyway still fuse (the multiply into the last add).
// CHECK-LABEL: func.func @accumulation_not_deferred(
// CHECK:         %[[D1:.*]] = linalg.generic {{.*}} "reduction"]
// CHECK:         %[[D2:.*]] = linalg.generic {{.*}} "reduction"]
// CHECK:         %[[G2:.*]] = linalg.generic {{.*}} ins(%[[D1]], %[[D2]] :
// CHECK:           arith.addf
// CHECK:         %[[D3:.*]] = linalg.generic {{.*}} "reduction"]
// CHECK:         linalg.generic {{.*}} ins(%[[G2]], %[[D3]], %arg0 :
// CHECK:           arith.mulf
// CHECK:           arith.addf
// CHECK-NOT:     linalg.generic
// CHECK:         return
func.func @accumulation_not_deferred(%x: tensor<16x16xf32>, %w: tensor<16x16xf32>) -> tensor<16x16xf32> {
  %r = relax.dataflow -> (tensor<16x16xf32>) {
    %d1 = relax.matmul %x, %w : tensor<16x16xf32>, tensor<16x16xf32> -> tensor<16x16xf32>
    %d2 = relax.matmul %d1, %w : tensor<16x16xf32>, tensor<16x16xf32> -> tensor<16x16xf32>
    %g2 = relax.add %d1, %d2 : tensor<16x16xf32>, tensor<16x16xf32> -> tensor<16x16xf32>
    %d3 = relax.matmul %d2, %w : tensor<16x16xf32>, tensor<16x16xf32> -> tensor<16x16xf32>
    %g3 = relax.add %g2, %d3 : tensor<16x16xf32>, tensor<16x16xf32> -> tensor<16x16xf32>
    %s = relax.multiply %x, %x : tensor<16x16xf32>, tensor<16x16xf32> -> tensor<16x16xf32>
    %y = relax.add %g3, %s : tensor<16x16xf32>, tensor<16x16xf32> -> tensor<16x16xf32>
    relax.output %y : tensor<16x16xf32>
  }
  return %r : tensor<16x16xf32>
}
