// RUN: relax-opt %s | relax-opt | FileCheck %s
// RUN: relax-opt -mlir-print-op-generic %s | relax-opt | FileCheck %s

// The elementwise ops sqrt rsqrt sin cos tan abs square erf silu gelu softplus log1p expm1
// leaky_relu clip astype power maximum minimum, the bitwise ops and shifts and bitcast
// parse and print back in their
// custom form, directly and through the generic form; the generic forms of the
// interchange contract parse into the same ops.

// CHECK-LABEL: func.func @unary_float
// CHECK-SAME: (%[[X:.+]]: tensor<4x3xf32>)
// CHECK: %[[A:.+]] = relax.sqrt %[[X]] : tensor<4x3xf32>
// CHECK: %[[B:.+]] = relax.rsqrt %[[A]] : tensor<4x3xf32>
// CHECK: %[[C:.+]] = relax.sin %[[B]] : tensor<4x3xf32>
// CHECK: %[[D:.+]] = relax.cos %[[C]] : tensor<4x3xf32>
// CHECK: %[[E:.+]] = relax.tan %[[D]] : tensor<4x3xf32>
// CHECK: %[[F:.+]] = relax.abs %[[E]] : tensor<4x3xf32>
// CHECK: %[[G:.+]] = relax.square %[[F]] : tensor<4x3xf32>
// CHECK: %[[H:.+]] = relax.erf %[[G]] : tensor<4x3xf32>
// CHECK: %[[I:.+]] = relax.silu %[[H]] : tensor<4x3xf32>
// CHECK: %[[J:.+]] = relax.gelu %[[I]] : tensor<4x3xf32>
// CHECK: %[[K:.+]] = relax.softplus %[[J]] : tensor<4x3xf32>
// CHECK: %[[L:.+]] = relax.log1p %[[K]] : tensor<4x3xf32>
// CHECK: relax.expm1 %[[L]] : tensor<4x3xf32>
func.func @unary_float(%x: tensor<4x3xf32>) -> tensor<4x3xf32> {
  %r = relax.dataflow -> (tensor<4x3xf32>) {
    %0 = relax.sqrt %x : tensor<4x3xf32>
    %1 = relax.rsqrt %0 : tensor<4x3xf32>
    %2 = relax.sin %1 : tensor<4x3xf32>
    %3 = relax.cos %2 : tensor<4x3xf32>
    %4 = relax.tan %3 : tensor<4x3xf32>
    %5 = relax.abs %4 : tensor<4x3xf32>
    %6 = relax.square %5 : tensor<4x3xf32>
    %7 = relax.erf %6 : tensor<4x3xf32>
    %8 = relax.silu %7 : tensor<4x3xf32>
    %9 = relax.gelu %8 : tensor<4x3xf32>
    %10 = relax.softplus %9 : tensor<4x3xf32>
    %11 = relax.log1p %10 : tensor<4x3xf32>
    %12 = relax.expm1 %11 : tensor<4x3xf32>
    relax.output %12 : tensor<4x3xf32>
  }
  return %r : tensor<4x3xf32>
}

// Other float types, and abs, square and clip on integers.
// CHECK-LABEL: func.func @unary_types
// CHECK-SAME: (%[[H:.+]]: tensor<2xf16>, %[[B:.+]]: tensor<2x2xbf16>, %[[D:.+]]: tensor<f64>, %[[I:.+]]: tensor<5xi32>, %[[L:.+]]: tensor<5xi64>)
// CHECK: relax.erf %[[H]] : tensor<2xf16>
// CHECK: relax.gelu %[[B]] : tensor<2x2xbf16>
// CHECK: relax.rsqrt %[[D]] : tensor<f64>
// CHECK: relax.abs %[[I]] : tensor<5xi32>
// CHECK: relax.square %[[L]] : tensor<5xi64>
// CHECK: relax.clip %[[I]] {max = 3.000000e+00 : f64, min = -2.000000e+00 : f64} : tensor<5xi32>
func.func @unary_types(%h: tensor<2xf16>, %b: tensor<2x2xbf16>, %d: tensor<f64>, %i: tensor<5xi32>, %l: tensor<5xi64>) -> tensor<5xi32> {
  %r = relax.dataflow -> (tensor<5xi32>) {
    %0 = relax.erf %h : tensor<2xf16>
    %1 = relax.gelu %b : tensor<2x2xbf16>
    %2 = relax.rsqrt %d : tensor<f64>
    %3 = relax.abs %i : tensor<5xi32>
    %4 = relax.square %l : tensor<5xi64>
    %5 = relax.clip %i {min = -2.0 : f64, max = 3.0 : f64} : tensor<5xi32>
    relax.output %5 : tensor<5xi32>
  }
  return %r : tensor<5xi32>
}

