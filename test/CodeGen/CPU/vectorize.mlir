// The CPU schedule on relax programs: after relax-cpu-vectorize, contraction
// tiles are vector.contract on registers carried through the k loop,
// elementwise chains are one loop nest of vector ops, and transposes stay in
// indexing maps; after the whole pipeline, the k loop is FMAs on vectors.
// RUN: relax-opt %s --convert-relax-to-linalg --canonicalize --relax-fuse-elementwise --relax-cpu-select-tiles=vector-bits=512 --relax-cpu-pack=vector-bits=512 --relax-cpu-tile --canonicalize --relax-cpu-vectorize --canonicalize | FileCheck %s
// RUN: relax-opt %s --relax-to-llvm=vector-bits=512 --mlir-print-ir-after=relax-cpu-lower-vectors --mlir-disable-threading 2>&1 >/dev/null | FileCheck %s --check-prefix=LOWERED
// RUN: relax-opt %s --relax-to-llvm=vector-bits=512 | FileCheck %s --check-prefix=LLVM
// The plain pipeline keeps scalar loops.
// RUN: relax-opt %s --relax-to-llvm=opt-level=0 | FileCheck %s --check-prefix=PLAIN

// CHECK-LABEL: func.func @matmul(
// CHECK-SAME:    %[[LHS:[a-z0-9]+]]: tensor<64x784xf32>
// CHECK-NOT:     linalg.
// CHECK-NOT:     vector.transpose
// CHECK:         scf.for %{{.*}} step %c64
// CHECK:           scf.for %{{.*}} step %c6
// The reduction in 4 blocks of 196 steps, each summed from zero in registers
// and added to the tile.
// CHECK:             %[[ACC:.*]] = scf.for %{{.*}} = %c0 to %c784 step %c196 iter_args(%[[S:.*]] = %[[Z:.*]]) -> (vector<6x64xf32>)
// CHECK:               %[[BLOCK:.*]] = scf.for %{{.*}} = %c0 to %c196 step %c1 iter_args(%[[A:.*]] = %[[Z]]) -> (vector<6x64xf32>)
// CHECK:                 vector.transfer_read %[[LHS]]{{.*}} vector<6x1xf32>
// CHECK:                 vector.transfer_read {{.*}} vector<64xf32>
// CHECK:                 %[[C:.*]] = vector.contract {{.*}} %[[A]] : vector<6x1xf32>, vector<1x64xf32> into vector<6x64xf32>
// CHECK:                 scf.yield %[[C]] : vector<6x64xf32>
// CHECK:               %[[SUM:.*]] = arith.addf %[[S]], %[[BLOCK]] : vector<6x64xf32>
// CHECK:               scf.yield %[[SUM]] : vector<6x64xf32>
// CHECK:             vector.transfer_write %[[ACC]]
// LOWERED-LABEL: func.func @matmul(
// LOWERED:         scf.for %{{.*}} = %c0 to %c196 step %c1 iter_args(%{{.*}}) -> (vector<6x64xf32>)
// LOWERED-COUNT-6:   vector.fma {{.*}} : vector<64xf32>
// LOWERED:           scf.yield
// LLVM-LABEL: llvm.func @matmul(
// LLVM:         llvm.intr.fmuladd({{.*}}) : (vector<64xf32>, vector<64xf32>, vector<64xf32>) -> vector<64xf32>
// PLAIN-LABEL: llvm.func @matmul(
// PLAIN-NOT:    vector<
// PLAIN:        llvm.return
func.func @matmul(%a: tensor<64x784xf32>, %b: tensor<784x256xf32>) -> tensor<64x256xf32> {
  %r = relax.dataflow -> (tensor<64x256xf32>) {
    %mm = relax.matmul %a, %b : tensor<64x784xf32>, tensor<784x256xf32> -> tensor<64x256xf32>
    relax.output %mm : tensor<64x256xf32>
  }
  return %r : tensor<64x256xf32>
}

// x^T @ dy with x^T from permute_dims: no transposed copy, the tile reads six
// consecutive elements of a row of x.
// CHECK-LABEL: func.func @transposed(
// CHECK-NOT:     linalg.transpose
// CHECK-NOT:     vector.transpose
// CHECK:         scf.for %{{.*}} iter_args(%{{.*}}) -> (vector<6x64xf32>)
// CHECK:           vector.transfer_read %arg0{{.*}} : tensor<64x784xf32>, vector<6xf32>
// CHECK:           vector.contract
// CHECK-NOT:     linalg.transpose
// CHECK-NOT:     vector.transpose
// CHECK:         return
func.func @transposed(%x: tensor<64x784xf32>, %d: tensor<64x256xf32>) -> tensor<784x256xf32> {
  %r = relax.dataflow -> (tensor<784x256xf32>) {
    %xt = relax.permute_dims %x {axes = array<i64: 1, 0>} : tensor<64x784xf32> -> tensor<784x64xf32>
    %g = relax.matmul %xt, %d : tensor<784x64xf32>, tensor<64x256xf32> -> tensor<784x256xf32>
    relax.output %g : tensor<784x256xf32>
  }
  return %r : tensor<784x256xf32>
}

