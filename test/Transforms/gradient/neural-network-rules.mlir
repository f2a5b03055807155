// The gradient rules of the neural-network ops softmax log_softmax
// cross_entropy_with_logits nll_loss layer_norm: one function per case, all
// differentiated in one run. Losses are sum(op(x) * c) or the op's 0-d
// result itself (whose seed of ones folds away); the checks follow each rule's
// key ops. Gathers by class index are one-hot masks (targets == iota).
// RUN: relax-opt %s --gradient="func=softmax,log_softmax,cross_entropy_with_logits,nll_loss_mean,nll_loss_mean_weights,nll_loss_sum_weights,nll_loss_none,nll_loss_unbatched,nll_loss_spatial,layer_norm,layer_norm_axes" | FileCheck %s

// dx = y * (g - sum(g * y, axis, keepdims)), reusing the forward softmax y.
// CHECK-LABEL: func.func @softmax_adjoint(
// CHECK-SAME:    %[[X:.+]]: tensor<2x3xf32>, %[[C:.+]]: tensor<2x3xf32>) -> tuple<tensor<f32>, tuple<tensor<2x3xf32>, tensor<2x3xf32>>> {
// CHECK:         [[Y:%.+]] = relax.softmax %[[X]] : tensor<2x3xf32>
// CHECK:         [[S:%.+]] = relax.broadcast_to %{{.+}} : tensor<1x1xf32> -> tensor<2x3xf32>
// CHECK-NEXT:    [[G:%.+]] = relax.multiply [[S]], %[[C]] :
// CHECK:         [[GY:%.+]] = relax.multiply [[G]], [[Y]] : tensor<2x3xf32>, tensor<2x3xf32> -> tensor<2x3xf32>
// CHECK-NEXT:    [[DOT:%.+]] = relax.sum [[GY]] {axis = array<i64: 1>, keepdims = true} : tensor<2x3xf32> -> tensor<2x1xf32>
// CHECK-NEXT:    [[D:%.+]] = relax.subtract [[G]], [[DOT]] : tensor<2x3xf32>, tensor<2x1xf32> -> tensor<2x3xf32>
// CHECK-NEXT:    [[DX:%.+]] = relax.multiply [[Y]], [[D]] : tensor<2x3xf32>, tensor<2x3xf32> -> tensor<2x3xf32>
// CHECK-NOT:     relax.softmax
// CHECK:         relax.tuple([[DX]], %{{.+}} : tensor<2x3xf32>, tensor<2x3xf32>)
func.func @softmax(%x: tensor<2x3xf32>, %c: tensor<2x3xf32>) -> tensor<f32> {
  %r = relax.dataflow -> (tensor<f32>) {
    %y = relax.softmax %x : tensor<2x3xf32>
    %p = relax.multiply %y, %c : tensor<2x3xf32>, tensor<2x3xf32> -> tensor<2x3xf32>
    %l = relax.sum %p : tensor<2x3xf32> -> tensor<f32>
    relax.output %l : tensor<f32>
  }
  return %r : tensor<f32>
}

