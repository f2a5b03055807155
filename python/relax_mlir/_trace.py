"""Tracing Python functions into relax IR: traced arrays, pytrees, the trace.

A function written with `relax_mlir.numpy` and `relax_mlir.nn` is called once
per signature with `Tracer`s in place of its array arguments; every operation
on them appends a relax op (through the dialect's generated Python builders,
whose result types the ops' C++ type inference computes) to `@main` of a new
module, located at the user's `file:line`. The result is ordinary relax IR:
`gradient`, `lower` and `compile` take it from there.
"""

from __future__ import annotations

import functools
import inspect
import threading
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any, Union

import numpy as np

from . import ir
from ._boundary import NUMPY_DTYPES
from ._config import config
from ._module import functions, run_passes
from ._pytree import Treedef
from .dialects import arith, relax
from .dialects import func as func_d
from .errors import (
    RelaxMLIRError,
    format_location,
    format_mlir_error,
    user_position,
)


def dtype_of(element: str) -> np.dtype:
    """The numpy dtype of MLIR element type `element` (KeyError if none)."""
    return np.dtype(NUMPY_DTYPES[element])


def element_of(dtype: np.dtype) -> str | None:
    """The MLIR element type of numpy dtype `dtype`, or None."""
    return NUMPY_DTYPES.element_of(dtype)


# Promotion order between traced arrays (as JAX: an int with a float gives the
# float; f16 with bf16 gives f32, see `promote_types`).
PROMOTION_RANK = {"i1": 0, "i32": 1, "i64": 2, "f16": 3, "bf16": 3, "f32": 4, "f64": 5}
_F64 = np.dtype(np.float64)
_F32 = np.dtype(np.float32)


def canonical_dtype(dtype: Any) -> np.dtype:
    """`dtype` as traced functions hold it: float64 is float32 unless
    `config.enable_x64` (JAX's canonicalization; integers keep their width)."""
    dtype = np.dtype(dtype)
    if dtype == _F64 and not config.enable_x64:
        return _F32
    return dtype


def promote_types(*dtypes: Any) -> np.dtype:
    """The dtype operands of these dtypes compute in: the highest in
    PROMOTION_RANK; float16 with bfloat16 is float32 (neither holds the other)."""
    names = {element_name(d) for d in dtypes}
    if {"f16", "bf16"} <= names and "f64" not in names:
        return _F32
    top = max(names, key=lambda n: PROMOTION_RANK[n])
    return dtype_of(top)


class TracingError(RelaxMLIRError, ValueError):
    """An operation on traced arrays is invalid (shapes, dtypes, attributes);
    the message names the user's `file:line` where it was called."""


TracingError.__module__ = "relax_mlir"


def escaped_tracer(tracer: Any = None) -> TracingError:
    """The error for a traced array used after (or outside) its trace, naming
    the user's line."""
    what = f" ({tracer!r})" if tracer is not None else ""
    return TracingError(
        f"{_where(user_location())}: a traced array{what} was used after the function "
        f"traced with it returned",
        "traced arrays exist only while their function is traced (a function may use "
        "those of the functions it is called in: they become inputs of the inner "
        "function). Return values from the traced function instead of keeping them "
        "in a global or an attribute")


def element_name(dtype: Any, what: str = "dtype") -> str:
    """The MLIR element type of a numpy dtype, or a TypeError that lists the
    supported ones (`what` names the offending value)."""
    name = element_of(np.dtype(dtype))
    if name is None:
        raise TypeError(f"{what} {np.dtype(dtype)} is not supported; relax arrays are "
                        f"{', '.join(NUMPY_DTYPES.dtype_names())} (convert with .astype)")
    return name


def element_type(dtype: Any) -> ir.Type:
    """The MLIR element type of `dtype` in a traced function (canonical_dtype)."""
    return ir.Type.parse(element_name(canonical_dtype(dtype)))


def tensor_type(shape: Sequence[int], dtype: Any) -> ir.RankedTensorType:
    return ir.RankedTensorType.get(list(shape), element_type(dtype), loc=ir.Location.unknown())


def is_float(dtype: Any) -> bool:
    """Whether `dtype` is a float (bfloat16 too: its numpy kind is 'V')."""
    dtype = np.dtype(dtype)
    return dtype.kind == "f" or element_of(dtype) == "bf16"