// x^T @ dy with rows of x 4 KiB apart: every step of a row tile would read
// a row in the same L1 set as the last (128 steps evicting each other), so x
// is packed first: a row-major copy of x^T made in 16x16 tiles (16 rows of
// x read, transposed in registers, written as 16 rows), which the tiles
// then read 6 rows at a time.
// CHECK-LABEL: func.func @transposed_rows_in_one_set(
// CHECK-SAME:    %[[X:[a-z0-9]+]]: tensor<16x1024xf32>
// CHECK:         %[[XT:.*]] = scf.for %[[C:.*]] = %c0 to %c1024 step %c16 iter_args({{.*}}) -> (tensor<1024x16xf32>)
// CHECK:           %[[T:.*]] = vector.transfer_read %[[X]][%c0, %[[C]]]{{.*}} : tensor<16x1024xf32>, vector<16x16xf32>
// CHECK:           %[[TT:.*]] = vector.transpose %[[T]], [1, 0] : vector<16x16xf32> to vector<16x16xf32>
// CHECK:           vector.transfer_write %[[TT]], %{{.*}}[%[[C]], %c0]{{.*}} : vector<16x16xf32>, tensor<1024x16xf32>
// CHECK:         scf.for %{{.*}} iter_args(%{{.*}}) -> (vector<6x64xf32>)
// CHECK:           vector.transfer_read %[[XT]]{{.*}} : tensor<1024x16xf32>, vector<6x1xf32>
// CHECK:           vector.contract
// CHECK-NOT:     %[[X]]
// CHECK:         return
// LOWERED-LABEL: func.func @transposed_rows_in_one_set(
// LOWERED-NOT:     vector.transpose
// LOWERED:         vector.shuffle {{.*}} [0, 16, 1, 17, 4, 20, 5, 21, 8, 24, 9, 25, 12, 28, 13, 29] : vector<16xf32>, vector<16xf32>
// LOWERED-NOT:     vector.transpose
// LOWERED:         return
func.func @transposed_rows_in_one_set(%x: tensor<16x1024xf32>, %d: tensor<16x256xf32>) -> tensor<1024x256xf32> {
  %r = relax.dataflow -> (tensor<1024x256xf32>) {
    %xt = relax.permute_dims %x {axes = array<i64: 1, 0>} : tensor<16x1024xf32> -> tensor<1024x16xf32>
    %g = relax.matmul %xt, %d : tensor<1024x16xf32>, tensor<16x256xf32> -> tensor<1024x256xf32>
    relax.output %g : tensor<1024x256xf32>
  }
  return %r : tensor<1024x256xf32>
}

// A transpose the program returns: 16x16 tiles, not rows written an element
// at a time; of 30 columns (not a multiple of 16), the last 14 are a peeled
// 16x14 tile.
// CHECK-LABEL: func.func @permute(
// CHECK:         scf.for %[[I:.*]] = %c0 to %c32 step %c16
// CHECK:           scf.for %[[J:.*]] = %c0 to %c64 step %c16
// CHECK:             %[[T:.*]] = vector.transfer_read %arg0[%[[J]], %[[I]]]{{.*}} : tensor<64x32xf32>, vector<16x16xf32>
// CHECK:             vector.transpose %[[T]], [1, 0] : vector<16x16xf32> to vector<16x16xf32>
// CHECK-LABEL: func.func @permute_ragged(
// CHECK:         scf.for %[[J:.*]] = %c0 to %c64 step %c16
// CHECK:           %[[T:.*]] = vector.transfer_read %arg0[%[[J]], %c0]{{.*}} : tensor<64x30xf32>, vector<16x16xf32>
// CHECK:           vector.transpose %[[T]], [1, 0] : vector<16x16xf32> to vector<16x16xf32>
// CHECK:         scf.for %[[J2:.*]] = %c0 to %c64 step %c16
// CHECK:           %[[R:.*]] = vector.transfer_read %arg0[%[[J2]], %c16]{{.*}} : tensor<64x30xf32>, vector<16x14xf32>
// CHECK:           %[[RT:.*]] = vector.transpose %[[R]], [1, 0] : vector<16x14xf32> to vector<14x16xf32>
// CHECK:           vector.transfer_write %[[RT]], %{{.*}}[%c16, %[[J2]]]
// CHECK:         return
func.func @permute(%x: tensor<64x32xf32>) -> tensor<32x64xf32> {
  %r = relax.dataflow -> (tensor<32x64xf32>) {
    %xt = relax.permute_dims %x {axes = array<i64: 1, 0>} : tensor<64x32xf32> -> tensor<32x64xf32>
    relax.output %xt : tensor<32x64xf32>
  }
  return %r : tensor<32x64xf32>
}
func.func @permute_ragged(%x: tensor<64x30xf32>) -> tensor<30x64xf32> {
  %r = relax.dataflow -> (tensor<30x64xf32>) {
    %xt = relax.permute_dims %x {axes = array<i64: 1, 0>} : tensor<64x30xf32> -> tensor<30x64xf32>
    relax.output %xt : tensor<30x64xf32>
  }
  return %r : tensor<30x64xf32>
}

