"""`relax_mlir.runtime`: load and call libraries written by `Executable.export`.

Pure Python (ctypes and numpy): it runs on machines without LLVM/MLIR and
without the package's compiled extension, e.g. a GPU machine that only
receives exported files. Importing it loads nothing else of relax_mlir.

    lib = relax_mlir.runtime.load("mlp.so")
    loss, grads = lib.main_adjoint(x, w1, b1, w2, b2, y)

Functions take numpy arrays (tuples for tuple parameters), positionally or by
parameter name, and return numpy arrays, as `compile()`'s do. A library built
for target="cuda" also takes and returns `DeviceArray`s: arrays that stay on
the GPU between calls (`lib.to_device(array)`); results are DeviceArrays when
any argument is on the device. Device arrays of other libraries pass without
copies through `__cuda_array_interface__` (CuPy, PyTorch, Numba, JAX) in both
directions.
"""

from __future__ import annotations

import ctypes
import json
import os
from typing import Any

import numpy as np

from ._boundary import NUMPY_DTYPES, CallBoundary, TypeSpec, leaf_specs, spec_from_json
from ._cuda import CUDAError, CudaRuntime, DeviceArray, call_on_device
from .errors import RelaxMLIRError

__all__ = ["load", "copy_loader", "Library", "Function", "DeviceArray", "FORMAT", "LoadError",
           "CUDAError"]

# The exported metadata's layout version; `load` refuses other versions.
FORMAT = 1
# Exported constant C strings: the metadata (JSON) and "<cpu> <features>".
METADATA_SYMBOL = "relax_mlir_export_metadata"
TARGET_SYMBOL = METADATA_SYMBOL + "_target"

# Large results' alignment (see POOL_RESULT_BYTES), also without a pool.
_ALIGNMENT = 64


class LoadError(RelaxMLIRError):
    """The file is not a loadable relax_mlir export (see `diagnostics`)."""


def load(path: str | os.PathLike[str]) -> Library:
    """Loads a library written by `Executable.export`.

    Raises `LoadError` when the file is missing, is not such a library, was
    written by an incompatible version, or needs CPU features this machine
    lacks; for target="cuda", `CUDAError` when no usable driver or device
    is present or the kernels do not load."""
    return Library(os.fspath(path))


# The package's modules that this loader imports: all pure Python.
LOADER_MODULES = ("__init__.py", "_libs.py", "_boundary.py", "_cuda.py", "_dlpack.py", "errors.py",
                  "runtime.py")


def copy_loader(directory: str | os.PathLike[str]) -> str:
    """Copies this loader (a `relax_mlir` folder of pure-Python modules) into
    `directory`, for machines without relax_mlir installed: with `directory`
    on `sys.path` (or PYTHONPATH), `import relax_mlir.runtime` works there
    with only numpy. Returns the package folder's path."""
    import shutil

    package = os.path.join(os.fspath(directory), "relax_mlir")
    os.makedirs(package, exist_ok=True)
    here = os.path.dirname(os.path.abspath(__file__))
    for name in LOADER_MODULES:
        shutil.copyfile(os.path.join(here, name), os.path.join(package, name))
    return package


def _read_string(lib: ctypes.CDLL, symbol: str) -> str | None:
    try:
        address = ctypes.addressof(ctypes.c_char.in_dll(lib, symbol))
    except ValueError:
        return None
    return ctypes.string_at(address).decode()


# x86 features (LLVM's names) that compiled code commonly needs, and their
# names in /proc/cpuinfo: a library built for a newer CPU fails to load with
# the missing ones named, instead of dying on an illegal instruction.
_X86_FLAGS = {"avx": "avx", "avx2": "avx2", "fma": "fma", "f16c": "f16c", "bmi2": "bmi2",
              "avx512f": "avx512f", "avx512bw": "avx512bw", "avx512dq": "avx512dq",
              "avx512vl": "avx512vl", "avx512cd": "avx512cd", "avx512vnni": "avx512_vnni",
              "avx512bf16": "avx512_bf16", "avx512fp16": "avx512_fp16"}


def _cpu_flags() -> list[str] | None:
    try:
        with open("/proc/cpuinfo") as f:
            return next((line.split(":", 1)[1].split() for line in f
                         if line.startswith("flags")), None)
    except OSError:
        return None


def _missing_cpu_features(features: str, flags: list[str] | None) -> list[str]:
    """The features in `features` (LLVM's "+name,-name" list) that `flags`
    (/proc/cpuinfo's) lack, among those `_X86_FLAGS` knows."""
    if flags is None:
        return []
    have = set(flags)
    needed = [f[1:] for f in features.split(",") if f.startswith("+")]
    return [f for f in needed if f in _X86_FLAGS and _X86_FLAGS[f] not in have]