// The default alpha = 0.01 of leaky_relu is not printed; clip's bounds may be
// equal and infinite.
// CHECK-LABEL: func.func @attributes
// CHECK-SAME: (%[[X:.+]]: tensor<3xf32>)
// CHECK: relax.leaky_relu %[[X]] : tensor<3xf32>
// CHECK: relax.leaky_relu %[[X]] : tensor<3xf32>
// CHECK: relax.leaky_relu %[[X]] {alpha = 2.000000e-01 : f64} : tensor<3xf32>
// CHECK: relax.clip %[[X]] {max = 1.000000e+00 : f64, min = -1.000000e+00 : f64} : tensor<3xf32>
// CHECK: relax.clip %[[X]] {max = 5.000000e-01 : f64, min = 5.000000e-01 : f64} : tensor<3xf32>
// CHECK: relax.clip %[[X]] {max = 0x7FF0000000000000 : f64, min = 0.000000e+00 : f64} : tensor<3xf32>
func.func @attributes(%x: tensor<3xf32>) -> tensor<3xf32> {
  %r = relax.dataflow -> (tensor<3xf32>) {
    %0 = relax.leaky_relu %x : tensor<3xf32>
    %1 = relax.leaky_relu %x {alpha = 0.01 : f64} : tensor<3xf32>
    %2 = relax.leaky_relu %x {alpha = 0.2 : f64} : tensor<3xf32>
    %3 = relax.clip %x {min = -1.0 : f64, max = 1.0 : f64} : tensor<3xf32>
    %4 = relax.clip %x {min = 0.5 : f64, max = 0.5 : f64} : tensor<3xf32>
    %5 = relax.clip %x {min = 0.0 : f64, max = 0x7FF0000000000000 : f64} : tensor<3xf32>
    relax.output %5 : tensor<3xf32>
  }
  return %r : tensor<3xf32>
}

// astype between every kind of element type; the shape is kept.
// CHECK-LABEL: func.func @astype
// CHECK-SAME: (%[[X:.+]]: tensor<4x3xf32>, %[[M:.+]]: tensor<2xi1>, %[[I:.+]]: tensor<2xi64>)
// CHECK: relax.astype %[[X]] : tensor<4x3xf32> -> tensor<4x3xf16>
// CHECK: relax.astype %[[X]] : tensor<4x3xf32> -> tensor<4x3xbf16>
// CHECK: relax.astype %[[X]] : tensor<4x3xf32> -> tensor<4x3xf64>
// CHECK: relax.astype %[[X]] : tensor<4x3xf32> -> tensor<4x3xi32>
// CHECK: relax.astype %[[X]] : tensor<4x3xf32> -> tensor<4x3xi1>
// CHECK: relax.astype %[[M]] : tensor<2xi1> -> tensor<2xf32>
// CHECK: relax.astype %[[M]] : tensor<2xi1> -> tensor<2xi64>
// CHECK: relax.astype %[[I]] : tensor<2xi64> -> tensor<2xi32>
// CHECK: relax.astype %[[I]] : tensor<2xi64> -> tensor<2xbf16>
func.func @astype(%x: tensor<4x3xf32>, %m: tensor<2xi1>, %i: tensor<2xi64>) -> tensor<4x3xf16> {
  %r = relax.dataflow -> (tensor<4x3xf16>) {
    %0 = relax.astype %x : tensor<4x3xf32> -> tensor<4x3xf16>
    %1 = relax.astype %x : tensor<4x3xf32> -> tensor<4x3xbf16>
    %2 = relax.astype %x : tensor<4x3xf32> -> tensor<4x3xf64>
    %3 = relax.astype %x : tensor<4x3xf32> -> tensor<4x3xi32>
    %4 = relax.astype %x : tensor<4x3xf32> -> tensor<4x3xi1>
    %5 = relax.astype %m : tensor<2xi1> -> tensor<2xf32>
    %6 = relax.astype %m : tensor<2xi1> -> tensor<2xi64>
    %7 = relax.astype %i : tensor<2xi64> -> tensor<2xi32>
    %8 = relax.astype %i : tensor<2xi64> -> tensor<2xbf16>
    relax.output %0 : tensor<4x3xf16>
  }
  return %r : tensor<4x3xf16>
}

