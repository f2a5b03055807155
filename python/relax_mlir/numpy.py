"""`relax_mlir.numpy`: numpy's array functions over traced arrays.

Use them inside a function given to `relax_mlir.jit`, `grad`,
`value_and_grad` or `vjp`::

    import relax_mlir
    import relax_mlir.numpy as rnp

    def loss(w, x):
        return rnp.mean(rnp.tanh(x @ w) ** 2)

    dw = relax_mlir.grad(loss)(w, x)

Each function emits relax ops (the contract's op set); shapes and dtypes follow
numpy (broadcasting, negative axes), dtypes promote as in JAX (an int array
with a float gives the float; a Python scalar takes the array's dtype). Called
outside a traced function, a function runs eagerly: it is compiled for the
arguments' shapes (cached) and returns numpy arrays.
"""

from __future__ import annotations

import builtins
import sys
from collections.abc import Callable, Sequence
from typing import Any, Union

import numpy as _np

from . import ir
from ._boundary import NUMPY_DTYPES
from ._trace import (
    Tracer,
    canonical_dtype,
    element_type,
    emit_op,
    innermost_trace,
    is_float,
    primitive,
    promote_types,
    register_array_namespace,
    tensor_type,
)
from .dialects import relax as _r
from .errors import call_site

float16, float32, float64 = _np.float16, _np.float32, _np.float64
int32, int64, bool_ = _np.int32, _np.int64, _np.bool_


def __getattr__(name: str) -> Any:
    # `bfloat16`: ml_dtypes' (JAX's), whose arrays cross the call boundary as
    # is; imported on first use (importing ml_dtypes takes about 0.6 s).
    if name == "bfloat16":
        return NUMPY_DTYPES.get("bf16")
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


ndarray = Tracer
pi, e, inf, nan = _np.pi, _np.e, _np.inf, _np.nan

Axis = Union[None, int, Sequence[int]]

__all__ = [
    "abs", "absolute", "add", "arange", "astype", "broadcast_to", "clip",
    "concatenate", "cos", "cumsum", "divide", "dot", "equal", "exp", "expand_dims", "full",
    "full_like", "greater", "greater_equal", "less", "less_equal", "log", "log1p", "matmul", "max",
    "maximum", "mean", "min", "minimum", "multiply", "negative", "not_equal", "ones",
    "ones_like", "pad", "permute_dims", "power", "prod", "ravel", "reshape", "rsqrt", "sin",
    "split", "sqrt", "square", "squeeze", "stack", "subtract", "sum", "swapaxes", "take",
    "tan", "tanh", "tile", "transpose", "tril", "triu", "true_divide", "var", "where",
    "zeros", "zeros_like", "asarray", "erf", "sign", "amax", "amin", "getitem", "float16",
    "float32", "float64", "int32", "int64", "bool_", "ndarray", "pi", "e", "inf", "nan",
    # bfloat16: the module's __getattr__ (ml_dtypes imported on first use).
    "expm1", "argmax", "argmin", "std", "take_along_axis", "einsum", "eye", "bfloat16",  # noqa: F822
    "bitwise_and", "bitwise_or", "bitwise_xor", "left_shift", "right_shift", "invert",
    "logical_and", "logical_or", "logical_not",
]


# ----------------------------------------------------------------------------
# Eager calls and argument handling
# ----------------------------------------------------------------------------

def asarray(x: Any, dtype: Any = None) -> Tracer:
    """`x` as a traced array: numpy arrays and Python scalars become constants."""
    if isinstance(x, Tracer):
        x = innermost_trace().lift(x)
        return x if dtype is None else astype(x, dtype)
    if dtype is None and isinstance(x, float):
        dtype = _np.float32
    if dtype is None and isinstance(x, builtins.bool):
        dtype = _np.bool_
    if dtype is None and isinstance(x, int):
        dtype = _np.int64
    return innermost_trace().constant(x, dtype)


def _is_weak(x: Any) -> bool:
    return isinstance(x, (int, float, builtins.bool)) and not isinstance(x, _np.generic)


def _promote(*xs: Any) -> list[Tracer]:
    """Operands as traced arrays of one dtype: the highest of the arrays'
    dtypes (int < float); Python scalars take it (a float scalar with int
    arrays makes float32)."""
    arrays = [x for x in xs if not _is_weak(x)]
    if not arrays:
        raise TypeError("at least one operand must be an array")
    dtypes = [x.dtype if isinstance(x, Tracer) else canonical_dtype(_np.asarray(x).dtype)
              for x in arrays]
    target = promote_types(*dtypes)
    if any(isinstance(x, float) for x in xs) and not is_float(target):
        target = _np.dtype(_np.float32)
    return [asarray(x, target) if _is_weak(x) or not isinstance(x, Tracer)
            else astype(x, target) for x in xs]


def _axes(axis: Axis) -> list[int] | None:
    if axis is None:
        return None
    if isinstance(axis, (int, _np.integer)):
        return [int(axis)]
    return [int(a) for a in axis]


def _unary(builder: Callable[..., Any], float_only: builtins.bool = True) -> Callable[..., Any]:
    name = builder.__name__

    def op(x: Any) -> Tracer:
        x = asarray(x)
        if float_only and not is_float(x.dtype):
            x = astype(x, _np.float32)
        return emit_op(builder, x)

    return primitive(op, name, f"Elementwise `{name}` (relax.{name}); integer inputs become "
                             f"float32.")


def _binary(builder: Callable[..., Any], doc: str) -> Callable[..., Any]:
    def op(a: Any, b: Any) -> Tracer:
        a, b = _promote(a, b)
        return emit_op(builder, a, b)

    return primitive(op, builder.__name__, doc)


# ----------------------------------------------------------------------------
# Elementwise
# ----------------------------------------------------------------------------

