"""`relax_mlir.compile`: lower relax functions to LLVM and call them on numpy arrays."""

from __future__ import annotations

import ctypes
import os
import time
from collections.abc import Sequence
from typing import Any

import numpy as np

from . import _cache, _libs, _printer, ir
from ._boundary import (
    CallBoundary,
    FunctionTable,
    TensorSpec,
    TypeSpec,
    itemsize,
    leaf_specs,
)
from ._config import log_compile
from ._mlir_libs import _relax_runtime
from ._mlir_libs._mlirExecutionEngine import ExecutionEngine
from ._module import ModuleLike, as_module, clone_module, functions, parameter_names, type_spec
from ._stages import run_stages, uses_collectives
from .errors import CompilationError


def _openmp_runtime() -> str:
    """The OpenMP runtime that multi-threaded code calls, or a clear error."""
    path = _libs.openmp()
    if not os.path.exists(path):
        raise CompilationError("num_threads > 1 needs the OpenMP runtime",
                               f"{path} is missing; install the Debian package libomp-22-dev, "
                               f"or compile with num_threads=1")
    return path


# Buffer-protocol element kinds of the runtime: 'f' float, 'i' signed
# integer, 'b' bool, 'u' raw bits: numpy exports no buffer format for
# ml_dtypes' bfloat16, so its arrays pass as uint16 views.
_KINDS = {"f16": "f", "f32": "f", "f64": "f", "i1": "b", "i32": "i", "i64": "i",
          "bf16": "u"}
_BITS = {"bf16": np.uint16}


# Ops whose operands the compiled code reads many times with vector loads (a
# register tile per output block), and ops that only view their operand.
_CONTRACTIONS = frozenset({"relax.matmul", "relax.conv2d"})
_VIEWS = frozenset({"relax.permute_dims", "relax.reshape", "relax.expand_dims",
                    "relax.squeeze", "relax.flatten", "relax.start_checkpoint",
                    "relax.end_checkpoint", "relax.stop_gradient"})


def _contraction_parameters(fn: Any) -> set[int]:
    """Indices of `fn`'s parameters read by a contraction (directly or through
    views): the runtime gives those 64-byte aligned copies when a caller's
    array is not aligned (whole-vector loads across two cache lines made a
    1024x1024 `a @ b^T` 1.6x slower); other inputs are passed as they are (a
    copy of an input read once costs more than it saves)."""
    found = set()
    for index, arg in enumerate(fn.regions[0].blocks[0].arguments):
        # Views form chains of SSA values (no cycles): a plain walk ends.
        pending = [arg]
        while pending and index not in found:
            for use in pending.pop().uses:
                if use.owner.name in _CONTRACTIONS:
                    found.add(index)
                    break
                if use.owner.name in _VIEWS:
                    pending.extend(use.owner.results)
    return found


