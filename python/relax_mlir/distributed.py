"""`relax_mlir.distributed`: data parallelism across the processes of an MPI job.

Start the same script on N processes (`mpirun -np N python train.py`, or a
cluster's launcher); each process trains on its own shard of every batch, and
the gradients are averaged inside the compiled step:

    import relax_mlir
    from relax_mlir import distributed

    distributed.initialize()
    params = distributed.broadcast(params)           # the same start everywhere
    step = relax_mlir.value_and_grad(loss, data_parallel="mean")
    for x, y in batches:                             # the same global batches
        loss_value, grads = step(params, *distributed.shard_batch((x, y)))

`value_and_grad(..., data_parallel="mean")` (or `grad`) compiles the adjoint
with the gradient pass's `data-parallel` option: the gradients and the loss
are packed into one buffer per element type and averaged by one
`MPI_Allreduce` each (`relax.all_reduce`, lowered through MLIR's `mpi`
dialect), so every process gets the gradient of the whole global batch.

MPI comes from mpi4py (`pip install 'relax-mlir[mpi]'`) over the system's
MPI library (Debian: `openmpi-bin libopenmpi-dev`). `initialize()` makes an
uncaught exception in any process abort the whole job with that process's
rank named (`MPI_Abort`), so the others exit instead of waiting in a
collective forever.
"""

from __future__ import annotations

import ctypes
import os
import sys
import traceback
from types import TracebackType
from typing import Any

import numpy as np

from ._pytree import tree_flatten, tree_unflatten
from .errors import call_site

__all__ = ["initialize", "is_initialized", "rank", "size", "broadcast", "shard_batch",
           "shutdown", "implementation"]

_INSTALL = ("install it with `pip install 'relax-mlir[mpi]'` (and an MPI library: on Debian, "
            "`apt install openmpi-bin libopenmpi-dev`)")

_state: dict[str, Any] = {"comm": None, "hook": None}


def _mpi() -> Any:
    """mpi4py's MPI module (importing it initializes MPI), or an ImportError
    that says what to install."""
    try:
        from mpi4py import MPI
    except ImportError as e:
        raise ImportError(f"relax_mlir.distributed needs mpi4py, which is not installed or "
                          f"cannot load its MPI library ({e}): {_INSTALL}") from None
    return MPI


def library_path() -> str:
    """The MPI library mpi4py's extension loaded into this process."""
    with open("/proc/self/maps") as maps:
        for line in maps:
            fields = line.split()
            if len(fields) >= 6 and os.path.basename(fields[-1]).startswith("libmpi.so"):
                return fields[-1]
    raise ImportError(f"relax_mlir.distributed: mpi4py is loaded but no libmpi.so is mapped "
                      f"in this process: {_INSTALL}")


def implementation() -> str:
    """The MPI library in use, as the compiler names it: "OpenMPI" or
    "MPICH" (the handles that compiled MPI calls use differ)."""
    version = _mpi().Get_library_version()
    if "Open MPI" in version:
        return "OpenMPI"
    if "MPICH" in version:
        return "MPICH"
    first = version.splitlines()[0] if version else "unknown"
    raise RuntimeError(f"relax_mlir.distributed: unsupported MPI library ({first}): compiled "
                       f"collectives support Open MPI and MPICH")


def _abort_on_exception(kind: type[BaseException], value: BaseException,
                        tb: TracebackType | None) -> None:
    """sys.excepthook: print the exception with this process's rank, then
    end the whole job (the other processes would wait in a collective)."""
    comm = _state["comm"]
    rank_text = f"rank {comm.Get_rank()} of {comm.Get_size()}" if comm is not None else "a rank"
    sys.stderr.write(f"relax_mlir.distributed: {rank_text} raised an uncaught exception; "
                     f"aborting the MPI job\n")
    traceback.print_exception(kind, value, tb)
    sys.stderr.flush()
    if comm is not None and not _mpi().Is_finalized():
        comm.Abort(1)