exp = _unary(_r.exp)
log = _unary(_r.log)
log1p = _unary(_r.log1p)
expm1 = _unary(_r.expm1)
sqrt = _unary(_r.sqrt)
rsqrt = _unary(_r.rsqrt)
sin = _unary(_r.sin)
cos = _unary(_r.cos)
tan = _unary(_r.tan)
tanh = _unary(_r.tanh)
erf = _unary(_r.erf)
negative = _unary(_r.negative, float_only=False)
abs = absolute = _unary(_r.abs, float_only=False)
square = _unary(_r.square, float_only=False)

add = _binary(_r.add, "`a + b` with broadcasting (relax.add).")
subtract = _binary(_r.subtract, "`a - b` with broadcasting (relax.subtract).")
multiply = _binary(_r.multiply, "`a * b` with broadcasting (relax.multiply).")
maximum = _binary(_r.maximum, "Elementwise maximum with broadcasting (relax.maximum).")
minimum = _binary(_r.minimum, "Elementwise minimum with broadcasting (relax.minimum).")
equal = _binary(_r.equal, "`a == b` as a bool array (relax.equal).")
not_equal = _binary(_r.not_equal, "`a != b` as a bool array (relax.not_equal).")
greater = _binary(_r.greater, "`a > b` as a bool array (relax.greater).")
greater_equal = _binary(_r.greater_equal, "`a >= b` as a bool array (relax.greater_equal).")
less = _binary(_r.less, "`a < b` as a bool array (relax.less).")
less_equal = _binary(_r.less_equal, "`a <= b` as a bool array (relax.less_equal).")


def _integer_binary(builder: Callable[..., Any], doc: str,
                    bools: builtins.bool = False) -> Callable[..., Any]:
    def op(a: Any, b: Any) -> Tracer:
        a, b = _promote(a, b)
        if is_float(a.dtype) or (a.dtype == _np.bool_ and not bools):
            kinds = "integer or bool" if bools else "integer"
            raise TypeError(f"{call_site()}: {builder.__name__} takes {kinds} "
                            f"arrays, got {a.dtype}; convert them with "
                            f".astype(relax_mlir.numpy.int32)")
        return emit_op(builder, a, b)

    return primitive(op, builder.__name__, doc)


bitwise_and = _integer_binary(_r.bitwise_and, "`a & b` (relax.bitwise_and).", bools=True)
bitwise_or = _integer_binary(_r.bitwise_or, "`a | b` (relax.bitwise_or).", bools=True)
bitwise_xor = _integer_binary(_r.bitwise_xor, "`a ^ b` (relax.bitwise_xor).", bools=True)
left_shift = _integer_binary(_r.left_shift, "`a << b` (relax.left_shift; 0 past the width).")
right_shift = _integer_binary(
    _r.right_shift, "`a >> b`, arithmetic as numpy's (relax.right_shift).")


@primitive
def logical_and(a: Any, b: Any) -> Tracer:
    """`a and b` elementwise, as bools (relax.bitwise_and of `a != 0`, `b != 0`)."""
    return bitwise_and(_as_bool(a), _as_bool(b))


@primitive
def logical_or(a: Any, b: Any) -> Tracer:
    """`a or b` elementwise, as bools."""
    return bitwise_or(_as_bool(a), _as_bool(b))


@primitive
def logical_not(x: Any) -> Tracer:
    """`not x` elementwise, as bools."""
    return bitwise_xor(_as_bool(x), True)


@primitive
def invert(x: Any) -> Tracer:
    """`~x`: the bits flipped (`not` for bools)."""
    x = asarray(x)
    if x.dtype == _np.bool_:
        return bitwise_xor(x, True)
    return bitwise_xor(x, -1)


def _as_bool(x: Any) -> Tracer:
    x = asarray(x)
    return x if x.dtype == _np.bool_ else not_equal(x, 0)


@primitive
def divide(a: Any, b: Any) -> Tracer:
    """`a / b` with broadcasting (relax.divide); integers divide as float32."""
    a, b = _promote(a, b)
    if not is_float(a.dtype):
        a, b = astype(a, _np.float32), astype(b, _np.float32)
    return emit_op(_r.divide, a, b)


true_divide = divide


@primitive
def power(a: Any, b: Any) -> Tracer:
    """`a ** b` with broadcasting (relax.power); a Python integer exponent
    from 0 to 4 is unrolled into multiplications (exact, and defined for
    negative bases)."""
    if isinstance(b, int) and not isinstance(b, builtins.bool) and 0 <= b <= 4 \
            and isinstance(a, Tracer):
        if b == 0:
            return ones_like(a)
        result = a
        for _ in range(b - 1):
            result = multiply(result, a)
        return result
    a, b = _promote(a, b)
    if not is_float(a.dtype):
        a, b = astype(a, _np.float32), astype(b, _np.float32)
    return emit_op(_r.power, a, b)


@primitive
def where(cond: Any, a: Any, b: Any) -> Tracer:
    """`a` where `cond` is true, else `b`, broadcasting all three (relax.where)."""
    cond = asarray(cond)
    if cond.dtype != _np.bool_:
        cond = not_equal(cond, 0)
    a, b = _promote(a, b)
    return emit_op(_r.where, cond, a, b)


@primitive
def sign(x: Any) -> Tracer:
    """-1, 0 or 1 by the sign of each element, NaN for NaN as numpy (built
    from relax.where); its gradient is zero."""
    x = asarray(x)
    # NaN fails both comparisons and reaches the last branch with the zeros:
    # x * 0 is 0 for them and NaN for NaN (and has a zero gradient).
    return where(greater(x, 0), ones_like(x), where(less(x, 0), -ones_like(x), multiply(x, 0)))


@primitive
def clip(x: Any, a_min: Any = None, a_max: Any = None) -> Tracer:
    """`x` limited to [a_min, a_max] (relax.clip for scalar bounds, else
    maximum/minimum)."""
    x = asarray(x)
    if a_min is None and a_max is None:
        raise ValueError("clip needs a_min or a_max")
    scalar = all(v is None or isinstance(v, (int, float)) for v in (a_min, a_max))
    if scalar and is_float(x.dtype):
        lo = -_np.inf if a_min is None else float(a_min)
        hi = _np.inf if a_max is None else float(a_max)
        return emit_op(_r.clip, x, lo, hi)
    if a_min is not None:
        x = maximum(x, a_min)
    if a_max is not None:
        x = minimum(x, a_max)
    return x


