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

// A reduction of a broadcast, of ones and of full: the reduced tensor is
// never made (sum(ones((30000, 30000))) allocated 3.7 GB). A sum takes each
// term times the loops it no longer runs; max takes it once.
// CHECK-LABEL: func.func @sum_of_broadcast(
// CHECK-SAME:    %[[X:.*]]: tensor<3xf32>
// CHECK-DAG:     %[[N:.*]] = arith.constant 1.000000e+03 : f64
// CHECK-NOT:     tensor<1000x3xf32>
// CHECK:         linalg.generic {{.*}} iterator_types = ["reduction"]} ins(%[[X]] : tensor<3xf32>)
// CHECK:           %[[E:.*]] = arith.extf
// CHECK:           %[[M:.*]] = arith.mulf %[[E]], %[[N]] : f64
// CHECK:           arith.addf %[[M]]
func.func @sum_of_broadcast(%x: tensor<3xf32>) -> tensor<f32> {
  %r = relax.dataflow -> (tensor<f32>) {
    %b = relax.broadcast_to %x : tensor<3xf32> -> tensor<1000x3xf32>
    %s = relax.sum %b : tensor<1000x3xf32> -> tensor<f32>
    relax.output %s : tensor<f32>
  }
  return %r : tensor<f32>
}

// CHECK-LABEL: func.func @max_of_exp_of_broadcast(
// CHECK-NOT:     tensor<7x3xf32>
// CHECK:         linalg.generic {{.*}} iterator_types = ["parallel"]} ins(%{{.*}} : tensor<3xf32>)
// CHECK:           math.exp
// CHECK-NOT:       arith.mulf
// CHECK:           arith.maximumf
func.func @max_of_exp_of_broadcast(%x: tensor<3xf32>) -> tensor<3xf32> {
  %r = relax.dataflow -> (tensor<3xf32>) {
    %b = relax.broadcast_to %x : tensor<3xf32> -> tensor<7x3xf32>
    %e = relax.exp %b : tensor<7x3xf32>
    %m = relax.max %e {axis = array<i64: 0>} : tensor<7x3xf32> -> tensor<3xf32>
    relax.output %m : tensor<3xf32>
  }
  return %r : tensor<3xf32>
}

// CHECK-LABEL: func.func @sum_of_ones(
// CHECK-NOT:     tensor<30000x30000xf32>
// CHECK:         %[[N:.*]] = arith.constant 9.000000e+08 : f64
// CHECK:         linalg.generic {{.*}} iterator_types = []}
// CHECK:           arith.addf %{{.*}}, %[[N]] : f64
func.func @sum_of_ones() -> tensor<f32> {
  %r = relax.dataflow -> (tensor<f32>) {
    %o = relax.ones : tensor<30000x30000xf32>
    %s = relax.sum %o : tensor<30000x30000xf32> -> tensor<f32>
    relax.output %s : tensor<f32>
  }
  return %r : tensor<f32>
}

// A product is left as it is (a repeated factor is a power).
// CHECK-LABEL: func.func @prod_of_broadcast(
// CHECK:         tensor<4x3xf32>
func.func @prod_of_broadcast(%x: tensor<3xf32>) -> tensor<f32> {
  %r = relax.dataflow -> (tensor<f32>) {
    %b = relax.broadcast_to %x : tensor<3xf32> -> tensor<4x3xf32>
    %s = relax.prod %b : tensor<4x3xf32> -> tensor<f32>
    relax.output %s : tensor<f32>
  }
  return %r : tensor<f32>
}