// power, maximum and minimum broadcast as the other binary ops.
// CHECK-LABEL: func.func @binary
// CHECK-SAME: (%[[A:.+]]: tensor<4x3xf32>, %[[B:.+]]: tensor<3xf32>, %[[C:.+]]: tensor<4x1xf32>, %[[S:.+]]: tensor<f32>, %[[I:.+]]: tensor<2x1xi32>, %[[J:.+]]: tensor<3xi32>)
// CHECK: relax.power %[[A]], %[[B]] : tensor<4x3xf32>, tensor<3xf32> -> tensor<4x3xf32>
// CHECK: relax.power %[[S]], %[[C]] : tensor<f32>, tensor<4x1xf32> -> tensor<4x1xf32>
// CHECK: relax.maximum %[[C]], %[[B]] : tensor<4x1xf32>, tensor<3xf32> -> tensor<4x3xf32>
// CHECK: relax.minimum %[[A]], %[[S]] : tensor<4x3xf32>, tensor<f32> -> tensor<4x3xf32>
// CHECK: relax.maximum %[[I]], %[[J]] : tensor<2x1xi32>, tensor<3xi32> -> tensor<2x3xi32>
// CHECK: relax.minimum %[[J]], %[[I]] : tensor<3xi32>, tensor<2x1xi32> -> tensor<2x3xi32>
func.func @binary(%a: tensor<4x3xf32>, %b: tensor<3xf32>, %c: tensor<4x1xf32>, %s: tensor<f32>,
                  %i: tensor<2x1xi32>, %j: tensor<3xi32>) -> tensor<4x3xf32> {
  %r = relax.dataflow -> (tensor<4x3xf32>) {
    %0 = relax.power %a, %b : tensor<4x3xf32>, tensor<3xf32> -> tensor<4x3xf32>
    %1 = relax.power %s, %c : tensor<f32>, tensor<4x1xf32> -> tensor<4x1xf32>
    %2 = relax.maximum %c, %b : tensor<4x1xf32>, tensor<3xf32> -> tensor<4x3xf32>
    %3 = relax.minimum %a, %s : tensor<4x3xf32>, tensor<f32> -> tensor<4x3xf32>
    %4 = relax.maximum %i, %j : tensor<2x1xi32>, tensor<3xi32> -> tensor<2x3xi32>
    %5 = relax.minimum %j, %i : tensor<3xi32>, tensor<2x1xi32> -> tensor<2x3xi32>
    relax.output %3 : tensor<4x3xf32>
  }
  return %r : tensor<4x3xf32>
}

