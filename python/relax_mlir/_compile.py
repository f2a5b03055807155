"""`relax_mlir.compile`: lower relax functions to LLVM and call them on numpy arrays."""

from __future__ import annotations

import ctypes
import os
from collections.abc import Iterator, Sequence
from typing import Any

import numpy as np

from . import _libs, execution_engine, ir
from ._mlir_libs import _relax_runtime
from ._module import (
    NUMPY_DTYPES,
    ModuleLike,
    TensorSpec,
    TupleSpec,
    TypeSpec,
    as_module,
    functions,
    parameter_names,
    type_spec,
)
from ._stages import run_stages
from .errors import CompilationError


def _openmp_runtime() -> str:
    """The OpenMP runtime that multi-threaded code calls, or a clear error."""
    path = _libs.OPENMP
    if not os.path.exists(path):
        raise CompilationError("num_threads > 1 needs the OpenMP runtime",
                               f"{path} is missing; install the Debian package libomp-22-dev, "
                               f"or compile with num_threads=1")
    return path


def _leaves(spec: TypeSpec) -> Iterator[TensorSpec]:
    if isinstance(spec, TupleSpec):
        for f in spec.fields:
            yield from _leaves(f)
    else:
        yield spec


# Buffer-protocol element kinds of the runtime: 'f' float, 'i' signed
# integer, 'b' bool.
_KINDS = {"f16": "f", "f32": "f", "f64": "f", "i1": "b", "i32": "i", "i64": "i"}


# Results of at least this many bytes come from the runtime's buffer pool:
# 64-byte aligned (numpy aligns to 16; the compiled code writes whole
# vectors), and recycled when the array is freed (fresh pages would fault in
# on every call: 5-8% of a deep MLP step).
_POOL_MIN_BYTES = 64 * 1024


# Ops whose operands the compiled code reads many times with vector loads (a
# register tile per output block), and ops that only view their operand.
_CONTRACTIONS = frozenset({"relax.matmul", "relax.conv2d"})
_VIEWS = frozenset({"relax.permute_dims", "relax.reshape", "relax.expand_dims",
                    "relax.squeeze", "relax.flatten", "relax.start_checkpoint",
                    "relax.end_checkpoint"})


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


def _result_array(shape: tuple[int, ...], dtype: np.dtype) -> np.ndarray:
    """An uninitialized result array; large ones live in the pool."""
    nbytes = int(np.prod(shape, dtype=np.int64)) * dtype.itemsize
    if nbytes < _POOL_MIN_BYTES:
        return np.empty(shape, dtype)
    return _relax_runtime.pool_empty(nbytes).view(dtype).reshape(shape)