class Library:
    """A loaded export: its functions by name (`lib["name"]`, `lib.name`),
    `target` ("cpu" or "cuda"), `chip`, and `metadata` (what export wrote)."""

    def __init__(self, path: str) -> None:
        if not os.path.exists(path):
            raise LoadError(f"cannot load {path}", "no such file")
        try:
            lib = ctypes.CDLL(os.path.abspath(path))
        except OSError as e:
            raise LoadError(f"cannot load {path}", str(e)) from None
        text = _read_string(lib, METADATA_SYMBOL)
        if text is None:
            raise LoadError(f"cannot load {path}", "it is a shared library but not one written "
                            "by relax_mlir's Executable.export (no export metadata)")
        metadata = json.loads(text)
        if metadata.get("format") != FORMAT:
            raise LoadError(f"cannot load {path}",
                            f"export format {metadata.get('format')!r}, this loader reads "
                            f"format {FORMAT}: export it again with this version of relax_mlir")
        built_for = (_read_string(lib, TARGET_SYMBOL) or "").split(" ", 1)
        self.cpu = built_for[0]
        missing = _missing_cpu_features(built_for[1] if len(built_for) > 1 else "",
                                        _cpu_flags())
        if missing:
            raise LoadError(f"cannot run {path} on this CPU",
                            f"it was built for {self.cpu} and uses {', '.join(missing)}, "
                            f"which this CPU lacks: export it with cpu='x86-64-v3' (or the "
                            f"target machine's CPU name)")
        self.path = path
        self.metadata = metadata
        self.target: str = metadata["target"]
        self.chip: str | None = metadata.get("chip")
        self._lib = lib
        # Pooled result arrays (libraries exported before these symbols
        # existed get plain aligned numpy arrays).
        self._pool_result: Any = getattr(lib, "relaxPoolResult", None)
        self._pool_release: Any = getattr(lib, "relaxPoolRelease", None)
        if self._pool_result is not None and self._pool_release is not None:
            self._pool_result.argtypes = [ctypes.c_uint64]
            self._pool_result.restype = ctypes.c_void_p
            self._pool_release.argtypes = [ctypes.c_void_p]
            self._pool_release.restype = None
        else:
            self._pool_result = None
        # Calls through relaxCall, which turns a failed allocation into an
        # error code (MemoryError here) instead of ending the process
        # (libraries exported before it call the C interfaces directly).
        self._relax_call: Any = getattr(lib, "relaxCall", None)
        if self._relax_call is not None:
            self._relax_call.argtypes = [ctypes.c_void_p, ctypes.c_void_p]
            self._relax_call.restype = ctypes.c_uint64
        self.cuda: CudaRuntime | None = None
        if self.target == "cuda":
            self.cuda = CudaRuntime(lib)
            self.cuda.require_driver()
            # The kernels were loaded when the library was (its constructor).
            self.cuda.check(f"loading the GPU kernels of {path}")
        self._functions = {
            name: Function(self, name, [(p, spec_from_json(s)) for p, s in entry["params"]],
                           spec_from_json(entry["result"]))
            for name, entry in metadata["functions"].items()}

    def __repr__(self) -> str:
        return (f"<relax_mlir.runtime.Library {self.path} ({self.target}"
                f"{', ' + self.chip if self.chip else ''}): {', '.join(self.function_names)}>")

    def _lookup(self, name: str, error: type) -> Function:
        try:
            return self._functions[name]
        except KeyError:
            raise error(f"no function '{name}' in {self.path}; it has: "
                        f"{', '.join(self.function_names)}") from None

    def __getitem__(self, name: str) -> Function:
        return self._lookup(name, KeyError)

    def __getattr__(self, name: str) -> Function:
        if name.startswith("_"):
            raise AttributeError(name)
        return self._lookup(name, AttributeError)

    def __contains__(self, name: str) -> bool:
        return name in self._functions

    @property
    def function_names(self) -> list[str]:
        """The library's functions' names, sorted."""
        return sorted(self._functions)

    def to_device(self, array: Any) -> DeviceArray:
        """A copy of `array` (numpy, or anything np.asarray takes) in GPU
        memory, for this CUDA library's functions."""
        return DeviceArray.from_host(self._require_cuda("to_device"), array)

    def _require_cuda(self, what: str) -> CudaRuntime:
        if self.cuda is None:
            raise ValueError(f"{what} needs a library exported for target='cuda'; "
                             f"{self.path} is for the CPU (it takes numpy arrays)")
        return self.cuda

    def _pool_bytes(self, nbytes: int) -> np.ndarray:
        """An uninitialized, 64-byte aligned uint8 array of `nbytes` from the
        library's pool (numpy memory when the pool has none)."""
        address = self._pool_result(nbytes) if self._pool_result is not None else None
        if not address:
            raw = np.empty(nbytes + _ALIGNMENT, np.uint8)
            start = -raw.ctypes.data % _ALIGNMENT
            return raw[start:start + nbytes]
        return np.asarray(_PoolBlock(self, address, nbytes))

    def pool_stats(self) -> tuple[int, int, int]:
        """(live, peak, cached) bytes of the library's buffer pool (its
        temporaries in host memory)."""
        out = (ctypes.c_uint64 * 3)()
        self._lib.relaxPoolStats(out, 0)
        return (int(out[0]), int(out[1]), int(out[2]))


