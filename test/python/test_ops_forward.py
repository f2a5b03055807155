"""Forward semantics of every relax op against numpy.

Each case compiles a one-op function `main(inputs...) -> relax.<op>(inputs...)`
(written in the generic op form of the interchange contract) and compares the
JIT-executed result with numpy over several shapes and element types.
"""

from __future__ import annotations

from typing import Any, Callable, Optional

import numpy as np
import pytest

import relax_testing as rt
from relax_testing import FLOAT_DTYPES, NUMERIC_DTYPES

ALL_DTYPES = NUMERIC_DTYPES + (np.bool_,)


def dtype_id(dtype: Any) -> str:
    return rt.element_type(dtype)


def shape_id(shape: Any) -> str:
    if shape is None:
        return "none"
    return "x".join(str(d) for d in shape) if len(shape) else "scalar"


def assert_matches(actual: Any, expected: np.ndarray, dtype: Any) -> None:
    """Same shape and dtype as `expected`, values exact for ints/bools, close for floats."""
    assert isinstance(actual, np.ndarray), f"expected an ndarray, got {type(actual).__name__}"
    assert actual.dtype == np.dtype(dtype), (actual.dtype, np.dtype(dtype))
    assert actual.shape == expected.shape, (actual.shape, expected.shape)
    if np.dtype(dtype) == np.float32:
        np.testing.assert_allclose(actual, expected.astype(np.float64), rtol=1e-5, atol=1e-6)
    elif np.dtype(dtype) == np.float64:
        np.testing.assert_allclose(actual, expected, rtol=1e-12, atol=1e-13)
    else:
        np.testing.assert_array_equal(actual, expected.astype(dtype))


def run_op(op: str, inputs: dict[str, np.ndarray], expected: np.ndarray, result_dtype: Any,
           attrs: Optional[dict[str, Any]] = None) -> Any:
    """Compiles `main(inputs) = relax.<op>(inputs) {attrs}` and runs it on `inputs`."""
    text = rt.op_function(op, rt.params_of(inputs), expected.shape, result_dtype, attrs)
    exe = rt.compile_text(text)
    copies = {k: v.copy() for k, v in inputs.items()}
    out = exe["main"](*inputs.values())
    for k in inputs:
        np.testing.assert_array_equal(inputs[k], copies[k], err_msg=f"input {k} was modified")
    return out


def reference(fn: Callable[..., np.ndarray], *args: np.ndarray) -> np.ndarray:
    """Evaluates a numpy reference in float64 for float inputs (exact for ints)."""
    promoted = [a.astype(np.float64) if np.issubdtype(a.dtype, np.floating) else a for a in args]
    return np.asarray(fn(*promoted))


# ----------------------------------------------------------------------------
# Elementwise unary
# ----------------------------------------------------------------------------

UNARY_SHAPES = [(), (5,), (3, 4), (2, 3, 4)]

UNARY = {
    # op: (reference, element types, input range)
    "negative": (np.negative, NUMERIC_DTYPES, (-5, 5)),
    "exp": (np.exp, FLOAT_DTYPES, (-3, 3)),
    "log": (np.log, FLOAT_DTYPES, (0.05, 5)),
    "tanh": (np.tanh, FLOAT_DTYPES, (-4, 4)),
    "sigmoid": (rt.sigmoid, FLOAT_DTYPES, (-6, 6)),
    "relu": (lambda x: np.maximum(x, 0), NUMERIC_DTYPES, (-5, 5)),
}

UNARY_CASES = [pytest.param(op, shape, dt, id=f"{op}-{shape_id(shape)}-{dtype_id(dt)}")
               for op, (_, dts, _) in UNARY.items() for shape in UNARY_SHAPES for dt in dts]


@pytest.mark.parametrize("op,shape,dtype", UNARY_CASES)
def test_unary(op: str, shape: tuple, dtype: Any) -> None:
    fn, _, (low, high) = UNARY[op]
    x = rt.random_array(rt.rng(op, shape, dtype), shape, dtype, low, high)
    expected = reference(fn, x)
    out = run_op(op, {"x": x}, expected, dtype)
    assert_matches(out, expected, dtype)


def test_relu_exact_values() -> None:
    x = np.array([-2.0, -0.0, 0.0, 1e-30, 3.5, -1e-30], dtype=np.float64)
    out = run_op("relu", {"x": x}, np.maximum(x, 0), np.float64)
    np.testing.assert_array_equal(out, [0.0, 0.0, 0.0, 1e-30, 3.5, 0.0])


