"""relax_mlir.random: Threefry-2x32 from relax ops, JAX's key handling and
distributions, reproducibility (eager, jit, vmap, checkpointed recompute),
statistical sanity, and nn.dropout.

JAX (in requirements-dev.txt) is the reference for values: keys, uniform,
bernoulli, randint and permutation agree bit for bit, normal to rounding.
"""

from __future__ import annotations

import numpy as np
import pytest
import relax_mlir
import relax_mlir.nn as nn
import relax_mlir.numpy as rnp
import relax_mlir.random as rr

jax = pytest.importorskip("jax")
scipy_stats = pytest.importorskip("scipy.stats")
jax.config.update("jax_enable_x64", True)


def words(key) -> list[int]:
    """A key's (or hash's) words as uint32 values."""
    return np.asarray(key).view(np.uint32).reshape(-1).tolist()


# Random123's known-answer vectors for threefry2x32_20 (the ones JAX tests):
# (key words, counter words) -> output words.
KAT = [((0x00000000, 0x00000000), (0x00000000, 0x00000000), (0x6B200159, 0x99BA4EFE)),
       ((0xFFFFFFFF, 0xFFFFFFFF), (0xFFFFFFFF, 0xFFFFFFFF), (0x1CB996FC, 0xBB002BE7)),
       ((0x13198A2E, 0x03707344), (0x243F6A88, 0x85A308D3), (0xC4923A9C, 0x483DF7A0))]


@pytest.mark.parametrize("key,count,want", KAT)
def test_threefry_matches_the_published_test_vectors(key, count, want) -> None:
    k = np.array(key, np.uint32).view(np.int32)
    c = np.array(count, np.uint32).view(np.int32)
    assert words(relax_mlir.jit(rr.threefry_2x32)(k, c)) == list(want)
    assert words(rr.threefry_2x32(k, c)) == list(want)          # eagerly


@pytest.mark.parametrize("seed", [0, 1, 42, 2 ** 31 + 5, 2 ** 40 + 3, -7])
def test_keys_split_and_fold_in_match_jax(seed: int) -> None:
    key = rr.PRNGKey(seed)
    want = jax.random.PRNGKey(seed)
    assert key.dtype == np.int32 and key.shape == (2,)
    assert words(key) == np.asarray(want).tolist()
    assert words(rr.split(key)) == np.asarray(jax.random.split(want)).reshape(-1).tolist()
    assert words(rr.split(key, 5)) == np.asarray(jax.random.split(want, 5)).reshape(-1).tolist()
    assert rr.split(key, (2, 3)).shape == (2, 3, 2)
    assert words(rr.fold_in(key, 7)) == np.asarray(jax.random.fold_in(want, 7)).tolist()


def test_a_traced_seed_makes_the_same_key() -> None:
    for seed in (0, 9, -3):
        got = relax_mlir.jit(rr.PRNGKey)(np.int32(seed))
        assert words(got) == np.asarray(jax.random.PRNGKey(seed)).tolist()
    got = relax_mlir.jit(rr.PRNGKey)(np.int64(2 ** 40 + 3))
    assert words(got) == np.asarray(jax.random.PRNGKey(2 ** 40 + 3)).tolist()


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("shape", [(), (7,), (3, 5)])
def test_uniform_matches_jax_bit_for_bit(dtype, shape) -> None:
    key, jkey = rr.PRNGKey(3), jax.random.PRNGKey(3)
    got = relax_mlir.jit(lambda k: rr.uniform(k, shape, dtype))(key)
    assert got.dtype == dtype and got.shape == shape
    np.testing.assert_array_equal(got, jax.random.uniform(jkey, shape, dtype))
    # u * (maxval - minval) + minval, rounded twice as written; XLA fuses it
    # into one FMA, so JAX's may differ in the last bit.
    got = relax_mlir.jit(lambda k: rr.uniform(k, shape, dtype, -2.0, 3.0))(key)
    u = np.asarray(jax.random.uniform(jkey, shape, dtype))
    np.testing.assert_array_equal(got, np.maximum(dtype(-2.0), u * dtype(5.0) + dtype(-2.0)))
    np.testing.assert_array_almost_equal_nulp(
        got, np.asarray(jax.random.uniform(jkey, shape, dtype, -2.0, 3.0)), nulp=2)


@pytest.mark.parametrize("dtype,rtol", [(np.float32, 3e-6), (np.float64, 1e-12)])
def test_normal_matches_jax_to_rounding(dtype, rtol) -> None:
    got = relax_mlir.jit(lambda k: rr.normal(k, (4000,), dtype))(rr.PRNGKey(11))
    want = np.asarray(jax.random.normal(jax.random.PRNGKey(11), (4000,), dtype))
    np.testing.assert_allclose(got, want, rtol=rtol, atol=rtol)


def test_bernoulli_randint_and_permutation_match_jax() -> None:
    key, jkey = rr.PRNGKey(5), jax.random.PRNGKey(5)
    np.testing.assert_array_equal(rr.bernoulli(key, 0.3, (50,)),
                                  jax.random.bernoulli(jkey, 0.3, (50,)))
    p = np.linspace(0.0, 1.0, 6)
    np.testing.assert_array_equal(relax_mlir.jit(rr.bernoulli)(key, p),
                                  jax.random.bernoulli(jkey, p))
    for lo, hi in [(0, 10), (-5, 5), (3, 3), (7, 2), (-2 ** 31, 2 ** 31 - 1), (0, 70000)]:
        got = relax_mlir.jit(lambda k, lo=lo, hi=hi: rr.randint(k, (40,), lo, hi))(key)
        np.testing.assert_array_equal(got, jax.random.randint(jkey, (40,), lo, hi, np.int32),
                                      err_msg=f"[{lo}, {hi})")
    np.testing.assert_array_equal(rr.permutation(key, 10), jax.random.permutation(jkey, 10))
    x = np.arange(12.0).reshape(3, 4)
    np.testing.assert_array_equal(relax_mlir.jit(lambda k, a: rr.permutation(k, a, axis=1))(
        key, x), jax.random.permutation(jkey, x, axis=1))
    with pytest.raises(ValueError, match="n\\^2 memory"):
        relax_mlir.jit(lambda k: rr.permutation(k, 10 ** 5))(key)


