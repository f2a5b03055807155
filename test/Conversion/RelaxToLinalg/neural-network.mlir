// RUN: relax-opt %s --convert-relax-to-linalg | FileCheck %s

// The lowering of the neural-network ops: softmax, log_softmax,
// cross_entropy_with_logits and layer_norm are rewritten into simpler relax
// ops (lowered in turn); nll_loss gathers with one generic over the targets.

// CHECK-DAG: #[[ID2:map[0-9]*]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-DAG: #[[ROW:map[0-9]*]] = affine_map<(d0, d1) -> (d0)>
// CHECK-DAG: #[[COL:map[0-9]*]] = affine_map<(d0, d1) -> (d1)>
// CHECK-DAG: #[[COL0:map[0-9]*]] = affine_map<(d0, d1) -> (d0, 0)>
// CHECK-DAG: #[[ROW0:map[0-9]*]] = affine_map<(d0, d1) -> (0, d1)>
// CHECK-DAG: #[[ID1:map[0-9]*]] = affine_map<(d0) -> (d0)>
// CHECK-DAG: #[[TO0D1:map[0-9]*]] = affine_map<(d0) -> ()>
// CHECK-DAG: #[[TO0D2:map[0-9]*]] = affine_map<(d0, d1) -> ()>
// CHECK-DAG: #[[SCALAR:map[0-9]*]] = affine_map<() -> ()>

// softmax: e = exp(x - max(x)), e / sum(e); the max (from -inf, maximumf) is
// subtracted first, so large inputs do not overflow; the sum accumulates in f64.
// CHECK-LABEL: func.func @softmax(
// CHECK-SAME:    %[[X:.+]]: tensor<2x3xf32>) -> tensor<2x3xf32> {
// CHECK:         [[NINF:%.+]] = arith.constant 0xFF800000 : f32
// CHECK-NEXT:    [[F:%.+]] = linalg.fill ins([[NINF]] : f32) outs(%{{.+}} : tensor<2xf32>) -> tensor<2xf32>
// CHECK-NEXT:    [[MAX:%.+]] = linalg.generic {indexing_maps = [#[[ID2]], #[[ROW]]], iterator_types = ["parallel", "reduction"]} ins(%[[X]] : tensor<2x3xf32>) outs([[F]] : tensor<2xf32>)
// CHECK:           arith.maximumf
// CHECK:         [[MAXK:%.+]] = tensor.expand_shape [[MAX]] {{\[\[}}0, 1]] output_shape [2, 1] : tensor<2xf32> into tensor<2x1xf32>
// CHECK:         [[SH:%.+]] = linalg.generic {indexing_maps = [#[[ID2]], #[[COL0]], #[[ID2]]], {{.*}} ins(%[[X]], [[MAXK]] : tensor<2x3xf32>, tensor<2x1xf32>)
// CHECK:           arith.subf
// CHECK:         [[E:%.+]] = linalg.generic {{.*}} ins([[SH]] : tensor<2x3xf32>)
// CHECK:           math.exp
// CHECK:         [[S:%.+]] = linalg.generic {indexing_maps = [#[[ID2]], #[[ROW]]], iterator_types = ["parallel", "reduction"]} ins([[E]] : tensor<2x3xf32>) outs(%{{.+}} : tensor<2xf64>)
// CHECK:         [[ST:%.+]] = linalg.generic {{.*}} ins([[S]] : tensor<2xf64>) outs(%{{.+}} : tensor<2xf32>)
// CHECK:         [[SK:%.+]] = tensor.expand_shape [[ST]] {{\[\[}}0, 1]] output_shape [2, 1] : tensor<2xf32> into tensor<2x1xf32>
// CHECK:         [[Y:%.+]] = linalg.generic {indexing_maps = [#[[ID2]], #[[COL0]], #[[ID2]]], {{.*}} ins([[E]], [[SK]] : tensor<2x3xf32>, tensor<2x1xf32>)
// CHECK:           arith.divf
// CHECK:         return [[Y]] : tensor<2x3xf32>
func.func @softmax(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %r = relax.dataflow -> (tensor<2x3xf32>) {
    %0 = relax.softmax %x : tensor<2x3xf32>
    relax.output %0 : tensor<2x3xf32>
  }
  return %r : tensor<2x3xf32>
}