class Function(CallBoundary):
    """A compiled public function; call it with numpy arrays (tuples for tuple
    parameters), positionally or by parameter name. A temporary its code
    cannot allocate raises MemoryError (the call stops, its temporaries are
    released)."""

    def __init__(self, engine: Any, name: str, params: list[tuple[str, TypeSpec]],
                 result: TypeSpec, contracted: set[int] | None = None,
                 library: Any = None) -> None:
        super().__init__(name, params, result)
        # What holds the code: the JIT's engine, or a library the compilation
        # cache loaded (then `library` is it, and `engine` None).
        self._engine = engine if library is None else library
        # Whether a misaligned large input leaf is copied aligned for the call.
        align = [isinstance(spec, TensorSpec) and index in (contracted or ())
                 for index, (pname, spec) in enumerate(params)
                 for _ in leaf_specs(spec)]
        if library is not None:
            address = library.entry_point(name)
        else:
            address = engine.raw_lookup("_mlir_ciface_" + name)
        if not address:
            raise CompilationError(f"cannot compile '{name}'",
                                   f"the JIT has no entry point for '{name}'")
        self._address = int(address)
        if self._unsupported is not None:
            return
        # Leaves passed as raw bits (bf16), by position.
        self._in_bits = [_BITS.get(s.element) for _, s in self._in_leaves]
        self._out_bits = [_BITS.get(s.element) for s in leaf_specs(result)]
        self._has_bits = any(self._in_bits) or any(self._out_bits)
        self._signature = _relax_runtime.Signature(
            address,
            [(_KINDS[s.element], itemsize(s), list(s.shape)) for _, s in self._in_leaves],
            [(_KINDS[s.element], itemsize(s), list(s.shape)) for s in leaf_specs(result)],
            align, name, descriptor_args=library is not None)

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        leaves = self._argument_leaves(args, kwargs)
        return self._call(leaves, self._new_outputs(_relax_runtime.pool_empty))

    def call_donating(self, leaves: Sequence[Any], donations: Sequence[tuple[int, int]]) -> Any:
        """A call on argument leaves whose results listed in `donations`
        ((argument leaf, result leaf) pairs; the function computes those
        results last) are written into the arguments' arrays where they can
        take them: C-contiguous, writable numpy arrays of the result's shape
        and dtype, each taken once."""
        outputs = self._new_outputs(_relax_runtime.pool_empty)
        if not self._has_bits:
            used: set[int] = set()
            for i, j in donations:
                a = leaves[i]
                if (type(a) is np.ndarray and a.flags.c_contiguous and a.flags.writeable
                        and a.dtype == outputs[j].dtype and a.shape == outputs[j].shape
                        and id(a) not in used):
                    used.add(id(a))
                    outputs[j] = a
        return self._call(leaves, outputs)

    def _call(self, leaves: Sequence[Any], outputs: list[np.ndarray]) -> Any:
        if self._has_bits:
            self._call_with_bits(leaves, outputs)
            return self._result_value(outputs)
        try:
            self._signature(leaves, outputs)
        except _relax_runtime.ArgumentMismatch:
            # The slow path explains a wrong argument, or converts one that is
            # only non-contiguous, byte-swapped or a Python scalar.
            leaves = [self._prepare(where, spec, value)
                      for (where, spec), value in zip(self._in_leaves, leaves)]
            self._signature(leaves, outputs)
        return self._result_value(outputs)


    def _call_with_bits(self, leaves: Sequence[Any], outputs: list[np.ndarray]) -> None:
        """A call with bf16 leaves: every argument checked and converted, the
        bf16 ones (and results) passed as views of their bits."""
        prepared = [self._prepare(where, spec, value)
                    for (where, spec), value in zip(self._in_leaves, leaves)]
        self._signature([a.view(bits) if bits else a
                         for a, bits in zip(prepared, self._in_bits)],
                        [o.view(bits) if bits else o
                         for o, bits in zip(outputs, self._out_bits)])