// dx = g - exp(y) * sum(g, axis, keepdims), here along axis 0.
// CHECK-LABEL: func.func @log_softmax_adjoint(
// CHECK-SAME:    %[[X:.+]]: tensor<2x3xf32>, %[[C:.+]]: tensor<2x3xf32>) -> tuple<tensor<f32>, tuple<tensor<2x3xf32>, tensor<2x3xf32>>> {
// CHECK:         [[Y:%.+]] = relax.log_softmax %[[X]] {axis = 0 : i64} : tensor<2x3xf32>
// CHECK:         [[S:%.+]] = relax.broadcast_to %{{.+}} : tensor<1x1xf32> -> tensor<2x3xf32>
// CHECK-NEXT:    [[G:%.+]] = relax.multiply [[S]], %[[C]] :
// CHECK:         [[T:%.+]] = relax.sum [[G]] {axis = array<i64: 0>, keepdims = true} : tensor<2x3xf32> -> tensor<1x3xf32>
// CHECK-NEXT:    [[E:%.+]] = relax.exp [[Y]] : tensor<2x3xf32>
// CHECK-NEXT:    [[ET:%.+]] = relax.multiply [[E]], [[T]] : tensor<2x3xf32>, tensor<1x3xf32> -> tensor<2x3xf32>
// CHECK-NEXT:    [[DX:%.+]] = relax.subtract [[G]], [[ET]] : tensor<2x3xf32>, tensor<2x3xf32> -> tensor<2x3xf32>
// CHECK:         relax.tuple([[DX]], %{{.+}} : tensor<2x3xf32>, tensor<2x3xf32>)
func.func @log_softmax(%x: tensor<2x3xf32>, %c: tensor<2x3xf32>) -> tensor<f32> {
  %r = relax.dataflow -> (tensor<f32>) {
    %y = relax.log_softmax %x {axis = 0 : i64} : tensor<2x3xf32>
    %p = relax.multiply %y, %c : tensor<2x3xf32>, tensor<2x3xf32> -> tensor<2x3xf32>
    %l = relax.sum %p : tensor<2x3xf32> -> tensor<f32>
    relax.output %l : tensor<f32>
  }
  return %r : tensor<f32>
}

// d(-sum(p * l) / N) = (-1/N) * l dp + (-1/N) * p dl, N = 4.
// CHECK-LABEL: func.func @cross_entropy_with_logits_adjoint(
// CHECK-SAME:    %[[P:.+]]: tensor<4x3xf32>, %[[L:.+]]: tensor<4x3xf32>) -> tuple<tensor<f32>, tuple<tensor<4x3xf32>, tensor<4x3xf32>>> {
// CHECK:         [[K:%.+]] = arith.constant dense<-2.500000e-01> : tensor<f32>
// CHECK-NEXT:    [[DP:%.+]] = relax.multiply [[K]], %[[L]] : tensor<f32>, tensor<4x3xf32> -> tensor<4x3xf32>
// CHECK-NEXT:    [[DL:%.+]] = relax.multiply [[K]], %[[P]] : tensor<f32>, tensor<4x3xf32> -> tensor<4x3xf32>
// CHECK-NEXT:    relax.tuple([[DP]], [[DL]] : tensor<4x3xf32>, tensor<4x3xf32>)
func.func @cross_entropy_with_logits(%p: tensor<4x3xf32>, %l: tensor<4x3xf32>) -> tensor<f32> {
  %r = relax.dataflow -> (tensor<f32>) {
    %0 = relax.cross_entropy_with_logits %p, %l : tensor<4x3xf32> -> tensor<f32>
    relax.output %0 : tensor<f32>
  }
  return %r : tensor<f32>
}