def test_sigmoid_saturates_without_nan() -> None:
    x = np.array([-800.0, -50.0, 0.0, 50.0, 800.0], dtype=np.float64)
    out = run_op("sigmoid", {"x": x}, rt.sigmoid(x), np.float64)
    assert np.all(np.isfinite(out)), out
    np.testing.assert_allclose(out, rt.sigmoid(x), rtol=1e-12, atol=1e-300)


# ----------------------------------------------------------------------------
# Elementwise binary with broadcasting
# ----------------------------------------------------------------------------

BINARY_SHAPES = [
    ((3, 4), (3, 4)),
    ((3, 4), (4,)),
    ((4,), (3, 4)),
    ((2, 1, 4), (3, 1)),
    ((), (2, 3)),
    ((3, 1), ()),
    ((3, 1), (1, 4)),
]

BINARY = {
    "add": np.add,
    "subtract": np.subtract,
    "multiply": np.multiply,
    "divide": np.divide,
}

BINARY_CASES = [
    pytest.param(op, sa, sb, dt, id=f"{op}-{shape_id(sa)}-{shape_id(sb)}-{dtype_id(dt)}")
    for op in BINARY for sa, sb in BINARY_SHAPES for dt in NUMERIC_DTYPES
]


@pytest.mark.parametrize("op,shape_a,shape_b,dtype", BINARY_CASES)
def test_binary(op: str, shape_a: tuple, shape_b: tuple, dtype: Any) -> None:
    gen = rt.rng(op, shape_a, shape_b, dtype)
    integer = np.issubdtype(dtype, np.integer)
    if op == "divide":
        if integer:
            # Integer division of positive operands: truncating == flooring division.
            a = rt.random_array(gen, shape_a, dtype, 0, 40)
            b = rt.random_array(gen, shape_b, dtype, 1, 7)
        else:
            a = rt.random_array(gen, shape_a, dtype, -3, 3)
            b = rt.random_array(gen, shape_b, dtype, -3, 3, avoid_zero=0.25)
    else:
        a = rt.random_array(gen, shape_a, dtype, -9, 9)
        b = rt.random_array(gen, shape_b, dtype, -9, 9)
    fn = np.floor_divide if (op == "divide" and integer) else BINARY[op]
    expected = reference(fn, a, b)
    assert expected.shape == np.broadcast_shapes(shape_a, shape_b)
    out = run_op(op, {"a": a, "b": b}, expected, dtype)
    assert_matches(out, expected, dtype)


GREATER_CASES = [
    pytest.param(sa, sb, dt, id=f"{shape_id(sa)}-{shape_id(sb)}-{dtype_id(dt)}")
    for sa, sb in BINARY_SHAPES for dt in NUMERIC_DTYPES
]


@pytest.mark.parametrize("shape_a,shape_b,dtype", GREATER_CASES)
def test_greater(shape_a: tuple, shape_b: tuple, dtype: Any) -> None:
    gen = rt.rng("greater", shape_a, shape_b, dtype)
    # Small integer values (also for floats) so that ties occur and must give False.
    a = gen.integers(-2, 3, size=shape_a).astype(dtype)
    b = gen.integers(-2, 3, size=shape_b).astype(dtype)
    expected = np.greater(a, b)
    out = run_op("greater", {"a": a, "b": b}, expected, np.bool_)
    assert_matches(out, expected, np.bool_)


def test_greater_ties_and_signs() -> None:
    a = np.array([1.0, 2.0, -0.0, 0.0, -1.0, 3.0], dtype=np.float32)
    b = np.array([1.0, 1.0, 0.0, -0.0, 0.0, 4.0], dtype=np.float32)
    out = run_op("greater", {"a": a, "b": b}, np.greater(a, b), np.bool_)
    np.testing.assert_array_equal(out, [False, True, False, False, False, False])


WHERE_SHAPES = [
    ((3, 4), (3, 4), (3, 4)),
    ((3, 4), (4,), ()),
    ((3, 1), (1, 4), (3, 4)),
    ((4,), (3, 4), (3, 1)),
    ((), (2, 3), (2, 3)),
    ((2, 1, 3), (4, 1), (3,)),
]