class Executable(FunctionTable["Function"]):
    """Compiled public functions of a module: `exe["name"](...)` or `exe.name(...)`.

    `target`, `chip` (CUDA), `opt_level` and `num_threads` are `compile`'s;
    `llvm_module` is the lowered module the code was compiled from (lowered
    again on first access when the code came from the compilation cache);
    `cache_path` is the compilation cache entry the code was loaded from, or
    None."""

    def __init__(self, engine: Any, funcs: dict[str, Function], llvm_module: ir.Module | None,
                 target: str = "cpu", chip: str | None = None, opt_level: int = 3,
                 num_threads: int = 1, source: ir.Module | None = None,
                 cache_path: str | None = None) -> None:
        self._engine = engine
        self._functions = funcs
        self._llvm_module = llvm_module
        self._source = source
        self.target = target
        self.chip = chip
        self.opt_level = opt_level
        self.num_threads = num_threads
        self.cache_path = cache_path

    @property
    def llvm_module(self) -> ir.Module:
        if self._llvm_module is None:
            assert self._source is not None
            self._llvm_module = run_stages(self._source, self.opt_level, self.num_threads)
        return self._llvm_module

    def to_device(self, array: Any) -> Any:
        """A copy of `array` in GPU memory (a `DeviceArray`) for this
        executable's functions (target="cuda" only): weights that stay on
        the device between calls."""
        if self.target != "cuda":
            raise ValueError("to_device needs an executable compiled with target='cuda'")
        from . import _cuda

        return _cuda.DeviceArray.from_host(_cuda.runtime(), array)

    def export(self, path: str | os.PathLike[str], *, cpu: str = "host") -> str:
        """Writes the compiled functions as one self-contained shared library
        at `path` (replaced if it exists) and returns its absolute path.

        `relax_mlir.runtime.load(path)` calls them with numpy arrays as this
        executable does, on any x86-64 Linux machine with glibc >= 2.35, in
        a process that needs neither LLVM/MLIR nor relax_mlir's compiled
        extension (TVM's `export_library`, `jax.export`). The host code is
        built for `cpu`: "host" (this machine's CPU, as the JIT) or an LLVM
        CPU name for another machine ("x86-64-v3", "sapphirerapids"); a
        library loaded on a CPU without the features it uses is refused with
        their names. For target="cuda" the kernels for `chip` are embedded
        (cubin and PTX when CUDA's ptxas was found, else PTX). Needs a C++
        compiler driver to link ($CXX, c++, g++ or clang++). Executables
        compiled with num_threads > 1 cannot be exported (they call libomp).
        Raises `CompilationError` when writing or linking fails."""
        from ._export import export_library

        if self.target == "cuda-emulator":
            raise ValueError("an executable compiled with target='cuda-emulator' cannot be "
                             "exported; export with target='cpu' or 'cuda'")
        if self.cache_path is not None and cpu == "host":
            from ._export import copy_library

            return copy_library(self.cache_path, os.fspath(path))
        signatures = {name: (fn.params, fn.result) for name, fn in self._functions.items()}
        return export_library(self.llvm_module, signatures, os.fspath(path), target=self.target,
                              chip=self.chip, opt_level=self.opt_level,
                              num_threads=self.num_threads, cpu=cpu)


def _public_specs(module: ir.Module) -> dict[str, tuple[list[tuple[str, TypeSpec]], TypeSpec,
                                                         set[int]]]:
    """Parameters (names, types), result type and contraction inputs of each
    public function with a body."""
    specs: dict[str, tuple[list[tuple[str, TypeSpec]], TypeSpec, set[int]]] = {}
    for name, fn in functions(module).items():
        if "sym_visibility" in fn.attributes or len(fn.regions[0].blocks) == 0:
            continue
        ftype = ir.FunctionType(ir.TypeAttr(fn.attributes["function_type"]).value)
        if len(ftype.results) != 1:
            raise CompilationError(f"cannot compile '{name}'",
                                   f"public functions must return exactly one value, "
                                   f"'{name}' returns {len(ftype.results)}")
        try:
            params = list(zip(parameter_names(fn), (type_spec(t) for t in ftype.inputs)))
            result = type_spec(ftype.results[0])
        except TypeError as e:
            raise CompilationError(f"cannot compile '{name}'", str(e)) from None
        specs[name] = (params, result, _contraction_parameters(fn))
    return specs


TARGETS = ("cpu", "cuda", "cuda-emulator")


def _check_options(target: str, opt_level: int, num_threads: int) -> None:
    if target not in TARGETS:
        raise ValueError(f"target {target!r} is not supported; use target='cpu', 'cuda' or "
                         f"'cuda-emulator'")
    if opt_level not in (0, 1, 2, 3) or isinstance(opt_level, bool):
        raise ValueError(f"opt_level must be 0, 1, 2 or 3, got {opt_level!r}")
    if not isinstance(num_threads, int) or isinstance(num_threads, bool) or num_threads < 1:
        raise ValueError(f"num_threads must be a positive int, got {num_threads!r}")