// The generic forms of the interchange contract.
// CHECK-LABEL: func.func @generic_input
// CHECK-SAME: (%[[X:.+]]: tensor<3xf32>, %[[Y:.+]]: tensor<2x3xf32>)
// CHECK: %[[S0:.+]] = relax.sqrt %[[X]] : tensor<3xf32>
// CHECK-NEXT: %[[S1:.+]] = relax.rsqrt %[[S0]] : tensor<3xf32>
// CHECK-NEXT: %[[S2:.+]] = relax.sin %[[S1]] : tensor<3xf32>
// CHECK-NEXT: %[[S3:.+]] = relax.cos %[[S2]] : tensor<3xf32>
// CHECK-NEXT: %[[S4:.+]] = relax.tan %[[S3]] : tensor<3xf32>
// CHECK-NEXT: %[[S5:.+]] = relax.abs %[[S4]] : tensor<3xf32>
// CHECK-NEXT: %[[S6:.+]] = relax.square %[[S5]] : tensor<3xf32>
// CHECK-NEXT: %[[S7:.+]] = relax.erf %[[S6]] : tensor<3xf32>
// CHECK-NEXT: %[[S8:.+]] = relax.silu %[[S7]] : tensor<3xf32>
// CHECK-NEXT: %[[S9:.+]] = relax.gelu %[[S8]] : tensor<3xf32>
// CHECK-NEXT: %[[S10:.+]] = relax.softplus %[[S9]] : tensor<3xf32>
// CHECK-NEXT: %[[S11:.+]] = relax.leaky_relu %[[S10]] : tensor<3xf32>
// CHECK-NEXT: %[[S12:.+]] = relax.leaky_relu %[[S11]] {alpha = 1.000000e-01 : f64} : tensor<3xf32>
// CHECK-NEXT: %[[S13:.+]] = relax.clip %[[S12]] {max = 1.000000e+00 : f64, min = -1.000000e+00 : f64} : tensor<3xf32>
// CHECK-NEXT: %[[S14:.+]] = relax.astype %[[S13]] : tensor<3xf32> -> tensor<3xf64>
// CHECK-NEXT: %[[S15:.+]] = relax.astype %[[S14]] : tensor<3xf64> -> tensor<3xf32>
// CHECK-NEXT: %[[S16:.+]] = relax.power %[[Y]], %[[S15]] : tensor<2x3xf32>, tensor<3xf32> -> tensor<2x3xf32>
// CHECK-NEXT: %[[S17:.+]] = relax.maximum %[[S16]], %[[X]] : tensor<2x3xf32>, tensor<3xf32> -> tensor<2x3xf32>
// CHECK-NEXT: %[[S18:.+]] = relax.minimum %[[S17]], %[[Y]] : tensor<2x3xf32>, tensor<2x3xf32> -> tensor<2x3xf32>
// CHECK-NEXT: relax.output %[[S18]] : tensor<2x3xf32>
func.func @generic_input(%x: tensor<3xf32>, %y: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %r = "relax.dataflow"() ({
    %0 = "relax.sqrt"(%x) : (tensor<3xf32>) -> tensor<3xf32>
    %1 = "relax.rsqrt"(%0) : (tensor<3xf32>) -> tensor<3xf32>
    %2 = "relax.sin"(%1) : (tensor<3xf32>) -> tensor<3xf32>
    %3 = "relax.cos"(%2) : (tensor<3xf32>) -> tensor<3xf32>
    %4 = "relax.tan"(%3) : (tensor<3xf32>) -> tensor<3xf32>
    %5 = "relax.abs"(%4) : (tensor<3xf32>) -> tensor<3xf32>
    %6 = "relax.square"(%5) : (tensor<3xf32>) -> tensor<3xf32>
    %7 = "relax.erf"(%6) : (tensor<3xf32>) -> tensor<3xf32>
    %8 = "relax.silu"(%7) : (tensor<3xf32>) -> tensor<3xf32>
    %9 = "relax.gelu"(%8) : (tensor<3xf32>) -> tensor<3xf32>
    %10 = "relax.softplus"(%9) : (tensor<3xf32>) -> tensor<3xf32>
    %11 = "relax.leaky_relu"(%10) : (tensor<3xf32>) -> tensor<3xf32>
    %12 = "relax.leaky_relu"(%11) {alpha = 0.1 : f64} : (tensor<3xf32>) -> tensor<3xf32>
    %13 = "relax.clip"(%12) {min = -1.0 : f64, max = 1.0 : f64} : (tensor<3xf32>) -> tensor<3xf32>
    %14 = "relax.astype"(%13) : (tensor<3xf32>) -> tensor<3xf64>
    %15 = "relax.astype"(%14) : (tensor<3xf64>) -> tensor<3xf32>
    %16 = "relax.power"(%y, %15) : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
    %17 = "relax.maximum"(%16, %x) : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
    %18 = "relax.minimum"(%17, %y) : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
    "relax.output"(%18) : (tensor<2x3xf32>) -> ()
  }) : () -> tensor<2x3xf32>
  return %r : tensor<2x3xf32>
}

