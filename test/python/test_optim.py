"""relax_mlir.optim against the published update rules written out in numpy
(float64), eagerly and inside one jit-compiled training step."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
import relax_mlir
import relax_mlir.nn as nn
from relax_mlir import optim

RNG = np.random.default_rng(3)
PARAMS = {"w": RNG.normal(size=(4, 3)), "b": RNG.normal(size=(3,))}
GRADS = [{"w": RNG.normal(size=(4, 3)), "b": RNG.normal(size=(3,))} for _ in range(5)]


def reference(name: str, steps: int, lr: float = 0.1, **kw: Any) -> dict:
    """The parameters after `steps` updates with GRADS, by the papers' rules."""
    p = {k: v.copy() for k, v in PARAMS.items()}
    m = {k: np.zeros_like(v) for k, v in p.items()}
    v2 = {k: np.zeros_like(v) for k, v in p.items()}
    b1, b2, eps = kw.get("b1", 0.9), kw.get("b2", 0.999), kw.get("eps", 1e-8)
    l2, damp = kw.get("l2", 0.0), kw.get("dampening", 0.0)
    for t in range(1, steps + 1):
        g = {k: GRADS[t - 1][k] + l2 * p[k] for k in p}  # L2: TVM's and PyTorch's weight_decay
        for k in p:
            if name == "sgd":
                p[k] = p[k] - lr * g[k]
            elif name == "momentum":
                m[k] = (1 - damp) * g[k] + kw["beta"] * m[k]
                d = g[k] + kw["beta"] * m[k] if kw.get("nesterov") else m[k]
                p[k] = p[k] - lr * d
            else:
                m[k] = b1 * m[k] + (1 - b1) * g[k]
                v2[k] = b2 * v2[k] + (1 - b2) * g[k] ** 2
                d = (m[k] / (1 - b1 ** t)) / (np.sqrt(v2[k] / (1 - b2 ** t)) + eps)
                if name == "adamw":
                    d = d + kw["weight_decay"] * p[k]
                p[k] = p[k] - lr * d
    return p


CASES = [
    ("sgd", optim.sgd(0.1), {}),
    ("momentum", optim.momentum(0.1, beta=0.8), {"beta": 0.8}),
    ("momentum", optim.sgd(0.1, momentum=0.8, nesterov=True), {"beta": 0.8, "nesterov": True}),
    ("adam", optim.adam(0.1, b1=0.8, b2=0.95), {"b1": 0.8, "b2": 0.95}),
    ("adamw", optim.adamw(0.1, weight_decay=0.05), {"weight_decay": 0.05}),
    # TVM relax.training's (and PyTorch's) weight decay (L2) and dampening.
    ("sgd", optim.sgd(0.1, weight_decay=0.03), {"l2": 0.03}),
    ("momentum", optim.momentum(0.1, beta=0.8, dampening=0.3, weight_decay=0.03),
     {"beta": 0.8, "dampening": 0.3, "l2": 0.03}),
    ("adam", optim.adam(0.1, weight_decay=0.03), {"l2": 0.03}),
]


@pytest.mark.parametrize("name,opt,kw", CASES, ids=[f"{c[0]}-{i}" for i, c in enumerate(CASES)])
def test_updates_follow_the_published_rules_eagerly_and_in_jit(name: str, opt: Any,
                                                              kw: dict) -> None:
    want = reference(name, 5, **kw)
    params, state = PARAMS, opt.init(PARAMS)
    for g in GRADS:
        updates, state = opt.update(g, state, params)
        params = optim.apply_updates(params, updates)
    for k in want:
        np.testing.assert_allclose(params[k], want[k], rtol=1e-12, atol=1e-14)
    assert int(state.count) == 5

    @relax_mlir.jit
    def step(params: Any, state: Any, g: Any) -> Any:
        updates, state = opt.update(g, state, params)
        return optim.apply_updates(params, updates), state

    params, state = PARAMS, opt.init(PARAMS)
    for g in GRADS:
        params, state = step(params, state, g)
    for k in want:
        np.testing.assert_allclose(params[k], want[k], rtol=1e-12, atol=1e-14)


def test_a_schedule_and_a_compiled_training_step() -> None:
    """A learning-rate schedule is called with the count before the step;
    grad and the update compile into one step that trains."""
    rates = []
    opt = optim.sgd(lambda count: 0.5 / (1.0 + count))
    state = opt.init(PARAMS)
    params = PARAMS
    for g in GRADS[:3]:
        rates.append(0.5 / (1.0 + int(state.count)))
        updates, state = opt.update(g, state)
        params = optim.apply_updates(params, updates)
    want = PARAMS["w"] - sum(r * g["w"] for r, g in zip(rates, GRADS))
    np.testing.assert_allclose(params["w"], want, rtol=1e-12)

    x = RNG.normal(size=(32, 4)).astype(np.float32)
    y = (x[:, 0] > 0).astype(np.int32)
    params = {k: v.astype(np.float32) for k, v in PARAMS.items()}
    opt = optim.adam(0.05)

    def loss(params: Any, x: Any, y: Any) -> Any:
        return nn.cross_entropy(x @ params["w"] + params["b"], y)

    @relax_mlir.jit
    def train(params: Any, state: Any, x: Any, y: Any) -> Any:
        value, grads = relax_mlir.value_and_grad(loss)(params, x, y)
        updates, state = opt.update(grads, state, params)
        return optim.apply_updates(params, updates), state, value

    state = opt.init(params)
    first = None
    for _ in range(30):
        params, state, value = train(params, state, x, y)
        first = value if first is None else first
    assert params["w"].dtype == np.float32 and float(value) < 0.5 * float(first)


def test_bad_hyperparameters_say_what_is_wrong() -> None:
    with pytest.raises(ValueError, match=r"^\S*test_optim.py:\d+:\d+: optim.sgd: learning_rate "
                                         r"must be a non-negative number or a schedule"):
        optim.sgd(-1.0)
    with pytest.raises(ValueError, match="b1 and b2 must be below 1"):
        optim.adam(0.1, b1=1.0)
    with pytest.raises(ValueError, match=r"^\S*test_optim.py:\d+:\d+: optim.adamw: update "
                                         r"needs params for the weight decay"):
        opt = optim.adamw(0.1)
        opt.update(GRADS[0], opt.init(PARAMS))
    with pytest.raises(ValueError, match=r"optim.sgd: update needs params"):
        opt = optim.sgd(0.1, weight_decay=0.1)
        opt.update(GRADS[0], opt.init(PARAMS))
    with pytest.raises(ValueError, match="dampening applies to the momentum trace"):
        optim.sgd(0.1, dampening=0.5)
