// RUN: relax-opt %s --relax-share-kernels | FileCheck %s

// The pass runs before the vectors and linalg ops are lowered to loops: a
// linalg op with loops is a kernel (equal ones shared, here the two 2-D
// row sums of equal shapes), one of rank 0 (a single scalar
// computation, no loop) stays in the glue.
// CHECK-LABEL: func.func @untiled(
// CHECK:         call @[[SUM:untiled_kernel[0-9]+]](
// CHECK-NEXT:    call @[[SUM]](
// CHECK-NEXT:    linalg.generic
// CHECK-SAME:      iterator_types = []
// CHECK-NEXT:    ^bb0
// CHECK-NEXT:      arith.mulf
// CHECK-NEXT:      linalg.yield
// CHECK-NEXT:    }
// CHECK-NEXT:    return
// CHECK:       func.func private @[[SUM]](
// CHECK-NEXT:    linalg.generic
// CHECK-SAME:      iterator_types = ["parallel", "reduction"]
// CHECK-NOT:   func.func private @untiled_kernel
#rows = affine_map<(i, j) -> (i, j)>
#row = affine_map<(i, j) -> (i)>
#scalar = affine_map<() -> ()>
func.func @untiled(%a: memref<4x8xf32>, %b: memref<4x8xf32>, %ra: memref<4xf32>,
                   %rb: memref<4xf32>, %s: memref<f32>) {
  linalg.generic {indexing_maps = [#rows, #row], iterator_types = ["parallel", "reduction"]}
      ins(%a : memref<4x8xf32>) outs(%ra : memref<4xf32>) {
  ^bb0(%x: f32, %acc: f32):
    %y = arith.addf %x, %acc : f32
    linalg.yield %y : f32
  }
  linalg.generic {indexing_maps = [#rows, #row], iterator_types = ["parallel", "reduction"]}
      ins(%b : memref<4x8xf32>) outs(%rb : memref<4xf32>) {
  ^bb0(%x: f32, %acc: f32):
    %y = arith.addf %x, %acc : f32
    linalg.yield %y : f32
  }
  linalg.generic {indexing_maps = [#scalar], iterator_types = []} outs(%s : memref<f32>) {
  ^bb0(%x: f32):
    %y = arith.mulf %x, %x : f32
    linalg.yield %y : f32
  }
  return
}