@primitive
def astype(x: Any, dtype: Any) -> Tracer:
    """`x` converted to `dtype` (relax.astype; floats to ints truncate)."""
    x = asarray(x)
    dtype = canonical_dtype(dtype)
    if dtype == x.dtype:
        return x
    element_type(dtype)
    return emit_op(_r.astype, tensor_type(x.shape, dtype), x)


# ----------------------------------------------------------------------------
# Reductions
# ----------------------------------------------------------------------------

def _reduction(builder: Callable[..., Any], doc: str, name: str | None = None,
               float_only: builtins.bool = False) -> Callable[..., Any]:
    """A numpy reduction over `axis` (all axes when None); with `float_only`,
    integer inputs are reduced as float32."""
    def op(x: Any, axis: Axis = None, keepdims: builtins.bool = False) -> Tracer:
        x = asarray(x)
        if float_only and not is_float(x.dtype):
            x = astype(x, _np.float32)
        elif x.dtype == _np.bool_:
            x = astype(x, _np.int64)  # numpy counts booleans as int64
        return emit_op(builder, x, axis=_axes(axis), keepdims=builtins.bool(keepdims))

    return primitive(op, name or builder.__name__, doc)


sum = _reduction(_r.sum, "Sum over `axis` (all axes when None), as np.sum (relax.sum).")
max = _reduction(_r.max, "Maximum over `axis` (relax.max).")
min = _reduction(_r.min, "Minimum over `axis` (relax.min).")
prod = _reduction(_r.prod, "Product over `axis` (relax.prod).")
amax, amin = max, min


mean = _reduction(_r.mean, "Mean over `axis` (relax.mean); integers average as float32.",
                  float_only=True)
_variance = _reduction(_r.variance, "Population variance over `axis` (relax.variance).",
                       "var", float_only=True)


def _reduced_count(x: Tracer, axis: Axis) -> int:
    given = _axes(axis)
    axes = range(x.ndim) if given is None else [a % builtins.max(x.ndim, 1) for a in given]
    return int(_np.prod([x.shape[a] for a in axes], dtype=_np.int64))


@primitive
def var(x: Any, axis: Axis = None, ddof: int = 0, keepdims: builtins.bool = False) -> Tracer:
    """Variance over `axis` (all axes when None) with `ddof` delta degrees of
    freedom, as np.var (relax.variance, the population variance, times
    n / (n - ddof)); integers as float32."""
    x = asarray(x)
    v = _variance(x, axis, keepdims=keepdims)
    if ddof:
        n = _reduced_count(x, axis)
        v = v * (n / (n - ddof) if n > ddof else _np.nan)
    return v


@primitive
def std(x: Any, axis: Axis = None, ddof: int = 0, keepdims: builtins.bool = False) -> Tracer:
    """Standard deviation over `axis`, as np.std: sqrt(var(x, axis, ddof))."""
    return sqrt(var(x, axis, ddof=ddof, keepdims=keepdims))


def _arg_extremum(builder: Callable[..., Any], what: str) -> Callable[..., Any]:
    def op(x: Any, axis: int | None = None, keepdims: builtins.bool = False) -> Tracer:
        x = asarray(x)
        if x.dtype == _np.bool_:
            x = astype(x, _np.int32)
        return emit_op(builder, x, axis=None if axis is None else int(axis),
                       keepdims=builtins.bool(keepdims))

    name = builder.__name__
    return primitive(op, name, f"The index of {what} along `axis` (of the flattened array "
                               f"when None), as np.{name}: the first on ties, a NaN counts "
                               f"as {what}; int64 (relax.{name}).")


argmax = _arg_extremum(_r.argmax, "the maximum")
argmin = _arg_extremum(_r.argmin, "the minimum")


@primitive
def cumsum(x: Any, axis: int | None = None) -> Tracer:
    """Cumulative sum along `axis` (the flattened array when None), as np.cumsum."""
    x = asarray(x)
    if axis is None:
        x, axis = ravel(x), 0
    return emit_op(_r.cumsum, x, int(axis))


# ----------------------------------------------------------------------------
# Linear algebra
# ----------------------------------------------------------------------------

@primitive
def matmul(a: Any, b: Any) -> Tracer:
    """`a @ b` with np.matmul's semantics (relax.matmul)."""
    a, b = _promote(a, b)
    return emit_op(_r.matmul, a, b)


@primitive
def dot(a: Any, b: Any) -> Tracer:
    """np.dot for 1-D and 2-D operands (a scalar operand multiplies)."""
    a, b = _promote(a, b)
    if a.ndim == 0 or b.ndim == 0:
        return multiply(a, b)
    if a.ndim > 2 or b.ndim > 2:
        raise ValueError("dot of arrays above 2-D: use matmul (its batch semantics differ "
                         "from np.dot's)")
    return matmul(a, b)


# ----------------------------------------------------------------------------
# Shapes
# ----------------------------------------------------------------------------

