// num-threads=2: the column loop of a large contraction becomes an OpenMP
// worksharing loop; small ops stay sequential. Run with libomp, the result is
// that of the sequential code: c = a @ b with a[i,k] = 1 and b[k,j] = j / 64
// gives c[i,j] = 784 * j / 64 (exact in f32).
// RUN: relax-opt %s "--relax-to-llvm=num-threads=2 vector-bits=512" | FileCheck %s
// RUN: relax-opt %s "--relax-to-llvm=num-threads=2" | mlir-runner -e entry -entry-point-result=void -shared-libs=%mlir_runner_utils,%mlir_c_runner_utils,%libomp | FileCheck %s --check-prefix=RUN-CHECK
// The parallelize pass alone turns the marked loop into scf.parallel.
// RUN: relax-opt %s --convert-relax-to-linalg --canonicalize --relax-cpu-select-tiles=vector-bits=512 --relax-cpu-pack=vector-bits=512 --relax-cpu-tile=num-threads=2 --canonicalize --relax-cpu-vectorize --canonicalize --one-shot-bufferize=bufferize-function-boundaries --canonicalize --relax-cpu-parallelize | FileCheck %s --check-prefix=PAR

// CHECK-LABEL: llvm.func @main(
// CHECK:         omp.parallel
// CHECK:           omp.wsloop
// CHECK:             omp.loop_nest
// CHECK:               llvm.intr.fmuladd
// PAR-LABEL: func.func @main(
// PAR:         scf.parallel (%{{.*}}) = (%c0) to (%c256) step (%c64)
// PAR-NOT:     relax.parallel
func.func @main(%a: tensor<64x784xf32>, %b: tensor<784x256xf32>) -> tensor<64x256xf32> {
  %r = relax.dataflow -> (tensor<64x256xf32>) {
    %mm = relax.matmul %a, %b : tensor<64x784xf32>, tensor<784x256xf32> -> tensor<64x256xf32>
    relax.output %mm : tensor<64x256xf32>
  }
  return %r : tensor<64x256xf32>
}

func.func private @printMemrefF32(tensor<*xf32>)

func.func @entry() {
  %a = arith.constant dense<1.0> : tensor<64x784xf32>
  %col = tensor.empty() : tensor<784x256xf32>
  %b = linalg.generic {indexing_maps = [affine_map<(k, j) -> (k, j)>], iterator_types = ["parallel", "parallel"]}
      outs(%col : tensor<784x256xf32>) {
  ^bb0(%o: f32):
    %j = linalg.index 1 : index
    %ji = arith.index_cast %j : index to i32
    %jf = arith.sitofp %ji : i32 to f32
    %s = arith.constant 0.015625 : f32
    %v = arith.mulf %jf, %s : f32
    linalg.yield %v : f32
  } -> tensor<784x256xf32>
  %c = call @main(%a, %b) : (tensor<64x784xf32>, tensor<784x256xf32>) -> tensor<64x256xf32>
  // Row 63, columns 0, 1, 64, 255: 0, 12.25, 784, 3123.75.
  %r = tensor.extract_slice %c[63, 0] [1, 256] [1, 1] : tensor<64x256xf32> to tensor<256xf32>
  %i0 = arith.constant 0 : index
  %i1 = arith.constant 1 : index
  %i64 = arith.constant 64 : index
  %i255 = arith.constant 255 : index
  %p0 = tensor.extract %r[%i0] : tensor<256xf32>
  %p1 = tensor.extract %r[%i1] : tensor<256xf32>
  %p2 = tensor.extract %r[%i64] : tensor<256xf32>
  %p3 = tensor.extract %r[%i255] : tensor<256xf32>
  %v = tensor.from_elements %p0, %p1, %p2, %p3 : tensor<4xf32>
  %u = tensor.cast %v : tensor<4xf32> to tensor<*xf32>
  call @printMemrefF32(%u) : (tensor<*xf32>) -> ()
  return
}
// RUN-CHECK: [0,  12.25,  784,  3123.75]