WHERE_CASES = [
    pytest.param(sc, sa, sb, dt, id=f"{shape_id(sc)}-{shape_id(sa)}-{shape_id(sb)}-{dtype_id(dt)}")
    for sc, sa, sb in WHERE_SHAPES for dt in ALL_DTYPES
]


@pytest.mark.parametrize("shape_c,shape_a,shape_b,dtype", WHERE_CASES)
def test_where(shape_c: tuple, shape_a: tuple, shape_b: tuple, dtype: Any) -> None:
    gen = rt.rng("where", shape_c, shape_a, shape_b, dtype)
    cond = rt.random_array(gen, shape_c, np.bool_)
    a = rt.random_array(gen, shape_a, dtype, -9, 9)
    b = rt.random_array(gen, shape_b, dtype, -9, 9)
    expected = np.where(cond, a, b)
    out = run_op("where", {"cond": cond, "a": a, "b": b}, expected, dtype)
    assert_matches(out, expected, dtype)


# ----------------------------------------------------------------------------
# Reductions
# ----------------------------------------------------------------------------

REDUCTION_AXES = [
    ((2, 3, 4), None, False),
    ((2, 3, 4), None, True),
    ((2, 3, 4), [0], False),
    ((2, 3, 4), [1], True),
    ((2, 3, 4), [-1], False),
    ((2, 3, 4), [-1], True),
    ((2, 3, 4), [0, 2], False),
    ((2, 3, 4), [-3, -1], True),
    ((2, 3, 4), [2, 0], False),
    ((2, 3, 4), [0, 1, 2], False),
    ((5,), None, False),
    ((5,), [0], True),
    ((4, 3), [-2], False),
    ((), None, False),
]

REDUCTION_CASES = [
    pytest.param(op, shape, axis, keepdims, dt,
                 id=f"{op}-{shape_id(shape)}-axis{shape_id(axis)}-kd{int(keepdims)}-{dtype_id(dt)}")
    for op, dts in (("sum", NUMERIC_DTYPES), ("mean", FLOAT_DTYPES))
    for shape, axis, keepdims in REDUCTION_AXES for dt in dts
]


@pytest.mark.parametrize("op,shape,axis,keepdims,dtype", REDUCTION_CASES)
def test_reduction(op: str, shape: tuple, axis: Optional[list], keepdims: bool, dtype: Any) -> None:
    x = rt.random_array(rt.rng(op, shape, axis, keepdims, dtype), shape, dtype, -9, 9)
    np_axis = None if axis is None else tuple(axis)
    fn = np.sum if op == "sum" else np.mean
    expected = reference(lambda v: fn(v, axis=np_axis, keepdims=keepdims), x)
    attrs = {"axis": axis, "keepdims": keepdims}
    out = run_op(op, {"x": x}, expected, dtype, attrs)
    assert_matches(out, expected, dtype)


@pytest.mark.parametrize("op", ["sum", "mean"])
def test_reduction_keepdims_defaults_to_false(op: str) -> None:
    x = rt.random_array(rt.rng(op, "default"), (3, 4), np.float64)
    fn = np.sum if op == "sum" else np.mean
    expected = fn(x, axis=1)
    out = run_op(op, {"x": x}, expected, np.float64, {"axis": [1]})
    assert_matches(out, expected, np.float64)


# ----------------------------------------------------------------------------
# Linear algebra
# ----------------------------------------------------------------------------

MATMUL_SHAPES = [
    ((4, 3), (3, 2)),           # 2-D x 2-D
    ((1, 1), (1, 1)),
    ((3,), (3, 5)),             # 1-D x 2-D
    ((4, 3), (3,)),             # 2-D x 1-D
    ((6,), (6,)),               # 1-D x 1-D
    ((2, 4, 3), (2, 3, 5)),     # batched
    ((2, 4, 3), (3, 5)),        # batched x 2-D
    ((4, 3), (2, 3, 5)),        # 2-D x batched
    ((2, 1, 4, 3), (3, 3, 5)),  # broadcasting batch dims
    ((3,), (2, 3, 4)),          # 1-D x batched
    ((2, 4, 3), (3,)),          # batched x 1-D
]

MATMUL_CASES = [pytest.param(sa, sb, dt, id=f"{shape_id(sa)}-{shape_id(sb)}-{dtype_id(dt)}")
                for sa, sb in MATMUL_SHAPES for dt in NUMERIC_DTYPES]


