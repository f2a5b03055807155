// Elementwise consumers of a contraction (bias add, activation) run on each
// register tile while it is in registers: the tile loops are the consumer's,
// the contraction fused into them, and the contraction's own result is never
// stored.
// RUN: relax-opt %s --convert-relax-to-linalg --canonicalize --relax-fuse-elementwise --relax-cpu-select-tiles=vector-bits=512 --relax-cpu-pack=vector-bits=512 --relax-cpu-tile --canonicalize --relax-cpu-vectorize --canonicalize | FileCheck %s

// CHECK-LABEL: func.func @bias_relu(
// CHECK-SAME:    %{{[a-z0-9]+}}: tensor<64x784xf32>, %{{[a-z0-9]+}}: tensor<784x256xf32>, %[[BIAS:[a-z0-9]+]]: tensor<256xf32>
// CHECK-NOT:     linalg.
// CHECK:         scf.for %[[J:.*]] = %c0 to %c256 step %c64
// CHECK:           scf.for %[[I:.*]] = %c0 to %c60 step %c6
// CHECK:             %[[ACC:.*]] = scf.for {{.*}} -> (vector<6x64xf32>)
// CHECK:               scf.for {{.*}} -> (vector<6x64xf32>)
// CHECK:                 vector.contract
// CHECK-NEXT:            scf.yield %{{.*}} : vector<6x64xf32>
// CHECK-NEXT:          }
// CHECK-NEXT:          arith.addf
// CHECK-NEXT:          scf.yield %{{.*}} : vector<6x64xf32>
// CHECK-NEXT:        }
// CHECK-NEXT:        %[[B:.*]] = vector.transfer_read %[[BIAS]][%[[J]]]{{.*}} vector<64xf32>
// CHECK-NEXT:        %[[BB:.*]] = vector.broadcast %[[B]] : vector<64xf32> to vector<6x64xf32>
// CHECK-NEXT:        %[[S:.*]] = arith.addf %[[ACC]], %[[BB]] : vector<6x64xf32>
// CHECK-NEXT:        %[[R:.*]] = arith.maximumf %[[S]], %{{.*}} : vector<6x64xf32>
// CHECK-NEXT:        vector.transfer_write %[[R]], %{{.*}}[%[[I]], %[[J]]]
// The 4 remaining rows: the same epilogue on a 4x64 tile.
// CHECK:           scf.for {{.*}} -> (vector<4x64xf32>)
// CHECK:           arith.addf %{{.*}} : vector<4x64xf32>
// CHECK:           arith.maximumf %{{.*}} : vector<4x64xf32>
// No second loop nest over the product.
// CHECK-NOT:     scf.for
// CHECK:         return
func.func @bias_relu(%a: tensor<64x784xf32>, %b: tensor<784x256xf32>, %c: tensor<256xf32>) -> tensor<64x256xf32> {
  %r = relax.dataflow -> (tensor<64x256xf32>) {
    %mm = relax.matmul %a, %b : tensor<64x784xf32>, tensor<784x256xf32> -> tensor<64x256xf32>
    %s = relax.add %mm, %c : tensor<64x256xf32>, tensor<256xf32> -> tensor<64x256xf32>
    %y = relax.relu %s : tensor<64x256xf32>
    relax.output %y : tensor<64x256xf32>
  }
  return %r : tensor<64x256xf32>
}

