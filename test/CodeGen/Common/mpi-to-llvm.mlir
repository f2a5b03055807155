// relax-mpi-to-llvm: upstream's mpi ops to LLVM calls of the MPI library
// named in the module's DLTI entry (set from the option where the module has
// none), with OpenMPI's reduction handle named as libmpi exports it
// (ompi_mpi_op_sum; MLIR 22.1 declares ompi_mpi_sum, which does not link).
// RUN: relax-opt %s --split-input-file --relax-mpi-to-llvm | FileCheck %s
// RUN: relax-opt %s --split-input-file --relax-mpi-to-llvm="implementation=MPICH" | FileCheck %s --check-prefix=MPICH
// RUN: not relax-opt %s --split-input-file --relax-mpi-to-llvm="implementation=LAM" 2>&1 | FileCheck %s --check-prefix=BAD

// CHECK: module attributes {dlti.map = #dlti.map<"MPI:Implementation" = "OpenMPI">}
// CHECK-DAG: llvm.func @MPI_Allreduce(!llvm.ptr, !llvm.ptr, i32, !llvm.ptr, !llvm.ptr, !llvm.ptr) -> i32
// CHECK-DAG: llvm.mlir.global external @ompi_mpi_op_sum()
// CHECK-DAG: llvm.mlir.global external @ompi_mpi_comm_world()
// CHECK-NOT: @ompi_mpi_sum
// CHECK-LABEL: func.func @f(
// CHECK:         llvm.mlir.addressof @ompi_mpi_op_sum
// CHECK:         llvm.call @MPI_Allreduce
// CHECK-NOT:     MPI_Comm_split
// MPICH: module attributes {dlti.map = #dlti.map<"MPI:Implementation" = "MPICH">}
// MPICH-NOT: ompi_
// MPICH: llvm.call @MPI_Allreduce
// BAD: relax-mpi-to-llvm: implementation must be OpenMPI or MPICH, got 'LAM'
func.func @f(%a: memref<10xf32>, %b: memref<10xf32>) {
  %c = mpi.comm_world : !mpi.comm
  mpi.allreduce(%a, %b, MPI_SUM, %c) : memref<10xf32>, memref<10xf32>
  return
}

// -----

// A module without mpi ops is left as it is (no DLTI entry).
// CHECK-NOT: dlti.map
// CHECK-LABEL: func.func @g(
func.func @g(%a: memref<10xf32>) {
  return
}

// -----

// relax.all_reduce's calls become mpi.allreduce on the world communicator
// (then MPI_Allreduce); their declaration goes.
// CHECK-NOT: __relax_mpi_allreduce_sum
// CHECK-LABEL: func.func @h(
// CHECK:         llvm.mlir.addressof @ompi_mpi_comm_world
// CHECK:         llvm.mlir.addressof @ompi_mpi_double
// CHECK:         llvm.call @MPI_Allreduce
func.func private @__relax_mpi_allreduce_sum_f64(memref<?xf64, strided<[1], offset: ?>>, memref<?xf64, strided<[1], offset: ?>>)
func.func @h(%a: memref<?xf64, strided<[1], offset: ?>>, %b: memref<?xf64, strided<[1], offset: ?>>) {
  call @__relax_mpi_allreduce_sum_f64(%a, %b) : (memref<?xf64, strided<[1], offset: ?>>, memref<?xf64, strided<[1], offset: ?>>) -> ()
  return
}
