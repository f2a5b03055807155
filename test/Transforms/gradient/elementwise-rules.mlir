// The gradient rules of the elementwise ops sqrt rsqrt sin cos tan abs square
// erf silu gelu softplus log1p expm1 leaky_relu clip astype power maximum minimum: one
// function per case, all differentiated in one run. Each loss is
// sum(op(x) * c) (or sum(op(a, b))), so the seed reaching the op is
// g = broadcast(ones) * c; the checks follow each rule's key ops.
// RUN: relax-opt %s --gradient="func=sqrt,rsqrt,sin,cos,tan,abs,square,erf,silu,gelu,softplus,log1p,expm1,leaky_relu,clip,astype_float,astype_int,power,maximum,minimum,sqrt_f16" | FileCheck %s

// d sqrt(x) = g * 0.5 / sqrt(x), reusing the forward sqrt.
// CHECK-LABEL: func.func @sqrt_adjoint(
// CHECK-SAME:    %[[X:.+]]: tensor<3xf32>, %[[C:.+]]: tensor<3xf32>) -> tuple<tensor<f32>, tuple<tensor<3xf32>, tensor<3xf32>>> {
// CHECK:         [[Y:%.+]] = relax.sqrt %[[X]] : tensor<3xf32>
// CHECK:         [[S:%.+]] = relax.broadcast_to %{{.+}} : tensor<1xf32> -> tensor<3xf32>
// CHECK-NEXT:    [[G:%.+]] = relax.multiply [[S]], %[[C]] : tensor<3xf32>, tensor<3xf32> -> tensor<3xf32>
// CHECK-NEXT:    [[DC:%.+]] = relax.multiply [[S]], [[Y]] : tensor<3xf32>, tensor<3xf32> -> tensor<3xf32>
// CHECK:         [[H:%.+]] = arith.constant dense<5.000000e-01> : tensor<f32>
// CHECK:         [[GH:%.+]] = relax.multiply [[G]], [[H]] : tensor<3xf32>, tensor<f32> -> tensor<3xf32>
// CHECK:         [[DX:%.+]] = relax.divide [[GH]], [[Y]] : tensor<3xf32>, tensor<3xf32> -> tensor<3xf32>
// CHECK-NOT:     relax.sqrt
// CHECK:         relax.tuple([[DX]], [[DC]] : tensor<3xf32>, tensor<3xf32>)
func.func @sqrt(%x: tensor<3xf32>, %c: tensor<3xf32>) -> tensor<f32> {
  %r = relax.dataflow -> (tensor<f32>) {
    %y = relax.sqrt %x : tensor<3xf32>
    %p = relax.multiply %y, %c : tensor<3xf32>, tensor<3xf32> -> tensor<3xf32>
    %l = relax.sum %p : tensor<3xf32> -> tensor<f32>
    relax.output %l : tensor<f32>
  }
  return %r : tensor<f32>
}

// d rsqrt(x) = g * -0.5 * rsqrt(x)^3.
// CHECK-LABEL: func.func @rsqrt_adjoint(
// CHECK-SAME:    %[[X:.+]]: tensor<3xf32>, %[[C:.+]]: tensor<3xf32>) -> tuple<tensor<f32>, tuple<tensor<3xf32>, tensor<3xf32>>> {
// CHECK:         [[Y:%.+]] = relax.rsqrt %[[X]] : tensor<3xf32>
// CHECK:         [[S:%.+]] = relax.broadcast_to %{{.+}} : tensor<1xf32> -> tensor<3xf32>
// CHECK-NEXT:    [[G:%.+]] = relax.multiply [[S]], %[[C]] : tensor<3xf32>, tensor<3xf32> -> tensor<3xf32>
// CHECK-NEXT:    [[DC:%.+]] = relax.multiply [[S]], [[Y]] : tensor<3xf32>, tensor<3xf32> -> tensor<3xf32>
// CHECK:         [[Y2:%.+]] = relax.multiply [[Y]], [[Y]] :
// CHECK:         [[Y3:%.+]] = relax.multiply [[Y]], [[Y2]] :
// CHECK:         [[H:%.+]] = arith.constant dense<-5.000000e-01> : tensor<f32>
// CHECK:         [[GH:%.+]] = relax.multiply [[G]], [[H]] : tensor<3xf32>, tensor<f32> -> tensor<3xf32>
// CHECK:         [[DX:%.+]] = relax.multiply [[GH]], [[Y3]] : tensor<3xf32>, tensor<3xf32> -> tensor<3xf32>
// CHECK:         relax.tuple([[DX]], [[DC]] : tensor<3xf32>, tensor<3xf32>)
func.func @rsqrt(%x: tensor<3xf32>, %c: tensor<3xf32>) -> tensor<f32> {
  %r = relax.dataflow -> (tensor<f32>) {
    %y = relax.rsqrt %x : tensor<3xf32>
    %p = relax.multiply %y, %c : tensor<3xf32>, tensor<3xf32> -> tensor<3xf32>
    %l = relax.sum %p : tensor<3xf32> -> tensor<f32>
    relax.output %l : tensor<f32>
  }
  return %r : tensor<f32>
}

