// RUN: relax-opt %s --split-input-file --pass-pipeline="builtin.module(func.func(relax-gpu-device-memory))" | FileCheck %s

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

// -----

// A buffer allocated inside a loop (which becomes one kernel) and used only
// there is private to the thread running it: an alloca, its dealloc gone.
// CHECK-LABEL: func.func @in_loop(
// CHECK:         scf.for
// CHECK-NEXT:      %[[T:.*]] = memref.alloca() {alignment = 64 : i64} : memref<2xf32>
// CHECK-NOT:       dealloc
// CHECK:         return
func.func @in_loop(%x: memref<3x2xf32>, %y: memref<3xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  scf.for %i = %c0 to %c3 step %c1 {
    %t = memref.alloc() {alignment = 64 : i64} : memref<2xf32>
    %v = memref.load %x[%i, %c0] : memref<3x2xf32>
    memref.store %v, %t[%c0] : memref<2xf32>
    %w = memref.load %t[%c0] : memref<2xf32>
    memref.store %w, %y[%i] : memref<3xf32>
    memref.dealloc %t : memref<2xf32>
  }
  return
}
