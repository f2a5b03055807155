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
import hashlib
import json
import os
import platform
import stat
import struct
import tempfile
import threading
from collections.abc import Sequence
from typing import Any

import numpy as np

from . import _printer
from ._boundary import (
    NUMPY_DTYPES,
    CallBoundary,
    FunctionTable,
    TensorSpec,
    TypeSpec,
    leaf_specs,
    spec_from_json,
)
from ._cuda import CUDAError, CudaRuntime, DeviceArray, call_on_device
from ._pytree import ExportedStructure
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

# An export ends with a trailer after its ELF contents: this magic, the
# length of what precedes the trailer (u64, little-endian) and its SHA-256.
# `load` checks it before the library is mapped.
TRAILER_MAGIC = b"relax_mlir-sha2\n"
_TRAILER = struct.Struct("<16sQ32s")


class LoadError(RelaxMLIRError):
    """The file is not a loadable relax_mlir export (see `diagnostics`)."""


def load(path: str | os.PathLike[str]) -> Library:
    """Loads a library written by `Executable.export`.

    The file is checked before it is mapped: its ELF header (a 64-bit
    shared library for this machine's architecture), that its headers and
    segments lie inside the file, and the SHA-256 checksum that export
    appends, so a truncated file (an interrupted copy) or one with damaged
    bytes is a `LoadError` saying so, never a crash. Loading a path again
    after the file there was replaced (a re-exported, retrained model) loads
    the new file: the new contents are mapped through a private copy, since
    the dynamic loader would hand back the library it first loaded under that
    name. Libraries stay loaded while the process runs (a `Library` of the
    old file keeps working).

    Raises `LoadError` when the file is missing, is not such a library (or is
    built for another architecture), is damaged, was written by an
    incompatible version, or needs CPU features this machine lacks; for
    target="cuda", `CUDAError` when no usable driver or device is present or
    the kernels do not load."""
    return Library(os.fspath(path))


def append_checksum(path: str) -> None:
    """Appends the trailer that `load` checks (see TRAILER_MAGIC) to the
    library at `path` (what export does after linking)."""
    with open(path, "r+b") as f:
        data = f.read()
        f.write(_TRAILER.pack(TRAILER_MAGIC, len(data), hashlib.sha256(data).digest()))


# ELF e_machine of the architectures Linux runs on (platform.machine() names).
_MACHINES = {"x86_64": 62, "amd64": 62, "aarch64": 183, "arm64": 183, "ppc64le": 21,
             "ppc64": 21, "s390x": 22, "riscv64": 243}
_MACHINE_NAMES = {3: "x86 (32-bit)", 40: "ARM (32-bit)", 62: "x86-64", 183: "AArch64",
                  21: "PowerPC 64", 22: "s390x", 243: "RISC-V"}
_AGAIN = "copy the file again, or export it again"


def _elf_extent(data: bytes) -> tuple[int, str | None]:
    """The bytes `data`'s ELF headers describe (the end of its furthest
    header, segment or section), or a reason it is not a shared library for
    this machine."""
    if len(data) < 64 or data[:4] != b"\x7fELF":
        return 0, "it is not a shared library (no ELF header): is it the file export wrote?"
    if data[4] != 2:
        return 0, "it is a 32-bit ELF file; relax_mlir exports are 64-bit libraries"
    if data[5] not in (1, 2):
        return 0, "its ELF header is damaged (unknown byte order)"
    end = "<" if data[5] == 1 else ">"
    e_type, e_machine = struct.unpack_from(end + "HH", data, 16)
    want = _MACHINES.get(platform.machine().lower())
    if want is not None and e_machine != want:
        built = _MACHINE_NAMES.get(e_machine, f"ELF machine {e_machine}")
        host = _MACHINE_NAMES.get(want, platform.machine())
        return 0, (f"it is built for {built}, this machine is {host}: export it on (or for) "
                   f"a {host} machine")
    if e_type != 3:
        kind = {1: "an object file", 2: "an executable", 4: "a core dump"}.get(
            e_type, f"ELF type {e_type}")
        return 0, f"it is {kind}, not a shared library"
    phoff, shoff = struct.unpack_from(end + "QQ", data, 32)
    phentsize, phnum, shentsize, shnum = struct.unpack_from(end + "HHHH", data, 54)
    extent = 64
    tables = [(phoff, phnum, phentsize, 56), (shoff, shnum, shentsize, 64)]
    for offset, count, size, least in tables:
        if count and size < least:
            return 0, "its ELF header is damaged (header entry sizes)"
        extent = max(extent, offset + count * size)
    if extent > len(data):
        return extent, None
    for i in range(phnum):  # segments: (p_offset, p_filesz)
        p_offset, _, _, p_filesz = struct.unpack_from(end + "QQQQ", data, phoff + i * phentsize + 8)
        extent = max(extent, p_offset + p_filesz)
    for i in range(shnum):  # sections other than SHT_NOBITS: (sh_offset, sh_size)
        base = shoff + i * shentsize
        if struct.unpack_from(end + "I", data, base + 4)[0] != 8:
            extent = max(extent, sum(struct.unpack_from(end + "QQ", data, base + 24)))
    return extent, None


