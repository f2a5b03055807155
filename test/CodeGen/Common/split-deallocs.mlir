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
