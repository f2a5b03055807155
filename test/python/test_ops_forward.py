"""Forward semantics of every relax op against numpy.

Every case of the op table (op_table.TABLE: one OpCase per op and configuration)
becomes, in each element type of the case, a one-op function
`case<k>(inputs...) -> relax.<op>(inputs...)` (in the generic op form of the
interchange contract); the JIT-executed result is compared with the case's numpy
reference evaluated in float64. The functions of one op and element type are
compiled together as one module (if that module does not compile, each case
compiles alone, so that the error names its case). The tests after the table pin
down values random cases cannot reach: exact zeros, saturation, extremes, large
shapes.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

from relax_mlir_testing import harness as rt
from relax_mlir_testing import ops as op_table
from relax_mlir_testing import references as ref
from relax_mlir_testing.cases import OpCase, shape_id
from relax_mlir_testing.harness import FLOAT_DTYPES


def dtype_id(dtype: Any) -> str:
    return rt.element_type(dtype)


def assert_matches(actual: Any, expected: Any, dtype: Any,
                   tol: tuple[float, float] | None = None) -> None:
    """Same shape and dtype as `expected`, values exact for ints/bools, close for floats:
    (rtol, atol) = `tol`, else (1e-5, 1e-6) for f32, (1e-12, 1e-13) for f64, and for f16
    (2e-3, 1e-3) against the float64 reference rounded to f16. A tuple `expected` is a
    tuple result, compared field by field."""
    if isinstance(expected, tuple):
        assert isinstance(actual, tuple) and len(actual) == len(expected), \
            f"expected a tuple of {len(expected)} arrays, got {type(actual).__name__}"
        for a, e in zip(actual, expected):
            assert_matches(a, e, dtype, tol)
        return
    assert isinstance(actual, np.ndarray), f"expected an ndarray, got {type(actual).__name__}"
    assert actual.dtype == np.dtype(dtype), (actual.dtype, np.dtype(dtype))
    assert actual.shape == expected.shape, (actual.shape, expected.shape)
    if np.dtype(dtype) == np.float16:
        rtol, atol = tol or (2e-3, 1e-3)
        np.testing.assert_allclose(actual.astype(np.float64),
                                   expected.astype(np.float16).astype(np.float64),
                                   rtol=rtol, atol=atol)
    elif np.dtype(dtype) == np.float32:
        rtol, atol = tol or (1e-5, 1e-6)
        np.testing.assert_allclose(actual, expected.astype(np.float64), rtol=rtol, atol=atol)
    elif np.dtype(dtype) == np.float64:
        rtol, atol = tol or (1e-12, 1e-13)
        np.testing.assert_allclose(actual, expected, rtol=rtol, atol=atol)
    else:
        np.testing.assert_array_equal(actual, expected.astype(dtype))


def call_unmodified(exe: Any, func: str, inputs: dict[str, np.ndarray]) -> Any:
    """exe.<func>(inputs), checking that the inputs are not modified."""
    copies = {k: v.copy() for k, v in inputs.items()}
    out = exe[func](*inputs.values())
    for k in inputs:
        np.testing.assert_array_equal(inputs[k], copies[k], err_msg=f"input {k} was modified")
    return out


def run_op(op: str, inputs: dict[str, np.ndarray], expected: Any, result_dtype: Any,
           attrs: dict[str, Any] | None = None) -> Any:
    """Compiles `main(inputs) = relax.<op>(inputs) {attrs}`, whose result type is
    `expected`'s shape (a tuple type for a tuple) in `result_dtype`, and runs it on
    `inputs`, checking that they are not modified."""
    text = rt.one_op_function(op, rt.params_of(inputs), rt.type_of(expected, result_dtype),
                              attrs)
    return call_unmodified(rt.compile_text(text), "main", inputs)


# ----------------------------------------------------------------------------
# Every case of the op table, in each of its element types
# ----------------------------------------------------------------------------

FORWARD_CASES = [pytest.param(c, dt, id=f"{c.id}-{dtype_id(dt)}")
                 for c in op_table.TABLE for dt in c.dtypes]
FUNC_NAMES = {c.id: f"case{k}" for k, c in enumerate(op_table.TABLE)}


def example(case: OpCase, dtype: Any) -> tuple[dict[str, np.ndarray], Any]:
    """The case's inputs in `dtype` (the same on every call) and its expected result."""
    inputs = case.sample(dtype, rt.rng(case.id, dtype_id(dtype)))
    return inputs, case.expected(inputs)


@functools.cache
def op_module(op: str, dtype: Any) -> Any | None:
    """Every case of `op` in element type `dtype` as one module of one-op functions
    (one compile instead of one per case, which is most of the run time); None if it
    does not compile: then each case compiles alone, so that the error names its case."""
    texts = []
    for c in op_table.cases_of(op):
        if dtype in c.dtypes:
            inputs, expected = example(c, dtype)
            texts.append(rt.one_op_function(
                op, rt.params_of(inputs), rt.type_of(expected, c.result_dtype(dtype)), c.attrs,
                name=FUNC_NAMES[c.id]))
    try:
        return rt.compile_text("\n".join(texts))
    except Exception:
        return None


@pytest.mark.parametrize("case,dtype", FORWARD_CASES)
def test_forward(case: OpCase, dtype: Any) -> None:
    inputs, expected = example(case, dtype)
    result_dtype = case.result_dtype(dtype)
    exe = op_module(case.op, dtype)
    if exe is not None:
        out = call_unmodified(exe, FUNC_NAMES[case.id], inputs)
    else:
        out = run_op(case.op, inputs, expected, result_dtype, case.attrs)
    assert_matches(out, expected, result_dtype, case.tol.get(result_dtype))


