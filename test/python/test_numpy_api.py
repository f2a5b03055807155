"""The array API a JAX user reaches for in the first week: argmax/argmin,
einsum, take_along_axis, expm1, logsumexp, one_hot, std, eye, `x.at[...]`
updates, bfloat16 arrays, and float64 canonicalized to float32 unless
`enable_x64`.

Values are checked against numpy (float64) and against JAX running the same
program (x64 on, as here), gradients against float64 central differences and
jax.grad.
"""

from __future__ import annotations

import ml_dtypes
import numpy as np
import pytest
import relax_mlir
import relax_mlir.nn as nn
import relax_mlir.numpy as rnp

jax = pytest.importorskip("jax")
jnp = pytest.importorskip("jax.numpy")
jax.config.update("jax_enable_x64", True)

RNG = np.random.default_rng(7)


def randn(*shape: int) -> np.ndarray:
    return RNG.standard_normal(shape)


def central_differences(f, x: np.ndarray, eps: float = 1e-6) -> np.ndarray:
    """d f / d x of a scalar numpy function, float64 central differences."""
    g = np.zeros_like(x)
    for i in np.ndindex(x.shape):
        plus, minus = x.copy(), x.copy()
        plus[i] += eps
        minus[i] -= eps
        g[i] = (f(plus) - f(minus)) / (2 * eps)
    return g


# ----------------------------------------------------------------------------
# argmax / argmin
# ----------------------------------------------------------------------------

@pytest.mark.parametrize("axis,keepdims", [(None, False), (0, False), (1, True), (-1, False),
                                           (None, True)])
@pytest.mark.parametrize("fn", ["argmax", "argmin"])
def test_argmax_argmin_match_numpy(fn: str, axis, keepdims: bool) -> None:
    x = RNG.integers(-3, 3, size=(4, 5)).astype(np.float64)  # ties: the first wins
    got = relax_mlir.jit(lambda a: getattr(rnp, fn)(a, axis, keepdims=keepdims))(x)
    want = getattr(np, fn)(x, axis=axis, keepdims=keepdims)
    assert got.dtype == np.int64
    np.testing.assert_array_equal(got, want)


def test_argmax_counts_nan_as_the_maximum_and_takes_ints_and_methods() -> None:
    x = np.array([[1.0, np.nan, 3.0, np.nan], [2.0, 5.0, 5.0, -1.0]])
    got = relax_mlir.jit(lambda a: (rnp.argmax(a, 1), rnp.argmin(a, 1), a.argmax(axis=1)))(x)
    np.testing.assert_array_equal(got[0], np.argmax(x, 1))   # [1, 1]
    np.testing.assert_array_equal(got[1], np.argmin(x, 1))   # [1, 3]
    np.testing.assert_array_equal(got[2], [1, 1])
    i = np.array([3, -7, 9, 9, 2], np.int32)
    assert relax_mlir.jit(rnp.argmax)(i) == 2


def test_accuracy_inside_jit_is_one_program() -> None:
    """The use that motivated argmax: accuracy of logits against labels."""
    logits = randn(16, 10)
    labels = RNG.integers(0, 10, 16)
    acc = relax_mlir.jit(lambda z, y: rnp.mean(rnp.argmax(z, axis=-1) == y))(logits, labels)
    np.testing.assert_allclose(acc, np.mean(np.argmax(logits, -1) == labels))


# ----------------------------------------------------------------------------
# einsum
# ----------------------------------------------------------------------------

EINSUMS = [
    ("ij,jk->ik", [(3, 4), (4, 5)]),
    ("ij,kj->ik", [(3, 4), (5, 4)]),
    ("bij,bjk->bik", [(2, 3, 4), (2, 4, 5)]),
    ("bhqd,bhkd->bhqk", [(2, 3, 4, 5), (2, 3, 6, 5)]),     # attention scores
    ("ij,ij->i", [(3, 4), (3, 4)]),
    ("i,j->ij", [(3,), (4,)]),                               # outer product
    ("ij->ji", [(3, 4)]),
    ("ijk->", [(2, 3, 4)]),
    ("ij,jk", [(3, 4), (4, 2)]),                             # implicit output
    ("ij,jk,kl->il", [(2, 3), (3, 4), (4, 5)]),              # three operands
    ("...ij,...jk->...ik", [(2, 3, 4), (2, 4, 5)]),
    ("ik,jkl->ijl", [(2, 3), (4, 3, 5)]),
    ("ij,j->i", [(3, 4), (4,)]),
    ("abc,c->ab", [(2, 1, 3), (3,)]),
]