@pytest.mark.parametrize("shape_a,shape_b,dtype", MATMUL_CASES)
def test_matmul(shape_a: tuple, shape_b: tuple, dtype: Any) -> None:
    gen = rt.rng("matmul", shape_a, shape_b, dtype)
    a = rt.random_array(gen, shape_a, dtype, -5, 5)
    b = rt.random_array(gen, shape_b, dtype, -5, 5)
    expected = reference(np.matmul, a, b)
    out = run_op("matmul", {"a": a, "b": b}, expected, dtype)
    assert_matches(out, expected, dtype)


# ----------------------------------------------------------------------------
# Shape manipulation
# ----------------------------------------------------------------------------

PERMUTE_CASES = [
    ((3, 4), None),
    ((2, 3, 4), None),
    ((5,), None),
    ((2, 3, 4), [1, 0, 2]),
    ((2, 3, 4), [2, 0, 1]),
    ((2, 3, 4), [0, 1, 2]),
    ((2, 3, 4, 5), [3, 1, 0, 2]),
    ((3, 4), [1, 0]),
]


@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=dtype_id)
@pytest.mark.parametrize("shape,axes", PERMUTE_CASES,
                         ids=[f"{shape_id(s)}-axes{shape_id(a)}" for s, a in PERMUTE_CASES])
def test_permute_dims(shape: tuple, axes: Optional[list], dtype: Any) -> None:
    x = rt.random_array(rt.rng("permute", shape, axes, dtype), shape, dtype, -9, 9)
    expected = np.transpose(x, axes)
    out = run_op("permute_dims", {"x": x}, expected, dtype, {"axes": axes})
    assert_matches(out, expected, dtype)


RESHAPE_CASES = [
    ((2, 6), (3, 4)),
    ((2, 3, 4), (24,)),
    ((6,), (1, 2, 3)),
    ((4, 3), (2, 2, 3)),
    ((2, 3, 4), (4, 6)),
    ((1,), ()),
    ((), (1, 1)),
]


@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=dtype_id)
@pytest.mark.parametrize("shape,new_shape", RESHAPE_CASES,
                         ids=[f"{shape_id(s)}-to-{shape_id(t)}" for s, t in RESHAPE_CASES])
def test_reshape(shape: tuple, new_shape: tuple, dtype: Any) -> None:
    x = rt.random_array(rt.rng("reshape", shape, new_shape, dtype), shape, dtype, -9, 9)
    expected = np.reshape(x, new_shape)
    out = run_op("reshape", {"x": x}, expected, dtype)
    assert_matches(out, expected, dtype)


BROADCAST_CASES = [
    ((3,), (4, 3)),
    ((1, 3), (2, 4, 3)),
    ((4, 1), (4, 3)),
    ((), (2, 3)),
    ((2, 1, 3), (2, 5, 3)),
    ((3,), (3,)),
    ((1,), (2, 2)),
]


@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=dtype_id)
@pytest.mark.parametrize("shape,new_shape", BROADCAST_CASES,
                         ids=[f"{shape_id(s)}-to-{shape_id(t)}" for s, t in BROADCAST_CASES])
def test_broadcast_to(shape: tuple, new_shape: tuple, dtype: Any) -> None:
    x = rt.random_array(rt.rng("broadcast_to", shape, new_shape, dtype), shape, dtype, -9, 9)
    expected = np.broadcast_to(x, new_shape).copy()
    out = run_op("broadcast_to", {"x": x}, expected, dtype)
    assert_matches(out, expected, dtype)


COLLAPSE_CASES = [
    ((4, 3), (3,)),
    ((4, 3), (1, 3)),
    ((4, 3), (4, 1)),
    ((2, 4, 3), (4, 1)),
    ((2, 3), ()),
    ((2, 3), (2, 3)),
    ((2, 1, 3), (1, 3)),
    ((3, 4, 5), (3, 1, 5)),
    ((2, 3, 4), (1, 1, 1)),
]


@pytest.mark.parametrize("dtype", NUMERIC_DTYPES, ids=dtype_id)
@pytest.mark.parametrize("shape,new_shape", COLLAPSE_CASES,
                         ids=[f"{shape_id(s)}-to-{shape_id(t)}" for s, t in COLLAPSE_CASES])
