// A failing gradient run leaves the module as it was: no adjoint, half-built or
// otherwise; in a run over several functions the adjoints made before the
// failure are removed again, and a declaration an earlier adjoint replaced is
// put back where it was; a declaration of the wrong type stays a declaration.
// --mlir-print-ir-after-failure shows the module the failed pass leaves behind.
// RUN: not relax-opt %s --gradient="func=norule" --mlir-print-ir-after-failure 2>&1 | FileCheck %s --check-prefix=NORULE
// RUN: not relax-opt %s --gradient="func=outside" --mlir-print-ir-after-failure 2>&1 | FileCheck %s --check-prefix=OUTSIDE
// RUN: not relax-opt %s --gradient="func=decl" --mlir-print-ir-after-failure 2>&1 | FileCheck %s --check-prefix=DECL
// RUN: not relax-opt %s --gradient="func=a,norule" --mlir-print-ir-after-failure 2>&1 | FileCheck %s --check-prefix=SECOND
// RUN: not relax-opt %s --gradient="func=a,c,norule" --mlir-print-ir-after-failure 2>&1 | FileCheck %s --check-prefix=THIRD
// RUN: not relax-opt %s --gradient="func=p,norule" --mlir-print-ir-after-failure 2>&1 | FileCheck %s --check-prefix=REPLACED
// RUN: not relax-opt %s --gradient="func=a,a" --mlir-print-ir-after-failure 2>&1 | FileCheck %s --check-prefix=TWICE
// RUN: not relax-opt %s --gradient="func=q,q" --mlir-print-ir-after-failure 2>&1 | FileCheck %s --check-prefix=FOLLOWING
// RUN: not relax-opt %s --gradient="func=a,norule" 2>&1 | FileCheck %s --check-prefix=NOOUT
// RUN: relax-opt %s --gradient="func=a,c" | FileCheck %s --check-prefix=OK

// The rule failure is found after the adjoint has been cloned and partly built.
// NORULE: error: 'arith.mulf' is on the path to the target but has no gradient rule
// NORULE: IR Dump After GradientPass Failed
// NORULE-NOT: @norule_adjoint
// NORULE: func.func @norule(%{{.+}}: tensor<3xf32>) -> tensor<f32> {
// NORULE-NEXT: relax.dataflow -> (tensor<f32>) {
// NORULE-NEXT: relax.exp
// NORULE-NEXT: arith.mulf
// NORULE-NEXT: relax.sum
// NORULE-NEXT: relax.output
// NORULE-NOT: @norule_adjoint
// NORULE: func.func @outside
// NORULE-NOT: @norule_adjoint
func.func @norule(%x: tensor<3xf32>) -> tensor<f32> {
  %r = relax.dataflow -> (tensor<f32>) {
    %0 = relax.exp %x : tensor<3xf32>
    %1 = arith.mulf %0, %0 : tensor<3xf32>
    %2 = relax.sum %1 : tensor<3xf32> -> tensor<f32>
    relax.output %2 : tensor<f32>
  }
  return %r : tensor<f32>
}

// The body check moves glue into the dataflow block of the clone only: the
// original keeps its binding outside.
// OUTSIDE: error: binding outside the relax.dataflow block
// OUTSIDE: IR Dump After GradientPass Failed
// OUTSIDE-NOT: @outside_adjoint
// OUTSIDE: func.func @outside(%{{.+}}: tensor<3xf32>) -> tensor<f32> {
// OUTSIDE-NEXT: relax.exp
// OUTSIDE-NEXT: relax.dataflow -> (tensor<f32>) {
// OUTSIDE-NEXT: relax.sum
// OUTSIDE-NEXT: relax.output
// OUTSIDE-NEXT: }
// OUTSIDE-NEXT: return
// OUTSIDE-NOT: @outside_adjoint
func.func @outside(%x: tensor<3xf32>) -> tensor<f32> {
  %e = relax.exp %x : tensor<3xf32>
  %r = relax.dataflow -> (tensor<f32>) {
    %1 = relax.sum %e : tensor<3xf32> -> tensor<f32>
    relax.output %1 : tensor<f32>
  }
  return %r : tensor<f32>
}