// d sin(x) = g * cos(x).
// CHECK-LABEL: func.func @sin_adjoint(
// CHECK-SAME:    %[[X:.+]]: tensor<3xf32>, %[[C:.+]]: tensor<3xf32>) -> tuple<tensor<f32>, tuple<tensor<3xf32>, tensor<3xf32>>> {
// CHECK:         [[Y:%.+]] = relax.sin %[[X]] : tensor<3xf32>
// CHECK:         [[S:%.+]] = relax.broadcast_to %{{.+}} : tensor<1xf32> -> tensor<3xf32>
// CHECK-NEXT:    [[G:%.+]] = relax.multiply [[S]], %[[C]] : tensor<3xf32>, tensor<3xf32> -> tensor<3xf32>
// CHECK-NEXT:    [[DC:%.+]] = relax.multiply [[S]], [[Y]] : tensor<3xf32>, tensor<3xf32> -> tensor<3xf32>
// CHECK:         [[COS:%.+]] = relax.cos %[[X]] : tensor<3xf32>
// CHECK:         [[DX:%.+]] = relax.multiply [[G]], [[COS]] : tensor<3xf32>, tensor<3xf32> -> tensor<3xf32>
// CHECK:         relax.tuple([[DX]], [[DC]] : tensor<3xf32>, tensor<3xf32>)
func.func @sin(%x: tensor<3xf32>, %c: tensor<3xf32>) -> tensor<f32> {
  %r = relax.dataflow -> (tensor<f32>) {
    %y = relax.sin %x : tensor<3xf32>
    %p = relax.multiply %y, %c : tensor<3xf32>, tensor<3xf32> -> tensor<3xf32>
    %l = relax.sum %p : tensor<3xf32> -> tensor<f32>
    relax.output %l : tensor<f32>
  }
  return %r : tensor<f32>
}

// d cos(x) = -(g * sin(x)).
// CHECK-LABEL: func.func @cos_adjoint(
// CHECK-SAME:    %[[X:.+]]: tensor<3xf32>, %[[C:.+]]: tensor<3xf32>) -> tuple<tensor<f32>, tuple<tensor<3xf32>, tensor<3xf32>>> {
// CHECK:         [[Y:%.+]] = relax.cos %[[X]] : tensor<3xf32>
// CHECK:         [[S:%.+]] = relax.broadcast_to %{{.+}} : tensor<1xf32> -> tensor<3xf32>
// CHECK-NEXT:    [[G:%.+]] = relax.multiply [[S]], %[[C]] : tensor<3xf32>, tensor<3xf32> -> tensor<3xf32>
// CHECK-NEXT:    [[DC:%.+]] = relax.multiply [[S]], [[Y]] : tensor<3xf32>, tensor<3xf32> -> tensor<3xf32>
// CHECK:         [[SIN:%.+]] = relax.sin %[[X]] : tensor<3xf32>
// CHECK:         [[GS:%.+]] = relax.multiply [[G]], [[SIN]] : tensor<3xf32>, tensor<3xf32> -> tensor<3xf32>
// CHECK:         [[DX:%.+]] = relax.negative [[GS]] : tensor<3xf32>
// CHECK:         relax.tuple([[DX]], [[DC]] : tensor<3xf32>, tensor<3xf32>)
func.func @cos(%x: tensor<3xf32>, %c: tensor<3xf32>) -> tensor<f32> {
  %r = relax.dataflow -> (tensor<f32>) {
    %y = relax.cos %x : tensor<3xf32>
    %p = relax.multiply %y, %c : tensor<3xf32>, tensor<3xf32> -> tensor<3xf32>
    %l = relax.sum %p : tensor<3xf32> -> tensor<f32>
    relax.output %l : tensor<f32>
  }
  return %r : tensor<f32>
}

// d tan(x) = g * (1 + tan(x)^2), reusing the forward tan.
// CHECK-LABEL: func.func @tan_adjoint(
// CHECK-SAME:    %[[X:.+]]: tensor<3xf32>, %[[C:.+]]: tensor<3xf32>) -> tuple<tensor<f32>, tuple<tensor<3xf32>, tensor<3xf32>>> {
// CHECK:         [[Y:%.+]] = relax.tan %[[X]] : tensor<3xf32>
// CHECK:         [[S:%.+]] = relax.broadcast_to %{{.+}} : tensor<1xf32> -> tensor<3xf32>
// CHECK-NEXT:    [[G:%.+]] = relax.multiply [[S]], %[[C]] : tensor<3xf32>, tensor<3xf32> -> tensor<3xf32>
// CHECK-NEXT:    [[DC:%.+]] = relax.multiply [[S]], [[Y]] : tensor<3xf32>, tensor<3xf32> -> tensor<3xf32>
// CHECK:         [[Y2:%.+]] = relax.multiply [[Y]], [[Y]] :
// CHECK:         [[ONE:%.+]] = arith.constant dense<1.000000e+00> : tensor<f32>
// CHECK:         [[SUM:%.+]] = relax.add [[ONE]], [[Y2]] : tensor<f32>, tensor<3xf32> -> tensor<3xf32>
// CHECK:         [[DX:%.+]] = relax.multiply [[G]], [[SUM]] : tensor<3xf32>, tensor<3xf32> -> tensor<3xf32>
// CHECK:         relax.tuple([[DX]], [[DC]] : tensor<3xf32>, tensor<3xf32>)
func.func @tan(%x: tensor<3xf32>, %c: tensor<3xf32>) -> tensor<f32> {
  %r = relax.dataflow -> (tensor<f32>) {
    %y = relax.tan %x : tensor<3xf32>
    %p = relax.multiply %y, %c : tensor<3xf32>, tensor<3xf32> -> tensor<3xf32>
    %l = relax.sum %p : tensor<3xf32> -> tensor<f32>
    relax.output %l : tensor<f32>
  }
  return %r : tensor<f32>
}