def test_collapse_sum_to(shape: tuple, new_shape: tuple, dtype: Any) -> None:
    x = rt.random_array(rt.rng("collapse", shape, new_shape, dtype), shape, dtype, -9, 9)
    expected = reference(lambda v: rt.reference_collapse_sum_to(v, new_shape), x)
    out = run_op("collapse_sum_to", {"x": x}, expected, dtype)
    assert_matches(out, expected, dtype)


# ----------------------------------------------------------------------------
# Creation
# ----------------------------------------------------------------------------

CREATION_SHAPES = [(), (3,), (2, 3), (2, 1, 4)]


@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=dtype_id)
@pytest.mark.parametrize("shape", CREATION_SHAPES, ids=shape_id)
@pytest.mark.parametrize("op,fill", [("zeros", 0), ("ones", 1)])
def test_creation(op: str, fill: int, shape: tuple, dtype: Any) -> None:
    expected = np.full(shape, fill, dtype=dtype)
    text = rt.op_function(op, [], shape, dtype)
    out = rt.compile_text(text).main()
    assert_matches(out, expected, dtype)


def test_creation_results_are_fresh_arrays() -> None:
    """Each call returns a new array: mutating one result must not change the next."""
    text = rt.op_function("ones", [], (2, 3), np.float32)
    main = rt.compile_text(text).main
    first = main()
    first[...] = 7.0
    second = main()
    np.testing.assert_array_equal(second, np.ones((2, 3), np.float32))


def test_tanh_saturates_without_nan() -> None:
    for dtype in FLOAT_DTYPES:
        x = np.array([-1000.0, -100.0, -20.0, 0.0, 20.0, 44.5, 100.0, 1000.0], dtype=dtype)
        out = run_op("tanh", {"x": x}, np.tanh(x), dtype)
        assert np.all(np.isfinite(out)), (dtype, out)
        np.testing.assert_allclose(out, np.tanh(x.astype(np.float64)), rtol=1e-6, atol=0)


def test_exp_and_log_extremes() -> None:
    x = np.array([-1000.0, -700.0, 0.0, 700.0, 1000.0])
    with np.errstate(over="ignore"):
        expected = np.exp(x)
    out = run_op("exp", {"x": x}, expected, np.float64)
    np.testing.assert_allclose(out, expected, rtol=1e-12, atol=0)
    y = np.array([0.0, 1e-300, 1.0, 1e300, np.inf])
    with np.errstate(divide="ignore"):
        expected = np.log(y)
    out = run_op("log", {"x": y}, expected, np.float64)
    np.testing.assert_allclose(out, expected, rtol=1e-12, atol=0)


# Shapes large and odd enough to exercise vectorized loops and their remainders.
LARGE_CASES = [
    ("matmul", [(37, 129), (129, 19)], np.matmul, None),
    ("matmul", [(3, 17, 33), (33, 9)], np.matmul, None),
    ("matmul", [(2, 1, 64, 65), (3, 65, 63)], np.matmul, None),
    ("sum", [(64, 129)], lambda v: v.sum(axis=0), {"axis": [0]}),
    ("sum", [(64, 129)], lambda v: v.sum(axis=1, keepdims=True), {"axis": [1], "keepdims": True}),
    ("add", [(257, 1), (1, 129)], np.add, None),
    ("permute_dims", [(17, 33, 5)], lambda v: v.transpose(2, 0, 1), {"axes": [2, 0, 1]}),
    ("collapse_sum_to", [(7, 65, 33)], lambda v: rt.reference_collapse_sum_to(v, (65, 1)), None),
]


@pytest.mark.parametrize("dtype", (np.float32, np.float64, np.int32), ids=dtype_id)
@pytest.mark.parametrize("op,shapes,fn,attrs", LARGE_CASES,
                         ids=[f"{c[0]}-{'-'.join(shape_id(s) for s in c[1])}" for c in LARGE_CASES])
def test_large_shapes(op: str, shapes: list, fn: Callable, attrs: Optional[dict],
                      dtype: Any) -> None:
    gen = rt.rng("large", op, shapes, dtype)
    # Small integers: exact in every element type, so results must match exactly.
    inputs = {f"a{i}": gen.integers(-3, 4, size=s).astype(dtype) for i, s in enumerate(shapes)}
    expected = np.asarray(fn(*inputs.values()))
    out = run_op(op, inputs, expected, dtype, attrs)
    assert out.shape == expected.shape and out.dtype == np.dtype(dtype)
    np.testing.assert_array_equal(out, expected)