@pytest.mark.parametrize("spec,shapes", EINSUMS, ids=[s for s, _ in EINSUMS])
def test_einsum_matches_numpy_and_its_gradient_matches_jax(spec: str, shapes) -> None:
    xs = [randn(*s) for s in shapes]
    got = relax_mlir.jit(lambda *a: rnp.einsum(spec, *a))(*xs)
    np.testing.assert_allclose(got, np.einsum(spec, *xs), rtol=1e-12, atol=1e-12)
    w = randn(*np.shape(got))
    grads = relax_mlir.grad(lambda *a: rnp.sum(rnp.einsum(spec, *a) * w),
                            argnums=tuple(range(len(xs))))(*xs)
    want = jax.grad(lambda *a: jnp.sum(jnp.einsum(spec, *a) * w),
                    argnums=tuple(range(len(xs))))(*xs)
    for g, h in zip(grads, want):
        np.testing.assert_allclose(g, h, rtol=1e-12, atol=1e-12)


def test_einsum_errors_say_what_is_wrong() -> None:
    a, b = randn(3, 4), randn(5, 4)
    with pytest.raises(ValueError, match="index 'j' has sizes 4 and 5"):
        relax_mlir.jit(lambda x, y: rnp.einsum("ij,jk->ik", x, y))(a, b)
    with pytest.raises(ValueError, match="names 2 operands, got 1"):
        relax_mlir.jit(lambda x: rnp.einsum("ij,jk->ik", x))(a)
    with pytest.raises(ValueError, match="a diagonal"):
        relax_mlir.jit(lambda x: rnp.einsum("ii->i", x))(randn(3, 3))
    with pytest.raises(ValueError, match="output index 'z'"):
        relax_mlir.jit(lambda x: rnp.einsum("ij->iz", x))(a)


# ----------------------------------------------------------------------------
# take_along_axis, expm1, logsumexp, one_hot, std, eye
# ----------------------------------------------------------------------------

@pytest.mark.parametrize("shape,ishape,axis", [((4, 5), (4, 2), 1), ((4, 5), (3, 5), 0),
                                               ((2, 3, 4), (2, 3, 1), -1),
                                               ((3, 4), (1, 4), 0), ((6,), (4,), None)])
def test_take_along_axis_matches_numpy_with_its_gradient(shape, ishape, axis) -> None:
    x = randn(*shape)
    n = x.size if axis is None else shape[axis]
    idx = RNG.integers(-n, n, size=ishape)
    got = relax_mlir.jit(lambda a, i: rnp.take_along_axis(a, i, axis))(x, idx)
    np.testing.assert_array_equal(got, np.take_along_axis(x, idx, axis))
    w = randn(*got.shape)
    g = relax_mlir.grad(lambda a: rnp.sum(rnp.take_along_axis(a, idx, axis) * w))(x)
    want = central_differences(lambda a: np.sum(np.take_along_axis(a, idx, axis) * w), x)
    np.testing.assert_allclose(g, want, rtol=1e-6, atol=1e-8)


def test_take_along_axis_argsort_style_use() -> None:
    """The common use: values at argmax positions, kept as a column."""
    x = randn(5, 7)
    idx = np.argmax(x, axis=1)[:, None]
    got = relax_mlir.jit(lambda a: rnp.take_along_axis(a, rnp.argmax(a, 1)[:, None], 1))(x)
    np.testing.assert_array_equal(got, np.take_along_axis(x, idx, 1))


