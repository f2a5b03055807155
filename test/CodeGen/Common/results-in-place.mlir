// RUN: relax-opt %s --relax-results-in-place --split-input-file | FileCheck %s

// A result returned as a reshape of an allocation is computed in the
// out-parameter viewed in the allocation's shape; the copy is gone.
// CHECK-LABEL: func.func @collapsed(
// CHECK-SAME:    %[[IN:[a-z0-9]+]]: memref<4x8xf32>, %[[OUT:[a-z0-9]+]]: memref<4x8xf32>)
// CHECK-NEXT:    %[[V:.*]] = memref.expand_shape %[[OUT]] {{\[}}[0], [1, 2]] output_shape [4, 2, 4] : memref<4x8xf32> into memref<4x2x4xf32>
// CHECK-NEXT:    %[[E:.*]] = memref.expand_shape %[[IN]]
// CHECK-NEXT:    linalg.copy ins(%[[E]] : memref<4x2x4xf32>) outs(%[[V]] : memref<4x2x4xf32>)
// CHECK-NEXT:    return
func.func @collapsed(%in: memref<4x8xf32>, %out: memref<4x8xf32>) {
  %a = memref.alloc() : memref<4x2x4xf32>
  %e = memref.expand_shape %in [[0], [1, 2]] output_shape [4, 2, 4] : memref<4x8xf32> into memref<4x2x4xf32>
  linalg.copy ins(%e : memref<4x2x4xf32>) outs(%a : memref<4x2x4xf32>)
  %c = memref.collapse_shape %a [[0], [1, 2]] : memref<4x2x4xf32> into memref<4x8xf32>
  memref.copy %c, %out : memref<4x8xf32> to memref<4x8xf32>
  return
}

// -----

// Two reshapes are undone in reverse order.
// CHECK-LABEL: func.func @two_reshapes(
// CHECK-SAME:    %{{[a-z0-9]+}}: f32, %[[OUT:[a-z0-9]+]]: memref<8xf32>)
// CHECK-NEXT:    %[[V1:.*]] = memref.expand_shape %[[OUT]] {{\[}}[0, 1]] output_shape [2, 4] : memref<8xf32> into memref<2x4xf32>
// CHECK-NEXT:    %[[V2:.*]] = memref.expand_shape %[[V1]] {{\[}}[0], [1, 2]] output_shape [2, 2, 2] : memref<2x4xf32> into memref<2x2x2xf32>
// CHECK-NEXT:    linalg.fill {{.*}} outs(%[[V2]] : memref<2x2x2xf32>)
// CHECK-NEXT:    return
func.func @two_reshapes(%x: f32, %out: memref<8xf32>) {
  %a = memref.alloc() : memref<2x2x2xf32>
  linalg.fill ins(%x : f32) outs(%a : memref<2x2x2xf32>)
  %c1 = memref.collapse_shape %a [[0], [1, 2]] : memref<2x2x2xf32> into memref<2x4xf32>
  %c2 = memref.collapse_shape %c1 [[0, 1]] : memref<2x4xf32> into memref<8xf32>
  memref.copy %c2, %out : memref<8xf32> to memref<8xf32>
  return
}

// -----

// An allocation read after the copy, or an out-parameter used elsewhere,
// keeps its copy.
// CHECK-LABEL: func.func @kept(
// CHECK:         memref.alloc()
// CHECK:         memref.copy
// CHECK:         memref.load
// CHECK:         return
func.func @kept(%x: f32, %out: memref<8xf32>) -> f32 {
  %c0 = arith.constant 0 : index
  %a = memref.alloc() : memref<2x4xf32>
  linalg.fill ins(%x : f32) outs(%a : memref<2x4xf32>)
  %c = memref.collapse_shape %a [[0, 1]] : memref<2x4xf32> into memref<8xf32>
  memref.copy %c, %out : memref<8xf32> to memref<8xf32>
  %l = memref.load %a[%c0, %c0] : memref<2x4xf32>
  return %l : f32
}