// A declaration with the wrong type is left alone and no definition is added.
// DECL: error: declaration of '@decl_adjoint' has type
// DECL: IR Dump After GradientPass Failed
// DECL: func.func private @decl_adjoint(tensor<3xf32>) -> tensor<f32>{{$}}
// DECL-NOT: @decl_adjoint
func.func private @decl_adjoint(tensor<3xf32>) -> tensor<f32>

func.func @decl(%x: tensor<3xf32>) -> tensor<f32> {
  %r = relax.dataflow -> (tensor<f32>) {
    %0 = relax.sum %x : tensor<3xf32> -> tensor<f32>
    relax.output %0 : tensor<f32>
  }
  return %r : tensor<f32>
}

// @a is differentiated first, then @norule fails: no @a_adjoint is left.
// SECOND: error: 'arith.mulf' is on the path to the target but has no gradient rule
// SECOND: IR Dump After GradientPass Failed
// SECOND-NOT: @a_adjoint
// SECOND: func.func @a(
// SECOND-NOT: @a_adjoint

// Two adjoints are removed when the third function fails.
// THIRD: error: 'arith.mulf' is on the path to the target but has no gradient rule
// THIRD: IR Dump After GradientPass Failed
// THIRD-NOT: {{@a_adjoint|@c_adjoint}}
// THIRD: func.func @c(
// THIRD-NOT: {{@a_adjoint|@c_adjoint}}

// A function listed twice (its adjoint would be created twice), reported at the
// module before anything is built.
// TWICE: errors-no-partial.mlir:0:0: error: gradient: function '@a' is listed twice
// TWICE: IR Dump After GradientPass Failed
// TWICE-NOT: @a_adjoint

// Without the dump, a failed pass prints no module at all.
// NOOUT: error: 'arith.mulf' is on the path
// NOOUT-NOT: func.func

// Without the failing function, both adjoints are added, each after its
// function.
// OK-LABEL: func.func @a(
// OK-LABEL: func.func @a_adjoint(
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

func.func @c(%x: tensor<3xf32>) -> tensor<f32> {
  %r = relax.dataflow -> (tensor<f32>) {
    %0 = relax.exp %x : tensor<3xf32>
    %1 = relax.sum %0 : tensor<3xf32> -> tensor<f32>
    relax.output %1 : tensor<f32>
  }
  return %r : tensor<f32>
}

// The adjoint of @p replaces its declaration; when @norule then fails, the
// declaration is put back where it was.
// REPLACED: error: 'arith.mulf' is on the path to the target but has no gradient rule
// REPLACED: IR Dump After GradientPass Failed
// REPLACED:      func.func private @p_adjoint(tensor<3xf32>) -> tuple<tensor<f32>, tuple<tensor<3xf32>>>
// REPLACED-NEXT: func.func @p(
// REPLACED-NOT:  func.func @p_adjoint(
func.func private @p_adjoint(tensor<3xf32>) -> tuple<tensor<f32>, tuple<tensor<3xf32>>>

func.func @p(%x: tensor<3xf32>) -> tensor<f32> {
  %r = relax.dataflow -> (tensor<f32>) {
    %s = relax.sum %x : tensor<3xf32> -> tensor<f32>
    relax.output %s : tensor<f32>
  }
  return %r : tensor<f32>
}

// A declaration that follows its function: the adjoint is inserted between
// them, so the op the declaration followed is the adjoint itself; putting the
// declaration back after an adjoint already erased read freed memory (the
// jvp pass crashed on it). Now it is back after @q and the adjoint is gone.
// FOLLOWING: error: gradient: function '@q' is listed twice
// FOLLOWING: IR Dump After GradientPass Failed
// FOLLOWING:      func.func @q(
// FOLLOWING-NOT:  func.func @q_adjoint(
// FOLLOWING:      func.func private @q_adjoint(tensor<3xf32>) -> tuple<tensor<f32>, tuple<tensor<3xf32>>>
// FOLLOWING-NOT:  func.func @q_adjoint(
func.func @q(%x: tensor<3xf32>) -> tensor<f32> {
  %r = relax.dataflow -> (tensor<f32>) {
    %0 = relax.sum %x : tensor<3xf32> -> tensor<f32>
    relax.output %0 : tensor<f32>
  }
  return %r : tensor<f32>
}
func.func private @q_adjoint(tensor<3xf32>) -> tuple<tensor<f32>, tuple<tensor<3xf32>>>
