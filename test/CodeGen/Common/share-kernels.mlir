// RUN: relax-opt %s --relax-share-kernels="min-ops=4" | FileCheck %s

// Each loop nest of at least min-ops operations becomes a private function its
// place calls, and equal nests share one: equal up to the values read from
// before the nest (its arguments), here the buffer each tanh nest updates.
// Nests below min-ops stay. What is left in @layers is glue: no loop but the
// small ones.

// CHECK-LABEL: func.func @layers(
// CHECK-SAME:    %[[A:.+]]: memref<4xf32>, %[[B:.+]]: memref<4xf32>, %[[C:.+]]: memref<8xf32>)
// CHECK:         call @[[KERNEL:layers_kernel[0-9]+]](%[[A]]) : (memref<4xf32>) -> ()
// CHECK-NEXT:    call @[[KERNEL]](%[[B]]) : (memref<4xf32>) -> ()
// CHECK-NEXT:    call @[[EXP:layers_kernel[0-9]+]](%[[C]]) : (memref<8xf32>) -> ()
// CHECK-NEXT:    scf.for
// CHECK-NEXT:    }
// CHECK-NEXT:    scf.for
// CHECK-NEXT:    }
// CHECK-NEXT:    return
// CHECK:       func.func private @[[EXP]](%[[E:.+]]: memref<8xf32>) attributes {passthrough = ["noinline"]} {
// CHECK:         math.exp
// CHECK:       func.func private @[[KERNEL]](%[[K:.+]]: memref<4xf32>) attributes {passthrough = ["noinline"]} {
// CHECK:         scf.for
// CHECK-NEXT:      memref.load %[[K]]
// CHECK-NEXT:      math.tanh
// CHECK-NEXT:      memref.store
// CHECK-NOT:   func.func private @layers_kernel
func.func @layers(%a: memref<4xf32>, %b: memref<4xf32>, %c: memref<8xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c8 = arith.constant 8 : index
  scf.for %i = %c0 to %c4 step %c1 {
    %x = memref.load %a[%i] : memref<4xf32>
    %y = math.tanh %x : f32
    memref.store %y, %a[%i] : memref<4xf32>
  }
  scf.for %i = %c0 to %c4 step %c1 {
    %x = memref.load %b[%i] : memref<4xf32>
    %y = math.tanh %x : f32
    memref.store %y, %b[%i] : memref<4xf32>
  }
  scf.for %i = %c0 to %c8 step %c1 {
    %x = memref.load %c[%i] : memref<8xf32>
    %y = math.exp %x : f32
    memref.store %y, %c[%i] : memref<8xf32>
  }
  scf.for %i = %c0 to %c4 step %c1 {
  }
  scf.for %i = %c0 to %c4 step %c1 {
  }
  return
}

// Kernels of different functions are shared too (the forward function and its
// adjoint repeat the forward's kernels).
// CHECK-LABEL: func.func @one(
// CHECK:         call @[[KERNEL]](
// CHECK-NEXT:    call @[[SIN:one_kernel[0-9]+]](
// CHECK:       func.func private @[[SIN]](
// CHECK:         math.sin
// CHECK-LABEL: func.func @single(
// CHECK-NOT:     scf.for
// CHECK:         call @[[KERNEL]](
// CHECK-NEXT:    return
func.func @one(%a: memref<4xf32>, %c: memref<8xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c8 = arith.constant 8 : index
  scf.for %i = %c0 to %c4 step %c1 {
    %x = memref.load %a[%i] : memref<4xf32>
    %y = math.tanh %x : f32
    memref.store %y, %a[%i] : memref<4xf32>
  }
  scf.for %i = %c0 to %c8 step %c1 {
    %x = memref.load %c[%i] : memref<8xf32>
    %y = math.sin %x : f32
    memref.store %y, %c[%i] : memref<8xf32>
  }
  return
}

func.func @single(%a: memref<4xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  scf.for %i = %c0 to %c4 step %c1 {
    %x = memref.load %a[%i] : memref<4xf32>
    %y = math.tanh %x : f32
    memref.store %y, %a[%i] : memref<4xf32>
  }
  return
}

// Only kernels merge: two equal public functions (entry points of their own)
// both stay, sharing their kernel.
// CHECK-LABEL: func.func @same_a(
// CHECK:         call @[[KERNEL]](
// CHECK-LABEL: func.func @same_b(
// CHECK:         call @[[KERNEL]](
func.func @same_a(%a: memref<4xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  scf.for %i = %c0 to %c4 step %c1 {
    %x = memref.load %a[%i] : memref<4xf32>
    %y = math.tanh %x : f32
    memref.store %y, %a[%i] : memref<4xf32>
  }
  return
}

func.func @same_b(%a: memref<4xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  scf.for %i = %c0 to %c4 step %c1 {
    %x = memref.load %a[%i] : memref<4xf32>
    %y = math.tanh %x : f32
    memref.store %y, %a[%i] : memref<4xf32>
  }
  return
}