// log_softmax along axis 0: (x - m) - log(sum(exp(x - m))).
// CHECK-LABEL: func.func @log_softmax(
// CHECK-SAME:    %[[X:.+]]: tensor<2x3xf32>) -> tensor<2x3xf32> {
// CHECK:         [[MAX:%.+]] = linalg.generic {indexing_maps = [#[[ID2]], #[[COL]]], iterator_types = ["reduction", "parallel"]} ins(%[[X]] : tensor<2x3xf32>) outs(%{{.+}} : tensor<3xf32>)
// CHECK:           arith.maximumf
// CHECK:         [[MAXK:%.+]] = tensor.expand_shape [[MAX]] {{\[\[}}0, 1]] output_shape [1, 3] : tensor<3xf32> into tensor<1x3xf32>
// CHECK:         [[SH:%.+]] = linalg.generic {indexing_maps = [#[[ID2]], #[[ROW0]], #[[ID2]]], {{.*}} ins(%[[X]], [[MAXK]] : tensor<2x3xf32>, tensor<1x3xf32>)
// CHECK:           arith.subf
// CHECK:         [[E:%.+]] = linalg.generic {{.*}} ins([[SH]] : tensor<2x3xf32>)
// CHECK:           math.exp
// CHECK:         linalg.generic {indexing_maps = [#[[ID2]], #[[COL]]], iterator_types = ["reduction", "parallel"]} ins([[E]] : tensor<2x3xf32>) outs(%{{.+}} : tensor<3xf64>)
// CHECK:         [[SK:%.+]] = tensor.expand_shape %{{.+}} {{\[\[}}0, 1]] output_shape [1, 3] : tensor<3xf32> into tensor<1x3xf32>
// CHECK:         [[L:%.+]] = linalg.generic {{.*}} ins([[SK]] : tensor<1x3xf32>)
// CHECK:           math.log
// CHECK:         [[Y:%.+]] = linalg.generic {indexing_maps = [#[[ID2]], #[[ROW0]], #[[ID2]]], {{.*}} ins([[SH]], [[L]] : tensor<2x3xf32>, tensor<1x3xf32>)
// CHECK:           arith.subf
// CHECK:         return [[Y]] : tensor<2x3xf32>
func.func @log_softmax(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %r = relax.dataflow -> (tensor<2x3xf32>) {
    %0 = relax.log_softmax %x {axis = 0 : i64} : tensor<2x3xf32>
    relax.output %0 : tensor<2x3xf32>
  }
  return %r : tensor<2x3xf32>
}

// cross_entropy_with_logits: sum(pred * labels) * (-1 / N), N = 4.
// CHECK-LABEL: func.func @cross_entropy(
// CHECK-SAME:    %[[P:.+]]: tensor<4x3xf32>, %[[L:.+]]: tensor<4x3xf32>) -> tensor<f32> {
// CHECK:         [[PL:%.+]] = linalg.generic {{.*}} ins(%[[P]], %[[L]] : tensor<4x3xf32>, tensor<4x3xf32>)
// CHECK:           arith.mulf
// CHECK:         [[S:%.+]] = linalg.generic {indexing_maps = [#[[ID2]], #[[TO0D2]]], iterator_types = ["reduction", "reduction"]} ins([[PL]] : tensor<4x3xf32>) outs(%{{.+}} : tensor<f64>)
// CHECK:         [[ST:%.+]] = linalg.generic {{.*}} ins([[S]] : tensor<f64>) outs(%{{.+}} : tensor<f32>)
// CHECK:         [[K:%.+]] = arith.constant dense<-2.500000e-01> : tensor<f32>
// CHECK:         [[Y:%.+]] = linalg.generic {indexing_maps = [#[[SCALAR]], #[[SCALAR]], #[[SCALAR]]], iterator_types = []} ins([[ST]], [[K]] : tensor<f32>, tensor<f32>)
// CHECK:           arith.mulf
// CHECK:         return [[Y]] : tensor<f32>
func.func @cross_entropy(%p: tensor<4x3xf32>, %l: tensor<4x3xf32>) -> tensor<f32> {
  %r = relax.dataflow -> (tensor<f32>) {
    %0 = relax.cross_entropy_with_logits %p, %l : tensor<4x3xf32> -> tensor<f32>
    relax.output %0 : tensor<f32>
  }
  return %r : tensor<f32>
}

