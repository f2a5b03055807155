//===- CollectiveOps.td - relax collectives across processes -*- tablegen -*-===//
//
// Communication between the processes of an SPMD job (every process runs the
// same function on its own data, as under `mpirun`): lowered to MPI calls on
// the world communicator through upstream's `mpi` dialect.
//
//===----------------------------------------------------------------------===//

#ifndef RELAX_COLLECTIVE_OPS_TD
#define RELAX_COLLECTIVE_OPS_TD

def Relax_AllReduceOp : Relax_Op<"all_reduce", [
    MemoryEffects<[MemRead, MemWrite]>, SameOperandsAndResultType,
    Relax_LinearDifferentiable, Relax_Batchable]> {
  let summary = "Elementwise sum of a tensor over every process (MPI_Allreduce)";
  let description = [{
    Every process of the job calls it with a tensor of the same type, and
    each gets the elementwise sum of all of them; with one process it is the
    identity. It is linear: its derivatives, in both modes, are all-reduces
    of the tangent or cotangent. The gradient pass's `data-parallel` option
    emits it, over the gradients packed into one buffer per element type.

    Lowered to `mpi.allreduce` (MPI_SUM) on `mpi.comm_world`: one
    communicator for the process's life, never split, in calls of at most
    2^31 - 1 elements (MPI's counts are `int`). The process must have
    initialized MPI (`relax_mlir.distributed.initialize()`). Its side effect
    keeps it in place and in order: every process must reach the same
    all-reduces in the same order. CPU only.

    ```mlir
    %s = relax.all_reduce %g : tensor<1024xf32>
    ```
  }];
  let arguments = (ins Relax_TensorOf<[F32, F64, I32, I64]>:$x);
  let results = (outs Relax_TensorOf<[F32, F64, I32, I64]>:$result);
  let assemblyFormat = "$x attr-dict `:` type($result)";
}

#endif // RELAX_COLLECTIVE_OPS_TD
