// RUN: relax-opt %s --relax-keep-vector-loops-rolled | FileCheck %s
// RUN: relax-opt %s --relax-keep-vector-loops-rolled | mlir-translate --mlir-to-llvmir | FileCheck %s --check-prefix=LLVMIR

// A kernel holding vector values: its back edge (the latch's branch to the
// loop header) asks LLVM not to unroll; the loop's other branches are left
// alone.
// CHECK: #[[UNROLL:.+]] = #llvm.loop_unroll<disable = true>
// CHECK: #[[ROLLED:.+]] = #llvm.loop_annotation<unroll = #[[UNROLL]]>
// CHECK-LABEL: llvm.func @vector_kernel(
// CHECK:         llvm.cond_br %{{.+}}, ^bb2, ^bb3
// CHECK-NOT:     loop_annotation
// CHECK:         llvm.br ^bb1(%{{.+}} : i64) {loop_annotation = #[[ROLLED]]}
// LLVMIR-LABEL: define void @vector_kernel(
// LLVMIR:         br label %{{.+}}, !llvm.loop ![[LOOP:[0-9]+]]
// LLVMIR-LABEL: define void @scalar_kernel(
// LLVMIR-NOT:     !llvm.loop
// LLVMIR:       ![[LOOP]] = distinct !{![[LOOP]], ![[DISABLE:[0-9]+]]}
// LLVMIR:       ![[DISABLE]] = !{!"llvm.loop.unroll.disable"}
llvm.func @vector_kernel(%p: !llvm.ptr) {
  %c0 = llvm.mlir.constant(0 : i64) : i64
  %c1 = llvm.mlir.constant(1 : i64) : i64
  %n = llvm.mlir.constant(8 : i64) : i64
  llvm.br ^head(%c0 : i64)
^head(%i: i64):
  %more = llvm.icmp "slt" %i, %n : i64
  llvm.cond_br %more, ^body, ^exit
^body:
  %at = llvm.getelementptr %p[%i] : (!llvm.ptr, i64) -> !llvm.ptr, f32
  %v = llvm.load %at : !llvm.ptr -> vector<16xf32>
  %w = llvm.fadd %v, %v : vector<16xf32>
  llvm.store %w, %at : vector<16xf32>, !llvm.ptr
  %next = llvm.add %i, %c1 : i64
  llvm.br ^head(%next : i64)
^exit:
  llvm.return
}

// Scalar loops (pooling windows, i1 buffers, tails) keep LLVM's unrolling.
// CHECK-LABEL: llvm.func @scalar_kernel(
// CHECK-NOT:     loop_annotation
// CHECK:         llvm.return
llvm.func @scalar_kernel(%p: !llvm.ptr) {
  %c0 = llvm.mlir.constant(0 : i64) : i64
  %c1 = llvm.mlir.constant(1 : i64) : i64
  %n = llvm.mlir.constant(8 : i64) : i64
  llvm.br ^head(%c0 : i64)
^head(%i: i64):
  %more = llvm.icmp "slt" %i, %n : i64
  llvm.cond_br %more, ^body, ^exit
^body:
  %at = llvm.getelementptr %p[%i] : (!llvm.ptr, i64) -> !llvm.ptr, f32
  %v = llvm.load %at : !llvm.ptr -> f32
  %w = llvm.fadd %v, %v : f32
  llvm.store %w, %at : f32, !llvm.ptr
  %next = llvm.add %i, %c1 : i64
  llvm.br ^head(%next : i64)
^exit:
  llvm.return
}
