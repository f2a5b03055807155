// relax.all_reduce: a contiguous flat copy sent, MPI_SUM into a new buffer,
// through calls of a private declaration per element type that the CPU
// pipeline's relax-mpi-to-llvm makes mpi.allreduce on the world communicator
// after buffer deallocation (which refuses mpi ops); more than 2^31 - 1
// elements go in several calls (MPI's counts are int).
// RUN: relax-opt %s --split-input-file --convert-relax-to-linalg | FileCheck %s

// CHECK: func.func private @__relax_mpi_allreduce_sum_f32(memref<?xf32, strided<[1], offset: ?>>, memref<?xf32, strided<[1], offset: ?>>)
// CHECK-LABEL: func.func @small(
// CHECK:         %[[COPY:.*]] = linalg.copy
// CHECK:         %[[FLAT:.*]] = tensor.collapse_shape %[[COPY]] {{\[\[}}0, 1]] : tensor<2x3xf32> into tensor<6xf32>
// CHECK:         %[[SEND:.*]] = bufferization.to_buffer %[[FLAT]] read_only
// CHECK:         %[[RECV:.*]] = memref.alloc() : memref<6xf32>
// CHECK:         %[[S:.*]] = memref.cast %[[SEND]]
// CHECK:         %[[R:.*]] = memref.cast %[[RECV]]
// CHECK:         call @__relax_mpi_allreduce_sum_f32(%[[S]], %[[R]])
// CHECK:         %[[OUT:.*]] = bufferization.to_tensor %[[RECV]] restrict writable
// CHECK:         tensor.expand_shape %[[OUT]] {{\[\[}}0, 1]]
func.func @small(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %r = relax.all_reduce %x : tensor<2x3xf32>
  return %r : tensor<2x3xf32>
}

// -----

// 2^31 + 9 elements: a call of 2^31 - 1, then one of the 10 left.
// CHECK-LABEL: func.func @huge(
// CHECK:         memref.subview %{{.*}}[0] [2147483647] [1]
// CHECK:         call @__relax_mpi_allreduce_sum_f64(
// CHECK:         memref.subview %{{.*}}[2147483647] [10] [1]
// CHECK:         call @__relax_mpi_allreduce_sum_f64(
// CHECK-NOT:     call @__relax_mpi_allreduce_sum_f64(
func.func @huge(%x: tensor<2147483657xf64>) -> tensor<2147483657xf64> {
  %r = relax.all_reduce %x : tensor<2147483657xf64>
  return %r : tensor<2147483657xf64>
}

// -----

// A rank-0 tensor: expanded to one element and collapsed back, with no
// reassociation group (a fuzzer found [[]], which the verifier rejects).
// CHECK-LABEL: func.func @scalar(
// CHECK:         %[[COPY:.*]] = linalg.copy
// CHECK:         %[[FLAT:.*]] = tensor.expand_shape %[[COPY]] [] output_shape [1] : tensor<f64> into tensor<1xf64>
// CHECK:         call @__relax_mpi_allreduce_sum_f64(
// CHECK:         %[[OUT:.*]] = bufferization.to_tensor
// CHECK:         tensor.collapse_shape %[[OUT]] [] : tensor<1xf64> into tensor<f64>
func.func @scalar(%x: tensor<f64>) -> tensor<f64> {
  %r = relax.all_reduce %x : tensor<f64>
  return %r : tensor<f64>
}
