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

// A chain of 100 elementwise ops is not fused into one body: each fusion
// copies the producer's body, so one ever-growing body made a chain of N ops
// cost O(N^2) to compile (20,000 ops: 585 s). Bodies stop at 64 ops
// (kMaxFusedBodyOps, yield included), so the chain is two loops.
// CHECK-LABEL: func.func @long_chain(
// CHECK:         %[[FIRST:.*]] = linalg.generic
// CHECK-COUNT-38:  math.tanh
// CHECK-NOT:       math.tanh
// CHECK:           linalg.yield
// CHECK:         linalg.generic {{.*}} ins(%[[FIRST]]
// CHECK-COUNT-62:  math.tanh
// CHECK-NOT:       math.tanh
// CHECK:           linalg.yield
// CHECK-NOT:     linalg.generic
// CHECK:         return
func.func @long_chain(%x: tensor<16xf32>) -> tensor<16xf32> {
  %r = relax.dataflow -> (tensor<16xf32>) {
    %v0 = relax.tanh %x : tensor<16xf32>
    %v1 = relax.tanh %v0 : tensor<16xf32>
    %v2 = relax.tanh %v1 : tensor<16xf32>
    %v3 = relax.tanh %v2 : tensor<16xf32>
    %v4 = relax.tanh %v3 : tensor<16xf32>
    %v5 = relax.tanh %v4 : tensor<16xf32>
    %v6 = relax.tanh %v5 : tensor<16xf32>
    %v7 = relax.tanh %v6 : tensor<16xf32>
    %v8 = relax.tanh %v7 : tensor<16xf32>
    %v9 = relax.tanh %v8 : tensor<16xf32>
    %v10 = relax.tanh %v9 : tensor<16xf32>
    %v11 = relax.tanh %v10 : tensor<16xf32>
    %v12 = relax.tanh %v11 : tensor<16xf32>
    %v13 = relax.tanh %v12 : tensor<16xf32>
    %v14 = relax.tanh %v13 : tensor<16xf32>
    %v15 = relax.tanh %v14 : tensor<16xf32>
    %v16 = relax.tanh %v15 : tensor<16xf32>
    %v17 = relax.tanh %v16 : tensor<16xf32>
    %v18 = relax.tanh %v17 : tensor<16xf32>
    %v19 = relax.tanh %v18 : tensor<16xf32>
    %v20 = relax.tanh %v19 : tensor<16xf32>
    %v21 = relax.tanh %v20 : tensor<16xf32>
    %v22 = relax.tanh %v21 : tensor<16xf32>
    %v23 = relax.tanh %v22 : tensor<16xf32>
    %v24 = relax.tanh %v23 : tensor<16xf32>
    %v25 = relax.tanh %v24 : tensor<16xf32>
    %v26 = relax.tanh %v25 : tensor<16xf32>
    %v27 = relax.tanh %v26 : tensor<16xf32>
    %v28 = relax.tanh %v27 : tensor<16xf32>
    %v29 = relax.tanh %v28 : tensor<16xf32>
    %v30 = relax.tanh %v29 : tensor<16xf32>
    %v31 = relax.tanh %v30 : tensor<16xf32>
    %v32 = relax.tanh %v31 : tensor<16xf32>
    %v33 = relax.tanh %v32 : tensor<16xf32>
    %v34 = relax.tanh %v33 : tensor<16xf32>
    %v35 = relax.tanh %v34 : tensor<16xf32>
    %v36 = relax.tanh %v35 : tensor<16xf32>
    %v37 = relax.tanh %v36 : tensor<16xf32>
    %v38 = relax.tanh %v37 : tensor<16xf32>
    %v39 = relax.tanh %v38 : tensor<16xf32>
    %v40 = relax.tanh %v39 : tensor<16xf32>
    %v41 = relax.tanh %v40 : tensor<16xf32>
    %v42 = relax.tanh %v41 : tensor<16xf32>
    %v43 = relax.tanh %v42 : tensor<16xf32>
    %v44 = relax.tanh %v43 : tensor<16xf32>
    %v45 = relax.tanh %v44 : tensor<16xf32>
    %v46 = relax.tanh %v45 : tensor<16xf32>
    %v47 = relax.tanh %v46 : tensor<16xf32>
    %v48 = relax.tanh %v47 : tensor<16xf32>
    %v49 = relax.tanh %v48 : tensor<16xf32>
    %v50 = relax.tanh %v49 : tensor<16xf32>
    %v51 = relax.tanh %v50 : tensor<16xf32>
    %v52 = relax.tanh %v51 : tensor<16xf32>
    %v53 = relax.tanh %v52 : tensor<16xf32>
    %v54 = relax.tanh %v53 : tensor<16xf32>
    %v55 = relax.tanh %v54 : tensor<16xf32>
    %v56 = relax.tanh %v55 : tensor<16xf32>
    %v57 = relax.tanh %v56 : tensor<16xf32>
    %v58 = relax.tanh %v57 : tensor<16xf32>
    %v59 = relax.tanh %v58 : tensor<16xf32>
    %v60 = relax.tanh %v59 : tensor<16xf32>
    %v61 = relax.tanh %v60 : tensor<16xf32>
    %v62 = relax.tanh %v61 : tensor<16xf32>
    %v63 = relax.tanh %v62 : tensor<16xf32>
    %v64 = relax.tanh %v63 : tensor<16xf32>
    %v65 = relax.tanh %v64 : tensor<16xf32>
    %v66 = relax.tanh %v65 : tensor<16xf32>
    %v67 = relax.tanh %v66 : tensor<16xf32>
    %v68 = relax.tanh %v67 : tensor<16xf32>
    %v69 = relax.tanh %v68 : tensor<16xf32>
    %v70 = relax.tanh %v69 : tensor<16xf32>
    %v71 = relax.tanh %v70 : tensor<16xf32>
    %v72 = relax.tanh %v71 : tensor<16xf32>
    %v73 = relax.tanh %v72 : tensor<16xf32>
    %v74 = relax.tanh %v73 : tensor<16xf32>
    %v75 = relax.tanh %v74 : tensor<16xf32>
    %v76 = relax.tanh %v75 : tensor<16xf32>
    %v77 = relax.tanh %v76 : tensor<16xf32>
    %v78 = relax.tanh %v77 : tensor<16xf32>
    %v79 = relax.tanh %v78 : tensor<16xf32>
    %v80 = relax.tanh %v79 : tensor<16xf32>
    %v81 = relax.tanh %v80 : tensor<16xf32>
    %v82 = relax.tanh %v81 : tensor<16xf32>
    %v83 = relax.tanh %v82 : tensor<16xf32>
    %v84 = relax.tanh %v83 : tensor<16xf32>
    %v85 = relax.tanh %v84 : tensor<16xf32>
    %v86 = relax.tanh %v85 : tensor<16xf32>
    %v87 = relax.tanh %v86 : tensor<16xf32>
    %v88 = relax.tanh %v87 : tensor<16xf32>
    %v89 = relax.tanh %v88 : tensor<16xf32>
    %v90 = relax.tanh %v89 : tensor<16xf32>
    %v91 = relax.tanh %v90 : tensor<16xf32>
    %v92 = relax.tanh %v91 : tensor<16xf32>
    %v93 = relax.tanh %v92 : tensor<16xf32>
    %v94 = relax.tanh %v93 : tensor<16xf32>
    %v95 = relax.tanh %v94 : tensor<16xf32>
    %v96 = relax.tanh %v95 : tensor<16xf32>
    %v97 = relax.tanh %v96 : tensor<16xf32>
    %v98 = relax.tanh %v97 : tensor<16xf32>
    %v99 = relax.tanh %v98 : tensor<16xf32>
    relax.output %v99 : tensor<16xf32>
  }
  return %r : tensor<16xf32>
}

