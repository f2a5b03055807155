// RUN: relax-opt %s --pass-pipeline="builtin.module(func.func(relax-gpu-device-memory))" | FileCheck %s

// Buffers and frees of a host function become device operations, copies
// become linalg copies (kernels); the ones inside a kernel are left alone.
// CHECK-LABEL: func.func @buffers(
// CHECK-NOT:     memref.alloc
// CHECK:         %[[A:.*]] = gpu.alloc () : memref<4x8xf32>
// CHECK:         linalg.copy ins(%arg0 : memref<4x8xf32>) outs(%[[A]] : memref<4x8xf32>)
// CHECK:         gpu.launch
// CHECK:           memref.alloca
// CHECK:         gpu.dealloc %[[A]] : memref<4x8xf32>
// CHECK-NOT:     memref.dealloc
func.func @buffers(%arg0: memref<4x8xf32>) {
  %a = memref.alloc() : memref<4x8xf32>
  memref.copy %arg0, %a : memref<4x8xf32> to memref<4x8xf32>
  %c1 = arith.constant 1 : index
  gpu.launch blocks(%bx, %by, %bz) in (%x = %c1, %y = %c1, %z = %c1)
             threads(%tx, %ty, %tz) in (%i = %c1, %j = %c1, %k = %c1) {
    %s = memref.alloca() : memref<f32>
    gpu.terminator
  }
  memref.dealloc %a : memref<4x8xf32>
  return
}

// A constant is copied to the device where it is taken and freed at the end.
// CHECK-LABEL: func.func @constant(
// CHECK:         %[[D:.*]] = gpu.alloc () : memref<2xf32>
// CHECK:         %[[H:.*]] = memref.get_global @c : memref<2xf32>
// CHECK:         gpu.memcpy %[[D]], %[[H]] : memref<2xf32>, memref<2xf32>
// CHECK:         linalg.copy ins(%[[D]] : memref<2xf32>)
// CHECK:         gpu.dealloc %[[D]]
// CHECK-NEXT:    return
memref.global "private" constant @c : memref<2xf32> = dense<[1.0, 2.0]>
func.func @constant(%out: memref<2xf32>) {
  %g = memref.get_global @c : memref<2xf32>
  memref.copy %g, %out : memref<2xf32> to memref<2xf32>
  return
}
