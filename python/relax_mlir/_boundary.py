"""The call boundary of compiled functions, in pure Python (numpy only).

Shared by `relax_mlir.compile` (JIT) and `relax_mlir.runtime` (libraries
written by `Executable.export`, loaded without MLIR): the types of parameters
and results (`TensorSpec`, `TupleSpec`), binding positional and keyword
arguments, flattening tuples into tensor leaves, checking each leaf's dtype and
shape with errors that name the parameter and the fix, and rebuilding results.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Generic, TypeVar, Union

import numpy as np


class _ElementDtypes(Mapping[str, Any]):
    """The element types of relax tensors and their numpy dtypes. bf16 is
    ml_dtypes' bfloat16 (JAX's) when ml_dtypes is installed (a dependency),
    imported on the first lookup of bf16 (or of a dtype named bfloat16):
    importing ml_dtypes takes about 0.6 s, three quarters of
    `import relax_mlir.numpy`, which a process without bfloat16 arrays need
    not pay. Its keys are known without the import."""

    _EAGER: dict[str, Any] = {
        "f16": np.float16, "f32": np.float32, "f64": np.float64,
        "i1": np.bool_, "i32": np.int32, "i64": np.int64,
    }
    # The other way, for element_of (every traced argument is looked up).
    _EAGER_ELEMENTS: dict[np.dtype, str] = {np.dtype(v): k for k, v in _EAGER.items()}

    def __init__(self) -> None:
        self._keys: list[str] | None = None
        self._bf16: Any = None

    def _bfloat16(self) -> Any:
        if self._bf16 is None:
            try:
                import ml_dtypes
                self._bf16 = ml_dtypes.bfloat16
            except ImportError:  # pragma: no cover (a dependency; a library loader may lack it)
                self._bf16 = False
        return self._bf16 or None

    def __getitem__(self, element: str) -> Any:
        if element in self._EAGER:
            return self._EAGER[element]
        bf16 = self._bfloat16() if element == "bf16" else None
        if bf16 is None:
            raise KeyError(element)
        return bf16

    def __iter__(self) -> Iterator[str]:
        if self._keys is None:
            import importlib.util

            self._keys = list(self._EAGER)
            if self._bf16 or (self._bf16 is None and importlib.util.find_spec("ml_dtypes")):
                self._keys.append("bf16")
        return iter(self._keys)

    def __len__(self) -> int:
        return sum(1 for _ in self)

    def __contains__(self, element: object) -> bool:
        return element in self._EAGER or (element == "bf16" and "bf16" in list(self))

    def dtype_names(self) -> list[str]:
        """The numpy names of the dtypes (float32, ..., bfloat16), without
        importing ml_dtypes."""
        return [np.dtype(v).name for v in self._EAGER.values()] + (
            ["bfloat16"] if "bf16" in self else [])

    def element_of(self, dtype: np.dtype) -> str | None:
        """The element type whose numpy dtype `dtype` is, or None."""
        element = self._EAGER_ELEMENTS.get(dtype)
        if element is None and dtype.name == "bfloat16" and dtype == self._bfloat16():
            return "bf16"
        return element


NUMPY_DTYPES = _ElementDtypes()

# Results of at least this many bytes come from the runtime's buffer pool
# (the JIT's, or an exported library's): 64-byte aligned (numpy aligns to
# 16; the compiled code writes whole vectors), and recycled when the array is
# freed (fresh pages would fault in on every call: 5-8% of a deep MLP step).
POOL_RESULT_BYTES = 64 * 1024


@dataclass(frozen=True)
class TensorSpec:
    """A static tensor type: its shape and MLIR element type name."""

    shape: tuple[int, ...]
    element: str

    def __str__(self) -> str:
        dims = "x".join(str(d) for d in self.shape)
        return f"tensor<{dims + 'x' if dims else ''}{self.element}>"


@dataclass(frozen=True)
class TupleSpec:
    """A tuple type of nested specs."""

    fields: tuple[TypeSpec, ...]

    def __str__(self) -> str:
        return "tuple<" + ", ".join(str(f) for f in self.fields) + ">"


TypeSpec = Union[TensorSpec, TupleSpec]


def spec_to_json(spec: TypeSpec) -> Any:
    """`spec` as JSON data: {"shape": [...], "element": "f32"} or {"tuple": [...]}."""
    if isinstance(spec, TupleSpec):
        return {"tuple": [spec_to_json(f) for f in spec.fields]}
    return {"shape": list(spec.shape), "element": spec.element}


def spec_from_json(data: Any) -> TypeSpec:
    if "tuple" in data:
        return TupleSpec(tuple(spec_from_json(f) for f in data["tuple"]))
    return TensorSpec(tuple(int(d) for d in data["shape"]), str(data["element"]))


F = TypeVar("F")


class FunctionTable(Generic[F]):
    """The public functions of a compiled module or a loaded library, by
    name: `table["name"]`, `table.name`, `"name" in table`, and
    `function_names`. Subclasses fill `_functions` and may say what a missing
    name's error adds (`_missing`)."""

    _functions: dict[str, F]

    def _missing(self, name: str) -> str:
        return f"no public function '{name}'; compiled: {', '.join(self.function_names)}"

    def _lookup(self, name: str, error: type) -> F:
        try:
            return self._functions[name]
        except KeyError:
            raise error(self._missing(name)) from None

    def __getitem__(self, name: str) -> F:
        return self._lookup(name, KeyError)

    def __getattr__(self, name: str) -> F:
        if name.startswith("_"):
            raise AttributeError(name)
        return self._lookup(name, AttributeError)

    def __contains__(self, name: str) -> bool:
        return name in self._functions

    @property
    def function_names(self) -> list[str]:
        """The functions' names, sorted."""
        return sorted(self._functions)


