"""Op test cases: one `OpCase` per op configuration, listed with its op in the
op table (`ops.OPS[name].cases`) and checked by the forward tests
(test_ops_forward.py) and the gradient tests (test_ops_gradient.py).

A case names the op's inputs (name, shape, element type and how values are
sampled), its attributes (python values in the contract's attribute kinds, see
`harness.attr_text`: bool -> BoolAttr, int -> i64, float -> f64, str ->
StrAttr, list -> array<i64>; None = attribute absent), the rule for the result
element type, the element types of the forward test, and which inputs get
gradients. What the op computes is the op's reference (`ops.Op.ref`, from
references.py), called with the case's attributes; a case never restates it.

- Forward: each case is compiled once per element type in `dtypes` as
  `main(inputs) = relax.<op>(inputs) {attrs}` and compared with the reference.
- Gradient: each case with `grad_inputs` is differentiated once in
  `grad_dtype` (float64 unless said) and compared with central differences of
  the reference (inputs are kept `kink_margin` away from the `kinks`).

The family helpers make the usual configurations: `unary`, `binary`,
`comparison` and `reduction` one case per shape (or axis configuration) of the
family's list, `shaped` one per (input shapes, attrs) pair, `nll` and
`layer_norm_case` one each; `case` builds any other signature from `Input`s.
Pick value ranges where the reference is smooth, list `kinks` the gradient
samples must avoid, and give `grad=()` to forward-only configurations (ties,
special values).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np

from relax_mlir_testing import harness as rt

if TYPE_CHECKING:
    from relax_mlir_testing.ops import Op

Shape = tuple[int, ...]
Sampler = Callable[[np.random.Generator, Shape, Any], np.ndarray]

F16, F32, F64 = np.float16, np.float32, np.float64
I32, I64, BOOL = np.int32, np.int64, np.bool_
FLOAT = (F32, F64)
NUMERIC = FLOAT + (I32, I64)
ANY = NUMERIC + (BOOL,)

SAME = "same"  # result rule: the result element type is the case's element type


def is_float(dtype: Any) -> bool:
    return np.issubdtype(np.dtype(dtype), np.floating)


# ----------------------------------------------------------------------------
# Inputs and cases
# ----------------------------------------------------------------------------

@dataclass(frozen=True)
class Input:
    """One operand. `values` is (low, high) or (low, high, avoid_zero) for
    `harness.random_array` (integers in [low, high] for integer types), or
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
    """One op in one configuration (see the module docstring). `op` and `spec`
    are filled in by the op table entry that lists the case (`Op.__post_init__`);
    `dtypes` None there means the op's element types (float16 added when `f16`)."""

    inputs: tuple[Input, ...]
    attrs: Mapping[str, Any] = field(default_factory=dict)
    dtypes: tuple | None = None            # the forward test's element types
    f16: bool = False                      # add float16 to the op's element types
    result: Any = SAME                     # SAME, BOOL or a fixed result element type
    shape: Shape | None = None             # the result shape, for ops that take it (reshape, zeros)
    grad: tuple[str, ...] | None = None  # None: every float input (none for int/bool results)
    grad_dtype: Any = F64
    kinks: tuple[float, ...] = ()          # gradient samples keep kink_margin away from these
    kink_margin: float = 0.1
    tol: Mapping[Any, tuple[float, float]] = field(default_factory=dict)  # forward (rtol, atol)
    grad_tol: tuple[float, float] | None = None
    label: str = ""                        # distinguishes configurations with equal ids
    note: str = ""
    op: str = ""
    spec: Op | None = field(default=None, compare=False, repr=False)

    def bind(self, spec: Op, dtypes: tuple) -> OpCase:
        """This case as a case of `spec`, running in `dtypes` unless it names its own."""
        own = self.dtypes if self.dtypes is not None else dtypes
        if self.f16 and F16 not in own and any(is_float(d) for d in own):
            own = own + (F16,)
        return dataclasses.replace(self, op=spec.name, spec=spec, dtypes=own)

    @property
    def id(self) -> str:
        parts = [self.op]
        parts += ["-".join(shape_id(i.shape) for i in self.inputs)] if self.inputs else []
        parts += [f"{k}={attr_id(v)}" for k, v in self.attrs.items() if v is not None]
        parts += [self.label] if self.label else []
        return "-".join(p for p in parts if p)

    @property
    def run_dtypes(self) -> tuple:
        assert self.dtypes is not None, f"case {self.id} is not bound to an op"
        return self.dtypes

    def result_dtype(self, dtype: Any) -> Any:
        return dtype if self.result is SAME else self.result

    @property
    def grad_inputs(self) -> tuple[str, ...]:
        if self.grad is not None:
            return self.grad
        if (self.spec is not None and not self.spec.gradient) \
                or not is_float(self.result_dtype(self.grad_dtype)) \
                or self.grad_dtype not in self.run_dtypes:
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

    def reference(self, *args: Any) -> Any:
        """The op's reference on `args` with this case's attributes."""
        assert self.spec is not None, f"case {self.id} is not bound to an op"
        result = self.result_dtype(self.grad_dtype)
        return self.spec.ref(*args, **self.spec.reference_kwargs(
            self.attrs, self.shape, None if result is SAME else rt.element_type(result)))

    def expected(self, arrays: Mapping[str, np.ndarray]) -> Any:
        """The reference on float64 copies of the float inputs: an ndarray, or a
        tuple of them for a tuple result."""
        args = [a.astype(F64) if is_float(a.dtype) else a for a in arrays.values()]
        with np.errstate(all="ignore"):
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


