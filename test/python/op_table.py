"""The op table: one `OpCase` per (op, configuration), shared by the forward
tests (test_ops_forward.py) and the gradient tests (test_ops_gradient.py).

A case names the `relax.<op>` op, its inputs (name, shape, element type and
how values are sampled), its attributes (python values in the contract's
attribute kinds, see `relax_testing.attr_text`: bool -> BoolAttr, int -> i64,
float -> f64, str -> StrAttr, list -> array<i64>; None = attribute absent), a
numpy reference evaluated in float64, the rule for the result element type, the
element types of the forward test, and which inputs get gradients.

- Forward: each case is compiled once per element type in `dtypes` as
  `main(inputs) = relax.<op>(inputs) {attrs}` and compared with the reference.
- Gradient: each case with `grad_inputs` is differentiated once in
  `grad_dtype` (float64 unless said) and compared with central differences of
  the reference (inputs are kept `kink_margin` away from the `kinks`).

Adding an op: append its cases to TABLE, in its family's section, with the
family helper: `unary`, `binary`, `comparison` and `reduction` make one case per
shape (or axis configuration) of the family's list, `shaped` one per (input
shapes, attrs, reference) triple, `nll` and `layer_norm_case` one each; `case`
builds any other signature from `Input`s. Pick value ranges where the reference
is smooth, list `kinks` the gradient samples must avoid, and give `grad=()` to
forward-only configurations (ties, special values). `test_op_table.py` checks
that every op the dialect registers has a forward case and (unless in
NON_DIFFERENTIABLE or STRUCTURAL) a gradient case, that the table names no op
the dialect lacks, and that every reference runs on its samples.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import relax_testing as rt

Shape = tuple[int, ...]
Sampler = Callable[[np.random.Generator, Shape, Any], np.ndarray]

F16, F32, F64 = np.float16, np.float32, np.float64
I32, I64, BOOL = np.int32, np.int64, np.bool_
FLOAT = (F32, F64)
NUMERIC = FLOAT + (I32, I64)
ANY = NUMERIC + (BOOL,)

SAME = "same"  # result rule: the result element type is the case's element type

# Ops that never get gradients: results that are not float (comparisons) or no
# float operand (zeros, ones).
NON_DIFFERENTIABLE = frozenset({
    "equal", "not_equal", "greater", "greater_equal", "less", "less_equal", "zeros", "ones",
})

# Structure, not computation: tested in test_gradient_behaviours.py and test_checkpoint.py.
STRUCTURAL = frozenset({
    "dataflow", "output", "tuple", "tuple_get_item", "start_checkpoint", "end_checkpoint",
})


def is_float(dtype: Any) -> bool:
    return np.issubdtype(np.dtype(dtype), np.floating)


# ----------------------------------------------------------------------------
# Inputs and cases
# ----------------------------------------------------------------------------

@dataclass(frozen=True)
class Input:
    """One operand. `values` is (low, high) or (low, high, avoid_zero) for
    `relax_testing.random_array` (integers in [low, high] for integer types), or
    a sampler(gen, shape, dtype). `dtype` None means the case's element type;
    a fixed dtype marks indices, targets or conditions."""

    name: str
    shape: Shape
    values: tuple | Sampler = (-2.0, 2.0)
    dtype: Any = None

    def element_type(self, dtype: Any) -> Any:
        return self.dtype if self.dtype is not None else dtype

    def sample(self, gen: np.random.Generator, dtype: Any) -> np.ndarray:
        dt = np.dtype(self.element_type(dtype))
        if callable(self.values):
            x = np.asarray(self.values(gen, self.shape, dt.type))
            assert x.shape == tuple(self.shape), (self.name, x.shape, self.shape)
            return x.astype(dt)
        low, high, *avoid = self.values
        return rt.random_array(gen, self.shape, dt, low, high, avoid[0] if avoid else 0.0)


@dataclass(frozen=True)
class OpCase:
    """One op in one configuration (see the module docstring)."""

    op: str
    inputs: tuple[Input, ...]
    reference: Callable[..., Any]         # numpy, on the inputs (floats as float64)
    attrs: Mapping[str, Any] = field(default_factory=dict)
    dtypes: tuple = FLOAT                  # the forward test's element types
    result: Any = SAME                     # SAME, BOOL or a fixed result element type
    grad: tuple[str, ...] | None = None  # None: every float input (none for int/bool results)
    grad_dtype: Any = F64
    kinks: tuple[float, ...] = ()          # gradient samples keep kink_margin away from these
    kink_margin: float = 0.1
    tol: Mapping[Any, tuple[float, float]] = field(default_factory=dict)  # forward (rtol, atol)
    grad_tol: tuple[float, float] | None = None
    label: str = ""                        # distinguishes configurations with equal ids
    note: str = ""

    @property
    def id(self) -> str:
        parts = [self.op]
        parts += ["-".join(shape_id(i.shape) for i in self.inputs)] if self.inputs else []
        parts += [f"{k}={attr_id(v)}" for k, v in self.attrs.items() if v is not None]
        parts += [self.label] if self.label else []
        return "-".join(p for p in parts if p)

    def result_dtype(self, dtype: Any) -> Any:
        return dtype if self.result is SAME else self.result

    @property
    def grad_inputs(self) -> tuple[str, ...]:
        if self.grad is not None:
            return self.grad
        if self.op in NON_DIFFERENTIABLE or not is_float(self.result_dtype(self.grad_dtype)) \
                or self.grad_dtype not in self.dtypes:
            return ()
        return tuple(i.name for i in self.inputs if is_float(i.element_type(self.grad_dtype)))

    def sample(self, dtype: Any, gen: np.random.Generator,
               gradient: bool = False) -> dict[str, np.ndarray]:
        """Example inputs in element type `dtype`; for a gradient test, the inputs
        that get gradients are moved away from the kinks."""
        arrays = {i.name: i.sample(gen, dtype) for i in self.inputs}
        if gradient:
            for name in self.grad_inputs:
                arrays[name] = away_from(arrays[name], self.kinks, self.kink_margin, gen)
        return arrays

    def expected(self, arrays: Mapping[str, np.ndarray]) -> Any:
        """The reference on float64 copies of the float inputs: an ndarray, or a
        tuple of them for a tuple result."""
        args = [a.astype(F64) if is_float(a.dtype) else a for a in arrays.values()]
        out = self.reference(*args)
        if isinstance(out, (tuple, list)):
            return tuple(np.asarray(o) for o in out)
        return np.asarray(out)


def away_from(x: np.ndarray, points: Sequence[float], margin: float,
              gen: np.random.Generator) -> np.ndarray:
    """x with every element within `margin` of one of `points` moved to
    margin..2*margin from it (on the side where it was)."""
    x = np.array(x)
    for p in points:
        d = x - p
        near = np.abs(d) < margin
        moved = p + np.where(d < 0, -1.0, 1.0) * (margin + gen.uniform(0, margin, x.shape))
        x = np.where(near, moved, x).astype(x.dtype)
    return x


def shape_id(shape: Any) -> str:
    if shape is None:
        return "none"
    return "x".join(str(d) for d in shape) if len(shape) else "scalar"


def attr_id(value: Any) -> str:
    if isinstance(value, bool):
        return str(int(value))
    if isinstance(value, (list, tuple)):
        return ",".join(str(v) for v in value) if value else "[]"
    return str(value)


def with_f16(dtypes: tuple, add: bool) -> tuple:
    """dtypes plus float16 when `add` and the op takes floats."""
    if add and F16 not in dtypes and any(is_float(d) for d in dtypes):
        return dtypes + (F16,)
    return dtypes


def case(op: str, inputs: Sequence[Input], reference: Callable[..., Any],
         attrs: Mapping[str, Any] | None = None, **kw: Any) -> OpCase:
    return OpCase(op, tuple(inputs), reference, dict(attrs or {}), **kw)


# ----------------------------------------------------------------------------
# Samplers
# ----------------------------------------------------------------------------

def small_ints(gen: np.random.Generator, shape: Shape, dtype: Any) -> np.ndarray:
    """Values in -2..2 in any element type, so that ties and zeros occur."""
    return gen.integers(-2, 3, size=shape).astype(dtype)


def both_branches(gen: np.random.Generator, shape: Shape, dtype: Any) -> np.ndarray:
    """A random condition with both branches taken (when it has two elements)."""
    c = gen.random(shape) < 0.5
    if c.size > 1:
        c.flat[0], c.flat[1] = True, False
    return c


def indices(n: int) -> Sampler:
    """Indices in [-n, n) with a repeat and a negative index (where room allows)."""
    def sample(gen: np.random.Generator, shape: Shape, dtype: Any) -> np.ndarray:
        i = gen.integers(-n, n, size=shape)
        if i.size >= 2:
            i.flat[1] = i.flat[0]
        if i.size >= 3:
            i.flat[2] = -1
        return i.astype(dtype)
    return sample


def targets(classes: int, ignored: Sequence[int] = ()) -> Sampler:
    """Class indices in [0, classes), the first len(ignored) set to `ignored`."""
    def sample(gen: np.random.Generator, shape: Shape, dtype: Any) -> np.ndarray:
        t = gen.integers(0, classes, size=shape)
        for k, v in enumerate(ignored):
            t.flat[k] = v
        return t.astype(dtype)
    return sample


def with_zeros(*positions: tuple[int, ...]) -> Sampler:
    """Uniform values in [-1.5, 1.5) (integers -2..2) with zeros at `positions`."""
    def sample(gen: np.random.Generator, shape: Shape, dtype: Any) -> np.ndarray:
        x = rt.random_array(gen, shape, dtype, -1.5, 1.5, avoid_zero=0.5)
        for p in positions:
            x[p] = 0
        return x
    return sample


def fixed(values: Any) -> Sampler:
    return lambda gen, shape, dtype: np.asarray(values, dtype=dtype).reshape(shape)


# ----------------------------------------------------------------------------
# References
# ----------------------------------------------------------------------------

_erf = np.vectorize(math.erf, otypes=[np.float64])


def erf(x: np.ndarray) -> np.ndarray:
    return np.asarray(_erf(x), dtype=np.float64)


def gelu(x: np.ndarray) -> np.ndarray:
    return 0.5 * x * (1.0 + erf(x / math.sqrt(2.0)))


def leaky_relu(alpha: float) -> Callable[[np.ndarray], np.ndarray]:
    return lambda x: np.where(x >= 0, x, alpha * x)


def softmax(axis: int) -> Callable[[np.ndarray], np.ndarray]:
    def f(x: np.ndarray) -> np.ndarray:
        e = np.exp(x - np.max(x, axis=axis, keepdims=True))
        return e / np.sum(e, axis=axis, keepdims=True)
    return f


def log_softmax(axis: int) -> Callable[[np.ndarray], np.ndarray]:
    def f(x: np.ndarray) -> np.ndarray:
        s = x - np.max(x, axis=axis, keepdims=True)
        return s - np.log(np.sum(np.exp(s), axis=axis, keepdims=True))
    return f


def cross_entropy_with_logits(pred: np.ndarray, labels: np.ndarray) -> np.ndarray:
    n = pred.shape[0] if pred.ndim >= 2 else 1
    return np.asarray(-np.sum(pred * labels) / n)


def nll_loss(reduction: str = "mean", ignore_index: int = -100) -> Callable[..., np.ndarray]:
    """PyTorch's F.nll_loss: pred (N, C), (C) or (N, C, d1..dk); targets (N), ()
    or (N, d1..dk); optional weights (C)."""
    def f(pred: np.ndarray, target: np.ndarray, weight: np.ndarray | None = None) -> Any:
        classes = pred.shape[0] if pred.ndim == 1 else pred.shape[1]
        w = np.ones(classes) if weight is None else weight
        t = np.asarray(target).astype(np.int64)
        valid = t != ignore_index
        safe = np.where(valid, t, 0)
        if pred.ndim == 1:
            picked = pred[safe]
        else:
            picked = np.take_along_axis(pred, np.expand_dims(safe, 1), axis=1).squeeze(1)
        wt = np.where(valid, w[safe], 0.0)
        loss = np.where(valid, -wt * picked, 0.0)
        if reduction == "none":
            return loss
        if reduction == "sum":
            return np.asarray(loss.sum())
        return np.asarray(loss.sum() / wt.sum())
    return f


def layer_norm(axes: Sequence[int], epsilon: float = 1e-5) -> Callable[..., np.ndarray]:
    def f(x: np.ndarray, gamma: np.ndarray, beta: np.ndarray) -> np.ndarray:
        ax = tuple(sorted(a % x.ndim for a in axes))
        mean = x.mean(axis=ax, keepdims=True)
        var = x.var(axis=ax, keepdims=True)
        shape = [x.shape[i] if i in ax else 1 for i in range(x.ndim)]
        return (x - mean) / np.sqrt(var + epsilon) * gamma.reshape(shape) + beta.reshape(shape)
    return f


def strided_slice(axes: Sequence[int], begin: Sequence[int], end: Sequence[int],
                  strides: Sequence[int] | None = None) -> Callable[[np.ndarray], np.ndarray]:
    def f(x: np.ndarray) -> np.ndarray:
        index = [slice(None)] * x.ndim
        for k, a in enumerate(axes):
            index[a] = slice(begin[k], end[k], strides[k] if strides else 1)
        return x[tuple(index)]
    return f


def pad(pad_width: Sequence[int], value: float = 0.0) -> Callable[[np.ndarray], np.ndarray]:
    pairs = [(pad_width[2 * i], pad_width[2 * i + 1]) for i in range(len(pad_width) // 2)]
    return lambda x: np.pad(x, pairs, mode="constant", constant_values=value)


def reduce(fn: Callable[..., np.ndarray], axis: Sequence[int] | None,
           keepdims: bool) -> Callable[[np.ndarray], np.ndarray]:
    np_axis = None if axis is None else tuple(axis)
    return lambda x: fn(x, axis=np_axis, keepdims=keepdims)


def astype(target: Any) -> Callable[[np.ndarray], np.ndarray]:
    # Float targets stay float64 here: the comparison rounds to the result type.
    return lambda x: x.astype(F64 if is_float(target) else target)


# ----------------------------------------------------------------------------
# Family helpers: one case per shape (configuration)
# ----------------------------------------------------------------------------

UNARY_SHAPES = [(), (5,), (3, 4), (2, 3, 4)]
UNARY_F16_SHAPE = (3, 4)


def unary(op: str, ref: Callable[..., Any], dtypes: tuple = FLOAT,
          values: tuple | Sampler = (-2.0, 2.0), attrs: dict | None = None,
          shapes: Sequence[Shape] = UNARY_SHAPES, f16: bool = True, **kw: Any) -> list[OpCase]:
    return [case(op, [Input("x", s, values)], ref, attrs,
                 dtypes=with_f16(dtypes, f16 and s == UNARY_F16_SHAPE), **kw) for s in shapes]


BINARY_SHAPES = [
    ((3, 4), (3, 4)),
    ((3, 4), (4,)),
    ((4,), (3, 4)),
    ((2, 1, 4), (3, 1)),
    ((), (2, 3)),
    ((3, 1), ()),
    ((3, 1), (1, 4)),
    ((1, 3), (2, 1, 3)),
]
BINARY_F16_SHAPES = ((3, 4), (4,))


def binary(op: str, ref: Callable[..., Any], dtypes: tuple = NUMERIC,
           a: tuple | Sampler = (-9.0, 9.0), b: tuple | Sampler = (-9.0, 9.0),
           shapes: Sequence[tuple[Shape, Shape]] = BINARY_SHAPES, f16: bool = True,
           **kw: Any) -> list[OpCase]:
    return [case(op, [Input("a", sa, a), Input("b", sb, b)], ref,
                 dtypes=with_f16(dtypes, f16 and (sa, sb) == BINARY_F16_SHAPES), **kw)
            for sa, sb in shapes]


# The comparisons share one broadcasting lowering: same shapes, trailing and two-sided
# broadcasting, 0-d. `greater` keeps the seven shape pairs it had before the table.
COMPARISON_SHAPES = [BINARY_SHAPES[0], BINARY_SHAPES[1], BINARY_SHAPES[3], BINARY_SHAPES[4]]


def comparison(op: str, ref: Callable[..., Any],
               shapes: Sequence[tuple[Shape, Shape]] = COMPARISON_SHAPES) -> list[OpCase]:
    """Small integer values (also for floats) so that ties occur."""
    return binary(op, ref, NUMERIC, small_ints, small_ints, shapes, result=BOOL)


REDUCTION_AXES = [
    ((2, 3, 4), None, False),
    ((2, 3, 4), None, True),
    ((2, 3, 4), [0], False),
    ((2, 3, 4), [1], True),
    ((2, 3, 4), [-1], False),
    ((2, 3, 4), [-1], True),
    ((2, 3, 4), [-2], True),
    ((2, 3, 4), [0, 2], False),
    ((2, 3, 4), [-3, -1], True),
    ((2, 3, 4), [2, 0], False),
    ((2, 3, 4), [0, 1, 2], False),
    ((5,), None, False),
    ((5,), [0], True),
    ((4, 3), [-2], False),
    ((), None, False),
]
REDUCTION_F16_CONFIG = ((2, 3, 4), [1], True)


def reduction(op: str, fn: Callable[..., Any], dtypes: tuple = NUMERIC,
              values: tuple | Sampler = (-9.0, 9.0),
              configs: Sequence[tuple] = REDUCTION_AXES, **kw: Any) -> list[OpCase]:
    return [case(op, [Input("x", s, values)], reduce(fn, axis, keepdims),
                 {"axis": axis, "keepdims": keepdims},
                 dtypes=with_f16(dtypes, (s, axis, keepdims) == REDUCTION_F16_CONFIG), **kw)
            for s, axis, keepdims in configs]


def shaped(op: str, configs: Sequence[tuple[Sequence[Shape], dict | None, Callable]],
           dtypes: tuple = ANY, names: Sequence[str] = ("x",), **kw: Any) -> list[OpCase]:
    """Shape-manipulation cases: (input shapes, attrs, reference) per configuration."""
    out = []
    for shapes, attrs, ref in configs:
        ins = [Input(names[k] if k < len(names) else f"x{k + 1}", s) for k, s in enumerate(shapes)]
        out.append(case(op, ins, ref, attrs, dtypes=dtypes, **kw))
    return out


def nll(pred: Shape, target: Shape, reduction: str | None = None, weighted: bool = False,
        ignore_index: int | None = None, ignored: Sequence[int] = (),
        targets_dtype: Any = I64) -> OpCase:
    """An nll_loss case; the first len(ignored) targets are set to `ignored`."""
    classes = pred[0] if len(pred) == 1 else pred[1]
    ins = [Input("pred", pred, (-3, 3)), Input("targets", target, targets(classes, ignored),
                                               targets_dtype)]
    ins += [Input("weights", (classes,), (0.5, 2))] if weighted else []
    label = "-".join((["ignored"] if ignored else []) + ([rt.element_type(targets_dtype)]
                                                         if targets_dtype != I64 else []))
    return case("nll_loss", ins, nll_loss(reduction or "mean",
                                          -100 if ignore_index is None else ignore_index),
                {"reduction": reduction, "ignore_index": ignore_index}, label=label)


def layer_norm_case(x: Shape, axes: list[int], epsilon: float | None = None,
                    f16: bool = False) -> OpCase:
    """gamma and beta have the normalized axes' extents, in axis order."""
    params = tuple(x[a] for a in sorted(a % len(x) for a in axes))
    return case("layer_norm", [Input("x", x, (-3, 3)), Input("gamma", params, (0.5, 1.5)),
                               Input("beta", params, (-1, 1))],
                layer_norm(axes, 1e-5 if epsilon is None else epsilon),
                {"axes": axes, "epsilon": epsilon}, dtypes=with_f16(FLOAT, f16),
                tol={F32: (1e-5, 1e-5), F16: (1e-2, 1e-2)},
                note="the normalization amplifies rounding of the mean: looser f32/f16 atol")