// "mean" without weights: onehot = (t == iota) over the class axis, valid =
// in-range and t != ignore_index (-100); dpred = onehot * (-valid / sum(valid)).
// The integer targets get no gradient.
// CHECK-LABEL: func.func @nll_loss_mean_adjoint(
// CHECK-SAME:    %[[P:.+]]: tensor<4x3xf32>, %[[T:.+]]: tensor<4xi64>) -> tuple<tensor<f32>, tuple<tensor<4x3xf32>>> {
// CHECK:         [[TK:%.+]] = relax.reshape %[[T]] : tensor<4xi64> -> tensor<4x1xi64>
// CHECK-NEXT:    [[IOTA:%.+]] = arith.constant dense<{{\[\[}}0, 1, 2]]> : tensor<1x3xi64>
// CHECK-NEXT:    [[EQ:%.+]] = relax.equal [[TK]], [[IOTA]] : tensor<4x1xi64>, tensor<1x3xi64> -> tensor<4x3xi1>
// CHECK-NEXT:    [[OH:%.+]] = relax.astype [[EQ]] : tensor<4x3xi1> -> tensor<4x3xf32>
// CHECK-NEXT:    [[IGN:%.+]] = arith.constant dense<-100> : tensor<i64>
// CHECK-NEXT:    [[INR:%.+]] = relax.sum [[OH]] {axis = array<i64: 1>} : tensor<4x3xf32> -> tensor<4xf32>
// CHECK-NEXT:    [[NE:%.+]] = relax.not_equal %[[T]], [[IGN]] : tensor<4xi64>, tensor<i64> -> tensor<4xi1>
// CHECK-NEXT:    [[NEF:%.+]] = relax.astype [[NE]] : tensor<4xi1> -> tensor<4xf32>
// CHECK-NEXT:    [[VALID:%.+]] = relax.multiply [[INR]], [[NEF]] :
// CHECK-NEXT:    [[DEN:%.+]] = relax.sum [[VALID]] {axis = array<i64: 0>} : tensor<4xf32> -> tensor<f32>
// CHECK-NEXT:    [[NV:%.+]] = relax.negative [[VALID]] :
// CHECK-NEXT:    [[COEF:%.+]] = relax.divide [[NV]], [[DEN]] : tensor<4xf32>, tensor<f32> -> tensor<4xf32>
// CHECK-NEXT:    [[CK:%.+]] = relax.reshape [[COEF]] : tensor<4xf32> -> tensor<4x1xf32>
// CHECK-NEXT:    [[DP:%.+]] = relax.multiply [[OH]], [[CK]] : tensor<4x3xf32>, tensor<4x1xf32> -> tensor<4x3xf32>
// CHECK-NEXT:    relax.tuple([[DP]] : tensor<4x3xf32>)
func.func @nll_loss_mean(%p: tensor<4x3xf32>, %t: tensor<4xi64>) -> tensor<f32> {
  %r = relax.dataflow -> (tensor<f32>) {
    %0 = relax.nll_loss %p, %t : tensor<4x3xf32>, tensor<4xi64> -> tensor<f32>
    relax.output %0 : tensor<f32>
  }
  return %r : tensor<f32>
}

