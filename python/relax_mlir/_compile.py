"""`relax_mlir.compile`: lower relax functions to LLVM and call them on numpy arrays."""

from __future__ import annotations

import ctypes
from typing import Any, Iterator, Union

import numpy as np

from . import _build_config, execution_engine, ir, passmanager
from ._module import (ModuleLike, TensorSpec, TupleSpec, TypeSpec, as_module, clone_module,
                      functions, parameter_names, type_spec)
from .errors import CompilationError, format_mlir_error
from .runtime import np_to_memref

_NUMPY_DTYPES = {
    "f16": np.float16, "f32": np.float32, "f64": np.float64,
    "i1": np.bool_, "i32": np.int32, "i64": np.int64,
}

PIPELINE = "builtin.module(relax-to-llvm)"


def _leaves(spec: TypeSpec) -> Iterator[TensorSpec]:
    if isinstance(spec, TupleSpec):
        for f in spec.fields:
            yield from _leaves(f)
    else:
        yield spec


class Function:
    """A compiled public function; call it with numpy arrays (tuples for tuple parameters)."""

    def __init__(self, engine: Any, name: str, params: list[tuple[str, TypeSpec]],
                 result: TypeSpec) -> None:
        self._engine = engine
        self.name = name
        self.params = params
        self.result = result

    def __repr__(self) -> str:
        args = ", ".join(f"{n}: {s}" for n, s in self.params)
        return f"<relax_mlir.Function {self.name}({args}) -> {self.result}>"

    def __call__(self, *args: Any) -> Any:
        if len(args) != len(self.params):
            names = ", ".join(n for n, _ in self.params)
            raise TypeError(f"{self.name}() takes {len(self.params)} arguments ({names}), "
                            f"got {len(args)}")
        inputs: list[np.ndarray] = []
        for (pname, spec), value in zip(self.params, args):
            self._flatten_arg(pname, spec, value, inputs)
        outputs = [np.empty(s.shape, _numpy_dtype(s, f"result of {self.name}"))
                   for s in _leaves(self.result)]
        pointers = [ctypes.pointer(ctypes.pointer(np_to_memref.get_ranked_memref_descriptor(a)))
                    for a in inputs + outputs]
        self._engine.invoke(self.name, *pointers)
        it = iter(outputs)
        return _rebuild(self.result, it)

    def _flatten_arg(self, where: str, spec: TypeSpec, value: Any, out: list[np.ndarray]) -> None:
        if isinstance(spec, TupleSpec):
            if not isinstance(value, (tuple, list)) or len(value) != len(spec.fields):
                raise TypeError(f"argument '{where}' of {self.name}: expected a tuple of "
                                f"{len(spec.fields)} values for {spec}, got {_describe(value)}")
            for i, (field, v) in enumerate(zip(spec.fields, value)):
                self._flatten_arg(f"{where}[{i}]", field, v, out)
            return
        dtype = _numpy_dtype(spec, f"argument '{where}' of {self.name}")
        if not isinstance(value, (np.ndarray, np.generic, int, float, bool)):
            raise TypeError(f"argument '{where}' of {self.name}: expected a numpy array for "
                            f"{spec}, got {_describe(value)}")
        array = np.asarray(value)
        if array.dtype != dtype:
            raise TypeError(f"argument '{where}' of {self.name}: expected dtype "
                            f"{np.dtype(dtype).name} for {spec}, got {array.dtype.name}; "
                            f"convert it with .astype(np.{np.dtype(dtype).name})")
        if array.shape != spec.shape:
            raise ValueError(f"argument '{where}' of {self.name}: expected shape {spec.shape} "
                             f"for {spec}, got {array.shape}")
        # The compiled code never writes its arguments (they are bufferized
        # read-only); contiguity is all the ABI needs.
        out.append(np.ascontiguousarray(array))


def _describe(value: Any) -> str:
    if isinstance(value, np.ndarray):
        return f"an array of shape {value.shape} and dtype {value.dtype}"
    return f"a {type(value).__name__}"


def _numpy_dtype(spec: TensorSpec, where: str) -> Any:
    try:
        return _NUMPY_DTYPES[spec.element]
    except KeyError:
        raise TypeError(f"{where}: element type {spec.element} has no numpy equivalent "
                        f"(supported: {', '.join(_NUMPY_DTYPES)})") from None


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
        return sorted(self._functions)


def compile(module: ModuleLike, target: str = "cpu", opt_level: int = 3) -> Executable:
    """Lowers every function of `module` to LLVM and JIT-compiles the public ones.

    Only `target="cpu"` exists so far. The input module is left unchanged.
    Raises `CompilationError` (with MLIR's diagnostics) when lowering fails.
    """
    if target != "cpu":
        raise ValueError(f"target {target!r} is not supported; use target='cpu'")
    if opt_level not in (0, 1, 2, 3):
        raise ValueError(f"opt_level must be 0, 1, 2 or 3, got {opt_level!r}")
    module = as_module(module)
    specs: dict[str, tuple[list[tuple[str, TypeSpec]], TypeSpec]] = {}
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
        specs[name] = (params, result)
    lowered = clone_module(module)
    try:
        passmanager.PassManager.parse(PIPELINE, context=module.context).run(lowered.operation)
    except ir.MLIRError as e:
        raise CompilationError("lowering to LLVM failed", format_mlir_error(e)) from None
    try:
        engine = execution_engine.ExecutionEngine(
            lowered, opt_level=opt_level, shared_libs=[_build_config.C_RUNNER_UTILS])
    except RuntimeError as e:
        raise CompilationError("JIT compilation failed", str(e)) from None
    funcs = {name: Function(engine, name, p, r) for name, (p, r) in specs.items()}
    return Executable(engine, funcs, lowered)