def conv2d(strides: Sequence[int] = (1, 1), padding: Sequence[int] = (0, 0, 0, 0),
           dilation: Sequence[int] = (1, 1), groups: int = 1) -> Callable[..., np.ndarray]:
    """relax.conv2d (cross-correlation, NCHW x, OIHW w) by explicit loops over the kernel."""
    def ref(x: np.ndarray, w: np.ndarray) -> np.ndarray:
        n, _, _, _ = x.shape
        o, i, kh, kw = w.shape
        xp = np.pad(x, ((0, 0), (0, 0), (padding[0], padding[2]), (padding[1], padding[3])))
        oh = (xp.shape[2] - dilation[0] * (kh - 1) - 1) // strides[0] + 1
        ow = (xp.shape[3] - dilation[1] * (kw - 1) - 1) // strides[1] + 1
        out = np.zeros((n, o, oh, ow))
        per_group = o // groups
        for oc in range(o):
            g = oc // per_group
            for a in range(kh):
                for b in range(kw):
                    r0, c0 = a * dilation[0], b * dilation[1]
                    patch = xp[:, g * i:(g + 1) * i,
                               r0:r0 + (oh - 1) * strides[0] + 1:strides[0],
                               c0:c0 + (ow - 1) * strides[1] + 1:strides[1]]
                    out[:, oc] += np.einsum("nchw,c->nhw", patch, w[oc, :, a, b])
        return out
    return ref