class CallBoundary:
    """A function's parameters (names and types) and result type, and the
    checks and conversions of a call from Python: subclasses run the code."""

    def __init__(self, name: str, params: list[tuple[str, TypeSpec]], result: TypeSpec) -> None:
        self.name = name
        self.params = params
        self.result = result
        self._param_names = [n for n, _ in params]
        # Leaves in argument order, named as errors refer to them ("t[1]").
        self._in_leaves: list[tuple[str, TensorSpec]] = [
            leaf for pname, spec in params for leaf in _named_leaves(pname, spec)]
        self._flat = all(isinstance(spec, TensorSpec) for _, spec in params)
        # A leaf without a numpy dtype (bf16 without ml_dtypes) makes the function uncallable
        # from numpy; the error is raised at the call, the rest of the module
        # stays usable.
        self._unsupported: TypeError | None = None
        self._out_leaves: list[tuple[tuple[int, ...], np.dtype]] = []
        try:
            for where, spec in self._in_leaves:
                _numpy_dtype(spec, f"argument '{where}' of {name}")
            self._out_leaves = [(s.shape, np.dtype(_numpy_dtype(s, f"result of {name}")))
                                for s in _leaves(result)]
        except TypeError as e:
            self._unsupported = e
        # Each result leaf's bytes, computed once: a call allocates its results.
        self._out_bytes: list[int] = [math.prod(shape) * dtype.itemsize
                                      for shape, dtype in self._out_leaves]

    def __repr__(self) -> str:
        args = ", ".join(f"{n}: {s}" for n, s in self.params)
        return f"<{self._kind} {self.name}({args}) -> {self.result}>"

    _kind = "relax_mlir.Function"

    def _argument_leaves(self, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Sequence[Any]:
        """The call's tensor arguments in order (keywords bound, tuples flattened)."""
        if kwargs or len(args) != len(self.params):
            args = self._bind(args, kwargs)
        if self._unsupported is not None:
            raise TypeError(str(self._unsupported))
        return args if self._flat else self._flatten(args)

    def _new_outputs(self, pooled: Callable[[int], np.ndarray]) -> list[np.ndarray]:
        """Uninitialized result arrays for a call: those of POOL_RESULT_BYTES
        or more over `pooled(nbytes)` (a uint8 array from a buffer pool,
        64-byte aligned, returned to the pool when numpy frees it)."""
        return [np.empty(shape, dtype) if nbytes < POOL_RESULT_BYTES
                else pooled(nbytes).view(dtype).reshape(shape)
                for (shape, dtype), nbytes in zip(self._out_leaves, self._out_bytes)]

    def _result_value(self, outputs: Sequence[Any]) -> Any:
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
                module = "ml_dtypes" if spec.element == "bf16" else "np"
                raise TypeError(f"argument '{where}' of {self.name}: expected dtype "
                                f"{dtype.name} for {spec}, got {_dtype_name(array.dtype)}; "
                                f"convert it with .astype({module}.{dtype.name})")
        if array.shape != spec.shape:
            raise ValueError(f"argument '{where}' of {self.name}: expected shape {spec.shape} "
                             f"for {spec}, got {array.shape}")
        # The compiled code never writes its arguments (they are bufferized
        # read-only); contiguity is all the ABI needs. (np.ascontiguousarray
        # would make a 0-d array 1-d.)
        return array if array.flags.c_contiguous else array.copy(order="C")


def _leaves(spec: TypeSpec) -> Iterator[TensorSpec]:
    if isinstance(spec, TupleSpec):
        for f in spec.fields:
            yield from _leaves(f)
    else:
        yield spec


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


def itemsize(spec: TensorSpec) -> int:
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
        hint = (" (bfloat16 arrays need the ml_dtypes package: pip install ml_dtypes)"
                if spec.element == "bf16" else "")
        raise TypeError(f"{where}: element type {spec.element} has no numpy equivalent"
                        f"{hint}; parameters and results may be "
                        f"{', '.join(NUMPY_DTYPES)}") from None


def _rebuild(spec: TypeSpec, leaves: Iterator[Any]) -> Any:
    if isinstance(spec, TupleSpec):
        return tuple(_rebuild(f, leaves) for f in spec.fields)
    return next(leaves)


def leaf_specs(spec: TypeSpec) -> list[TensorSpec]:
    """The tensor leaves of `spec`, in order."""
    return list(_leaves(spec))