// bias add, tanh and a product: one loop nest, one read of each input and one
// write per 128-element step, nothing in between in memory.
// CHECK-LABEL: func.func @chain(
// CHECK:         scf.for %{{.*}} = %c0 to %c64 step %c1
// CHECK-NEXT:      scf.for %{{.*}} = %c0 to %c256 step %c128
// CHECK:             vector.transfer_read %arg0{{.*}} vector<128xf32>
// CHECK:             vector.transfer_read %arg1{{.*}} vector<128xf32>
// CHECK:             arith.addf {{.*}} : vector<128xf32>
// CHECK:             math.tanh {{.*}} : vector<128xf32>
// CHECK:             arith.mulf {{.*}} : vector<128xf32>
// CHECK:             vector.transfer_write
// CHECK-NOT:     scf.for
// CHECK:         return
func.func @chain(%x: tensor<64x256xf32>, %b: tensor<256xf32>) -> tensor<64x256xf32> {
  %r = relax.dataflow -> (tensor<64x256xf32>) {
    %h = relax.add %x, %b : tensor<64x256xf32>, tensor<256xf32> -> tensor<64x256xf32>
    %t = relax.tanh %h : tensor<64x256xf32>
    %m = relax.multiply %t, %x : tensor<64x256xf32>, tensor<64x256xf32> -> tensor<64x256xf32>
    relax.output %m : tensor<64x256xf32>
  }
  return %r : tensor<64x256xf32>
}

// A row max: one vector reduction per row.
// CHECK-LABEL: func.func @row_max(
// CHECK:         scf.for %{{.*}} = %c0 to %c64 step %c1
// CHECK:           vector.transfer_read %arg0{{.*}} vector<10xf32>
// CHECK:           vector.multi_reduction <maximumf>, {{.*}} [1] : vector<1x10xf32> to vector<1xf32>
func.func @row_max(%x: tensor<64x10xf32>) -> tensor<64xf32> {
  %r = relax.dataflow -> (tensor<64xf32>) {
    %s = relax.max %x {axis = array<i64: 1>} : tensor<64x10xf32> -> tensor<64xf32>
    relax.output %s : tensor<64xf32>
  }
  return %r : tensor<64xf32>
}

// A convolution: its patches are gathered into [N, C, KH, KW, OH, OW], each
// row one contiguous read of x (no vector.gather); the product with the
// filter runs as 6x64 register tiles carried through its reduction
// loop, the batch outermost so that one image's patches stay in cache.
// CHECK-LABEL: func.func @conv(
// CHECK-SAME:    %[[X:[a-z0-9]+]]: tensor<2x16x18x18xf32>
// CHECK-NOT:     vector.gather
// CHECK:         vector.transfer_read %[[X]][{{.*}}], %{{.*}} {in_bounds = [true]} : tensor<2x16x18x18xf32>, vector<16xf32>
// CHECK:         %[[COLS:.*]] = tensor.collapse_shape %{{.*}} {{\[}}[0], [1, 2, 3], [4, 5]] : tensor<2x16x3x3x16x16xf32> into tensor<2x144x256xf32>
// CHECK:         scf.for %[[N:[a-z0-9]+]] = %c0 to %c2 step %c1
// CHECK:           scf.for %[[P:[a-z0-9]+]] = %c0 to %c256 step %c64
// CHECK:             scf.for %{{.*}} = %c0 to %c30 step %c6
// CHECK:               scf.for %[[K:[a-z0-9]+]] = %c0 to %c144 step %c1 iter_args(%{{.*}} = %{{.*}}) -> (vector<6x64xf32>)
// CHECK:                 vector.transfer_read %[[COLS]][%[[N]], %[[K]], %[[P]]]{{.*}} vector<64xf32>
// CHECK:                 vector.contract
// CHECK-NOT:     vector.gather
// CHECK:         tensor.expand_shape %{{.*}} {{\[}}[0], [1], [2, 3]] output_shape [2, 32, 16, 16]
func.func @conv(%x: tensor<2x16x18x18xf32>, %w: tensor<32x16x3x3xf32>) -> tensor<2x32x16x16xf32> {
  %r = relax.conv2d %x, %w : tensor<2x16x18x18xf32>, tensor<32x16x3x3xf32> -> tensor<2x32x16x16xf32>
  return %r : tensor<2x32x16x16xf32>
}