// d |x| = g * sign(x): -1 below 0, 1 above, 0 at 0.
// CHECK-LABEL: func.func @abs_adjoint(
// CHECK-SAME:    %[[X:.+]]: tensor<3xf32>, %[[C:.+]]: tensor<3xf32>) -> tuple<tensor<f32>, tuple<tensor<3xf32>, tensor<3xf32>>> {
// CHECK:         [[Y:%.+]] = relax.abs %[[X]] : tensor<3xf32>
// CHECK:         [[S:%.+]] = relax.broadcast_to %{{.+}} : tensor<1xf32> -> tensor<3xf32>
// CHECK-NEXT:    [[G:%.+]] = relax.multiply [[S]], %[[C]] : tensor<3xf32>, tensor<3xf32> -> tensor<3xf32>
// CHECK-NEXT:    [[DC:%.+]] = relax.multiply [[S]], [[Y]] : tensor<3xf32>, tensor<3xf32> -> tensor<3xf32>
// CHECK-DAG:     [[ZERO:%.+]] = arith.constant dense<0.000000e+00> : tensor<f32>
// CHECK-DAG:     [[M1:%.+]] = arith.constant dense<-1.000000e+00> : tensor<f32>
// CHECK:         [[LT:%.+]] = relax.less %[[X]], [[ZERO]] : tensor<3xf32>, tensor<f32> -> tensor<3xi1>
// CHECK:         [[NEG:%.+]] = relax.where [[LT]], [[M1]], [[ZERO]] : tensor<3xi1>, tensor<f32>, tensor<f32> -> tensor<3xf32>
// CHECK:         [[P1:%.+]] = arith.constant dense<1.000000e+00> : tensor<f32>
// CHECK:         [[GT:%.+]] = relax.greater %[[X]], [[ZERO]] : tensor<3xf32>, tensor<f32> -> tensor<3xi1>
// CHECK:         [[SIGN:%.+]] = relax.where [[GT]], [[P1]], [[NEG]] : tensor<3xi1>, tensor<f32>, tensor<3xf32> -> tensor<3xf32>
// CHECK:         [[DX:%.+]] = relax.multiply [[G]], [[SIGN]] : tensor<3xf32>, tensor<3xf32> -> tensor<3xf32>
// CHECK:         relax.tuple([[DX]], [[DC]] : tensor<3xf32>, tensor<3xf32>)
func.func @abs(%x: tensor<3xf32>, %c: tensor<3xf32>) -> tensor<f32> {
  %r = relax.dataflow -> (tensor<f32>) {
    %y = relax.abs %x : tensor<3xf32>
    %p = relax.multiply %y, %c : tensor<3xf32>, tensor<3xf32> -> tensor<3xf32>
    %l = relax.sum %p : tensor<3xf32> -> tensor<f32>
    relax.output %l : tensor<f32>
  }
  return %r : tensor<f32>
}

// d x^2 = g * (x * 2).
// CHECK-LABEL: func.func @square_adjoint(
// CHECK-SAME:    %[[X:.+]]: tensor<3xf32>, %[[C:.+]]: tensor<3xf32>) -> tuple<tensor<f32>, tuple<tensor<3xf32>, tensor<3xf32>>> {
// CHECK:         [[Y:%.+]] = relax.square %[[X]] : tensor<3xf32>
// CHECK:         [[S:%.+]] = relax.broadcast_to %{{.+}} : tensor<1xf32> -> tensor<3xf32>
// CHECK-NEXT:    [[G:%.+]] = relax.multiply [[S]], %[[C]] : tensor<3xf32>, tensor<3xf32> -> tensor<3xf32>
// CHECK-NEXT:    [[DC:%.+]] = relax.multiply [[S]], [[Y]] : tensor<3xf32>, tensor<3xf32> -> tensor<3xf32>
// CHECK:         [[TWO:%.+]] = arith.constant dense<2.000000e+00> : tensor<f32>
// CHECK:         [[X2:%.+]] = relax.multiply %[[X]], [[TWO]] : tensor<3xf32>, tensor<f32> -> tensor<3xf32>
// CHECK:         [[DX:%.+]] = relax.multiply [[G]], [[X2]] : tensor<3xf32>, tensor<3xf32> -> tensor<3xf32>
// CHECK:         relax.tuple([[DX]], [[DC]] : tensor<3xf32>, tensor<3xf32>)
func.func @square(%x: tensor<3xf32>, %c: tensor<3xf32>) -> tensor<f32> {
  %r = relax.dataflow -> (tensor<f32>) {
    %y = relax.square %x : tensor<3xf32>
    %p = relax.multiply %y, %c : tensor<3xf32>, tensor<3xf32> -> tensor<3xf32>
    %l = relax.sum %p : tensor<3xf32> -> tensor<f32>
    relax.output %l : tensor<f32>
  }
  return %r : tensor<f32>
}

