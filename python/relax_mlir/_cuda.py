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
import threading
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from ._boundary import NUMPY_DTYPES, CallBoundary, TensorSpec
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
        self._local = threading.local()
        # DLPack's (device type, id) of the buffers: CUDA, the runtime's device 0.
        self.dlpack_device = (2, 0)

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
        buffer = getattr(self._local, "error", None)
        if buffer is None:  # one per thread: ctypes calls release the GIL
            buffer = self._local.error = ctypes.create_string_buffer(2048)
        if self.lib.relaxCudaTakeError(buffer, len(buffer)):
            raise CUDAError(what, buffer.value.decode(errors="replace"))

    def alloc(self, nbytes: int) -> int:
        pointer = self.lib.mgpuMemAlloc(max(nbytes, 1), None, False)
        if not pointer:  # the runtime recorded why
            self.check("allocating device memory")
        return int(pointer)

    def free(self, pointer: int) -> None:
        self.lib.mgpuMemFree(pointer, None)
        self.check("freeing device memory")

    def release(self, pointer: int) -> None:
        """Frees device memory, never raising (for finalizers)."""
        try:
            self.lib.mgpuMemFree(pointer, None)
        except Exception:  # noqa: BLE001 (interpreter shutdown: the driver frees it)
            pass

    def synchronize(self) -> None:
        """Waits for all work on the device (other libraries' streams too)."""
        self.lib.relaxCudaSynchronize()
        self.check("waiting for the device")

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


class DeviceArray:
    """A tensor in GPU memory: the argument or result of a CUDA function that
    stays on the device. `numpy()` (or `np.asarray`) copies it to the host;
    DLPack (`torch.from_dlpack(a)`, `jax.dlpack.from_dlpack(a)`,
    `cupy.from_dlpack(a)`) and `__cuda_array_interface__` hand it to other
    libraries without a copy. Its memory is freed with the last reference
    (the consumer's included; for a view of another library's array, that
    array's memory is kept alive as long as the view)."""

    def __init__(self, cuda: CudaRuntime, pointer: int, shape: tuple[int, ...],
                 dtype: Any, owned: bool, source: Any = None) -> None:
        self._cuda = cuda
        self.pointer = int(pointer)
        self.shape = tuple(int(d) for d in shape)
        self.dtype = np.dtype(dtype)
        self._owned = owned
        self._source = source  # keeps a borrowed buffer alive

    @property
    def ndim(self) -> int:
        """The number of dimensions."""
        return len(self.shape)

    @property
    def size(self) -> int:
        """The number of elements."""
        return int(np.prod(self.shape, dtype=np.int64))

    @property
    def nbytes(self) -> int:
        """Bytes of device memory the elements take."""
        return self.size * self.dtype.itemsize

    def __repr__(self) -> str:
        return f"<relax_mlir.runtime.DeviceArray shape={self.shape} dtype={self.dtype.name}>"

    def numpy(self) -> np.ndarray:
        """A copy in host memory."""
        out = np.empty(self.shape, self.dtype)
        if out.nbytes:
            self._cuda.copy_to_host(out, self.pointer)
        return out

    def __array__(self, dtype: Any = None, copy: Any = None) -> np.ndarray:
        out = self.numpy()
        return out if dtype is None else out.astype(dtype)

    @property
    def __cuda_array_interface__(self) -> dict[str, Any]:
        return {"shape": self.shape, "typestr": self.dtype.str, "data": (self.pointer, False),
                "strides": None, "version": 3}

    def __dlpack__(self, stream: Any = None, max_version: Any = None, dl_device: Any = None,
                   copy: Any = None) -> Any:
        """A DLPack capsule of this array (no copy): `torch.from_dlpack(a)`,
        `jax.dlpack.from_dlpack(a)`, `cupy.from_dlpack(a)`. The array's
        memory stays alive until the consumer releases it. Its work is done
        when a function returns (calls are synchronous), so any stream may
        read it."""
        if copy:
            raise BufferError("DeviceArray.__dlpack__ does not copy; use .numpy()")
        from . import _dlpack

        return _dlpack.export(self, self.pointer, self.shape, self.dtype,
                              self._cuda.dlpack_device)

    def __dlpack_device__(self) -> tuple[int, int]:
        return self._cuda.dlpack_device

    @classmethod
    def from_host(cls, cuda: CudaRuntime, array: Any) -> DeviceArray:
        """A copy of `array` (numpy, or anything np.asarray takes) in device memory."""
        host = np.ascontiguousarray(array)
        if host.dtype.byteorder == ">":
            host = host.astype(host.dtype.newbyteorder("="))
        result = cls(cuda, cuda.alloc(host.nbytes), host.shape, host.dtype, owned=True)
        if host.nbytes:
            cuda.copy_to_device(result.pointer, host)
        return result

    def __del__(self) -> None:
        if getattr(self, "_owned", False) and self.pointer:
            self._cuda.release(self.pointer)
            self.pointer = 0