# ----------------------------------------------------------------------------
# Where the user called us (call_site and user_position: errors.py)
# ----------------------------------------------------------------------------

def user_location() -> ir.Location:
    """The innermost frame outside relax_mlir as an MLIR file location."""
    position = user_position()
    return ir.Location.unknown() if position is None else ir.Location.file(*position)


# ----------------------------------------------------------------------------
# The trace
# ----------------------------------------------------------------------------

class _State(threading.local):
    def __init__(self) -> None:
        self.stack: list[Trace] = []


_STATE = _State()


def current_trace() -> Trace | None:
    """The innermost function being traced (level >= 1), None at the bottom
    (eager execution, EVAL_TRACE)."""
    return _STATE.stack[-1] if _STATE.stack else None


class EvalTrace:
    """The bottom trace, level 0: a relax_mlir.numpy/nn/lax function called on
    numpy values runs eagerly, as a one-op compiled function. How is the
    frontend's (`install`, when relax_mlir._frontend is imported); the core
    and the array layer only call it."""

    level = 0

    def __init__(self) -> None:
        self._impl: Callable[..., Any] | None = None

    def install(self, impl: Callable[..., Any]) -> None:
        self._impl = impl

    def call(self, fn: Callable[..., Any], args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
        if self._impl is None:
            # The frontend installs itself when imported (the package does so
            # on first use of any transformation); an eager call before that
            # loads it by name.
            import importlib
            importlib.import_module("relax_mlir._frontend")
        assert self._impl is not None
        return self._impl(fn, args, kwargs)


EVAL_TRACE = EvalTrace()


def primitive(fn: Callable[..., Any], name: str | None = None,
              doc: str | None = None) -> Callable[..., Any]:
    """An array function of relax_mlir.numpy/nn/lax: called while a function
    is traced, `fn` emits its ops into the innermost trace; called on numpy
    values (the bottom trace), it runs eagerly through EVAL_TRACE. `name` and
    `doc` name and document a function made by a factory."""
    if name is not None:
        fn.__name__ = fn.__qualname__ = name
    if doc is not None:
        fn.__doc__ = doc

    @functools.wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        if current_trace() is not None:
            return fn(*args, **kwargs)
        return EVAL_TRACE.call(fn, args, kwargs)

    return wrapper


def innermost_trace() -> Trace:
    """The innermost trace (inside a primitive, there is one)."""
    trace = current_trace()
    assert trace is not None
    return trace


def emit_op(builder: Callable[..., Any], *args: Any, **kwargs: Any) -> Tracer:
    """A relax op (a generated builder) in the innermost trace: traced arrays
    among `args` become its operands (lifted from enclosing traces)."""
    trace = innermost_trace()
    values = [trace.operand(a) for a in args]
    return Tracer(trace, trace.emit(builder, *values, op=builder.__name__, **kwargs))


class Trace:
    """One function being traced into `@main` of a fresh module.

    Traces nest (a `grad` called while a `jit` function is traced traces its
    function in a trace of its own): each knows the trace it began in, its
    `parent`. A traced array of an enclosing trace used in this one (a
    closure) is `lift`ed: it becomes a parameter of this trace's function
    (after the explicit ones, in order of first use), recorded in `captures`
    with the outer array to pass for it where the function is called."""

    def __init__(self) -> None:
        self.parent: Trace | None = None
        self.level = 1
        self.captures: list[tuple[Tracer, Tracer]] = []  # (outer array, parameter)
        self._captured: dict[int, Tracer] = {}
        self.context = ir.Context()
        self.context.__enter__()
        try:
            with ir.Location.unknown():
                self.module = ir.Module.create()
        except BaseException:
            self.context.__exit__(None, None, None)
            raise
        self.block: ir.Block | None = None
        self.func: Any = None

    def begin(self, name: str, params: Sequence[tuple[str, Sequence[int], Any]]) -> list[Tracer]:
        """Starts `@name` with the given (name, shape, dtype) parameters."""
        types = [tensor_type(s, d) for _, s, d in params]
        with ir.InsertionPoint(self.module.body), ir.Location.unknown():
            self.func = func_d.FuncOp(name, ir.FunctionType.get(types, []))
            self.func.arg_attrs = ir.ArrayAttr.get([
                ir.DictAttr.get({"relax.name": ir.StringAttr.get(n)}) for n, _, _ in params])
            self.block = self.func.add_entry_block()
        return [Tracer(self, v) for v in self.block.arguments]

    def lift(self, tracer: Tracer) -> Tracer:
        """`tracer` as an array of this trace: itself, or (an array of an
        enclosing trace) the parameter standing for it; a TracingError for an
        array of a trace that has ended."""
        if tracer._trace is self:
            return tracer
        if not self.encloses(tracer._trace):
            raise escaped_tracer(tracer)
        assert self.parent is not None and self.block is not None
        outer = tracer if tracer._trace is self.parent else self.parent.lift(tracer)
        inner = self._captured.get(id(outer))
        if inner is None:
            with self.context, ir.Location.unknown():
                arg = self.block.add_argument(tensor_type(outer.shape, outer.dtype),
                                              ir.Location.unknown())
            inner = Tracer(self, arg)
            self._captured[id(outer)] = inner
            self.captures.append((outer, inner))
        return inner

    def encloses(self, other: Trace) -> bool:
        """Whether `other` is a trace this one began in (directly or not)."""
        trace = self.parent
        while trace is not None:
            if trace is other:
                return True
            trace = trace.parent
        return False

    def finish(self, results: Sequence[ir.Value]) -> None:
        """Returns `results` (one value, or a tuple of them) from the function."""
        assert self.block is not None
        if self.captures:
            names = list(self.func.arg_attrs) + [
                ir.DictAttr.get({"relax.name": ir.StringAttr.get(f"captured{i}")},
                                context=self.context)
                for i in range(len(self.captures))]
            self.func.arg_attrs = ir.ArrayAttr.get(names, context=self.context)
        with ir.InsertionPoint(self.block), ir.Location.unknown():
            if len(results) == 1:
                value = results[0]
            else:
                value = relax.tuple(list(results))
            func_d.ReturnOp([value])
        self.func.attributes["function_type"] = ir.TypeAttr.get(
            ir.FunctionType.get([a.type for a in self.block.arguments], [value.type]))
        run_passes(self.module, "builtin.module(func.func(relax-convert-to-dataflow))",
                   TracingError, "the traced function is invalid IR")

    def __enter__(self) -> Trace:
        self.parent = current_trace()
        # Levels: 0 is eager execution, 1 a function traced from it, 2 one
        # traced while that one is, ...
        self.level = (self.parent.level if self.parent is not None else EVAL_TRACE.level) + 1
        _STATE.stack.append(self)
        return self

    def __exit__(self, *exc: Any) -> None:
        _STATE.stack.pop()
        self.context.__exit__(None, None, None)

    # Emitting ops ------------------------------------------------------------

    def emit(self, builder: Callable[..., Any], *args: Any, op: str = "", **kwargs: Any) -> Any:
        """Calls a generated builder (returning the op's result, or the op
        itself: one with regions, filled in by the builder) at the end of the
        function, located at the user's line; an invalid op becomes a
        TracingError naming that line."""
        if _STATE.stack[-1] is not self:
            raise escaped_tracer()
        loc = user_location()
        try:
            with ir.InsertionPoint(self.block), loc:
                result = builder(*args, **kwargs)
                # Type inference ran while building; the rest of the verifier
                # (operand types, attributes) runs now, at the user's line.
                (result.owner if isinstance(result, ir.Value) else result).verify()
                return result
        except ir.MLIRError as e:
            name = op or getattr(builder, "__name__", "op")
            raise TracingError(f"{_where(loc)}: invalid {name}", format_mlir_error(e)) from None

    def operand(self, value: Any) -> Any:
        """A builder operand: a traced array's value in this trace (lifted
        from an enclosing trace if need be); anything else as it is."""
        return self.lift(value).value if isinstance(value, Tracer) else value

    def import_function(self, module: ir.Module, name: str, base: str) -> str:
        """Copies function `name` of `module` (another trace's) into this
        module as a private function with a fresh name based on `base`, with
        the functions it references (calls, rule functions), renamed too."""
        source = module.operation.get_asm(enable_debug_info=True, print_generic_op_form=True)
        copy = ir.Module.parse(source, context=self.context)
        by_name = functions(copy)
        if name not in by_name:
            raise KeyError(name)
        needed = [name]
        for fn_name in needed:  # grows while walking
            for ref in _symbol_references(by_name[fn_name]):
                if ref in by_name and ref not in needed:
                    needed.append(ref)
        taken = set(functions(self.module))
        renamed: dict[str, str] = {}
        for fn_name in needed:
            stem = base if fn_name == name else f"{base}_{fn_name}"
            fresh, n = stem, 0
            while fresh in taken:
                n += 1
                fresh = f"{stem}_{n}"
            taken.add(fresh)
            renamed[fn_name] = fresh
        with self.context:
            for old, new in renamed.items():
                ir.SymbolTable.replace_all_symbol_uses(old, new, copy.operation)
            for old, new in renamed.items():
                op = by_name[old]
                op.attributes["sym_name"] = ir.StringAttr.get(new)
                op.attributes["sym_visibility"] = ir.StringAttr.get("private")
                self.module.body.append(op)
        return renamed[name]

    def call(self, callee: str, operands: Sequence[ir.Value]) -> ir.Value:
        """`func.call @callee(operands)` at the user's line; its one result."""
        func = functions(self.module)[callee]
        result_type = ir.FunctionType(ir.TypeAttr(func.attributes["function_type"]).value)
        return self.emit(lambda: func_d.CallOp(result_type.results, callee, list(operands)
                                               ).results[0], op="call")

    def tuple_item(self, value: ir.Value, index: int) -> Any:
        """Field `index` of a tuple value: a Tracer for a tensor, else the value."""
        item = self.emit(relax.tuple_get_item, value, index, op="tuple_get_item")
        return Tracer(self, item) if isinstance(item.type.maybe_downcast(),
                                                ir.RankedTensorType) else item

    def constant(self, value: Any, dtype: Any = None) -> Tracer:
        """An `arith.constant` tensor of `value` (numpy array or scalar)."""
        array = np.asarray(value, dtype=dtype)
        element_name(array.dtype, "a constant of dtype")
        array = array.astype(canonical_dtype(array.dtype), copy=False)
        loc = user_location()
        with ir.InsertionPoint(self.block), loc:
            ttype = tensor_type(array.shape, array.dtype)
            if array.dtype == np.bool_:
                attr = ir.DenseElementsAttr.get(np.packbits(array, bitorder="little"),
                                                type=ttype)
            else:
                attr = ir.DenseElementsAttr.get(np.ascontiguousarray(array), type=ttype)
            return Tracer(self, arith.ConstantOp(ttype, attr).result)


def _symbol_references(op: Any) -> list[str]:
    """The flat symbol names `op` and the ops nested in it refer to."""
    names: list[str] = []

    def visit(o: Any) -> Any:
        attributes = o.attributes
        for key in attributes:
            value = attributes[key] if isinstance(key, str) else key.attr
            if isinstance(value.maybe_downcast() if hasattr(value, "maybe_downcast") else value,
                          ir.FlatSymbolRefAttr):
                names.append(ir.FlatSymbolRefAttr(value).value)
        return ir.WalkResult.ADVANCE

    op.operation.walk(visit)
    return names


def _where(loc: ir.Location) -> str:
        return format_location(loc)


class Tracer:
    """A traced array: stands for a relax tensor while a function is traced.

    It has numpy's array interface (`shape`, `dtype`, operators, `@`, `.T`,
    reductions, indexing); values are known only when the compiled function
    runs, so Python control flow on them (`if x > 0:`) is an error: use
    `relax_mlir.numpy.where`. So are `float(x)`, `int(x)` and
    `np.asarray(x)` (a TypeError saying why and what to do instead). numpy's
    functions and ufuncs called on it (`np.sum(x)`, `np.exp(x)`,
    `np_array * x`) run `relax_mlir.numpy`'s function of that name; one
    that `relax_mlir.numpy` lacks, or a ufunc writing into a numpy array
    (`out=`, `np_array += x`), is a TypeError naming it."""

    __slots__ = ("_trace", "value", "shape", "dtype")
    __array_priority__ = 1000

    def __init__(self, trace: Trace, value: ir.Value) -> None:
        self._trace = trace
        self.value = value
        t = ir.RankedTensorType(value.type)
        self.shape: tuple[int, ...] = tuple(t.shape)
        self.dtype: np.dtype = dtype_of(str(t.element_type))

    @property
    def ndim(self) -> int:
        """The number of dimensions."""
        return len(self.shape)

    @property
    def size(self) -> int:
        """The number of elements."""
        return int(np.prod(self.shape, dtype=np.int64))

    def __repr__(self) -> str:
        return f"Traced<{self.dtype}{list(self.shape)}>"

    def __len__(self) -> int:
        if not self.shape:
            raise TypeError("len() of a 0-d traced array")
        return self.shape[0]

    def __bool__(self) -> bool:
        raise TypeError("the truth value of a traced array is unknown while tracing: Python "
                        "`if`/`while`/`and`/`or` on array values cannot be compiled; use "
                        "relax_mlir.numpy.where(cond, a, b) to select values")

    def _concrete(self, what: str) -> TypeError:
        """The error for asking a traced array for a Python value (as JAX's
        ConcretizationTypeError)."""
        return TypeError(f"{what} of {self!r}: a traced array has no value while its function "
                         f"is traced (the value exists only when the compiled code runs). Keep "
                         f"it an array (relax_mlir.numpy functions; relax_mlir.numpy.where for "
                         f"choices), return it from the function and convert the result, or "
                         f"pass a Python constant as a static argument (static_argnums)")

    def __float__(self) -> float:
        raise self._concrete("float()")

    def __int__(self) -> int:
        raise self._concrete("int()")

    def __complex__(self) -> complex:
        raise self._concrete("complex()")

    def __index__(self) -> int:
        raise self._concrete("using it as an index or size (__index__)")

    def __array__(self, *args: Any, **kwargs: Any) -> np.ndarray:
        raise self._concrete("np.asarray / np.array (conversion to a numpy array)")

    def __array_ufunc__(self, ufunc: Any, method: str, *inputs: Any, **kwargs: Any) -> Any:
        """numpy ufuncs (`np.exp(x)`, `np_array * x`) on traced arrays run
        relax_mlir.numpy's function of that name; others are a TypeError
        naming the way out."""
        name = getattr(ufunc, "__name__", str(ufunc))
        if method != "__call__" or name not in _UFUNCS:
            call = f"numpy.{name}" + ("" if method == "__call__" else f".{method}")
            raise TypeError(f"{call} is not supported on traced arrays ({self!r}): "
                            f"{_instead(name if method == '__call__' else None)}")
        if kwargs:
            what = ("writes its result into a numpy array (out=, or an in-place operator "
                    "such as `a += x` with a numpy array `a`); write `a = a + x` instead"
                    if "out" in kwargs else f"takes no {', '.join(sorted(kwargs))} here")
            raise TypeError(f"numpy.{name} on traced arrays {what} (relax_mlir.numpy.{name})")
        return getattr(_rnp(), _UFUNCS[name])(*inputs)

    def __array_function__(self, func: Any, types: Any, args: Any, kwargs: Any) -> Any:
        """numpy functions (`np.sum(x)`, `np.concatenate([x, y])`) on traced
        arrays run relax_mlir.numpy's function of that name; others are a
        TypeError naming the way out."""
        name = getattr(func, "__name__", str(func))
        if name in ("shape", "ndim", "size") and hasattr(func, "_implementation"):
            return func._implementation(*args, **kwargs)  # they read the attributes
        rnp = _rnp()
        if name not in rnp.__all__ or not callable(getattr(rnp, name)) or \
                isinstance(getattr(rnp, name), type):
            raise TypeError(f"numpy.{name} is not supported on traced arrays ({self!r}): "
                            f"{_instead(name)}")
        fn = getattr(rnp, name)
        try:
            inspect.signature(fn).bind(*args, **kwargs)
        except TypeError as e:
            raise TypeError(f"numpy.{name} on traced arrays runs relax_mlir.numpy.{name}"
                            f"{inspect.signature(fn)}, which cannot take these arguments "
                            f"({e})") from None
        return fn(*args, **kwargs)

    def __iter__(self) -> Iterator[Tracer]:
        for i in range(len(self)):
            yield _rnp().getitem(self, i)

    def __hash__(self) -> int:
        return id(self)

    # Operators and array methods (`+`, `@`, `.T`, `.sum()`, ...) are set by
    # the array namespace (relax_mlir.numpy: register_array_namespace).


# The module implementing arrays' operations (relax_mlir.numpy registers
# itself): the tracer's operators and methods, and numpy's functions and
# ufuncs called on tracers, go to its functions. The core imports no layer
# above it.
_ARRAY_NAMESPACE: Any = None


def register_array_namespace(namespace: Any, methods: dict[str, Any]) -> None:
    """Makes `namespace` (a module of array functions) the one traced arrays'
    operations call, and sets `methods` (operators, `.T`, `.sum`, ...) on
    Tracer."""
    global _ARRAY_NAMESPACE
    _ARRAY_NAMESPACE = namespace
    for name, method in methods.items():
        setattr(Tracer, name, method)


def _rnp() -> Any:
    if _ARRAY_NAMESPACE is None:
        raise RuntimeError("no array namespace: import relax_mlir.numpy (the frontend does)")
    return _ARRAY_NAMESPACE


# numpy ufuncs -> the relax_mlir.numpy functions that compute them on tracers.
_UFUNCS = {name: name for name in (
    "add", "subtract", "multiply", "divide", "power", "maximum", "minimum", "equal",
    "not_equal", "greater", "greater_equal", "less", "less_equal", "exp", "log", "sqrt",
    "sin", "cos", "tan", "tanh", "negative", "absolute", "square", "sign", "matmul")}
_UFUNCS["true_divide"] = "divide"


def _instead(name: str | None) -> str:
    """What to do instead of a numpy function relax_mlir.numpy lacks."""
    hint = f"relax_mlir.numpy has no {name}" if name else "relax_mlir.numpy has no equivalent"
    return (f"{hint}; write it with relax_mlir.numpy's functions (import relax_mlir.numpy as "
            f"rnp), which trace into the compiled function (numpy's cannot: the value exists "
            f"only when the compiled code runs)")


ArrayLike = Union[Tracer, np.ndarray, float, int, bool]


# ----------------------------------------------------------------------------
# Tracing a function
# ----------------------------------------------------------------------------

@dataclass
class ArgSpec:
    """The non-static arguments of one call: structure, leaf paths and types."""

    treedef: Treedef
    paths: list[str]
    shapes: list[tuple[int, ...]]
    dtypes: list[np.dtype]


def as_leaf_array(value: Any, where: str) -> np.ndarray:
    """A call's array leaf as numpy (Python scalars as JAX types them: float
    -> float32, int -> int32... here int64, bool -> bool)."""
    if isinstance(value, Tracer):
        raise TypeError(f"argument {where} is a traced array of another function")
    if isinstance(value, bool):
        return np.asarray(value, np.bool_)
    if isinstance(value, int):
        return np.asarray(value, np.int64)
    if isinstance(value, float):
        return np.asarray(value, np.float32)
    if not isinstance(value, (np.ndarray, np.generic)):
        raise TypeError(f"argument {where}: expected a numpy array, a Python scalar or a "
                        f"tuple/list/dict of them, got {type(value).__name__}")
    array = np.asarray(value)
    if element_of(array.dtype) is None and element_of(array.dtype.newbyteorder("=")) is not None:
        array = array.astype(array.dtype.newbyteorder("="))
    element_name(array.dtype, f"argument {where}: dtype")
    return array.astype(canonical_dtype(array.dtype), copy=False)


def signature_names(fn: Callable[..., Any], count: int) -> list[str]:
    """Names of the first `count` positional parameters of `fn` (`args[i]`
    for a *args tail, `arg<i>` when the signature is unknown)."""
    try:
        params = list(inspect.signature(fn).parameters.values())
    except (TypeError, ValueError):
        return [f"arg{i}" for i in range(count)]
    names: list[str] = []
    for p in params:
        if len(names) == count:
            break
        if p.kind == p.VAR_POSITIONAL:
            names.extend(f"{p.name}[{i}]" for i in range(count - len(names)))
            break
        if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD):
            names.append(p.name)
    names.extend(f"arg{i}" for i in range(len(names), count))
    return names