// d erf(x) = g * exp(-x^2) * 2/sqrt(pi) (1.12837923 in f32).
// CHECK-LABEL: func.func @erf_adjoint(
// CHECK-SAME:    %[[X:.+]]: tensor<3xf32>, %[[C:.+]]: tensor<3xf32>) -> tuple<tensor<f32>, tuple<tensor<3xf32>, tensor<3xf32>>> {
// CHECK:         [[Y:%.+]] = relax.erf %[[X]] : tensor<3xf32>
// CHECK:         [[S:%.+]] = relax.broadcast_to %{{.+}} : tensor<1xf32> -> tensor<3xf32>
// CHECK-NEXT:    [[G:%.+]] = relax.multiply [[S]], %[[C]] : tensor<3xf32>, tensor<3xf32> -> tensor<3xf32>
// CHECK-NEXT:    [[DC:%.+]] = relax.multiply [[S]], [[Y]] : tensor<3xf32>, tensor<3xf32> -> tensor<3xf32>
// CHECK:         [[XX:%.+]] = relax.multiply %[[X]], %[[X]] :
// CHECK:         [[N:%.+]] = relax.negative [[XX]] : tensor<3xf32>
// CHECK:         [[E:%.+]] = relax.exp [[N]] : tensor<3xf32>
// CHECK:         [[K:%.+]] = arith.constant dense<1.12837923> : tensor<f32>
// CHECK:         [[D:%.+]] = relax.multiply [[E]], [[K]] : tensor<3xf32>, tensor<f32> -> tensor<3xf32>
// CHECK:         [[DX:%.+]] = relax.multiply [[G]], [[D]] : tensor<3xf32>, tensor<3xf32> -> tensor<3xf32>
// CHECK:         relax.tuple([[DX]], [[DC]] : tensor<3xf32>, tensor<3xf32>)
func.func @erf(%x: tensor<3xf32>, %c: tensor<3xf32>) -> tensor<f32> {
  %r = relax.dataflow -> (tensor<f32>) {
    %y = relax.erf %x : tensor<3xf32>
    %p = relax.multiply %y, %c : tensor<3xf32>, tensor<3xf32> -> tensor<3xf32>
    %l = relax.sum %p : tensor<3xf32> -> tensor<f32>
    relax.output %l : tensor<f32>
  }
  return %r : tensor<f32>
}

// d silu(x) = g * s * (1 + x * (1 - s)), s = sigmoid(x).
// CHECK-LABEL: func.func @silu_adjoint(
// CHECK-SAME:    %[[X:.+]]: tensor<3xf32>, %[[C:.+]]: tensor<3xf32>) -> tuple<tensor<f32>, tuple<tensor<3xf32>, tensor<3xf32>>> {
// CHECK:         [[Y:%.+]] = relax.silu %[[X]] : tensor<3xf32>
// CHECK:         [[S:%.+]] = relax.broadcast_to %{{.+}} : tensor<1xf32> -> tensor<3xf32>
// CHECK-NEXT:    [[G:%.+]] = relax.multiply [[S]], %[[C]] : tensor<3xf32>, tensor<3xf32> -> tensor<3xf32>
// CHECK-NEXT:    [[DC:%.+]] = relax.multiply [[S]], [[Y]] : tensor<3xf32>, tensor<3xf32> -> tensor<3xf32>
// CHECK:         [[SIG:%.+]] = relax.sigmoid %[[X]] : tensor<3xf32>
// CHECK:         [[OMS:%.+]] = relax.subtract %{{.+}}, [[SIG]] : tensor<f32>, tensor<3xf32> -> tensor<3xf32>
// CHECK:         [[XO:%.+]] = relax.multiply %[[X]], [[OMS]] :
// CHECK:         [[OP:%.+]] = relax.add %{{.+}}, [[XO]] : tensor<f32>, tensor<3xf32> -> tensor<3xf32>
// CHECK:         [[D:%.+]] = relax.multiply [[SIG]], [[OP]] :
// CHECK:         [[DX:%.+]] = relax.multiply [[G]], [[D]] : tensor<3xf32>, tensor<3xf32> -> tensor<3xf32>
// CHECK:         relax.tuple([[DX]], [[DC]] : tensor<3xf32>, tensor<3xf32>)
func.func @silu(%x: tensor<3xf32>, %c: tensor<3xf32>) -> tensor<f32> {
  %r = relax.dataflow -> (tensor<f32>) {
    %y = relax.silu %x : tensor<3xf32>
    %p = relax.multiply %y, %c : tensor<3xf32>, tensor<3xf32> -> tensor<3xf32>
    %l = relax.sum %p : tensor<3xf32> -> tensor<f32>
    relax.output %l : tensor<f32>
  }
  return %r : tensor<f32>
}