// The repeats of relax.tile are read through `mod` maps, which bound no loop:
// its sum is left as it is (dropping the repeats gave an op whose loop
// ranges nothing determined: "invalid indexing maps are non-invertible").
// CHECK-LABEL: func.func @sum_of_tile(
// CHECK:         %[[T:.*]] = linalg.generic {{.*}} outs(%{{.*}} : tensor<6x2xf64>)
// CHECK:         linalg.generic {{.*}} ins(%[[T]] : tensor<6x2xf64>)
func.func @sum_of_tile(%x: tensor<2x1xf64>) -> tensor<f64> {
  %r = relax.dataflow -> (tensor<f64>) {
    %t = relax.tile %x {repeats = array<i64: 3, 2>} : tensor<2x1xf64> -> tensor<6x2xf64>
    %s = relax.sum %t : tensor<6x2xf64> -> tensor<f64>
    relax.output %s : tensor<f64>
  }
  return %r : tensor<f64>
}

// A transpose of a generic's only use becomes a generic and takes the
// producer in: the patches are written in the permuted [C*KH*KW, N, OH*OW]
// layout by one op (no patches tensor copied by a linalg.transpose). The
// transpose of a function argument stays a transpose.
// CHECK-LABEL: func.func @patches_transposed(
// CHECK-NOT:     linalg.transpose
// CHECK:         %[[P:.*]] = linalg.generic {{.*}} outs(%{{.*}} : tensor<2x2x2x2x3x3xf32>)
// CHECK:           tensor.extract
// CHECK-NOT:     linalg.transpose
// CHECK:         return
func.func @patches_transposed(%x: tensor<2x2x4x4xf32>) -> tensor<8x2x9xf32> {
  %p = relax.conv2d_patches %x {kernel_size = array<i64: 2, 2>} : tensor<2x2x4x4xf32> -> tensor<2x8x3x3xf32>
  %q = relax.reshape %p : tensor<2x8x3x3xf32> -> tensor<2x8x9xf32>
  %t = relax.permute_dims %q {axes = array<i64: 1, 0, 2>} : tensor<2x8x9xf32> -> tensor<8x2x9xf32>
  return %t : tensor<8x2x9xf32>
}