// CHECK-LABEL: func.func @unary_chain
// CHECK-SAME: (%[[X:.+]]: tensor<4x3xf32>, %[[I:.+]]: tensor<5xi32>)
// CHECK: %[[N:.+]] = relax.negative %[[X]] : tensor<4x3xf32>
// CHECK: %[[E:.+]] = relax.exp %[[N]] : tensor<4x3xf32>
// CHECK: %[[L:.+]] = relax.log %[[E]] : tensor<4x3xf32>
// CHECK: %[[T:.+]] = relax.tanh %[[L]] : tensor<4x3xf32>
// CHECK: %[[S:.+]] = relax.sigmoid %[[T]] : tensor<4x3xf32>
// CHECK: relax.relu %[[S]] : tensor<4x3xf32>
// CHECK: %[[NI:.+]] = relax.negative %[[I]] : tensor<5xi32>
// CHECK: relax.relu %[[NI]] : tensor<5xi32>
func.func @unary_chain(%x: tensor<4x3xf32>, %i: tensor<5xi32>) -> (tensor<4x3xf32>, tensor<5xi32>) {
  %r:2 = relax.dataflow -> (tensor<4x3xf32>, tensor<5xi32>) {
    %0 = relax.negative %x : tensor<4x3xf32>
    %1 = relax.exp %0 : tensor<4x3xf32>
    %2 = relax.log %1 : tensor<4x3xf32>
    %3 = relax.tanh %2 : tensor<4x3xf32>
    %4 = relax.sigmoid %3 : tensor<4x3xf32>
    %5 = relax.relu %4 : tensor<4x3xf32>
    %6 = relax.negative %i : tensor<5xi32>
    %7 = relax.relu %6 : tensor<5xi32>
    relax.output %5, %7 : tensor<4x3xf32>, tensor<5xi32>
  }
  return %r#0, %r#1 : tensor<4x3xf32>, tensor<5xi32>
}

// CHECK-LABEL: func.func @binary_broadcasting_where
// CHECK-SAME: (%[[A:.+]]: tensor<4x3xf32>, %[[B:.+]]: tensor<3xf32>, %[[C:.+]]: tensor<4x1xf32>, %[[S:.+]]: tensor<f32>)
// CHECK: %[[ADD:.+]] = relax.add %[[A]], %[[B]] : tensor<4x3xf32>, tensor<3xf32> -> tensor<4x3xf32>
// CHECK: %[[SUB:.+]] = relax.subtract %[[C]], %[[B]] : tensor<4x1xf32>, tensor<3xf32> -> tensor<4x3xf32>
// CHECK: %[[MUL:.+]] = relax.multiply %[[S]], %[[ADD]] : tensor<f32>, tensor<4x3xf32> -> tensor<4x3xf32>
// CHECK: %[[DIV:.+]] = relax.divide %[[MUL]], %[[SUB]] : tensor<4x3xf32>, tensor<4x3xf32> -> tensor<4x3xf32>
// CHECK: %[[GT:.+]] = relax.greater %[[DIV]], %[[S]] : tensor<4x3xf32>, tensor<f32> -> tensor<4x3xi1>
// CHECK: relax.where %[[GT]], %[[DIV]], %[[S]] : tensor<4x3xi1>, tensor<4x3xf32>, tensor<f32> -> tensor<4x3xf32>
func.func @binary_broadcasting_where(%a: tensor<4x3xf32>, %b: tensor<3xf32>, %c: tensor<4x1xf32>, %s: tensor<f32>) -> tensor<4x3xf32> {
  %r = relax.dataflow -> (tensor<4x3xf32>) {
    %0 = relax.add %a, %b : tensor<4x3xf32>, tensor<3xf32> -> tensor<4x3xf32>
    %1 = relax.subtract %c, %b : tensor<4x1xf32>, tensor<3xf32> -> tensor<4x3xf32>
    %2 = relax.multiply %s, %0 : tensor<f32>, tensor<4x3xf32> -> tensor<4x3xf32>
    %3 = relax.divide %2, %1 : tensor<4x3xf32>, tensor<4x3xf32> -> tensor<4x3xf32>
    %4 = relax.greater %3, %s : tensor<4x3xf32>, tensor<f32> -> tensor<4x3xi1>
    %5 = relax.where %4, %3, %s : tensor<4x3xi1>, tensor<4x3xf32>, tensor<f32> -> tensor<4x3xf32>
    relax.output %5 : tensor<4x3xf32>
  }
  return %r : tensor<4x3xf32>
}