# ----------------------------------------------------------------------------
# Special values
# ----------------------------------------------------------------------------


def test_relu_exact_values() -> None:
    x = np.array([-2.0, -0.0, 0.0, 1e-30, 3.5, -1e-30], dtype=np.float64)
    out = run_op("relu", {"x": x}, np.maximum(x, 0), np.float64)
    np.testing.assert_array_equal(out, [0.0, 0.0, 0.0, 1e-30, 3.5, 0.0])


def test_sigmoid_saturates_without_nan() -> None:
    x = np.array([-800.0, -50.0, 0.0, 50.0, 800.0], dtype=np.float64)
    out = run_op("sigmoid", {"x": x}, ref.sigmoid(x), np.float64)
    assert np.all(np.isfinite(out)), out
    np.testing.assert_allclose(out, ref.sigmoid(x), rtol=1e-12, atol=1e-300)


def test_greater_ties_and_signs() -> None:
    a = np.array([1.0, 2.0, -0.0, 0.0, -1.0, 3.0], dtype=np.float32)
    b = np.array([1.0, 1.0, 0.0, -0.0, 0.0, 4.0], dtype=np.float32)
    out = run_op("greater", {"a": a, "b": b}, np.greater(a, b), np.bool_)
    np.testing.assert_array_equal(out, [False, True, False, False, False, False])


REDUCTIONS = {"sum": np.sum, "mean": np.mean, "variance": np.var, "max": np.max,
              "min": np.min, "prod": np.prod}


@pytest.mark.parametrize("op", list(REDUCTIONS))
def test_reduction_keepdims_defaults_to_false(op: str) -> None:
    x = rt.random_array(rt.rng(op, "default"), (3, 4), np.float64)
    expected = REDUCTIONS[op](x, axis=1)
    out = run_op(op, {"x": x}, expected, np.float64, {"axis": [1]})
    assert_matches(out, expected, np.float64)


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
    ("collapse_sum_to", [(7, 65, 33)], lambda v: ref.collapse_sum_to(v, (65, 1)), None),
]


@pytest.mark.parametrize("dtype", (np.float32, np.float64, np.int32), ids=dtype_id)
@pytest.mark.parametrize("op,shapes,fn,attrs", LARGE_CASES,
                         ids=[f"{c[0]}-{'-'.join(shape_id(s) for s in c[1])}" for c in LARGE_CASES])
def test_large_shapes(op: str, shapes: list, fn: Callable, attrs: dict | None,
                      dtype: Any) -> None:
    gen = rt.rng("large", op, shapes, dtype)
    # Small integers: exact in every element type, so results must match exactly.
    inputs = {f"a{i}": gen.integers(-3, 4, size=s).astype(dtype) for i, s in enumerate(shapes)}
    expected = np.asarray(fn(*inputs.values()))
    out = run_op(op, inputs, expected, dtype, attrs)
    assert out.shape == expected.shape and out.dtype == np.dtype(dtype)


@pytest.mark.parametrize("dtype", FLOAT_DTYPES, ids=dtype_id)
def test_softplus_is_accurate_in_both_tails(dtype: Any) -> None:
    """No overflow for large x (softplus(x) = x) and full relative accuracy for very
    negative x, where softplus(x) = log1p(exp(x)) ~ exp(x) (log(1 + exp(x)) rounds to 0);
    values below the smallest normal number of the type are not compared."""
    x = np.array([-1000.0, -100.0, -30.0, -1.0, 0.0, 1.0, 30.0, 100.0, 1000.0], dtype=dtype)
    expected = np.logaddexp(0.0, x.astype(np.float64))
    out = run_op("softplus", {"x": x}, expected, dtype)
    assert np.all(np.isfinite(out)), out
    rtol = 1e-12 if dtype == np.float64 else 1e-6
    np.testing.assert_allclose(out, expected, rtol=rtol, atol=np.finfo(dtype).tiny)


@pytest.mark.parametrize("op", ["softmax", "log_softmax"])
def test_softmax_is_stable_for_large_inputs(op: str) -> None:
    """Inputs of magnitude 1e3 in float32, where a naive exp overflows or gives 0/0."""
    x = np.array([[1000.0, 999.0, 998.0, -1000.0],
                  [-1000.0, -1001.0, -999.5, -1002.0],
                  [1000.0, 0.0, -1000.0, 1000.0]], dtype=np.float32)
    fn = ref.softmax if op == "softmax" else ref.log_softmax
    expected = fn(x.astype(np.float64))
    out = run_op(op, {"x": x}, expected, np.float32)
    assert np.all(np.isfinite(out)), out
    np.testing.assert_allclose(out, expected, rtol=1e-5, atol=1e-6)


def test_astype_edge_values() -> None:
    """float -> int truncates toward zero; float -> i1 is x != 0 (so -0.0 -> false);
    i1 -> float is 0/1."""
    x = np.array([-2.7, -2.0, -0.5, -0.0, 0.0, 0.5, 1.0, 2.7], dtype=np.float64)
    out = run_op("astype", {"x": x}, x.astype(np.int32), np.int32)
    np.testing.assert_array_equal(out, [-2, -2, 0, 0, 0, 0, 1, 2])
    out = run_op("astype", {"x": x}, x != 0, np.bool_)
    np.testing.assert_array_equal(out, [True, True, True, False, False, True, True, True])
    b = np.array([True, False, True])
    out = run_op("astype", {"x": b}, b.astype(np.float32), np.float32)
    np.testing.assert_array_equal(out, np.array([1.0, 0.0, 1.0], dtype=np.float32))
