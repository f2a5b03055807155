// RUN: relax-opt %s --pass-pipeline="builtin.module(func.func(relax-gpu-device-memory))" | FileCheck %s

// Buffers, frees and copies of a host function become device operations;
// the ones inside a kernel are left alone.
// CHECK-LABEL: func.func @buffers(
// CHECK-NOT:     memref.alloc
// CHECK:         %[[A:.*]] = gpu.alloc () : memref<4x8xf32>
// CHECK:         gpu.memcpy %[[A]], %arg0 : memref<4x8xf32>, memref<4x8xf32>
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