def _check_file(path: str) -> tuple[bytes, tuple[int, ...]]:
    """The file's bytes and identity (device, inode, size, mtime), once they
    are known to be a complete shared library for this machine (and, for an
    export, to match its checksum); else a LoadError saying what is wrong."""
    what = f"cannot load {path}"
    try:
        with open(path, "rb") as f:
            info = os.fstat(f.fileno())
            if not stat.S_ISREG(info.st_mode):
                raise LoadError(what, "it is not a regular file")
            data = f.read()
    except IsADirectoryError:
        raise LoadError(what, "it is a directory; give the path of an exported library "
                              "file") from None
    except OSError as e:
        raise LoadError(what, e.strerror or str(e)) from None
    identity = (info.st_dev, info.st_ino, info.st_size, info.st_mtime_ns)
    trailer = data[-_TRAILER.size:]
    if len(data) > _TRAILER.size and trailer.startswith(TRAILER_MAGIC):
        _, length, digest = _TRAILER.unpack(trailer)
        if length != len(data) - _TRAILER.size:
            raise LoadError(what, f"it is {len(data)} bytes but was exported as "
                                  f"{length + _TRAILER.size}: the file is damaged (an "
                                  f"interrupted or partial copy?); {_AGAIN}")
        if hashlib.sha256(memoryview(data)[:length]).digest() != digest:
            raise LoadError(what, f"its contents do not match the checksum export wrote: the "
                                  f"file is damaged; {_AGAIN}")
        elf = data[:length]
    else:
        elf = data
    extent, problem = _elf_extent(elf)
    if problem is not None:
        raise LoadError(what, problem)
    if extent > len(elf):
        raise LoadError(what, f"it is truncated: {len(elf)} bytes, but its ELF headers "
                              f"describe {extent} (an interrupted copy?); {_AGAIN}")
    if extent < len(elf) and elf is data and METADATA_SYMBOL.encode() in data:
        # Other libraries may carry bytes after their ELF contents; an
        # export's are its trailer, damaged (or cut) here.
        raise LoadError(what, f"{len(elf) - extent} bytes follow its ELF contents that are "
                              f"not the checksum export writes: the file is damaged "
                              f"(truncated or appended to); {_AGAIN}")
    return data, identity


# Each path dlopen'ed by its name, with the identity of the file it was then;
# and the private copies loaded for later versions of those files.
_BY_NAME: dict[str, tuple[int, ...]] = {}
_COPIES: dict[tuple[str, tuple[int, ...]], ctypes.CDLL] = {}
_OPEN_LOCK = threading.Lock()


def _open(path: str, data: bytes, identity: tuple[int, ...]) -> ctypes.CDLL:
    """dlopen of the checked file: by its name unless that name was loaded
    before for another file (dlopen would return that library), else through
    a private copy of `data` (unlinked once mapped)."""
    name = os.path.abspath(path)
    with _OPEN_LOCK:
        first = _BY_NAME.get(name)
        if first is None or first == identity:
            lib = ctypes.CDLL(name)
            _BY_NAME[name] = identity
            return lib
        cached = _COPIES.get((name, identity))
        if cached is not None:
            return cached
        # Next to the file (its file system allows mapping code), else in /tmp.
        for directory in (os.path.dirname(name), None):
            try:
                fd, copy = tempfile.mkstemp(prefix=f".{os.path.basename(name)}.",
                                            suffix=".so", dir=directory)
            except OSError:
                continue
            try:
                with os.fdopen(fd, "wb") as f:
                    f.write(data)
                lib = ctypes.CDLL(copy)
            except OSError:
                if directory is None:
                    raise
                continue
            finally:
                os.unlink(copy)
            _COPIES[(name, identity)] = lib
            return lib
        raise OSError(f"cannot write a private copy of {name} to load it")


# The package's modules that this loader imports: all pure Python.
LOADER_MODULES = ("__init__.py", "_libs.py", "_boundary.py", "_cuda.py", "_dlpack.py", "errors.py",
                  "_pytree.py", "_printer.py", "runtime.py")


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