// CHECK-LABEL: func.func @argument_transposed(
// CHECK:         linalg.transpose ins(%arg0
func.func @argument_transposed(%x: tensor<4x3xf32>) -> tensor<3x4xf32> {
  %t = relax.permute_dims %x : tensor<4x3xf32> -> tensor<3x4xf32>
  return %t : tensor<3x4xf32>
}

// -----

// A reshape is not fused into a contraction when that would leave the
// contraction's innermost output dimension under 16 elements (a register
// tile of one column): the 64x400 product stays whole and the reshape
// stays after it. A reshape that keeps 64 columns is fused.
// CHECK-LABEL: func.func @reshape_keeps_contraction_columns
// CHECK: linalg.generic {{.*}} outs(%{{.*}} : tensor<64x400xf32>)
// CHECK: tensor.expand_shape %{{.*}} {{\[\[}}0], [1, 2, 3, 4, 5]] {{.*}} : tensor<64x400xf32> into tensor<64x16x5x1x5x1xf32>
// CHECK: linalg.generic {{.*}} outs(%{{.*}} : tensor<64x12x64xf32>)
func.func @reshape_keeps_contraction_columns(%a: tensor<64x120xf32>, %w: tensor<120x400xf32>, %w2: tensor<120x768xf32>) -> (tensor<64x16x5x1x5x1xf32>, tensor<64x12x64xf32>) {
  %p = relax.matmul %a, %w : tensor<64x120xf32>, tensor<120x400xf32> -> tensor<64x400xf32>
  %r = relax.reshape %p : tensor<64x400xf32> -> tensor<64x16x5x1x5x1xf32>
  %y = relax.relu %r : tensor<64x16x5x1x5x1xf32>
  %q = relax.matmul %a, %w2 : tensor<64x120xf32>, tensor<120x768xf32> -> tensor<64x768xf32>
  %s = relax.reshape %q : tensor<64x768xf32> -> tensor<64x12x64xf32>
  %z = relax.relu %s : tensor<64x12x64xf32>
  return %y, %z : tensor<64x16x5x1x5x1xf32>, tensor<64x12x64xf32>
}