// d gelu(x) = g * (Phi(x) + x phi(x)): Phi(x) = 0.5 (1 + erf(x / sqrt 2)),
// phi(x) = exp(-x^2 / 2) / sqrt(2 pi) (0.398942292 in f32).
// CHECK-LABEL: func.func @gelu_adjoint(
// CHECK-SAME:    %[[X:.+]]: tensor<3xf32>, %[[C:.+]]: tensor<3xf32>) -> tuple<tensor<f32>, tuple<tensor<3xf32>, tensor<3xf32>>> {
// CHECK:         [[Y:%.+]] = relax.gelu %[[X]] : tensor<3xf32>
// CHECK:         [[S:%.+]] = relax.broadcast_to %{{.+}} : tensor<1xf32> -> tensor<3xf32>
// CHECK-NEXT:    [[G:%.+]] = relax.multiply [[S]], %[[C]] : tensor<3xf32>, tensor<3xf32> -> tensor<3xf32>
// CHECK-NEXT:    [[DC:%.+]] = relax.multiply [[S]], [[Y]] : tensor<3xf32>, tensor<3xf32> -> tensor<3xf32>
// CHECK:         [[R2:%.+]] = arith.constant dense<0.707106769> : tensor<f32>
// CHECK:         [[XR:%.+]] = relax.multiply %[[X]], [[R2]] :
// CHECK:         [[ERF:%.+]] = relax.erf [[XR]] : tensor<3xf32>
// CHECK:         [[OPE:%.+]] = relax.add %{{.+}}, [[ERF]] :
// CHECK:         [[CDF:%.+]] = relax.multiply %{{.+}}, [[OPE]] : tensor<f32>, tensor<3xf32> -> tensor<3xf32>
// CHECK:         [[K:%.+]] = arith.constant dense<0.398942292> : tensor<f32>
// CHECK:         [[MH:%.+]] = arith.constant dense<-5.000000e-01> : tensor<f32>
// CHECK:         [[XX:%.+]] = relax.multiply %[[X]], %[[X]] :
// CHECK:         [[XXH:%.+]] = relax.multiply [[XX]], [[MH]] :
// CHECK:         [[E:%.+]] = relax.exp [[XXH]] :
// CHECK:         [[PDF:%.+]] = relax.multiply [[E]], [[K]] :
// CHECK:         [[XPDF:%.+]] = relax.multiply %[[X]], [[PDF]] :
// CHECK:         [[D:%.+]] = relax.add [[CDF]], [[XPDF]] :
// CHECK:         [[DX:%.+]] = relax.multiply [[G]], [[D]] : tensor<3xf32>, tensor<3xf32> -> tensor<3xf32>
// CHECK:         relax.tuple([[DX]], [[DC]] : tensor<3xf32>, tensor<3xf32>)
func.func @gelu(%x: tensor<3xf32>, %c: tensor<3xf32>) -> tensor<f32> {
  %r = relax.dataflow -> (tensor<f32>) {
    %y = relax.gelu %x : tensor<3xf32>
    %p = relax.multiply %y, %c : tensor<3xf32>, tensor<3xf32> -> tensor<3xf32>
    %l = relax.sum %p : tensor<3xf32> -> tensor<f32>
    relax.output %l : tensor<f32>
  }
  return %r : tensor<f32>
}

// d softplus(x) = g * sigmoid(x).
// CHECK-LABEL: func.func @softplus_adjoint(
// CHECK-SAME:    %[[X:.+]]: tensor<3xf32>, %[[C:.+]]: tensor<3xf32>) -> tuple<tensor<f32>, tuple<tensor<3xf32>, tensor<3xf32>>> {
// CHECK:         [[Y:%.+]] = relax.softplus %[[X]] : tensor<3xf32>
// CHECK:         [[S:%.+]] = relax.broadcast_to %{{.+}} : tensor<1xf32> -> tensor<3xf32>
// CHECK-NEXT:    [[G:%.+]] = relax.multiply [[S]], %[[C]] : tensor<3xf32>, tensor<3xf32> -> tensor<3xf32>
// CHECK-NEXT:    [[DC:%.+]] = relax.multiply [[S]], [[Y]] : tensor<3xf32>, tensor<3xf32> -> tensor<3xf32>
// CHECK:         [[SIG:%.+]] = relax.sigmoid %[[X]] : tensor<3xf32>
// CHECK:         [[DX:%.+]] = relax.multiply [[G]], [[SIG]] : tensor<3xf32>, tensor<3xf32> -> tensor<3xf32>
// CHECK:         relax.tuple([[DX]], [[DC]] : tensor<3xf32>, tensor<3xf32>)
func.func @softplus(%x: tensor<3xf32>, %c: tensor<3xf32>) -> tensor<f32> {
  %r = relax.dataflow -> (tensor<f32>) {
    %y = relax.softplus %x : tensor<3xf32>
    %p = relax.multiply %y, %c : tensor<3xf32>, tensor<3xf32> -> tensor<3xf32>
    %l = relax.sum %p : tensor<3xf32> -> tensor<f32>
    relax.output %l : tensor<f32>
  }
  return %r : tensor<f32>
}

// d log1p(x) = g / (1 + x).
// CHECK-LABEL: func.func @log1p_adjoint(
// CHECK-SAME:    %[[X:.+]]: tensor<3xf32>, %[[C:.+]]: tensor<3xf32>) -> tuple<tensor<f32>, tuple<tensor<3xf32>, tensor<3xf32>>> {
// CHECK:         [[Y:%.+]] = relax.log1p %[[X]] : tensor<3xf32>
// CHECK:         [[S:%.+]] = relax.broadcast_to %{{.+}} : tensor<1xf32> -> tensor<3xf32>
// CHECK-NEXT:    [[G:%.+]] = relax.multiply [[S]], %[[C]] : tensor<3xf32>, tensor<3xf32> -> tensor<3xf32>
// CHECK-NEXT:    [[DC:%.+]] = relax.multiply [[S]], [[Y]] : tensor<3xf32>, tensor<3xf32> -> tensor<3xf32>
// CHECK:         [[ONE:%.+]] = arith.constant dense<1.000000e+00> : tensor<f32>
// CHECK-NEXT:    [[D:%.+]] = relax.add [[ONE]], %[[X]] : tensor<f32>, tensor<3xf32> -> tensor<3xf32>
// CHECK-NEXT:    [[DX:%.+]] = relax.divide [[G]], [[D]] : tensor<3xf32>, tensor<3xf32> -> tensor<3xf32>
// CHECK:         relax.tuple([[DX]], [[DC]] : tensor<3xf32>, tensor<3xf32>)
func.func @log1p(%x: tensor<3xf32>, %c: tensor<3xf32>) -> tensor<f32> {
  %r = relax.dataflow -> (tensor<f32>) {
    %y = relax.log1p %x : tensor<3xf32>
    %p = relax.multiply %y, %c : tensor<3xf32>, tensor<3xf32> -> tensor<3xf32>
    %l = relax.sum %p : tensor<3xf32> -> tensor<f32>
    relax.output %l : tensor<f32>
  }
  return %r : tensor<f32>
}