def _normalize_shape(shape: Any, size: int) -> tuple[int, ...]:
    if isinstance(shape, (int, _np.integer)):
        shape = (int(shape),)
    shape = tuple(int(s) for s in shape)
    if builtins.sum(1 for s in shape if s == -1) > 1:
        raise ValueError(f"reshape to {shape}: only one dimension may be -1")
    if -1 in shape:
        known = int(_np.prod([s for s in shape if s != -1], dtype=_np.int64))
        if known == 0 or size % known:
            raise ValueError(f"cannot reshape an array of size {size} into shape {shape}")
        shape = tuple(size // known if s == -1 else s for s in shape)
    return shape


@primitive
def reshape(x: Any, shape: Any) -> Tracer:
    """`x` with a new shape of as many elements (one dimension may be -1)."""
    x = asarray(x)
    shape = _normalize_shape(shape, x.size)
    if shape == x.shape:
        return x
    return emit_op(_r.reshape, tensor_type(shape, x.dtype), x)


@primitive
def ravel(x: Any) -> Tracer:
    """`x` as 1-D (relax.flatten)."""
    x = asarray(x)
    if x.ndim == 1:
        return x
    return emit_op(_r.flatten, x)


@primitive
def transpose(x: Any, axes: Sequence[int] | None = None) -> Tracer:
    """`x` with its axes permuted (reversed when `axes` is None): relax.permute_dims,
    which the compiler folds into the consumer's indexing (no copy)."""
    x = asarray(x)
    if x.ndim < 2 and axes is None:
        return x
    return emit_op(_r.permute_dims, x, axes=None if axes is None else [int(a) for a in axes])


permute_dims = transpose


@primitive
def swapaxes(x: Any, axis1: int, axis2: int) -> Tracer:
    """`x` with two axes exchanged."""
    x = asarray(x)
    perm = list(range(x.ndim))
    perm[axis1], perm[axis2] = perm[axis2], perm[axis1]
    return transpose(x, perm)


@primitive
def expand_dims(x: Any, axis: int | Sequence[int]) -> Tracer:
    """`x` with new size-1 axes at the positions `axis` of the result."""
    return emit_op(_r.expand_dims, asarray(x), _axes(axis))


@primitive
def squeeze(x: Any, axis: Axis = None) -> Tracer:
    """`x` without the size-1 axes `axis` (all of them when None)."""
    return emit_op(_r.squeeze, asarray(x), axis=_axes(axis))


@primitive
def broadcast_to(x: Any, shape: Sequence[int]) -> Tracer:
    """`x` broadcast to `shape` as numpy does."""
    x = asarray(x)
    shape = tuple(int(s) for s in shape)
    if shape == x.shape:
        return x
    return emit_op(_r.broadcast_to, tensor_type(shape, x.dtype), x)


@primitive
def concatenate(arrays: Sequence[Any], axis: int = 0) -> Tracer:
    """The arrays joined along `axis` (relax.concat)."""
    arrays = _promote(*arrays)
    if len(arrays) == 1:
        return arrays[0]
    return emit_op(_r.concat, [a.value for a in arrays], int(axis))


@primitive
def stack(arrays: Sequence[Any], axis: int = 0) -> Tracer:
    """The arrays joined along a new axis `axis`."""
    arrays = _promote(*arrays)
    return concatenate([expand_dims(a, axis) for a in arrays], axis)


@primitive
def split(x: Any, indices_or_sections: int | Sequence[int], axis: int = 0) -> list[Tracer]:
    """`x` split along `axis` into equal sections or at the given indices, as
    np.split (relax.split; a list of arrays)."""
    x = asarray(x)
    if isinstance(indices_or_sections, (int, _np.integer)):
        attr: Any = ir.IntegerAttr.get(ir.IntegerType.get_signless(64), int(indices_or_sections))
    else:
        attr = ir.DenseI64ArrayAttr.get([int(i) for i in indices_or_sections])
    trace = innermost_trace()
    parts = trace.emit(_r.split, x.value, attr, axis=int(axis), op="split")
    count = ir.TupleType(parts.type).num_types
    return [Tracer(trace, trace.emit(_r.tuple_get_item, parts, i, op="split"))
            for i in range(count)]


@primitive
def take(x: Any, indices: Any, axis: int | None = None) -> Tracer:
    """Elements of `x` at integer `indices` along `axis` (of the flattened
    array when None), as np.take (relax.take)."""
    x = asarray(x)
    indices = asarray(indices)
    if is_float(indices.dtype) or indices.dtype == _np.bool_:
        raise TypeError(f"take: indices must be integers, got {indices.dtype}")
    return emit_op(_r.take, x, indices, axis=None if axis is None else int(axis))


def _index_array(indices: Any, what: str) -> Tracer:
    indices = asarray(indices)
    if is_float(indices.dtype) or indices.dtype == _np.bool_:
        raise TypeError(f"{call_site()}: {what}: indices must be integers, got "
                        f"{indices.dtype}; convert them with .astype(relax_mlir.numpy.int32)")
    return indices


@primitive
def take_along_axis(arr: Any, indices: Any, axis: int | None) -> Tracer:
    """`arr`'s elements at `indices` along `axis`, as np.take_along_axis:
    `indices` has arr's rank and broadcasts with it on the other axes (without
    an axis, arr is flattened and indices is 1-D). Indices are normalized as
    take's (negative from the end, then clamped into range). One relax.take
    from the flattened array, so its gradient is one scatter_add."""
    arr = asarray(arr)
    indices = _index_array(indices, "take_along_axis")
    if axis is None:
        if indices.ndim != 1:
            raise ValueError(f"{call_site()}: take_along_axis with axis=None takes 1-D indices "
                             f"(flatten them with .ravel()), got "
                             f"{indices.ndim}-D")
        return take(ravel(arr), indices)
    if indices.ndim != arr.ndim:
        raise ValueError(f"{call_site()}: take_along_axis: indices must have arr's rank "
                         f"{arr.ndim}, got "
                         f"{indices.ndim} (add axes with [..., None] or expand_dims)")
    axis = int(axis)
    if not -arr.ndim <= axis < arr.ndim:
        raise ValueError(f"{call_site()}: take_along_axis: axis {axis} is out of range for "
                         f"rank {arr.ndim}; pass an axis in [-{arr.ndim}, {arr.ndim}) or None")
    axis %= arr.ndim
    n = arr.shape[axis]
    try:
        shape = _np.broadcast_shapes(arr.shape[:axis] + (1,) + arr.shape[axis + 1:],
                                     indices.shape[:axis] + (1,) + indices.shape[axis + 1:])
    except ValueError:
        raise ValueError(f"{call_site()}: take_along_axis: indices of shape {indices.shape} "
                         f"(give them size 1 or arr's size off the axis) do not broadcast "
                         f"with arr of shape {arr.shape} outside axis {axis}") from None
    shape = shape[:axis] + (indices.shape[axis],) + shape[axis + 1:]
    idx = astype(indices, _np.int64)
    idx = clip(where(less(idx, 0), add(idx, n), idx), 0, builtins.max(n - 1, 0))
    # The flat position of each picked element: sum of coordinate * stride.
    strides = _np.cumprod((arr.shape[1:] + (1,))[::-1])[::-1]
    flat = multiply(idx, int(strides[axis]))
    for d in range(arr.ndim):
        if d != axis and arr.shape[d] > 1:
            coord = _np.arange(arr.shape[d], dtype=_np.int64).reshape(
                [arr.shape[d] if k == d else 1 for k in range(arr.ndim)]) * int(strides[d])
            flat = add(flat, coord)
    return take(ravel(arr), broadcast_to(flat, shape))


def _einsum_spec(subscripts: str, ranks: list[int]) -> tuple[list[str], str]:
    """The operands' and the output's index letters, '...' spelled out with
    the digits (which subscripts cannot use), right-aligned as numpy
    broadcasts it."""
    spec = subscripts.replace(" ", "")
    if "->" in spec:
        inputs, output = spec.split("->")
    else:
        inputs, output = spec, None
    parts = inputs.split(",")
    if len(parts) != len(ranks):
        raise ValueError(f"{call_site()}: einsum: '{subscripts}' names {len(parts)} operands, "
                         f"got {len(ranks)}: give one comma-separated group per operand")
    ell = builtins.max([r - len(p.replace("...", "")) for p, r in zip(parts, ranks)
                        if "..." in p], default=0)
    dots = "".join(str(i) for i in range(10))[10 - ell:] if ell else ""
    terms = []
    for p, r in zip(parts, ranks):
        if "..." in p:
            k = r - len(p.replace("...", ""))
            p = p.replace("...", dots[len(dots) - k:] if k else "")
        if len(p) != r:
            raise ValueError(f"{call_site()}: einsum: operand '{p}' has {len(p)} indices for an "
                             f"array of rank {r}: write one per axis (or '...' for several)")
        for c in p:
            if not (c.isalpha() or c.isdigit()):
                raise ValueError(f"{call_site()}: einsum: invalid index character {c!r} in "
                                 f"'{subscripts}': indices are letters")
        terms.append(p)
    if output is None:
        counts: dict[str, int] = {}
        for t in terms:
            for c in t:
                counts[c] = counts.get(c, 0) + 1
        output = dots + "".join(sorted(c for c, n in counts.items() if n == 1 and c.isalpha()))
    else:
        output = output.replace("...", dots)
        for c in output:
            if not any(c in t for t in terms):
                raise ValueError(f"{call_site()}: einsum: output index {c!r} of '{subscripts}' is "
                                 f"in no operand: output only the operands' indices")
        if len(set(output)) != len(output):
            raise ValueError(f"{call_site()}: einsum: output '{output}' repeats an index: name "
                             f"each once")
    return terms, output


@primitive
def einsum(subscripts: str, *operands: Any) -> Tracer:
    """np.einsum over traced arrays: `'ij,jk->ik'`, implicit output (the
    indices that occur once, sorted), `...` for leading axes. Each operand's
    private indices are summed first, then the operands are contracted left
    to right, each pair as one batched relax.matmul (no other op is needed).
    An index repeated within one operand (a diagonal) is not supported."""
    arrays = _promote(*operands)
    terms, output = _einsum_spec(subscripts, [a.ndim for a in arrays])
    sizes: dict[str, int] = {}
    for t, a in zip(terms, arrays):
        if len(set(t)) != len(t):
            raise ValueError(f"{call_site()}: einsum: '{t}' repeats an index within one operand "
                             f"(a diagonal); "
                             f"take the diagonal first")
        for c, n in zip(t, a.shape):
            if sizes.setdefault(c, n) != n:
                if n == 1 or sizes[c] == 1:  # numpy broadcasts size-1 axes
                    sizes[c] = builtins.max(n, sizes[c])
                else:
                    raise ValueError(f"{call_site()}: einsum: index {c!r} has sizes {sizes[c]} "
                                     f"and {n}: the axes one index names need one size (or 1)")

    def needed_after(k: int) -> set[str]:
        return set(output).union(*[set(t) for t in terms[k + 1:]])

    def reduce_private(a: Tracer, t: str, keep: set[str]) -> tuple[Tracer, str]:
        drop = [i for i, c in enumerate(t) if c not in keep]
        if drop:
            a = sum(a, tuple(drop))
            t = "".join(c for c in t if c in keep)
        return a, t

    acc, acc_t = reduce_private(arrays[0], terms[0], needed_after(0) | set("".join(terms[1:])))
    for k in range(1, len(arrays)):
        later = needed_after(k)
        b, b_t = reduce_private(arrays[k], terms[k], later | set(acc_t))
        acc, acc_t = reduce_private(acc, acc_t, later | set(b_t))
        batch = [c for c in acc_t if c in b_t and c in later]
        contract = [c for c in acc_t if c in b_t and c not in later]
        left = [c for c in acc_t if c not in b_t]
        right = [c for c in b_t if c not in acc_t]

        def arrange(a: Tracer, t: str, groups: list[list[str]]) -> Tracer:
            order = [t.index(c) for g in groups for c in g]
            a = transpose(a, order) if order != list(range(len(t))) else a
            full = [sizes[c] for g in groups for c in g]
            a = broadcast_to(a, tuple(full)) if a.shape != tuple(full) else a
            dims = [int(_np.prod([sizes[c] for c in g], dtype=_np.int64)) for g in groups]
            return reshape(a, dims)

        lhs = arrange(acc, acc_t, [batch, left, contract])
        rhs = arrange(b, b_t, [batch, contract, right])
        prod_ = matmul(lhs, rhs)
        acc_t = "".join(batch + left + right)
        acc = reshape(prod_, tuple(sizes[c] for c in acc_t))
    acc, acc_t = reduce_private(acc, acc_t, set(output))
    if acc_t != output:
        acc = transpose(acc, [acc_t.index(c) for c in output])
    return acc


@primitive
def tile(x: Any, reps: int | Sequence[int]) -> Tracer:
    """`x` repeated `reps` times along each axis, as np.tile."""
    return emit_op(_r.tile, asarray(x), _axes(reps))


@primitive
def pad(x: Any, pad_width: Any, constant_values: float = 0.0) -> Tracer:
    """`x` padded with a constant, as np.pad(mode='constant'): `pad_width` is an
    int, a (before, after) pair, or one pair per axis."""
    x = asarray(x)
    widths = _np.broadcast_to(_np.asarray(pad_width, dtype=_np.int64), (x.ndim, 2))
    return emit_op(_r.pad, x, [int(w) for w in widths.reshape(-1)],
                 pad_value=float(constant_values))


@primitive
def triu(x: Any, k: int = 0) -> Tracer:
    """`x` with the elements below the k-th diagonal zeroed."""
    return emit_op(_r.triu, asarray(x), k=int(k))


@primitive
def tril(x: Any, k: int = 0) -> Tracer:
    """`x` with the elements above the k-th diagonal zeroed."""
    return emit_op(_r.tril, asarray(x), k=int(k))


def getitem(x: Tracer, key: Any) -> Tracer:
    """`x[key]` for basic indexing (ints, slices with steps, None, ...) and
    one integer-array index (relax.strided_slice, squeeze, expand_dims, take)."""
    if not isinstance(key, tuple):
        key = (key,)
    ellipses = [i for i, k in enumerate(key) if k is Ellipsis]
    if len(ellipses) > 1:
        raise IndexError("an index can only have a single ellipsis ('...')")
    used = builtins.sum(1 for k in key if k is not None and k is not Ellipsis)
    if used > x.ndim:
        raise IndexError(f"too many indices for an array of shape {x.shape}: {used} given")
    if ellipses:
        i = ellipses[0]
        key = key[:i] + (slice(None),) * (x.ndim - used) + key[i + 1:]
    else:
        key = key + (slice(None),) * (x.ndim - used)
    # numpy's rule: when integers and the index array (all "advanced" indices)
    # are not adjacent, the array's dimensions go first.
    advanced = [i for i, k in enumerate(k for k in key if k is not None)
                if isinstance(k, (Tracer, _np.ndarray, list, int, _np.integer))]

    axes: list[int] = []
    begin: list[int] = []
    end: list[int] = []
    strides: list[int] = []
    drop: list[int] = []
    new_axes: list[int] = []
    array_index: Any = None
    dim = 0
    out_pos = 0  # position in the result after slicing and new axes
    for k in key:
        if k is None:
            new_axes.append(out_pos)
            out_pos += 1
            continue
        size = x.shape[dim]
        if isinstance(k, (int, _np.integer)) and not isinstance(k, (builtins.bool, _np.bool_)):
            i = int(k)
            if not -size <= i < size:
                raise IndexError(f"index {i} is out of bounds for axis {dim} with size {size}")
            i %= size
            axes.append(dim)
            begin.append(i)
            end.append(i + 1)
            strides.append(1)
            drop.append(dim)
        elif isinstance(k, slice):
            start, stop, step = k.indices(size)
            if (start, stop, step) != (0, size, 1):
                if step < 0 and stop < 0:
                    stop = -size - 1  # before element 0
                axes.append(dim)
                begin.append(start)
                end.append(stop)
                strides.append(step)
            out_pos += 1
        elif isinstance(k, (Tracer, _np.ndarray, list)):
            if _np.dtype(k.dtype if isinstance(k, Tracer) else _np.asarray(k).dtype) == _np.bool_:
                raise IndexError(
                    "boolean mask indexing (x[mask]) is not supported: its result's size "
                    "depends on the mask's values, and a compiled function's shapes are "
                    "fixed when it is traced. Keep the shape with relax_mlir.numpy.where("
                    "mask, x, 0) (then sum or mean with the mask's count), as in JAX")
            if array_index is not None:
                raise IndexError("only one integer-array index is supported; index one "
                                 "axis at a time")
            if new_axes:
                raise IndexError("an integer-array index together with None is not supported")
            array_index = (dim, k, out_pos)
            out_pos += 1
        else:
            raise IndexError(f"unsupported index {k!r} ({type(k).__name__}); use ints, slices, "
                             f"None, ... or one integer array")
        dim += 1
    result = x
    if axes:
        result = emit_op(_r.strided_slice, result, axes, begin, end, strides=strides)
    if array_index is not None:
        axis, indices, _ = array_index
        result = take(result, indices, axis=axis)
        # the index array's dims replace `axis`; later dropped axes move by its rank - 1
        shift = _np.ndim(indices) - 1 if not isinstance(indices, Tracer) else indices.ndim - 1
        drop = [d if d < axis else d + shift for d in drop]
    if drop:
        result = emit_op(_r.squeeze, result, axis=drop)
    if array_index is not None and advanced and \
            advanced[-1] - advanced[0] + 1 != len(advanced):
        axis, indices, _ = array_index
        rank = indices.ndim if isinstance(indices, Tracer) else _np.ndim(indices)
        start = axis - builtins.sum(1 for d in drop if d < axis)
        moved = list(range(start, start + rank))
        rest = [d for d in range(result.ndim) if d not in moved]
        result = transpose(result, moved + rest)
    if new_axes:
        result = expand_dims(result, new_axes)
    return result


# ----------------------------------------------------------------------------
# Creation
# ----------------------------------------------------------------------------

def _shape(shape: Any) -> tuple[int, ...]:
    return (int(shape),) if isinstance(shape, (int, _np.integer)) else tuple(int(s) for s in shape)


@primitive
def zeros(shape: Any, dtype: Any = _np.float32) -> Tracer:
    """An array of zeros (relax.zeros)."""
    return emit_op(_r.zeros, tensor_type(_shape(shape), dtype))


@primitive
def ones(shape: Any, dtype: Any = _np.float32) -> Tracer:
    """An array of ones (relax.ones)."""
    return emit_op(_r.ones, tensor_type(_shape(shape), dtype))


@primitive
def full(shape: Any, fill_value: Any, dtype: Any = None) -> Tracer:
    """An array filled with `fill_value` (relax.full; a traced 0-d value works)."""
    if dtype is None:
        dtype = fill_value.dtype if isinstance(fill_value, Tracer) else \
            _np.asarray(fill_value).dtype if not isinstance(fill_value, float) else _np.float32
    value = reshape(asarray(fill_value, dtype), ())
    return emit_op(_r.full, tensor_type(_shape(shape), dtype), value)


@primitive
def zeros_like(x: Any) -> Tracer:
    """Zeros of `x`'s shape and dtype (relax.zeros_like)."""
    return emit_op(_r.zeros_like, asarray(x))


@primitive
def ones_like(x: Any) -> Tracer:
    """Ones of `x`'s shape and dtype (relax.ones_like)."""
    return emit_op(_r.ones_like, asarray(x))


@primitive
def full_like(x: Any, fill_value: Any) -> Tracer:
    """`fill_value` in `x`'s shape and dtype (relax.full_like)."""
    x = asarray(x)
    return emit_op(_r.full_like, x, reshape(asarray(fill_value, x.dtype), ()))


@primitive
def arange(start: int, stop: int | None = None, step: int = 1, dtype: Any = _np.int64) -> Tracer:
    """np.arange as a constant (shapes are static, so the values are too)."""
    return asarray(_np.arange(start, stop, step, dtype=dtype)) if stop is not None else \
        asarray(_np.arange(start, dtype=dtype))


@primitive
def eye(N: int, M: int | None = None, k: int = 0, dtype: Any = _np.float32) -> Tracer:
    """np.eye as a constant: ones on the k-th diagonal of an N x M array."""
    return asarray(_np.eye(int(N), None if M is None else int(M), int(k)), dtype)


# ----------------------------------------------------------------------------
# x.at[index]: functional updates (JAX's), one scatter op each
# ----------------------------------------------------------------------------

class _IndexUpdateRef:
    """`x.at[index]`: `set`, `add`, `multiply`, `min`, `max` return x updated
    at the positions `x[index]` selects (a new array; x is unchanged), `get`
    returns `x[index]`. The index is anything `x[index]` takes (ints, slices,
    None, ..., one integer array, traced or not); the positions become one
    index array into the flattened x and the update one relax.scatter_add
    (add) or relax.scatter (the others), whose gradients flow to x and to the
    values. The values broadcast to `x[index]`'s shape and take x's dtype.
    Repeated positions (an index array with repeats): add accumulates,
    multiply/min/max combine them all, set keeps the last (JAX leaves which
    one unspecified). Traced out-of-range indices are clamped as take's
    (JAX drops such updates)."""

    def __init__(self, x: Tracer, index: Any) -> None:
        self._x = x
        self._index = index

    def _positions(self) -> Tracer:
        x = self._x
        flat = _np.arange(x.size, dtype=_np.int64).reshape(x.shape)
        index = self._index if isinstance(self._index, tuple) else (self._index,)
        if not any(isinstance(k, Tracer) for k in index):
            try:
                return asarray(flat[self._index])
            except IndexError as e:
                raise IndexError(f"{call_site()}: x.at[...]: {e} (x has shape {x.shape}): index "
                                 f"within its shape") from None
        return getitem(asarray(flat), self._index)

    def _update(self, values: Any, reduction: str) -> Tracer:
        x = self._x
        if x.dtype == _np.bool_:
            raise TypeError(f"{call_site()}: x.at[...] updates take numeric arrays; convert the "
                            "bool array "
                            "with .astype(int32) first")
        positions = self._positions()
        updates = broadcast_to(asarray(values, x.dtype) if not isinstance(values, Tracer)
                               else astype(values, x.dtype), positions.shape)
        if reduction == "add":
            return emit_op(_r.scatter_add, x, positions, updates)
        return emit_op(_r.scatter, x, positions, updates, reduction=reduction)

    def get(self) -> Tracer:
        """`x[index]`."""
        return getitem(self._x, self._index)

    def set(self, values: Any) -> Tracer:
        """x with `values` written at the index."""
        return self._update(values, "set")

    def add(self, values: Any) -> Tracer:
        """x with `values` added at the index (repeats accumulate)."""
        return self._update(values, "add")

    def multiply(self, values: Any) -> Tracer:
        """x with the index's elements multiplied by `values`."""
        return self._update(values, "multiply")

    mul = multiply

    def min(self, values: Any) -> Tracer:
        """x with the index's elements replaced by their minimum with `values`."""
        return self._update(values, "min")

    def max(self, values: Any) -> Tracer:
        """x with the index's elements replaced by their maximum with `values`."""
        return self._update(values, "max")


class _IndexUpdateHelper:
    """`x.at`: subscript it (`x.at[index]`) for the functional updates."""

    def __init__(self, x: Tracer) -> None:
        self._x = x

    def __getitem__(self, index: Any) -> _IndexUpdateRef:
        return _IndexUpdateRef(self._x, index)


# ----------------------------------------------------------------------------
# Traced arrays' operators and methods: this module implements them
# ----------------------------------------------------------------------------

class _ArrayMethods:
    """The operators and methods of traced arrays, set on Tracer below."""

    def __add__(self: Any, o: Any) -> Tracer: return add(self, o)
    def __radd__(self: Any, o: Any) -> Tracer: return add(o, self)
    def __sub__(self: Any, o: Any) -> Tracer: return subtract(self, o)
    def __rsub__(self: Any, o: Any) -> Tracer: return subtract(o, self)
    def __mul__(self: Any, o: Any) -> Tracer: return multiply(self, o)
    def __rmul__(self: Any, o: Any) -> Tracer: return multiply(o, self)
    def __truediv__(self: Any, o: Any) -> Tracer: return divide(self, o)
    def __rtruediv__(self: Any, o: Any) -> Tracer: return divide(o, self)
    def __pow__(self: Any, o: Any) -> Tracer: return power(self, o)
    def __rpow__(self: Any, o: Any) -> Tracer: return power(o, self)
    def __matmul__(self: Any, o: Any) -> Tracer: return matmul(self, o)
    def __rmatmul__(self: Any, o: Any) -> Tracer: return matmul(o, self)
    def __neg__(self: Any) -> Tracer: return negative(self)
    def __pos__(self: Any) -> Tracer: return self
    def __abs__(self: Any) -> Tracer: return abs(self)
    def __lt__(self: Any, o: Any) -> Tracer: return less(self, o)
    def __le__(self: Any, o: Any) -> Tracer: return less_equal(self, o)
    def __gt__(self: Any, o: Any) -> Tracer: return greater(self, o)
    def __ge__(self: Any, o: Any) -> Tracer: return greater_equal(self, o)
    def __eq__(self: Any, o: Any) -> Tracer: return equal(self, o)  # type: ignore[override]
    def __ne__(self: Any, o: Any) -> Tracer: return not_equal(self, o)  # type: ignore[override]
    def __getitem__(self: Any, key: Any) -> Tracer: return getitem(self, key)
    def __and__(self: Any, o: Any) -> Tracer: return bitwise_and(self, o)
    def __rand__(self: Any, o: Any) -> Tracer: return bitwise_and(o, self)
    def __or__(self: Any, o: Any) -> Tracer: return bitwise_or(self, o)
    def __ror__(self: Any, o: Any) -> Tracer: return bitwise_or(o, self)
    def __xor__(self: Any, o: Any) -> Tracer: return bitwise_xor(self, o)
    def __rxor__(self: Any, o: Any) -> Tracer: return bitwise_xor(o, self)
    def __lshift__(self: Any, o: Any) -> Tracer: return left_shift(self, o)
    def __rlshift__(self: Any, o: Any) -> Tracer: return left_shift(o, self)
    def __rshift__(self: Any, o: Any) -> Tracer: return right_shift(self, o)
    def __rrshift__(self: Any, o: Any) -> Tracer: return right_shift(o, self)
    def __invert__(self: Any) -> Tracer: return invert(self)

    @property
    def at(self: Any) -> _IndexUpdateHelper:
        """Functional updates, as JAX's: `x.at[index].set(v)` (also `add`,
        `multiply`, `min`, `max`, `get`) returns a new array."""
        return _IndexUpdateHelper(self)

    @property
    def T(self: Any) -> Tracer:
        """The array with its axes reversed (no copy: a transposed indexing map)."""
        return transpose(self)

    def sum(self: Any, axis: Any = None, keepdims: bool = False) -> Tracer:
        """Sum over `axis` (numpy.sum)."""
        return sum(self, axis, keepdims=keepdims)

    def mean(self: Any, axis: Any = None, keepdims: bool = False) -> Tracer:
        """Mean over `axis`."""
        return mean(self, axis, keepdims=keepdims)

    def var(self: Any, axis: Any = None, ddof: int = 0, keepdims: bool = False) -> Tracer:
        """Variance over `axis` (population variance unless `ddof`)."""
        return var(self, axis, ddof=ddof, keepdims=keepdims)

    def std(self: Any, axis: Any = None, ddof: int = 0, keepdims: bool = False) -> Tracer:
        """Standard deviation over `axis`."""
        return std(self, axis, ddof=ddof, keepdims=keepdims)

    def argmax(self: Any, axis: Any = None, keepdims: bool = False) -> Tracer:
        """The index of the maximum along `axis` (int64)."""
        return argmax(self, axis, keepdims=keepdims)

    def argmin(self: Any, axis: Any = None, keepdims: bool = False) -> Tracer:
        """The index of the minimum along `axis` (int64)."""
        return argmin(self, axis, keepdims=keepdims)

    def max(self: Any, axis: Any = None, keepdims: bool = False) -> Tracer:
        """Maximum over `axis`."""
        return max(self, axis, keepdims=keepdims)

    def min(self: Any, axis: Any = None, keepdims: bool = False) -> Tracer:
        """Minimum over `axis`."""
        return min(self, axis, keepdims=keepdims)

    def prod(self: Any, axis: Any = None, keepdims: bool = False) -> Tracer:
        """Product over `axis`."""
        return prod(self, axis, keepdims=keepdims)

    def reshape(self: Any, *shape: Any) -> Tracer:
        """The array in a new shape (a tuple or the sizes; one may be -1)."""
        if len(shape) == 1 and isinstance(shape[0], (tuple, list)):
            shape = tuple(shape[0])
        return reshape(self, shape)

    def transpose(self: Any, *axes: Any) -> Tracer:
        """The array with its axes permuted (reversed when none are given)."""
        if len(axes) == 1 and isinstance(axes[0], (tuple, list)):
            axes = tuple(axes[0])
        return transpose(self, axes or None)

    def astype(self: Any, dtype: Any) -> Tracer:
        """The array converted to `dtype`."""
        return astype(self, dtype)

    def flatten(self: Any) -> Tracer:
        """The array as 1-D."""
        return ravel(self)

    ravel = flatten

    def squeeze(self: Any, axis: Any = None) -> Tracer:
        """The array without its size-1 axes `axis` (all when None)."""
        return squeeze(self, axis)


register_array_namespace(sys.modules[__name__], {
    name: value for name, value in vars(_ArrayMethods).items()
    if name not in ("__module__", "__qualname__", "__doc__", "__dict__", "__weakref__",
                    "__firstlineno__", "__static_attributes__")})
