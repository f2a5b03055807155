"""The op table: one `Op` entry per relax op, the single place the tests,
the random-program generator (programs.py) and the relax-opt fuzzer
(tools/fuzz/relax_fuzz.py) learn an op from.

An entry gives the op's name and kind (how operands are picked and how the
result type follows), its numpy float64 reference (references.py), the element
types it takes, the domain needs of its operands, its kinks, how often the
generator picks it, and its test configurations (`cases`, built with the
helpers of cases.py). From it:

- test_ops_forward.py runs every case in each of its element types through both
  pipelines, test_ops_gradient.py checks every case's gradient against float64
  central differences (TABLE: every case of every op);
- programs.py generates random programs over every op (a sampler registered in
  `programs.SAMPLERS` under the op's name when its shapes or attributes are
  special; otherwise the kind's default) and interprets them with the
  references;
- the fuzzer takes its op vocabulary and families from `OPS` and `FAMILIES`.

Meta-tests (test_op_table.py, test_random_programs.py) fail while an op the
dialect registers has no entry, an entry names an op the dialect lacks, an op
with a gradient rule has no gradient case, or an entry's `gradient` disagrees
with the dialect's GradientOpInterface.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from relax_mlir_testing import references as ref
from relax_mlir_testing.cases import (
    BINARY_SHAPES,
    BOOL,
    F16,
    F32,
    F64,
    I32,
    I64,
    Input,
    OpCase,
    Shape,
    binary,
    both_branches,
    case,
    comparison,
    fixed,
    float_bits,
    indices,
    ints_full,
    layer_norm_case,
    nll,
    reduction,
    shape_id,
    shaped,
    small_ints,
    to_shapes,
    unary,
    with_zeros,
)
from relax_mlir_testing.cases import (
    FLOAT as FLOAT_T,
)
from relax_mlir_testing.cases import (
    NUMERIC as NUMERIC_T,
)

# Element types an op takes (MLIR names).
FLOAT = frozenset({"f16", "f32", "f64"})
INTS = frozenset({"i32", "i64"})
NUMERIC = FLOAT | INTS
ANY = NUMERIC | {"i1"}
_CASE_DTYPE = {"f32": F32, "f64": F64, "i32": I32, "i64": I64, "i1": BOOL}

# Kinds: how operands are picked by default and how the result type follows.
UNARY = "unary"        # (x) -> type of x
BINARY = "binary"      # (a, b) numpy broadcasting -> element type of a
COMPARE = "compare"    # (a, b) numpy broadcasting -> i1
SELECT = "select"      # (cond i1, a, b) broadcasting -> element type of a
REDUCE = "reduce"      # (x) {axis, keepdims}
SHAPED = "shaped"      # (x) -> the shape the sampler chose, passed to the reference as shape=
CREATE = "create"      # () -> the type the sampler chose, passed to the reference as shape=
CUSTOM = "custom"      # a sampler chooses everything; result type from the reference's value
CAST = "cast"          # (x) -> the element type the sampler chose (the reference gets dtype=)
TUPLE = "tuple"        # tuple construction and access
MARKER = "marker"      # checkpoint markers (identities)
CONTROL = "control"    # loops and conditionals (region ops; samplers build their bodies)

# Kinds whose ops compute no rounded arithmetic (their float results are exact).
EXACT_KINDS = frozenset({SHAPED, CREATE, TUPLE, MARKER, SELECT})
# Kinds tested as structure (test_gradient_behaviours.py, test_checkpoint.py), not by cases.
STRUCTURE_KINDS = frozenset({TUPLE, MARKER, CONTROL})

# Domain needs of an operand (programs.NEEDS has the predicate and the wrapper).
POSITIVE = "positive"        # float operand >= 0.1 (log)
BOUNDED = "bounded"          # float operand within [-3, 3] (exp)
SMALL = "small"              # float operand within [-1.2, 1.2] (tan)
DENOMINATOR = "denominator"  # float |x| >= 0.25; integer: nonzero unless x / 0 is allowed

# Relax ops that are the dataflow structure, not bindings: no entry (the
# generator writes them itself).
# Ops the generator does not draw: the dataflow structure it writes itself, and
# call_with_rules, which the frontend's custom_vjp/custom_jvp make with rule
# functions of their own (test_transformations.py, lit custom-rules.mlir).
# relax.yield and relax.condition end the bodies of the control-flow ops.
# relax.debug_print has no result (a side effect: test_debug_print.py).
# relax.all_reduce communicates across processes (MPI: test_distributed.py
# runs it on two ranks, lit data-parallel.mlir and collective-rules.mlir).
STRUCTURAL = frozenset({"dataflow", "output", "call_with_rules", "yield", "condition",
                        "debug_print", "all_reduce"})


@dataclass(frozen=True)
class Op:
    """One op of the dialect.

    name: the op is `relax.<name>`. family: its ODS file (ops/<Family>Ops.td). kind:
    one of the kinds above. ref: numpy float64 reference, called as
    ref(*operand_values, **attributes) (plus shape= for SHAPED and CREATE, dtype= for
    CAST: `reference_kwargs`). dtypes: element types its (data) operands may have.
    cases: its test configurations (cases.py), run in `dtypes` (but float16) unless a
    case names its own. gradient: it has a gradient rule (False: comparisons, creation
    from a shape). needs: a domain need per operand (None: any value). corner / jump:
    called like ref on float operands, the kinks where the op is continuous but not
    differentiable (corner) or where its value jumps (jump): either the signed
    distance d of the operands to a kink (zero is the kink; d > 0 is the side), or a
    pair (side, distance) of arrays when one sign bit cannot tell the sides apart
    (equal, truncation). exact: the op rounds nothing (default from the kind). weight:
    how often the generator picks it. grad_from: the operands whose values the result
    depends on differentiably (default all; zeros_like reads only a type). terms:
    called like ref, the number of terms summed into each result element, for the
    forward tolerance (default: operand elements per result element, right for
    reductions; cumsum and softmax sum along an axis of a same-size result).
    """

    name: str
    family: str
    kind: str
    ref: Callable[..., Any]
    dtypes: frozenset[str] = FLOAT
    cases: Sequence[OpCase] = ()
    gradient: bool = True
    needs: tuple[str | None, ...] = ()
    corner: Callable[..., Any] | None = None
    jump: Callable[..., Any] | None = None
    exact: bool | None = None
    weight: float = 1.0
    grad_from: tuple[int, ...] | None = None
    terms: Callable[..., float] | None = None
    result: str | None = None  # a fixed result element type (argmax: "i64")
    bound: tuple[OpCase, ...] = field(default=(), compare=False, repr=False)

    def __post_init__(self) -> None:
        run = tuple(_CASE_DTYPE[d] for d in ("f32", "f64", "i32", "i64", "i1")
                    if d in self.dtypes)
        object.__setattr__(self, "bound", tuple(c.bind(self, run) for c in self.cases))

    @property
    def is_exact(self) -> bool:
        return self.exact if self.exact is not None else self.kind in EXACT_KINDS

    def reference_kwargs(self, attrs: Mapping[str, Any], shape: Sequence[int] | None,
                         dtype: str | None) -> dict[str, Any]:
        """The keyword arguments of the reference (and kink functions): the present
        attributes, and the result shape or element type where the kind takes it."""
        kwargs = {k: v for k, v in attrs.items() if v is not None}
        if self.kind in (SHAPED, CREATE):
            kwargs["shape"] = tuple(shape) if shape is not None else None
        elif self.kind == CAST:
            kwargs["dtype"] = dtype
        return kwargs


# Families, as in compiler/include/relax-mlir/Dialect/Relax/IR/ops/.
ELEMENTWISE, COMPARISON, REDUCTION, LINALG, NN, SHAPE, CREATION, STRUCTURE, CONTROL_FLOW = (
    "Elementwise", "Comparison", "Reduction", "LinearAlgebra", "NeuralNetwork", "Shape",
    "Creation", "Structure", "ControlFlow")


def _run_body(*values: Any, body: Any) -> Any:
    """The reference of a control-flow op: its sampled body (programs.py) run
    on the operand values."""
    return body.evaluate(values)


def _branch_jump(*values: Any, body: Any) -> Any:
    """Where an if's predicate changes sides: sum(c) = 0 (other ops: none)."""
    if body.op != "if":
        return np.inf
    return np.float64(body.predicate(values[0]))