// "mean" with weights (ignore_index = 1): w_t = sum(onehot * w) * valid,
// D = sum(w_t); dpred = onehot * (-w_t / D); dw_t = (-p_t - loss) / D where valid, else 0
// with p_t = sum(onehot * pred), scattered into the classes by a sum over N.
// CHECK-LABEL: func.func @nll_loss_mean_weights_adjoint(
// CHECK-SAME:    %[[P:.+]]: tensor<4x3xf32>, %[[T:.+]]: tensor<4xi64>, %[[W:.+]]: tensor<3xf32>) -> tuple<tensor<f32>, tuple<tensor<4x3xf32>, tensor<3xf32>>> {
// CHECK:         [[LOSS:%.+]] = relax.nll_loss %[[P]], %[[T]], %[[W]] {ignore_index = 1 : i64} :
// CHECK:         [[IST:%.+]] = relax.equal %{{.+}}, %{{.+}} : tensor<4x1xi64>, tensor<1x3xi64> -> tensor<4x3xi1>
// CHECK-NEXT:    [[OH:%.+]] = relax.astype [[IST]] : tensor<4x3xi1> -> tensor<4x3xf32>
// CHECK:         [[IGN:%.+]] = arith.constant dense<1> : tensor<i64>
// CHECK:         relax.not_equal %[[T]], [[IGN]] : tensor<4xi64>, tensor<i64> -> tensor<4xi1>
// CHECK:         [[VALID:%.+]] = relax.multiply %{{.+}}, %{{.+}} : tensor<4xf32>, tensor<4xf32> -> tensor<4xf32>
// CHECK-NEXT:    [[WK:%.+]] = relax.reshape %[[W]] : tensor<3xf32> -> tensor<1x3xf32>
// CHECK-NEXT:    [[OW:%.+]] = relax.multiply [[OH]], [[WK]] : tensor<4x3xf32>, tensor<1x3xf32> -> tensor<4x3xf32>
// CHECK-NEXT:    [[GW:%.+]] = relax.sum [[OW]] {axis = array<i64: 1>} : tensor<4x3xf32> -> tensor<4xf32>
// CHECK-NEXT:    [[WT:%.+]] = relax.multiply [[GW]], [[VALID]] :
// CHECK-NEXT:    [[DEN:%.+]] = relax.sum [[WT]] {axis = array<i64: 0>} : tensor<4xf32> -> tensor<f32>
// CHECK-NEXT:    [[NW:%.+]] = relax.negative [[WT]] :
// CHECK-NEXT:    [[COEF:%.+]] = relax.divide [[NW]], [[DEN]] :
// CHECK-NEXT:    [[CK:%.+]] = relax.reshape [[COEF]] : tensor<4xf32> -> tensor<4x1xf32>
// CHECK-NEXT:    [[DP:%.+]] = relax.multiply [[OH]], [[CK]] : tensor<4x3xf32>, tensor<4x1xf32> -> tensor<4x3xf32>
// p_t is gathered by selection (pred may hold -inf; 0 * -inf is NaN), and
// dw_t is selected where the target is valid.
// CHECK-NEXT:    [[FZ:%.+]] = arith.constant dense<0.000000e+00> : tensor<f32>
// CHECK-NEXT:    [[OP:%.+]] = relax.where [[IST]], %[[P]], [[FZ]] : tensor<4x3xi1>, tensor<4x3xf32>, tensor<f32> -> tensor<4x3xf32>
// CHECK-NEXT:    [[PT:%.+]] = relax.sum [[OP]] {axis = array<i64: 1>} : tensor<4x3xf32> -> tensor<4xf32>
// CHECK-NEXT:    [[NPT:%.+]] = relax.negative [[PT]] :
// CHECK-NEXT:    [[NPL:%.+]] = relax.subtract [[NPT]], [[LOSS]] : tensor<4xf32>, tensor<f32> -> tensor<4xf32>
// CHECK-NEXT:    [[LOC:%.+]] = relax.divide [[NPL]], [[DEN]] :
// CHECK-NEXT:    [[ISV:%.+]] = relax.greater [[VALID]], [[FZ]] : tensor<4xf32>, tensor<f32> -> tensor<4xi1>
// CHECK-NEXT:    [[DWT:%.+]] = relax.where [[ISV]], [[LOC]], [[FZ]] :
// CHECK-NEXT:    [[DWK:%.+]] = relax.reshape [[DWT]] : tensor<4xf32> -> tensor<4x1xf32>
// CHECK-NEXT:    [[PC:%.+]] = relax.multiply [[OH]], [[DWK]] : tensor<4x3xf32>, tensor<4x1xf32> -> tensor<4x3xf32>
// CHECK-NEXT:    [[DW:%.+]] = relax.sum [[PC]] {axis = array<i64: 0>} : tensor<4x3xf32> -> tensor<3xf32>
// CHECK-NEXT:    relax.tuple([[DP]], [[DW]] : tensor<4x3xf32>, tensor<3xf32>)
func.func @nll_loss_mean_weights(%p: tensor<4x3xf32>, %t: tensor<4xi64>, %w: tensor<3xf32>) -> tensor<f32> {
  %r = relax.dataflow -> (tensor<f32>) {
    %0 = relax.nll_loss %p, %t, %w {ignore_index = 1 : i64} : tensor<4x3xf32>, tensor<4xi64>, tensor<3xf32> -> tensor<f32>
    relax.output %0 : tensor<f32>
  }
  return %r : tensor<f32>
}