def _only(module: ir.Module, names: Sequence[str] | None) -> ir.Module:
    """`module`, or with `names`, a copy where the other public functions are
    private (so not compiled unless called: the pipeline's inliner drops
    them)."""
    if names is None:
        return module
    if isinstance(names, str):
        names = [names]
    public = {name for name, fn in functions(module).items()
              if "sym_visibility" not in fn.attributes}
    unknown = [n for n in names if n not in public]
    if unknown or not names:
        raise ValueError(f"functions= names no public function: {', '.join(unknown) or '(none)'}; "
                         f"the public functions are: {', '.join(sorted(public))}")
    module = clone_module(module)
    for name, fn in functions(module).items():
        if name in public and name not in names:
            fn.attributes["sym_visibility"] = ir.StringAttr.get("private", module.context)
    return module


def compile(module: ModuleLike, target: str = "cpu", opt_level: int = 3,
            num_threads: int = 1, dump_ir: str | None = None,
            chip: str = "sm_90", functions: Sequence[str] | None = None) -> Executable:
    """Lowers every function of `module` to LLVM and JIT-compiles the public ones.

    `target` is "cpu" or "cuda". The input module is left unchanged.
    `opt_level` 1-3 runs the CPU schedule (contractions in register tiles of
    vector FMAs, every other linalg op vectorized along its innermost
    dimension, for the host's vector width) and LLVM at that level; 0 lowers
    every op to plain scalar loops and runs no LLVM optimization: the
    reference for debugging and for checking the schedule.
    `num_threads` > 1 (with `opt_level` >= 1) runs the outer tile loops of
    large ops (contractions, big elementwise ops) on that many OpenMP threads.
    `dump_ir`, a directory (created if missing), receives the IR after each
    stage: `0-relax.mlir`, `1-linalg.mlir`, `2-vector.mlir`,
    `3-bufferized.mlir`, `4-llvm.mlir` (with locations).
    With `target="cuda"`, the `relax-to-nvvm` pipeline builds kernels for
    `chip` (a fatbin with CUDA's ptxas, else PTX that the driver compiles)
    and calls copy numpy arguments to the device and results back; it needs
    an NVIDIA driver (`CUDAError` "no CUDA driver found" otherwise).
    `target="cuda-emulator"` builds the same kernels and runs them on the
    CPU, one GPU thread at a time between barriers (`relax-to-gpu-emulator`):
    for testing and debugging the GPU lowering without a GPU; every memory
    access is checked, and an out-of-bounds one aborts the process (as
    compute-sanitizer would stop the kernel); it is slow (`opt_level` and
    `num_threads` do not apply).
    `functions` (names) compiles only those public functions (the others
    become private, dropped unless called): `functions=["main_adjoint"]`
    when only the training step is needed halves the work.
    Raises `CompilationError` (with MLIR's diagnostics) when lowering fails.
    """
    _check_options(target, opt_level, num_threads)
    module = _only(as_module(module), functions)
    if target == "cuda":
        return _compile_cuda(as_module(module), chip, opt_level)
    if target == "cuda-emulator":
        from ._stages import run_gpu_emulator

        return _jit_host(module, run_gpu_emulator(module), target, 2, 1)
    return _compile_cpu(module, opt_level, num_threads, dump_ir)


def _compile_cpu(module: ir.Module, opt_level: int, num_threads: int,
                 dump_ir: str | None) -> Executable:
    """`module` compiled for the host CPU: loaded from the compilation cache,
    else lowered and written there (and loaded), else JIT-compiled."""
    start = time.perf_counter()
    collectives = uses_collectives(module)
    if collectives:
        # The compiled code calls MPI: initialized, its symbols global.
        from . import distributed

        distributed.initialize()
    specs = _public_specs(module)
    what = ", ".join(sorted(specs)) or "(no public function)"
    entry = None
    if num_threads > 1:
        why = "not cached: num_threads > 1"
    elif dump_ir is not None:
        why = "not cached: dump_ir"
    else:
        entry = _cache.entry(module, opt_level)
        why = "compilation cache off"
    if entry is not None:
        exe = _load_cached(module, entry, specs, opt_level)
        if exe is not None:
            log_compile(f"loaded {what} from the compilation cache in "
                        f"{time.perf_counter() - start:.2f} s (cache hit: {entry})")
            return exe
    lowered = run_stages(module, opt_level, num_threads, dump_ir=dump_ir,
                         collectives=collectives)
    if entry is not None:
        exe = _write_cached(module, lowered, entry, specs, opt_level)
        if exe is not None:
            removed = _cache.evict(keep=entry)
            log_compile(f"compiled {what} in {time.perf_counter() - start:.2f} s (cache miss: "
                        f"written to {entry}"
                        + (f"; {len(removed)} least recently used entries removed"
                           if removed else "") + ")")
            return exe
        why = "compilation cache off" if _cache.is_disabled() else "not cached"
    exe = _jit_host(module, lowered, "cpu", opt_level, num_threads)
    log_compile(f"compiled {what} in {time.perf_counter() - start:.2f} s ({why})")
    return exe


