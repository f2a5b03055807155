"""jit's donate_argnums: a donated argument's array takes a result of its
shape and dtype (computed last, so no read of the argument sees it
overwritten); a training step then updates its parameters and optimizer state
in place."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
import relax_mlir
import relax_mlir.nn as nn
import relax_mlir.numpy as rnp
from relax_mlir import optim


def reads_after(a: Any, b: Any) -> Any:
    # The donated result (a * 2, a's shape and dtype) comes first; the other
    # results read a afterwards.
    return a * 2.0, a + b, rnp.sum(a)


def test_a_donated_array_takes_its_result_and_later_reads_see_the_old_values() -> None:
    a = np.arange(6, dtype=np.float32).reshape(2, 3)
    b = np.ones((2, 3), np.float32)
    want = [a * 2, a + b, a.sum()]
    doubled, added, total = relax_mlir.jit(reads_after, donate_argnums=0)(a, b)
    assert doubled is a
    np.testing.assert_array_equal(doubled, want[0])
    np.testing.assert_array_equal(added, want[1])
    assert float(total) == float(want[2])


def test_arrays_that_cannot_take_a_result_are_left_alone() -> None:
    f = relax_mlir.jit(reads_after, donate_argnums=0)
    b = np.ones((2, 3), np.float32)
    readonly = np.arange(6, dtype=np.float32).reshape(2, 3)
    readonly.flags.writeable = False
    strided = np.arange(12, dtype=np.float32).reshape(2, 6)[:, ::2]
    for a in (readonly, strided):
        before = a.copy()
        doubled, added, _ = f(a, b)
        assert doubled is not a
        np.testing.assert_array_equal(a, before)
        np.testing.assert_array_equal(doubled, before * 2)
        np.testing.assert_array_equal(added, before + b)
    # The same array donated twice takes one result only.
    a = np.arange(6, dtype=np.float32).reshape(2, 3)
    before = a.copy()
    doubled, added, _ = relax_mlir.jit(reads_after, donate_argnums=(0, 1))(a, a)
    np.testing.assert_array_equal(doubled, before * 2)
    np.testing.assert_array_equal(added, before * 2)
    assert (doubled is a) != (added is a)
    # No result of the donated argument's shape: nothing donated.
    c = np.ones(4, np.float32)
    out = relax_mlir.jit(lambda c: rnp.sum(c), donate_argnums=0)(c)
    assert float(out) == 4.0 and np.array_equal(c, np.ones(4, np.float32))


def test_a_training_step_updates_parameters_and_state_in_place() -> None:
    rng = np.random.default_rng(0)
    x = rng.normal(size=(32, 4)).astype(np.float32)
    y = (x[:, 0] > 0).astype(np.int32)
    opt = optim.adam(0.05)

    def loss(params: Any, x: Any, y: Any) -> Any:
        return nn.cross_entropy(x @ params["w"] + params["b"], y)

    def step(params: Any, state: Any, x: Any, y: Any) -> Any:
        value, grads = relax_mlir.value_and_grad(loss)(params, x, y)
        updates, state = opt.update(grads, state, params)
        return optim.apply_updates(params, updates), state, value

    start = {"w": rng.normal(size=(4, 2)).astype(np.float32), "b": np.zeros(2, np.float32)}
    plain, donating = relax_mlir.jit(step), relax_mlir.jit(step, donate_argnums=(0, 1))
    p1, s1 = {k: v.copy() for k, v in start.items()}, opt.init(start)
    p2, s2 = {k: v.copy() for k, v in start.items()}, opt.init(start)
    p2, s2, _ = donating(p2, s2, x, y)  # (the first call's inputs were converted)
    arrays = [p2["w"], p2["b"], s2.mu["w"], s2.nu["b"]]
    p1, s1, _ = plain(p1, s1, x, y)
    for _ in range(10):
        p1, s1, v1 = plain(p1, s1, x, y)
        p2, s2, v2 = donating(p2, s2, x, y)
    # The same arrays hold the parameters and the moments after every step.
    assert [p2["w"], p2["b"], s2.mu["w"], s2.nu["b"]] == arrays
    assert all(a is b for a, b in zip([p2["w"], p2["b"], s2.mu["w"], s2.nu["b"]], arrays))
    for k in start:
        np.testing.assert_array_equal(p2[k], p1[k])
    assert float(v1) == float(v2)


def test_bad_donate_argnums_say_what_is_wrong() -> None:
    with pytest.raises(ValueError, match="grad: donate_argnums is jit's"):
        relax_mlir.Transformed(lambda a: a, "grad", donate_argnums=0)
    with pytest.raises(ValueError, match=r"^\S*test_donation.py:\d+:\d+: donate_argnums 2 is "
                                         r"out of range"):
        relax_mlir.jit(lambda a, b: a, donate_argnums=2)
    with pytest.raises(ValueError, match="names a static argument"):
        relax_mlir.jit(lambda a, n: a, static_argnums=1, donate_argnums=1)