def _elementwise(name: str, kind: str, reference: Callable[..., Any],
                 dtypes: frozenset[str] = FLOAT, **kw: Any) -> Op:
    return Op(name, ELEMENTWISE, kind, reference, dtypes, **kw)


def _comparison(name: str, fn: Callable[..., np.ndarray],
                shapes: Sequence[tuple[Shape, Shape]] | None = None) -> Op:
    return Op(name, COMPARISON, COMPARE, fn, ANY, gradient=False,
              jump=ref.compare_jump(fn), weight=0.6 if name == "greater" else 0.4,
              cases=comparison(*(() if shapes is None else (shapes,))))


POOL_CONFIGS: list[tuple[Shape, dict[str, Any]]] = [
    ((2, 3, 6, 6), {"pool_size": [2, 2]}),
    ((1, 2, 7, 6), {"pool_size": [3, 3], "strides": [2, 2], "padding": [1, 1, 1, 1]}),
    ((1, 2, 7, 6), {"pool_size": [3, 2], "strides": [2, 2], "padding": [1, 1, 1, 0],
                    "ceil_mode": True}),
    ((1, 2, 6, 7), {"pool_size": [2, 2], "strides": [1, 2], "dilation": [2, 1]}),
]


def _pool_cases(extra: Sequence[OpCase] = ()) -> list[OpCase]:
    return [*[case([Input("x", xs)], kw, f16=kw == {"pool_size": [2, 2]},
                   tol={F16: (1e-2, 1e-2)}) for xs, kw in POOL_CONFIGS], *extra]


