"""Helpers of the relax_mlir tests: IR text, compiling, sampling, differences.

Generates MLIR text for small one-op functions (in the generic op form that the
interchange contract fixes), caches compiled executables, and computes float64
central finite differences of numpy reference functions.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import relax_mlir

Shape = tuple[int, ...]

_ELEMENTS: dict[type, str] = {
    np.float16: "f16",
    np.float32: "f32",
    np.float64: "f64",
    np.int32: "i32",
    np.int64: "i64",
    np.bool_: "i1",
}

FLOAT_DTYPES = (np.float32, np.float64)
INT_DTYPES = (np.int32, np.int64)
NUMERIC_DTYPES = FLOAT_DTYPES + INT_DTYPES


def element_type(dtype: Any) -> str:
    """The MLIR element type name of a numpy dtype (float32 -> "f32")."""
    return _ELEMENTS[np.dtype(dtype).type]


def tensor_type(shape: Sequence[int], dtype: Any) -> str:
    """The MLIR tensor type text of a shape and numpy dtype: (4, 3), float32 -> tensor<4x3xf32>."""
    dims = "x".join(str(int(d)) for d in shape)
    return f"tensor<{dims + 'x' if dims else ''}{element_type(dtype)}>"


def float_text(x: float) -> str:
    """A float as MLIR reads it back exactly: 17 significant digits, with a
    '.' (MLIR's float literals need one: 1e+20 is written 1.0e+20)."""
    s = f"{float(x):.17g}"
    if "e" in s and "." not in s:
        s = s.replace("e", ".0e")
    elif "e" not in s and "." not in s and s not in ("inf", "-inf", "nan"):
        s += ".0"
    return s


def attr_text(value: Any) -> str:
    """An attribute value in the contract's attribute kinds."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return f"{value} : i64"
    if isinstance(value, float):
        return f"{float_text(value)} : f64"
    if isinstance(value, str):
        return f'"{value}"'
    if isinstance(value, (list, tuple)):
        return "array<i64" + (": " + ", ".join(str(int(v)) for v in value) if value else "") + ">"
    raise TypeError(f"no attribute text for {value!r}")


def attr_dict_text(attrs: Mapping[str, Any] | None) -> str:
    if not attrs:
        return ""
    items = [f"{k} = {attr_text(v)}" for k, v in attrs.items() if v is not None]
    return " {" + ", ".join(items) + "}" if items else ""


@dataclass(frozen=True)
class Param:
    """A function parameter: its relax.name, shape and numpy dtype."""

    name: str
    shape: Shape
    dtype: Any

    @property
    def type(self) -> str:
        return tensor_type(self.shape, self.dtype)


def params_of(arrays: Mapping[str, np.ndarray]) -> list[Param]:
    """Parameters matching named example arrays (in mapping order)."""
    return [Param(n, tuple(a.shape), a.dtype.type) for n, a in arrays.items()]


def generic_op(result: str, op: str, operands: Sequence[str], operand_types: Sequence[str],
               result_type: str, attrs: Mapping[str, Any] | None = None) -> str:
    """One binding in generic form: %r = "relax.op"(%a, %b) {attrs} : (A, B) -> R."""
    return (f'{result} = "relax.{op}"({", ".join(operands)}){attr_dict_text(attrs)} : '
            f'({", ".join(operand_types)}) -> {result_type}')


def _signature(params: Sequence[Param]) -> str:
    return ", ".join(f'%{p.name}: {p.type} {{relax.name = "{p.name}"}}' for p in params)


def function_text(name: str, params: Sequence[Param], bindings: Sequence[str], result: str,
                  result_type: str) -> str:
    """A func.func whose one dataflow block holds `bindings` and outputs `result`."""
    body = "\n".join("    " + b for b in bindings)
    return (f"func.func @{name}({_signature(params)}) -> {result_type} {{\n"
            f"  %r = relax.dataflow -> ({result_type}) {{\n"
            f"{body}\n"
            f"    relax.output {result} : {result_type}\n"
            f"  }}\n"
            f"  return %r : {result_type}\n"
            f"}}\n")


def op_function(op: str, params: Sequence[Param], result_shape: Sequence[int], result_dtype: Any,
                attrs: Mapping[str, Any] | None = None, name: str = "main") -> str:
    """A function `name(params...)` returning `relax.<op>(params...)`."""
    rtype = tensor_type(result_shape, result_dtype)
    binding = generic_op("%0", op, [f"%{p.name}" for p in params], [p.type for p in params],
                         rtype, attrs)
    return function_text(name, params, [binding], "%0", rtype)


def loss_function(op: str, params: Sequence[Param], result_shape: Sequence[int], result_dtype: Any,
                  attrs: Mapping[str, Any] | None = None, cotangent: str = "c",
                  name: str = "main") -> str:
    """`name(params..., c) = sum(op(params...) * c)`, c of the op's result type (a cotangent)."""
    rtype = tensor_type(result_shape, result_dtype)
    stype = tensor_type((), result_dtype)
    c = Param(cotangent, tuple(result_shape), result_dtype)
    bindings = [
        generic_op("%0", op, [f"%{p.name}" for p in params], [p.type for p in params], rtype,
                   attrs),
        generic_op("%1", "multiply", ["%0", f"%{cotangent}"], [rtype, rtype], rtype),
        generic_op("%2", "sum", ["%1"], [rtype], stype),
    ]
    return function_text(name, list(params) + [c], bindings, "%2", stype)


def type_of(example: Any, dtype: Any) -> str:
    """The MLIR type of an example result: a tensor of `dtype` with the example's
    shape, or a tuple type for a tuple of examples."""
    if isinstance(example, tuple):
        return "tuple<" + ", ".join(type_of(e, dtype) for e in example) + ">"
    return tensor_type(np.shape(example), dtype)


def one_op_function(op: str, params: Sequence[Param], result_type: str,
                    attrs: Mapping[str, Any] | None = None, name: str = "main") -> str:
    """`name(params...)` returning `relax.<op>(params...)` of any result type (a tuple too)."""
    binding = generic_op("%0", op, [f"%{p.name}" for p in params], [p.type for p in params],
                         result_type, attrs)
    return function_text(name, params, [binding], "%0", result_type)


def tuple_loss_function(op: str, params: Sequence[Param], field_shapes: Sequence[Sequence[int]],
                        result_dtype: Any, attrs: Mapping[str, Any] | None = None,
                        name: str = "main") -> str:
    """`name(params..., c0, c1, ...) = sum_i sum(op(params...)[i] * c_i)` for an op with a
    tuple result, one cotangent c_i per field."""
    ftypes = [tensor_type(s, result_dtype) for s in field_shapes]
    ttype = "tuple<" + ", ".join(ftypes) + ">"
    stype = tensor_type((), result_dtype)
    cs = [Param(f"c{i}", tuple(s), result_dtype) for i, s in enumerate(field_shapes)]
    bindings = [generic_op("%0", op, [f"%{p.name}" for p in params], [p.type for p in params],
                           ttype, attrs)]
    total = None
    for i, ft in enumerate(ftypes):
        bindings += [
            generic_op(f"%f{i}", "tuple_get_item", ["%0"], [ttype], ft, {"index": i}),
            generic_op(f"%m{i}", "multiply", [f"%f{i}", f"%c{i}"], [ft, ft], ft),
            generic_op(f"%s{i}", "sum", [f"%m{i}"], [ft], stype),
        ]
        if total is not None:
            bindings.append(generic_op(f"%t{i}", "add", [total, f"%s{i}"], [stype, stype], stype))
            total = f"%t{i}"
        else:
            total = f"%s{i}"
    return function_text(name, list(params) + cs, bindings, total, stype)


# ----------------------------------------------------------------------------
# Compilation (cached: many parametrized cases share one function)
# ----------------------------------------------------------------------------

@functools.cache
def compile_text(text: str) -> relax_mlir.Executable:
    """Compiles MLIR text once per distinct text."""
    return relax_mlir.compile(text)


@functools.cache
def compile_gradient(text: str, require_grads: tuple[int | str, ...] | None = None,
                     func: str = "main", target_index: int = 0) -> relax_mlir.Executable:
    """Differentiates and compiles MLIR text once per distinct request."""
    grads = list(require_grads) if require_grads is not None else None
    module = relax_mlir.gradient(text, func=func, require_grads=grads, target_index=target_index)
    return relax_mlir.compile(module)


# ----------------------------------------------------------------------------
# Data and numerics
# ----------------------------------------------------------------------------

def rng(*key: Any) -> np.random.Generator:
    """A deterministic generator seeded from a test's parameters."""
    import zlib
    return np.random.default_rng(zlib.crc32(repr(key).encode()))


def random_array(gen: np.random.Generator, shape: Sequence[int], dtype: Any,
                 low: float = -2.0, high: float = 2.0, avoid_zero: float = 0.0) -> np.ndarray:
    """Uniform values in [low, high) (integers for integer dtypes); |x| >= avoid_zero."""
    dtype = np.dtype(dtype)
    shape = tuple(shape)
    if dtype == np.bool_:
        return gen.random(shape) < 0.5
    if np.issubdtype(dtype, np.integer):
        lo, hi = int(np.floor(low)), int(np.ceil(high))
        x = gen.integers(lo, hi + 1, size=shape)
        if avoid_zero > 0:
            x = np.where(np.abs(x) < avoid_zero, hi if hi >= avoid_zero else int(avoid_zero), x)
        return np.asarray(x, dtype=dtype)
    x = gen.uniform(low, high, size=shape)
    if avoid_zero > 0:
        small = np.abs(x) < avoid_zero
        x = np.where(small, np.where(x < 0, -1.0, 1.0) * (avoid_zero + gen.uniform(0, 0.5, shape)),
                     x)
    return np.asarray(x, dtype=dtype)


def central_difference(f: Callable[[list[np.ndarray]], float], args: Sequence[np.ndarray],
                       index: int, h: float = 1e-6) -> np.ndarray:
    """d f(args) / d args[index] by float64 central differences, elementwise."""
    args = [np.array(a, dtype=np.float64) if np.issubdtype(np.asarray(a).dtype, np.floating)
            else np.array(a) for a in args]
    x = args[index]
    grad = np.zeros_like(x, dtype=np.float64)
    for i in np.ndindex(x.shape):
        orig = x[i]
        x[i] = orig + h
        fp = float(f(args))
        x[i] = orig - h
        fm = float(f(args))
        x[i] = orig
        grad[i] = (fp - fm) / (2 * h)
    return grad


def run_python(script: str, workdir: Any, *args: str, timeout: float = 120) -> Any:
    """Runs `script` in a fresh interpreter (so that a crash in native code fails one
    test instead of the whole session); returns the CompletedProcess."""
    import os
    import subprocess
    import sys
    import textwrap
    from pathlib import Path

    path = Path(workdir) / "script.py"
    path.write_text(textwrap.dedent(script))
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(p for p in sys.path if p))
    return subprocess.run([sys.executable, "-X", "faulthandler", str(path), *args],
                          capture_output=True, text=True, env=env, timeout=timeout)


def describe_process(proc: Any) -> str:
    return (f"subprocess exited with {proc.returncode}:\n--- stdout\n{proc.stdout[-3000:]}\n"
            f"--- stderr\n{proc.stderr[-3000:]}")
