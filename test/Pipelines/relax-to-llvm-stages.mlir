// The relax-to-llvm pipeline stops after any stage (to-stage) and resumes from
// one (from-stage); stage by stage it ends where the whole pipeline does.
// RUN: relax-opt %s --relax-to-llvm=to-stage=linalg | FileCheck %s --check-prefix=LINALG
// RUN: relax-opt %s --relax-to-llvm=to-stage=vector | FileCheck %s --check-prefix=VECTOR
// RUN: relax-opt %s --relax-to-llvm="to-stage=vector opt-level=0" | FileCheck %s --check-prefix=LINALG
// RUN: relax-opt %s --relax-to-llvm=to-stage=bufferized | FileCheck %s --check-prefix=BUFFERIZED
// RUN: relax-opt %s --relax-to-llvm=to-stage=linalg \
// RUN:   | relax-opt --relax-to-llvm="from-stage=linalg to-stage=vector" \
// RUN:   | relax-opt --relax-to-llvm="from-stage=vector to-stage=bufferized" \
// RUN:   | relax-opt --relax-to-llvm=from-stage=bufferized | FileCheck %s --check-prefix=LLVM
// RUN: relax-opt %s --relax-to-llvm=to-stage=relax | FileCheck %s --check-prefix=RELAX
// RUN: not relax-opt %s --relax-to-llvm=to-stage=loops 2>&1 | FileCheck %s --check-prefix=BAD

// LINALG-LABEL: func.func @main(
// LINALG-NOT:     relax.
// LINALG:         linalg.generic {{.*}}iterator_types = ["parallel", "parallel", "reduction"]
// LINALG-NOT:     vector.
// LINALG:         return {{.*}} : tensor<f32>

// VECTOR-LABEL: func.func @main(
// VECTOR-NOT:     memref.
// VECTOR:         vector.contract
// VECTOR:         return {{.*}} : tensor<f32>

// BUFFERIZED-LABEL: func.func @main(
// BUFFERIZED-SAME:    memref<64x32xf32>, %{{.*}}: memref<32x16xf32>, %{{.*}}: memref<f32>)
// BUFFERIZED-NOT:     tensor<
// BUFFERIZED:         memref.dealloc
// BUFFERIZED:         return{{$}}

// LLVM-NOT: {{(^|[^.a-z_])(relax|linalg|tensor|memref|bufferization|vector|scf|func)\.[a-z_]+}}
// LLVM:     llvm.func @_mlir_ciface_main(
// LLVM-NOT: {{(^|[^.a-z_])(relax|linalg|tensor|memref|bufferization|vector|scf|func)\.[a-z_]+}}

// RELAX: relax.matmul

// BAD: for the --to-stage option: Cannot find option named 'loops'

func.func @main(%x: tensor<64x32xf32>, %w: tensor<32x16xf32>) -> tensor<f32> {
  %0 = relax.matmul %x, %w : tensor<64x32xf32>, tensor<32x16xf32> -> tensor<64x16xf32>
  %1 = relax.tanh %0 : tensor<64x16xf32>
  %2 = relax.mean %1 : tensor<64x16xf32> -> tensor<f32>
  return %2 : tensor<f32>
}