// "sum" with weights and i32 targets: no division; dw_t = -p_t where valid, else 0.
// CHECK-LABEL: func.func @nll_loss_sum_weights_adjoint(
// CHECK-SAME:    %[[P:.+]]: tensor<4x3xf32>, %[[T:.+]]: tensor<4xi32>, %[[W:.+]]: tensor<3xf32>) -> tuple<tensor<f32>, tuple<tensor<4x3xf32>, tensor<3xf32>>> {
// CHECK:         [[IOTA:%.+]] = arith.constant dense<{{\[\[}}0, 1, 2]]> : tensor<1x3xi32>
// CHECK:         [[IGN:%.+]] = arith.constant dense<-100> : tensor<i32>
// CHECK:         relax.reshape %[[W]] : tensor<3xf32> -> tensor<1x3xf32>
// CHECK:         [[WT:%.+]] = relax.multiply %{{.+}}, %{{.+}} : tensor<4xf32>, tensor<4xf32> -> tensor<4xf32>
// CHECK-NEXT:    [[NW:%.+]] = relax.negative [[WT]] :
// CHECK-NEXT:    [[CK:%.+]] = relax.reshape [[NW]] : tensor<4xf32> -> tensor<4x1xf32>
// CHECK-NEXT:    [[DP:%.+]] = relax.multiply %{{.+}}, [[CK]] : tensor<4x3xf32>, tensor<4x1xf32> -> tensor<4x3xf32>
// CHECK-NOT:     relax.divide
// CHECK:         [[PT:%.+]] = relax.sum %{{.+}} {axis = array<i64: 1>} : tensor<4x3xf32> -> tensor<4xf32>
// CHECK-NEXT:    [[NPT:%.+]] = relax.negative [[PT]] :
// CHECK-NEXT:    relax.greater
// CHECK-NEXT:    [[DWT:%.+]] = relax.where %{{.+}}, [[NPT]], %{{.+}} :
// CHECK-NOT:     relax.divide
// CHECK:         [[DW:%.+]] = relax.sum %{{.+}} {axis = array<i64: 0>} : tensor<4x3xf32> -> tensor<3xf32>
// CHECK-NEXT:    relax.tuple([[DP]], [[DW]] : tensor<4x3xf32>, tensor<3xf32>)
func.func @nll_loss_sum_weights(%p: tensor<4x3xf32>, %t: tensor<4xi32>, %w: tensor<3xf32>) -> tensor<f32> {
  %r = relax.dataflow -> (tensor<f32>) {
    %0 = relax.nll_loss %p, %t, %w {reduction = "sum"} : tensor<4x3xf32>, tensor<4xi32>, tensor<3xf32> -> tensor<f32>
    relax.output %0 : tensor<f32>
  }
  return %r : tensor<f32>
}

// "none": the per-element adjoint g (of the targets' shape) scales each row.
// CHECK-LABEL: func.func @nll_loss_none_adjoint(
// CHECK-SAME:    %[[P:.+]]: tensor<4x3xf32>, %[[T:.+]]: tensor<4xi64>, %[[C:.+]]: tensor<4xf32>) -> tuple<tensor<f32>, tuple<tensor<4x3xf32>, tensor<4xf32>>> {
// CHECK:         [[S:%.+]] = relax.broadcast_to %{{.+}} : tensor<1xf32> -> tensor<4xf32>
// CHECK-NEXT:    [[G:%.+]] = relax.multiply [[S]], %[[C]] :
// CHECK:         [[OH:%.+]] = relax.astype %{{.+}} : tensor<4x3xi1> -> tensor<4x3xf32>
// CHECK:         [[VALID:%.+]] = relax.multiply %{{.+}}, %{{.+}} : tensor<4xf32>, tensor<4xf32> -> tensor<4xf32>
// CHECK-NEXT:    [[GV:%.+]] = relax.multiply [[G]], [[VALID]] :
// CHECK-NEXT:    [[NGV:%.+]] = relax.negative [[GV]] :
// CHECK-NEXT:    [[CK:%.+]] = relax.reshape [[NGV]] : tensor<4xf32> -> tensor<4x1xf32>
// CHECK-NEXT:    [[DP:%.+]] = relax.multiply [[OH]], [[CK]] : tensor<4x3xf32>, tensor<4x1xf32> -> tensor<4x3xf32>
// CHECK-NEXT:    relax.tuple([[DP]], %{{.+}} : tensor<4x3xf32>, tensor<4xf32>)
func.func @nll_loss_none(%p: tensor<4x3xf32>, %t: tensor<4xi64>, %c: tensor<4xf32>) -> tensor<f32> {
  %r = relax.dataflow -> (tensor<f32>) {
    %e = relax.nll_loss %p, %t {reduction = "none"} : tensor<4x3xf32>, tensor<4xi64> -> tensor<4xf32>
    %m = relax.multiply %e, %c : tensor<4xf32>, tensor<4xf32> -> tensor<4xf32>
    %l = relax.sum %m : tensor<4xf32> -> tensor<f32>
    relax.output %l : tensor<f32>
  }
  return %r : tensor<f32>
}