def test_expm1_is_accurate_where_exp_rounds_to_one_in_float32() -> None:
    x = np.array([1e-10, -3e-8, 1e-5, 0.3, -2.0, 60.0, 100.0, -np.inf, np.inf], np.float32)
    with relax_mlir_x64(False):
        got = relax_mlir.jit(rnp.expm1)(x)
    assert got.dtype == np.float32
    with np.errstate(over="ignore"):
        want = np.expm1(x.astype(np.float64)).astype(np.float32)   # 100: inf in float32
    np.testing.assert_allclose(got, want, rtol=2e-6)  # exp(x) - 1 gives 0 for 1e-10
    g = relax_mlir.grad(lambda a: rnp.sum(rnp.expm1(a)))(randn(5))
    assert np.all(np.isfinite(g))


@pytest.mark.parametrize("axis", [None, 0, 1, (0, 1)])
def test_logsumexp_matches_jax_and_does_not_overflow(axis) -> None:
    x = randn(3, 4) * 3 + 800.0   # exp overflows without the shift
    got = relax_mlir.jit(lambda a: nn.logsumexp(a, axis))(x)
    want = jax.nn.logsumexp(x, axis)
    np.testing.assert_allclose(got, want, rtol=1e-12)
    g = relax_mlir.grad(lambda a: rnp.sum(nn.logsumexp(a, axis)))(x)
    np.testing.assert_allclose(g, jax.grad(lambda a: jnp.sum(jax.nn.logsumexp(a, axis)))(x),
                               rtol=1e-10, atol=1e-12)


def test_logsumexp_of_all_minus_infinity_is_minus_infinity_and_weights() -> None:
    x = np.array([[-np.inf, -np.inf], [0.0, np.log(3.0)]])
    got = relax_mlir.jit(lambda a: nn.logsumexp(a, axis=1, keepdims=True))(x)
    np.testing.assert_allclose(got, [[-np.inf], [np.log(4.0)]])
    b = np.array([0.5, 2.0])
    got = relax_mlir.jit(lambda a: nn.logsumexp(a, axis=1, b=b))(x[1:])
    np.testing.assert_allclose(got, np.log(0.5 + 6.0))


def test_one_hot_matches_jax_including_out_of_range_and_axis() -> None:
    labels = np.array([0, 3, 1, 5, -1])
    np.testing.assert_array_equal(relax_mlir.jit(lambda y: nn.one_hot(y, 4))(labels),
                                  jax.nn.one_hot(labels, 4))
    got = relax_mlir.jit(lambda y: nn.one_hot(y, 4, axis=0, dtype=rnp.int32))(labels)
    assert got.dtype == np.int32
    np.testing.assert_array_equal(got, jax.nn.one_hot(labels, 4, axis=0, dtype=jnp.int32))
    with pytest.raises(TypeError, match="integer classes"):
        relax_mlir.jit(lambda y: nn.one_hot(y, 4))(labels.astype(np.float64))


@pytest.mark.parametrize("axis,ddof", [(None, 0), (0, 1), (1, 0), ((0, 1), 1)])
def test_std_and_var_with_ddof_match_numpy(axis, ddof: int) -> None:
    x = randn(4, 5)
    got = relax_mlir.jit(lambda a: (rnp.std(a, axis, ddof=ddof), a.var(axis, ddof=ddof)))(x)
    np.testing.assert_allclose(got[0], np.std(x, axis, ddof=ddof), rtol=1e-12)
    np.testing.assert_allclose(got[1], np.var(x, axis, ddof=ddof), rtol=1e-12)
    g = relax_mlir.grad(lambda a: rnp.sum(rnp.std(a, axis, ddof=ddof)))(x)
    np.testing.assert_allclose(g, central_differences(
        lambda a: np.sum(np.std(a, axis, ddof=ddof)), x), rtol=1e-6, atol=1e-8)


def test_eye_matches_numpy() -> None:
    got = relax_mlir.jit(lambda a: (rnp.eye(3), rnp.eye(2, 4, k=1, dtype=rnp.int32) + a))(
        np.int32(1))
    np.testing.assert_array_equal(got[0], np.eye(3))
    np.testing.assert_array_equal(got[1], np.eye(2, 4, k=1, dtype=np.int32) + 1)