// d expm1(x) = g (1 + y), from the result.
// CHECK-LABEL: func.func @expm1_adjoint(
// CHECK-SAME:    %[[X:.+]]: tensor<3xf32>) -> tuple<tensor<f32>, tuple<tensor<3xf32>>> {
// CHECK:         [[Y:%.+]] = relax.expm1 %[[X]] : tensor<3xf32>
// CHECK:         [[G:%.+]] = relax.broadcast_to %{{.+}} : tensor<1xf32> -> tensor<3xf32>
// CHECK-NEXT:    [[ONE:%.+]] = arith.constant dense<1.000000e+00> : tensor<f32>
// CHECK-NEXT:    [[D:%.+]] = relax.add [[ONE]], [[Y]] : tensor<f32>, tensor<3xf32> -> tensor<3xf32>
// CHECK-NEXT:    [[DX:%.+]] = relax.multiply [[G]], [[D]] : tensor<3xf32>, tensor<3xf32> -> tensor<3xf32>
// CHECK-NEXT:    relax.tuple([[DX]] : tensor<3xf32>)
func.func @expm1(%x: tensor<3xf32>) -> tensor<f32> {
  %r = relax.dataflow -> (tensor<f32>) {
    %y = relax.expm1 %x : tensor<3xf32>
    %l = relax.sum %y : tensor<3xf32> -> tensor<f32>
    relax.output %l : tensor<f32>
  }
  return %r : tensor<f32>
}

// d leaky_relu(x) = where(x > 0, g, g * alpha).
// CHECK-LABEL: func.func @leaky_relu_adjoint(
// CHECK-SAME:    %[[X:.+]]: tensor<3xf32>) -> tuple<tensor<f32>, tuple<tensor<3xf32>>> {
// CHECK:         [[G:%.+]] = relax.broadcast_to %{{.+}} : tensor<1xf32> -> tensor<3xf32>
// CHECK-DAG:     [[ZERO:%.+]] = arith.constant dense<0.000000e+00> : tensor<f32>
// CHECK-DAG:     [[A:%.+]] = arith.constant dense<2.000000e-01> : tensor<f32>
// CHECK:         [[GA:%.+]] = relax.multiply [[G]], [[A]] : tensor<3xf32>, tensor<f32> -> tensor<3xf32>
// CHECK:         [[P:%.+]] = relax.greater %[[X]], [[ZERO]] : tensor<3xf32>, tensor<f32> -> tensor<3xi1>
// CHECK:         [[DX:%.+]] = relax.where [[P]], [[G]], [[GA]] : tensor<3xi1>, tensor<3xf32>, tensor<3xf32> -> tensor<3xf32>
// CHECK:         relax.tuple([[DX]] : tensor<3xf32>)
func.func @leaky_relu(%x: tensor<3xf32>) -> tensor<f32> {
  %r = relax.dataflow -> (tensor<f32>) {
    %y = relax.leaky_relu %x {alpha = 0.2 : f64} : tensor<3xf32>
    %l = relax.sum %y : tensor<3xf32> -> tensor<f32>
    relax.output %l : tensor<f32>
  }
  return %r : tensor<f32>
}

// clip passes the gradient strictly inside (min, max) and 0 on and beyond the
// bounds: where(x > min, where(x < max, g, 0), 0).
// CHECK-LABEL: func.func @clip_adjoint(
// CHECK-SAME:    %[[X:.+]]: tensor<3xf32>) -> tuple<tensor<f32>, tuple<tensor<3xf32>>> {
// CHECK:         [[G:%.+]] = relax.broadcast_to %{{.+}} : tensor<1xf32> -> tensor<3xf32>
// CHECK-DAG:     [[ZERO:%.+]] = arith.constant dense<0.000000e+00> : tensor<f32>
// CHECK-DAG:     [[LO:%.+]] = arith.constant dense<-1.000000e+00> : tensor<f32>
// CHECK-DAG:     [[HI:%.+]] = arith.constant dense<2.000000e+00> : tensor<f32>
// CHECK:         [[BELOW:%.+]] = relax.less %[[X]], [[HI]] : tensor<3xf32>, tensor<f32> -> tensor<3xi1>
// CHECK:         [[IN:%.+]] = relax.where [[BELOW]], [[G]], [[ZERO]] : tensor<3xi1>, tensor<3xf32>, tensor<f32> -> tensor<3xf32>
// CHECK:         [[ABOVE:%.+]] = relax.greater %[[X]], [[LO]] : tensor<3xf32>, tensor<f32> -> tensor<3xi1>
// CHECK:         [[DX:%.+]] = relax.where [[ABOVE]], [[IN]], [[ZERO]] : tensor<3xi1>, tensor<3xf32>, tensor<f32> -> tensor<3xf32>
// CHECK:         relax.tuple([[DX]] : tensor<3xf32>)
func.func @clip(%x: tensor<3xf32>) -> tensor<f32> {
  %r = relax.dataflow -> (tensor<f32>) {
    %y = relax.clip %x {min = -1.0 : f64, max = 2.0 : f64} : tensor<3xf32>
    %l = relax.sum %y : tensor<3xf32> -> tensor<f32>
    relax.output %l : tensor<f32>
  }
  return %r : tensor<f32>
}

