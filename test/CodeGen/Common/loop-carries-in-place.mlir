// RUN: relax-opt %s --relax-loop-carries-in-place | FileCheck %s

// The accumulated carry (acc + g) is computed into the carry itself: the
// generic reads it through its init, so bufferization updates it in place.
// CHECK-LABEL: func.func @accumulate
// CHECK: scf.for {{.*}} iter_args(%[[ACC:.*]] = %arg0)
// CHECK: %[[SUM:.*]] = linalg.generic {{.*}} ins(%[[G:.*]] : tensor<4x8xf32>) outs(%[[ACC]] : tensor<4x8xf32>)
// CHECK-NEXT: ^bb0(%[[IN:.*]]: f32, %[[OUT:.*]]: f32):
// CHECK-NEXT: %[[ADD:.*]] = arith.addf %[[OUT]], %[[IN]] : f32
// CHECK: scf.yield %[[SUM]]
#id = affine_map<(d0, d1) -> (d0, d1)>
func.func @accumulate(%init: tensor<4x8xf32>, %g: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %c0 = arith.constant 0 : index
  %c3 = arith.constant 3 : index
  %c1 = arith.constant 1 : index
  %r = scf.for %i = %c0 to %c3 step %c1 iter_args(%acc = %init) -> (tensor<4x8xf32>) {
    %e = tensor.empty() : tensor<4x8xf32>
    %s = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]}
        ins(%acc, %g : tensor<4x8xf32>, tensor<4x8xf32>) outs(%e : tensor<4x8xf32>) {
    ^bb0(%a: f32, %b: f32, %o: f32):
      %v = arith.addf %a, %b : f32
      linalg.yield %v : f32
    } -> tensor<4x8xf32>
    scf.yield %s : tensor<4x8xf32>
  }
  return %r : tensor<4x8xf32>
}

// Not when the carry is read transposed (another element than the one
// written) or the generic reduces.
// CHECK-LABEL: func.func @transposed
// CHECK: outs(%{{.*}} : tensor<4x4xf32>)
// CHECK-NOT: outs(%arg
#t = affine_map<(d0, d1) -> (d1, d0)>
func.func @transposed(%init: tensor<4x4xf32>) -> tensor<4x4xf32> {
  %c0 = arith.constant 0 : index
  %c3 = arith.constant 3 : index
  %c1 = arith.constant 1 : index
  %r = scf.for %i = %c0 to %c3 step %c1 iter_args(%acc = %init) -> (tensor<4x4xf32>) {
    %e = tensor.empty() : tensor<4x4xf32>
    %s = linalg.generic {indexing_maps = [#t, #id], iterator_types = ["parallel", "parallel"]}
        ins(%acc : tensor<4x4xf32>) outs(%e : tensor<4x4xf32>) {
    ^bb0(%a: f32, %o: f32):
      linalg.yield %a : f32
    } -> tensor<4x4xf32>
    scf.yield %s : tensor<4x4xf32>
  }
  return %r : tensor<4x4xf32>
}