def _device_view(cuda: CudaRuntime, value: Any, where: str, spec: TensorSpec) -> DeviceArray:
    """`value`, a GPU array (a DeviceArray, or another library's through
    `__cuda_array_interface__`), checked against the parameter `spec`."""
    dtype = np.dtype(NUMPY_DTYPES[spec.element])
    if hasattr(value, "__cuda_array_interface__"):
        info = value.__cuda_array_interface__
        pointer, shape, got = info["data"][0], tuple(info["shape"]), np.dtype(info["typestr"])
        strides = info.get("strides")
    else:
        from . import _dlpack

        borrowed = _dlpack.Borrowed(value)
        pointer, shape, got = borrowed.pointer, borrowed.shape, borrowed.dtype
        strides = (None if borrowed.strides is None else
                   tuple(s * got.itemsize for s in borrowed.strides))
        value = borrowed  # keeps the producer's memory alive
    if got != dtype:
        raise TypeError(f"argument {where}: expected dtype {dtype.name} for {spec}, got a "
                        f"device array of {got.name}")
    if shape != spec.shape:
        raise ValueError(f"argument {where}: expected shape {spec.shape} for {spec}, got "
                         f"a device array of shape {shape}")
    if strides is not None:
        expected = np.cumprod((list(shape[1:]) + [1])[::-1])[::-1] * dtype.itemsize
        if any(n > 1 and s != e for n, s, e in zip(shape, strides, expected)):
            raise ValueError(f"argument {where}: the device array is not C-contiguous; "
                             f"make a contiguous copy first (.contiguous() / "
                             f"cupy.ascontiguousarray)")
    if isinstance(value, DeviceArray) and value._cuda is not cuda:
        raise ValueError(f"argument {where}: the DeviceArray belongs to another library or "
                         f"executable (each has its own CUDA runtime); pass "
                         f"it through numpy, or create it with this one's to_device")
    return DeviceArray(cuda, pointer, shape, dtype, owned=False, source=value)


def _on_device(cuda: CudaRuntime, value: Any) -> bool:
    """Whether `value` is an array in `cuda`'s device memory: a DeviceArray,
    an array with `__cuda_array_interface__`, or a DLPack producer on the
    device (numpy arrays are host memory)."""
    if isinstance(value, (np.ndarray, np.generic)):
        return False
    if hasattr(value, "__cuda_array_interface__"):
        return True
    if hasattr(value, "__dlpack__") and hasattr(value, "__dlpack_device__"):
        try:
            return tuple(value.__dlpack_device__())[0] == cuda.dlpack_device[0]
        except Exception:  # noqa: BLE001 (not a usable producer: numpy's path explains)
            return False
    return False


def call_on_device(cuda: CudaRuntime, boundary: CallBoundary, leaves: Sequence[Any],
                   invoke: Callable[[list[int]], None]) -> Any:
    """Calls a compiled function whose buffers are device memory: numpy
    arguments are copied in, device arrays (DeviceArray, or any with
    `__cuda_array_interface__` or DLPack) passed as they are; `invoke` runs the
    function on the device pointers (inputs, then results). The results are
    DeviceArrays when any argument was on the device, else numpy arrays."""
    inputs: list[DeviceArray] = []
    on_device = False
    foreign = False
    for (where, spec), value in zip(boundary._in_leaves, leaves):
        if type(value) is DeviceArray and value._cuda is cuda and value.shape == spec.shape \
                and value.dtype == NUMPY_DTYPES[spec.element]:
            on_device = True  # this runtime's own array, as the parameter is
            inputs.append(value)
        elif _on_device(cuda, value):
            on_device = True
            foreign = foreign or not isinstance(value, DeviceArray)
            inputs.append(_device_view(cuda, value, f"'{where}' of {boundary.name}", spec))
        else:
            inputs.append(DeviceArray.from_host(cuda, boundary._prepare(where, spec, value)))
    if foreign:
        # Another library's arrays may still be written by its own stream.
        cuda.synchronize()
    outputs = [DeviceArray(cuda, cuda.alloc(nbytes), shape, dtype, owned=True)
               for (shape, dtype), nbytes in zip(boundary._out_leaves, boundary._out_bytes)]
    invoke([a.pointer for a in inputs] + [o.pointer for o in outputs])
    cuda.check(f"running {boundary.name} on the GPU")
    if on_device:
        return boundary._result_value(outputs)
    return boundary._result_value([o.numpy() for o in outputs])


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