// A float-to-float astype passes the adjoint back converted.
// CHECK-LABEL: func.func @astype_float_adjoint(
// CHECK-SAME:    %[[X:.+]]: tensor<3xf32>) -> tuple<tensor<f64>, tuple<tensor<3xf32>>> {
// CHECK:         [[G:%.+]] = relax.broadcast_to %{{.+}} : tensor<1xf64> -> tensor<3xf64>
// CHECK-NEXT:    [[DX:%.+]] = relax.astype [[G]] : tensor<3xf64> -> tensor<3xf32>
// CHECK-NEXT:    relax.tuple([[DX]] : tensor<3xf32>)
func.func @astype_float(%x: tensor<3xf32>) -> tensor<f64> {
  %r = relax.dataflow -> (tensor<f64>) {
    %y = relax.astype %x : tensor<3xf32> -> tensor<3xf64>
    %l = relax.sum %y : tensor<3xf64> -> tensor<f64>
    relax.output %l : tensor<f64>
  }
  return %r : tensor<f64>
}

// A conversion through an integer carries no gradient: in
// sum(float(int(x)) * x), only the multiply's rhs reaches x.
// CHECK-LABEL: func.func @astype_int_adjoint(
// CHECK-SAME:    %[[X:.+]]: tensor<3xf32>) -> tuple<tensor<f32>, tuple<tensor<3xf32>>> {
// CHECK:         [[I:%.+]] = relax.astype %[[X]] : tensor<3xf32> -> tensor<3xi32>
// CHECK:         [[F:%.+]] = relax.astype [[I]] : tensor<3xi32> -> tensor<3xf32>
// CHECK:         [[G:%.+]] = relax.broadcast_to %{{.+}} : tensor<1xf32> -> tensor<3xf32>
// CHECK-NEXT:    [[DX:%.+]] = relax.multiply [[G]], [[F]] : tensor<3xf32>, tensor<3xf32> -> tensor<3xf32>
// CHECK-NOT:     relax.astype
// CHECK-NEXT:    relax.tuple([[DX]] : tensor<3xf32>)
func.func @astype_int(%x: tensor<3xf32>) -> tensor<f32> {
  %r = relax.dataflow -> (tensor<f32>) {
    %i = relax.astype %x : tensor<3xf32> -> tensor<3xi32>
    %f = relax.astype %i : tensor<3xi32> -> tensor<3xf32>
    %y = relax.multiply %f, %x : tensor<3xf32>, tensor<3xf32> -> tensor<3xf32>
    %l = relax.sum %y : tensor<3xf32> -> tensor<f32>
    relax.output %l : tensor<f32>
  }
  return %r : tensor<f32>
}

// d a^b = g * b * a^(b-1) da + g * a^b * log(a) db, with b * a^(b-1) taken as
// 0 where b = 0 and log(a) as 0 where a <= 0; b's adjoint is summed back to
// its shape.
// CHECK-LABEL: func.func @power_adjoint(
// CHECK-SAME:    %[[A:.+]]: tensor<2x3xf32>, %[[B:.+]]: tensor<3xf32>) -> tuple<tensor<f32>, tuple<tensor<2x3xf32>, tensor<3xf32>>> {
// CHECK:         [[Y:%.+]] = relax.power %[[A]], %[[B]] : tensor<2x3xf32>, tensor<3xf32> -> tensor<2x3xf32>
// CHECK:         [[G:%.+]] = relax.broadcast_to %{{.+}} : tensor<1x1xf32> -> tensor<2x3xf32>
// CHECK:         [[BM1:%.+]] = relax.subtract %[[B]], %{{.+}} : tensor<3xf32>, tensor<f32> -> tensor<3xf32>
// CHECK:         [[P:%.+]] = relax.power %[[A]], [[BM1]] : tensor<2x3xf32>, tensor<3xf32> -> tensor<2x3xf32>
// CHECK:         [[BP:%.+]] = relax.multiply %[[B]], [[P]] : tensor<3xf32>, tensor<2x3xf32> -> tensor<2x3xf32>
// CHECK:         [[B0:%.+]] = relax.equal %[[B]], %{{.+}} : tensor<3xf32>, tensor<f32> -> tensor<3xi1>
// CHECK:         [[BPS:%.+]] = relax.where [[B0]], %{{.+}}, [[BP]] : tensor<3xi1>, tensor<f32>, tensor<2x3xf32> -> tensor<2x3xf32>
// CHECK:         [[DA:%.+]] = relax.multiply [[G]], [[BPS]] :
// CHECK:         [[POS:%.+]] = relax.greater %[[A]], %{{.+}} : tensor<2x3xf32>, tensor<f32> -> tensor<2x3xi1>
// CHECK:         [[SAFE:%.+]] = relax.where [[POS]], %[[A]], %{{.+}} : tensor<2x3xi1>, tensor<2x3xf32>, tensor<f32> -> tensor<2x3xf32>
// CHECK:         [[LOG:%.+]] = relax.log [[SAFE]] :
// CHECK:         [[YL:%.+]] = relax.multiply [[Y]], [[LOG]] :
// CHECK:         [[GB:%.+]] = relax.multiply [[G]], [[YL]] :
// CHECK:         [[DB:%.+]] = relax.collapse_sum_to [[GB]] : tensor<2x3xf32> -> tensor<3xf32>
// CHECK:         relax.tuple([[DA]], [[DB]] : tensor<2x3xf32>, tensor<3xf32>)
func.func @power(%a: tensor<2x3xf32>, %b: tensor<3xf32>) -> tensor<f32> {
  %r = relax.dataflow -> (tensor<f32>) {
    %y = relax.power %a, %b : tensor<2x3xf32>, tensor<3xf32> -> tensor<2x3xf32>
    %l = relax.sum %y : tensor<2x3xf32> -> tensor<f32>
    relax.output %l : tensor<f32>
  }
  return %r : tensor<f32>
}