def test_the_draws_are_statistically_sane() -> None:
    key = rr.PRNGKey(2024)
    k1, k2, k3 = rr.split(key, 3)
    u = rr.uniform(k1, (200_000,))
    n = rr.normal(k2, (200_000,))
    b = rr.bernoulli(k3, 0.25, (200_000,))
    assert abs(u.mean() - 0.5) < 0.005 and abs(u.var() - 1 / 12) < 0.002
    assert u.min() >= 0.0 and u.max() < 1.0
    assert abs(n.mean()) < 0.01 and abs(n.var() - 1.0) < 0.02
    assert abs(b.mean() - 0.25) < 0.005
    assert scipy_stats.kstest(u, "uniform").pvalue > 0.01
    assert scipy_stats.kstest(n, "norm").pvalue > 0.01


def test_the_same_key_gives_the_same_numbers_eagerly_in_jit_and_in_vmap() -> None:
    keys = rr.split(rr.PRNGKey(8), 4)
    eager = np.stack([rr.normal(k, (3,)) for k in keys])
    jitted = np.stack([relax_mlir.jit(lambda k: rr.normal(k, (3,)))(k) for k in keys])
    batched = relax_mlir.vmap(lambda k: rr.normal(k, (3,)))(keys)
    np.testing.assert_array_equal(eager, jitted)
    np.testing.assert_array_equal(batched, jitted)
    assert len({tuple(row) for row in eager.tolist()}) == 4     # different keys differ


def test_dropout_scales_the_kept_values_and_its_gradient_is_the_mask() -> None:
    x = np.random.default_rng(0).normal(size=(64, 32))
    key = rr.PRNGKey(1)
    y = relax_mlir.jit(lambda k, a: nn.dropout(k, a, 0.25))(key, x)
    kept = y != 0
    assert 0.70 < kept.mean() < 0.80
    np.testing.assert_allclose(y[kept], x[kept] / 0.75)
    g = relax_mlir.grad(lambda a: rnp.sum(nn.dropout(key, a, 0.25)))(x)
    np.testing.assert_allclose(g, kept / 0.75)
    np.testing.assert_array_equal(relax_mlir.jit(lambda k, a: nn.dropout(k, a, 0.0))(key, x), x)
    np.testing.assert_array_equal(
        relax_mlir.jit(lambda k, a: nn.dropout(k, a, 0.5, deterministic=True))(key, x), x)
    with pytest.raises(ValueError, match="rate"):
        relax_mlir.jit(lambda k, a: nn.dropout(k, a, 1.0))(key, x)


def test_a_checkpointed_segment_redraws_the_same_mask() -> None:
    """The recomputed forward pass of a checkpointed segment hashes the same
    key: the gradient equals the stored-activation one exactly."""
    rng = np.random.default_rng(4)
    w1, w2 = rng.normal(size=(8, 16)), rng.normal(size=(16, 4))
    x = rng.normal(size=(5, 8))
    key = rr.PRNGKey(9)

    def block(k, w, h):
        return nn.dropout(k, rnp.tanh(h @ w), 0.5)

    def loss(w1, w2, checkpointed):
        f = relax_mlir.checkpoint(block) if checkpointed else block
        h = f(key, w1, x)
        return rnp.sum((h @ w2) ** 2)

    plain = relax_mlir.grad(lambda a, b: loss(a, b, False), argnums=(0, 1))(w1, w2)
    ckpt = relax_mlir.grad(lambda a, b: loss(a, b, True), argnums=(0, 1))(w1, w2)
    text = relax_mlir.grad(lambda a, b: loss(a, b, True)).lower(w1, w2).as_text("adjoint")
    assert "relax.start_checkpoint" in text or "relax.end_checkpoint" in text or \
        text.count("relax.tanh") >= 2
    for p, c in zip(plain, ckpt):
        np.testing.assert_array_equal(p, c)


def test_bad_keys_and_arguments_say_what_to_do() -> None:
    with pytest.raises(TypeError, match="int32 array of shape \\(2,\\)"):
        rr.uniform(np.zeros(3, np.int32), (2,))
    with pytest.raises(TypeError, match="integer seed"):
        rr.PRNGKey(1.5)
    with pytest.raises(TypeError, match="float dtype"):
        rr.uniform(rr.PRNGKey(0), (2,), np.int32)


def test_errors_name_the_callers_line() -> None:
    with pytest.raises(TypeError, match=r"^\S*test_random.py:\d+:\d+: a random key"):
        relax_mlir.jit(lambda k: rr.normal(k, (2,)))(np.zeros(3, np.int32))
    with pytest.raises(ValueError, match=r"^\S*test_random.py:\d+:\d+: permutation of 9000"):
        relax_mlir.jit(lambda k: rr.permutation(k, 9000))(rr.PRNGKey(0))
