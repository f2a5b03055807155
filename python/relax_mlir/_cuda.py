"""Running compiled functions on an NVIDIA GPU: the project's CUDA runtime
(`librelax_cuda_runtime.so`, the mgpu* entry points over the driver API,
loaded without CUDA) and the call boundary for device memory.

A compiled function's arguments and results are device buffers (its host code
allocates temporaries with mgpuMemAlloc and launches kernels); a call copies
the numpy arguments in, runs, and copies the results out.
"""

from __future__ import annotations

import ctypes
import os
from collections.abc import Sequence
from typing import Any

import numpy as np

from .errors import RelaxMLIRError

RUNTIME_PATH = os.path.join(os.path.dirname(os.path.abspath(__file__)), "_mlir_libs",
                            "librelax_cuda_runtime.so")


class CUDAError(RelaxMLIRError):
    """No usable CUDA driver or device, or a CUDA call failed (see `diagnostics`)."""


class CudaRuntime:
    """The CUDA runtime entry points of a loaded library: the package's
    `librelax_cuda_runtime.so`, or a library written by `Executable.export`
    for target="cuda" (it links the same runtime, with state of its own)."""

    def __init__(self, lib: ctypes.CDLL) -> None:
        lib.relaxCudaStatus.argtypes = [ctypes.c_char_p, ctypes.c_size_t]
        lib.relaxCudaTakeError.argtypes = [ctypes.c_char_p, ctypes.c_size_t]
        lib.relaxCudaCopyToDevice.argtypes = [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_size_t]
        lib.relaxCudaCopyToHost.argtypes = [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_size_t]
        lib.mgpuMemAlloc.argtypes = [ctypes.c_uint64, ctypes.c_void_p, ctypes.c_bool]
        lib.mgpuMemAlloc.restype = ctypes.c_void_p
        lib.mgpuMemFree.argtypes = [ctypes.c_void_p, ctypes.c_void_p]
        self.lib = lib

    def driver_status(self) -> str | None:
        """None when a CUDA driver and device are usable, else why not."""
        buffer = ctypes.create_string_buffer(1024)
        if self.lib.relaxCudaStatus(buffer, len(buffer)) == 0:
            return None
        return buffer.value.decode(errors="replace")

    def require_driver(self) -> None:
        why = self.driver_status()
        if why is not None:
            raise CUDAError("no CUDA driver found" if why.startswith("no CUDA driver") else
                            "CUDA is not usable", why)

    def check(self, what: str) -> None:
        """Raises the first CUDA error since the last check, if any."""
        buffer = ctypes.create_string_buffer(2048)
        if self.lib.relaxCudaTakeError(buffer, len(buffer)):
            raise CUDAError(what, buffer.value.decode(errors="replace"))

    def alloc(self, nbytes: int) -> int:
        pointer = self.lib.mgpuMemAlloc(max(nbytes, 1), None, False)
        self.check("allocating device memory")
        return int(pointer)

    def free(self, pointer: int) -> None:
        self.lib.mgpuMemFree(pointer, None)
        self.check("freeing device memory")

    def copy_to_device(self, pointer: int, array: np.ndarray) -> None:
        self.lib.relaxCudaCopyToDevice(pointer, array.ctypes.data, array.nbytes)
        self.check("copying an argument to the device")

    def copy_to_host(self, out: np.ndarray, pointer: int) -> None:
        self.lib.relaxCudaCopyToHost(out.ctypes.data, pointer, out.nbytes)
        self.check("copying a result from the device")


_RUNTIME: CudaRuntime | None = None


def runtime() -> CudaRuntime:
    """The package's runtime library, loaded once; it loads without CUDA."""
    global _RUNTIME
    if _RUNTIME is None:
        _RUNTIME = CudaRuntime(ctypes.CDLL(RUNTIME_PATH))
    return _RUNTIME


def toolkit_ptxas() -> str | None:
    """CUDA's ptxas in the toolkit that `relax-to-nvvm` uses when given none
    (the same order: $CUDA_ROOT, $CUDA_HOME, $CUDA_PATH, else /usr/local/cuda),
    or None: then the pipeline can emit PTX only (`isa`)."""
    toolkit = next((os.environ[n] for n in ("CUDA_ROOT", "CUDA_HOME", "CUDA_PATH")
                    if os.environ.get(n)), "/usr/local/cuda")
    ptxas = os.path.join(toolkit, "bin", "ptxas")
    return ptxas if os.path.exists(ptxas) else None


def driver_status() -> str | None:
    return runtime().driver_status()


def require_driver() -> None:
    runtime().require_driver()


def check(what: str) -> None:
    runtime().check(what)


def descriptor(pointer: int, shape: Sequence[int]) -> ctypes.Structure:
    """A ranked memref descriptor (allocated, aligned, offset, sizes, strides)
    of a contiguous buffer at `pointer` (host or device)."""
    rank = len(shape)
    fields: list[tuple[str, Any]] = [("allocated", ctypes.c_void_p), ("aligned", ctypes.c_void_p),
                                     ("offset", ctypes.c_int64)]
    if rank:
        fields += [("sizes", ctypes.c_int64 * rank), ("strides", ctypes.c_int64 * rank)]
    struct = type(f"MemRef{rank}D", (ctypes.Structure,), {"_fields_": fields})()
    struct.allocated = struct.aligned = pointer
    struct.offset = 0
    if rank:
        strides = np.cumprod((list(shape[1:]) + [1])[::-1])[::-1]
        struct.sizes[:] = list(shape)
        struct.strides[:] = [int(s) for s in strides]
    return struct


def call_with_descriptors(address: int, pointers: Sequence[int],
                          shapes: Sequence[Sequence[int]]) -> None:
    """Calls the packed interface at `address` (the ExecutionEngine's
    `void f(void **args)` wrapper of `_mlir_ciface_<f>`: each argument a
    pointer to a pointer to a memref descriptor) with one descriptor per
    buffer: the inputs, then the out-parameters."""
    descs = [descriptor(p, s) for p, s in zip(pointers, shapes)]
    desc_pointers = (ctypes.c_void_p * len(descs))(*[ctypes.addressof(d) for d in descs])
    packed = (ctypes.c_void_p * len(descs))(
        *[ctypes.addressof(desc_pointers) + i * ctypes.sizeof(ctypes.c_void_p)
          for i in range(len(descs))])
    ctypes.CFUNCTYPE(None, ctypes.c_void_p)(address)(ctypes.addressof(packed))


class DeviceBuffers:
    """Device buffers for one call, freed together."""

    def __init__(self, cuda: CudaRuntime | None = None) -> None:
        self.cuda = cuda or runtime()
        self.pointers: list[int] = []

    def alloc(self, nbytes: int) -> int:
        pointer = self.cuda.alloc(nbytes)
        self.pointers.append(pointer)
        return pointer

    def upload(self, array: np.ndarray) -> int:
        pointer = self.alloc(array.nbytes)
        self.cuda.copy_to_device(pointer, array)
        return pointer

    def download(self, pointer: int, out: np.ndarray) -> None:
        self.cuda.copy_to_host(out, pointer)

    def free(self) -> None:
        pointers, self.pointers = self.pointers, []
        for pointer in pointers:
            self.cuda.lib.mgpuMemFree(pointer, None)
        self.cuda.check("freeing device memory")
