// RUN: relax-opt %s --convert-relax-to-linalg | FileCheck %s

// zeros and ones become linalg.fill of the result type; a 0-d one stays a
// splat constant.

// CHECK-LABEL: func.func @fill()
// CHECK-DAG:     [[Z:%.+]] = linalg.fill ins(%{{.+}} : f32) outs(%{{.+}} : tensor<4x3xf32>) -> tensor<4x3xf32>
// CHECK-DAG:     [[O:%.+]] = arith.constant dense<1.000000e+00> : tensor<f32>
// CHECK-DAG:     [[OI:%.+]] = linalg.fill ins(%{{.+}} : i32) outs(%{{.+}} : tensor<2xi32>) -> tensor<2xi32>
// CHECK-DAG:     [[OB:%.+]] = linalg.fill ins(%{{.+}} : i1) outs(%{{.+}} : tensor<2xi1>) -> tensor<2xi1>
// CHECK-DAG:     [[ZH:%.+]] = linalg.fill ins(%{{.+}} : bf16) outs(%{{.+}} : tensor<2xbf16>) -> tensor<2xbf16>
// CHECK-DAG:     [[ZI:%.+]] = linalg.fill ins(%{{.+}} : i64) outs(%{{.+}} : tensor<3xi64>) -> tensor<3xi64>
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

// Splat tensor constants become fills too, and a large one is no global of
// every element (100 million ones compiled into a 400 MB constant before).
// CHECK-LABEL: func.func @big_splat()
// CHECK-DAG:     [[ONE:%.+]] = arith.constant 1.000000e+00 : f32
// CHECK-DAG:     [[E:%.+]] = tensor.empty() : tensor<100000000xf32>
// CHECK:         [[F:%.+]] = linalg.fill ins([[ONE]] : f32) outs([[E]] : tensor<100000000xf32>)
// CHECK-NOT:     dense<
// CHECK:         return [[F]], %{{.+}} :
func.func @big_splat() -> (tensor<100000000xf32>, tensor<3xf32>) {
  %c = arith.constant dense<1.0> : tensor<100000000xf32>
  %r = relax.dataflow -> (tensor<3xf32>) {
    %0 = relax.ones : tensor<3xf32>
    relax.output %0 : tensor<3xf32>
  }
  return %c, %r : tensor<100000000xf32>, tensor<3xf32>
}

// full and full_like extract the 0-d value and fill it in; zeros_like and
// ones_like become fills of the operand's type (a 0-d one stays a splat
// constant); only the operand's type is read.

// CHECK-LABEL: func.func @creation(
// CHECK-SAME:    %[[X:.+]]: tensor<4x3xf32>, %[[V:.+]]: tensor<f32>, %[[M:.+]]: tensor<2xi1>, %[[I:.+]]: tensor<2xi64>, %[[J:.+]]: tensor<i64>)
// CHECK-NEXT:    [[E0:%.+]] = tensor.extract %[[V]][] : tensor<f32>
// CHECK-NEXT:    [[T0:%.+]] = tensor.empty() : tensor<4x3xf32>
// CHECK-NEXT:    [[FULL:%.+]] = linalg.fill ins([[E0]] : f32) outs([[T0]] : tensor<4x3xf32>) -> tensor<4x3xf32>
// CHECK-NEXT:    [[ZERO:%.+]] = arith.constant 0.000000e+00 : f32
// CHECK-NEXT:    [[T1:%.+]] = tensor.empty() : tensor<4x3xf32>
// CHECK-NEXT:    [[ZL:%.+]] = linalg.fill ins([[ZERO]] : f32) outs([[T1]] : tensor<4x3xf32>) -> tensor<4x3xf32>
// CHECK-NEXT:    [[ONE:%.+]] = arith.constant 1.000000e+00 : f32
// CHECK-NEXT:    [[T2:%.+]] = tensor.empty() : tensor<4x3xf32>
// CHECK-NEXT:    [[OL:%.+]] = linalg.fill ins([[ONE]] : f32) outs([[T2]] : tensor<4x3xf32>) -> tensor<4x3xf32>
// CHECK-NEXT:    [[E1:%.+]] = tensor.extract %[[V]][] : tensor<f32>
// CHECK-NEXT:    [[T3:%.+]] = tensor.empty() : tensor<4x3xf32>
// CHECK-NEXT:    [[FL:%.+]] = linalg.fill ins([[E1]] : f32) outs([[T3]] : tensor<4x3xf32>) -> tensor<4x3xf32>
// CHECK-NEXT:    [[TRUE:%.+]] = arith.constant true
// CHECK-NEXT:    [[T4:%.+]] = tensor.empty() : tensor<2xi1>
// CHECK-NEXT:    [[OB:%.+]] = linalg.fill ins([[TRUE]] : i1) outs([[T4]] : tensor<2xi1>) -> tensor<2xi1>
// CHECK-NEXT:    [[E2:%.+]] = tensor.extract %[[J]][] : tensor<i64>
// CHECK-NEXT:    [[T5:%.+]] = tensor.empty() : tensor<2xi64>
// CHECK-NEXT:    [[FI:%.+]] = linalg.fill ins([[E2]] : i64) outs([[T5]] : tensor<2xi64>) -> tensor<2xi64>
// CHECK-NEXT:    [[Z0:%.+]] = arith.constant dense<0.000000e+00> : tensor<f32>
// CHECK-NEXT:    return [[FULL]], [[ZL]], [[OL]], [[FL]], [[OB]], [[FI]], [[Z0]] :
func.func @creation(%x: tensor<4x3xf32>, %v: tensor<f32>, %m: tensor<2xi1>, %i: tensor<2xi64>, %j: tensor<i64>)
    -> (tensor<4x3xf32>, tensor<4x3xf32>, tensor<4x3xf32>, tensor<4x3xf32>, tensor<2xi1>, tensor<2xi64>, tensor<f32>) {
  %r:7 = relax.dataflow -> (tensor<4x3xf32>, tensor<4x3xf32>, tensor<4x3xf32>, tensor<4x3xf32>, tensor<2xi1>, tensor<2xi64>, tensor<f32>) {
    %0 = relax.full %v : tensor<f32> -> tensor<4x3xf32>
    %1 = relax.zeros_like %x : tensor<4x3xf32>
    %2 = relax.ones_like %x : tensor<4x3xf32>
    %3 = relax.full_like %x, %v : tensor<4x3xf32>, tensor<f32>
    %4 = relax.ones_like %m : tensor<2xi1>
    %5 = relax.full_like %i, %j : tensor<2xi64>, tensor<i64>
    %6 = relax.zeros_like %v : tensor<f32>
    relax.output %0, %1, %2, %3, %4, %5, %6 : tensor<4x3xf32>, tensor<4x3xf32>, tensor<4x3xf32>, tensor<4x3xf32>, tensor<2xi1>, tensor<2xi64>, tensor<f32>
  }
  return %r#0, %r#1, %r#2, %r#3, %r#4, %r#5, %r#6 : tensor<4x3xf32>, tensor<4x3xf32>, tensor<4x3xf32>, tensor<4x3xf32>, tensor<2xi1>, tensor<2xi64>, tensor<f32>
}