_SOFTMAX_CASES = [case([Input("x", s, (-3, 3))], {"axis": axis},
                       f16=s == (3, 4) and axis is None)
                  for s, axis in [((5,), None), ((3, 4), None), ((3, 4), 0), ((2, 3, 4), 1),
                                  ((2, 3, 4), -3)]]
_TRIANGLE_CASES = shaped([([s], {"k": k}) for s, k in [((4, 5), None), ((2, 3, 4), 1),
                                                        ((5, 3), -1)]])
_LIKE_SHAPES = [(3, 4), (), (2, 1, 3)]

_OPS = [
    # --- elementwise unary --------------------------------------------------
    _elementwise("negative", UNARY, np.negative, NUMERIC, exact=True,
                 cases=unary((-5, 5))),
    _elementwise("exp", UNARY, np.exp, needs=(BOUNDED,), cases=unary((-3, 3))),
    _elementwise("log", UNARY, np.log, needs=(POSITIVE,), cases=unary((0.05, 5))),
    _elementwise("sqrt", UNARY, np.sqrt, needs=(POSITIVE,), weight=0.5, cases=unary((0.05, 5))),
    _elementwise("rsqrt", UNARY, ref.rsqrt, needs=(POSITIVE,), weight=0.5, cases=unary((0.1, 5))),
    _elementwise("sin", UNARY, np.sin, weight=0.5, cases=unary((-4, 4))),
    _elementwise("cos", UNARY, np.cos, weight=0.5, cases=unary((-4, 4))),
    _elementwise("tan", UNARY, np.tan, needs=(SMALL,), weight=0.5, cases=unary((-1.2, 1.2))),
    _elementwise("tanh", UNARY, np.tanh, cases=unary((-4, 4))),
    _elementwise("sigmoid", UNARY, ref.sigmoid, cases=unary((-6, 6))),
    _elementwise("abs", UNARY, np.abs, NUMERIC, corner=lambda x: x, exact=True, weight=0.6,
                 cases=unary((-5, 5), kinks=(0.0,))),
    _elementwise("square", UNARY, np.square, NUMERIC, weight=0.6, cases=unary((-5, 5))),
    _elementwise("erf", UNARY, ref.erf, weight=0.5, cases=unary((-3, 3))),
    _elementwise("relu", UNARY, ref.relu, NUMERIC, corner=lambda x: x, exact=True,
                 cases=unary((-5, 5), kinks=(0.0,))),
    _elementwise("silu", UNARY, ref.silu, weight=0.5, cases=unary((-6, 6))),
    _elementwise("gelu", UNARY, ref.gelu, weight=0.5,
                 cases=unary((-4, 4), note="exact (erf) form")),
    _elementwise("softplus", UNARY, ref.softplus, weight=0.5, cases=unary((-6, 6))),
    _elementwise("log1p", UNARY, np.log1p, needs=(POSITIVE,), weight=0.5,
                 cases=unary((-0.5, 5))),
    _elementwise("expm1", UNARY, np.expm1, weight=0.5, cases=[
        *unary((-3, 3)),
        case([Input("x", (3, 4), (-1e-6, 1e-6))], label="tiny", tol={F32: (1e-6, 0.0)},
             note="accurate where exp(x) rounds to 1")]),
    _elementwise("leaky_relu", UNARY, ref.leaky_relu, corner=lambda x, alpha=0.01: x,
                 weight=0.6, cases=[
                     *unary((-5, 5), kinks=(0.0,), note="default alpha"),
                     *unary((-5, 5), {"alpha": 0.2}, shapes=[(3, 4)], kinks=(0.0,))]),
    _elementwise("clip", UNARY, ref.clip, NUMERIC, corner=ref.clip_corners, exact=True,
                 weight=0.8, cases=[
                     *unary((-9, 9), {"min": -3.0, "max": 4.0}, kinks=(-3.0, 4.0),
                            note="integral bounds: ints too"),
                     *unary((-2, 2), {"min": -0.5, "max": 1.25}, shapes=[(2, 3, 4)],
                            kinks=(-0.5, 1.25), dtypes=FLOAT_T)]),
    # astype: one case per result type; `dtypes` are the source element types.
    _elementwise("astype", CAST, ref.astype, ANY, jump=ref.astype_jump, exact=False, weight=2.0,
                 cases=[
        *unary((-9, 9), shapes=[(), (3, 4)], f16=False, dtypes=(F64, F16, I32, I64, BOOL),
               result=F32, label="to-f32"),
        *unary((-9, 9), shapes=[(3, 4)], f16=False, dtypes=(F32, F16, I32, BOOL), result=F64,
               label="to-f64", grad_dtype=F32, grad_tol=(1e-6, 1e-7)),
        *unary((-9, 9), shapes=[(3, 4)], f16=False, dtypes=(F32, F64, I32), result=F16,
               label="to-f16", grad=(), note="cast gradients: the to-f32/to-f64 cases"),
        *unary((-9.9, 9.9), shapes=[(3, 4)], f16=False, dtypes=(F32, F64, I64, BOOL),
               result=I32, label="to-i32", note="float -> int truncates toward zero"),
        *unary((-9.9, 9.9), shapes=[(3, 4)], f16=False, dtypes=(F32, I32, BOOL), result=I64,
               label="to-i64"),
        *unary(small_ints, shapes=[(), (3, 4)], f16=False, dtypes=(F32, F64, I32, I64),
               result=BOOL, label="to-i1", note="x != 0")]),

    # --- elementwise binary with broadcasting -------------------------------
    _elementwise("add", BINARY, np.add, NUMERIC, weight=1.5, cases=binary()),
    _elementwise("subtract", BINARY, np.subtract, NUMERIC, cases=binary()),
    _elementwise("multiply", BINARY, np.multiply, NUMERIC, weight=1.5, cases=binary()),
    _elementwise("divide", BINARY, ref.divide, NUMERIC, needs=(None, DENOMINATOR), cases=[
        *binary((-3, 3), (-3, 3, 0.25), dtypes=FLOAT_T),
        # Integer division of positive operands (truncation and flooring agree).
        *binary((0, 40), (1, 7), dtypes=(I32, I64), label="int")]),
    _elementwise("power", BINARY, np.power, needs=(POSITIVE, BOUNDED), weight=0.7, cases=[
        *binary((0.5, 2.5), (-2, 2), note="a > 0 for the gradient wrt b"),
        *binary(fixed([[-2.0, -1.5, 3.0], [0.5, -0.5, 2.0]]),
                fixed([[3.0, 2.0, -1.0], [-2.0, 0.0, 4.0]]), [((2, 3), (2, 3))], grad=(),
                label="negative-base-integral-exponent")]),
    *[_elementwise(name, BINARY, fn, NUMERIC, corner=np.subtract, exact=True, weight=0.7, cases=[
        *binary(note="uniform floats: no ties in gradient cases"),
        *binary(small_ints, small_ints, [((3, 4), (4,))], f16=False, grad=(), label="ties")])
      for name, fn in (("maximum", np.maximum), ("minimum", np.minimum))],
    _elementwise("where", SELECT, np.where, ANY, cases=[
        case([Input("cond", sc, both_branches, BOOL), Input("a", sa, (-9, 9)),
              Input("b", sb, (-9, 9))], f16=k == 0)
        for k, (sc, sa, sb) in enumerate([
            ((3, 4), (3, 4), (3, 4)),
            ((3, 4), (4,), ()),
            ((3, 1), (1, 4), (3, 4)),
            ((4,), (3, 4), (3, 1)),
            ((), (2, 3), (2, 3)),
            ((2, 1, 3), (4, 1), (3,)),
        ])]),

    # --- comparisons (i1 results) -------------------------------------------
    _comparison("equal", np.equal),
    _comparison("not_equal", np.not_equal),
    _comparison("greater", np.greater, BINARY_SHAPES[:7]),
    _comparison("greater_equal", np.greater_equal),
    _comparison("less", np.less),
    _comparison("less_equal", np.less_equal),

    # --- bitwise ops and shifts (integers, and/or/xor also bool; no gradient) -------
    *[_elementwise(name, BINARY, fn, INTS | ({"i1"} if bools else frozenset()),
                   gradient=False, exact=True, weight=0.3, cases=[
                       *binary(ints_full, ints_full, shapes=BINARY_SHAPES[:4], f16=False,
                               dtypes=(I32, I64)),
                       *([case([Input("a", (2, 3), small_ints, BOOL),
                                Input("b", (3,), small_ints, BOOL)], dtypes=(BOOL,),
                               label="bool")] if bools else [])])
      for name, fn, bools in [("bitwise_and", np.bitwise_and, True),
                              ("bitwise_or", np.bitwise_or, True),
                              ("bitwise_xor", np.bitwise_xor, True)]],
    *[_elementwise(name, BINARY, fn, INTS, gradient=False, exact=True, weight=0.3, cases=[
        *binary(ints_full, (0, 31), shapes=BINARY_SHAPES[:4], f16=False, dtypes=(I32, I64)),
        case([Input("a", (3, 4), ints_full), Input("b", (4,), (-3, 70))], dtypes=(I32, I64),
             label="out-of-range", note="amounts < 0 or >= the width: JAX's fill")])
      for name, fn in [("left_shift", ref.left_shift), ("right_shift", ref.right_shift),
                       ("shift_right_logical", ref.shift_right_logical)]],
    # The generator draws float operands (its sampler: integers' bits as floats
    # would be NaNs and subnormals); the cases also go the other way.
    Op("bitcast", ELEMENTWISE, CAST, ref.bitcast, frozenset({"f32", "f64", "i32", "i64"}),
       gradient=False, exact=True, weight=0.4, cases=[
           *[case([Input("x", (3, 4), (-9, 9))], dtypes=(src,), result=dst,
                  label=f"to-{np.dtype(dst).name}")
             for src, dst in [(F32, I32), (F64, I64)]],
           *[case([Input("x", (2, 3), float_bits)], dtypes=(src,), result=dst,
                  label=f"to-{np.dtype(dst).name}", note="bit patterns of ordinary floats")
             for src, dst in [(I32, F32), (I64, F64)]]]),

    # --- reductions (variance: population; max/min: ties are corners) ------------
    Op("sum", REDUCTION, REDUCE, ref.reduction(np.sum), NUMERIC, cases=reduction()),
    Op("mean", REDUCTION, REDUCE, ref.reduction(np.mean), cases=reduction()),
    Op("variance", REDUCTION, REDUCE, ref.reduction(np.var), weight=0.6,
       cases=reduction(note="population variance (ddof 0)")),
    Op("max", REDUCTION, REDUCE, ref.reduction(np.max), NUMERIC,
       corner=ref.extremum_corner(True), exact=True, weight=0.6,
       cases=reduction(note="uniform floats: no ties in gradient cases")),
    Op("min", REDUCTION, REDUCE, ref.reduction(np.min), NUMERIC,
       corner=ref.extremum_corner(False), exact=True, weight=0.6, cases=reduction()),
    # Values in -2..2 for integers so that a product of 24 fits in int32.
    Op("prod", REDUCTION, REDUCE, ref.reduction(np.prod), NUMERIC, weight=0.6, cases=[
        *reduction((-1.5, 1.5)),
        case([Input("x", (3, 4), with_zeros((1, 2), (2, 0), (2, 3)))], {"axis": [1]},
             label="zeros", note="row 0 no zero, row 1 one zero, row 2 two zeros"),
        case([Input("x", (2, 3), with_zeros((1, 1)))], dtypes=FLOAT_T, label="one-zero"),
        case([Input("x", (2, 3), with_zeros((0, 1), (1, 2)))], {"keepdims": True},
             dtypes=FLOAT_T, label="two-zeros")]),
    *[Op(name, REDUCTION, CUSTOM, fn, NUMERIC, gradient=False, exact=True, weight=0.3,
         result="i64", cases=[
        case([Input("x", s, values)], attrs, result=I64, label=label)
        for s, attrs, values, label in [
            ((5,), {"axis": 0}, (-9, 9), ""),
            ((3, 4), {"axis": 1}, (-9, 9), ""),
            ((3, 4), {"axis": -2, "keepdims": True}, (-9, 9), ""),
            ((2, 3, 4), {}, (-9, 9), ""),
            ((2, 3), {"keepdims": True}, (-9, 9), ""),
            ((3, 5), {"axis": 1}, small_ints, "ties"),
        ]]) for name, fn in [("argmax", ref.argmax), ("argmin", ref.argmin)]],
    Op("cumsum", REDUCTION, CUSTOM, ref.cumsum, NUMERIC, weight=0.6, terms=ref.axis_terms,
       cases=[case([Input("x", s, (-9, 9))], {"axis": axis}, f16=k == 1)
              for k, (s, axis) in enumerate([((5,), 0), ((3, 4), 1), ((3, 4), -2),
                                             ((2, 3, 4), 1), ((2, 3, 4), -1)])]),

    # --- linear algebra ------------------------------------------------------
    Op("matmul", LINALG, CUSTOM, np.matmul, NUMERIC, weight=1.5, cases=[
        *binary((-5, 5), (-5, 5), shapes=[
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
        case([Input("a", (4, 3), (-2, 2)), Input("b", (3, 5), (-2, 2))], dtypes=(F16,),
             label="f16", tol={F16: (2e-3, 2e-3)})]),

    # --- neural network ------------------------------------------------------
    Op("softmax", NN, UNARY, ref.softmax, weight=0.5, terms=ref.axis_terms,
       cases=_SOFTMAX_CASES),
    Op("log_softmax", NN, UNARY, ref.log_softmax, weight=0.5, terms=ref.axis_terms,
       cases=_SOFTMAX_CASES),
    Op("cross_entropy_with_logits", NN, CUSTOM, ref.cross_entropy_with_logits, weight=0.4,
       cases=[case([Input("pred", s, (-3, 3)), Input("labels", s, (0, 1))])
              for s in [(4, 3), (5,), (2, 3, 4)]]),
    Op("nll_loss", NN, CUSTOM, ref.nll_loss, weight=0.6, grad_from=(0, 2), cases=[
        nll((4, 3), (4,)),
        nll((4, 3), (4,), "mean", ignored=(-100,)),
        nll((4, 3), (4,), "mean", weighted=True, ignored=(-100,)),
        nll((4, 3), (4,), "sum", weighted=True),
        nll((4, 3), (4,), "none", weighted=True, ignored=(-100,)),
        nll((5, 4), (5,), "mean", weighted=True, ignore_index=1, ignored=(1,),
            targets_dtype=I32),
        nll((3,), ()),
        nll((3,), (), "sum", weighted=True),
        nll((2, 3, 4), (2, 4), "mean", weighted=True, ignored=(-100,)),
        nll((2, 3, 4), (2, 4), "none", targets_dtype=I32)]),
    Op("layer_norm", NN, CUSTOM, ref.layer_norm, weight=0.5, terms=ref.layer_norm_terms, cases=[
        layer_norm_case((3, 4), [1], f16=True),
        layer_norm_case((2, 3, 4), [1, 2]),
        layer_norm_case((2, 3, 4), [-1], epsilon=1e-3),
        layer_norm_case((2, 3, 4), [2, 0])]),
    # Convolution and pooling (NCHW; max_pool2d: ties in a window are corners).
    Op("conv2d", NN, CUSTOM, ref.conv2d, weight=0.9, terms=ref.conv2d_terms, cases=[
        case([Input("x", xs, (-1, 1)), Input("w", ws, (-1, 1))], kw, f16=not kw,
             tol={F16: (1e-2, 1e-2)})
        for xs, ws, kw in [
            ((2, 3, 6, 5), (4, 3, 3, 3), {}),
            ((1, 2, 7, 7), (3, 2, 3, 2), {"strides": [2, 3], "padding": [1, 0, 2, 1]}),
            ((2, 2, 8, 6), (2, 2, 2, 3), {"dilation": [2, 1], "padding": [1, 1, 1, 1]}),
            ((1, 4, 5, 6), (6, 2, 3, 3), {"groups": 2, "strides": [1, 2],
                                          "padding": [1, 1, 0, 0]}),
            ((2, 3, 4, 4), (3, 1, 2, 2), {"groups": 3}),
        ]]),
    Op("conv2d_patches", NN, CUSTOM, ref.conv2d_patches, exact=True, weight=0.4, cases=[
        case([Input("x", xs)], kw)
        for xs, kw in [
            ((2, 3, 6, 5), {"kernel_size": [3, 3]}),
            ((1, 2, 7, 7), {"kernel_size": [3, 2], "strides": [2, 3], "padding": [1, 0, 2, 1]}),
            ((2, 2, 8, 6), {"kernel_size": [2, 3], "dilation": [2, 1],
                            "padding": [1, 1, 1, 1]}),
            ((1, 1, 5, 5), {"kernel_size": [5, 5], "padding": [2, 2, 2, 2]}),
        ]]),
    Op("max_pool2d", NN, CUSTOM, ref.max_pool2d, corner=ref.max_pool2d_corner, exact=True,
       weight=0.6, cases=_pool_cases()),
    Op("avg_pool2d", NN, CUSTOM, ref.avg_pool2d, weight=0.6, terms=ref.pool_terms,
       cases=_pool_cases([
           case([Input("x", (1, 2, 7, 6))],
                {"pool_size": [3, 3], "strides": [2, 2], "padding": [1, 1, 1, 1],
                 "ceil_mode": ceil, "count_include_pad": True}) for ceil in (False, True)])),

    # --- shape manipulation (exact: they move or fill values) ------------------
    Op("permute_dims", SHAPE, CUSTOM, ref.permute_dims, ANY, exact=True, cases=shaped([
        ([s], {"axes": axes}) for s, axes in [
            ((3, 4), None), ((2, 3, 4), None), ((5,), None), ((2, 3, 4), [1, 0, 2]),
            ((2, 3, 4), [2, 0, 1]), ((2, 3, 4), [0, 1, 2]), ((2, 3, 4, 5), [3, 1, 0, 2]),
            ((3, 4), [1, 0]), ((2, 3, 4, 2), [3, 1, 0, 2])]])),
    Op("reshape", SHAPE, SHAPED, np.reshape, ANY, cases=to_shapes(
        [((2, 6), (3, 4)), ((2, 3, 4), (24,)), ((6,), (1, 2, 3)), ((4, 3), (2, 2, 3)),
         ((2, 3, 4), (4, 6)), ((1,), ()), ((), (1, 1))])),
    Op("broadcast_to", SHAPE, SHAPED, np.broadcast_to, ANY, cases=to_shapes(
        [((3,), (4, 3)), ((1, 3), (2, 4, 3)), ((4, 1), (4, 3)), ((), (2, 3)),
         ((2, 1, 3), (2, 5, 3)), ((3,), (3,)), ((1,), (2, 2))])),
    Op("collapse_sum_to", SHAPE, SHAPED, ref.collapse_sum_to, NUMERIC, exact=False,
       cases=to_shapes(
           [((4, 3), (3,)), ((4, 3), (1, 3)), ((4, 3), (4, 1)), ((2, 4, 3), (4, 1)),
            ((2, 3), ()), ((2, 3), (2, 3)), ((2, 1, 3), (1, 3)), ((3, 4, 5), (3, 1, 5)),
            ((2, 3, 4), (1, 1, 1))], values=(-9, 9))),
    Op("expand_dims", SHAPE, CUSTOM, ref.expand_dims, ANY, exact=True, weight=0.4,
       cases=shaped([([s], {"axis": a}) for s, a in [((3, 4), [0]), ((3, 4), [-1]),
                                                      ((3, 4), [0, 3]), ((), [0]),
                                                      ((2, 3), [1, -1])]])),
    Op("squeeze", SHAPE, CUSTOM, ref.squeeze, ANY, exact=True, weight=0.4,
       cases=shaped([([s], {"axis": a}) for s, a in [((1, 3, 1, 4), None), ((1, 3, 1, 4), [2]),
                                                      ((1, 3, 1, 4), [-4, 2]), ((1,), None),
                                                      ((3, 4), None)]])),
    Op("flatten", SHAPE, CUSTOM, np.ravel, ANY, exact=True, weight=0.3,
       cases=shaped([([s], None) for s in [(2, 3, 4), (4, 1, 3), (5,), ()]])),
    Op("concat", SHAPE, CUSTOM, ref.concat, ANY, exact=True, weight=0.5,
       cases=shaped([(shapes, {"axis": a}) for shapes, a in [
           ([(2, 3), (4, 3)], 0), ([(2, 3), (2, 1), (2, 4)], 1), ([(2, 3, 4), (2, 3, 4)], -1),
           ([(3,), (2,)], 0)]], names=("x1",))),
    Op("split", SHAPE, CUSTOM, ref.split, ANY, exact=True, weight=0.6, cases=[
        case([Input("x", s)], {"indices_or_sections": ios, "axis": a},
             label="points" if isinstance(ios, list) else "sections")
        for s, ios, a in [((6,), 3, 0), ((4, 6), [1, 4], 1), ((2, 6, 3), 2, -2),
                          ((5, 4), [2], 0), ((7, 2), [-5, 3, 9], 0), ((6,), [0, 6], 0)]]),
    Op("take", SHAPE, CUSTOM, ref.take, ANY, exact=True, weight=0.6, cases=[
        case([Input("x", xs), Input("indices", ish, indices(n), it)], {"axis": axis})
        for xs, ish, axis, n, it in [
            ((5,), (4,), 0, 5, I64),
            ((3, 4), (5,), 1, 4, I64),
            ((3, 4), (2, 3), 0, 3, I32),
            ((2, 3, 4), (), -1, 4, I64),
            ((3, 4), (2, 2), None, 12, I64),
        ]]),
    Op("scatter_add", SHAPE, CUSTOM, ref.scatter_add, NUMERIC, weight=0.4, grad_from=(0, 2),
       cases=[
           case([Input("x", xs), Input("indices", ish, indices(n), it), Input("updates", us)],
                {"axis": axis})
           for xs, ish, us, axis, n, it in [
               ((5,), (4,), (4,), 0, 5, I64),
               ((3, 4), (5,), (3, 5), 1, 4, I64),
               ((3, 4), (2, 3), (2, 3, 4), 0, 3, I32),
               ((2, 3, 4), (), (2, 3), -1, 4, I64),
               ((3, 4), (2, 2), (2, 2), None, 12, I64),
           ]]),
    Op("scatter", SHAPE, CUSTOM, ref.scatter, NUMERIC, weight=0.4, grad_from=(0, 2),
       cases=[
           case([Input("x", xs, xv), Input("indices", ish, indices(n), it),
                 Input("updates", us, uv)], {"axis": axis, "reduction": r}, label=label)
           for xs, ish, us, axis, n, it, r, xv, uv, label in [
               ((5,), (4,), (4,), 0, 5, I64, "set", (-2, 2), (-2, 2), ""),
               ((3, 4), (5,), (3, 5), 1, 4, I64, "set", (-2, 2), (-2, 2), ""),
               ((3, 4), (2, 2), (2, 2), None, 12, I32, "set", (-2, 2), (-2, 2), ""),
               ((4, 3), (5,), (5, 3), 0, 4, I64, "multiply", (-2, 2), (-1.5, 1.5), ""),
               ((2, 3, 4), (2, 2), (2, 2, 2, 4), 1, 3, I64, "multiply", (-2, 2),
                with_zeros((0, 0, 0, 1), (0, 1, 0, 1), (1, 0, 1, 2)), "zeros"),
               ((5, 3), (4,), (4, 3), 0, 5, I64, "max", (-9, 9), (-9, 9), ""),
               ((3, 5), (2, 3), (3, 2, 3), -1, 5, I64, "min", (-9, 9), (-9, 9), ""),
               ((4,), (3,), (3,), 0, 4, I64, "max", small_ints, small_ints, "ties"),
           ]]),
    Op("strided_slice", SHAPE, CUSTOM, ref.strided_slice, ANY, exact=True, weight=0.6,
       cases=shaped([([s], {"axes": ax, "begin": b, "end": e, "strides": st})
                     for s, ax, b, e, st in [
                         ((6,), [0], [1], [5], [2]),
                         ((4, 5), [1], [-4], [100], None),
                         ((4, 5), [0, 1], [3, 4], [-5, 0], [-1, -2]),
                         ((2, 3, 4), [2], [1], [3], None),
                         ((5,), [0], [-100], [-1], [1]),
                         ((4, 6), [1, 0], [5, 1], [-7, 3], [-2, 1]),
                         ((4, 3), [0], [0], [4], [2 ** 63 - 1]),
                         ((4, 3), [0], [3], [-100], [-2 ** 63]),
                     ]])),
    Op("tile", SHAPE, CUSTOM, ref.tile, ANY, exact=True, weight=0.4,
       cases=shaped([([s], {"repeats": r}) for s, r in [((3,), [2]), ((2, 3), [2, 1]),
                                                          ((2, 3), [3]), ((3,), [2, 2]),
                                                          ((), [3])]])),
    Op("pad", SHAPE, CUSTOM, ref.pad, ANY, exact=True, weight=0.4, cases=[
        *shaped([([s], {"pad_width": pw}) for s, pw in [
            ((3,), [1, 2]), ((2, 3), [0, 1, 2, 0]), ((2, 3, 4), [1, 0, 0, 0, 0, 2])]]),
        case([Input("x", (2, 3))], {"pad_width": [1, 1, 0, 2], "pad_value": -2.0},
             dtypes=NUMERIC_T),
        case([Input("x", (3, 2))], {"pad_width": [2, 0, 1, 1], "pad_value": 1.5},
             dtypes=FLOAT_T, note="a fractional pad value: floats only")]),
    Op("triu", SHAPE, CUSTOM, ref.triu, ANY, exact=True, weight=0.3, cases=_TRIANGLE_CASES),
    Op("tril", SHAPE, CUSTOM, ref.tril, ANY, exact=True, weight=0.3, cases=_TRIANGLE_CASES),

    # --- creation ------------------------------------------------------------
    *[Op(name, CREATION, CREATE, fn, ANY, gradient=False, weight=0.25,
         cases=[case([], shape=s, label=shape_id(s)) for s in [(), (3,), (2, 3), (2, 1, 4)]])
      for name, fn in (("zeros", np.zeros), ("ones", np.ones))],
    # Creation from a 0-d value or another tensor's type.
    Op("full", CREATION, CREATE, ref.full, ANY, weight=0.3,
       cases=[case([Input("value", ())], shape=s, label=f"to-{shape_id(s)}")
              for s in [(), (3,), (2, 1, 4)]]),
    *[Op(name, CREATION, UNARY, fn, ANY, exact=True, weight=0.3, grad_from=(),
         cases=[case([Input("x", s)]) for s in _LIKE_SHAPES])
      for name, fn in (("zeros_like", np.zeros_like), ("ones_like", np.ones_like))],
    Op("full_like", CREATION, CUSTOM, ref.full_like, ANY, exact=True, weight=0.3, grad_from=(1,),
       cases=[case([Input("x", s), Input("value", ())]) for s in _LIKE_SHAPES]),

    # --- structure (tested by test_gradient_behaviours.py and test_checkpoint.py) ----
    Op("tuple", STRUCTURE, TUPLE, lambda *fields: tuple(fields), ANY, weight=0.7),
    Op("tuple_get_item", STRUCTURE, TUPLE, lambda t, index: t[index], ANY, weight=0.7),
    Op("start_checkpoint", STRUCTURE, MARKER, ref.identity, ANY, weight=1.5),
    Op("end_checkpoint", STRUCTURE, MARKER, ref.identity, ANY, weight=1.5),
    # A derivative barrier: the identity, with no derivative (random programs'
    # finite differences hold its value fixed: programs.dependents).
    Op("stop_gradient", STRUCTURE, UNARY, ref.identity, ANY, gradient=False, exact=True,
       weight=0.3, cases=unary()),

    # --- control flow (tested by test_control_flow.py; the generator's samplers
    # in programs.py build small bodies and evaluate them with the references) ---
    *[Op(name, CONTROL_FLOW, CONTROL, _run_body, FLOAT, weight=0.35, jump=_branch_jump)
      for name in ("scan", "while", "if", "switch")],
]

OPS: dict[str, Op] = {op.name: op for op in _OPS}

# The op names of each family (the fuzzer swaps an op for one of its family).
FAMILIES: dict[str, list[str]] = {}
for _op in _OPS:
    FAMILIES.setdefault(_op.family, []).append(_op.name)


def plain_unary(op: Op) -> bool:
    """`relax.<op> %x : type` is valid: one operand, the result of its type, and a
    case that sets no attribute."""
    return op.kind == UNARY and any(
        len(c.inputs) == 1 and all(v is None for v in c.attrs.values()) for c in op.cases)


# Every case of every op, bound to its op.
TABLE: list[OpCase] = [c for op in _OPS for c in op.bound]


def cases_of(op: str) -> list[OpCase]:
    return list(OPS[op].bound)


def find(op: str, *shapes: Shape, dtype: Any = F64) -> OpCase:
    """The case of `op` whose inputs have `shapes` and that runs in `dtype`."""
    found = [c for c in cases_of(op)
             if tuple(i.shape for i in c.inputs) == shapes and dtype in c.run_dtypes
             and not c.label]
    assert len(found) == 1, (op, shapes, [c.id for c in found])
    return found[0]


def _check_ids() -> None:
    seen: dict[str, OpCase] = {}
    for c in TABLE:
        assert c.id not in seen, f"two cases of the op table have the id {c.id}: add a label"
        seen[c.id] = c


_check_ids()
