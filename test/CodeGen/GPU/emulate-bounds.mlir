// An out-of-bounds store in a kernel, found by the emulator with runtime
// verification (relax-to-gpu-emulator's check-bounds): 9 threads store into 8
// elements, and the run aborts (the failed check's message is lost with
// stdout's buffer). In bounds (8 threads) the same kernel runs through.
// RUN: relax-opt %s --pass-pipeline="builtin.module(func.func(relax-gpu-emulate),generate-runtime-verification,relax-to-llvm{from-stage=bufferized opt-level=0})" \
// RUN:   | not --crash mlir-runner -e entry -entry-point-result=void -shared-libs=%mlir_runner_utils,%mlir_c_runner_utils
// RUN: sed 's/arith.constant 9 : index/arith.constant 8 : index/' %s \
// RUN:   | relax-opt --pass-pipeline="builtin.module(func.func(relax-gpu-emulate),generate-runtime-verification,relax-to-llvm{from-stage=bufferized opt-level=0})" \
// RUN:   | mlir-runner -e entry -entry-point-result=void -shared-libs=%mlir_runner_utils,%mlir_c_runner_utils 2>&1 \
// RUN:   | FileCheck %s --check-prefix=OK

// OK: [0,  1,  2,  3,  4,  5,  6,  7]

func.func private @printMemrefF32(memref<*xf32>)

func.func @entry() {
  %c1 = arith.constant 1 : index
  %threads = arith.constant 9 : index
  %buffer = memref.alloc() : memref<8xf32>
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %threads, %sy = %c1, %sz = %c1) {
    %i = arith.index_cast %tx : index to i32
    %v = arith.sitofp %i : i32 to f32
    memref.store %v, %buffer[%tx] : memref<8xf32>
    gpu.terminator
  }
  %u = memref.cast %buffer : memref<8xf32> to memref<*xf32>
  call @printMemrefF32(%u) : (memref<*xf32>) -> ()
  memref.dealloc %buffer : memref<8xf32>
  return
}