def initialize() -> None:
    """Initializes MPI (through mpi4py; a no-op when already done), makes
    its library's symbols visible to compiled code, and installs the hook
    that aborts the job, naming the rank, when a process raises."""
    if _state["comm"] is not None:
        return
    mpi = _mpi()
    if mpi.Is_finalized():
        raise RuntimeError(f"{call_site()}: relax_mlir.distributed.initialize: MPI was already "
                           "finalized in "
                           "this process (shutdown() was called); it cannot start again")
    if not mpi.Is_initialized():
        mpi.Init()
    # Compiled code (the JIT, cached and exported libraries) calls MPI
    # directly: the library's symbols must be global in the process.
    ctypes.CDLL(library_path(), mode=ctypes.RTLD_GLOBAL)
    _state["comm"] = mpi.COMM_WORLD
    _state["hook"] = sys.excepthook
    sys.excepthook = _abort_on_exception


def is_initialized() -> bool:
    return _state["comm"] is not None


def _comm() -> Any:
    if _state["comm"] is None:
        raise RuntimeError(f"{call_site()}: relax_mlir.distributed is not initialized: call "
                           "relax_mlir.distributed.initialize() first")
    return _state["comm"]


def rank() -> int:
    """This process's index in the job, 0 to size() - 1."""
    return int(_comm().Get_rank())


def size() -> int:
    """The number of processes in the job."""
    return int(_comm().Get_size())


def broadcast(tree: Any, root: int = 0) -> Any:
    """`tree` as process `root` has it, on every process (each leaf an
    array of the same shape and dtype everywhere, e.g. freshly initialized
    parameters): one MPI_Bcast per leaf."""
    comm = _comm()
    if not isinstance(root, int) or not 0 <= root < comm.Get_size():
        raise ValueError(f"{call_site()}: broadcast: root must be a rank from 0 to "
                         f"{comm.Get_size() - 1}, got {root!r}")
    leaves, paths, treedef = tree_flatten(tree)
    out = []
    for path, leaf in zip(paths, leaves):
        array = np.ascontiguousarray(np.asarray(leaf))
        described = comm.bcast((array.shape, array.dtype.str), root=root)
        if described != (array.shape, array.dtype.str):
            raise ValueError(f"{call_site()}: broadcast: {path or 'the value'} is {array.dtype}"
                             f"{list(array.shape)} on rank "
                             f"{comm.Get_rank()} but {np.dtype(described[1])}"
                             f"{list(described[0])} on the root {root}: every rank must pass "
                             f"the same structure")
        array = array.copy()
        comm.Bcast(array, root=root)
        out.append(array)
    return tree_unflatten(treedef, iter(out))


def shard_batch(tree: Any) -> Any:
    """This process's slice of a global batch: every leaf split into size()
    equal parts along its first axis, part rank() kept. The batch size must
    be a multiple of size(), so that the mean of the processes' mean losses
    is the global batch's mean."""
    n, r = size(), rank()
    leaves, paths, treedef = tree_flatten(tree)
    out = []
    for path, leaf in zip(paths, leaves):
        array = np.asarray(leaf)
        if array.ndim == 0 or array.shape[0] % n:
            raise ValueError(f"{call_site()}: shard_batch: {path or 'the value'} has shape "
                             f"{array.shape}; its first axis must be a multiple of the {n} "
                             f"processes (pad or drop the rest of the batch)")
        part = array.shape[0] // n
        out.append(array[r * part:(r + 1) * part])
    return tree_unflatten(treedef, iter(out))


def shutdown() -> None:
    """Finalizes MPI (after every process got here) and restores the
    exception hook. Compiled data-parallel functions cannot run afterwards."""
    if _state["comm"] is None:
        return
    mpi = _mpi()
    _state["comm"].Barrier()
    sys.excepthook = _state["hook"]
    _state["comm"] = None
    if not mpi.Is_finalized():
        mpi.Finalize()