// A (C) prediction with a 0-d target: the class axis is 0.
// CHECK-LABEL: func.func @nll_loss_unbatched_adjoint(
// CHECK-SAME:    %[[P:.+]]: tensor<3xf32>, %[[T:.+]]: tensor<i64>) -> tuple<tensor<f32>, tuple<tensor<3xf32>>> {
// CHECK:         [[TK:%.+]] = relax.reshape %[[T]] : tensor<i64> -> tensor<1xi64>
// CHECK-NEXT:    [[IOTA:%.+]] = arith.constant dense<[0, 1, 2]> : tensor<3xi64>
// CHECK-NEXT:    [[EQ:%.+]] = relax.equal [[TK]], [[IOTA]] : tensor<1xi64>, tensor<3xi64> -> tensor<3xi1>
// CHECK-NEXT:    [[OH:%.+]] = relax.astype [[EQ]] : tensor<3xi1> -> tensor<3xf32>
// CHECK:         [[INR:%.+]] = relax.sum [[OH]] {axis = array<i64: 0>} : tensor<3xf32> -> tensor<f32>
// CHECK:         [[CK:%.+]] = relax.reshape %{{.+}} : tensor<f32> -> tensor<1xf32>
// CHECK-NEXT:    [[DP:%.+]] = relax.multiply [[OH]], [[CK]] : tensor<3xf32>, tensor<1xf32> -> tensor<3xf32>
// CHECK-NEXT:    relax.tuple([[DP]] : tensor<3xf32>)
func.func @nll_loss_unbatched(%p: tensor<3xf32>, %t: tensor<i64>) -> tensor<f32> {
  %r = relax.dataflow -> (tensor<f32>) {
    %0 = relax.nll_loss %p, %t : tensor<3xf32>, tensor<i64> -> tensor<f32>
    relax.output %0 : tensor<f32>
  }
  return %r : tensor<f32>
}

// An (N, C, d1) prediction: the targets get a size-1 class axis at 1 and the
// iota runs along axis 1; "mean" divides by the count over (N, d1).
// CHECK-LABEL: func.func @nll_loss_spatial_adjoint(
// CHECK-SAME:    %[[P:.+]]: tensor<2x3x5xf32>, %[[T:.+]]: tensor<2x5xi64>) -> tuple<tensor<f32>, tuple<tensor<2x3x5xf32>>> {
// CHECK:         [[TK:%.+]] = relax.reshape %[[T]] : tensor<2x5xi64> -> tensor<2x1x5xi64>
// CHECK-NEXT:    [[IOTA:%.+]] = arith.constant dense<{{\[\[\[}}0], [1], [2]]]> : tensor<1x3x1xi64>
// CHECK-NEXT:    [[EQ:%.+]] = relax.equal [[TK]], [[IOTA]] : tensor<2x1x5xi64>, tensor<1x3x1xi64> -> tensor<2x3x5xi1>
// CHECK-NEXT:    [[OH:%.+]] = relax.astype [[EQ]] : tensor<2x3x5xi1> -> tensor<2x3x5xf32>
// CHECK:         [[DEN:%.+]] = relax.sum %{{.+}} {axis = array<i64: 0, 1>} : tensor<2x5xf32> -> tensor<f32>
// CHECK:         [[COEF:%.+]] = relax.divide %{{.+}}, [[DEN]] : tensor<2x5xf32>, tensor<f32> -> tensor<2x5xf32>
// CHECK-NEXT:    [[CK:%.+]] = relax.reshape [[COEF]] : tensor<2x5xf32> -> tensor<2x1x5xf32>
// CHECK-NEXT:    [[DP:%.+]] = relax.multiply [[OH]], [[CK]] : tensor<2x3x5xf32>, tensor<2x1x5xf32> -> tensor<2x3x5xf32>
// CHECK-NEXT:    relax.tuple([[DP]] : tensor<2x3x5xf32>)
func.func @nll_loss_spatial(%p: tensor<2x3x5xf32>, %t: tensor<2x5xi64>) -> tensor<f32> {
  %r = relax.dataflow -> (tensor<f32>) {
    %0 = relax.nll_loss %p, %t : tensor<2x3x5xf32>, tensor<2x5xi64> -> tensor<f32>
    relax.output %0 : tensor<f32>
  }
  return %r : tensor<f32>
}