def _load_cached(module: ir.Module, path: str,
                 specs: dict[str, tuple[list[tuple[str, TypeSpec]], TypeSpec, set[int]]],
                 opt_level: int) -> Executable | None:
    """The executable in the cache entry at `path`, or None (no entry, or one
    that is damaged, foreign or unusable here: removed, to be rebuilt)."""
    from . import runtime
    from ._export import functions_metadata

    if not os.path.exists(path):
        return None
    signatures = {name: (params, result) for name, (params, result, _) in specs.items()}
    try:
        library = runtime.Library(path)
        metadata = library.metadata
        if (metadata.get("functions") != functions_metadata(signatures)
                or metadata.get("target") != "cpu" or metadata.get("opt_level") != opt_level):
            log_compile(f"compilation cache entry {path} holds other functions; rebuilding it")
            _cache.remove(path)
            return None
        pool = dict(_relax_runtime.pool_symbols())
        library.use_host_allocator(pool["_mlir_memref_to_llvm_alloc"],
                                   pool["_mlir_memref_to_llvm_aligned_alloc"],
                                   pool["_mlir_memref_to_llvm_free"])
        funcs = {name: Function(None, name, p, r, a, library=library)
                 for name, (p, r, a) in specs.items()}
    except (runtime.LoadError, OSError) as e:
        log_compile(f"compilation cache entry {path} is damaged or unusable here "
                    f"({e}); rebuilding it")
        _cache.remove(path)
        return None
    _cache.touch(path)
    return Executable(library, funcs, None, "cpu", None, opt_level, 1, source=module,
                      cache_path=path)


def _write_cached(module: ir.Module, lowered: ir.Module, path: str,
                  specs: dict[str, tuple[list[tuple[str, TypeSpec]], TypeSpec, set[int]]],
                  opt_level: int) -> Executable | None:
    """Writes `lowered` as the cache entry at `path` and loads it; None when
    this module's library cannot be built (logged), or the directory cannot
    be written (the cache turned off for the process)."""
    from ._export import export_library, linker

    try:
        linker()
    except CompilationError as e:
        _cache.disable(str(e))
        return None
    signatures = {name: (params, result) for name, (params, result, _) in specs.items()}
    try:
        export_library(lowered, signatures, path, target="cpu", chip=None,
                       opt_level=opt_level, num_threads=1, cpu="host")
    except CompilationError as e:
        # This module's library only (the JIT runs it): the cache stays on
        # for the others.
        log_compile(f"not cached: writing {path} failed: {e}")
        return None
    except OSError as e:
        _cache.disable(f"writing {path} failed: {e}")
        return None
    exe = _load_cached(module, path, specs, opt_level)
    if exe is None:
        _cache.disable(f"{path} could not be loaded right after it was written")
        return None
    exe._llvm_module = lowered
    return exe


