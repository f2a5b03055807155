// RUN: relax-opt %s --split-input-file --verify-diagnostics \
// RUN:   --pass-pipeline="builtin.module(func.func(relax-gpu-wrap-host-code))" | FileCheck %s

// A full reduction (loops without a parallel dimension) and the scalar code
// of a 0-d result move into one-iteration parallel loops; allocations,
// parallel loops and constants stay where they are.
// CHECK-LABEL: func.func @reduction(
// CHECK:         %[[ACC:.*]] = gpu.alloc () : memref<f32>
// CHECK:         scf.parallel (%{{.*}}) = (%{{.*}}) to (%{{.*}}) step (%{{.*}}) {
// CHECK-NEXT:      memref.store
// CHECK-NEXT:      scf.for
// CHECK:           memref.load %[[ACC]][]
// CHECK:           memref.store {{.*}}, %arg1[]
// CHECK:           scf.reduce
// CHECK-NEXT:    }
// CHECK:         scf.parallel (%{{.*}}) = (%c0{{.*}}) to (%c4{{.*}})
// CHECK:         gpu.dealloc %[[ACC]]
// CHECK-NEXT:    return
func.func @reduction(%x: memref<4xf32>, %out: memref<f32>, %y: memref<4xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %zero = arith.constant 0.0 : f32
  %acc = gpu.alloc () : memref<f32>
  memref.store %zero, %acc[] : memref<f32>
  scf.for %i = %c0 to %c4 step %c1 {
    %v = memref.load %x[%i] : memref<4xf32>
    %a = memref.load %acc[] : memref<f32>
    %s = arith.addf %a, %v : f32
    memref.store %s, %acc[] : memref<f32>
  }
  %r = memref.load %acc[] : memref<f32>
  %h = arith.mulf %r, %r : f32
  memref.store %h, %out[] : memref<f32>
  scf.parallel (%i) = (%c0) to (%c4) step (%c1) {
    %v = memref.load %x[%i] : memref<4xf32>
    memref.store %v, %y[%i] : memref<4xf32>
  }
  gpu.dealloc %acc : memref<f32>
  return
}

// -----

// Pure host code (index arithmetic, constants) is not wrapped.
// CHECK-LABEL: func.func @pure(
// CHECK-NOT:     scf.parallel
func.func @pure(%n: index) -> index {
  %c2 = arith.constant 2 : index
  %m = arith.muli %n, %c2 : index
  return %m : index
}

// -----

// A value read from device memory that the host then needs cannot move.
func.func @escapes(%x: memref<f32>) -> f32 {
  // expected-error @below {{a value computed on device memory is used on the host}}
  %v = memref.load %x[] : memref<f32>
  return %v : f32
}

// -----

// A scalar read at the top (a 0-d result of an earlier kernel) and used by a
// later loop nest moves into that loop, and the buffer's dealloc after it: it
// no longer crosses from the device to the host.
// CHECK-LABEL: func.func @scalar_into_later_kernel(
// CHECK:         %[[S:.*]] = gpu.alloc () : memref<f32>
// CHECK:         scf.parallel
// CHECK:           memref.store %{{.*}}, %[[S]][]
// CHECK:         scf.parallel (%[[I:.*]]) =
// CHECK-NEXT:      %[[V:.*]] = memref.load %[[S]][]
// CHECK-NEXT:      %[[W:.*]] = memref.load %[[S]][]
// CHECK-NEXT:      %[[D:.*]] = arith.mulf %[[W]], %[[V]]
// CHECK-NEXT:      memref.store %[[D]], %arg1[%[[I]]]
// CHECK:         gpu.dealloc %[[S]]
// CHECK-NEXT:    return
func.func @scalar_into_later_kernel(%x: memref<f32>, %y: memref<4xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %s = gpu.alloc () : memref<f32>
  scf.parallel (%i) = (%c0) to (%c1) step (%c1) {
    %v = memref.load %x[] : memref<f32>
    memref.store %v, %s[] : memref<f32>
  }
  %r = memref.load %s[] : memref<f32>
  %d = arith.mulf %r, %r : f32
  gpu.dealloc %s : memref<f32>
  scf.parallel (%i) = (%c0) to (%c4) step (%c1) {
    memref.store %d, %y[%i] : memref<4xf32>
  }
  return
}

// -----

// A buffer written between the read and the use: the read cannot move.
func.func @written_between(%x: memref<f32>, %y: memref<4xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %zero = arith.constant 0.0 : f32
  %s = gpu.alloc () : memref<f32>
  // expected-error @below {{a value computed on device memory is used on the host}}
  %r = memref.load %x[] : memref<f32>
  scf.parallel (%i) = (%c0) to (%c1) step (%c1) {
    memref.store %zero, %x[] : memref<f32>
  }
  scf.parallel (%i) = (%c0) to (%c4) step (%c1) {
    memref.store %r, %y[%i] : memref<4xf32>
  }
  gpu.dealloc %s : memref<f32>
  return
}

// -----

// Host control flow: a relax loop's condition computed by a kernel is read
// through a host copy, and the loop's body code becomes a kernel launched
// from the host loop.
// CHECK-LABEL: func.func @host_loop(
// CHECK:         scf.while
// CHECK:           scf.parallel
// CHECK:             memref.store %{{.*}}, %[[P:.*]][]
// CHECK:           %[[H:.*]] = memref.alloca() {relax.host_scalar} : memref<i1>
// CHECK:           gpu.memcpy  %[[H]], %[[P]]
// CHECK:           %[[GO:.*]] = memref.load %[[H]][]
// CHECK:           scf.condition(%[[GO]])
// CHECK:         } do {
// CHECK:           scf.parallel
// CHECK:             memref.store
func.func @host_loop(%x: memref<f32>, %p: memref<i1>) {
  %c = arith.constant 1.0 : f32
  scf.while : () -> () {
    %v = memref.load %x[] : memref<f32>
    %b = arith.cmpf olt, %v, %c : f32
    memref.store %b, %p[] : memref<i1>
    %go = memref.load %p[] : memref<i1>
    scf.condition(%go)
  } do {
    %v = memref.load %x[] : memref<f32>
    %w = arith.addf %v, %v : f32
    memref.store %w, %x[] : memref<f32>
    scf.yield
  }
  return
}

// -----

// An element of a larger buffer that decides a host branch is first copied
// by a kernel into a device buffer of its own: gpu.memcpy copies contiguous
// buffers only.
// CHECK-LABEL: func.func @host_branch_on_element(
// CHECK:         %[[H:.*]] = memref.alloca() {relax.host_scalar} : memref<i1>
// CHECK:         %[[S:.*]] = gpu.alloc () : memref<i1>
// CHECK:         scf.parallel
// CHECK:           %[[E:.*]] = memref.load %arg0[%{{.*}}] : memref<4xi1>
// CHECK:           memref.store %[[E]], %[[S]][]
// CHECK:         gpu.memcpy  %[[H]], %[[S]]
// CHECK:         gpu.dealloc  %[[S]]
// CHECK:         %[[P:.*]] = memref.load %[[H]][]
// CHECK:         scf.if %[[P]]
func.func @host_branch_on_element(%flags: memref<4xi1>, %x: memref<f32>, %i: index) {
  %p = memref.load %flags[%i] : memref<4xi1>
  scf.if %p {
    %v = memref.load %x[] : memref<f32>
    %w = arith.addf %v, %v : f32
    memref.store %w, %x[] : memref<f32>
  }
  return
}
