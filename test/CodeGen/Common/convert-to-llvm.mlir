// relax-convert-to-llvm: memref, arith, index, ub, func and cf ops all
// become LLVM dialect ops in one conversion (reconcile-unrealized-casts
// then leaves no cast); with use-generic-functions the allocations call
// the runtime pool's _mlir_memref_to_llvm_alloc/_free, else malloc/free.
// Ops of other dialects (math) are left for their own conversion.
// RUN: relax-opt %s --relax-convert-to-llvm=use-generic-functions=true --reconcile-unrealized-casts | FileCheck %s
// RUN: relax-opt %s --relax-convert-to-llvm --reconcile-unrealized-casts | FileCheck %s --check-prefix=MALLOC

// CHECK-NOT: memref.
// CHECK-NOT: arith.
// CHECK-NOT: index.
// CHECK-NOT: ub.
// CHECK-NOT: func.func
// CHECK-NOT: cf.
// CHECK-NOT: unrealized_conversion_cast
// CHECK-LABEL: llvm.func @helper(
// CHECK: math.fma
// CHECK-LABEL: llvm.func @main(
// CHECK: llvm.call @_mlir_memref_to_llvm_alloc
// CHECK: llvm.cond_br
// CHECK: llvm.call @helper
// CHECK: llvm.mlir.poison
// CHECK: llvm.call @_mlir_memref_to_llvm_free
// CHECK: llvm.return
// MALLOC-LABEL: llvm.func @main(
// MALLOC: llvm.call @malloc
// MALLOC: llvm.call @free

func.func private @helper(%a: f32, %b: f32) -> f32 {
  %0 = math.fma %a, %b, %a : f32
  return %0 : f32
}

func.func @main(%n: index, %x: f32) -> f32 {
  %m = memref.alloc(%n) : memref<?xf32>
  %c0 = arith.constant 0 : index
  %i = index.add %n, %c0
  %p = arith.cmpi sgt, %i, %c0 : index
  cf.cond_br %p, ^store, ^done(%x : f32)
^store:
  memref.store %x, %m[%c0] : memref<?xf32>
  %y = memref.load %m[%c0] : memref<?xf32>
  %z = func.call @helper(%y, %x) : (f32, f32) -> f32
  cf.br ^done(%z : f32)
^done(%r: f32):
  %u = ub.poison : f32
  %s = arith.select %p, %r, %u : f32
  memref.dealloc %m : memref<?xf32>
  return %s : f32
}