def _jit_host(module: ir.Module, lowered: ir.Module, target: str, opt_level: int,
              num_threads: int) -> Executable:
    """An executable of `lowered` (host code, `module` lowered) run by the JIT."""
    shared_libs = [_libs.c_runner_utils()]
    if num_threads > 1 and opt_level > 0:
        shared_libs.append(_openmp_runtime())
    specs = _public_specs(module)
    try:
        engine = ExecutionEngine(
            lowered, opt_level=opt_level, shared_libs=shared_libs)
    except RuntimeError as e:
        raise CompilationError("JIT compilation failed", str(e)) from None
    for symbol, address in _relax_runtime.pool_symbols():
        engine.raw_register_runtime(symbol, ctypes.c_void_p(address))
    _relax_runtime.set_debug_hook(_printer.HOOK_ADDRESS)
    funcs = {name: Function(engine, name, p, r, a) for name, (p, r, a) in specs.items()}
    return Executable(engine, funcs, lowered, target, None, opt_level, num_threads)


def export(module: ModuleLike, path: str | os.PathLike[str], *, target: str = "cpu",
           chip: str = "sm_90", opt_level: int = 3, cpu: str = "host",
           functions: Sequence[str] | None = None,
           structures: dict[str, Any] | None = None) -> str:
    """Compiles every public function of `module` ahead of time into one
    self-contained shared library at `path`, without running anything: as
    `compile(module, target, opt_level=..., chip=...).export(path, cpu=cpu)`
    but with no JIT, so target="cuda" needs no GPU or driver here (only
    CUDA's ptxas for a cubin; without it the library carries PTX, which the
    driver compiles when it loads). `functions` exports only those public
    functions (as in `compile`). Load it with `relax_mlir.runtime.load`.
    `structures` (what `Lowered.export` passes) maps a function's name to the
    pytree structure of its arguments and result, which the loader rebuilds.
    Returns the library's absolute path."""
    from ._export import export_library
    from ._stages import run_gpu_pipeline

    _check_options(target, opt_level, 1)
    if target == "cuda-emulator":
        raise ValueError("target='cuda-emulator' cannot be exported (it is for testing the "
                         "GPU lowering here); export with target='cpu' or 'cuda'")
    module = _only(as_module(module), functions)
    specs = _public_specs(module)
    if target == "cuda":
        from . import _cuda

        lowered = run_gpu_pipeline(module, chip, "fatbin" if _cuda.toolkit_ptxas() else "isa")
    else:
        lowered = run_stages(module, opt_level, 1)
    signatures = {name: (params, result) for name, (params, result, _) in specs.items()}
    return export_library(lowered, signatures, os.fspath(path), target=target,
                          chip=chip if target == "cuda" else None, opt_level=opt_level,
                          num_threads=1, cpu=cpu, structures=structures)


class CudaFunction(Function):
    """A compiled public function whose buffers live on the GPU: numpy
    arguments are copied to device memory and results copied back; with any
    argument on the device (a `DeviceArray`, or another library's array with
    `__cuda_array_interface__`), nothing is copied and the results are
    DeviceArrays."""

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        from . import _cuda

        leaves = self._argument_leaves(args, kwargs)
        return _cuda.call_on_device(
            _cuda.runtime(), self, leaves,
            lambda pointers: _cuda.call_with_descriptors(
                self._address, pointers, [s.shape for _, s in self._in_leaves] +
                [shape for shape, _ in self._out_leaves]))


def _compile_cuda(module: ir.Module, chip: str, opt_level: int) -> Executable:
    from . import _cuda
    from ._stages import run_gpu_pipeline

    _cuda.require_driver()
    specs = _public_specs(module)
    lowered = run_gpu_pipeline(module, chip, "fatbin" if _cuda.toolkit_ptxas() else "isa")
    try:
        engine = ExecutionEngine(
            lowered, opt_level=opt_level, shared_libs=[_libs.c_runner_utils(), _cuda.RUNTIME_PATH])
    except RuntimeError as e:
        raise CompilationError("JIT compilation failed", str(e)) from None
    # The kernels' modules are loaded by the lowered module's global
    # constructors (one per gpu.binary), which the JIT runs only when asked.
    engine.initialize()
    funcs: dict[str, Function] = {
        name: CudaFunction(engine, name, p, r, None) for name, (p, r, _) in specs.items()}
    _cuda.check("loading the GPU kernels")
    return Executable(engine, funcs, lowered, "cuda", chip, opt_level, 1)