def pool2d(kind: str, pool_size: Sequence[int], strides: Sequence[int] | None = None,
           padding: Sequence[int] = (0, 0, 0, 0), dilation: Sequence[int] = (1, 1),
           ceil_mode: bool = False, count_include_pad: bool = False) -> Callable[..., np.ndarray]:
    """relax.max_pool2d / avg_pool2d as PyTorch defines them, window by window."""
    s = tuple(strides or pool_size)

    def out_size(size: int, before: int, after: int, k: int, st: int, d: int) -> int:
        span = size + before + after - d * (k - 1) - 1
        out = span // st + 1
        if ceil_mode and span % st and out * st < size + before:
            out += 1
        return out

    def ref(x: np.ndarray) -> np.ndarray:
        n, c, h, w = x.shape
        oh = out_size(h, padding[0], padding[2], pool_size[0], s[0], dilation[0])
        ow = out_size(w, padding[1], padding[3], pool_size[1], s[1], dilation[1])
        out = np.zeros((n, c, oh, ow))
        for i in range(oh):
            for j in range(ow):
                vals, count = [], 0
                for a in range(pool_size[0]):
                    for b in range(pool_size[1]):
                        r = i * s[0] - padding[0] + a * dilation[0]
                        q = j * s[1] - padding[1] + b * dilation[1]
                        inside = 0 <= r < h and 0 <= q < w
                        if inside:
                            vals.append(x[:, :, r, q])
                        if inside or (count_include_pad and r < h + padding[2]
                                      and q < w + padding[3]):
                            count += 1
                v = np.stack(vals)
                out[:, :, i, j] = v.max(0) if kind == "max" else v.sum(0) / count
        return out
    return ref


