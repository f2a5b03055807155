// A failing gradient run over several functions leaves the module as it was:
// the adjoints of the functions differentiated before the failure are removed
// again. --mlir-print-ir-after-failure shows the module the failed pass leaves
// behind.
// RUN: not relax-opt %s --gradient="func=a,b" --mlir-print-ir-after-failure 2>&1 | FileCheck %s --check-prefix=SECOND
// RUN: not relax-opt %s --gradient="func=a,c,b" --mlir-print-ir-after-failure 2>&1 | FileCheck %s --check-prefix=THIRD
// RUN: not relax-opt %s --gradient="func=a,a" --mlir-print-ir-after-failure 2>&1 | FileCheck %s --check-prefix=TWICE
// RUN: not relax-opt %s --gradient="func=a,b" 2>&1 | FileCheck %s --check-prefix=NOOUT
// RUN: relax-opt %s --gradient="func=a,c" | FileCheck %s --check-prefix=OK

// @a is differentiated first, then @b fails: no @a_adjoint is left.
// SECOND: error: 'arith.mulf' is on the path to the target but has no gradient rule
// SECOND: IR Dump After GradientPass Failed
// SECOND-NOT: _adjoint
// SECOND: func.func @a(
// SECOND-NOT: _adjoint
// SECOND: func.func @b(
// SECOND-NEXT: relax.dataflow -> (tensor<f32>) {
// SECOND-NEXT: arith.mulf
// SECOND-NEXT: relax.sum
// SECOND-NOT: _adjoint

// Two adjoints are removed when the third function fails.
// THIRD: error: 'arith.mulf' is on the path to the target but has no gradient rule
// THIRD: IR Dump After GradientPass Failed
// THIRD-NOT: _adjoint
// THIRD: func.func @c(
// THIRD-NOT: _adjoint

// TWICE: error: gradient: function '@a' is listed twice
// TWICE: IR Dump After GradientPass Failed
// TWICE-NOT: _adjoint
// TWICE: func.func @a(
// TWICE-NOT: _adjoint

// Without the dump, a failed pass prints no module at all.
// NOOUT: error: 'arith.mulf' is on the path
// NOOUT-NOT: func.func

// Without the failing function, both adjoints are added, each after its
// function.
// OK-LABEL: func.func @a(
// OK-LABEL: func.func @a_adjoint(
// OK-LABEL: func.func @b(
// OK-LABEL: func.func @c(
// OK-LABEL: func.func @c_adjoint(
// OK-SAME:    %[[X:.+]]: tensor<3xf32>) -> tuple<tensor<f32>, tuple<tensor<3xf32>>> {
// OK:         relax.exp %[[X]]

func.func @a(%x: tensor<3xf32>) -> tensor<f32> {
  %r = relax.dataflow -> (tensor<f32>) {
    %0 = relax.sum %x : tensor<3xf32> -> tensor<f32>
    relax.output %0 : tensor<f32>
  }
  return %r : tensor<f32>
}

func.func @b(%x: tensor<3xf32>) -> tensor<f32> {
  %r = relax.dataflow -> (tensor<f32>) {
    %0 = arith.mulf %x, %x : tensor<3xf32>
    %1 = relax.sum %0 : tensor<3xf32> -> tensor<f32>
    relax.output %1 : tensor<f32>
  }
  return %r : tensor<f32>
}

func.func @c(%x: tensor<3xf32>) -> tensor<f32> {
  %r = relax.dataflow -> (tensor<f32>) {
    %0 = relax.exp %x : tensor<3xf32>
    %1 = relax.sum %0 : tensor<3xf32> -> tensor<f32>
    relax.output %1 : tensor<f32>
  }
  return %r : tensor<f32>
}