class Function:
    """A compiled public function; call it with numpy arrays (tuples for tuple
    parameters), positionally or by parameter name."""

    def __init__(self, engine: Any, name: str, params: list[tuple[str, TypeSpec]],
                 result: TypeSpec, contracted: set[int] | None = None) -> None:
        self._engine = engine
        self.name = name
        self.params = params
        self.result = result
        self._param_names = [n for n, _ in params]
        # Leaves in argument order, named as errors refer to them ("t[1]"), and
        # whether a misaligned large one is copied aligned for the call.
        self._in_leaves: list[tuple[str, TensorSpec]] = []
        align: list[bool] = []
        for index, (pname, spec) in enumerate(params):
            leaves = list(_named_leaves(pname, spec))
            self._in_leaves.extend(leaves)
            align.extend([isinstance(spec, TensorSpec) and index in (contracted or ())]
                         * len(leaves))
        self._flat = all(isinstance(spec, TensorSpec) for _, spec in params)
        address = engine.raw_lookup("_mlir_ciface_" + name)
        if not address:
            raise CompilationError(f"cannot compile '{name}'",
                                   f"the JIT has no entry point for '{name}'")
        self._address = int(address)
        # A leaf without a numpy dtype (bf16) makes the function uncallable
        # from numpy; the error is raised at the call, the rest of the module
        # stays usable.
        self._unsupported: TypeError | None = None
        try:
            for where, spec in self._in_leaves:
                _numpy_dtype(spec, f"argument '{where}' of {name}")
            self._out_leaves = [(s.shape, np.dtype(_numpy_dtype(s, f"result of {name}")))
                                for s in _leaves(result)]
        except TypeError as e:
            self._unsupported = e
            return
        self._signature = _relax_runtime.Signature(
            address,
            [(_KINDS[s.element], _itemsize(s), list(s.shape)) for _, s in self._in_leaves],
            [(_KINDS[s.element], _itemsize(s), list(s.shape)) for s in _leaves(result)],
            align)

    def __repr__(self) -> str:
        args = ", ".join(f"{n}: {s}" for n, s in self.params)
        return f"<relax_mlir.Function {self.name}({args}) -> {self.result}>"

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        leaves = self._argument_leaves(args, kwargs)
        outputs = [_result_array(shape, dtype) for shape, dtype in self._out_leaves]
        try:
            self._signature(leaves, outputs)
        except _relax_runtime.ArgumentMismatch:
            # The slow path explains a wrong argument, or converts one that is
            # only non-contiguous, byte-swapped or a Python scalar.
            leaves = [self._prepare(where, spec, value)
                      for (where, spec), value in zip(self._in_leaves, leaves)]
            self._signature(leaves, outputs)
        return self._result_value(outputs)

    def _argument_leaves(self, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Sequence[Any]:
        """The call's tensor arguments in order (keywords bound, tuples flattened)."""
        if kwargs or len(args) != len(self.params):
            args = self._bind(args, kwargs)
        if self._unsupported is not None:
            raise TypeError(str(self._unsupported))
        return args if self._flat else self._flatten(args)

    def _result_value(self, outputs: list[np.ndarray]) -> Any:
        """The result arrays as the function's result: one array or nested tuples."""
        if len(outputs) == 1 and isinstance(self.result, TensorSpec):
            return outputs[0]
        return _rebuild(self.result, iter(outputs))

    def _bind(self, args: tuple[Any, ...], kwargs: dict[str, Any]) -> tuple[Any, ...]:
        """Arguments in parameter order from positional and keyword arguments."""
        names = self._param_names
        signature = f"{self.name}({', '.join(names)})"
        if len(args) > len(names):
            raise TypeError(f"{signature} takes {len(names)} arguments, got {len(args)} "
                            f"positional arguments")
        bound: dict[str, Any] = dict(zip(names, args))
        for key, value in kwargs.items():
            if key not in names:
                raise TypeError(f"{signature} got an unexpected keyword argument '{key}'; "
                                f"its parameters are: {', '.join(names)}")
            if key in bound:
                raise TypeError(f"{signature} got multiple values for argument '{key}'")
            bound[key] = value
        missing = [n for n in names if n not in bound]
        if missing:
            raise TypeError(f"{signature} takes {len(names)} arguments, got "
                            f"{len(args) + len(kwargs)}; missing "
                            f"{', '.join(repr(m) for m in missing)}")
        return tuple(bound[n] for n in names)

    def _flatten(self, args: Sequence[Any]) -> list[Any]:
        out: list[Any] = []
        for (pname, spec), value in zip(self.params, args):
            _flatten_value(self.name, pname, spec, value, out)
        return out

    def _prepare(self, where: str, spec: TensorSpec, value: Any) -> np.ndarray:
        """`value` as a C-contiguous native-order array of the leaf's type, or
        a TypeError/ValueError naming the parameter and the fix."""
        dtype = np.dtype(_numpy_dtype(spec, f"argument '{where}' of {self.name}"))
        if not isinstance(value, (np.ndarray, np.generic, int, float, bool)):
            raise TypeError(f"argument '{where}' of {self.name}: expected a numpy array for "
                            f"{spec}, got {_describe(value)}")
        array = np.asarray(value)
        if array.dtype != dtype:
            if array.dtype.newbyteorder("=") == dtype:
                # Byte-swapped (e.g. big-endian '>f4'): the same values.
                array = array.astype(dtype)
            else:
                raise TypeError(f"argument '{where}' of {self.name}: expected dtype "
                                f"{dtype.name} for {spec}, got {_dtype_name(array.dtype)}; "
                                f"convert it with .astype(np.{dtype.name})")
        if array.shape != spec.shape:
            raise ValueError(f"argument '{where}' of {self.name}: expected shape {spec.shape} "
                             f"for {spec}, got {array.shape}")
        # The compiled code never writes its arguments (they are bufferized
        # read-only); contiguity is all the ABI needs. (np.ascontiguousarray
        # would make a 0-d array 1-d.)
        return array if array.flags.c_contiguous else array.copy(order="C")


def _named_leaves(where: str, spec: TypeSpec) -> Iterator[tuple[str, TensorSpec]]:
    if isinstance(spec, TupleSpec):
        for i, field in enumerate(spec.fields):
            yield from _named_leaves(f"{where}[{i}]", field)
    else:
        yield where, spec


def _flatten_value(fname: str, where: str, spec: TypeSpec, value: Any, out: list[Any]) -> None:
    if isinstance(spec, TupleSpec):
        if not isinstance(value, (tuple, list)) or len(value) != len(spec.fields):
            raise TypeError(f"argument '{where}' of {fname}: expected a tuple of "
                            f"{len(spec.fields)} values for {spec}, got {_describe(value)}")
        for i, (field, v) in enumerate(zip(spec.fields, value)):
            _flatten_value(fname, f"{where}[{i}]", field, v, out)
    else:
        out.append(value)


def _itemsize(spec: TensorSpec) -> int:
    return np.dtype(NUMPY_DTYPES[spec.element]).itemsize


def _dtype_name(dtype: np.dtype) -> str:
    """A dtype's name, with its byte order when that is not the native one."""
    if dtype.byteorder in ("=", "|") or dtype.isnative:
        return dtype.name
    return f"{dtype.name} ({'big' if dtype.byteorder == '>' else 'little'}-endian)"


def _describe(value: Any) -> str:
    if isinstance(value, np.ndarray):
        return f"an array of shape {value.shape} and dtype {value.dtype}"
    return f"a {type(value).__name__}"


def _numpy_dtype(spec: TensorSpec, where: str) -> Any:
    try:
        return NUMPY_DTYPES[spec.element]
    except KeyError:
        hint = (" (numpy has no bfloat16): take f32 at the boundary and convert inside the "
                "function with relax.astype" if spec.element == "bf16" else "")
        raise TypeError(f"{where}: element type {spec.element} has no numpy equivalent"
                        f"{hint}; parameters and results may be "
                        f"{', '.join(NUMPY_DTYPES)}") from None


def _rebuild(spec: TypeSpec, leaves: Iterator[np.ndarray]) -> Any:
    if isinstance(spec, TupleSpec):
        return tuple(_rebuild(f, leaves) for f in spec.fields)
    return next(leaves)


class Executable:
    """Compiled public functions of a module: `exe["name"](...)` or `exe.name(...)`."""

    def __init__(self, engine: Any, funcs: dict[str, Function], llvm_module: ir.Module) -> None:
        self._engine = engine
        self._functions = funcs
        self.llvm_module = llvm_module

    def _lookup(self, name: str, error: type) -> Function:
        try:
            return self._functions[name]
        except KeyError:
            raise error(f"no public function '{name}'; compiled: "
                        f"{', '.join(sorted(self._functions))}") from None

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
        """The compiled public functions' names, sorted."""
        return sorted(self._functions)


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


def compile(module: ModuleLike, target: str = "cpu", opt_level: int = 3,
            num_threads: int = 1, dump_ir: str | None = None,
            chip: str = "sm_90") -> Executable:
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
    Raises `CompilationError` (with MLIR's diagnostics) when lowering fails.
    """
    if target not in ("cpu", "cuda"):
        raise ValueError(f"target {target!r} is not supported; use target='cpu' or 'cuda'")
    if opt_level not in (0, 1, 2, 3) or isinstance(opt_level, bool):
        raise ValueError(f"opt_level must be 0, 1, 2 or 3, got {opt_level!r}")
    if not isinstance(num_threads, int) or isinstance(num_threads, bool) or num_threads < 1:
        raise ValueError(f"num_threads must be a positive int, got {num_threads!r}")
    if target == "cuda":
        return _compile_cuda(as_module(module), chip, opt_level)
    shared_libs = [_libs.C_RUNNER_UTILS]
    if num_threads > 1 and opt_level > 0:
        shared_libs.append(_openmp_runtime())
    module = as_module(module)
    specs = _public_specs(module)
    lowered = run_stages(module, opt_level, num_threads, dump_ir=dump_ir)
    try:
        engine = execution_engine.ExecutionEngine(
            lowered, opt_level=opt_level, shared_libs=shared_libs)
    except RuntimeError as e:
        raise CompilationError("JIT compilation failed", str(e)) from None
    for symbol, address in _relax_runtime.pool_symbols():
        engine.raw_register_runtime(symbol, ctypes.c_void_p(address))
    funcs = {name: Function(engine, name, p, r, a) for name, (p, r, a) in specs.items()}
    return Executable(engine, funcs, lowered)


class CudaFunction(Function):
    """A compiled public function whose buffers live on the GPU: a call copies
    the numpy arguments to device memory, runs, and copies the results back."""

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        from . import _cuda

        leaves = self._argument_leaves(args, kwargs)
        arrays = [self._prepare(where, spec, value)
                  for (where, spec), value in zip(self._in_leaves, leaves)]
        outputs = [np.empty(shape, dtype) for shape, dtype in self._out_leaves]
        buffers = _cuda.DeviceBuffers()
        try:
            pointers = [buffers.upload(a) for a in arrays]
            pointers += [buffers.alloc(o.nbytes) for o in outputs]
            _cuda.call_with_descriptors(self._address, pointers,
                                        [a.shape for a in arrays] + [o.shape for o in outputs])
            _cuda.check(f"running {self.name} on the GPU")
            for pointer, out in zip(pointers[len(arrays):], outputs):
                buffers.download(pointer, out)
        finally:
            buffers.free()
        return self._result_value(outputs)


def _compile_cuda(module: ir.Module, chip: str, opt_level: int) -> Executable:
    from . import _cuda
    from ._stages import run_gpu_pipeline

    _cuda.require_driver()
    specs = _public_specs(module)
    lowered = run_gpu_pipeline(module, chip, "fatbin" if _cuda.toolkit_ptxas() else "isa")
    try:
        engine = execution_engine.ExecutionEngine(
            lowered, opt_level=opt_level, shared_libs=[_libs.C_RUNNER_UTILS, _cuda.RUNTIME_PATH])
    except RuntimeError as e:
        raise CompilationError("JIT compilation failed", str(e)) from None
    funcs: dict[str, Function] = {
        name: CudaFunction(engine, name, p, r, None) for name, (p, r, _) in specs.items()}
    _cuda.check("loading the GPU kernels")
    return Executable(engine, funcs, lowered)