// nll_loss "mean" with weights: one generic over the targets yields each
// element's loss -w[t] * pred[n, t] and the weight used w[t] (both 0 where the
// target is ignored or out of [0, C); the class index read is then 0), through
// tensor.extract; the sums accumulate in f64 and divide there.
// CHECK-LABEL: func.func @nll_loss_mean(
// CHECK-SAME:    %[[P:.+]]: tensor<4x3xf32>, %[[T:.+]]: tensor<4xi64>, %[[W:.+]]: tensor<3xf32>) -> tensor<f32> {
// CHECK:         [[G:%.+]]:2 = linalg.generic {indexing_maps = [#[[ID1]], #[[ID1]], #[[ID1]]], iterator_types = ["parallel"]} ins(%[[T]] : tensor<4xi64>) outs(%{{.+}}, %{{.+}} : tensor<4xf32>, tensor<4xf32>)
// CHECK-NEXT:    ^bb0(%[[TI:.+]]: i64, %{{.+}}: f32, %{{.+}}: f32):
// CHECK-DAG:       [[ZERO:%.+]] = arith.constant 0 : i64
// CHECK-DAG:       [[C:%.+]] = arith.constant 3 : i64
// CHECK:           [[LT:%.+]] = arith.cmpi slt, %[[TI]], [[C]] : i64
// CHECK-NEXT:      [[GE:%.+]] = arith.cmpi sge, %[[TI]], [[ZERO]] : i64
// CHECK-NEXT:      [[INR:%.+]] = arith.andi [[GE]], [[LT]] : i1
// CHECK-NEXT:      [[IGN:%.+]] = arith.constant -100 : i64
// CHECK-NEXT:      [[NI:%.+]] = arith.cmpi ne, %[[TI]], [[IGN]] : i64
// CHECK-NEXT:      [[VALID:%.+]] = arith.andi [[INR]], [[NI]] : i1
// CHECK-NEXT:      [[SAFE:%.+]] = arith.select [[VALID]], %[[TI]], [[ZERO]] : i64
// CHECK-NEXT:      [[CLS:%.+]] = arith.index_cast [[SAFE]] : i64 to index
// CHECK-NEXT:      [[N:%.+]] = linalg.index 0 : index
// CHECK-NEXT:      [[PV:%.+]] = tensor.extract %[[P]]{{\[}}[[N]], [[CLS]]] : tensor<4x3xf32>
// CHECK-NEXT:      [[WV:%.+]] = tensor.extract %[[W]]{{\[}}[[CLS]]] : tensor<3xf32>
// CHECK-NEXT:      [[FZ:%.+]] = arith.constant 0.000000e+00 : f32
// CHECK-NEXT:      [[WU:%.+]] = arith.select [[VALID]], [[WV]], [[FZ]] : f32
// CHECK-NEXT:      [[WP:%.+]] = arith.mulf [[WU]], [[PV]] : f32
// CHECK-NEXT:      [[NL:%.+]] = arith.negf [[WP]] : f32
// CHECK-NEXT:      [[LOSS:%.+]] = arith.select [[VALID]], [[NL]], [[FZ]] : f32
// CHECK-NEXT:      linalg.yield [[LOSS]], [[WU]] : f32, f32
// CHECK:         [[NUM:%.+]] = linalg.generic {indexing_maps = [#[[ID1]], #[[TO0D1]]], iterator_types = ["reduction"]} ins([[G]]#0 : tensor<4xf32>) outs(%{{.+}} : tensor<f64>)
// CHECK:         [[DEN:%.+]] = linalg.generic {indexing_maps = [#[[ID1]], #[[TO0D1]]], iterator_types = ["reduction"]} ins([[G]]#1 : tensor<4xf32>) outs(%{{.+}} : tensor<f64>)
// CHECK:         [[Y:%.+]] = linalg.generic {indexing_maps = [#[[SCALAR]], #[[SCALAR]], #[[SCALAR]]], iterator_types = []} ins([[NUM]], [[DEN]] : tensor<f64>, tensor<f64>) outs(%{{.+}} : tensor<f32>)
// CHECK-NEXT:    ^bb0(%[[A:.+]]: f64, %[[B:.+]]: f64, %{{.+}}: f32):
// CHECK-NEXT:      [[Q:%.+]] = arith.divf %[[A]], %[[B]] : f64
// CHECK-NEXT:      [[QT:%.+]] = arith.truncf [[Q]] : f64 to f32
// CHECK-NEXT:      linalg.yield [[QT]] : f32
// CHECK:         return [[Y]] : tensor<f32>
func.func @nll_loss_mean(%p: tensor<4x3xf32>, %t: tensor<4xi64>, %w: tensor<3xf32>) -> tensor<f32> {
  %r = relax.dataflow -> (tensor<f32>) {
    %0 = relax.nll_loss %p, %t, %w : tensor<4x3xf32>, tensor<4xi64>, tensor<3xf32> -> tensor<f32>
    relax.output %0 : tensor<f32>
  }
  return %r : tensor<f32>
}

