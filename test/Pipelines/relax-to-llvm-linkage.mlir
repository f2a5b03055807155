// Functions nothing outside the module calls get internal LLVM linkage: the
// C calling convention and the JIT's argument-packing wrapper made the outlined
// parts of a 500-parameter gradient cost 8.3 s of code generation (1.6 s
// internal). A public function keeps external linkage unless
// c-interface-only, where its C interface is its only entry point and the
// function is inlined into it (the call passed every descriptor field as an
// argument: 5,003 for 1,000 parameters, quadratic in LLVM's
// CalledValuePropagation).
// RUN: relax-opt %s --relax-to-llvm=from-stage=bufferized | FileCheck %s
// RUN: relax-opt %s "--relax-to-llvm=from-stage=bufferized c-interface-only=true" \
// RUN:   | FileCheck %s --check-prefix=CIFACE

// CHECK:      llvm.func @main(
// CHECK:        llvm.call @helper(
// CHECK:      llvm.func @_mlir_ciface_main(
// CHECK:      llvm.func internal @helper(
// CHECK:      llvm.func @external(

// CIFACE-NOT: @main(
// CIFACE:     llvm.func @_mlir_ciface_main(
// CIFACE-NOT:   llvm.call @main(
// CIFACE:       llvm.call @helper(
// CIFACE-NOT:   llvm.call @main(
// CIFACE:       llvm.return
// CIFACE:     llvm.func internal @helper(
// CIFACE:     llvm.func @external(

func.func @main(%a: memref<4xf32>, %out: memref<4xf32>) attributes {llvm.emit_c_interface} {
  call @helper(%a, %out) : (memref<4xf32>, memref<4xf32>) -> ()
  call @external(%out) : (memref<4xf32>) -> ()
  return
}

func.func private @helper(%a: memref<4xf32>, %out: memref<4xf32>) {
  memref.copy %a, %out : memref<4xf32> to memref<4xf32>
  return
}

// A declaration stays external: its definition is elsewhere.
func.func private @external(memref<4xf32>)