class Function(CallBoundary):
    """An exported function: called as `compile()`'s functions are."""

    _kind = "relax_mlir.runtime.Function"

    def __init__(self, library: Library, name: str, params: list[tuple[str, TypeSpec]],
                 result: TypeSpec) -> None:
        super().__init__(name, params, result)
        self._library = library
        try:
            entry = getattr(library._lib, "_mlir_ciface_" + name)
        except AttributeError:
            raise LoadError(f"cannot load {library.path}",
                            f"its metadata lists '{name}' but it has no entry point "
                            f"_mlir_ciface_{name}") from None
        leaves = [s for _, s in self._in_leaves] + leaf_specs(result)
        entry.argtypes = [ctypes.c_void_p] * len(leaves)
        entry.restype = None
        self._entry = entry
        packed = getattr(library._lib, "relax_packed_" + name, None) \
            if library._relax_call is not None else None
        self._packed = ctypes.cast(packed, ctypes.c_void_p).value if packed else None
        self._args_type = ctypes.c_void_p * max(len(leaves), 1)
        # One buffer of int64 words holds every leaf's memref descriptor
        # {allocated, aligned, offset, sizes[rank], strides[rank]}: a call
        # copies the template (shapes are static) and writes the pointers.
        words: list[int] = []
        self._offsets: list[int] = []
        for spec in leaves:
            self._offsets.append(len(words))
            strides = np.cumprod((list(spec.shape[1:]) + [1])[::-1])[::-1]
            words += [0, 0, 0] + list(spec.shape) + [int(s) for s in strides[:len(spec.shape)]]
        self._words_type = ctypes.c_int64 * max(len(words), 1)
        self._template = self._words_type(*words)
        self._in_dtypes = [np.dtype(NUMPY_DTYPES.get(s.element, np.void))
                           for _, s in self._in_leaves]

    def _call(self, pointers: list[int]) -> None:
        words = self._words_type.from_buffer_copy(self._template)
        base = ctypes.addressof(words)
        for offset, pointer in zip(self._offsets, pointers):
            words[offset] = words[offset + 1] = pointer
        descriptors = [base + 8 * offset for offset in self._offsets]
        if self._packed is None:
            self._entry(*descriptors)
            return
        failed = self._library._relax_call(self._packed, self._args_type(*descriptors))
        if failed:
            raise MemoryError(f"out of memory: the exported function '{self.name}' of "
                              f"{self._library.path} could not allocate "
                              f"{failed / 2**30:.2f} GiB ({failed} bytes) for a temporary; "
                              f"the call stopped there and its temporaries were released")

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        leaves = self._argument_leaves(args, kwargs)
        if self._library.cuda is not None:
            return self._call_cuda(self._library.cuda, leaves)
        # Arrays that already match (dtype, shape, C order) pass as they are;
        # the others are checked and converted, or explained.
        arrays = [value if type(value) is np.ndarray and value.dtype == dtype and
                  value.shape == spec.shape and value.flags.c_contiguous
                  else self._prepare(where, spec, value)
                  for (where, spec), dtype, value in zip(self._in_leaves, self._in_dtypes,
                                                         leaves)]
        outputs = self._new_outputs(self._library._pool_bytes)
        self._call([a.ctypes.data for a in arrays] + [o.ctypes.data for o in outputs])
        return self._result_value(outputs)

    def _call_cuda(self, cuda: CudaRuntime, leaves: Any) -> Any:
        return call_on_device(cuda, self, leaves, self._call)


class _PoolBlock:
    """Owner of a block of a library's pool, the base of the numpy array
    over it: the block returns to the pool when the array is freed."""

    __slots__ = ("__array_interface__", "_address", "_library")

    def __init__(self, library: Library, address: int, nbytes: int) -> None:
        self._library = library  # keeps the library (its pool) loaded
        self._address = address
        self.__array_interface__ = {"data": (address, False), "shape": (nbytes,),
                                    "typestr": "|u1", "version": 3}

    def __del__(self) -> None:
        self._library._pool_release(self._address)