// A product in rhs column panels (>= 512 rows): the epilogue is rewritten over
// the panelled shape, so gelu still runs on the 6x1x64 register tile and the
// result is collapsed back once.
// CHECK-LABEL: func.func @panel_bias_gelu(
// CHECK:         scf.for
// CHECK:           scf.for {{.*}} -> (tensor<16x256x64xf32>)
// CHECK:         scf.for {{.*}} -> (tensor<512x16x64xf32>)
// CHECK:           scf.for {{.*}} -> (tensor<512x16x64xf32>)
// CHECK:             %[[ACC:.*]] = scf.for {{.*}} -> (vector<6x1x64xf32>)
// CHECK:               vector.contract
// CHECK-NEXT:          scf.yield %{{.*}} : vector<6x1x64xf32>
// CHECK-NEXT:        }
// CHECK:             arith.addf %[[ACC]], %{{.*}} : vector<6x1x64xf32>
// CHECK:             math.erf %{{.*}} : vector<6x1x64xf32>
// CHECK:             vector.transfer_write {{.*}} : vector<6x1x64xf32>, tensor<512x16x64xf32>
// CHECK:           scf.for {{.*}} -> (vector<2x1x64xf32>)
// CHECK:           math.erf %{{.*}} : vector<2x1x64xf32>
// CHECK-NOT:     scf.for
// CHECK:         tensor.collapse_shape %{{.*}} {{\[}}[0], [1, 2]] : tensor<512x16x64xf32> into tensor<512x1024xf32>
// CHECK-NEXT:    return
func.func @panel_bias_gelu(%a: tensor<512x256xf32>, %b: tensor<256x1024xf32>, %c: tensor<1024xf32>) -> tensor<512x1024xf32> {
  %r = relax.dataflow -> (tensor<512x1024xf32>) {
    %mm = relax.matmul %a, %b : tensor<512x256xf32>, tensor<256x1024xf32> -> tensor<512x1024xf32>
    %s = relax.add %mm, %c : tensor<512x1024xf32>, tensor<1024xf32> -> tensor<512x1024xf32>
    %y = relax.gelu %s : tensor<512x1024xf32>
    relax.output %y : tensor<512x1024xf32>
  }
  return %r : tensor<512x1024xf32>
}

// Not fused: a body with two transcendental functions (it would spill over a
// whole register tile), and a product that has another use. Each product is
// stored, then read by a separate elementwise loop nest.
// CHECK-LABEL: func.func @two_transcendental(
// CHECK:         %[[P:.*]] = scf.for
// CHECK:           vector.contract
// CHECK-NOT:       math.
// CHECK:         scf.for
// CHECK:           vector.transfer_read %[[P]]
// CHECK:           math.erf
// CHECK:           math.exp
func.func @two_transcendental(%a: tensor<64x784xf32>, %b: tensor<784x256xf32>) -> tensor<64x256xf32> {
  %r = relax.dataflow -> (tensor<64x256xf32>) {
    %mm = relax.matmul %a, %b : tensor<64x784xf32>, tensor<784x256xf32> -> tensor<64x256xf32>
    %e = relax.erf %mm : tensor<64x256xf32>
    %y = relax.exp %e : tensor<64x256xf32>
    relax.output %y : tensor<64x256xf32>
  }
  return %r : tensor<64x256xf32>
}

// CHECK-LABEL: func.func @two_uses(
// CHECK:         %[[P:.*]] = scf.for
// CHECK:           vector.contract
// CHECK-NOT:       arith.maximumf
// CHECK:         scf.for
// CHECK:           vector.transfer_read %[[P]]
// CHECK:           arith.maximumf
// CHECK:         return %[[P]], %{{.*}} : tensor<64x256xf32>, tensor<64x256xf32>
func.func @two_uses(%a: tensor<64x784xf32>, %b: tensor<784x256xf32>) -> (tensor<64x256xf32>, tensor<64x256xf32>) {
  %r:2 = relax.dataflow -> (tensor<64x256xf32>, tensor<64x256xf32>) {
    %mm = relax.matmul %a, %b : tensor<64x784xf32>, tensor<784x256xf32> -> tensor<64x256xf32>
    %y = relax.relu %mm : tensor<64x256xf32>
    relax.output %mm, %y : tensor<64x256xf32>, tensor<64x256xf32>
  }
  return %r#0, %r#1 : tensor<64x256xf32>, tensor<64x256xf32>
}
