// RUN: relax-opt %s --relax-results-to-out-params | FileCheck %s

// Results become out-parameters, as upstream's buffer-results-to-out-params
// (hoist-static-allocs, modify-public-functions) makes them: a returned
// allocation is the out-parameter itself; the caller allocates the callee's
// out-parameter, 64-byte aligned as bufferization's allocations are, and a
// returned call result is copied into the caller's out-parameter (why
// relax-outline-tensor-kernels inlines a kernel whose result is returned).
// CHECK-LABEL: func.func private @kernel(
// CHECK-SAME:      %[[IN:.*]]: memref<64xf32>, %[[OUT:.*]]: memref<64xf32>) {
// CHECK-NOT:     memref.alloc
// CHECK:         linalg.copy ins(%[[IN]] : memref<64xf32>) outs(%[[OUT]] : memref<64xf32>)
// CHECK-NEXT:    return
// CHECK-NEXT:  }
// CHECK-LABEL: func.func @main(
// CHECK-SAME:      %[[X:.*]]: memref<64xf32>, %[[R:.*]]: memref<64xf32>) {
// CHECK-NEXT:    %[[T:.*]] = memref.alloc() {alignment = 64 : i64} : memref<64xf32>
// CHECK-NEXT:    call @kernel(%[[X]], %[[T]])
// CHECK-NEXT:    %[[U:.*]] = memref.alloc() {alignment = 64 : i64} : memref<64xf32>
// CHECK-NEXT:    call @kernel(%[[T]], %[[U]])
// CHECK-NEXT:    memref.copy %[[U]], %[[R]]
// CHECK-NEXT:    return
func.func private @kernel(%in: memref<64xf32>) -> memref<64xf32> {
  %out = memref.alloc() {alignment = 64 : i64} : memref<64xf32>
  linalg.copy ins(%in : memref<64xf32>) outs(%out : memref<64xf32>)
  return %out : memref<64xf32>
}

func.func @main(%x: memref<64xf32>) -> memref<64xf32> {
  %t = call @kernel(%x) : (memref<64xf32>) -> memref<64xf32>
  %r = call @kernel(%t) : (memref<64xf32>) -> memref<64xf32>
  return %r : memref<64xf32>
}
