"""Seeded random relax programs, their float64 interpreter, and the checker.

`generate(seed)` builds a well-typed relax function (MLIR text in the generic op
form that relax_testing.py writes, one `relax.dataflow` block, constants and
tuple glue sometimes outside it) together with input values. It covers every op
of the dialect (the table `OPS`), ranks 0-5, size-1 and 0-size dims, numpy
broadcasting, negative reduction/permutation axes, keepdims, reductions over no
axis, integer tensors (i32/i64, reaching float results through a comparison ->
where, or astype), tuples built and read back, tuple-typed parameters and
results (the target picked by `target_index`), `arith.constant dense<...>`
constants, checkpoint segments and astype conversions between all element
types; split results read back with tuple_get_item, integer operands (take
indices, nll_loss targets: parameters or constants holding negative,
out-of-range, repeated or ignored indices) and numpy slices with negative
strides and out-of-range bounds; comparisons of i1 operands; convolutions and
poolings of NCHW values (4-d values of the pool, others reshaped to 4-d, or
fresh ones) with strides, padding, dilation, groups, ceil_mode and
count_include_pad, a third of them 1 wide along H or W (a window covering the
input or a stride beyond it); matmuls with one column. The target is a 0-d
float: sums/means of the values the program computed, added up.

Views: about a third of all operands, of every op, are read through a view
(one step, `_Generator.viewed`/`view_of`, between choosing an operand and
the op: samplers need no change). The view has the operand's type and is a
strided_slice (steps 1-3 and -1/-2, offsets 0-2, 1-3 axes, the two innermost
of an NCHW value half the time: column slices, interior windows; a size-0
slice of a non-empty axis now and then), a permute_dims, a broadcast_to
(from size-1 dims, or fewer of them) or a take (1-d indices along an axis,
or a 0-d index dropping one, mostly from a slice or transpose view:
`W[:, :3][tokens]`, `x[:, ::2][i]`) of a source computed from the operand
(tile, pad or concat of it, its transpose negated, a size-1 slice of it) or
a new parameter/constant bigger than the view. The compiler reads these as
strided or offset memrefs, broadcasts and gathers, which dense operands
never exercise.

Each program has one float type (f64, f32 or f16). f32 and f16 programs (checked
forward only) also hold values of the other float types, made by astype from
their own and computed on like any other; they reach the target through astype
back. f64 programs (whose gradients are checked against float64 finite
differences, which a float rounded to f32 on the way would spoil) convert only
values that no parameter reaches to other float types.

The generator evaluates every binding as it creates it (with the same numpy
float64 references the interpreter uses), so domain needs and magnitudes are
decided on actual values: an operand that must be positive (log) or away from
zero (a float denominator) is wrapped, e.g. `exp(tanh(v))`; an `exp` operand that
may be big is wrapped in `tanh` (as is a `prod` operand whose product would be);
layer_norm gets a large epsilon when a normalized group's variance is small; a
candidate op whose result is not finite, too big or too large a tensor is
dropped and another op tried.

`evaluate(program, args)` is the float64 interpreter. It records, for each
non-smooth op (relu, abs, clip, maximum, comparisons, float -> integer astype,
ties of max/min reductions, ...), which side of its kinks its operands are on
and their distance to the nearest one, so that the checker can tell when a
finite difference straddles a kink.

`check(program)` differentiates the program with relax_mlir and compiles it at
each of `opt_levels(seed)`: 0 (scalar loops, the reference lowering) and one
of 1-3 (1 + seed % 3: the CPU schedule, whose vectorized loads, gathers and
tiles views stress); for each it calls `<func>_adjoint` (and `<func>`) and
compares the forward value with the interpreter and every gradient of f64
programs with float64 central finite differences (computed once, for all
levels; only the bindings that depend on the perturbed parameter are
re-evaluated). A wrong result at any level fails the check, naming the level.
`WorkerPool` runs checks in worker subprocesses so that a native crash is
reported with its seed; `python -m relax_mlir_testing.programs --worker` is a
worker (a request may name the opt levels), and `python -m
relax_mlir_testing.programs SEED` prints the program of SEED.

The ops, their references, element types, domain needs and kinks are the op
table's (ops.py); an op whose shapes or attributes are special also has a
sampler here, in `SAMPLERS` (see `_sample_matmul` and friends).
"""

from __future__ import annotations

import hashlib
import json
import math
import os
import selectors
import subprocess
import sys
import tempfile
import time
import traceback
from collections import deque
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any, Optional, Union

import numpy as np

from relax_mlir_testing import references as ref
from relax_mlir_testing.harness import attr_dict_text, float_text
from relax_mlir_testing.ops import (
    ANY,
    BINARY,
    BOUNDED,
    CAST,
    COMPARE,
    CREATE,
    DENOMINATOR,
    MARKER,
    POSITIVE,
    REDUCE,
    SELECT,
    SMALL,
    TUPLE,
    UNARY,
    Op,
)
from relax_mlir_testing.ops import OPS as ALL_OPS
from relax_mlir_testing.references import FLOATS, INTS, NUMPY_DTYPE

# ============================================================================
# Types
# ============================================================================

# Machine epsilon of each float type.
EPS: dict[str, float] = {"f16": 2.0 ** -10, "f32": 2.0 ** -23, "f64": 2.0 ** -52}
# The precision reductions accumulate in (f16 sums are expected to accumulate in f32).
ACCUMULATOR = {"f16": "f32", "f32": "f32", "f64": "f64"}


@dataclass(frozen=True)
class TensorType:
    shape: tuple[int, ...]
    dtype: str

    def __str__(self) -> str:
        dims = "".join(f"{d}x" for d in self.shape)
        return f"tensor<{dims}{self.dtype}>"

    @property
    def rank(self) -> int:
        return len(self.shape)

    @property
    def numel(self) -> int:
        return int(np.prod(self.shape, dtype=np.int64))


@dataclass(frozen=True)
class TupleType:
    fields: tuple[Type, ...]

    def __str__(self) -> str:
        return "tuple<" + ", ".join(str(f) for f in self.fields) + ">"


Type = Union[TensorType, TupleType]


def is_float(t: Type) -> bool:
    return isinstance(t, TensorType) and t.dtype in FLOATS


def carries_gradient(t: Type) -> bool:
    """A float tensor or a tuple holding one somewhere (GradientPass.cpp)."""
    if isinstance(t, TupleType):
        return any(carries_gradient(f) for f in t.fields)
    return is_float(t)


def is_differentiable(t: Type) -> bool:
    """A float tensor or a tuple of only such (isDifferentiableType): the
    parameters that get gradients when require_grads is omitted."""
    if isinstance(t, TupleType):
        return all(is_differentiable(f) for f in t.fields)
    return is_float(t)


def storage(value: Any, t: Type) -> Any:
    """The interpreter's form of a value of type `t`: float64 (holding values of
    the float type), int64 or bool arrays; nested tuples."""
    if isinstance(t, TupleType):
        return tuple(storage(v, f) for v, f in zip(value, t.fields))
    a = np.asarray(value)
    if t.dtype in FLOATS:
        return round_to(a.astype(np.float64), t.dtype)
    if t.dtype in INTS:
        return a.astype(np.int64)
    return a.astype(np.bool_)


def round_to(a: np.ndarray, dtype: str) -> np.ndarray:
    """float64 values rounded to the float type `dtype` (still float64)."""
    if dtype == "f64":
        return a
    with np.errstate(over="ignore"):
        return a.astype(NUMPY_DTYPE[dtype]).astype(np.float64)


def to_program_dtype(value: Any, t: Type) -> Any:
    """The numpy argument for a parameter of type `t` (a Python tuple for tuples)."""
    if isinstance(t, TupleType):
        return tuple(to_program_dtype(v, f) for v, f in zip(value, t.fields))
    return np.asarray(value).astype(NUMPY_DTYPE[t.dtype])


Leaf = tuple[tuple[int, ...], Any, TensorType]  # (path in nested tuples, array, type)
GradLeaf = tuple[int, tuple[int, ...], np.ndarray]  # (parameter index, path, gradient)


def leaves(value: Any, t: Type, path: tuple[int, ...] = ()) -> Iterator[Leaf]:
    """(path, array, type) of every tensor in a possibly nested tuple value."""
    if isinstance(t, TupleType):
        for i, (v, f) in enumerate(zip(value, t.fields)):
            yield from leaves(v, f, path + (i,))
    else:
        yield path, value, t


# ============================================================================
# The op table (ops.py) as the generator sees it
# ============================================================================

Sampler = Callable[["_Generator", Op], Optional["Call"]]


@dataclass
class Call:
    """What a sampler chose: operands, attributes and (for SHAPED/CREATE ops) the
    result type."""

    operands: list[Val]
    attrs: dict[str, Any] = field(default_factory=dict)
    result_type: Type | None = None
    place: str = "inside"
    focus: float = 0.3   # chance that the next op reads the result (chains ops)
    # Called with the bound result (e.g. reads a split's fields back).
    then: Callable[[_Generator, Val], None] | None = None


COMPARISONS = ("greater", "greater_equal", "less", "less_equal", "equal", "not_equal")


# ============================================================================
# Programs
# ============================================================================

@dataclass
class Param:
    name: str
    type: Type
    named: bool = True  # has a relax.name attribute


@dataclass
class Binding:
    """`result = op(operands) {attrs} : type`, placed before, inside or after the
    dataflow block. `op` is a relax op name (table key) or "constant"."""

    result: str
    op: str
    operands: list[str]
    attrs: dict[str, Any]
    type: Type
    place: str = "inside"
    const: np.ndarray | None = None  # the value of a constant (storage form)
    active: bool = False                # an operand depends on a float parameter


@dataclass
class Program:
    seed: int
    func: str
    dtype: str                       # the float element type of the program
    params: list[Param]
    bindings: list[Binding]
    ret: str                         # the returned value's name
    target_index: int
    require_grads: list[int | str] | None
    args: list[Any]                  # arguments, numpy arrays in the program's types
    features: set[str] = field(default_factory=set)

    @property
    def types(self) -> dict[str, Type]:
        t = {p.name: p.type for p in self.params}
        t.update({b.result: b.type for b in self.bindings})
        return t

    @property
    def result_type(self) -> Type:
        return self.types[self.ret]

    def grad_params(self) -> list[int]:
        """Indices of the parameters whose gradients the adjoint returns, in order."""
        if self.require_grads is None:
            return [i for i, p in enumerate(self.params) if is_differentiable(p.type)]
        names = [p.name for p in self.params]
        return [names.index(r) if isinstance(r, str) else r for r in self.require_grads]

    def gradient_kwargs(self) -> dict[str, Any]:
        return {"func": self.func, "require_grads": self.require_grads,
                "target_index": self.target_index}

    def text(self) -> str:
        """The MLIR text: generic op form, one dataflow block."""
        types = self.types
        inside = {b.result for b in self.bindings if b.place == "inside"}
        outputs: list[str] = []
        for b in self.bindings:
            if b.place == "after":
                outputs += [o for o in b.operands if o in inside and o not in outputs]
        if self.ret in inside and self.ret not in outputs:
            outputs.append(self.ret)
        if len(outputs) == 1:
            ref = {outputs[0]: "%r"}
        else:
            ref = {o: f"%r#{i}" for i, o in enumerate(outputs)}

        def line(b: Binding, names: dict[str, str]) -> str:
            if b.op == "constant":
                return f"%{b.result} = arith.constant {dense_text(b.const, b.type)} : {b.type}"
            if "body" in b.attrs:
                text = b.attrs["body"].text(b.result, [names.get(o, f"%{o}") for o in b.operands],
                                            [types[o] for o in b.operands], b.type)
                return text.replace("\n", "\n    ")
            operands = ", ".join(names.get(o, f"%{o}") for o in b.operands)
            otypes = ", ".join(str(types[o]) for o in b.operands)
            return (f'%{b.result} = "relax.{b.op}"({operands}){attr_dict_text(b.attrs)} : '
                    f"({otypes}) -> {b.type}")

        sig = ", ".join(f"%{p.name}: {p.type}"
                        + (f' {{relax.name = "{p.name}"}}' if p.named else "")
                        for p in self.params)
        rtype = self.result_type
        out = [f"func.func @{self.func}({sig}) -> {rtype} {{"]
        out += ["  " + line(b, {}) for b in self.bindings if b.place == "before"]
        otypes = ", ".join(str(types[o]) for o in outputs)
        lhs = "%r" if len(outputs) == 1 else f"%r:{len(outputs)}"
        out.append(f"  {lhs} = relax.dataflow -> ({otypes}) {{")
        out += ["    " + line(b, {}) for b in self.bindings if b.place == "inside"]
        out.append(f"    relax.output {', '.join('%' + o for o in outputs)} : {otypes}")
        out.append("  }")
        out += ["  " + line(b, ref) for b in self.bindings if b.place == "after"]
        out.append(f"  return {ref.get(self.ret, '%' + self.ret)} : {rtype}")
        out.append("}")
        return "\n".join(out) + "\n"

    def describe_args(self) -> str:
        """The arguments, for a failure report."""
        with np.printoptions(precision=17, threshold=200):
            return "\n".join(f"{p.name} = {a!r}" for p, a in zip(self.params, self.args))


def _scalar_text(x: Any, dtype: str) -> str:
    if dtype == "i1":
        return "true" if x else "false"
    if dtype in INTS:
        return str(int(x))
    return float_text(x)


def dense_text(value: np.ndarray, t: TensorType) -> str:
    """`dense<...>` of a constant: a splat when all elements are equal."""
    flat = value.reshape(-1)
    if flat.size == 0:
        return "dense<>"
    if np.all(flat == flat[0]):
        return f"dense<{_scalar_text(flat[0], t.dtype)}>"

    def nest(a: np.ndarray) -> str:
        if a.ndim == 0:
            return _scalar_text(a, t.dtype)
        return "[" + ", ".join(nest(x) for x in a) + "]"
    return f"dense<{nest(value)}>"


# ============================================================================
# The interpreter
# ============================================================================

@dataclass
class Kink:
    """A non-smooth op's operands at one evaluation: the sign pattern of their
    signed distance to the kink, and the smallest distance."""

    binding: int
    jump: bool          # the value jumps there (greater); else only the derivative (relu)
    active: bool        # the operands depend on a float parameter
    pattern: bytes      # which side of its kinks each element is on
    distance: float


@dataclass
class Trace:
    env: dict[str, Any]
    result: Any
    target: float
    kinks: list[Kink]
    scale: float        # the largest magnitude of any float value computed


def apply_op(spec: Op, values: Sequence[Any], attrs: dict[str, Any], rtype: Type,
             jitter: np.random.Generator | None = None, ulps: float = 0.0) -> Any:
    """One op on interpreter values; float results rounded to their type. With
    `jitter`, every rounding op perturbs its result by up to `ulps` times eps of its
    type, and its float operands by `ulps` times eps of the accumulator times
    the operand elements per result element (products inside a matmul, terms of
    a reduction: see `forward_tolerance`)."""
    kwargs = ref_kwargs(spec, attrs, rtype)
    rel = ulps * EPS[rtype.dtype] if is_float(rtype) else 0.0
    if jitter is not None and rel and not spec.is_exact:
        out_n = max(1, rtype.numel)
        acc = ulps * EPS[ACCUMULATOR[rtype.dtype]]
        terms = spec.terms(*values, **kwargs) if spec.terms is not None else None
        values = [_perturb(v, jitter, acc * max(1.0, v.size / out_n if terms is None else terms))
                  if isinstance(v, np.ndarray) and v.dtype == np.float64 else v
                  for v in values]
    with np.errstate(all="ignore"):
        value = spec.ref(*values, **kwargs)
    value = storage(value, rtype)
    if jitter is not None and rel and not spec.is_exact:
        value = round_to(_perturb(value, jitter, rel), rtype.dtype)
    return value


def ref_kwargs(spec: Op, attrs: dict[str, Any], rtype: Type) -> dict[str, Any]:
    """The keyword arguments of spec's reference (and kink functions)."""
    if isinstance(rtype, TupleType):
        return spec.reference_kwargs(attrs, None, None)
    return spec.reference_kwargs(attrs, rtype.shape, rtype.dtype)


def _perturb(a: np.ndarray, gen: np.random.Generator, rel: float) -> np.ndarray:
    return a * (1.0 + rel * gen.uniform(-1.0, 1.0, a.shape))


def internal_args(program: Program, args: Sequence[Any] | None = None) -> list[Any]:
    args = program.args if args is None else args
    return [storage(a, p.type) for a, p in zip(args, program.params)]