// Fewer than 256 output pixels per image (10x10 here): the patches are laid
// out [C, KH, KW, N, OH, OW] and viewed as one [150, 400] matrix whose
// columns are every image's pixels, the filter [16, 150] multiplies it in
// 16x16 register tiles (started from zero: the output's fill folds into the
// tile), and the [16, 4, 10, 10] product is transposed to NCHW.
// CHECK-LABEL: func.func @conv_merged_batch(
// CHECK:         %[[COLS:.*]] = tensor.collapse_shape %{{.*}} {{\[}}[0, 1, 2], [3, 4, 5]] : tensor<6x5x5x4x10x10xf32> into tensor<150x400xf32>
// CHECK:         tensor.collapse_shape %{{.*}} {{\[}}[0], [1, 2, 3]] : tensor<16x6x5x5xf32> into tensor<16x150xf32>
// CHECK:         scf.for %[[P:[a-z0-9]+]] = %c0 to %c400 step %c16
// CHECK:           scf.for %[[K:[a-z0-9]+]] = %c0 to %c150 step %c1 iter_args(%{{.*}} = %cst{{.*}}) -> (vector<16x16xf32>)
// CHECK:             vector.transfer_read %[[COLS]][%[[K]], %[[P]]]{{.*}} vector<16xf32>
// CHECK:             vector.contract
// CHECK:         tensor.expand_shape %{{.*}} {{\[}}[0], [1, 2, 3]] output_shape [16, 4, 10, 10] : tensor<16x400xf32> into tensor<16x4x10x10xf32>
// CHECK:         scf.for %{{.*}} = %c0 to %c4 step %c1 iter_args(%{{.*}}) -> (tensor<4x16x10x10xf32>)
func.func @conv_merged_batch(%x: tensor<4x6x14x14xf32>, %w: tensor<16x6x5x5xf32>) -> tensor<4x16x10x10xf32> {
  %r = relax.conv2d %x, %w : tensor<4x6x14x14xf32>, tensor<16x6x5x5xf32> -> tensor<4x16x10x10xf32>
  return %r : tensor<4x16x10x10xf32>
}

// dz @ w^T with a reduction of 10 (not a multiple of the vector, so not the
// dot-product form): w^T's columns are strided in w. w is copied transposed
// once (2560 elements), and each step of a tile reads 64 consecutive columns
// of the copy instead of gathering them from w.
// CHECK-LABEL: func.func @strided_columns(
// CHECK-SAME:    %{{[a-z0-9]+}}: tensor<64x10xf32>, %[[W:[a-z0-9]+]]: tensor<256x10xf32>
// CHECK:         %[[COPY:.*]] = scf.for {{.*}} -> (tensor<10x256xf32>)
// CHECK:           vector.transfer_read %[[W]]
// CHECK:           vector.transfer_write {{.*}} : vector<10x1xf32>, tensor<10x256xf32>
// CHECK:         scf.for {{.*}} step %c64
// CHECK:           scf.for {{.*}} step %c6
// CHECK:             scf.for {{.*}} -> (vector<6x64xf32>)
// CHECK-NOT:           %[[W]]
// CHECK:               vector.transfer_read %[[COPY]]{{.*}} : tensor<10x256xf32>, vector<64xf32>
// CHECK:               vector.contract {{.*}} : vector<6x1xf32>, vector<1x64xf32> into vector<6x64xf32>
// CHECK-NOT:     vector<64x1xf32>
// CHECK:         return
func.func @strided_columns(%d: tensor<64x10xf32>, %w: tensor<256x10xf32>) -> tensor<64x256xf32> {
  %r = relax.dataflow -> (tensor<64x256xf32>) {
    %t = relax.permute_dims %w {axes = array<i64: 1, 0>} : tensor<256x10xf32> -> tensor<10x256xf32>
    %o = relax.matmul %d, %t : tensor<64x10xf32>, tensor<10x256xf32> -> tensor<64x256xf32>
    relax.output %o : tensor<64x256xf32>
  }
  return %r : tensor<64x256xf32>
}