class Library(FunctionTable["Function"]):
    """A loaded export: its functions by name (`lib["name"]`, `lib.name`),
    `target` ("cpu" or "cuda"), `chip`, and `metadata` (what export wrote)."""

    def __init__(self, path: str) -> None:
        if not os.path.exists(path):
            raise LoadError(f"cannot load {path}", "no such file")
        data, identity = _check_file(path)
        try:
            lib = _open(path, data, identity)
        except OSError as e:
            raise LoadError(f"cannot load {path}", str(e)) from None
        _printer.install(lib)  # debug.print's printer (libraries that print)
        try:
            text = _read_string(lib, METADATA_SYMBOL)
            if text is None:
                raise LoadError(f"cannot load {path}", "it is a shared library but not one "
                                "written by relax_mlir's Executable.export (no export metadata)")
            metadata = json.loads(text)
            if not isinstance(metadata, dict) or metadata.get("format") != FORMAT:
                found = metadata.get("format") if isinstance(metadata, dict) else None
                raise LoadError(f"cannot load {path}",
                                f"export format {found!r}, this loader reads format {FORMAT}: "
                                f"export it again with this version of relax_mlir")
            target = metadata["target"]
            if target not in ("cpu", "cuda"):
                raise ValueError(f"target {target!r}")
            signatures = {
                name: ([(str(p), spec_from_json(s)) for p, s in entry["params"]],
                       spec_from_json(entry["result"]))
                for name, entry in metadata["functions"].items()}
            structures = {name: ExportedStructure(entry["pytree"])
                          for name, entry in metadata["functions"].items() if "pytree" in entry}
            built_for = (_read_string(lib, TARGET_SYMBOL) or "").split(" ", 1)
        except (ValueError, KeyError, TypeError, AttributeError, IndexError) as e:
            raise LoadError(f"cannot load {path}",
                            f"its export metadata is damaged ({type(e).__name__}: {e}); "
                            f"{_AGAIN}") from None
        self.cpu = built_for[0]
        missing = _missing_cpu_features(built_for[1] if len(built_for) > 1 else "",
                                        _cpu_flags())
        if missing:
            raise LoadError(f"cannot run {path} on this CPU",
                            f"it was built for {self.cpu} and uses {', '.join(missing)}, "
                            f"which this CPU lacks: export it with cpu='x86-64-v3' (or the "
                            f"target machine's CPU name)")
        if metadata.get("mpi"):
            # Its collectives call MPI, which must be initialized first.
            from .distributed import initialize

            try:
                initialize()
            except ImportError as e:
                raise LoadError(f"cannot load {path}", str(e)) from None
        self.path = path
        self.metadata = metadata
        self.target: str = target
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
        self._functions = {name: Function(self, name, params, result, structures.get(name))
                           for name, (params, result) in signatures.items()}

    def __repr__(self) -> str:
        return (f"<relax_mlir.runtime.Library {self.path} ({self.target}"
                f"{', ' + self.chip if self.chip else ''}): {', '.join(self.function_names)}>")

    def _missing(self, name: str) -> str:
        return f"no function '{name}' in {self.path}; it has: {', '.join(self.function_names)}"

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

    def entry_point(self, name: str) -> int:
        """The address of `name`'s packed entry point (`relax_packed_<name>`:
        one argument, the array of its memref descriptors' addresses)."""
        if name not in self._functions:
            raise KeyError(self._missing(name))
        address = self._functions[name]._packed
        if not address:
            raise LoadError(f"cannot load {self.path}",
                            f"it has no packed entry point relax_packed_{name}; {_AGAIN}")
        return int(address)

    def use_host_allocator(self, alloc: int, aligned_alloc: int, release: int) -> None:
        """Routes the temporaries of the library's code to another allocator
        (the addresses of `void *(uint64_t)`, `void *(uint64_t, uint64_t)` and
        `void (void *)` functions) instead of the library's own pool: relax_mlir's
        compilation cache gives a loaded library the process's pool. Call it
        before any function of the library runs."""
        use = getattr(self._lib, "relaxUseHostAllocator", None)
        if use is None:
            raise LoadError(f"cannot load {self.path}",
                            f"it cannot use another allocator (exported by an older "
                            f"relax_mlir); {_AGAIN}")
        use.argtypes = [ctypes.c_void_p] * 3
        use.restype = None
        use(alloc, aligned_alloc, release)

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
                 result: TypeSpec, structure: ExportedStructure | None = None) -> None:
        super().__init__(name, params, result)
        self._library = library
        # The pytree structure of the arguments and result (exported from a
        # jit/grad function), which calls take and return.
        self.structure = structure
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
        if self.structure is not None:
            leaves = self.structure.flatten_arguments(self.name, args, kwargs)
            flat = self._call_leaves(leaves)
            return self.structure.rebuild_result(
                [flat] if isinstance(self.result, TensorSpec) else _leaf_values(flat))
        return self._call_leaves(self._argument_leaves(args, kwargs))

    def _call_leaves(self, leaves: Sequence[Any]) -> Any:
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


def _leaf_values(value: Any) -> list[Any]:
    """The arrays of a function's result (nested tuples), in order."""
    if isinstance(value, tuple):
        return [leaf for v in value for leaf in _leaf_values(v)]
    return [value]


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