def evaluate(program: Program, args: Sequence[Any] | None = None,
             jitter: np.random.Generator | None = None, ulps: float = 0.0,
             prepared: Sequence[Any] | None = None,
             reuse: tuple[Trace, frozenset[int]] | None = None) -> Trace:
    """Runs the program in float64 (each float result rounded to the program's type;
    exact for f64), recording kinks. `args` default to the program's; `prepared`
    are arguments already in the interpreter's form. `reuse` (trace, bindings):
    only those bindings are computed, the others' values and kinks are the
    trace's (the bindings that depend on the arguments that differ from it:
    finite differences; `scale` then counts only the computed values)."""
    if prepared is None:
        prepared = internal_args(program, args)
    env: dict[str, Any] = dict(reuse[0].env) if reuse is not None else {}
    env.update({p.name: a for p, a in zip(program.params, prepared)})
    kept: dict[int, list[Kink]] = {}
    if reuse is not None:
        for k in reuse[0].kinks:
            kept.setdefault(k.binding, []).append(k)
    kinks: list[Kink] = []
    scale = 0.0
    for i, b in enumerate(program.bindings):
        if reuse is not None and i not in reuse[1]:
            kinks += kept.get(i, [])
            continue
        if b.op == "constant":
            env[b.result] = b.const
            continue
        spec = OPS[b.op]
        values = [env[o] for o in b.operands]
        for fn, jump in ((spec.corner, False), (spec.jump, True)):
            if fn is not None and all(v.dtype == np.float64 for v in values):
                with np.errstate(all="ignore"):
                    d = fn(*values, **ref_kwargs(spec, b.attrs, b.type))
                if isinstance(d, tuple):
                    side, dist = np.asarray(d[0]), np.abs(np.asarray(d[1]))
                else:
                    side, dist = np.asarray(d) > 0, np.abs(np.asarray(d))
                kinks.append(Kink(i, jump, b.active, np.ascontiguousarray(side).tobytes(),
                                  float(np.min(dist)) if dist.size else math.inf))
        value = apply_op(spec, values, b.attrs, b.type, jitter, ulps)
        env[b.result] = value
        if is_float(b.type) and value.size:
            scale = max(scale, float(np.max(np.abs(value))))
    result = env[program.ret]
    target = result if isinstance(program.result_type, TensorType) else result[program.target_index]
    return Trace(env, result, float(target), kinks, scale)


def dependents(program: Program, index: int) -> frozenset[int]:
    """The bindings whose values depend on parameter `index`, as derivatives see
    them: a stop_gradient's value does not (finite differences keep it fixed,
    as the compiled derivatives do)."""
    names = {program.params[index].name}
    out = set()
    for i, b in enumerate(program.bindings):
        if b.op == "stop_gradient":
            continue
        if any(o in names for o in b.operands):
            names.add(b.result)
            out.add(i)
    return frozenset(out)


def kink_distance(trace: Trace) -> float:
    """The smallest distance of an active non-smooth op to its kink (inf: none)."""
    return min((k.distance for k in trace.kinks if k.active), default=math.inf)


# ============================================================================
# The generator
# ============================================================================

@dataclass(frozen=True)
class GenConfig:
    """Knobs of the generator (the defaults are what the tests and the soak use)."""

    min_ops: int = 3
    max_ops: int = 12
    max_numel: int = 96            # largest tensor the generator keeps
    max_numel_f16: int = 256       # in f16 programs (forward-only: reductions of more terms)
    max_param_numel: int = 32      # largest parameter
    max_params: int = 6
    int_div_zero: bool = True      # integer divisors may be 0 (x / 0 = 0)
    view_rate: float = 0.35        # chance that an operand is read through a view
    dtype_weights: tuple[tuple[str, float], ...] = (("f64", 0.72), ("f32", 0.16), ("f16", 0.12))


# Magnitude limits of values the generator keeps (f16 tops out at 65504).
VALUE_LIMIT = {"f64": 1e4, "f32": 1e4, "f16": 200.0}
INT_LIMIT = 2 ** 24


@dataclass
class Val:
    """A value in the generator's pool."""

    name: str
    type: Type
    value: Any
    active: bool             # depends on a float parameter
    place: str               # "param", "before" or "inside"
    order: int               # creation order
    depth: int = 0           # checkpoint nesting depth (as GradientPass.cpp counts it)
    uses: int = 0


class _Generator:
    """Builds one program: parameters, then random ops over a pool of values (each
    evaluated as it is bound), then the target and the returned value."""

    def __init__(self, seed: int, config: GenConfig) -> None:
        self.seed = seed
        self.cfg = config
        self.rng = np.random.default_rng([seed, 0x5EED])
        names, weights = zip(*config.dtype_weights)
        self.dtype: str = str(self.rng.choice(names, p=np.array(weights) / sum(weights)))
        self.int_dtypes = [d for d in ("i32", "i64") if self.rng.random() < 0.6] or ["i64"]
        self.zero_dims = self.rng.random() < 0.2
        self.use_checkpoints = self.rng.random() < 0.4
        self.params: list[Param] = []
        self.args: list[Any] = []          # interpreter form
        self.bindings: list[Binding] = []
        self.pool: list[Val] = []
        self.features: set[str] = {self.dtype}
        self.counter = 0
        self.focus: Val | None = None
        self.open_segments = 0
        self.max_numel = config.max_numel_f16 if self.dtype == "f16" else config.max_numel
        self.other_floats: list[str] = []  # float types besides self.dtype the pool holds
        self.view_depth = 0                # > 0 while a view is being built (no views inside)

    # -- random helpers ---------------------------------------------------------

    def chance(self, p: float) -> bool:
        return bool(self.rng.random() < p)

    def choice(self, items: Sequence[Any], weights: Sequence[float] | None = None) -> Any:
        p = None if weights is None else np.asarray(weights, float) / float(np.sum(weights))
        return items[int(self.rng.choice(len(items), p=p))]

    def race(self, names: Sequence[str], weights: Sequence[float]) -> str:
        """A weighted choice among `names` that a new name leaves alone unless
        the new name wins: each name's uniform variate comes from one draw and
        the name itself (an exponential race, Efraimidis-Spirakis), so a seed
        keeps its program when an op joins the table, unless that op is drawn."""
        draw = int(self.rng.integers(0, 2 ** 63))
        best, best_key = names[0], math.inf
        for name, weight in zip(names, weights):
            if weight <= 0:
                continue
            digest = hashlib.blake2b(f"{draw}:{name}".encode(), digest_size=8).digest()
            u = (int.from_bytes(digest, "little") + 0.5) / 2.0 ** 64
            key = -math.log(u) / weight
            if key < best_key:
                best, best_key = name, key
        return best

    def dim(self, nonzero: bool = False) -> int:
        dims, weights = [1, 2, 3, 4, 5], [3.0, 3.0, 2.0, 1.2, 0.5]
        if self.zero_dims and not nonzero:
            dims, weights = dims + [0], weights + [0.5]
        return int(self.choice(dims, weights))

    def shape(self, max_rank: int = 5) -> tuple[int, ...]:
        ranks = [r for r in range(6) if r <= max_rank]
        rank = int(self.choice(ranks, [1.5, 2.0, 2.0, 1.5, 0.8, 0.5][:len(ranks)]))
        for _ in range(20):
            s = tuple(self.dim() for _ in range(rank))
            if int(np.prod(s)) <= self.cfg.max_param_numel:
                return s
        return (1,) * rank

    def partner_shape(self, shape: tuple[int, ...]) -> tuple[int, ...]:
        """A shape that broadcasts with `shape` (the same, a sub-shape, a bigger one or ())."""
        mode = self.choice(["same", "sub", "super", "scalar"], [0.4, 0.3, 0.2, 0.1])
        if mode == "same":
            return shape
        if mode == "scalar":
            return ()
        if mode == "sub":
            s = list(shape[int(self.rng.integers(0, len(shape) + 1)):])
            return tuple(1 if self.chance(0.4) else d for d in s)
        s = [self.dim() if d == 1 and self.chance(0.5) else d for d in shape]
        while len(s) < 5 and self.chance(0.35):
            s.insert(0, self.dim())
        return tuple(s)

    def value_of(self, t: TensorType) -> np.ndarray:
        """Random input data of type `t` (interpreter form)."""
        if t.dtype in FLOATS:
            lo, hi = self.choice([(-1.5, 1.5), (-1.5, 1.5), (0.2, 2.0), (-3.0, 3.0)])
            return round_to(self.rng.uniform(lo, hi, t.shape), t.dtype)
        if t.dtype in INTS:
            return self.rng.integers(-4, 5, t.shape).astype(np.int64)
        return self.rng.random(t.shape) < 0.5

    def new_name(self, prefix: str = "v") -> str:
        self.counter += 1
        return f"{prefix}{self.counter}"

    # -- the pool ------------------------------------------------------------------

    def pick(self, pred: Callable[[Val], bool], fresh: TensorType | None = None,
             tuples: bool = False) -> Val | None:
        """A pool value satisfying `pred` (recent and unused values preferred; the
        focus value first when it fits), else a fresh value of type `fresh`."""
        v = self.pick_pooled(pred, tuples)
        if v is None:
            return self.fresh(fresh) if fresh is not None else None
        return self.viewed(v, pred)

    def pick_pooled(self, pred: Callable[[Val], bool], tuples: bool = False) -> Val | None:
        """`pick` without the view step and without a fresh value."""
        if self.focus is not None and pred(self.focus) and self.chance(0.85):
            v, self.focus = self.focus, None
            return v
        cands = [v for v in self.pool
                 if (tuples or isinstance(v.type, TensorType)) and pred(v)]
        if cands:
            n = len(self.pool)
            w = [(3.0 if v.uses == 0 else 1.0) * (1.0 + 2.0 * v.order / max(1, n))
                 * (1.5 if v.active else 1.0) for v in cands]
            return self.choice(cands, w)
        return None

    def pick_dtype(self, spec: Op) -> str:
        """An element type `spec` accepts in this program (mostly the float type;
        other float types once astype made values of them)."""
        allowed = [d for d in [self.dtype] + self.int_dtypes + ["i1"] + self.other_floats
                   if d in spec.dtypes]
        weights = [6.0 if d == self.dtype else 1.0 if d in FLOATS else 1.5 if d in INTS else 0.5
                   for d in allowed]
        return str(self.choice(allowed, weights))

    def may_convert(self, v: Val, dtype: str) -> bool:
        """Whether astype(v) -> `dtype` is allowed: f64 programs convert only values
        no parameter reaches to other float types (see the module docstring)."""
        return not (self.dtype == "f64" and dtype in FLOATS and dtype != "f64" and v.active)

    def fresh(self, t: TensorType, view: bool = True, param_numel: int | None = None) -> Val:
        """A new value of type `t`: a parameter, a constant, or zeros/ones; with
        `view`, sometimes a view of type `t` of a new value (see `viewed`).
        `param_numel`: the largest parameter (default max_param_numel)."""
        if view and not self.view_depth and self.chance(self.cfg.view_rate):
            w = self.view_of(t, None)
            if w is not None:
                return w
        limit = self.cfg.max_param_numel if param_numel is None else param_numel
        small = t.numel <= limit and len(self.params) < self.cfg.max_params
        if self.dtype == "f64" and t.dtype in FLOATS and t.dtype != "f64":
            small = False  # no f32/f16 parameters in f64 programs: nothing to reach them
        kind = self.choice(["param", "constant", "create"],
                           [3.0 if small else 0.0, 2.0, 0.6 if t.dtype in FLOATS else 1.0])
        if kind == "param":
            return self.add_param(t)
        if kind == "constant":
            return self.add_constant(t)
        spec = OPS[self.choice(["zeros", "ones"])]
        v = self.finish(spec, Call([], {}, t), check=False)
        assert v is not None
        return v

    # -- views -------------------------------------------------------------------

    def viewed(self, v: Val, pred: Callable[[Val], bool] = lambda v: True) -> Val:
        """`v`, or (with probability cfg.view_rate) a value of v's type read
        through a view: a strided_slice, permute_dims, broadcast_to or take whose
        source is computed from v or new (see `view_of`)."""
        if self.view_depth or not isinstance(v.type, TensorType) \
                or not self.chance(self.cfg.view_rate):
            return v
        w = self.view_of(v.type, v)
        return w if w is not None and pred(w) else v

    def view_of(self, t: TensorType, v: Val | None,
                kinds: Sequence[str] = ("slice", "transpose", "broadcast", "gather")) -> Val | None:
        """A new value of type `t` made by a view op (one of `kinds`, see
        VIEW_BUILDERS) of a source computed from `v` (of type t), or of a new
        parameter/constant when v is None or now and then; None when no such view fits."""
        weights = [VIEW_WEIGHTS[k](t) for k in kinds]
        if not any(weights):
            return None
        self.view_depth += 1
        try:
            kind = self.choice(list(kinds), weights)
            w = VIEW_BUILDERS[kind](self, t, v)
            if w is None:
                return None
            assert w.type == t, f"view {kind}: {w.type} is not {t}"
            self.features.add(f"view-{kind}")
            return w
        finally:
            self.view_depth -= 1

    def add_param(self, t: Type, value: Any = None) -> Val:
        name = f"p{len(self.params)}"
        self.params.append(Param(name, t, named=not self.chance(0.05)))
        value = self.random_value(t) if value is None else storage(value, t)
        self.args.append(value)
        v = Val(name, t, value, carries_gradient(t), "param", len(self.pool))
        self.pool.append(v)
        return v

    def random_value(self, t: Type) -> Any:
        if isinstance(t, TupleType):
            return tuple(self.random_value(f) for f in t.fields)
        return self.value_of(t)

    def fresh_with(self, t: TensorType, value: np.ndarray) -> Val:
        """A new parameter or constant of type `t` holding `value` (chosen data:
        class indices, gather indices)."""
        if t.numel <= self.cfg.max_param_numel and len(self.params) < self.cfg.max_params \
                and self.chance(0.5):
            return self.add_param(t, value)
        return self.add_constant(t, value)

    def add_constant(self, t: TensorType, value: np.ndarray | None = None) -> Val:
        if value is not None:
            value = storage(value, t)
        else:
            value = self.random_constant(t)
        name = self.new_name("c")
        place = "before" if self.chance(0.4) else "inside"
        self.bindings.append(Binding(name, "constant", [], {}, t, place, const=value))
        self.features.add("constant")
        if place == "before":
            self.features.add("glue-before")
        v = Val(name, t, value, False, place, len(self.pool))
        self.pool.append(v)
        return v

    def random_constant(self, t: TensorType) -> np.ndarray:
        value = self.value_of(t)
        if t.dtype in FLOATS:
            # Short decimals read well in the text; some splats.
            value = round_to(np.round(value, 3) if self.chance(0.7) else value, t.dtype)
            if t.numel > 1 and self.chance(0.2):
                value = np.full(t.shape, value.reshape(-1)[0])
        return value

    def note(self, t: Type) -> None:
        """Records type features (ranks, size-1 / 0-size dims, element types)."""
        if isinstance(t, TupleType):
            self.features.add("tuple")
            if any(isinstance(f, TupleType) for f in t.fields):
                self.features.add("nested-tuple")
            for f in t.fields:
                self.note(f)
            return
        self.features.add(f"rank{t.rank}")
        self.features.add(t.dtype)
        if 1 in t.shape:
            self.features.add("size-1-dim")
        if 0 in t.shape:
            self.features.add("0-size-dim")

    # -- bindings ------------------------------------------------------------------

    def acceptable(self, value: Any, t: Type) -> bool:
        if isinstance(t, TupleType):
            return True
        if t.numel > self.max_numel:
            return False
        if t.dtype in FLOATS:
            return bool(np.all(np.isfinite(value))) and (
                value.size == 0 or float(np.max(np.abs(value))) <= VALUE_LIMIT[t.dtype])
        if t.dtype in INTS:
            return value.size == 0 or int(np.max(np.abs(value))) <= INT_LIMIT
        return True

    def finish(self, spec: Op, call: Call, check: bool = True) -> Val | None:
        """Evaluates a sampled call and, when its value is acceptable, binds it."""
        ops = call.operands
        values = [v.value for v in ops]
        rtype = call.result_type or self.infer_type(spec, ops, values, call.attrs)
        value = apply_op(spec, values, call.attrs, rtype)
        if check and not self.acceptable(value, rtype):
            return None
        name = self.new_name()
        grad_from = range(len(ops)) if spec.grad_from is None else spec.grad_from
        active = any(ops[i].active for i in grad_from if i < len(ops))
        self.bindings.append(Binding(name, spec.name, [v.name for v in ops], dict(call.attrs),
                                     rtype, call.place, active=active))
        # Checkpoint bookkeeping: a start marker opens a segment whose first op
        # reads it; an end marker closes one and is read next.
        depth = max((v.depth for v in ops), default=0)
        if spec.name == "start_checkpoint":
            depth += 1
            self.open_segments += 1
            self.features.add("checkpoint")
        elif spec.name == "end_checkpoint":
            depth = max(depth - 1, 0)
            self.open_segments = max(0, self.open_segments - 1)
        v = Val(name, rtype, value, active and carries_gradient(rtype),
                "before" if call.place == "before" else "inside", len(self.pool), depth)
        for o in ops:
            o.uses += 1
        self.pool.append(v)
        if spec.kind == MARKER:
            self.focus = v
        self.features.add(spec.name)
        if spec.kind == CAST:
            self.features.add(_cast_feature(ops[0].type.dtype, rtype.dtype))
        if (isinstance(rtype, TensorType) and rtype.dtype in FLOATS and rtype.dtype != self.dtype
                and rtype.dtype not in self.other_floats):
            self.other_floats.append(rtype.dtype)
            self.features.add("mixed-precision")
        if call.place == "before":
            self.features.add("glue-before")
        self.note(rtype)
        return v

    def infer_type(self, spec: Op, ops: list[Val], values: list[Any],
                   attrs: dict[str, Any]) -> Type:
        """The result type, from the reference's value on the operand values."""
        if spec.kind == TUPLE and spec.name == "tuple":
            return TupleType(tuple(v.type for v in ops))
        if spec.kind == TUPLE:
            return ops[0].type.fields[attrs["index"]]
        if spec.kind == MARKER:
            return ops[0].type
        with np.errstate(all="ignore"):
            try:
                value = np.asarray(spec.ref(*values, **attrs))
            except (ValueError, IndexError) as e:  # a sampler bug
                raise AssertionError(
                    f"{spec.name} on {[str(v.type) for v in ops]} {attrs}: {e}") from e
        if spec.result is not None:
            dtype = spec.result
        elif value.dtype == np.bool_:
            dtype = "i1"
        else:
            want = FLOATS if np.issubdtype(value.dtype, np.floating) else INTS
            dtype = next(v.type.dtype for v in ops
                         if isinstance(v.type, TensorType) and v.type.dtype in want)
        return TensorType(tuple(value.shape), dtype)

    def apply(self, name: str, operands: list[Val], **attrs: Any) -> Val:
        """Binds `name(operands)` without the acceptance check (wrappers)."""
        v = self.finish(OPS[name], Call(operands, attrs), check=False)
        assert v is not None
        return v

    def meet(self, v: Val, need: str | None) -> Val:
        """`v`, or `v` wrapped so that it satisfies the domain need."""
        if need is None or not isinstance(v.type, TensorType):
            return v
        ok, wrap = NEEDS[need]
        if ok(self, v):
            return v
        w = self.viewed(wrap(self, v))
        return w if ok(self, w) else wrap(self, w)

    def try_op(self, spec: Op) -> Val | None:
        sampler = SAMPLERS.get(spec.name) or DEFAULT_SAMPLERS[spec.kind]
        call = sampler(self, spec)
        if call is None:
            return None
        v = self.finish(spec, call)
        if v is not None and spec.kind != MARKER and self.chance(call.focus):
            self.focus = v
        if v is not None and call.then is not None:
            call.then(self, v)
        return v

    # -- the program -----------------------------------------------------------

    def build(self) -> Program:
        cfg = self.cfg
        # Parameters: float tensors, sometimes integer ones and a tuple.
        for _ in range(int(self.rng.integers(1, 4))):
            self.add_param(TensorType(self.shape(), self.dtype))
        if self.chance(0.3):
            self.add_param(TensorType(self.shape(), self.choice(self.int_dtypes)))
        if self.chance(0.25):
            self.add_tuple_param()
        for _ in range(int(self.rng.choice([0, 0, 1, 2]))):
            self.add_constant(TensorType(self.shape(), self.choice([self.dtype] + self.int_dtypes)))

        names = list(OPS)
        n_ops = int(self.rng.integers(cfg.min_ops, cfg.max_ops + 1))
        if self.chance(0.08):
            n_ops *= 3  # now and then a long program
        done = 0
        for _ in range(n_ops * 8):
            if done >= n_ops:
                break
            spec = OPS[self.race(names, [self.weight(OPS[n]) for n in names])]
            if self.try_op(spec) is not None:
                done += 1
        while self.open_segments > 0 and self.chance(0.85):
            self.try_op(OPS["end_checkpoint"])

        target = self.build_target()
        scalars = [v for v in self.params if v.type == TensorType((), self.dtype)]
        if scalars and self.chance(0.05):
            # A parameter returned unchanged as the target (its gradient is 1).
            target = next(v for v in self.pool if v.name == scalars[0].name)
            self.features.add("param-target")
        ret, target_index = self.build_result(target)
        require = self.choose_require_grads()
        func = "main" if self.chance(0.8) else self.choice(["f", "loss", "net_2"])
        if func != "main":
            self.features.add("func-name")
        if any(not p.named for p in self.params):
            self.features.add("unnamed-param")
        program = Program(self.seed, func, self.dtype, self.params, self.bindings, ret,
                          target_index, require,
                          [to_program_dtype(a, p.type) for a, p in zip(self.args, self.params)],
                          self.features)
        return program

    def weight(self, spec: Op) -> float:
        if spec.kind == MARKER and not self.use_checkpoints:
            return 0.0
        if spec.name == "end_checkpoint" and self.open_segments == 0:
            return 0.05
        return spec.weight

    def add_tuple_param(self) -> None:
        fields: list[Type] = []
        for _ in range(int(self.rng.integers(1, 4))):
            if self.chance(0.15):
                inner = tuple(TensorType(self.shape(3), self.dtype)
                              for _ in range(int(self.rng.integers(1, 3))))
                fields.append(TupleType(inner))
            else:
                dtype = self.dtype if self.chance(0.8) else self.choice(self.int_dtypes)
                fields.append(TensorType(self.shape(4), dtype))
        t = self.add_param(TupleType(tuple(fields)))
        self.features.add("tuple-param")
        self.note(t.type)
        # Read the fields back, before the dataflow block or inside it.
        stack = [t]
        while stack:
            tv = stack.pop()
            for i in range(len(tv.type.fields)):
                if self.chance(0.85):
                    place = "before" if tv.place != "inside" and self.chance(0.5) else "inside"
                    v = self.finish(OPS["tuple_get_item"], Call([tv], {"index": i}, place=place),
                                    check=False)
                    assert v is not None
                    if isinstance(v.type, TupleType):
                        stack.append(v)

    def build_target(self) -> Val:
        """Sums/means of the unused float values, added up: the 0-d float target."""
        sinks = [v for v in self.pool if self.is_sink(v) and v.uses == 0 and v.place != "param"]
        sinks.sort(key=lambda v: (v.active, v.order), reverse=True)
        sinks = sinks[:4]
        if not any(v.active for v in sinks):
            active = [v for v in self.pool if self.is_sink(v) and v.active]
            sinks.insert(0, max(active, key=lambda v: (v.uses == 0, v.order)))
        sinks += self.route_integers()
        terms = [self.reduce_to_scalar(v) for v in sinks]
        target = terms[0]
        for t in terms[1:]:
            op = self.choice(["add", "subtract", "multiply"], [0.7, 0.15, 0.15])
            if op == "multiply" and abs(float(target.value)) * abs(float(t.value)) > 100:
                op = "add"
            nxt = self.finish(OPS[op], Call([target, t]))
            if nxt is not None:
                target = nxt
        return target

    def is_sink(self, v: Val) -> bool:
        """A float tensor that can be a term of the target: of the program's float
        type, or of another whose values astype converts within the limits."""
        if not is_float(v.type):
            return False
        return v.type.dtype == self.dtype or v.value.size == 0 or \
            float(np.max(np.abs(v.value))) <= VALUE_LIMIT[self.dtype]

    def route_integers(self) -> list[Val]:
        """Float values computed from the last few unused integer/i1 values (most
        of the time): how integers reach the float target."""
        unused = [v for v in self.pool if isinstance(v.type, TensorType) and v.uses == 0
                  and v.type.dtype not in FLOATS and v.place != "param"]
        unused.sort(key=lambda v: v.order, reverse=True)
        routed = [self.route_integer(x) for x in unused[:3] if self.chance(0.7)]
        return [v for v in routed if v is not None]

    def route_integer(self, x: Val) -> Val | None:
        """where(cond, a, b) with cond x (i1) or a comparison of x (integer), or
        astype(x) to the float type."""
        if self.chance(0.5):
            v = self.finish(OPS["astype"], Call([x], {}, TensorType(x.type.shape, self.dtype)))
            if v is not None:
                self.features.add("integer-to-target")
                return v
        cond: Val | None = x
        if x.type.dtype in INTS:
            cond = self.finish(OPS[self.choice(COMPARISONS)], Call([x, _pick_partner(self, x)]))
        if cond is None:
            return None
        dt = self.dtype
        a = self.pick(_tensor(lambda t: t.dtype == dt and _fits(t.shape, cond.type.shape)),
                      TensorType(self.partner_shape(cond.type.shape), dt))
        assert a is not None
        b = _pick_partner(self, a, cond.type.shape)
        self.features.add("integer-to-target")
        return self.finish(OPS["where"], Call([cond, a, b]))

    def reduce_to_scalar(self, v: Val) -> Val:
        if v.type.dtype != self.dtype:
            v = self.finish(OPS["astype"], Call([v], {}, TensorType(v.type.shape, self.dtype)),
                            check=False)
            assert v is not None
        t = v.type
        assert isinstance(t, TensorType)
        mode = self.choice(["sum", "mean", "axes", "keepdims"], [0.35, 0.3, 0.2, 0.15])
        op = "mean" if mode != "sum" and t.numel > 0 and self.chance(0.6) else "sum"
        if self.dtype == "f16" and t.numel > 16:
            op = "mean"  # a sum could overflow f16
        if mode == "axes":
            axes = [a - t.rank if self.chance(0.4) else a for a in range(t.rank)]
            r = self.apply(op, [v], axis=axes)
            if any(a < 0 for a in axes):
                self.features.add("negative-axis")
        elif mode == "keepdims" and t.rank > 0:
            r = self.apply(op, [v], keepdims=True)
            self.features.add("keepdims")
            r = self.finish(OPS["reshape"], Call([r], {}, TensorType((), t.dtype)), check=False)
            assert r is not None
        else:
            r = self.apply(op, [v])
        return r

    def build_result(self, target: Val) -> tuple[str, int]:
        """The returned value: the target, or a tuple holding it (built inside the
        dataflow block or after it) with other values; returns (name, target_index).
        A parameter as the target (returned unchanged) sits in a tuple built inside."""
        param_target = target.place == "param"
        if self.chance(0.55) and not param_target:
            return target.name, 0
        self.features.add("tuple-result")
        extras: list[Val] = []
        cands = [v for v in self.pool if v is not target]
        weights = [4.0 if v.uses == 0 and not is_float(v.type) else 1.0 for v in cands]
        for _ in range(int(self.rng.integers(1, 4))):
            extras.append(self.choice(cands, weights))
        if self.chance(0.1):
            extras.append(target)  # the target twice
        fields = extras + [target]
        order = list(self.rng.permutation(len(fields)))
        fields = [fields[i] for i in order]
        target_index = fields.index(target)
        if target_index > 0:
            self.features.add("target-index")
        after = self.chance(0.5) and not param_target
        place = "after" if after else "inside"
        if after:
            self.features.add("glue-after")
        if len(fields) > 2 and self.chance(0.3):
            # Nest two non-target fields into an inner tuple.
            j = next(i for i in range(len(fields)) if i != target_index)
            k = next((i for i in range(j + 1, len(fields)) if i != target_index), None)
            if k is not None:
                inner = self.finish(OPS["tuple"], Call([fields[j], fields[k]], place=place),
                                    check=False)
                assert inner is not None
                fields = [f for i, f in enumerate(fields) if i != k]
                fields[j] = inner
                target_index = fields.index(target)
        if after and self.chance(0.25):
            # Read a field back after the block (an alias) and return it.
            j = next((i for i in range(len(fields)) if i != target_index), None)
            if j is not None:
                k = j if self.chance(0.5) else target_index  # alias the target itself or not
                tmp = self.finish(OPS["tuple"], Call([fields[j], target], place=place), check=False)
                assert tmp is not None
                again = self.finish(OPS["tuple_get_item"],
                                    Call([tmp], {"index": 0 if k == j else 1}, place=place),
                                    check=False)
                assert again is not None
                fields[k] = again
        res = self.finish(OPS["tuple"], Call(fields, place=place), check=False)
        assert res is not None
        return res.name, target_index

    def choose_require_grads(self) -> list[int | str] | None:
        diff = [i for i, p in enumerate(self.params) if is_differentiable(p.type)]
        if self.chance(0.65) or not diff:
            return None
        self.features.add("require-grads")
        k = int(self.rng.integers(1, len(diff) + 1))
        chosen = [diff[int(i)] for i in self.rng.permutation(len(diff))[:k]]
        return [self.params[i].name if self.params[i].named and self.chance(0.5) else i
                for i in chosen]