// `where` broadcasts its condition too.
// CHECK-LABEL: func.func @where_broadcast_cond
// CHECK: relax.where %{{.+}}, %{{.+}}, %{{.+}} : tensor<1x3xi1>, tensor<4x1xf64>, tensor<f64> -> tensor<4x3xf64>
func.func @where_broadcast_cond(%m: tensor<1x3xi1>, %a: tensor<4x1xf64>, %b: tensor<f64>) -> tensor<4x3xf64> {
  %r = relax.dataflow -> (tensor<4x3xf64>) {
    %0 = relax.where %m, %a, %b : tensor<1x3xi1>, tensor<4x1xf64>, tensor<f64> -> tensor<4x3xf64>
    relax.output %0 : tensor<4x3xf64>
  }
  return %r : tensor<4x3xf64>
}

// Bitwise ops (integers and bools) and shifts broadcast as the arithmetic ops;
// bitcast keeps the shape and the width.
// CHECK-LABEL: func.func @bitwise
// CHECK-SAME: (%[[A:.+]]: tensor<4x3xi32>, %[[B:.+]]: tensor<i32>, %[[M:.+]]: tensor<3xi1>, %[[F:.+]]: tensor<4x3xf32>)
// CHECK: relax.bitwise_and %[[A]], %[[B]] : tensor<4x3xi32>, tensor<i32> -> tensor<4x3xi32>
// CHECK: relax.bitwise_or %[[M]], %[[M]] : tensor<3xi1>, tensor<3xi1> -> tensor<3xi1>
// CHECK: relax.bitwise_xor %[[A]], %[[A]] : tensor<4x3xi32>, tensor<4x3xi32> -> tensor<4x3xi32>
// CHECK: relax.left_shift %[[A]], %[[B]] : tensor<4x3xi32>, tensor<i32> -> tensor<4x3xi32>
// CHECK: relax.right_shift %[[A]], %[[B]] : tensor<4x3xi32>, tensor<i32> -> tensor<4x3xi32>
// CHECK: relax.shift_right_logical %[[A]], %[[B]] : tensor<4x3xi32>, tensor<i32> -> tensor<4x3xi32>
// CHECK: relax.bitcast %[[F]] : tensor<4x3xf32> -> tensor<4x3xi32>
func.func @bitwise(%a: tensor<4x3xi32>, %b: tensor<i32>, %m: tensor<3xi1>, %f: tensor<4x3xf32>) -> tensor<4x3xi32> {
  %r = relax.dataflow -> (tensor<4x3xi32>) {
    %0 = relax.bitwise_and %a, %b : tensor<4x3xi32>, tensor<i32> -> tensor<4x3xi32>
    %1 = relax.bitwise_or %m, %m : tensor<3xi1>, tensor<3xi1> -> tensor<3xi1>
    %2 = relax.bitwise_xor %a, %a : tensor<4x3xi32>, tensor<4x3xi32> -> tensor<4x3xi32>
    %3 = relax.left_shift %a, %b : tensor<4x3xi32>, tensor<i32> -> tensor<4x3xi32>
    %4 = relax.right_shift %a, %b : tensor<4x3xi32>, tensor<i32> -> tensor<4x3xi32>
    %5 = relax.shift_right_logical %a, %b : tensor<4x3xi32>, tensor<i32> -> tensor<4x3xi32>
    %6 = relax.bitcast %f : tensor<4x3xf32> -> tensor<4x3xi32>
    relax.output %6 : tensor<4x3xi32>
  }
  return %r : tensor<4x3xi32>
}