// "none" without weights returns the per-element losses (weight 1 where
// valid); ignore_index = 1 is compared in the targets' type.
// CHECK-LABEL: func.func @nll_loss_none(
// CHECK-SAME:    %[[P:.+]]: tensor<4x3xf32>, %[[T:.+]]: tensor<4xi64>) -> tensor<4xf32> {
// CHECK:         [[G:%.+]]:2 = linalg.generic {{.*}} ins(%[[T]] : tensor<4xi64>)
// CHECK:           [[IGN:%.+]] = arith.constant 1 : i64
// CHECK-NEXT:      arith.cmpi ne, %{{.+}}, [[IGN]] : i64
// CHECK:           tensor.extract %[[P]][%{{.+}}, %{{.+}}] : tensor<4x3xf32>
// CHECK-NEXT:      [[ONE:%.+]] = arith.constant 1.000000e+00 : f32
// CHECK-NEXT:      [[FZ:%.+]] = arith.constant 0.000000e+00 : f32
// CHECK-NEXT:      arith.select %{{.+}}, [[ONE]], [[FZ]] : f32
// CHECK-NOT:     linalg.generic
// CHECK:         return [[G]]#0 : tensor<4xf32>
func.func @nll_loss_none(%p: tensor<4x3xf32>, %t: tensor<4xi64>) -> tensor<4xf32> {
  %r = relax.dataflow -> (tensor<4xf32>) {
    %0 = relax.nll_loss %p, %t {reduction = "none", ignore_index = 1 : i64} : tensor<4x3xf32>, tensor<4xi64> -> tensor<4xf32>
    relax.output %0 : tensor<4xf32>
  }
  return %r : tensor<4xf32>
}

// An (N, C, d1) prediction with "sum": the class index goes between the
// target's indices; no division.
// CHECK-LABEL: func.func @nll_loss_spatial_sum(
// CHECK-SAME:    %[[P:.+]]: tensor<2x3x5xf32>, %[[T:.+]]: tensor<2x5xi32>) -> tensor<f32> {
// CHECK:         [[G:%.+]]:2 = linalg.generic {indexing_maps = [#[[ID2]], #[[ID2]], #[[ID2]]], iterator_types = ["parallel", "parallel"]} ins(%[[T]] : tensor<2x5xi32>)
// CHECK:           [[CLS:%.+]] = arith.index_cast %{{.+}} : i32 to index
// CHECK-NEXT:      [[I0:%.+]] = linalg.index 0 : index
// CHECK-NEXT:      [[I1:%.+]] = linalg.index 1 : index
// CHECK-NEXT:      tensor.extract %[[P]]{{\[}}[[I0]], [[CLS]], [[I1]]] : tensor<2x3x5xf32>
// CHECK:         [[S:%.+]] = linalg.generic {indexing_maps = [#[[ID2]], #[[TO0D2]]], iterator_types = ["reduction", "reduction"]} ins([[G]]#0 : tensor<2x5xf32>) outs(%{{.+}} : tensor<f64>)
// CHECK:         [[Y:%.+]] = linalg.generic {{.*}} ins([[S]] : tensor<f64>) outs(%{{.+}} : tensor<f32>)
// CHECK-NOT:       arith.divf
// CHECK:         return [[Y]] : tensor<f32>
func.func @nll_loss_spatial_sum(%p: tensor<2x3x5xf32>, %t: tensor<2x5xi32>) -> tensor<f32> {
  %r = relax.dataflow -> (tensor<f32>) {
    %0 = relax.nll_loss %p, %t {reduction = "sum"} : tensor<2x3x5xf32>, tensor<2x5xi32> -> tensor<f32>
    relax.output %0 : tensor<f32>
  }
  return %r : tensor<f32>
}