# ============================================================================
# Domain needs: predicate on the actual value, and a wrapper that ensures it
# ============================================================================

def _all(v: Val, cond: Callable[[np.ndarray], np.ndarray]) -> bool:
    return bool(np.all(cond(v.value)))


def _exp_tanh(g: _Generator, v: Val) -> Val:
    """exp(tanh(v)), within [0.37, 2.72]."""
    return g.apply("exp", [g.apply("tanh", [v])])


def _denominator_ok(g: _Generator, v: Val) -> bool:
    if v.type.dtype in INTS:
        return g.cfg.int_div_zero or _all(v, lambda x: x != 0)
    return _all(v, lambda x: np.abs(x) >= 0.25)


def _denominator(g: _Generator, v: Val) -> Val:
    """exp(tanh(v)), sometimes negated; for integers 2 v + 1 (odd, so never 0)."""
    if v.type.dtype in INTS:
        ones = g.finish(OPS["ones"], Call([], {}, v.type), check=False)
        assert ones is not None
        return g.apply("add", [g.apply("add", [v, v]), ones])
    w = _exp_tanh(g, v)
    return g.apply("negative", [w]) if g.chance(0.3) else w


NEEDS: dict[str, tuple[Callable[[_Generator, Val], bool], Callable[[_Generator, Val], Val]]] = {
    POSITIVE: (lambda g, v: _all(v, lambda x: x >= 0.1), _exp_tanh),
    BOUNDED: (lambda g, v: _all(v, lambda x: np.abs(x) <= 3.0), lambda g, v: g.apply("tanh", [v])),
    SMALL: (lambda g, v: _all(v, lambda x: np.abs(x) <= 1.2), lambda g, v: g.apply("tanh", [v])),
    DENOMINATOR: (_denominator_ok, _denominator),
}


# ============================================================================
# Views: any operand of any op, sometimes read through a view
# ============================================================================
#
# `_Generator.pick` (every sampler's operands) and `_Generator.fresh` pass
# their value through `viewed`/`view_of`: with probability GenConfig.view_rate
# the op reads instead a value of the same type made by a view op, so that
# every op meets strided, offset, transposed, broadcast and gathered operands
# (which the compiler turns into strided memrefs, subviews and gathers) with
# no change to its sampler. The source of the view is computed from the
# picked value (tile, pad or concat of it, a transpose of it) or is a new
# parameter/constant bigger than the view.


def _view_cap(g: _Generator, t: TensorType) -> int:
    """The most elements the source of a view of type `t` may have."""
    return max(48, min(3 * max(t.numel, 1), 2 * g.max_numel))


def _view_param_numel(g: _Generator) -> int:
    """The largest parameter made as the source of a view (sliced parameters
    are the case the views are after; constants might be folded)."""
    return 2 * g.cfg.max_param_numel


def _new_source(g: _Generator, t: TensorType) -> Val:
    """A pool value of type t now and then, else a new parameter/constant (no view)."""
    u = g.pick_pooled(_tensor(lambda s: s == t)) if g.chance(0.25) else None
    return u or g.fresh(t, view=False, param_numel=_view_param_numel(g))


def _slice_bounds(g: _Generator, n: int, m: int, off: int, step: int) -> tuple[int, int]:
    """(begin, end) selecting n elements with `step` from an axis of m: for a
    positive step the first at `off`, for a negative one the first at m - 1 - off;
    spelled in one of numpy's equivalent ways (negative begin/end count from the
    end, ends beyond the axis clamp)."""
    if n == 0:
        b = min(off, m)
        return b, b
    if step > 0:
        b = off
        e = int(g.rng.integers(b + step * (n - 1) + 1, min(b + step * n, m) + 1))
        if e == m and g.chance(0.3):
            e = m + int(g.rng.integers(1, 3))
        elif e < m and g.chance(0.3):
            e -= m
    else:
        b = m - 1 - off
        e = int(g.rng.integers(max(b + step * n, -1), b + step * (n - 1)))
        if e == -1:
            e = -m - 1 - int(g.rng.integers(0, 2))  # before the first element
        elif g.chance(0.3):
            e -= m
    if g.chance(0.3):
        b -= m
    return b, e