# ----------------------------------------------------------------------------
# x.at[index]
# ----------------------------------------------------------------------------

# (index as a function of the traced or numpy index array, values' shape)
AT_INDEXES = [
    ("int", lambda i: 2, (5,)),
    ("slice", lambda i: slice(1, 4), (3, 5)),
    ("row-col", lambda i: (1, slice(None, None, 2)), (3,)),
    ("ellipsis", lambda i: (Ellipsis, 0), (4,)),
    ("array-repeats", lambda i: i, (5, 5)),
    ("array-then-int", lambda i: (i, 3), (5,)),
]


@pytest.mark.parametrize("method", ["set", "add", "multiply", "min", "max"])
@pytest.mark.parametrize("name,index,vshape", AT_INDEXES, ids=[n for n, _, _ in AT_INDEXES])
def test_at_updates_match_jax_with_gradients(method: str, name: str, index, vshape) -> None:
    x = randn(4, 5)
    v = randn(*vshape)
    idx = np.array([2, 0, 2, -1, 3])   # repeats and a negative index

    def ours(a, b, i):
        return getattr(a.at[index(i)], method)(b)

    def theirs(a, b, i):
        return getattr(a.at[index(i)], method)(b)

    repeats = name == "array-repeats" or name == "array-then-int"
    for traced in (False, True):
        if traced:
            got = relax_mlir.jit(ours)(x, v, idx)
        else:
            got = relax_mlir.jit(lambda a, b: ours(a, b, idx))(x, v)
        if method == "set" and repeats:
            # JAX leaves which repeated update wins unspecified; ours is the last.
            want = x.copy()
            flat = np.arange(x.size).reshape(x.shape)[index(idx)]
            for p, val in zip(flat.reshape(-1), np.broadcast_to(v, flat.shape).reshape(-1)):
                want.reshape(-1)[p] = val
        else:
            want = np.asarray(theirs(jnp.asarray(x), jnp.asarray(v), idx))
        np.testing.assert_allclose(got, want, rtol=1e-12, err_msg=f"traced={traced}")
    w = randn(4, 5)

    def loss(a, b):
        return rnp.sum(ours(a, b, idx) * w)

    gx, gv = relax_mlir.grad(loss, argnums=(0, 1))(x, v)

    def loss_np(a, b):
        out = a.copy()
        flat = np.arange(a.size).reshape(a.shape)[index(idx)]
        vals = np.broadcast_to(b, flat.shape).reshape(-1)
        for p, val in zip(flat.reshape(-1), vals):
            o = out.reshape(-1)
            o[p] = {"set": lambda old, new: new, "add": np.add, "multiply": np.multiply,
                    "min": np.minimum, "max": np.maximum}[method](o[p], val)
        return np.sum(out * w)

    np.testing.assert_allclose(gx, central_differences(lambda a: loss_np(a, v), x),
                               rtol=1e-6, atol=1e-8)
    np.testing.assert_allclose(gv, central_differences(lambda b: loss_np(x, b), v),
                               rtol=1e-6, atol=1e-8)


def test_at_get_and_errors() -> None:
    x = randn(3, 4)
    np.testing.assert_array_equal(relax_mlir.jit(lambda a: a.at[1, ::2].get())(x), x[1, ::2])
    with pytest.raises(IndexError, match="x.at"):
        relax_mlir.jit(lambda a: a.at[7].set(0.0))(x)
    with pytest.raises(TypeError, match="bool"):
        relax_mlir.jit(lambda a: (a > 0).at[0].set(True))(x)


def test_at_set_leaves_the_input_unchanged_and_casts_values() -> None:
    x = np.arange(6, dtype=np.int64).reshape(2, 3)
    got = relax_mlir.jit(lambda a: (a.at[0, 1].set(2.7), a))(x)
    np.testing.assert_array_equal(got[0], [[0, 2, 2], [3, 4, 5]])   # 2.7 -> int64 2
    np.testing.assert_array_equal(got[1], x)


