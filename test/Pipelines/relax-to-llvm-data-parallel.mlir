// A data-parallel adjoint through the whole CPU pipeline: one MPI_Allreduce
// call per fused gradient buffer (two element types: two calls), on the
// world communicator, never MPI_Comm_split (upstream's shard lowering splits
// a communicator per call and never frees it).
// RUN: relax-opt %s --gradient="func=main data-parallel=mean" --relax-to-llvm | FileCheck %s
// RUN: relax-opt %s --gradient="func=main data-parallel=mean" --relax-to-llvm | mlir-translate --mlir-to-llvmir | FileCheck %s --check-prefix=IR

// CHECK-NOT: MPI_Comm_split
// CHECK-COUNT-2: llvm.call @MPI_Allreduce
// CHECK-NOT: llvm.call @MPI_Allreduce
// IR-DAG: @ompi_mpi_comm_world = external global
// IR-DAG: @ompi_mpi_op_sum = external global
// IR-DAG: @ompi_mpi_float = external global
// IR-DAG: @ompi_mpi_double = external global
// IR-DAG: declare i32 @MPI_Allreduce(ptr, ptr, i32, ptr, ptr, ptr)
func.func @main(%w: tensor<3x2xf32>, %x: tensor<4x3xf32>, %v: tensor<4xf64>) -> tensor<f32> {
  %r = relax.dataflow -> (tensor<f32>) {
    %y = relax.matmul %x, %w : tensor<4x3xf32>, tensor<3x2xf32> -> tensor<4x2xf32>
    %t = relax.tanh %y : tensor<4x2xf32>
    %s = relax.sum %t : tensor<4x2xf32> -> tensor<f32>
    %vs = relax.sum %v : tensor<4xf64> -> tensor<f64>
    %v32 = relax.astype %vs : tensor<f64> -> tensor<f32>
    %l = relax.multiply %s, %v32 : tensor<f32>, tensor<f32> -> tensor<f32>
    relax.output %l : tensor<f32>
  }
  return %r : tensor<f32>
}