// maximum sends g to the lhs where a >= b (ties too) and to the rhs elsewhere;
// the broadcast rhs's share is summed back.
// CHECK-LABEL: func.func @maximum_adjoint(
// CHECK-SAME:    %[[A:.+]]: tensor<2x3xf32>, %[[B:.+]]: tensor<3xf32>) -> tuple<tensor<f32>, tuple<tensor<2x3xf32>, tensor<3xf32>>> {
// CHECK:         [[G:%.+]] = relax.broadcast_to %{{.+}} : tensor<1x1xf32> -> tensor<2x3xf32>
// CHECK:         [[GE:%.+]] = relax.greater_equal %[[A]], %[[B]] : tensor<2x3xf32>, tensor<3xf32> -> tensor<2x3xi1>
// CHECK:         [[DA:%.+]] = relax.where [[GE]], [[G]], %{{.+}} : tensor<2x3xi1>, tensor<2x3xf32>, tensor<f32> -> tensor<2x3xf32>
// CHECK:         [[GE2:%.+]] = relax.greater_equal %[[A]], %[[B]] : tensor<2x3xf32>, tensor<3xf32> -> tensor<2x3xi1>
// CHECK:         [[GB:%.+]] = relax.where [[GE2]], %{{.+}}, [[G]] : tensor<2x3xi1>, tensor<f32>, tensor<2x3xf32> -> tensor<2x3xf32>
// CHECK:         [[DB:%.+]] = relax.collapse_sum_to [[GB]] : tensor<2x3xf32> -> tensor<3xf32>
// CHECK:         relax.tuple([[DA]], [[DB]] : tensor<2x3xf32>, tensor<3xf32>)
func.func @maximum(%a: tensor<2x3xf32>, %b: tensor<3xf32>) -> tensor<f32> {
  %r = relax.dataflow -> (tensor<f32>) {
    %y = relax.maximum %a, %b : tensor<2x3xf32>, tensor<3xf32> -> tensor<2x3xf32>
    %l = relax.sum %y : tensor<2x3xf32> -> tensor<f32>
    relax.output %l : tensor<f32>
  }
  return %r : tensor<f32>
}

// minimum sends g to the lhs where a <= b (ties too) and to the rhs elsewhere.
// CHECK-LABEL: func.func @minimum_adjoint(
// CHECK-SAME:    %[[A:.+]]: tensor<3xf32>, %[[B:.+]]: tensor<f32>) -> tuple<tensor<f32>, tuple<tensor<3xf32>, tensor<f32>>> {
// CHECK:         [[G:%.+]] = relax.broadcast_to %{{.+}} : tensor<1xf32> -> tensor<3xf32>
// CHECK:         [[LE:%.+]] = relax.less_equal %[[A]], %[[B]] : tensor<3xf32>, tensor<f32> -> tensor<3xi1>
// CHECK:         [[DA:%.+]] = relax.where [[LE]], [[G]], %{{.+}} : tensor<3xi1>, tensor<3xf32>, tensor<f32> -> tensor<3xf32>
// CHECK:         [[LE2:%.+]] = relax.less_equal %[[A]], %[[B]] : tensor<3xf32>, tensor<f32> -> tensor<3xi1>
// CHECK:         [[GB:%.+]] = relax.where [[LE2]], %{{.+}}, [[G]] : tensor<3xi1>, tensor<f32>, tensor<3xf32> -> tensor<3xf32>
// CHECK:         [[DB:%.+]] = relax.collapse_sum_to [[GB]] : tensor<3xf32> -> tensor<f32>
// CHECK:         relax.tuple([[DA]], [[DB]] : tensor<3xf32>, tensor<f32>)
func.func @minimum(%a: tensor<3xf32>, %b: tensor<f32>) -> tensor<f32> {
  %r = relax.dataflow -> (tensor<f32>) {
    %y = relax.minimum %a, %b : tensor<3xf32>, tensor<f32> -> tensor<3xf32>
    %l = relax.sum %y : tensor<3xf32> -> tensor<f32>
    relax.output %l : tensor<f32>
  }
  return %r : tensor<f32>
}

// The rules' constants take the operand's element type.
// CHECK-LABEL: func.func @sqrt_f16_adjoint(
// CHECK-SAME:    %[[X:.+]]: tensor<3xf16>) -> tuple<tensor<f16>, tuple<tensor<3xf16>>> {
// CHECK:         [[Y:%.+]] = relax.sqrt %[[X]] : tensor<3xf16>
// CHECK:         [[G:%.+]] = relax.broadcast_to %{{.+}} : tensor<1xf16> -> tensor<3xf16>
// CHECK:         [[H:%.+]] = arith.constant dense<5.000000e-01> : tensor<f16>
// CHECK:         [[GH:%.+]] = relax.multiply [[G]], [[H]] : tensor<3xf16>, tensor<f16> -> tensor<3xf16>
// CHECK:         [[DX:%.+]] = relax.divide [[GH]], [[Y]] : tensor<3xf16>, tensor<3xf16> -> tensor<3xf16>
// CHECK:         relax.tuple([[DX]] : tensor<3xf16>)
func.func @sqrt_f16(%x: tensor<3xf16>) -> tensor<f16> {
  %r = relax.dataflow -> (tensor<f16>) {
    %y = relax.sqrt %x : tensor<3xf16>
    %l = relax.sum %y : tensor<3xf16> -> tensor<f16>
    relax.output %l : tensor<f16>
  }
  return %r : tensor<f16>
}