# ----------------------------------------------------------------------------
# bfloat16 and float64 canonicalization
# ----------------------------------------------------------------------------

class relax_mlir_x64:
    """config.enable_x64 set for a block, restored after."""

    def __init__(self, value: bool) -> None:
        self.value = value

    def __enter__(self) -> None:
        self.saved = relax_mlir.config.enable_x64
        relax_mlir.config.update("enable_x64", self.value)

    def __exit__(self, *exc: object) -> None:
        relax_mlir.config.update("enable_x64", self.saved)


def test_float64_is_float32_by_default_as_in_jax() -> None:
    """numpy's float64 data trains in float32 unless enable_x64: arguments,
    constants, astype and creation dtypes; ints keep their width."""
    x = RNG.standard_normal((3, 4))          # float64
    w = np.ones((4, 2))                      # float64
    with relax_mlir_x64(False):
        f = relax_mlir.jit(lambda a, b: (a @ b + np.float64(1.0), rnp.zeros(2, rnp.float64),
                                         a.astype(np.float64), rnp.arange(3)))
        out = f(x, w)
        g = relax_mlir.grad(lambda a: rnp.sum(a * np.linspace(0, 1, 4)))(x)
    assert [o.dtype for o in out] == [np.float32, np.float32, np.float32, np.int64]
    np.testing.assert_allclose(out[0], x @ w + 1, rtol=1e-6)
    assert g.dtype == np.float32
    with relax_mlir_x64(True):
        out = f(x, w)     # a new trace: x64 is part of the signature
    assert [o.dtype for o in out] == [np.float64, np.float64, np.float64, np.int64]


def test_enable_x64_is_a_documented_setting_with_an_environment_default() -> None:
    assert "enable_x64" in relax_mlir.config.__doc__
    with pytest.raises(ValueError, match="True or False"):
        relax_mlir.config.update("enable_x64", 1)


def test_bfloat16_crosses_the_boundary_through_ml_dtypes() -> None:
    x = RNG.standard_normal((4, 3)).astype(ml_dtypes.bfloat16)
    assert rnp.bfloat16 is ml_dtypes.bfloat16
    out = relax_mlir.jit(lambda a: (a * 2, rnp.sum(a.astype(rnp.float32)),
                                    a.astype("bfloat16")))(x)
    assert out[0].dtype == ml_dtypes.bfloat16
    np.testing.assert_array_equal(out[0].astype(np.float32), x.astype(np.float32) * 2)
    np.testing.assert_allclose(out[1], x.astype(np.float32).sum(), rtol=1e-6)
    g = relax_mlir.grad(lambda a: rnp.sum(a * a).astype(rnp.float32))(x)
    assert g.dtype == ml_dtypes.bfloat16
    np.testing.assert_allclose(g.astype(np.float32), 2 * x.astype(np.float32), rtol=1e-2)
    # float16 with bfloat16 computes in float32 (neither holds the other), as JAX.
    h = np.ones(3, np.float16)
    both = relax_mlir.jit(lambda a, b: a + b)(h, np.ones(3, ml_dtypes.bfloat16))
    assert both.dtype == np.float32


def test_errors_name_the_callers_line_and_what_to_write() -> None:
    line = r"\S*test_numpy_api.py:\d+:\d+: "
    cases = [
        (lambda a: rnp.einsum("ij,jk->ik", a, a.T[:2]), ValueError, "one size"),
        (lambda a: rnp.take_along_axis(a, np.zeros((3,), np.int64), 1), ValueError,
         "add axes"),
        (lambda a: a.at[9].set(0.0), IndexError, "within its shape"),
        (lambda a: nn.one_hot(a, 3), TypeError, r"\.astype\(relax_mlir\.numpy\.int32\)"),
        (lambda a: rnp.left_shift(a, 1), TypeError, "convert them"),
    ]
    for fn, error, advice in cases:
        with pytest.raises(error, match=f"(?s)^{line}.*{advice}"):
            relax_mlir.jit(fn)(randn(3, 4))
