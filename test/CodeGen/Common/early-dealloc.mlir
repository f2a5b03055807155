// RUN: relax-opt %s --relax-early-dealloc --split-input-file | FileCheck %s

// A buffer is freed right after the last op that reads it, also through a
// view (the subview read in the second copy).
// CHECK-LABEL: func.func @after_last_use
// CHECK:         %[[A:.*]] = memref.alloc() : memref<4x4xf32>
// CHECK:         %[[B:.*]] = memref.alloc() : memref<4x4xf32>
// CHECK:         linalg.copy ins(%{{.*}} : memref<4x4xf32>) outs(%[[A]]
// CHECK:         linalg.copy ins(%[[A]] : memref<4x4xf32>) outs(%[[B]]
// CHECK-NEXT:    %[[V:.*]] = memref.subview %[[B]]
// CHECK-NEXT:    linalg.copy ins(%[[V]] : {{.*}}) outs(%{{.*}}
// CHECK-NEXT:    memref.dealloc %[[B]]
// CHECK-NEXT:    linalg.fill
// CHECK-NEXT:    memref.dealloc %[[A]]
// CHECK-NEXT:    linalg.copy ins(%{{.*}} : memref<4x4xf32>) outs(%{{.*}} : memref<4x4xf32>)
// CHECK-NEXT:    return
func.func @after_last_use(%in: memref<4x4xf32>, %out: memref<2x2xf32>, %o2: memref<4x4xf32>) {
  %cst = arith.constant 0.0 : f32
  %a = memref.alloc() : memref<4x4xf32>
  %b = memref.alloc() : memref<4x4xf32>
  linalg.copy ins(%in : memref<4x4xf32>) outs(%a : memref<4x4xf32>)
  linalg.copy ins(%a : memref<4x4xf32>) outs(%b : memref<4x4xf32>)
  %v = memref.subview %b[0, 0] [2, 2] [1, 1] : memref<4x4xf32> to memref<2x2xf32, strided<[4, 1]>>
  linalg.copy ins(%v : memref<2x2xf32, strided<[4, 1]>>) outs(%out : memref<2x2xf32>)
  linalg.fill ins(%cst : f32) outs(%a : memref<4x4xf32>)
  linalg.copy ins(%in : memref<4x4xf32>) outs(%o2 : memref<4x4xf32>)
  memref.dealloc %a : memref<4x4xf32>
  memref.dealloc %b : memref<4x4xf32>
  return
}

// -----

// A use inside a loop body (and through the loop's carried value) keeps the
// buffer until after the loop.
// CHECK-LABEL: func.func @used_in_a_loop
// CHECK:         %[[A:.*]] = memref.alloc()
// CHECK:         scf.for
// CHECK:           memref.store {{.*}}, %[[A]]
// CHECK:         }
// CHECK-NEXT:    %[[R:.*]] = scf.for {{.*}} iter_args(%{{.*}} = %[[A]])
// CHECK:         }
// CHECK-NEXT:    memref.load %[[R]]
// CHECK-NEXT:    memref.dealloc %[[A]]
// CHECK-NEXT:    arith.addf
func.func @used_in_a_loop(%x: f32) -> f32 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %a = memref.alloc() : memref<4xf32>
  scf.for %i = %c0 to %c4 step %c1 {
    memref.store %x, %a[%i] : memref<4xf32>
  }
  %r = scf.for %i = %c0 to %c4 step %c1 iter_args(%m = %a) -> (memref<4xf32>) {
    scf.yield %m : memref<4xf32>
  }
  %l = memref.load %r[%c0] : memref<4xf32>
  %s = arith.addf %l, %x : f32
  memref.dealloc %a : memref<4xf32>
  return %s : f32
}

// -----

// An unused buffer is freed right after its allocation.
// CHECK-LABEL: func.func @unused
// CHECK:         %[[A:.*]] = memref.alloc()
// CHECK-NEXT:    memref.dealloc %[[A]]
// CHECK-NEXT:    arith.addf
func.func @unused(%x: f32) -> f32 {
  %a = memref.alloc() : memref<4xf32>
  %s = arith.addf %x, %x : f32
  memref.dealloc %a : memref<4xf32>
  return %s : f32
}

// -----

// A buffer whose address leaves as an integer, or that is passed to a call,
// keeps its dealloc where it was.
// CHECK-LABEL: func.func @escapes
// CHECK:         %[[A:.*]] = memref.alloc()
// CHECK:         %[[B:.*]] = memref.alloc()
// CHECK:         memref.extract_aligned_pointer_as_index %[[A]]
// CHECK:         call @use(%[[B]])
// CHECK:         arith.addf
// CHECK-NEXT:    memref.dealloc %[[A]]
// CHECK-NEXT:    memref.dealloc %[[B]]
func.func private @use(memref<4xf32>)
func.func @escapes(%x: f32) -> (index, f32) {
  %a = memref.alloc() : memref<4xf32>
  %b = memref.alloc() : memref<4xf32>
  %p = memref.extract_aligned_pointer_as_index %a : memref<4xf32> -> index
  func.call @use(%b) : (memref<4xf32>) -> ()
  %s = arith.addf %x, %x : f32
  memref.dealloc %a : memref<4xf32>
  memref.dealloc %b : memref<4xf32>
  return %p, %s : index, f32
}

// -----

// A call to a kernel kept a function by relax-outline-tensor-kernels is a
// use like any other (it keeps no reference to its arguments): the buffer
// is freed right after the last call that reads it. A call to any other
// function may keep the address: its buffer stays freed at the end.
// CHECK-LABEL: func.func @kernel_calls
// CHECK:         %[[A:.*]] = memref.alloc() : memref<64xf32>
// CHECK-NEXT:    %[[B:.*]] = memref.alloc() : memref<64xf32>
// CHECK-NEXT:    %[[C:.*]] = memref.alloc() : memref<64xf32>
// CHECK-NEXT:    call @kernel(%arg0, %[[A]])
// CHECK-NEXT:    call @kernel(%[[A]], %[[B]])
// CHECK-NEXT:    memref.dealloc %[[A]]
// CHECK-NEXT:    call @other(%[[B]], %[[C]])
// CHECK-NEXT:    call @kernel(%[[C]], %arg1)
// CHECK-NEXT:    memref.dealloc %[[B]]
// CHECK-NEXT:    memref.dealloc %[[C]]
// CHECK-NEXT:    return
func.func private @kernel(%in: memref<64xf32>, %out: memref<64xf32>)
    attributes {relax.kept_kernel, relax.kernel} {
  linalg.copy ins(%in : memref<64xf32>) outs(%out : memref<64xf32>)
  return
}
func.func private @other(%in: memref<64xf32>, %out: memref<64xf32>)

func.func @kernel_calls(%x: memref<64xf32>, %y: memref<64xf32>) {
  %a = memref.alloc() : memref<64xf32>
  %b = memref.alloc() : memref<64xf32>
  %c = memref.alloc() : memref<64xf32>
  call @kernel(%x, %a) : (memref<64xf32>, memref<64xf32>) -> ()
  call @kernel(%a, %b) : (memref<64xf32>, memref<64xf32>) -> ()
  call @other(%b, %c) : (memref<64xf32>, memref<64xf32>) -> ()
  call @kernel(%c, %y) : (memref<64xf32>, memref<64xf32>) -> ()
  memref.dealloc %a : memref<64xf32>
  memref.dealloc %b : memref<64xf32>
  memref.dealloc %c : memref<64xf32>
  return
}
