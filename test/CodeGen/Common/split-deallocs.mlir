// relax-split-deallocs gives each distinct allocation of a block's dealloc a
// dealloc of its own, in one sweep (upstream's buffer-deallocation-
// simplification asks alias analysis about every pair: quadratic in the
// op's memrefs). What may alias something else stays in the shared op.
// RUN: relax-opt %s --relax-split-deallocs | FileCheck %s

// CHECK-LABEL: func.func @distinct_allocations(
// CHECK-SAME:    %[[ARG:.*]]: memref<4xf32>, %[[C:.*]]: i1)
// CHECK-DAG:     %[[A:.*]] = memref.alloc() : memref<4xf32>
// CHECK-DAG:     %[[B:.*]] = memref.alloc() : memref<8xf32>
// CHECK-DAG:     %[[S:.*]] = memref.alloc() : memref<16xf32>
// CHECK-DAG:     %[[V:.*]] = memref.subview %[[S]]
// CHECK-DAG:     %[[R:.*]] = memref.alloc() : memref<2xf32>
// CHECK-DAG:     %[[RV:.*]] = memref.reinterpret_cast %[[R]]
// CHECK:         bufferization.dealloc (%[[A]] : memref<4xf32>) if (%[[C]]){{$}}
// CHECK-NEXT:    bufferization.dealloc (%[[B]] : memref<8xf32>) if (%{{.*}}){{$}}
// The buffer under a view in the same op, a function argument and a buffer
// that a retained value comes from stay together.
// CHECK-NEXT:    %{{.*}} = bufferization.dealloc (%[[S]], %[[BASE:.*]], %[[ARG]], %[[R]] :
// CHECK-SAME:      retain (%[[RV]] :
// CHECK-NOT:     bufferization.dealloc
// CHECK:         return

func.func @distinct_allocations(%arg: memref<4xf32>, %c: i1) -> (memref<1xf32, strided<[1], offset: 1>>, i1) {
  %true = arith.constant true
  %false = arith.constant false
  %a = memref.alloc() : memref<4xf32>
  %b = memref.alloc() : memref<8xf32>
  %s = memref.alloc() : memref<16xf32>
  %v = memref.subview %s[2] [4] [1] : memref<16xf32> to memref<4xf32, strided<[1], offset: 2>>
  %base, %offset, %size, %stride = memref.extract_strided_metadata %v : memref<4xf32, strided<[1], offset: 2>> -> memref<f32>, index, index, index
  %r = memref.alloc() : memref<2xf32>
  %rv = memref.reinterpret_cast %r to offset: [1], sizes: [1], strides: [1] : memref<2xf32> to memref<1xf32, strided<[1], offset: 1>>
  %own = bufferization.dealloc (%a, %b, %s, %base, %arg, %r : memref<4xf32>, memref<8xf32>, memref<16xf32>, memref<f32>, memref<4xf32>, memref<2xf32>) if (%c, %true, %true, %false, %false, %true) retain (%rv : memref<1xf32, strided<[1], offset: 1>>)
  return %rv, %own : memref<1xf32, strided<[1], offset: 1>>, i1
}

// A dealloc of one buffer and nothing retained is left as it is.
// CHECK-LABEL: func.func @single(
// CHECK:         bufferization.dealloc (%{{.*}} : memref<4xf32>) if (%{{.*}}){{$}}
// CHECK-NEXT:    return
func.func @single(%c: i1) {
  %a = memref.alloc() : memref<4xf32>
  bufferization.dealloc (%a : memref<4xf32>) if (%c)
  return
}

// A loop carry may be, at run time, a buffer the block allocated (the
// iteration before yielded it): with it among the memrefs or the retained
// values, nothing is split (splitting freed such a buffer without moving
// its ownership to the carry: a leak found by a while loop's checkpointed
// adjoint).
// CHECK-LABEL: func.func @loop_carry(
// CHECK:         scf.for
// CHECK:           %{{.*}} = bufferization.dealloc (%{{.*}}, %{{.*}} : memref<4xf32>, memref<4xf32>) if (%{{.*}}, %{{.*}}) retain (%{{.*}} : memref<4xf32>)
// CHECK-NOT:       bufferization.dealloc
// CHECK:           scf.yield
func.func @loop_carry(%init: memref<4xf32>, %n: index) -> memref<4xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %true = arith.constant true
  %false = arith.constant false
  %r:2 = scf.for %i = %c0 to %n step %c1 iter_args(%carry = %init, %owned = %false) -> (memref<4xf32>, i1) {
    %a = memref.alloc() : memref<4xf32>
    %b = memref.alloc() : memref<4xf32>
    %cond = arith.cmpi eq, %i, %c0 : index
    %next = arith.select %cond, %a, %carry : memref<4xf32>
    %own:1 = bufferization.dealloc (%a, %carry : memref<4xf32>, memref<4xf32>) if (%true, %owned) retain (%next : memref<4xf32>)
    memref.dealloc %b : memref<4xf32>
    scf.yield %next, %own#0 : memref<4xf32>, i1
  }
  return %r#0 : memref<4xf32>
}