# ----------------------------------------------------------------------------
# The table
# ----------------------------------------------------------------------------

def _relu(x: np.ndarray) -> np.ndarray:
    return np.maximum(x, 0)


TABLE: list[OpCase] = [
    # --- elementwise unary --------------------------------------------------
    *unary("negative", np.negative, NUMERIC, (-5, 5)),
    *unary("exp", np.exp, values=(-3, 3)),
    *unary("log", np.log, values=(0.05, 5)),
    *unary("sqrt", np.sqrt, values=(0.05, 5)),
    *unary("rsqrt", lambda x: 1.0 / np.sqrt(x), values=(0.1, 5)),
    *unary("sin", np.sin, values=(-4, 4)),
    *unary("cos", np.cos, values=(-4, 4)),
    *unary("tan", np.tan, values=(-1.2, 1.2)),
    *unary("tanh", np.tanh, values=(-4, 4)),
    *unary("sigmoid", rt.sigmoid, values=(-6, 6)),
    *unary("abs", np.abs, NUMERIC, (-5, 5), kinks=(0.0,)),
    *unary("square", np.square, NUMERIC, (-5, 5)),
    *unary("erf", erf, values=(-3, 3)),
    *unary("relu", _relu, NUMERIC, (-5, 5), kinks=(0.0,)),
    *unary("silu", lambda x: x * rt.sigmoid(x), values=(-6, 6)),
    *unary("gelu", gelu, values=(-4, 4), note="exact (erf) form"),
    *unary("softplus", lambda x: np.logaddexp(0.0, x), values=(-6, 6)),
    *unary("leaky_relu", leaky_relu(0.01), values=(-5, 5), kinks=(0.0,), note="default alpha"),
    *unary("leaky_relu", leaky_relu(0.2), values=(-5, 5), attrs={"alpha": 0.2},
           shapes=[(3, 4)], kinks=(0.0,)),
    *unary("clip", lambda x: np.clip(x, -3.0, 4.0), NUMERIC, (-9, 9),
           {"min": -3.0, "max": 4.0}, kinks=(-3.0, 4.0), note="integral bounds: ints too"),
    *unary("clip", lambda x: np.clip(x, -0.5, 1.25), values=(-2, 2),
           attrs={"min": -0.5, "max": 1.25}, shapes=[(2, 3, 4)], kinks=(-0.5, 1.25)),
    # astype: one case per result type; `dtypes` are the source element types.
    *unary("astype", astype(F32), (F64, F16, I32, I64, BOOL), (-9, 9), shapes=[(), (3, 4)],
           f16=False, result=F32, label="to-f32"),
    *unary("astype", astype(F64), (F32, F16, I32, BOOL), (-9, 9), shapes=[(3, 4)], f16=False,
           result=F64, label="to-f64", grad_dtype=F32, grad_tol=(1e-6, 1e-7)),
    *unary("astype", astype(F16), (F32, F64, I32), (-9, 9), shapes=[(3, 4)], f16=False,
           result=F16, label="to-f16", grad=(), note="cast gradients: the to-f32/to-f64 cases"),
    *unary("astype", astype(I32), (F32, F64, I64, BOOL), (-9.9, 9.9), shapes=[(3, 4)],
           f16=False, result=I32, label="to-i32", note="float -> int truncates toward zero"),
    *unary("astype", astype(I64), (F32, I32, BOOL), (-9.9, 9.9), shapes=[(3, 4)], f16=False,
           result=I64, label="to-i64"),
    *unary("astype", astype(BOOL), (F32, F64, I32, I64), small_ints, shapes=[(), (3, 4)],
           f16=False, result=BOOL, label="to-i1", note="x != 0"),

    # --- elementwise binary with broadcasting -------------------------------
    *binary("add", np.add),
    *binary("subtract", np.subtract),
    *binary("multiply", np.multiply),
    *binary("divide", np.divide, FLOAT, (-3, 3), (-3, 3, 0.25)),
    # Integer division of positive operands: truncating == flooring division.
    *binary("divide", np.floor_divide, (I32, I64), (0, 40), (1, 7), label="int"),
    *binary("power", np.power, FLOAT, (0.5, 2.5), (-2, 2), note="a > 0 for the gradient wrt b"),
    *binary("power", np.power, FLOAT, fixed([[-2.0, -1.5, 3.0], [0.5, -0.5, 2.0]]),
            fixed([[3.0, 2.0, -1.0], [-2.0, 0.0, 4.0]]), [((2, 3), (2, 3))], grad=(),
            label="negative-base-integral-exponent"),
    *binary("maximum", np.maximum, note="uniform floats: no ties in gradient cases"),
    *binary("minimum", np.minimum),
    *binary("maximum", np.maximum, NUMERIC, small_ints, small_ints, [((3, 4), (4,))],
            f16=False, grad=(), label="ties"),
    *binary("minimum", np.minimum, NUMERIC, small_ints, small_ints, [((3, 4), (4,))],
            f16=False, grad=(), label="ties"),
    *comparison("equal", np.equal),
    *comparison("not_equal", np.not_equal),
    *comparison("greater", np.greater, BINARY_SHAPES[:7]),
    *comparison("greater_equal", np.greater_equal),
    *comparison("less", np.less),
    *comparison("less_equal", np.less_equal),
    # i1 operands compare as 0 < 1 (unsigned), as numpy compares bools.
    *[case(op, [Input("a", (2, 3), small_ints, BOOL), Input("b", (3,), small_ints, BOOL)], ref,
           dtypes=(BOOL,), result=BOOL, label="bool")
      for op, ref in (("equal", np.equal), ("not_equal", np.not_equal), ("greater", np.greater),
                      ("greater_equal", np.greater_equal), ("less", np.less),
                      ("less_equal", np.less_equal))],
    *[case("where", [Input("cond", sc, both_branches, BOOL), Input("a", sa, (-9, 9)),
                     Input("b", sb, (-9, 9))], np.where, dtypes=with_f16(ANY, k == 0))
      for k, (sc, sa, sb) in enumerate([
          ((3, 4), (3, 4), (3, 4)),
          ((3, 4), (4,), ()),
          ((3, 1), (1, 4), (3, 4)),
          ((4,), (3, 4), (3, 1)),
          ((), (2, 3), (2, 3)),
          ((2, 1, 3), (4, 1), (3,)),
      ])],

    # --- reductions ----------------------------------------------------------
    *reduction("sum", np.sum),
    *reduction("mean", np.mean, FLOAT),
    *reduction("variance", np.var, FLOAT, note="population variance (ddof 0)"),
    *reduction("max", np.max, note="uniform floats: no ties in gradient cases"),
    *reduction("min", np.min),
    # Values in -2..2 for integers so that a product of 24 fits in int32.
    *reduction("prod", np.prod, values=(-1.5, 1.5)),
    case("prod", [Input("x", (3, 4), with_zeros((1, 2), (2, 0), (2, 3)))],
         reduce(np.prod, [1], False), {"axis": [1]}, dtypes=NUMERIC,
         label="zeros", note="row 0 no zero, row 1 one zero, row 2 two zeros"),
    case("prod", [Input("x", (2, 3), with_zeros((1, 1)))], reduce(np.prod, None, False),
         dtypes=FLOAT, label="one-zero"),
    case("prod", [Input("x", (2, 3), with_zeros((0, 1), (1, 2)))],
         reduce(np.prod, None, True), {"keepdims": True}, dtypes=FLOAT, label="two-zeros"),
    *[case("cumsum", [Input("x", s, (-9, 9))], lambda x, a=axis: np.cumsum(x, axis=a),
           {"axis": axis}, dtypes=with_f16(NUMERIC, k == 1))
      for k, (s, axis) in enumerate([((5,), 0), ((3, 4), 1), ((3, 4), -2), ((2, 3, 4), 1),
                                     ((2, 3, 4), -1)])],
    *[case("collapse_sum_to", [Input("x", s, (-9, 9))],
           lambda x, t=t: rt.reference_collapse_sum_to(x, t), dtypes=NUMERIC,
           label=f"to-{shape_id(t)}")
      for s, t in [((4, 3), (3,)), ((4, 3), (1, 3)), ((4, 3), (4, 1)), ((2, 4, 3), (4, 1)),
                   ((2, 3), ()), ((2, 3), (2, 3)), ((2, 1, 3), (1, 3)),
                   ((3, 4, 5), (3, 1, 5)), ((2, 3, 4), (1, 1, 1))]],

    # --- linear algebra ------------------------------------------------------
    *binary("matmul", np.matmul, NUMERIC, (-5, 5), (-5, 5), shapes=[
        ((4, 3), (3, 2)),           # 2-D x 2-D
        ((1, 1), (1, 1)),
        ((3,), (3, 5)),             # 1-D x 2-D
        ((4, 3), (3,)),             # 2-D x 1-D
        ((6,), (6,)),               # 1-D x 1-D
        ((2, 4, 3), (2, 3, 5)),     # batched
        ((2, 4, 3), (3, 5)),        # batched x 2-D
        ((4, 3), (2, 3, 5)),        # 2-D x batched
        ((2, 1, 4, 3), (3, 3, 5)),  # broadcasting batch dims
        ((1, 4, 3), (2, 3, 2)),
        ((3,), (2, 3, 4)),          # 1-D x batched
        ((2, 4, 3), (3,)),          # batched x 1-D
    ], f16=False),
    case("matmul", [Input("a", (4, 3), (-2, 2)), Input("b", (3, 5), (-2, 2))], np.matmul,
         dtypes=(F16,), label="f16", tol={F16: (2e-3, 2e-3)}),

    # --- neural network ------------------------------------------------------
    *[case(op, [Input("x", s, (-3, 3))], ref(-1 if axis is None else axis), {"axis": axis},
           dtypes=with_f16(FLOAT, s == (3, 4) and axis is None))
      for op, ref in (("softmax", softmax), ("log_softmax", log_softmax))
      for s, axis in [((5,), None), ((3, 4), None), ((3, 4), 0), ((2, 3, 4), 1),
                      ((2, 3, 4), -3)]],
    *[case("cross_entropy_with_logits", [Input("pred", s, (-3, 3)), Input("labels", s, (0, 1))],
           cross_entropy_with_logits) for s in [(4, 3), (5,), (2, 3, 4)]],
    nll((4, 3), (4,)),
    nll((4, 3), (4,), "mean", ignored=(-100,)),
    nll((4, 3), (4,), "mean", weighted=True, ignored=(-100,)),
    nll((4, 3), (4,), "sum", weighted=True),
    nll((4, 3), (4,), "none", weighted=True, ignored=(-100,)),
    nll((5, 4), (5,), "mean", weighted=True, ignore_index=1, ignored=(1,), targets_dtype=I32),
    nll((3,), ()),
    nll((3,), (), "sum", weighted=True),
    nll((2, 3, 4), (2, 4), "mean", weighted=True, ignored=(-100,)),
    nll((2, 3, 4), (2, 4), "none", targets_dtype=I32),
    layer_norm_case((3, 4), [1], f16=True),
    layer_norm_case((2, 3, 4), [1, 2]),
    layer_norm_case((2, 3, 4), [-1], epsilon=1e-3),
    layer_norm_case((2, 3, 4), [2, 0]),
    *[case("conv2d", [Input("x", xs, (-1, 1)), Input("w", ws, (-1, 1))], conv2d(**kw),
           {k: v for k, v in kw.items()}, dtypes=with_f16(FLOAT, not kw),
           tol={F16: (1e-2, 1e-2)})
      for xs, ws, kw in [
          ((2, 3, 6, 5), (4, 3, 3, 3), {}),
          ((1, 2, 7, 7), (3, 2, 3, 2), {"strides": [2, 3], "padding": [1, 0, 2, 1]}),
          ((2, 2, 8, 6), (2, 2, 2, 3), {"dilation": [2, 1], "padding": [1, 1, 1, 1]}),
          ((1, 4, 5, 6), (6, 2, 3, 3), {"groups": 2, "strides": [1, 2], "padding": [1, 1, 0, 0]}),
          ((2, 3, 4, 4), (3, 1, 2, 2), {"groups": 3}),
      ]],
    *[case(op, [Input("x", xs)], pool2d(kind, **kw), {k: v for k, v in kw.items()},
           dtypes=with_f16(FLOAT, not kw or kw == {"pool_size": [2, 2]}),
           tol={F16: (1e-2, 1e-2)})
      for op, kind in (("max_pool2d", "max"), ("avg_pool2d", "avg"))
      for xs, kw in [
          ((2, 3, 6, 6), {"pool_size": [2, 2]}),
          ((1, 2, 7, 6), {"pool_size": [3, 3], "strides": [2, 2], "padding": [1, 1, 1, 1]}),
          ((1, 2, 7, 6), {"pool_size": [3, 2], "strides": [2, 2], "padding": [1, 1, 1, 0],
                          "ceil_mode": True}),
          ((1, 2, 6, 7), {"pool_size": [2, 2], "strides": [1, 2], "dilation": [2, 1]}),
      ]],
    *[case("avg_pool2d", [Input("x", (1, 2, 7, 6))],
           pool2d("avg", [3, 3], [2, 2], [1, 1, 1, 1], ceil_mode=ceil, count_include_pad=True),
           {"pool_size": [3, 3], "strides": [2, 2], "padding": [1, 1, 1, 1],
            "ceil_mode": ceil, "count_include_pad": True}) for ceil in (False, True)],

    # --- shape manipulation --------------------------------------------------
    *shaped("permute_dims", [([s], {"axes": axes}, lambda x, a=axes: np.transpose(x, a))
                             for s, axes in [
        ((3, 4), None), ((2, 3, 4), None), ((5,), None), ((2, 3, 4), [1, 0, 2]),
        ((2, 3, 4), [2, 0, 1]), ((2, 3, 4), [0, 1, 2]), ((2, 3, 4, 5), [3, 1, 0, 2]),
        ((3, 4), [1, 0]), ((2, 3, 4, 2), [3, 1, 0, 2])]]),
    *[case("reshape", [Input("x", s)], lambda x, t=t: np.reshape(x, t), dtypes=ANY,
           label=f"to-{shape_id(t)}")
      for s, t in [((2, 6), (3, 4)), ((2, 3, 4), (24,)), ((6,), (1, 2, 3)), ((4, 3), (2, 2, 3)),
                   ((2, 3, 4), (4, 6)), ((1,), ()), ((), (1, 1))]],
    *[case("broadcast_to", [Input("x", s)], lambda x, t=t: np.broadcast_to(x, t), dtypes=ANY,
           label=f"to-{shape_id(t)}")
      for s, t in [((3,), (4, 3)), ((1, 3), (2, 4, 3)), ((4, 1), (4, 3)), ((), (2, 3)),
                   ((2, 1, 3), (2, 5, 3)), ((3,), (3,)), ((1,), (2, 2))]],
    *shaped("expand_dims", [([s], {"axis": a}, lambda x, a=a: np.expand_dims(x, tuple(a)))
                            for s, a in [((3, 4), [0]), ((3, 4), [-1]), ((3, 4), [0, 3]),
                                         ((), [0]), ((2, 3), [1, -1])]]),
    *shaped("squeeze", [([s], {"axis": a},
                         lambda x, a=a: np.squeeze(x, None if a is None else tuple(a)))
                        for s, a in [((1, 3, 1, 4), None), ((1, 3, 1, 4), [2]),
                                     ((1, 3, 1, 4), [-4, 2]), ((1,), None), ((3, 4), None)]]),
    *shaped("flatten", [([s], None, np.ravel) for s in [(2, 3, 4), (4, 1, 3), (5,), ()]]),
    *shaped("concat", [(shapes, {"axis": a}, lambda *xs, a=a: np.concatenate(xs, axis=a))
                       for shapes, a in [([(2, 3), (4, 3)], 0), ([(2, 3), (2, 1), (2, 4)], 1),
                                         ([(2, 3, 4), (2, 3, 4)], -1), ([(3,), (2,)], 0)]],
            names=("x1",)),
    *[case("split", [Input("x", s)], lambda x, ios=ios, a=a: tuple(np.split(x, ios, axis=a)),
           {"indices_or_sections": ios, "axis": a},
           dtypes=ANY, label="points" if isinstance(ios, list) else "sections")
      for s, ios, a in [((6,), 3, 0), ((4, 6), [1, 4], 1), ((2, 6, 3), 2, -2), ((5, 4), [2], 0),
                        ((7, 2), [-5, 3, 9], 0), ((6,), [0, 6], 0)]],
    *[case("take", [Input("x", xs), Input("indices", ish, indices(n), it)],
           lambda x, i, a=axis: np.take(x, i, axis=a), {"axis": axis}, dtypes=ANY)
      for xs, ish, axis, n, it in [
          ((5,), (4,), 0, 5, I64),
          ((3, 4), (5,), 1, 4, I64),
          ((3, 4), (2, 3), 0, 3, I32),
          ((2, 3, 4), (), -1, 4, I64),
          ((3, 4), (2, 2), None, 12, I64),
      ]],
    *shaped("strided_slice", [([s], {"axes": ax, "begin": b, "end": e, "strides": st},
                               strided_slice(ax, b, e, st))
                              for s, ax, b, e, st in [
        ((6,), [0], [1], [5], [2]),
        ((4, 5), [1], [-4], [100], None),
        ((4, 5), [0, 1], [3, 4], [-5, 0], [-1, -2]),
        ((2, 3, 4), [2], [1], [3], None),
        ((5,), [0], [-100], [-1], [1]),
        ((4, 6), [1, 0], [5, 1], [-7, 3], [-2, 1]),
        ((4, 3), [0], [0], [4], [2 ** 63 - 1]),
        ((4, 3), [0], [3], [-100], [-2 ** 63]),
    ]]),
    *shaped("tile", [([s], {"repeats": r}, lambda x, r=r: np.tile(x, r))
                     for s, r in [((3,), [2]), ((2, 3), [2, 1]), ((2, 3), [3]), ((3,), [2, 2]),
                                  ((), [3])]]),
    *shaped("pad", [([s], {"pad_width": pw}, pad(pw))
                    for s, pw in [((3,), [1, 2]), ((2, 3), [0, 1, 2, 0]),
                                  ((2, 3, 4), [1, 0, 0, 0, 0, 2])]]),
    case("pad", [Input("x", (2, 3))], pad([1, 1, 0, 2], -2.0),
         {"pad_width": [1, 1, 0, 2], "pad_value": -2.0}, dtypes=NUMERIC),
    case("pad", [Input("x", (3, 2))], pad([2, 0, 1, 1], 1.5),
         {"pad_width": [2, 0, 1, 1], "pad_value": 1.5}, note="a fractional pad value: floats only"),
    *[c for op, fn in (("triu", np.triu), ("tril", np.tril))
      for c in shaped(op, [([s], {"k": k}, lambda x, k=k, fn=fn: fn(x, 0 if k is None else k))
                           for s, k in [((4, 5), None), ((2, 3, 4), 1), ((5, 3), -1)]])],

    # --- creation ------------------------------------------------------------
    *[case(op, [], lambda s=s, v=v: np.full(s, v), dtypes=ANY, label=shape_id(s))
      for op, v in (("zeros", 0.0), ("ones", 1.0)) for s in [(), (3,), (2, 3), (2, 1, 4)]],
    *[case("full", [Input("value", ())], lambda v, s=s: np.full(s, v), dtypes=ANY,
           label=f"to-{shape_id(s)}") for s in [(), (3,), (2, 1, 4)]],
    *[case(op, [Input("x", s)], ref, dtypes=ANY)
      for op, ref in (("zeros_like", np.zeros_like), ("ones_like", np.ones_like))
      for s in [(3, 4), (), (2, 1, 3)]],
    *[case("full_like", [Input("x", s), Input("value", ())], lambda x, v: np.full_like(x, v),
           dtypes=ANY) for s in [(3, 4), (), (2, 1, 3)]],
]


def cases_of(op: str) -> list[OpCase]:
    return [c for c in TABLE if c.op == op]


def find(op: str, *shapes: Shape, dtype: Any = F64) -> OpCase:
    """The case of `op` whose inputs have `shapes` and that runs in `dtype`."""
    found = [c for c in cases_of(op)
             if tuple(i.shape for i in c.inputs) == shapes and dtype in c.dtypes and not c.label]
    assert len(found) == 1, (op, shapes, [c.id for c in found])
    return found[0]


def _check_ids() -> None:
    seen: dict[str, OpCase] = {}
    for c in TABLE:
        assert c.id not in seen, f"two op_table cases have the id {c.id}: add a label"
        seen[c.id] = c


_check_ids()
