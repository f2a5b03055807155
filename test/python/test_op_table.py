"""The op table (op_table.py) against the dialect, and the table's own references.

The coverage test fails when the dialect registers an op the table has no case for
(or no gradient case for a differentiable op), or when the table names an op the
dialect lacks. The other tests need no compiler: every case's reference runs on
its samples, and the references of the subtler ops match values worked out by hand.
"""

from __future__ import annotations

import numpy as np
import op_table
import pytest
import relax_testing as rt
from op_table import NON_DIFFERENTIABLE, STRUCTURAL, TABLE, OpCase
from test_random_programs import relax_op_names


def test_every_dialect_op_has_cases() -> None:
    registered = {n.removeprefix("relax.") for n in relax_op_names()}
    forward = {c.op for c in TABLE}
    gradient = {c.op for c in TABLE if c.grad_inputs}
    problems = []
    no_forward = sorted(registered - STRUCTURAL - forward)
    if no_forward:
        problems.append(
            f"ops the dialect registers with no case in op_table.TABLE: {no_forward}; add each "
            f"to its family's section of TABLE in test/python/op_table.py (e.g. "
            f"`*unary(\"op\", numpy_reference, dtypes, (low, high))`, `*binary(...)`, "
            f"`*reduction(...)`, or `case(\"op\", [Input(...)], reference, attrs)`)")
    no_gradient = sorted(registered - STRUCTURAL - NON_DIFFERENTIABLE - gradient)
    if no_gradient:
        problems.append(
            f"differentiable ops with no gradient case: {no_gradient}; give one of their "
            f"cases a float element type and gradient inputs (`grad=`), or add the op to "
            f"op_table.NON_DIFFERENTIABLE if its result is not float or it has no float "
            f"operand")
    stale = sorted((forward | NON_DIFFERENTIABLE | STRUCTURAL) - registered)
    if stale:
        problems.append(f"op_table names ops the dialect does not register: {stale}; "
                        f"remove their cases or register the ops")
    wrongly = sorted({c.op for c in TABLE if c.grad_inputs} & NON_DIFFERENTIABLE)
    if wrongly:
        problems.append(f"NON_DIFFERENTIABLE ops with gradient cases: {wrongly}")
    structural = sorted(forward & STRUCTURAL)
    if structural:
        problems.append(f"STRUCTURAL ops with cases (they are tested in "
                        f"test_gradient_behaviours.py and test_checkpoint.py): {structural}")
    assert not problems, "\n".join(problems)


def test_case_ids_are_unique() -> None:
    ids = [c.id for c in TABLE]
    assert len(ids) == len(set(ids)), sorted(i for i in ids if ids.count(i) > 1)


@pytest.mark.parametrize("case", [pytest.param(c, id=c.id) for c in TABLE])
def test_reference_runs_on_its_samples(case: OpCase) -> None:
    """In each element type of the case, the samples have the declared types and the
    reference gives finite values (so that a forward failure is the compiler's, not the
    table's); the gradient samples keep away from the kinks."""
    for dtype in case.dtypes:
        inputs = case.sample(dtype, rt.rng(case.id, rt.element_type(dtype)))
        for i in case.inputs:
            a = inputs[i.name]
            assert a.shape == tuple(i.shape) and a.dtype == np.dtype(i.element_type(dtype)), i
        with np.errstate(all="raise"):
            out = case.expected(inputs)
        outs = out if isinstance(out, tuple) else (out,)
        # Empty parts of a split may occur; an all-empty result checks nothing.
        assert any(o.size > 0 for o in outs), "all-empty results are not in the table"
        for o in outs:
            if np.issubdtype(o.dtype, np.floating):
                assert np.all(np.isfinite(o)), (dtype, o)
    if case.grad_inputs:
        g = case.sample(case.grad_dtype, rt.rng("g", case.id), gradient=True)
        for name in case.grad_inputs:
            assert is_float_input(g[name]), (name, g[name].dtype)
            for k in case.kinks:
                assert np.all(np.abs(g[name] - k) >= case.kink_margin), (name, k, g[name])


def is_float_input(a: np.ndarray) -> bool:
    return np.issubdtype(a.dtype, np.floating)


def test_nll_loss_reference() -> None:
    """PyTorch's F.nll_loss on a case worked out by hand."""
    pred = np.array([[0.1, 0.2, 0.7], [0.5, 0.3, 0.2], [0.6, 0.1, 0.3]])
    t = np.array([2, -100, 0])
    w = np.array([1.0, 2.0, 3.0])
    # Rows 0 and 2 count: -(3 * 0.7 + 1 * 0.6); the weights of their targets sum to 4.
    assert op_table.nll_loss("sum")(pred, t, w) == pytest.approx(-2.7)
    assert op_table.nll_loss("mean")(pred, t, w) == pytest.approx(-2.7 / 4)
    np.testing.assert_allclose(op_table.nll_loss("none")(pred, t, w), [-2.1, 0.0, -0.6])
    assert op_table.nll_loss("mean")(pred, t) == pytest.approx(-(0.7 + 0.6) / 2)
    # ignore_index may be a class index.
    assert op_table.nll_loss("mean", ignore_index=2)(pred, np.array([2, 1, 0])) == \
        pytest.approx(-(0.3 + 0.6) / 2)
    # (C) with a 0-d target, and (N, C, d1) with (N, d1).
    assert op_table.nll_loss("mean")(pred[0], np.array(1), w) == pytest.approx(-0.2)
    p3 = np.arange(12.0).reshape(2, 3, 2)
    t3 = np.array([[0, 2], [1, -100]])
    np.testing.assert_allclose(op_table.nll_loss("none")(p3, t3), [[-0.0, -5.0], [-8.0, 0.0]])


def test_layer_norm_reference() -> None:
    x = np.arange(24.0).reshape(2, 3, 4)
    gamma = np.arange(1.0, 9.0).reshape(2, 4)
    beta = np.full((2, 4), 0.5)
    out = op_table.layer_norm([2, 0], 0.0)(x, gamma, beta)
    for j in range(3):
        s = x[:, j, :]
        np.testing.assert_allclose(out[:, j, :], (s - s.mean()) / s.std() * gamma + beta)


def test_shape_references() -> None:
    x = np.arange(20).reshape(4, 5)
    np.testing.assert_array_equal(op_table.strided_slice([0, 1], [3, 4], [-5, 0], [-1, -2])(x),
                                  x[::-1, 4:0:-2])
    np.testing.assert_array_equal(op_table.strided_slice([1], [-4], [100])(x), x[:, 1:])
    np.testing.assert_array_equal(op_table.pad([1, 0, 0, 2], -1.0)(x)[0], np.full(7, -1))
    idx = op_table.indices(5)(np.random.default_rng(0), (4,), np.int64)
    assert idx[1] == idx[0] and idx[2] == -1
    z = op_table.with_zeros((1, 2), (2, 0), (2, 3))(np.random.default_rng(0), (3, 4), np.float64)
    assert [int(np.sum(r == 0)) for r in z] == [0, 1, 2]
    np.testing.assert_array_equal(op_table.astype(np.int32)(np.array([-2.7, 2.7])), [-2, 2])