def case(inputs: Sequence[Input], attrs: Mapping[str, Any] | None = None, **kw: Any) -> OpCase:
    return OpCase(tuple(inputs), dict(attrs or {}), **kw)


# ----------------------------------------------------------------------------
# Value samplers
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


def ints_full(gen: np.random.Generator, shape: Shape, dtype: Any) -> np.ndarray:
    """Integers over the whole range of the type (every bit random): bitwise ops."""
    info = np.iinfo(dtype)
    return gen.integers(info.min, info.max, size=shape, dtype=dtype, endpoint=True)


def float_bits(gen: np.random.Generator, shape: Shape, dtype: Any) -> np.ndarray:
    """Integers holding the bits of ordinary floats of their width (bitcast)."""
    width = np.dtype(dtype).itemsize
    floats = gen.uniform(-9, 9, size=shape).astype(np.dtype(f"f{width}"))
    return floats.view(np.dtype(dtype))


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
# Family helpers: one case per shape (configuration)
# ----------------------------------------------------------------------------

UNARY_SHAPES = [(), (5,), (3, 4), (2, 3, 4)]
UNARY_F16_SHAPE = (3, 4)


def unary(values: tuple | Sampler = (-2.0, 2.0), attrs: dict | None = None,
          shapes: Sequence[Shape] = UNARY_SHAPES, f16: bool = True, **kw: Any) -> list[OpCase]:
    return [case([Input("x", s, values)], attrs, f16=f16 and s == UNARY_F16_SHAPE, **kw)
            for s in shapes]


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


def binary(a: tuple | Sampler = (-9.0, 9.0), b: tuple | Sampler = (-9.0, 9.0),
           shapes: Sequence[tuple[Shape, Shape]] = BINARY_SHAPES, f16: bool = True,
           **kw: Any) -> list[OpCase]:
    return [case([Input("a", sa, a), Input("b", sb, b)],
                 f16=f16 and (sa, sb) == BINARY_F16_SHAPES, **kw)
            for sa, sb in shapes]


# The comparisons share one broadcasting lowering: same shapes, trailing and two-sided
# broadcasting, 0-d. `greater` keeps the seven shape pairs it had before the table.
COMPARISON_SHAPES = [BINARY_SHAPES[0], BINARY_SHAPES[1], BINARY_SHAPES[3], BINARY_SHAPES[4]]


def comparison(shapes: Sequence[tuple[Shape, Shape]] = COMPARISON_SHAPES) -> list[OpCase]:
    """Small integer values (also for floats) so that ties occur; i1 operands compare
    as 0 < 1 (unsigned), as numpy compares bools."""
    return [*binary(small_ints, small_ints, shapes, dtypes=NUMERIC, result=BOOL),
            case([Input("a", (2, 3), small_ints, BOOL), Input("b", (3,), small_ints, BOOL)],
                 dtypes=(BOOL,), result=BOOL, label="bool")]


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


def reduction(values: tuple | Sampler = (-9.0, 9.0), configs: Sequence[tuple] = REDUCTION_AXES,
              **kw: Any) -> list[OpCase]:
    return [case([Input("x", s, values)], {"axis": axis, "keepdims": keepdims},
                 f16=(s, axis, keepdims) == REDUCTION_F16_CONFIG, **kw)
            for s, axis, keepdims in configs]


def shaped(configs: Sequence[tuple[Sequence[Shape], dict | None]],
           names: Sequence[str] = ("x",), **kw: Any) -> list[OpCase]:
    """Shape-manipulation cases: (input shapes, attrs) per configuration."""
    out = []
    for shapes, attrs in configs:
        ins = [Input(names[k] if k < len(names) else f"x{k + 1}", s) for k, s in enumerate(shapes)]
        out.append(case(ins, attrs, **kw))
    return out


def to_shapes(pairs: Sequence[tuple[Shape, Shape]], values: tuple | Sampler = (-2.0, 2.0),
              **kw: Any) -> list[OpCase]:
    """Cases of an op that takes its result shape (reshape, broadcast_to,
    collapse_sum_to): (input shape, result shape) pairs."""
    return [case([Input("x", s, values)], shape=t, label=f"to-{shape_id(t)}", **kw)
            for s, t in pairs]


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
    return case(ins, {"reduction": reduction, "ignore_index": ignore_index}, label=label)


def layer_norm_case(x: Shape, axes: list[int], epsilon: float | None = None,
                    f16: bool = False) -> OpCase:
    """gamma and beta have the normalized axes' extents, in axis order."""
    params = tuple(x[a] for a in sorted(a % len(x) for a in axes))
    return case([Input("x", x, (-3, 3)), Input("gamma", params, (0.5, 1.5)),
                 Input("beta", params, (-1, 1))],
                {"axes": axes, "epsilon": epsilon}, f16=f16,
                tol={F32: (1e-5, 1e-5), F16: (1e-2, 1e-2)},
                note="the normalization amplifies rounding of the mean: looser f32/f16 atol")
