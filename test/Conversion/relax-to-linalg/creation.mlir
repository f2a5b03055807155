// RUN: relax-opt %s --convert-relax-to-linalg | FileCheck %s

// zeros and ones become splat arith.constant tensors of the result type.

// CHECK-LABEL: func.func @fill()
// CHECK-DAG:     [[Z:%.+]] = arith.constant dense<0.000000e+00> : tensor<4x3xf32>
// CHECK-DAG:     [[O:%.+]] = arith.constant dense<1.000000e+00> : tensor<f32>
// CHECK-DAG:     [[OI:%.+]] = arith.constant dense<1> : tensor<2xi32>
// CHECK-DAG:     [[OB:%.+]] = arith.constant dense<true> : tensor<2xi1>
// CHECK-DAG:     [[ZH:%.+]] = arith.constant dense<0.000000e+00> : tensor<2xbf16>
// CHECK-DAG:     [[ZI:%.+]] = arith.constant dense<0> : tensor<3xi64>
// CHECK-NOT:     relax.
// CHECK:         return [[Z]], [[O]], [[OI]], [[OB]], [[ZH]], [[ZI]] :
func.func @fill() -> (tensor<4x3xf32>, tensor<f32>, tensor<2xi32>, tensor<2xi1>, tensor<2xbf16>, tensor<3xi64>) {
  %r:6 = relax.dataflow -> (tensor<4x3xf32>, tensor<f32>, tensor<2xi32>, tensor<2xi1>, tensor<2xbf16>, tensor<3xi64>) {
    %0 = relax.zeros : tensor<4x3xf32>
    %1 = relax.ones : tensor<f32>
    %2 = relax.ones : tensor<2xi32>
    %3 = relax.ones : tensor<2xi1>
    %4 = relax.zeros : tensor<2xbf16>
    %5 = relax.zeros : tensor<3xi64>
    relax.output %0, %1, %2, %3, %4, %5 : tensor<4x3xf32>, tensor<f32>, tensor<2xi32>, tensor<2xi1>, tensor<2xbf16>, tensor<3xi64>
  }
  return %r#0, %r#1, %r#2, %r#3, %r#4, %r#5 : tensor<4x3xf32>, tensor<f32>, tensor<2xi32>, tensor<2xi1>, tensor<2xbf16>, tensor<3xi64>
}
