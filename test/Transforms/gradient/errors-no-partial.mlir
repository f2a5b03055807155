// A failing gradient pass leaves the module as it was: no adjoint, half-built
// or otherwise, and an existing declaration of the adjoint stays a declaration.
// --mlir-print-ir-after-failure shows the module the failed pass leaves behind.
// RUN: not relax-opt %s --gradient="func=norule" --mlir-print-ir-after-failure 2>&1 | FileCheck %s --check-prefix=NORULE
// RUN: not relax-opt %s --gradient="func=outside" --mlir-print-ir-after-failure 2>&1 | FileCheck %s --check-prefix=OUTSIDE
// RUN: not relax-opt %s --gradient="func=decl" --mlir-print-ir-after-failure 2>&1 | FileCheck %s --check-prefix=DECL
// RUN: not relax-opt %s --gradient="func=norule" 2>&1 | FileCheck %s --check-prefix=NOOUT

// The rule failure is found after the adjoint has been cloned and partly built.
// NORULE: error: 'arith.mulf' is on the path to the target but has no gradient rule
// NORULE: IR Dump After GradientPass Failed
// NORULE-NOT: _adjoint
// NORULE: func.func @norule(%{{.+}}: tensor<3xf32>) -> tensor<f32> {
// NORULE-NEXT: relax.dataflow -> (tensor<f32>) {
// NORULE-NEXT: relax.exp
// NORULE-NEXT: arith.mulf
// NORULE-NEXT: relax.sum
// NORULE-NEXT: relax.output
// NORULE-NOT: _adjoint
// NORULE: func.func @outside
// NORULE-NOT: @norule_adjoint

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

// A declaration with the wrong type is left alone and no definition is added.
// DECL: error: declaration of '@decl_adjoint' has type
// DECL: IR Dump After GradientPass Failed
// DECL: func.func private @decl_adjoint(tensor<3xf32>) -> tensor<f32>{{$}}
// DECL-NOT: @decl_adjoint

// Without the dump, a failed pass prints no module at all.
// NOOUT: error: 'arith.mulf' is on the path
// NOOUT-NOT: func.func

func.func @norule(%x: tensor<3xf32>) -> tensor<f32> {
  %r = relax.dataflow -> (tensor<f32>) {
    %0 = relax.exp %x : tensor<3xf32>
    %1 = arith.mulf %0, %0 : tensor<3xf32>
    %2 = relax.sum %1 : tensor<3xf32> -> tensor<f32>
    relax.output %2 : tensor<f32>
  }
  return %r : tensor<f32>
}

func.func @outside(%x: tensor<3xf32>) -> tensor<f32> {
  %e = relax.exp %x : tensor<3xf32>
  %r = relax.dataflow -> (tensor<f32>) {
    %1 = relax.sum %e : tensor<3xf32> -> tensor<f32>
    relax.output %1 : tensor<f32>
  }
  return %r : tensor<f32>
}

func.func private @decl_adjoint(tensor<3xf32>) -> tensor<f32>

func.func @decl(%x: tensor<3xf32>) -> tensor<f32> {
  %r = relax.dataflow -> (tensor<f32>) {
    %0 = relax.sum %x : tensor<3xf32> -> tensor<f32>
    relax.output %0 : tensor<f32>
  }
  return %r : tensor<f32>
}
