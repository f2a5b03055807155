// RUN: relax-opt %s --relax-optimize-none-glue | FileCheck %s

// A function whose control flow has no cycle (glue: allocations, calls) is
// compiled unoptimized; one with a loop (a kernel) keeps LLVM's optimizations,
// even when its loop is not its first block; declarations are left alone.

// CHECK-LABEL: llvm.func @glue(
// CHECK-SAME:    attributes {no_inline, optimize_none}
llvm.func @glue(%p: !llvm.ptr) {
  llvm.call @kernel(%p) : (!llvm.ptr) -> ()
  llvm.call @kernel(%p) : (!llvm.ptr) -> ()
  llvm.return
}

// Branches without a cycle are glue too.
// CHECK-LABEL: llvm.func @branches(
// CHECK-SAME:    attributes {no_inline, optimize_none}
llvm.func @branches(%c: i1, %p: !llvm.ptr) {
  llvm.cond_br %c, ^a, ^b
^a:
  llvm.call @kernel(%p) : (!llvm.ptr) -> ()
  llvm.br ^b
^b:
  llvm.return
}

// CHECK-LABEL: llvm.func @kernel(
// CHECK-NOT:     optimize_none
// CHECK:         llvm.br ^bb1
llvm.func @kernel(%p: !llvm.ptr) {
  %c0 = llvm.mlir.constant(0 : i64) : i64
  %c1 = llvm.mlir.constant(1 : i64) : i64
  %n = llvm.mlir.constant(8 : i64) : i64
  llvm.br ^head(%c0 : i64)
^head(%i: i64):
  %more = llvm.icmp "slt" %i, %n : i64
  llvm.cond_br %more, ^body, ^exit
^body:
  %next = llvm.add %i, %c1 : i64
  llvm.br ^head(%next : i64)
^exit:
  llvm.return
}

// CHECK-LABEL: llvm.func @external(!llvm.ptr)
// CHECK-NOT:     optimize_none
llvm.func @external(!llvm.ptr)