def _slice_view(g: _Generator, t: TensorType, v: Val | None) -> Val | None:
    """t as a strided_slice of a bigger source: on 1-3 axes (the two innermost
    of rank >= 3 values half the time: an interior window of an NCHW image)
    offsets 0-2 and steps 1, 2, 3, -1, -2. The source is tile(v), pad(v) or
    concat(v, new) along the sliced axes, or new (then sometimes a non-empty
    axis sliced to a size-0 one)."""
    rank = t.rank
    if rank == 0:
        return None
    if rank >= 3 and g.chance(0.5):
        axes = [rank - 2, rank - 1]
    else:
        k = int(g.rng.integers(1, min(rank, 3) + 1))
        axes = sorted(int(a) for a in g.rng.permutation(rank)[:k])
    derive = v is not None and g.chance(0.75)
    for attempt in range(4):
        if attempt == 2:
            axes = axes[:1]
        steps = {a: int(g.choice([1, 2, 3, -1, -2], [2, 2, 0.5, 1.5, 1])) for a in axes}
        offs = {a: int(g.choice([0, 1, 2], [1, 2, 1])) for a in axes}
        if all(steps[a] == 1 and offs[a] == 0 for a in axes):
            offs[axes[-1]] = 1
        if attempt >= 3:
            steps = {a: 1 for a in axes}
        need = {a: offs[a] + abs(steps[a]) * (t.shape[a] - 1) + 1 if t.shape[a] else offs[a]
                for a in axes}
        extra = {a: int(g.choice([0, 1, 2], [2, 2, 1])) for a in axes}
        src = list(t.shape)
        how = "new"
        if derive:
            how = g.choice(["tile", "pad", "concat"], [2, 1.5, 1 if len(axes) == 1 else 0])
        if how == "tile":
            reps = [1] * rank
            for a in axes:
                n = t.shape[a]
                reps[a] = -(-(need[a] + extra[a]) // n) if n else 1
                src[a] = n * reps[a]
        else:
            for a in axes:
                if how == "new" and t.shape[a] == 0 and g.chance(0.5):
                    # An empty slice of a non-empty axis.
                    need[a] = max(need[a], int(g.rng.integers(1, 4)))
                src[a] = max(need[a] + extra[a], t.shape[a])
        if int(np.prod(src)) <= _view_cap(g, t):
            break
    else:
        return None
    src_t = TensorType(tuple(src), t.dtype)
    if how == "tile":
        u = g.apply("tile", [v], repeats=reps)
    elif how == "pad":
        widths = [0] * (2 * rank)
        for a in axes:
            more = src[a] - t.shape[a]
            before = int(g.rng.integers(0, more + 1))
            widths[2 * a], widths[2 * a + 1] = before, more - before
        u = g.apply("pad", [v], pad_width=widths)
    elif how == "concat":
        a = axes[0]
        rest = list(t.shape)
        rest[a] = src[a] - t.shape[a]
        w = _new_source(g, TensorType(tuple(rest), t.dtype))
        u = g.apply("concat", [v, w] if g.chance(0.5) else [w, v], axis=a)
    else:
        u = _new_source(g, src_t)
    assert u.type == src_t, (how, u.type, src_t)
    begin, end = [], []
    for a in axes:
        b, e = _slice_bounds(g, t.shape[a], src[a], offs[a], steps[a])
        begin.append(b)
        end.append(e)
    attrs: dict[str, Any] = {"axes": [a - rank if g.chance(0.2) else a for a in axes],
                             "begin": begin, "end": end}
    if any(s != 1 for s in steps.values()) or g.chance(0.3):
        attrs["strides"] = [steps[a] for a in axes]
    if any(s != 1 for s in steps.values()):
        g.features.add("view-step")
    if any(s < 0 for s in steps.values()):
        g.features.add("view-negative-step")
    if any(t.shape[a] == 0 < src[a] for a in axes):
        g.features.add("view-empty")
    return g.apply("strided_slice", [u], **attrs)


def _transpose_view(g: _Generator, t: TensorType, v: Val | None) -> Val | None:
    """t as permute_dims of a source of the permuted shape: v transposed back
    (and negated: computed in that layout), a pool value or a new one."""
    rank = t.rank
    if rank < 2:
        return None
    attrs: dict[str, Any] = {}
    if g.chance(0.2):
        perm = list(range(rank))[::-1]  # permute_dims without axes reverses them
    else:
        perm = list(range(rank))
        while perm == sorted(perm):
            perm = [int(a) for a in g.rng.permutation(rank)]
        attrs["axes"] = [a - rank if g.chance(0.3) else a for a in perm]
    src = [0] * rank
    for i, p in enumerate(perm):
        src[p] = t.shape[i]
    src_t = TensorType(tuple(src), t.dtype)
    if v is not None and g.chance(0.6):
        u = g.apply("permute_dims", [v], axes=[int(a) for a in np.argsort(perm)])
        if t.dtype != "i1" and g.chance(0.7):
            u = g.apply("negative", [u])
    else:
        u = _new_source(g, src_t)
    return g.apply("permute_dims", [u], **attrs)


def _broadcast_view(g: _Generator, t: TensorType, v: Val | None) -> Val | None:
    """t as broadcast_to of a source with size-1 dims where t's are not 1 (some
    leading ones dropped): a size-1 slice of v, or a new value."""
    rank = t.rank
    wide = [a for a, d in enumerate(t.shape) if d != 1]
    if rank == 0 or not wide:
        return None
    k = int(g.rng.integers(1, len(wide) + 1))
    ones = sorted(int(wide[i]) for i in g.rng.permutation(len(wide))[:k])
    src = [1 if a in ones else d for a, d in enumerate(t.shape)]
    if v is not None and all(t.shape[a] > 0 for a in ones) and g.chance(0.6):
        begin = [int(g.rng.integers(0, t.shape[a])) for a in ones]
        u = g.apply("strided_slice", [v], axes=ones, begin=begin, end=[b + 1 for b in begin])
    else:
        lead = next((i for i, d in enumerate(src) if d != 1), rank)
        drop = int(g.rng.integers(0, lead + 1)) if g.chance(0.5) else 0
        u = _new_source(g, TensorType(tuple(src[drop:]), t.dtype))
    r = g.finish(OPS["broadcast_to"], Call([u], {}, t), check=False)
    assert r is not None
    return r


def _gather_view(g: _Generator, t: TensorType, v: Val | None) -> Val | None:
    """t as take of a source (itself mostly a slice or transpose view): along
    an axis of t with 1-d indices (a source of v's type, or a bigger new one),
    or with a 0-d index along an axis the source has in addition."""
    rank = t.rank
    if rank >= 1 and g.chance(0.6):
        a = int(g.rng.integers(0, rank))
        n = t.shape[a]
        if v is not None and g.chance(0.7):
            u = g.view_of(t, v, ("slice", "transpose")) if g.chance(0.8) else None
            u = u or v
        else:
            s = list(t.shape)
            s[a] = n + int(g.choice([0, 1, 2, 3], [1, 2, 2, 1]))
            ut = TensorType(tuple(s), t.dtype)
            u = g.view_of(ut, None, ("slice", "transpose")) if g.chance(0.8) else None
            u = u or _new_source(g, ut)
        m = u.type.shape[a]
        if n > 0 and m == 0:
            return None
        vals = g.rng.integers(0, max(m, 1), (n,))
        ishape: tuple[int, ...] = (n,)
        axis = a - rank if g.chance(0.3) else a
    else:
        if rank >= 5:
            return None
        a = int(g.rng.integers(0, rank + 1))
        m = int(g.choice([1, 2, 3, 4], [1, 2, 2, 1]))
        ut = TensorType(t.shape[:a] + (m,) + t.shape[a:], t.dtype)
        u = g.view_of(ut, None, ("slice", "transpose")) if g.chance(0.8) else None
        u = u or _new_source(g, ut)
        vals = g.rng.integers(0, m, ())
        ishape = ()
        axis = a - (rank + 1) if g.chance(0.3) else a
    vals = np.where(g.rng.random(vals.shape) < 0.2, vals - m, vals)  # negative: from the end
    idx = g.fresh_with(TensorType(ishape, g.choice(g.int_dtypes)), vals)
    return g.apply("take", [u, idx], axis=axis)


VIEW_BUILDERS: dict[str, Callable[[_Generator, TensorType, Val | None], Val | None]] = {
    "slice": _slice_view,
    "transpose": _transpose_view,
    "broadcast": _broadcast_view,
    "gather": _gather_view,
}
# How often each kind is tried for a type (0: never fits).
VIEW_WEIGHTS: dict[str, Callable[[TensorType], float]] = {
    "slice": lambda t: 3.0 if t.rank else 0.0,
    "transpose": lambda t: 1.5 if t.rank >= 2 else 0.0,
    "broadcast": lambda t: 1.0 if any(d != 1 for d in t.shape) else 0.0,
    "gather": lambda t: 1.0,
}


# ============================================================================
# Samplers
# ============================================================================

def _tensor(pred: Callable[[TensorType], bool]) -> Callable[[Val], bool]:
    return lambda v: isinstance(v.type, TensorType) and pred(v.type)


def _broadcasts(*shapes: tuple[int, ...]) -> tuple[int, ...] | None:
    """The numpy broadcast shape, or None."""
    try:
        return tuple(np.broadcast_shapes(*shapes))
    except ValueError:
        return None


def _fits(a: tuple[int, ...], b: tuple[int, ...]) -> bool:
    return _broadcasts(a, b) is not None


def _sample_unary(g: _Generator, spec: Op) -> Call | None:
    dtype = g.pick_dtype(spec)
    v = g.pick(_tensor(lambda t: t.dtype == dtype), TensorType(g.shape(), dtype))
    assert v is not None
    return Call([g.meet(v, spec.needs[0] if spec.needs else None)])


def _pick_partner(g: _Generator, a: Val, *others: tuple[int, ...]) -> Val:
    """A value of a's element type that broadcasts with a (and `others`)."""
    shapes = (a.type.shape,) + others
    full = _broadcasts(*shapes)
    assert full is not None
    if g.chance(0.55):
        def fits(t: TensorType) -> bool:
            s = _broadcasts(t.shape, *shapes)
            return (t.dtype == a.type.dtype and s is not None
                    and int(np.prod(s)) <= g.max_numel)
        b = g.pick(_tensor(fits))
        if b is not None and (b is not a or g.chance(0.3)):
            return b
    # A fresh partner no bigger than the generator keeps (a rejected op leaves its
    # operands in the pool: a huge one would become a target term).
    for _ in range(10):
        shape = g.partner_shape(full)
        s = _broadcasts(shape, *shapes)
        if s is not None and int(np.prod(s)) <= max(g.max_numel, int(np.prod(full))):
            break
    else:
        shape = full
    return g.fresh(TensorType(shape, a.type.dtype))


def _sample_binary(g: _Generator, spec: Op, dtype: str | None = None) -> Call | None:
    dtype = dtype or g.pick_dtype(spec)
    if dtype == "i1" and spec.kind != COMPARE:
        return None
    a = g.pick(_tensor(lambda t: t.dtype == dtype), TensorType(g.shape(), dtype))
    assert a is not None
    b = _pick_partner(g, a)
    ops = [a, b] if g.chance(0.5) else [b, a]
    needs = spec.needs or (None, None)
    ops = [g.meet(v, n) for v, n in zip(ops, needs)]
    if _broadcasts(a.type.shape, b.type.shape) != a.type.shape or a.type.shape != b.type.shape:
        g.features.add("broadcast")
    return Call(ops)


def _sample_select(g: _Generator, spec: Op) -> Call | None:
    cond = g.pick(_tensor(lambda t: t.dtype == "i1"))
    if cond is None or g.chance(0.3):
        cond = g.try_op(OPS[g.choice(COMPARISONS)])
        if cond is None:
            return None
    dtype = g.pick_dtype(spec)
    a = g.pick(_tensor(lambda t: t.dtype == dtype and _fits(t.shape, cond.type.shape)),
               TensorType(g.partner_shape(cond.type.shape), dtype))
    assert a is not None
    b = _pick_partner(g, a, cond.type.shape)
    return Call([cond, a, b] if g.chance(0.5) else [cond, b, a])


def _sample_reduce(g: _Generator, spec: Op) -> Call | None:
    dtype = g.pick_dtype(spec)
    if dtype == "i1":
        return None
    x = g.pick(_tensor(lambda t: t.dtype == dtype), TensorType(g.shape(), dtype))
    assert x is not None
    rank = x.type.rank
    attrs: dict[str, Any] = {}
    mode = g.choice(["all", "none", "some"], [0.3, 0.1, 0.6] if rank else [0.6, 0.4, 0.0])
    if mode == "none":
        attrs["axis"] = []
        g.features.add("empty-axis")
    elif mode == "some":
        k = int(g.rng.integers(1, rank + 1))
        axes = [int(a) for a in g.rng.permutation(rank)[:k]]
        if g.chance(0.6):
            axes.sort()
        axes = [a - rank if g.chance(0.3) else a for a in axes]
        if any(a < 0 for a in axes):
            g.features.add("negative-axis")
        attrs["axis"] = axes
    if g.chance(0.4):
        attrs["keepdims"] = True
        g.features.add("keepdims")
    if x.type.rank == 0:
        g.features.add("reduce-0d")
    # A reduction over no axis is an identity whose consumers broadcast: chain them.
    return Call([x], attrs, focus=0.7 if rank == 0 or attrs.get("axis") == [] else 0.3)


def _sample_create(g: _Generator, spec: Op) -> Call | None:
    return Call([], {}, TensorType(g.shape(), g.pick_dtype(spec)))


def _sample_compare(g: _Generator, spec: Op) -> Call | None:
    """Numeric operands, or i1 ones (compared unsigned: False < True)."""
    call = _sample_binary(g, spec, "i1" if g.chance(0.1) else None)
    if call is not None and call.operands[0].type.dtype == "i1":
        g.features.add("compare-i1")
    if call is not None and g.chance(0.1):
        # Compare a value with itself (every element a tie).
        call.operands = [call.operands[0], call.operands[0]]
    return call


def _sample_matmul(g: _Generator, spec: Op) -> Call | None:
    dtype = g.pick_dtype(spec)
    if dtype == "i1":
        return None
    a = g.pick(_tensor(lambda t: t.dtype == dtype and 1 <= t.rank <= 4),
               TensorType(g.shape(3) or (g.dim(),), dtype))
    assert a is not None
    if a.type.rank == 0:
        a = g.fresh(TensorType((g.dim(),), dtype))
    k = a.type.shape[-1]
    batch = a.type.shape[:-2]
    if g.chance(0.25):
        other = (k,)
    else:
        b_batch = g.partner_shape(batch)[-3:] if g.chance(0.6) else ()
        other = tuple(b_batch) + (k, 1 if g.chance(0.2) else g.dim())

    def fits(t: TensorType) -> bool:
        if t.dtype != dtype or t.rank == 0 or (t.shape[0] if t.rank == 1 else t.shape[-2]) != k:
            return False
        return _broadcasts(batch, t.shape[:-2]) is not None if t.rank >= 2 else True
    b = g.pick(_tensor(fits)) if g.chance(0.4) else None
    if b is None:
        b = g.fresh(TensorType(other, dtype))
    if a.type.rank == 1 and b.type.rank >= 1 and g.chance(0.5):
        # a as the right operand: b's last dim must be k.
        if b.type.shape[-1] == a.type.shape[0]:
            return Call([b, a])
    return Call([a, b])


def _sample_permute_dims(g: _Generator, spec: Op) -> Call | None:
    dtype = g.pick_dtype(spec)
    x = g.pick(_tensor(lambda t: t.dtype == dtype), TensorType(g.shape(), dtype))
    assert x is not None
    rank = x.type.rank
    if g.chance(0.2):
        return Call([x])
    perm = [int(a) for a in g.rng.permutation(rank)]
    perm = [a - rank if g.chance(0.3) else a for a in perm]
    if any(a < 0 for a in perm):
        g.features.add("negative-axis")
    return Call([x], {"axes": perm})


def _factor_shape(g: _Generator, n: int) -> tuple[int, ...]:
    """A random shape of n elements (rank <= 5)."""
    if n == 0:
        rank = int(g.rng.integers(1, 5))
        s = [g.dim(nonzero=True) for _ in range(rank)]
        s[int(g.rng.integers(0, rank))] = 0
        return tuple(s)
    factors: list[int] = []
    m, p = n, 2
    while m > 1:
        while m % p == 0:
            factors.append(p)
            m //= p
        p += 1
    rank = int(g.rng.integers(1 if n > 1 else 0, 6))
    dims = [1] * rank
    for f in factors:
        i = int(g.rng.integers(0, rank))
        dims[i] *= f
    return tuple(dims)


def _sample_reshape(g: _Generator, spec: Op) -> Call | None:
    dtype = g.pick_dtype(spec)
    x = g.pick(_tensor(lambda t: t.dtype == dtype), TensorType(g.shape(), dtype))
    assert x is not None
    return Call([x], {}, TensorType(_factor_shape(g, x.type.numel), dtype))


def _sample_broadcast_to(g: _Generator, spec: Op) -> Call | None:
    dtype = g.pick_dtype(spec)
    x = g.pick(_tensor(lambda t: t.dtype == dtype), TensorType(g.shape(3), dtype))
    assert x is not None
    s = [g.dim() if d == 1 and g.chance(0.6) else d for d in x.type.shape]
    while len(s) < 5 and g.chance(0.4):
        s.insert(0, g.dim())
    return Call([x], {}, TensorType(tuple(s), dtype))


def _sample_collapse_sum_to(g: _Generator, spec: Op) -> Call | None:
    dtype = g.pick_dtype(spec)
    if dtype == "i1":
        return None
    x = g.pick(_tensor(lambda t: t.dtype == dtype), TensorType(g.shape(), dtype))
    assert x is not None
    s = x.type.shape[int(g.rng.integers(0, x.type.rank + 1)):]
    s = tuple(1 if g.chance(0.5) else d for d in s)
    return Call([x], {}, TensorType(s, dtype))


def _sample_tuple(g: _Generator, spec: Op) -> Call | None:
    fields = []
    for _ in range(int(g.rng.integers(1, 4))):
        v = g.pick(lambda v: True, tuples=g.chance(0.3))
        if v is not None:
            fields.append(v)
    if not fields:
        return None
    glue = all(f.place in ("param", "before") for f in fields)
    return Call(fields, place="before" if glue and g.chance(0.4) else "inside")


def _sample_tuple_get_item(g: _Generator, spec: Op) -> Call | None:
    t = g.pick(lambda v: isinstance(v.type, TupleType), tuples=True)
    if t is None:
        t = g.try_op(OPS["tuple"])
        if t is None:
            return None
    index = int(g.rng.integers(0, len(t.type.fields)))
    glue = t.place in ("param", "before")
    return Call([t], {"index": index}, place="before" if glue and g.chance(0.5) else "inside")


def _sample_start_checkpoint(g: _Generator, spec: Op) -> Call | None:
    if g.open_segments >= 2:
        return None
    v = g.pick(lambda v: v.active and (isinstance(v.type, TensorType) or g.chance(0.3)),
               tuples=True)
    if v is None:
        return None
    return Call([v])


def _sample_end_checkpoint(g: _Generator, spec: Op) -> Call | None:
    deep = [v for v in g.pool if v.depth > 0]
    if not deep:
        # A stray end marker outside any segment.
        v = g.pick(lambda v: v.active)
        return None if v is None else Call([v])
    v = max(deep, key=lambda v: v.order) if g.chance(0.7) else g.choice(deep)
    return Call([v])


def _sample_leaky_relu(g: _Generator, spec: Op) -> Call | None:
    call = _sample_unary(g, spec)
    alpha = g.choice([None, 0.01, 0.1, 0.2, 0.5, 0.0, 1.5], [3, 1, 1, 1, 1, 0.5, 0.5])
    if alpha is not None:
        call.attrs["alpha"] = float(alpha)
    return call


def _sample_clip(g: _Generator, spec: Op) -> Call | None:
    """Bounds around the operand's values (some elements clipped at either end
    or none); for integers sometimes fractional (rounded inward by the op)."""
    dtype = g.pick_dtype(spec)
    if dtype == "i1":
        return None
    x = g.pick(_tensor(lambda t: t.dtype == dtype), TensorType(g.shape(), dtype))
    assert x is not None
    vals = x.value.reshape(-1)
    lo, hi = (float(vals.min()), float(vals.max())) if vals.size else (-1.0, 1.0)
    span = max(hi - lo, 0.5)
    a, b = sorted(float(np.round(g.rng.uniform(lo - 0.3 * span, hi + 0.3 * span), 2))
                  for _ in range(2))
    if g.chance(0.05):
        a = b  # a constant result
    if dtype in INTS:
        a, b = math.floor(a), math.floor(b)
        if g.chance(0.5):
            # Fractional bounds that still hold an integer between them.
            a, b = a - float(g.choice([0.25, 0.5, 0.75])), b + float(g.choice([0.25, 0.5, 0.75]))
            g.features.add("clip-fractional-int")
    return Call([x], {"min": float(a), "max": float(b)})


def _cast_feature(src: str, dst: str) -> str:
    def kind(d: str) -> str:
        return "float" if d in FLOATS else "int" if d in INTS else "i1"
    if src == dst:
        return "astype-same"
    return f"astype-{kind(src)}-{kind(dst)}"


def _sample_astype(g: _Generator, spec: Op) -> Call | None:
    """A conversion from any element type in the program to any element type."""
    srcs = [g.dtype] + g.int_dtypes + ["i1"] + g.other_floats
    src = str(g.choice(srcs, [2.5 if d == g.dtype else 1.2 if d in FLOATS else 1.5 for d in srcs]))
    x = g.pick(_tensor(lambda t: t.dtype == src), TensorType(g.shape(), src))
    assert x is not None
    dsts, weights = [], []
    for d in sorted(ANY):
        if not g.may_convert(x, d) or (d in INTS and d not in g.int_dtypes and g.chance(0.7)):
            continue
        dsts.append(d)
        if d == src:
            weights.append(0.4)
        elif d in FLOATS:
            weights.append(2.5 if d == g.dtype else 1.2)
        elif d in INTS:
            weights.append(1.2 if src in FLOATS else 2.5)
        else:
            weights.append(1.0)
    dst = str(g.choice(dsts, weights))
    return Call([x], {}, TensorType(x.type.shape, dst))


def _scalar_operand(g: _Generator, dtype: str) -> Val:
    """A 0-d value of `dtype` (the value operand of full/full_like)."""
    v = g.pick(_tensor(lambda t: t.dtype == dtype and t.rank == 0), TensorType((), dtype))
    assert v is not None
    return v


def _sample_full(g: _Generator, spec: Op) -> Call | None:
    dtype = g.pick_dtype(spec)
    return Call([_scalar_operand(g, dtype)], {}, TensorType(g.shape(), dtype))


def _sample_full_like(g: _Generator, spec: Op) -> Call | None:
    dtype = g.pick_dtype(spec)
    x = g.pick(_tensor(lambda t: t.dtype == dtype), TensorType(g.shape(), dtype))
    assert x is not None
    return Call([x, _scalar_operand(g, dtype)], {}, x.type)


# -- reductions, neural network and shape ops ---------------------------------------

def _operand(g: _Generator, spec: Op, ok: Callable[[TensorType], bool] = lambda t: True,
             max_rank: int = 5, dtype: str | None = None) -> Val | None:
    """A pool value (or a fresh one) of an element type `spec` accepts whose type
    satisfies `ok`; None when no fresh shape of rank <= max_rank does."""
    dtype = dtype or g.pick_dtype(spec)
    v = g.pick(_tensor(lambda t: t.dtype == dtype and t.rank <= max_rank and ok(t)))
    if v is not None:
        return v
    for _ in range(10):
        t = TensorType(g.shape(max_rank), dtype)
        if ok(t):
            return g.fresh(t)
    return None


def _random_axes(g: _Generator, rank: int, k: int) -> list[int]:
    """k distinct axes of a rank-`rank` tensor in random order, some negative."""
    axes = [int(a) for a in g.rng.permutation(rank)[:k]]
    axes = [a - rank if g.chance(0.3) else a for a in axes]
    if any(a < 0 for a in axes):
        g.features.add("negative-axis")
    return axes


def _random_axis(g: _Generator, rank: int) -> int:
    return _random_axes(g, rank, 1)[0]


def _sample_extremum(g: _Generator, spec: Op) -> Call | None:
    """A reduction whose reduced axes are all non-empty (max/min have no identity)."""
    call = _sample_reduce(g, spec)
    if call is None:
        return None
    x = call.operands[0].type
    axes = call.attrs.get("axis")
    red = range(x.rank) if axes is None else [a % x.rank for a in axes]
    if any(x.shape[a] == 0 for a in red):
        keep = [a for a in (axes if axes is not None else range(x.rank))
                if x.shape[a % x.rank] != 0]
        call.attrs["axis"] = keep
    return call


def _sample_prod(g: _Generator, spec: Op) -> Call | None:
    """A product whose magnitude stays bounded: float operands beyond it go through
    tanh; integer products beyond INT_LIMIT are not generated."""
    call = _sample_reduce(g, spec)
    if call is None:
        return None
    x = call.operands[0]
    kwargs = dict(call.attrs)
    size = float(np.max(np.abs(spec.ref(np.abs(x.value).astype(np.float64), **kwargs)),
                        initial=0.0))
    if x.type.dtype in INTS:
        return call if size <= INT_LIMIT else None
    if not size <= 100.0:
        call.operands = [g.apply("tanh", [x])]
    return call


def _sample_cumsum(g: _Generator, spec: Op) -> Call | None:
    dtype = g.pick_dtype(spec)
    if dtype == "i1":
        return None
    x = _operand(g, spec, lambda t: t.rank >= 1, dtype=dtype)
    if x is None:
        return None
    return Call([x], {"axis": _random_axis(g, x.type.rank)})


def _sample_softmax(g: _Generator, spec: Op) -> Call | None:
    x = _operand(g, spec, lambda t: t.rank >= 1)
    if x is None:
        return None
    return Call([x], {} if g.chance(0.3) else {"axis": _random_axis(g, x.type.rank)})


def _sample_cross_entropy(g: _Generator, spec: Op) -> Call | None:
    """pred and labels of one type (a 0-d result; N = shape[0] for rank >= 2)."""
    x = _operand(g, spec, lambda t: t.rank < 2 or t.shape[0] > 0, max_rank=4)
    if x is None:
        return None
    labels = g.pick(_tensor(lambda t: t == x.type)) if g.chance(0.5) else None
    if labels is None:
        labels = g.fresh(x.type)
    return Call([x, labels] if g.chance(0.8) else [labels, x])


def _sample_nll_loss(g: _Generator, spec: Op) -> Call | None:
    """pred (C), (N, C) or (N, C, d...); targets (a fresh integer parameter or
    constant) mostly in [0, C), with some ignore_index and some out-of-range values;
    optional weights (C), positive where "mean" divides by their sum."""
    pred = _operand(g, spec, lambda t: t.rank >= 1, max_rank=4)
    if pred is None:
        return None
    shape = pred.type.shape
    axis = 0 if len(shape) == 1 else 1
    classes = shape[axis]
    tshape = shape[:axis] + shape[axis + 1:]
    reduction = g.choice([None, "mean", "sum", "none"], [1.0, 1.0, 1.0, 1.0])
    attrs: dict[str, Any] = {}
    if reduction is not None:
        attrs["reduction"] = reduction
    ignore = -100
    if g.chance(0.5):
        ignore = int(g.choice([-1, 0, 1, 2, classes, -100]))
        attrs["ignore_index"] = ignore
    t = g.rng.integers(0, max(classes, 1), tshape).astype(np.int64)
    if classes == 0:
        t[...] = 0
    n = t.size
    if n:
        flat = t.reshape(-1)
        if g.chance(0.4):
            flat[int(g.rng.integers(0, n))] = ignore
            g.features.add("nll-ignored")
        if g.chance(0.3):
            flat[int(g.rng.integers(0, n))] = int(g.choice([-1, -3, classes, classes + 2]))
            g.features.add("nll-out-of-range")
        if reduction in (None, "mean") and not np.any(ref.nll_valid(pred.value, t, ignore)):
            if classes == 0:
                return None  # the mean of no targets is 0 / 0
            flat[0] = 0 if ignore != 0 else classes - 1
            if flat[0] == ignore:
                return None
        t = flat.reshape(tshape)
    elif reduction in (None, "mean"):
        return None
    dtype = g.choice(g.int_dtypes)
    targets = g.fresh_with(TensorType(tshape, dtype), t)
    ops = [pred, targets]
    if g.chance(0.5):
        wt = TensorType((classes,), pred.type.dtype)
        w = g.pick(_tensor(lambda u: u == wt)) if g.chance(0.5) else None
        w = w or g.fresh(wt)
        if reduction in (None, "mean"):
            w = g.meet(w, POSITIVE)
        ops.append(w)
        g.features.add("nll-weights")
    return Call(ops, attrs)


def _sample_layer_norm(g: _Generator, spec: Op) -> Call | None:
    """axes a non-empty subset; gamma/beta of x's shape at the sorted axes; epsilon
    large where a group's variance is small (near var ~ epsilon the result bends
    sharply and finite differences get noisy)."""
    x = _operand(g, spec, lambda t: t.rank >= 1)
    if x is None:
        return None
    rank = x.type.rank
    axes = _random_axes(g, rank, int(g.rng.integers(1, rank + 1)))
    ax = tuple(sorted(a % rank for a in axes))
    pt = TensorType(tuple(x.type.shape[a] for a in ax), x.type.dtype)
    params = []
    for _ in range(2):
        p = g.pick(_tensor(lambda t: t == pt)) if g.chance(0.4) else None
        params.append(p or g.fresh(pt))
    attrs: dict[str, Any] = {"axes": axes}
    min_var = math.inf
    if x.value.size:
        min_var = float(np.min(np.var(x.value, axis=ax)))
    if min_var >= 0.05:
        eps = g.choice([None, 1e-5, 1e-3, 0.1])
    else:
        eps = g.choice([0.1, 0.5, 1.0])
    if eps is not None:
        attrs["epsilon"] = float(eps)
    return Call([x] + params, attrs)


def _sample_any(g: _Generator, spec: Op) -> Call | None:
    x = _operand(g, spec)
    return None if x is None else Call([x])


def _sample_bitcast(g: _Generator, spec: Op) -> Call | None:
    """Integers' bits read as the program's float type: small non-negative
    integers make subnormal floats, finite and within limits (a float's bits
    as an integer are too large for the pool's integer arithmetic)."""
    source = {"f32": "i32", "f64": "i64"}.get(g.dtype)
    if source is None or source not in g.int_dtypes:
        return None
    x = _operand(g, spec, dtype=source)
    if x is None:
        return None
    # Non-negative: a negative integer's bits are a NaN.
    return Call([g.apply("abs", [x])], result_type=TensorType(x.type.shape, g.dtype))


def _sample_expand_dims(g: _Generator, spec: Op) -> Call | None:
    x = _operand(g, spec, max_rank=4)
    if x is None:
        return None
    k = int(g.rng.integers(1, min(2, 5 - x.type.rank) + 1))
    return Call([x], {"axis": _random_axes(g, x.type.rank + k, k)})


def _sample_squeeze(g: _Generator, spec: Op) -> Call | None:
    ones_wanted = g.chance(0.8)
    x = _operand(g, spec, lambda t: 1 in t.shape or not ones_wanted)
    if x is None:
        return None
    ones = [a for a, d in enumerate(x.type.shape) if d == 1]
    if not ones or g.chance(0.3):
        return Call([x])
    k = int(g.rng.integers(0 if g.chance(0.1) else 1, len(ones) + 1))
    chosen = [ones[int(i)] for i in g.rng.permutation(len(ones))[:k]]
    return Call([x], {"axis": [a - x.type.rank if g.chance(0.3) else a for a in chosen]})


def _sample_concat(g: _Generator, spec: Op) -> Call | None:
    x = _operand(g, spec, lambda t: t.rank >= 1)
    if x is None:
        return None
    rank = x.type.rank
    axis = _random_axis(g, rank)
    a = axis % rank
    ops = [x]
    for _ in range(int(g.choice([0, 1, 1, 2]))):
        def fits(t: TensorType) -> bool:
            return (t.dtype == x.type.dtype and t.rank == rank
                    and all(t.shape[d] == x.type.shape[d] for d in range(rank) if d != a))
        o = g.pick(_tensor(fits)) if g.chance(0.5) else None
        if o is None:
            s = list(x.type.shape)
            s[a] = g.dim()
            o = g.fresh(TensorType(tuple(s), x.type.dtype))
        ops.append(o)
    order = list(g.rng.permutation(len(ops)))
    return Call([ops[i] for i in order], {"axis": axis})


def _read_fields(g: _Generator, tv: Val) -> None:
    """tuple_get_item of some fields of a tuple just bound (a split's parts)."""
    n = len(tv.type.fields)
    picked = [i for i in range(n) if g.chance(0.6)] or [int(g.rng.integers(0, n))]
    for i in picked:
        v = g.finish(OPS["tuple_get_item"], Call([tv], {"index": i}), check=False)
        assert v is not None
        if g.chance(0.3):
            g.focus = v


def _sample_split(g: _Generator, spec: Op) -> Call | None:
    x = _operand(g, spec, lambda t: t.rank >= 1)
    if x is None:
        return None
    rank = x.type.rank
    attrs: dict[str, Any] = {}
    axis = 0
    if g.chance(0.7):
        axis = _random_axis(g, rank)
        attrs["axis"] = axis
    size = x.type.shape[axis]
    if g.chance(0.4):
        sections = [n for n in range(1, 5) if size % n == 0] if size else [1, 2, 3]
        attrs["indices_or_sections"] = int(g.choice(sections))
        g.features.add("split-sections")
    else:
        # Points beyond the axis give empty parts; negative ones count from the end
        # (at least 0); the list is sorted after counting so.
        k = int(g.choice([0, 1, 2, 3], [0.1, 0.4, 0.35, 0.15]))
        low = -size - 2 if g.chance(0.5) else 0
        points = [int(p) for p in g.rng.integers(low, size + 3, k)]
        points.sort(key=lambda p: max(p + size, 0) if p < 0 else p)
        attrs["indices_or_sections"] = points
        if any(p > size for p in points):
            g.features.add("split-beyond")
        if any(p < 0 for p in points):
            g.features.add("split-negative")
        g.features.add("split-points")
    attrs = {"indices_or_sections": attrs.pop("indices_or_sections"), **attrs}
    parts = ref.split(x.value, **attrs)
    rtype = TupleType(tuple(TensorType(p.shape, x.type.dtype) for p in parts))
    return Call([x], attrs, rtype, then=_read_fields, focus=0.0)


def _take_indices(g: _Generator, x: Val) -> tuple[dict[str, Any], Val]:
    """take's (and scatter_add's) `axis` and indices for x: from the pool (any
    integers: clamped) or fresh, in [-n - 2, n + 2) with a repeat; without
    `axis` x is flattened."""
    attrs: dict[str, Any] = {}
    if x.type.rank and g.chance(0.75):
        attrs["axis"] = _random_axis(g, x.type.rank)
        n = x.type.shape[attrs["axis"]]
        room = 5 - (x.type.rank - 1)
    else:
        n = x.type.numel
        room = 3
    idx = None
    if n and g.chance(0.3):
        idx = g.pick(_tensor(lambda t: t.dtype in INTS and t.rank <= room
                             and 0 < t.numel <= 12))
    if idx is None:
        ishape = g.shape(min(room, 2))
        if not n:
            ishape = ishape + (0,) if len(ishape) < room else (0,) * room
        vals = g.rng.integers(-n - 2, n + 2, ishape)
        if vals.size >= 2:
            vals.reshape(-1)[1] = vals.reshape(-1)[0]
        idx = g.fresh_with(TensorType(ishape, g.choice(g.int_dtypes)), vals)
    if idx.value.size and np.any((idx.value < -n) | (idx.value >= n)):
        g.features.add("take-clamped")
    return attrs, idx


def _sample_take(g: _Generator, spec: Op) -> Call | None:
    """A gather of x at `_take_indices`."""
    x = _operand(g, spec, max_rank=4)
    if x is None:
        return None
    attrs, idx = _take_indices(g, x)
    return Call([x, idx], attrs)


def _sample_scatter_add(g: _Generator, spec: Op) -> Call | None:
    """Updates of take's result shape added into x at `_take_indices`."""
    x = _operand(g, spec, max_rank=4)
    if x is None:
        return None
    attrs, idx = _take_indices(g, x)
    shape = ref.take(x.value, idx.value, **attrs).shape
    dtype = x.type.dtype
    updates = g.pick(_tensor(lambda t: t.shape == shape and t.dtype == dtype),
                     fresh=TensorType(shape, dtype))
    if updates is None:
        return None
    return Call([x, idx, updates], attrs)


def _sample_scatter(g: _Generator, spec: Op) -> Call | None:
    """scatter_add's operands with a reduction."""
    call = _sample_scatter_add(g, spec)
    if call is not None:
        call.attrs["reduction"] = g.choice(["set", "multiply", "min", "max"])
    return call


def _sample_arg_extremum(g: _Generator, spec: Op) -> Call | None:
    """argmax/argmin of a non-empty x along an axis of size > 0 or flattened."""
    x = _operand(g, spec, lambda t: t.numel > 0)
    if x is None:
        return None
    attrs: dict[str, Any] = {}
    if x.type.rank and g.chance(0.7):
        attrs["axis"] = _random_axis(g, x.type.rank)
    if g.chance(0.3):
        attrs["keepdims"] = True
    return Call([x], attrs)


def _sample_strided_slice(g: _Generator, spec: Op) -> Call | None:
    """numpy slices of some axes: begin/end anywhere in [-n - 2, n + 2] (clamped),
    strides +-1..3 (mostly ordered so that the slice is not empty)."""
    x = _operand(g, spec)
    if x is None:
        return None
    rank = x.type.rank
    k = int(g.rng.integers(1, rank + 1)) if rank and g.chance(0.95) else 0
    axes = _random_axes(g, rank, k)
    begin, end, strides = [], [], []
    for a in axes:
        n = x.type.shape[a]
        stride = int(g.choice([1, 2, 3, -1, -2, -3], [3, 1, 0.5, 1.5, 1, 0.5]))
        b, e = (int(v) for v in g.rng.integers(-n - 2, n + 3, 2))
        if g.chance(0.7) and (b < e) != (stride > 0):
            b, e = e, b
        begin.append(b)
        end.append(e)
        strides.append(stride)
        if stride < 0:
            g.features.add("negative-stride")
    attrs: dict[str, Any] = {"axes": axes, "begin": begin, "end": end}
    if any(s != 1 for s in strides) or g.chance(0.3):
        attrs["strides"] = strides
    return Call([x], attrs)


def _sample_tile(g: _Generator, spec: Op) -> Call | None:
    x = _operand(g, spec, lambda t: t.numel <= 24, max_rank=4)
    if x is None:
        return None
    n = int(g.rng.integers(max(0, x.type.rank - 2), min(5, x.type.rank + 2) + 1))
    repeats = [int(g.choice([0, 1, 2, 3], [0.3, 2, 2, 1])) for _ in range(n)]
    return Call([x], {"repeats": repeats})


def _sample_pad(g: _Generator, spec: Op) -> Call | None:
    x = _operand(g, spec)
    if x is None:
        return None
    widths = [int(g.choice([0, 1, 2], [2, 2, 1])) for _ in range(2 * x.type.rank)]
    attrs: dict[str, Any] = {"pad_width": widths}
    if g.chance(0.5):
        dt = x.type.dtype
        # The value must be representable in the element type (i1: 0 or 1).
        values = [0.0, 1.0, -2.0, 1.5, -0.25] if dt in FLOATS else \
            [0.0, 1.0, -2.0, 3.0] if dt in INTS else [0.0, 1.0]
        attrs["pad_value"] = float(g.choice(values))
    return Call([x], attrs)


def _sample_triangle(g: _Generator, spec: Op) -> Call | None:
    x = _operand(g, spec, lambda t: t.rank >= 2)
    if x is None:
        return None
    return Call([x], {} if g.chance(0.3) else {"k": int(g.rng.integers(-3, 4))})


# -- convolution and pooling ----------------------------------------------------------

# The largest number of products a generated conv2d sums (N O OH OW C/groups KH KW).
CONV_COST = 1500


def _nchw_shape(g: _Generator, numel: int) -> tuple[int, ...]:
    """A random (N, C, H, W) of `numel` (> 0) elements, most of them in H and W."""
    dims = [1, 1, 1, 1]
    m, p = numel, 2
    while m > 1:
        while m % p == 0:
            dims[int(g.choice([0, 1, 2, 3], [0.2, 0.4, 2.0, 2.0]))] *= p
            m //= p
        p += 1
    return tuple(dims)


def _nchw_operand(g: _Generator, spec: Op, channels: int = 1) -> Val | None:
    """A 4-d (N, C, H, W) operand with C a multiple of `channels`: a 4-d pool
    value, another pool value reshaped to 4-d (so that the op reads what the
    program computed), or a fresh one (sometimes with a 0-size dim in programs
    that have them)."""
    dtype = g.pick_dtype(spec)
    limit = g.max_numel // 2
    r = g.rng.random()
    if r < 0.4:
        v = g.pick(_tensor(lambda t: t.dtype == dtype and t.rank == 4 and t.numel <= limit
                           and t.shape[1] % channels == 0 and t.shape[2] * t.shape[3] >= 4))
        if v is not None:
            return v
    if r < 0.75:
        v = g.pick(_tensor(lambda t: t.dtype == dtype and t.rank != 4 and 4 <= t.numel <= limit
                           and t.numel % channels == 0))
        if v is not None:
            n, c, h, w = _nchw_shape(g, v.type.numel // channels)
            shape = TensorType((n, c * channels, h, w), dtype)
            r4 = g.finish(OPS["reshape"], Call([v], {}, shape), check=False)
            assert r4 is not None
            return g.viewed(r4)
    for _ in range(20):
        c = channels * int(g.choice([1, 2])) if channels > 1 else \
            int(g.choice([1, 2, 3, 4], [3, 3, 1, 1]))
        shape = [int(g.choice([1, 2, 3], [4, 2, 0.5])), c,
                 int(g.choice(range(1, 8), [1, 2, 2, 2, 2, 1, 0.5])),
                 int(g.choice(range(1, 8), [1, 2, 2, 2, 2, 1, 0.5]))]
        if g.zero_dims and g.chance(0.3):
            shape[int(g.rng.integers(0, 4))] = 0
        if int(np.prod(shape)) <= g.cfg.max_param_numel:
            return g.fresh(TensorType(tuple(shape), dtype))
    return None


def _window_attrs(g: _Generator, attrs: dict[str, Any], name: str, value: list[int],
                  default: list[int]) -> None:
    """Sets attribute `name`, or leaves it out when it is the default (mostly)."""
    if value != default or g.chance(0.25):
        attrs[name] = value


def _narrow(size: int, before: int, after: int, k: int, stride: int,
            dilation: int) -> tuple[int, int]:
    """(k, stride) of a window along an axis of `size` (padding before/after)
    whose output is 1 wide: the window covering the padded axis when that takes
    at most 5, else a stride beyond the axis (k, stride unchanged when the
    window does not fit)."""
    padded = size + before + after
    cover = (padded - 1) // dilation + 1
    if 1 <= cover <= 5 and padded - dilation * (cover - 1) - 1 < stride:
        return cover, stride
    span = padded - dilation * (k - 1) - 1
    return k, max(stride, span + 1) if span >= 0 else stride


def _conv_window(g: _Generator, h: int, w: int, narrow: list[int],
                 ) -> tuple[list[int], list[int], list[int], list[int], list[int]]:
    """A convolution window over (h, w): kernel 1-3, strides 1-3, dilation 1-2,
    padding 0-2 (top, left, bottom, right), `narrow` axes 1 wide (`_narrow`);
    and the output size (0 where the window does not fit)."""
    k = [int(g.choice([1, 2, 3], [1, 3, 2])) for _ in range(2)]
    strides = [int(g.choice([1, 2, 3], [4, 2, 1])) for _ in range(2)]
    dilation = [int(g.choice([1, 2], [4, 1])) for _ in range(2)]
    padding = [int(g.choice([0, 1, 2], [4, 2, 1])) for _ in range(4)] if g.chance(0.6) \
        else [0, 0, 0, 0]
    for i in narrow:
        k[i], strides[i] = _narrow((h, w)[i], padding[i], padding[i + 2], k[i], strides[i],
                                   dilation[i])
    size = []
    for i, d in enumerate((h, w)):
        span = d + padding[i] + padding[i + 2] - dilation[i] * (k[i] - 1) - 1
        size.append(span // strides[i] + 1 if span >= 0 else 0)
    return k, strides, dilation, padding, size


def _sample_conv2d_patches(g: _Generator, spec: Op) -> Call | None:
    """x (N, C, H, W) and a `_conv_window`; the result at most max_numel elements."""
    x = _nchw_operand(g, spec)
    if x is None:
        return None
    n, c, h, w = x.type.shape
    narrow = [i for i in range(2) if g.chance(0.25)]
    for _ in range(20):
        k, strides, dilation, padding, size = _conv_window(g, h, w, narrow)
        if min(size) >= 1 and n * c * k[0] * k[1] * size[0] * size[1] <= g.max_numel:
            break
    else:
        return None
    attrs: dict[str, Any] = {"kernel_size": k}
    _window_attrs(g, attrs, "strides", strides, [1, 1])
    _window_attrs(g, attrs, "padding", padding, [0, 0, 0, 0])
    _window_attrs(g, attrs, "dilation", dilation, [1, 1])
    return Call([x], attrs)


def _sample_conv2d(g: _Generator, spec: Op) -> Call | None:
    """x (N, C, H, W) and w (O, C / groups, KH, KW) of one float type; groups a
    divisor of C (O a multiple of it); strides 1-3, dilation 1-2, padding 0-2
    (top, left, bottom, right); the result at most max_numel elements and
    CONV_COST products; a third of the time 1 wide along H or W or both
    (`_narrow`: a kernel covering the input or a stride beyond it)."""
    grouped = g.chance(0.35)
    narrow = [i for i in range(2) if g.chance(0.25)]
    x = _nchw_operand(g, spec, int(g.choice([2, 3])) if grouped else 1)
    if x is None:
        return None
    n, c, h, w = x.type.shape
    for _ in range(20):
        divisors = [d for d in range(2, 5) if c % d == 0] if c else [2, 3]
        groups = int(g.choice(divisors)) if divisors and (grouped or g.chance(0.2)) else 1
        o = groups * int(g.choice([1, 2, 3], [3, 2, 1]))
        if g.zero_dims and g.chance(0.1):
            o = 0
        k, strides, dilation, padding, size = _conv_window(g, h, w, narrow)
        out = n * o * size[0] * size[1]
        if min(size) >= 1 and out <= g.max_numel and \
                out * (c // groups) * k[0] * k[1] <= CONV_COST:
            break
    else:
        return None
    wt = TensorType((o, c // groups, k[0], k[1]), x.type.dtype)
    wv = g.pick(_tensor(lambda t: t == wt)) if g.chance(0.3) else None
    wv = wv or g.fresh(wt)
    attrs: dict[str, Any] = {}
    _window_attrs(g, attrs, "strides", strides, [1, 1])
    _window_attrs(g, attrs, "padding", padding, [0, 0, 0, 0])
    _window_attrs(g, attrs, "dilation", dilation, [1, 1])
    if groups != 1 or g.chance(0.25):
        attrs["groups"] = groups
    if groups > 1:
        g.features.add("conv-groups")
    if any(padding):
        g.features.add("conv-padding")
    if dilation != [1, 1]:
        g.features.add("conv-dilation")
    if 1 in size and max(h, w) > 1:
        g.features.add("conv-1-wide")
    return Call([x, wv], attrs)


def _sample_pool2d(g: _Generator, spec: Op) -> Call | None:
    """pool_size 1-3; strides (absent: pool_size) 1-3; dilation 1-2; padding at most
    half the window (its extent with dilation); ceil_mode; for avg_pool2d
    count_include_pad; a third of the time 1 wide along H or W or both (`_narrow`).
    No window without an element of x unless its mean counts padding (max:
    -inf; avg: 0 / 0)."""
    x = _nchw_operand(g, spec)
    narrow = [i for i in range(2) if g.chance(0.25)]
    if x is None:
        return None
    h, w = x.type.shape[2:]
    avg = spec.name == "avg_pool2d"
    for _ in range(20):
        pool = [int(g.choice([1, 2, 3], [1, 3, 2])) for _ in range(2)]
        strides = None if g.chance(0.4) else [int(g.choice([1, 2, 3], [2, 2, 1]))
                                              for _ in range(2)]
        dilation = [int(g.choice([1, 2], [4, 1])) for _ in range(2)]
        extent = [dilation[i] * (pool[i] - 1) + 1 for i in range(2)]
        padding = [int(g.rng.integers(0, extent[i % 2] // 2 + 1)) if g.chance(0.6) else 0
                   for i in range(4)]
        ceil_mode = g.chance(0.5)
        include = avg and g.chance(0.5)
        if narrow:
            strides = strides or list(pool)
            for i in narrow:
                pool[i], strides[i] = _narrow((h, w)[i], padding[i], padding[i + 2], pool[i],
                                              strides[i], dilation[i])
            if any(2 * padding[i] > dilation[i % 2] * (pool[i % 2] - 1) + 1 for i in range(4)):
                continue
        s = strides or pool
        rows = ref.window_positions(h, padding[0], padding[2], pool[0], s[0], dilation[0],
                                    ceil_mode)
        cols = ref.window_positions(w, padding[1], padding[3], pool[1], s[1], dilation[1],
                                    ceil_mode)
        if rows.shape[0] == 0 or cols.shape[0] == 0:
            continue
        if x.type.shape[0] * x.type.shape[1] * rows.shape[0] * cols.shape[0] > g.max_numel:
            continue
        empty = not (np.all(np.any((rows >= 0) & (rows < h), axis=1))
                     and np.all(np.any((cols >= 0) & (cols < w), axis=1)))
        if empty and not include:
            continue
        adds = ceil_mode and (rows.shape[0], cols.shape[0]) != tuple(
            ref.window_positions(d, padding[i], padding[i + 2], pool[i], s[i], dilation[i]).shape[0]
            for i, d in enumerate((h, w)))
        if ceil_mode and not adds and g.chance(0.9):
            continue  # mostly a ceil_mode that adds a window
        break
    else:
        return None
    attrs: dict[str, Any] = {"pool_size": pool}
    if strides is not None:
        attrs["strides"] = strides
    _window_attrs(g, attrs, "padding", padding, [0, 0, 0, 0])
    _window_attrs(g, attrs, "dilation", dilation, [1, 1])
    if ceil_mode or g.chance(0.2):
        attrs["ceil_mode"] = ceil_mode
    if avg and (include or g.chance(0.2)):
        attrs["count_include_pad"] = include
    if adds:
        g.features.add("pool-ceil-mode")  # ceil_mode added a window
    if any(padding):
        g.features.add("pool-padding")
        if include:
            g.features.add("pool-count-include-pad")
    if dilation != [1, 1]:
        g.features.add("pool-dilation")
    if empty:
        g.features.add("pool-padding-window")  # a window of only padding (mean 0)
    if 1 in (rows.shape[0], cols.shape[0]) and max(h, w) > 1:
        g.features.add("pool-1-wide")
    return Call([x], attrs)


# -- control flow ----------------------------------------------------------------

# Unary ops a loop body applies every iteration: bounded, so that the carry
# stays in range however long the loop.
_LOOP_UNARY = ("tanh", "sin", "sigmoid", "cos")
# Unary ops a branch applies.
_BRANCH_UNARY = ("tanh", "sin", "negative", "exp", "sigmoid", "square")


@dataclass(frozen=True)
class ControlBody:
    """The sampled body of a control-flow binding (its `body` attribute: the
    binding's text and the op's reference read it; it is not printed as an
    attribute). One float carry or operand `c` of the binding's type:

    - scan: c' = u(c (+|*) x) over the slices of xs (operand 1), `length`
      iterations, maybe reversed or checkpointed; the result is the last c;
    - while: c' = u(c) while a counter is below `stop` (at most `length`
      iterations); the result is the last c;
    - if: branch 0 (then) when sum(c) > 0, else branch 1: the branch's chain
      of unary ops on c;
    - switch: branch `index` (clamped) of three chains.
    """

    op: str
    dtype: str  # the carry's float type: each body op's result is rounded to it
    chains: tuple[tuple[str, ...], ...]
    length: int = 0
    combine: str = "add"
    reverse: bool = False
    every: int | None = None
    stop: int = 0
    index: int = 0

    @staticmethod
    def _chain(chain: Sequence[str], v: np.ndarray, dtype: str) -> np.ndarray:
        for name in chain:
            with np.errstate(all="ignore"):
                v = round_to(np.asarray(OPS[name].ref(v), np.float64), dtype)
        return v

    def evaluate(self, values: Sequence[np.ndarray]) -> np.ndarray:
        c, dtype = values[0], self.dtype
        if self.op == "scan":
            xs = values[1]
            order = range(self.length - 1, -1, -1) if self.reverse else range(self.length)
            for t in order:
                mixed = c + xs[t] if self.combine == "add" else c * xs[t]
                c = self._chain(self.chains[0], round_to(mixed, dtype), dtype)
            return c
        if self.op == "while":
            for _ in range(min(self.stop, self.length)):
                c = self._chain(self.chains[0], c, dtype)
            return c
        if self.op == "if":
            return self._chain(self.chains[0 if self.predicate(c) > 0 else 1], c, dtype)
        return self._chain(self.chains[min(max(self.index, 0), len(self.chains) - 1)], c, dtype)

    @staticmethod
    def predicate(c: np.ndarray) -> float:
        """The value an if compares with 0: sum(c)."""
        return float(np.sum(c))

    def text(self, name: str, operands: Sequence[str], types: Sequence[Type],
             rtype: Type) -> str:
        t = str(rtype)
        lines: list[str] = []

        def chain(chain: Sequence[str], v: str, tag: str) -> str:
            for k, op in enumerate(chain):
                w = f"%{name}_{tag}{k}"
                lines.append(f"  {w} = relax.{op} {v} : {t}")
                v = w
            return v

        c = operands[0]
        scalar = f"tensor<{rtype.dtype}>"
        if self.op == "scan":
            xs_type = str(types[1])
            rev = " reverse" if self.reverse else ""
            every = f" {{checkpoint_every = {self.every} : i64}}" if self.every else ""
            lines.append(f"%{name} = relax.scan length = {self.length}{rev} init({c} : {t}) "
                         f"xs({operands[1]} : {xs_type}) -> ({t}) {{")
            lines.append(f"^bb0(%{name}_c: {t}, %{name}_x: {t}):")
            lines.append(f"  %{name}_m = relax.{'add' if self.combine == 'add' else 'multiply'} "
                         f"%{name}_c, %{name}_x : {t}, {t} -> {t}")
            out = chain(self.chains[0], f"%{name}_m", "u")
            lines.append(f"  relax.yield {out} : {t}")
            lines.append(f"}}{every}")
        elif self.op == "while":
            lines.append(f"%{name}_zero = arith.constant dense<0> : tensor<i32>")
            lines.append(f"%{name}, %{name}_n = relax.while max_iterations = {self.length} "
                         f"init({c}, %{name}_zero : {t}, tensor<i32>) -> ({t}, tensor<i32>) "
                         f"cond {{")
            lines.append(f"^bb0(%{name}_c: {t}, %{name}_i: tensor<i32>):")
            lines.append(f"  %{name}_stop = arith.constant dense<{self.stop}> : tensor<i32>")
            lines.append(f"  %{name}_p = relax.less %{name}_i, %{name}_stop : tensor<i32>, "
                         f"tensor<i32> -> tensor<i1>")
            lines.append(f"  relax.condition %{name}_p : tensor<i1>")
            lines.append("} do {")
            lines.append(f"^bb0(%{name}_c: {t}, %{name}_i: tensor<i32>):")
            lines.append(f"  %{name}_one = arith.constant dense<1> : tensor<i32>")
            lines.append(f"  %{name}_j = relax.add %{name}_i, %{name}_one : tensor<i32>, "
                         f"tensor<i32> -> tensor<i32>")
            out = chain(self.chains[0], f"%{name}_c", "u")
            lines.append(f"  relax.yield {out}, %{name}_j : {t}, tensor<i32>")
            lines.append("}")
        else:
            if self.op == "if":
                lines.append(f"%{name}_s = relax.sum {c} : {t} -> {scalar}")
                lines.append(f"%{name}_z = arith.constant dense<0.0> : {scalar}")
                lines.append(f"%{name}_p = relax.greater %{name}_s, %{name}_z : {scalar}, "
                             f"{scalar} -> tensor<i1>")
                lines.append(f"%{name} = relax.if %{name}_p : tensor<i1> ({c} : {t}) -> ({t}) {{")
            else:
                lines.append(f"%{name}_i = arith.constant dense<{self.index}> : tensor<i32>")
                lines.append(f"%{name} = relax.switch %{name}_i : tensor<i32> ({c} : {t}) "
                             f"-> ({t}) [{{")
            for k, branch in enumerate(self.chains):
                if k:
                    lines.append("} else {" if self.op == "if" else "}, {")
                lines.append(f"^bb0(%{name}_b{k}: {t}):")
                out = chain(branch, f"%{name}_b{k}", f"b{k}_")
                lines.append(f"  relax.yield {out} : {t}")
            lines.append("}" if self.op == "if" else "} ]")
        return "\n".join(lines)


def _sample_control(g: _Generator, spec: Op) -> Call | None:
    """A loop or branch over a small float carry (see ControlBody)."""
    if g.dtype not in ("f32", "f64"):
        return None  # iterated rounding in f16 is beyond the checks' tolerances
    c = g.pick(_tensor(lambda t: t.dtype == g.dtype and 0 < t.numel <= 64),
               TensorType(g.shape(max_rank=3), g.dtype))
    if c is None or not isinstance(c.type, TensorType) or c.type.numel > 64:
        return None
    c = g.meet(c, BOUNDED)
    t = c.type

    def chain(pool: Sequence[str]) -> tuple[str, ...]:
        return tuple(g.choice(list(pool)) for _ in range(g.choice([1, 2])))

    operands = [c]
    if spec.name == "scan":
        length = g.choice([0, 1, 2, 3, 5])
        xs = g.fresh(TensorType((length,) + t.shape, t.dtype))
        operands.append(g.meet(xs, BOUNDED))
        every = g.choice([None, 2]) if length > 2 else None
        body = ControlBody("scan", t.dtype, (chain(_LOOP_UNARY),), length=length,
                           combine=g.choice(["add", "multiply"]), reverse=g.chance(0.4),
                           every=every)
        g.features.add("scan-reverse" if body.reverse else "scan")
        if every:
            g.features.add("scan-checkpointed")
    elif spec.name == "while":
        length = g.choice([0, 2, 3, 4])
        body = ControlBody("while", t.dtype, (chain(_LOOP_UNARY),), length=length,
                           stop=g.choice([0, 1, 2, 3, 5]))
        if body.stop > body.length:
            g.features.add("while-truncated")
    elif spec.name == "if":
        body = ControlBody("if", t.dtype, (chain(_BRANCH_UNARY), chain(_BRANCH_UNARY)))
    else:
        body = ControlBody("switch", t.dtype, tuple(chain(_BRANCH_UNARY) for _ in range(3)),
                           index=g.choice([-1, 0, 1, 2, 3]))
    return Call(operands, {"body": body}, t)


DEFAULT_SAMPLERS: dict[str, Sampler] = {
    UNARY: _sample_unary,
    BINARY: _sample_binary,
    COMPARE: _sample_compare,
    SELECT: _sample_select,
    REDUCE: _sample_reduce,
    CREATE: _sample_create,
}

# Samplers of the ops whose shapes or attributes are special, by op name (an op
# not named here is sampled by its kind's default; a CUSTOM op must be named).
SAMPLERS: dict[str, Sampler] = {
    "matmul": _sample_matmul,
    "permute_dims": _sample_permute_dims,
    "reshape": _sample_reshape,
    "broadcast_to": _sample_broadcast_to,
    "collapse_sum_to": _sample_collapse_sum_to,
    "tuple": _sample_tuple,
    "tuple_get_item": _sample_tuple_get_item,
    "start_checkpoint": _sample_start_checkpoint,
    "end_checkpoint": _sample_end_checkpoint,
    "leaky_relu": _sample_leaky_relu,
    "clip": _sample_clip,
    "astype": _sample_astype,
    "full": _sample_full,
    "full_like": _sample_full_like,
    "max": _sample_extremum,
    "min": _sample_extremum,
    "prod": _sample_prod,
    "cumsum": _sample_cumsum,
    "softmax": _sample_softmax,
    "log_softmax": _sample_softmax,
    "cross_entropy_with_logits": _sample_cross_entropy,
    "nll_loss": _sample_nll_loss,
    "layer_norm": _sample_layer_norm,
    "expand_dims": _sample_expand_dims,
    "squeeze": _sample_squeeze,
    "flatten": _sample_any,
    "concat": _sample_concat,
    "split": _sample_split,
    "take": _sample_take,
    "scatter_add": _sample_scatter_add,
    "scatter": _sample_scatter,
    "argmax": _sample_arg_extremum,
    "bitcast": _sample_bitcast,
    "argmin": _sample_arg_extremum,
    "strided_slice": _sample_strided_slice,
    "tile": _sample_tile,
    "pad": _sample_pad,
    "triu": _sample_triangle,
    "tril": _sample_triangle,
    "conv2d": _sample_conv2d,
    "conv2d_patches": _sample_conv2d_patches,
    "max_pool2d": _sample_pool2d,
    "avg_pool2d": _sample_pool2d,
    "scan": _sample_control,
    "while": _sample_control,
    "if": _sample_control,
    "switch": _sample_control,
}

OPS: dict[str, Op] = ALL_OPS


def generate(seed: int, config: GenConfig = GenConfig()) -> Program:
    """The random program of `seed` (deterministic)."""
    return _Generator(seed, config).build()


# ============================================================================
# Checking against relax_mlir
# ============================================================================

JITTER_RUNS = 3
# Per-op rounding error the jitter models, in eps of the type: f16 ops are
# computed in f32 and rounded (0.5 ulp); f32/f64 exp/tanh/... approximations are
# within a couple of ulp.
JITTER_ULPS = {"f16": 1.0, "f32": 2.0, "f64": 2.0}
JITTER_SAFETY = 4.0
FD_STEP = 1e-5


@dataclass
class Outcome:
    seed: int
    status: str = "passed"       # passed | wrong | rejected | error
    message: str = ""
    dtype: str = ""
    opt_levels: list[int] = field(default_factory=list)  # compiled at (see `opt_levels`)
    forward_skipped: bool = False
    gradient: str = "checked"    # checked | partial | skipped | forward-only | none
    grad_elements: int = 0       # gradient elements compared with finite differences
    grad_skipped: int = 0        # elements skipped: the finite difference straddles a kink
    kink_distance: float = math.inf
    forward_margin: float = 0.0  # the largest |error| / tolerance of the forward checks
    grad_margin: float = 0.0     # the same for the gradient checks
    seconds: float = 0.0

    def record(self) -> dict[str, Any]:
        d = dict(self.__dict__)
        d["kink_distance"] = None if math.isinf(self.kink_distance) else self.kink_distance
        return d


class Mismatch(AssertionError):
    pass


def forward_tolerance(program: Program, base: Trace) -> tuple[Any, bool, bool]:
    """Per-element tolerances of the forward result, and whether a kink is
    within rounding distance (jump: the result itself is ill-defined there;
    any: the gradient is).

    The compiled code rounds differently from the interpreter (other operation
    order, fused multiply-adds, other exp/tanh approximations, accumulation order
    in reductions). We estimate how much such rounding can move each result by
    re-running the interpreter JITTER_RUNS times with every rounding op's result
    perturbed by up to JITTER_ULPS eps of its type (uniformly: twice the 0.5 ulp
    of a correctly rounded op, or a couple of ulp of an approximated exp/tanh),
    and its operands by that many eps of the accumulator (f32 for f16) times
    the number of terms per result where it sums (reductions; inside a matmul
    the products round relative to their own size, not the sum's): sequential
    accumulation errors grow linearly in the worst case, and do when the terms
    are alike (seed 767 of the soak: an f64 sum of 360 equal constants was 11
    ulp off, beyond a sqrt(terms) model).
    This propagates through the program as real rounding errors do,
    cancellation included. The tolerance is JITTER_SAFETY times the largest
    deviation seen (the errors of a real run may add up less randomly), plus 2
    eps of the value (the final rounding). A wrong rule or lowering moves results
    by far more; rounding bugs of a few ulp (such as f16 accumulation over ~100
    terms) are below it."""
    dev = [np.zeros(np.shape(a)) for _, a, _ in leaves(base.result, program.result_type)]
    jump_unstable = corner_unstable = False
    for k in range(JITTER_RUNS):
        run = evaluate(program, jitter=np.random.default_rng([program.seed, k]),
                       ulps=JITTER_ULPS[program.dtype])
        for kb, kr in zip(base.kinks, run.kinks):
            if kb.pattern != kr.pattern:
                # A jump changes values (and the branch gradients take); a corner
                # only the gradient, and only if gradients flow through it.
                jump_unstable |= kb.jump
                corner_unstable |= kb.jump or kb.active
        for d, (_, e, t), (_, a, _) in zip(dev, leaves(base.result, program.result_type),
                                           leaves(run.result, program.result_type)):
            if t.dtype in FLOATS:
                np.maximum(d, np.abs(a - e), out=d)
    tols = []
    for d, (_, e, t) in zip(dev, leaves(base.result, program.result_type)):
        tols.append(JITTER_SAFETY * d + 2 * EPS[t.dtype] * np.abs(e) + 1e-3 * EPS[t.dtype]
                    if t.dtype in FLOATS else None)
    return tols, jump_unstable, corner_unstable


def compare_forward(program: Program, got: Any, base: Trace, tols: list[Any], what: str) -> float:
    """Checks a returned value against the interpreter's; returns the largest
    |error| / tolerance."""
    margin = 0.0
    expected = list(leaves(base.result, program.result_type))
    got_leaves = _shaped_leaves(got, program.result_type, what)
    for (path, e, t), a, tol in zip(expected, got_leaves, tols):
        where = f"{what}{''.join(f'[{i}]' for i in path)}"
        if t.dtype in FLOATS:
            err = np.abs(a.astype(np.float64) - e)
            if err.size:
                margin = max(margin, float(np.max(err / tol)))
            if err.size and not np.all(err <= tol):
                i = tuple(int(j) for j in np.unravel_index(int(np.argmax(err - tol)), err.shape))
                raise Mismatch(f"{where} ({t}): element {i} is {a[i]!r}, expected {e[i]!r} "
                               f"(|error| {err[i]:.3g} > tolerance {tol[i]:.3g})\n"
                               f"got:\n{a!r}\nexpected:\n{e!r}")
        elif not np.array_equal(a.astype(e.dtype), e):
            raise Mismatch(f"{where} ({t}): got\n{a!r}\nexpected\n{e!r}")
    return margin


def _shaped_leaves(value: Any, t: Type, what: str) -> list[np.ndarray]:
    """The arrays of a returned value, after checking its structure, dtypes and shapes."""
    out: list[np.ndarray] = []

    def walk(v: Any, t: Type, where: str) -> None:
        if isinstance(t, TupleType):
            if not isinstance(v, tuple) or len(v) != len(t.fields):
                raise Mismatch(f"{where}: expected a tuple of {len(t.fields)} for {t}, got {v!r}")
            for i, (x, f) in enumerate(zip(v, t.fields)):
                walk(x, f, f"{where}[{i}]")
            return
        if not isinstance(v, np.ndarray):
            raise Mismatch(f"{where}: expected an array for {t}, got {type(v).__name__}")
        if v.dtype != np.dtype(NUMPY_DTYPE[t.dtype]) or v.shape != t.shape:
            raise Mismatch(f"{where}: expected {t}, got dtype {v.dtype} shape {v.shape}")
        out.append(v)
    walk(value, t, what)
    return out


def finite_differences(program: Program, base: Trace, index: int, path: tuple[int, ...],
                       h: float) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """d target / d (leaf `path` of parameter `index`) by float64 central
    differences with step h, and which elements' differences straddle a kink
    (a kink's sign pattern differs at x +- h or x +- 2h from x's)."""
    args = internal_args(program)

    def leaf(a: Any) -> np.ndarray:
        for i in path:
            a = a[i]
        return a

    def with_leaf(x: np.ndarray) -> list[Any]:
        def put(a: Any, p: tuple[int, ...]) -> Any:
            if not p:
                return x
            return tuple(put(f, p[1:]) if i == p[0] else f for i, f in enumerate(a))
        new = list(args)
        new[index] = put(args[index], path)
        return new

    x = leaf(args[index]).copy()
    patterns = [k.pattern for k in base.kinks]
    redo = dependents(program, index)
    fd = np.zeros(x.shape)
    fd2 = np.zeros(x.shape)
    straddles = np.zeros(x.shape, bool)
    for i in np.ndindex(x.shape):
        vals = {}
        for step in (h, -h, 2 * h, -2 * h):
            xp = x.copy()
            xp[i] += step
            tr = evaluate(program, prepared=with_leaf(xp), reuse=(base, redo))
            vals[step] = tr.target
            if [k.pattern for k in tr.kinks] != patterns:
                straddles[i] = True
        fd[i] = (vals[h] - vals[-h]) / (2 * h)
        fd2[i] = (vals[2 * h] - vals[-2 * h]) / (4 * h)
    return fd, fd2, straddles


def opt_levels(seed: int) -> tuple[int, ...]:
    """The opt levels the program of `seed` is compiled at: 0 (every op as
    plain scalar loops, no LLVM optimization) and one of 1-3 (the CPU
    schedule: tiles, vectorized loops and gathers), 1 + seed % 3."""
    return (0, 1 + seed % 3)


def check(program: Program, corrupt: str | None = None,
          levels: Sequence[int] | None = None) -> Outcome:
    """Differentiates the program, compiles it at each opt level of `levels`
    (default `opt_levels(seed)`), runs it and compares with the interpreter:
    the forward value of every level, and for f64 programs every level's
    gradients with the same finite differences. A level that gives a wrong
    result fails the check; the message names every level's outcome.

    `corrupt` ("forward", "gradient", "tangent" or "split") damages the
    compiled result before the comparison, to show that the checks catch a
    wrong result."""
    import relax_mlir

    t0 = time.time()
    levels = list(opt_levels(program.seed) if levels is None else levels)
    out = Outcome(program.seed, dtype=program.dtype, opt_levels=levels)
    text = program.text()
    try:
        module = relax_mlir.gradient(text, **program.gradient_kwargs())
        # The adjoint split at its residuals and forward mode, along the same
        # parameters: both checked against the gradients.
        if program.grad_params():
            module = relax_mlir.gradient(module, func=program.func,
                                         require_grads=program.grad_params(), mode="vjp")
        module = relax_mlir.jacobian_vector_product(module, func=program.func,
                                                    wrt=program.grad_params() or None)
    except relax_mlir.RelaxMLIRError as e:
        out.status, out.message = "rejected", str(e)
        return out
    base = evaluate(program)
    out.kink_distance = kink_distance(base)
    tols, jump_unstable, corner_unstable = forward_tolerance(program, base)
    out.forward_skipped = jump_unstable
    fd_cache: dict[tuple[int, tuple[int, ...]], Any] = {}
    failed: list[str] = []
    passed: list[str] = []
    for n, level in enumerate(levels):
        try:
            exe = relax_mlir.compile(module, opt_level=level)
        except relax_mlir.RelaxMLIRError as e:
            out.status, out.message = "rejected", f"opt_level {level}: {e}"
            return out
        try:
            _check_level(program, exe, base, tols, corner_unstable, out, fd_cache, corrupt,
                         count=n == 0)
            passed.append(str(level))
        except Mismatch as e:
            failed.append(f"opt_level {level}: {e}")
    if failed:
        raise Mismatch("\n".join(failed) + (f"\n(opt_level {', '.join(passed)}: passed)"
                                             if passed else ""))
    out.seconds = time.time() - t0
    return out


def _check_level(program: Program, exe: Any, base: Trace, tols: list[Any],
                 corner_unstable: bool, out: Outcome,
                 fd_cache: dict[tuple[int, tuple[int, ...]], Any],
                 corrupt: str | None, count: bool) -> None:
    """Runs one compiled program and compares its results (see `check`); `count`:
    adds the gradient elements it compares to out's counts."""
    args = [_copy(a) for a in program.args]
    result = exe[program.func + "_adjoint"](*args)
    plain = exe[program.func](*args)
    for a, b, p in zip(args, program.args, program.params):
        for (_, x, _), (_, y, _) in zip(leaves(a, p.type), leaves(b, p.type)):
            if not np.array_equal(x, y):
                raise Mismatch(f"argument {p.name} was modified by the call")
    if not isinstance(result, tuple) or len(result) != 2:
        raise Mismatch(f"{program.func}_adjoint returned {result!r}, not (result, grads)")
    value, grads = result
    if corrupt == "forward":
        value = _corrupt_target(program, value)
    if not out.forward_skipped:
        out.forward_margin = max(
            out.forward_margin,
            compare_forward(program, value, base, tols, f"{program.func}_adjoint result[0]"),
            compare_forward(program, plain, base, tols, f"{program.func} result"))

    gidx = program.grad_params()
    if not isinstance(grads, tuple) or len(grads) != len(gidx):
        raise Mismatch(f"expected {len(gidx)} gradients, got {grads!r}")
    g_leaves: list[GradLeaf] = []
    for gi, (p, g) in enumerate(zip(gidx, grads)):
        t = program.params[p].type
        arrays = _shaped_leaves(g, t, f"gradient {gi} (parameter {program.params[p].name})")
        g_leaves += [(p, path, a) for (path, _, _), a in zip(leaves(program.args[p], t), arrays)]
    if corrupt == "gradient":
        g_leaves = _corrupt_gradient(g_leaves)
    if program.dtype != "f64":
        out.gradient = "forward-only"
    elif not g_leaves:
        out.gradient = "none"
    elif corner_unstable:
        out.gradient = "skipped"
    else:
        check_gradients(program, base, g_leaves, out, fd_cache, count)
        check_jvp(program, exe, base, g_leaves, tols, corrupt)
        check_vjp_split(program, exe, base, g_leaves, tols, corrupt)


def _target_of(program: Program, value: Any) -> Any:
    """The target field of a result (the result itself for a tensor result)."""
    if isinstance(program.result_type, TensorType):
        return value
    return value[program.target_index]


def check_jvp(program: Program, exe: Any, base: Trace, g_leaves: list[GradLeaf],
              tols: list[Any], corrupt: str | None = None) -> None:
    """`<func>_jvp` along random tangents of the differentiated parameters: its
    result equals the forward value, and the tangent of the target equals the
    dot product of the tangents with the (already checked) gradients, <t, g>:
    forward and reverse mode are each other's transpose. Tolerance: 1e-8 +
    1e-6 sum|t g| + 64 eps scale (rounding in the two orders of summation); a
    wrong tangent rule errs by O(|t g|)."""
    gidx = program.grad_params()
    if not gidx:
        return
    gen = np.random.default_rng(program.seed + 7919)

    def tangent(value: Any) -> Any:
        if isinstance(value, tuple):
            return tuple(tangent(v) for v in value)
        return gen.uniform(-1.0, 1.0, np.shape(value)).astype(value.dtype)

    tangents = [tangent(program.args[p]) for p in gidx]
    args = [_copy(a) for a in program.args]
    result = exe[program.func + "_jvp"](*args, *tangents)
    if not isinstance(result, tuple) or len(result) != 2:
        raise Mismatch(f"{program.func}_jvp returned {result!r}, not (result, tangent)")
    value, tangent_out = result
    compare_forward(program, value, base, tols, f"{program.func}_jvp result[0]")
    t_leaves = {(p, path): t for p, tv in zip(gidx, tangents)
                for path, t, _ in leaves(tv, program.params[p].type)}
    terms = [t_leaves[p, path] * g for p, path, g in g_leaves]
    dot = float(sum(np.sum(t) for t in terms))
    magnitude = float(sum(np.sum(np.abs(t)) for t in terms))
    got = float(np.asarray(_target_of(program, tangent_out)))
    if corrupt == "tangent":
        got += 1e-3 * (1 + abs(got))
    tol = 1e-8 + 1e-6 * magnitude + 64 * EPS["f64"] * max(1.0, base.scale)
    if not abs(got - dot) <= tol:
        raise Mismatch(f"{program.func}_jvp: the target's tangent is {got!r}, but the "
                       f"tangents dotted with the gradients give {dot!r} (tolerance {tol:.3g})")


def _seed(program: Program, value: Any) -> Any:
    """The cotangent that makes a vjp the adjoint's gradient: ones at the
    target, zeros in the other fields of a tuple result (leaves of `value`'s
    types)."""
    def zeros(v: Any) -> Any:
        return tuple(zeros(f) for f in v) if isinstance(v, tuple) else np.zeros_like(v)

    if isinstance(program.result_type, TensorType):
        return np.ones_like(value)
    return tuple(np.ones_like(f) if i == program.target_index else zeros(f)
                 for i, f in enumerate(value))


def check_vjp_split(program: Program, exe: Any, base: Trace, g_leaves: list[GradLeaf],
                    tols: list[Any], corrupt: str | None = None) -> None:
    """`<func>_fwd` computes the result and the residuals, `<func>_bwd` pulls
    the target's seed back from them: its result equals the forward value and
    its gradients the (already checked) adjoint's, to rounding (tolerance 1e-9
    relative to the largest gradient element)."""
    gidx = program.grad_params()
    if not gidx:
        return
    args = [_copy(a) for a in program.args]
    value, residuals = exe[program.func + "_fwd"](*args)
    compare_forward(program, value, base, tols, f"{program.func}_fwd result[0]")
    grads = exe[program.func + "_bwd"](*residuals, _seed(program, value))
    if not isinstance(grads, tuple) or len(grads) != len(gidx):
        raise Mismatch(f"{program.func}_bwd returned {grads!r}, not {len(gidx)} gradients")
    split: list[np.ndarray] = []
    for gi, (p, g) in enumerate(zip(gidx, grads)):
        split += _shaped_leaves(g, program.params[p].type, f"{program.func}_bwd gradient {gi}")
    if corrupt == "split":
        split = [s.copy() for s in split]
        for s in split:
            if s.size:
                s.reshape(-1)[0] += 1e-3 * (1 + abs(s.reshape(-1)[0]))
                break
    scale = max((float(np.max(np.abs(g))) for _, _, g in g_leaves if g.size), default=1.0)
    for (p, path, g), s in zip(g_leaves, split):
        if not np.allclose(s, g, rtol=1e-9, atol=1e-9 * max(1.0, scale), equal_nan=True):
            name = program.params[p].name + "".join(f"[{j}]" for j in path)
            raise Mismatch(f"{program.func}_bwd: the gradient of {name} differs from the "
                           f"adjoint's\ngot:\n{s!r}\nadjoint:\n{g!r}")


def check_gradients(program: Program, base: Trace, g_leaves: list[GradLeaf], out: Outcome,
                    fd_cache: dict[tuple[int, tuple[int, ...]], Any] | None = None,
                    count: bool = True) -> None:
    """Every gradient element against float64 central differences of the
    interpreter (kept in `fd_cache` for the next opt level; `count`: add the
    compared and skipped elements to out's counts).

    Tolerance: |g - fd| <= 1e-8 + 1e-6 |fd| + 64 eps scale / h + 10 |fd(h) - fd(2h)|.
    The last term is the finite difference's own truncation error as measured by
    comparing steps h and 2h (which differ by 3x the O(h^2) term of fd(h)); the
    scale term bounds its rounding error (the target's rounding error is a few eps
    times the largest intermediate magnitude, divided by the step). Over 1000
    soak programs the largest |g - fd| was below 1/25 of this tolerance; a wrong
    gradient rule errs by O(|g|), far above it."""
    eps = EPS["f64"]
    fd_cache = {} if fd_cache is None else fd_cache
    for p, path, g in g_leaves:
        if (p, path) not in fd_cache:
            fd_cache[p, path] = finite_differences(program, base, p, path, FD_STEP)
        fd, fd2, straddles = fd_cache[p, path]
        tol = (1e-8 + 1e-6 * np.abs(fd) + 64 * eps * max(1.0, base.scale) / FD_STEP
               + 10 * np.abs(fd - fd2))
        ok = (np.abs(g - fd) <= tol) | straddles
        if np.any(~straddles):
            ratio = (np.abs(g - fd) / tol)[~straddles]
            out.grad_margin = max(out.grad_margin, float(np.max(ratio)))
        if count:
            out.grad_elements += int(np.sum(~straddles))
            out.grad_skipped += int(np.sum(straddles))
        if not np.all(ok):
            i = tuple(int(j) for j in np.unravel_index(int(np.argmax(~ok)), g.shape))
            name = program.params[p].name + "".join(f"[{j}]" for j in path)
            raise Mismatch(f"gradient of {name}: element {i} is {g[i]!r}, finite differences "
                           f"give {fd[i]!r} (tolerance {tol[i]:.3g})\n"
                           f"got:\n{g!r}\nfinite differences:\n{fd!r}")
    if out.grad_skipped:
        out.gradient = "partial" if out.grad_elements else "skipped"


def _copy(a: Any) -> Any:
    return tuple(_copy(x) for x in a) if isinstance(a, tuple) else a.copy()


def _corrupt_target(program: Program, value: Any) -> Any:
    def bump(v: np.ndarray) -> np.ndarray:
        return np.asarray(v + 1e-2 * (1 + abs(float(v))), v.dtype)
    if isinstance(program.result_type, TensorType):
        return bump(value)
    fields = list(value)
    fields[program.target_index] = bump(fields[program.target_index])
    return tuple(fields)


def _corrupt_gradient(g_leaves: list[GradLeaf]) -> list[GradLeaf]:
    out = []
    done = False
    for p, path, g in g_leaves:
        if not done and g.size:
            g = g.copy()
            g.reshape(-1)[0] += 1e-3 * (1 + abs(g.reshape(-1)[0]))
            done = True
        out.append((p, path, g))
    return out


def run_seed(seed: int, config: GenConfig = GenConfig(), corrupt: str | None = None,
             levels: Sequence[int] | None = None) -> dict[str, Any]:
    """Generates and checks one program; a JSON-able record (status and details).
    `corrupt`: "forward"/"gradient" (see `check`), or "crash" (the process kills
    itself with SIGSEGV, as native code would: for testing `WorkerPool`).
    `levels`: the opt levels to compile at (default `opt_levels(seed)`)."""
    if corrupt == "crash":
        import signal
        os.kill(os.getpid(), signal.SIGSEGV)
    try:
        program = generate(seed, config)
    except Exception:
        return Outcome(seed, status="error",
                       message="generator failed:\n" + traceback.format_exc()).record()
    levels = list(opt_levels(seed) if levels is None else levels)
    try:
        return check(program, corrupt, levels).record()
    except Mismatch as e:
        return Outcome(seed, status="wrong", dtype=program.dtype, opt_levels=levels,
                       message=str(e)).record()
    except Exception:
        return Outcome(seed, status="error", dtype=program.dtype, opt_levels=levels,
                       message=traceback.format_exc()).record()


def describe(record: dict[str, Any], config: GenConfig = GenConfig()) -> str:
    """A failure report: seed, status, message, the program text and its arguments."""
    seed = record["seed"]
    levels = record.get("opt_levels") or list(opt_levels(seed))
    lines = [f"seed {seed}: {record['status']} (opt_level {', '.join(map(str, levels))})",
             record.get("message", "")]
    try:
        program = generate(seed, config)
        lines += [f"gradient(func={program.func!r}, require_grads={program.require_grads!r}, "
                  f"target_index={program.target_index})", program.text(), program.describe_args()]
    except Exception:
        lines.append("(the generator fails for this seed)")
    return "\n".join(lines)


# ============================================================================
# Worker subprocesses
# ============================================================================

class WorkerPool:
    """Runs `run_seed` in worker subprocesses (`python -m relax_mlir_testing.programs
    --worker`),
    one request at a time per worker, so that a native crash or a hang is
    reported as a "crashed" record for its seed and the worker restarted."""

    def __init__(self, workers: int = 2, timeout: float = 300.0,
                 worker_args: Sequence[str] = ()) -> None:
        self.n = workers
        self.timeout = timeout
        self.worker_args = list(worker_args)
        self.env = dict(os.environ, PYTHONPATH=os.pathsep.join(p for p in sys.path if p))

    def _start(self) -> dict[str, Any]:
        log = tempfile.TemporaryFile(mode="w+b")
        proc = subprocess.Popen([sys.executable, "-X", "faulthandler", "-m",
                                 "relax_mlir_testing.programs", "--worker", *self.worker_args],
                                stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=log,
                                env=self.env, text=True, bufsize=1)
        return {"proc": proc, "log": log, "req": None, "since": 0.0, "offset": 0}

    @staticmethod
    def _stop(w: dict[str, Any]) -> None:
        if w["proc"].poll() is None:
            w["proc"].kill()
        w["proc"].wait()
        w["log"].close()

    @staticmethod
    def _log_tail(w: dict[str, Any]) -> str:
        w["log"].seek(w["offset"])
        return w["log"].read()[-4000:].decode(errors="replace")

    def run(self, requests: Iterable[dict[str, Any]]) -> Iterator[dict[str, Any]]:
        """Yields one record per request, in completion order."""
        pending = deque(requests)
        workers = [self._start() for _ in range(min(self.n, len(pending)) or 1)]
        sel = selectors.DefaultSelector()
        for w in workers:
            sel.register(w["proc"].stdout, selectors.EVENT_READ, w)
        try:
            while pending or any(w["req"] is not None for w in workers):
                for w in workers:
                    if w["req"] is None and pending:
                        w["req"] = pending.popleft()
                        w["since"] = time.time()
                        w["log"].seek(0, os.SEEK_END)
                        w["offset"] = w["log"].tell()
                        try:
                            w["proc"].stdin.write(json.dumps(w["req"]) + "\n")
                            w["proc"].stdin.flush()
                        except BrokenPipeError:
                            pass  # reported as a crash when its stdout closes
                for key, _ in sel.select(timeout=1.0):
                    w = key.data
                    line = w["proc"].stdout.readline()
                    if line:
                        rec = json.loads(line)
                        w["req"] = None
                        yield rec
                        continue
                    yield self._crashed(w, "exited")
                    i = workers.index(w)
                    sel.unregister(w["proc"].stdout)
                    self._stop(w)
                    workers[i] = self._start()
                    sel.register(workers[i]["proc"].stdout, selectors.EVENT_READ, workers[i])
                for i, w in enumerate(workers):
                    if w["req"] is not None and time.time() - w["since"] > self.timeout:
                        w["proc"].kill()
                        yield self._crashed(w, f"timed out after {self.timeout:.0f} s")
                        sel.unregister(w["proc"].stdout)
                        self._stop(w)
                        workers[i] = self._start()
                        sel.register(workers[i]["proc"].stdout, selectors.EVENT_READ, workers[i])
        finally:
            for w in workers:
                try:
                    w["proc"].stdin.close()
                except OSError:
                    pass
                self._stop(w)

    def _crashed(self, w: dict[str, Any], how: str) -> dict[str, Any]:
        proc = w["proc"]
        rc = proc.wait()
        if how == "exited":
            if rc < 0:
                import signal
                how = f"was killed by {signal.Signals(-rc).name}"
            else:
                how = f"exited with status {rc}"
        req = w["req"]
        w["req"] = None
        return Outcome(req["seed"], status="crashed",
                       message=f"worker {how} while checking seed {req['seed']}\n"
                               f"--- worker stderr (tail)\n{self._log_tail(w)}").record()


def _worker_main(argv: list[str]) -> None:
    """Reads JSON requests {"seed", "corrupt"?, "opt_levels"?} from stdin, writes
    JSON records."""
    import argparse
    parser = argparse.ArgumentParser()
    parser.add_argument("--worker", action="store_true")
    parser.add_argument("--no-int-div-zero", action="store_true")
    opts = parser.parse_args(argv)
    config = GenConfig(int_div_zero=not opts.no_int_div_zero)
    proto = os.fdopen(os.dup(1), "w", buffering=1)
    os.dup2(2, 1)  # anything else written to stdout (native code included) goes to stderr
    sys.stdout = sys.stderr
    for line in sys.stdin:
        req = json.loads(line)
        print(f"--- seed {req['seed']}", file=sys.stderr, flush=True)
        rec = run_seed(int(req["seed"]), config, req.get("corrupt"), req.get("opt_levels"))
        proto.write(json.dumps(rec) + "\n")


if __name__ == "__main__":
    if "--worker" in sys.argv[1:]:
        _worker_main(sys.argv[1:])
    else:
        # python -m relax_mlir_testing.programs SEED: print the program of SEED.
        for s in sys.argv[1:]:
            p = generate(int(s))
            print(f"// seed {s}: dtype {p.dtype}, gradient(func={p.func!r}, "
                  f"require_grads={p.require_grads!r}, target_index={p.target_index})")
            print(p.text())
            print(p.describe_args())
