// A failing multi-function gradient run puts back the adjoint declaration that
// an earlier function's adjoint had replaced, where it was.
// RUN: not relax-opt %s --gradient="func=a,b" --mlir-print-ir-after-failure 2>&1 | FileCheck %s

// CHECK: error: 'arith.mulf' is on the path to the target but has no gradient rule
// CHECK: IR Dump After GradientPass Failed
// CHECK:      func.func private @a_adjoint(tensor<3xf32>) -> tuple<tensor<f32>, tuple<tensor<3xf32>>>
// CHECK-NEXT: func.func @a(
// CHECK-NOT:  func.func @a_adjoint(
// CHECK:      func.func @b(

func.func private @a_adjoint(tensor<3xf32>) -> tuple<tensor<f32>, tuple<tensor<3xf32>>>

func.func @a(%x: tensor<3xf32>) -> tensor<f32> {
  %r = relax.dataflow -> (tensor<f32>) {
    %s = relax.sum %x : tensor<3xf32> -> tensor<f32>
    relax.output %s : tensor<f32>
  }
  return %r : tensor<f32>
}

func.func @b(%x: tensor<3xf32>) -> tensor<f32> {
  %r = relax.dataflow -> (tensor<f32>) {
    %m = arith.mulf %x, %x : tensor<3xf32>
    %s = relax.sum %m : tensor<3xf32> -> tensor<f32>
    relax.output %s : tensor<f32>
  }
  return %r : tensor<f32>
}