// With xhat = (x - mean) * rstd, rstd = rsqrt(var + eps), dxhat = g * gamma:
// dx = rstd * (dxhat - mean(dxhat) - xhat * mean(dxhat * xhat)),
// dgamma = sum(g * xhat), dbeta = sum(g) over the other axes.
// CHECK-LABEL: func.func @layer_norm_adjoint(
// CHECK-SAME:    %[[X:.+]]: tensor<4x3xf32>, %[[GAMMA:.+]]: tensor<3xf32>, %[[BETA:.+]]: tensor<3xf32>, %[[C:.+]]: tensor<4x3xf32>) -> tuple<tensor<f32>, tuple<tensor<4x3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<4x3xf32>>> {
// CHECK:         [[S:%.+]] = relax.broadcast_to %{{.+}} : tensor<1x1xf32> -> tensor<4x3xf32>
// CHECK-NEXT:    [[G:%.+]] = relax.multiply [[S]], %[[C]] :
// CHECK:         [[M:%.+]] = relax.mean %[[X]] {axis = array<i64: 1>, keepdims = true} : tensor<4x3xf32> -> tensor<4x1xf32>
// CHECK-NEXT:    [[CEN:%.+]] = relax.subtract %[[X]], [[M]] :
// CHECK-NEXT:    [[SQ:%.+]] = relax.multiply [[CEN]], [[CEN]] :
// CHECK-NEXT:    [[VAR:%.+]] = relax.mean [[SQ]] {axis = array<i64: 1>, keepdims = true} :
// CHECK-NEXT:    [[EPS:%.+]] = arith.constant dense<9.99999974E-6> : tensor<f32>
// CHECK-NEXT:    [[VE:%.+]] = relax.add [[VAR]], [[EPS]] :
// CHECK-NEXT:    [[RSTD:%.+]] = relax.rsqrt [[VE]] : tensor<4x1xf32>
// CHECK-NEXT:    [[XHAT:%.+]] = relax.multiply [[CEN]], [[RSTD]] : tensor<4x3xf32>, tensor<4x1xf32> -> tensor<4x3xf32>
// CHECK-NEXT:    [[GK:%.+]] = relax.reshape %[[GAMMA]] : tensor<3xf32> -> tensor<1x3xf32>
// CHECK-NEXT:    [[DXHAT:%.+]] = relax.multiply [[G]], [[GK]] : tensor<4x3xf32>, tensor<1x3xf32> -> tensor<4x3xf32>
// CHECK-NEXT:    [[DX1:%.+]] = relax.multiply [[DXHAT]], [[XHAT]] :
// CHECK-NEXT:    [[MDX1:%.+]] = relax.mean [[DX1]] {axis = array<i64: 1>, keepdims = true} :
// CHECK-NEXT:    [[XM:%.+]] = relax.multiply [[XHAT]], [[MDX1]] :
// CHECK-NEXT:    [[MDX:%.+]] = relax.mean [[DXHAT]] {axis = array<i64: 1>, keepdims = true} :
// CHECK-NEXT:    [[D1:%.+]] = relax.subtract [[DXHAT]], [[MDX]] :
// CHECK-NEXT:    [[D2:%.+]] = relax.subtract [[D1]], [[XM]] :
// CHECK-NEXT:    [[DX:%.+]] = relax.multiply [[RSTD]], [[D2]] : tensor<4x1xf32>, tensor<4x3xf32> -> tensor<4x3xf32>
// CHECK-NEXT:    [[GX:%.+]] = relax.multiply [[G]], [[XHAT]] :
// CHECK-NEXT:    [[DGAMMA:%.+]] = relax.sum [[GX]] {axis = array<i64: 0>} : tensor<4x3xf32> -> tensor<3xf32>
// CHECK-NEXT:    [[DBETA:%.+]] = relax.sum [[G]] {axis = array<i64: 0>} : tensor<4x3xf32> -> tensor<3xf32>
// CHECK-NEXT:    relax.tuple([[DX]], [[DGAMMA]], [[DBETA]], %{{.+}} : tensor<4x3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<4x3xf32>)
func.func @layer_norm(%x: tensor<4x3xf32>, %gamma: tensor<3xf32>, %beta: tensor<3xf32>, %c: tensor<4x3xf32>) -> tensor<f32> {
  %r = relax.dataflow -> (tensor<f32>) {
    %y = relax.layer_norm %x, %gamma, %beta {axes = array<i64: -1>} : tensor<4x3xf32>, tensor<3xf32>, tensor<3xf32>
    %p = relax.multiply %y, %c : tensor<4x3xf32>, tensor<4x3xf32> -> tensor<4x3xf32>
    %l = relax.sum %p : tensor<4x3xf32> -> tensor<f32>
    relax.output %l : tensor<f32>
  }
  return %r : tensor<f32>
}

