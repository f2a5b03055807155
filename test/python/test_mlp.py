"""A two-layer MLP with a softmax cross-entropy loss built from skeleton ops only.

loss = -mean(sum(one_hot * (logits - log(sum(exp(logits), axis=1, keepdims))), axis=1))
with logits = relu(x @ w1 + b1) @ w2 + b2. Gradients w.r.t. (w1, b1, w2, b2) by name
are checked against float64 central finite differences of the same loss in numpy.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from relax_mlir_testing import harness as rt

N, D, H, C = 8, 5, 6, 4
WEIGHTS = ["w1", "b1", "w2", "b2"]


def mlp_text(dtype: Any) -> str:
    e = rt.element_type(dtype)

    def t(*shape: int) -> str:
        return rt.tensor_type(shape, dtype)

    return f"""
func.func @main(%x: {t(N, D)} {{relax.name = "x"}}, %w1: {t(D, H)} {{relax.name = "w1"}},
                %b1: {t(H)} {{relax.name = "b1"}}, %w2: {t(H, C)} {{relax.name = "w2"}},
                %b2: {t(C)} {{relax.name = "b2"}}, %y: {t(N, C)} {{relax.name = "labels"}})
    -> tensor<{e}> {{
  %r = relax.dataflow -> (tensor<{e}>) {{
    %0 = relax.matmul %x, %w1 : {t(N, D)}, {t(D, H)} -> {t(N, H)}
    %1 = relax.add %0, %b1 : {t(N, H)}, {t(H)} -> {t(N, H)}
    %2 = relax.relu %1 : {t(N, H)}
    %3 = relax.matmul %2, %w2 : {t(N, H)}, {t(H, C)} -> {t(N, C)}
    %4 = relax.add %3, %b2 : {t(N, C)}, {t(C)} -> {t(N, C)}
    %5 = relax.exp %4 : {t(N, C)}
    %6 = relax.sum %5 {{axis = array<i64: 1>, keepdims = true}} : {t(N, C)} -> {t(N, 1)}
    %7 = relax.log %6 : {t(N, 1)}
    %8 = relax.subtract %4, %7 : {t(N, C)}, {t(N, 1)} -> {t(N, C)}
    %9 = relax.multiply %8, %y : {t(N, C)}, {t(N, C)} -> {t(N, C)}
    %10 = relax.sum %9 {{axis = array<i64: 1>}} : {t(N, C)} -> {t(N)}
    %11 = relax.mean %10 : {t(N)} -> tensor<{e}>
    %12 = relax.negative %11 : tensor<{e}>
    relax.output %12 : tensor<{e}>
  }}
  return %r : tensor<{e}>
}}
"""


def np_forward(x, w1, b1, w2, b2, y):
    pre = x @ w1 + b1
    logits = np.maximum(pre, 0) @ w2 + b2
    logp = logits - np.log(np.sum(np.exp(logits), axis=1, keepdims=True))
    return -np.mean(np.sum(logp * y, axis=1)), pre


def np_loss(args: list) -> float:
    return float(np_forward(*args)[0])


@pytest.fixture(scope="module")
def data() -> dict[str, np.ndarray]:
    gen = rt.rng("mlp-data")
    values = {
        "x": gen.normal(size=(N, D)),
        "w1": gen.normal(size=(D, H)) * 0.6,
        "b1": gen.normal(size=H) * 0.1,
        "w2": gen.normal(size=(H, C)) * 0.6,
        "b2": gen.normal(size=C) * 0.1,
        "labels": np.eye(C)[gen.integers(0, C, size=N)],
    }
    # float32-representable values so that both precisions see the same inputs.
    values = {k: v.astype(np.float32).astype(np.float64) for k, v in values.items()}
    _, pre = np_forward(*values.values())
    # Central differences are only valid away from relu's kink.
    assert np.min(np.abs(pre)) > 1e-3, "choose another seed: a pre-activation is near 0"
    assert np.any(pre > 0) and np.any(pre < 0)
    return values


@pytest.fixture(scope="module")
def exe64():
    return rt.compile_gradient(mlp_text(np.float64), tuple(WEIGHTS))


@pytest.fixture(scope="module")
def exe32():
    return rt.compile_gradient(mlp_text(np.float32), tuple(WEIGHTS))


@pytest.fixture(scope="module")
def fd_grads(data) -> list[np.ndarray]:
    args = list(data.values())
    names = list(data)
    return [rt.central_difference(np_loss, args, names.index(w), 1e-6) for w in WEIGHTS]


def test_forward_loss_float64(exe64, data) -> None:
    expected = np_loss(list(data.values()))
    np.testing.assert_allclose(exe64.main(*data.values()), expected, rtol=1e-12)
    loss, _ = exe64.main_adjoint(*data.values())
    np.testing.assert_allclose(loss, expected, rtol=1e-12)


def test_gradients_float64_match_finite_differences(exe64, data, fd_grads) -> None:
    loss, grads = exe64.main_adjoint(*data.values())
    assert len(grads) == len(WEIGHTS)
    for name, g, expected in zip(WEIGHTS, grads, fd_grads):
        assert g.shape == data[name].shape and g.dtype == np.float64, name
        assert np.any(expected != 0), name
        np.testing.assert_allclose(g, expected, rtol=1e-4, atol=1e-9, err_msg=f"d loss / d {name}")


def test_gradients_by_index_match_by_name(exe64, data) -> None:
    by_index = rt.compile_gradient(mlp_text(np.float64), (1, 2, 3, 4))
    _, g_index = by_index.main_adjoint(*data.values())
    _, g_name = exe64.main_adjoint(*data.values())
    for a, b in zip(g_index, g_name):
        np.testing.assert_array_equal(a, b)


def test_float32_runs_and_matches_float64(exe32, data, fd_grads) -> None:
    args32 = [v.astype(np.float32) for v in data.values()]
    loss, grads = exe32.main_adjoint(*args32)
    assert loss.dtype == np.float32
    np.testing.assert_allclose(loss, np_loss(list(data.values())), rtol=1e-5)
    for name, g, expected in zip(WEIGHTS, grads, fd_grads):
        assert g.dtype == np.float32 and g.shape == data[name].shape, name
        np.testing.assert_allclose(g, expected, rtol=1e-3, atol=1e-5, err_msg=name)


def test_gradient_descent_lowers_the_loss(exe64, data) -> None:
    values = dict(data)
    first = None
    for _ in range(25):
        loss, grads = exe64.main_adjoint(*values.values())
        first = float(loss) if first is None else first
        for name, g in zip(WEIGHTS, grads):
            values[name] = values[name] - 0.5 * g
    final = np_loss(list(values.values()))
    assert final < 0.7 * first, (first, final)