// layer_norm: (x - mean) * rsqrt(mean((x - mean)^2) + eps) * gamma + beta, with
// gamma and beta reshaped to (1, 3) to broadcast along the normalized axis.
// CHECK-LABEL: func.func @layer_norm(
// CHECK-SAME:    %[[X:.+]]: tensor<4x3xf32>, %[[G:.+]]: tensor<3xf32>, %[[B:.+]]: tensor<3xf32>) -> tensor<4x3xf32> {
// CHECK:         linalg.generic {indexing_maps = [#[[ID2]], #[[ROW]]], iterator_types = ["parallel", "reduction"]} ins(%[[X]] : tensor<4x3xf32>) outs(%{{.+}} : tensor<4xf64>)
// CHECK:         [[MK:%.+]] = tensor.expand_shape %{{.+}} {{\[\[}}0, 1]] output_shape [4, 1] : tensor<4xf32> into tensor<4x1xf32>
// CHECK:         [[CEN:%.+]] = linalg.generic {{.*}} ins(%[[X]], [[MK]] : tensor<4x3xf32>, tensor<4x1xf32>)
// CHECK:           arith.subf
// CHECK:         [[SQ:%.+]] = linalg.generic {{.*}} ins([[CEN]], [[CEN]] : tensor<4x3xf32>, tensor<4x3xf32>)
// CHECK:           arith.mulf
// CHECK:         linalg.generic {indexing_maps = [#[[ID2]], #[[ROW]]], iterator_types = ["parallel", "reduction"]} ins([[SQ]] : tensor<4x3xf32>) outs(%{{.+}} : tensor<4xf64>)
// CHECK:         [[VK:%.+]] = tensor.expand_shape %{{.+}} {{\[\[}}0, 1]] output_shape [4, 1] : tensor<4xf32> into tensor<4x1xf32>
// CHECK:         [[EPS:%.+]] = arith.constant dense<1.000000e-03> : tensor<f32>
// CHECK:         [[VE:%.+]] = linalg.generic {{.*}} ins([[VK]], [[EPS]] : tensor<4x1xf32>, tensor<f32>)
// CHECK:           arith.addf
// CHECK:         [[RSTD:%.+]] = linalg.generic {{.*}} ins([[VE]] : tensor<4x1xf32>)
// CHECK:           math.rsqrt
// CHECK:         [[GK:%.+]] = tensor.expand_shape %[[G]] {{\[\[}}0, 1]] output_shape [1, 3] : tensor<3xf32> into tensor<1x3xf32>
// CHECK:         [[BK:%.+]] = tensor.expand_shape %[[B]] {{\[\[}}0, 1]] output_shape [1, 3] : tensor<3xf32> into tensor<1x3xf32>
// CHECK:         [[XH:%.+]] = linalg.generic {indexing_maps = [#[[ID2]], #[[COL0]], #[[ID2]]], {{.*}} ins([[CEN]], [[RSTD]] : tensor<4x3xf32>, tensor<4x1xf32>)
// CHECK:           arith.mulf
// CHECK:         [[SC:%.+]] = linalg.generic {indexing_maps = [#[[ID2]], #[[ROW0]], #[[ID2]]], {{.*}} ins([[XH]], [[GK]] : tensor<4x3xf32>, tensor<1x3xf32>)
// CHECK:           arith.mulf
// CHECK:         [[Y:%.+]] = linalg.generic {indexing_maps = [#[[ID2]], #[[ROW0]], #[[ID2]]], {{.*}} ins([[SC]], [[BK]] : tensor<4x3xf32>, tensor<1x3xf32>)
// CHECK:           arith.addf
// CHECK:         return [[Y]] : tensor<4x3xf32>
func.func @layer_norm(%x: tensor<4x3xf32>, %g: tensor<3xf32>, %b: tensor<3xf32>) -> tensor<4x3xf32> {
  %r = relax.dataflow -> (tensor<4x3xf32>) {
    %0 = relax.layer_norm %x, %g, %b {axes = array<i64: -1>, epsilon = 0.001 : f64} : tensor<4x3xf32>, tensor<3xf32>, tensor<3xf32>
    relax.output %0 : tensor<4x3xf32>
  }
  return %r : tensor<4x3xf32>
}