// Two normalized axes given unsorted: the statistics keep axes (0, 2), gamma
// is reshaped to (2, 1, 4), and dgamma, dbeta sum over the remaining axis 1.
// CHECK-LABEL: func.func @layer_norm_axes_adjoint(
// CHECK-SAME:    %[[X:.+]]: tensor<2x3x4xf32>, %[[GAMMA:.+]]: tensor<2x4xf32>, %[[BETA:.+]]: tensor<2x4xf32>) -> tuple<tensor<f32>, tuple<tensor<2x3x4xf32>, tensor<2x4xf32>, tensor<2x4xf32>>> {
// CHECK:         relax.mean %[[X]] {axis = array<i64: 0, 2>, keepdims = true} : tensor<2x3x4xf32> -> tensor<1x3x1xf32>
// CHECK:         [[EPS:%.+]] = arith.constant dense<0.00999999977> : tensor<f32>
// CHECK:         [[RSTD:%.+]] = relax.rsqrt %{{.+}} : tensor<1x3x1xf32>
// CHECK:         relax.reshape %[[GAMMA]] : tensor<2x4xf32> -> tensor<2x1x4xf32>
// CHECK:         [[DX:%.+]] = relax.multiply [[RSTD]], %{{.+}} : tensor<1x3x1xf32>, tensor<2x3x4xf32> -> tensor<2x3x4xf32>
// CHECK:         [[DGAMMA:%.+]] = relax.sum %{{.+}} {axis = array<i64: 1>} : tensor<2x3x4xf32> -> tensor<2x4xf32>
// CHECK-NEXT:    [[DBETA:%.+]] = relax.sum %{{.+}} {axis = array<i64: 1>} : tensor<2x3x4xf32> -> tensor<2x4xf32>
// CHECK-NEXT:    relax.tuple([[DX]], [[DGAMMA]], [[DBETA]] : tensor<2x3x4xf32>, tensor<2x4xf32>, tensor<2x4xf32>)
func.func @layer_norm_axes(%x: tensor<2x3x4xf32>, %gamma: tensor<2x4xf32>, %beta: tensor<2x4xf32>) -> tensor<f32> {
  %r = relax.dataflow -> (tensor<f32>) {
    %y = relax.layer_norm %x, %gamma, %beta {axes = array<i64: 2, 0>, epsilon = 0.01 : f64} : tensor<2x3x4xf32>, tensor<2x4xf32>, tensor<2x4xf32>
    %s = relax.square %y : tensor<2x3x4xf32>
    %l = relax.sum %s : tensor<2x3x4xf32> -> tensor<f32>
    relax.output %l : tensor<f32>
  }
  return %r : tensor<f32>
}
