"""The tracing frontend: relax_mlir.numpy / nn, jit, grad, value_and_grad, vjp.

Gradients are checked against float64 central finite differences of the
compiled forward function and, where JAX is installed, against jax.grad of the
same program written with jax.numpy.
"""

from __future__ import annotations

import collections
import inspect
import os

import numpy as np
import pytest
import relax_mlir
import relax_mlir.nn as nn
import relax_mlir.numpy as rnp

try:
    import jax
    import jax.numpy as jnp
    jax.config.update("jax_enable_x64", True)
except ImportError:  # pragma: no cover - JAX is in requirements-dev.txt
    jax = None

needs_jax = pytest.mark.skipif(jax is None, reason="JAX is not installed")
RNG = np.random.default_rng(1234)


def randn(*shape: int, dtype=np.float64) -> np.ndarray:
    return RNG.standard_normal(shape).astype(dtype)


def finite_difference(f, args, argnum, eps=1e-6, samples=None):
    """Central differences of scalar f with respect to the leaves of args[argnum]
    (a dict, tuple or array); the gradient in the same structure. `samples`
    limits each leaf to that many random coordinates (others NaN)."""
    def leaves_of(tree):
        if isinstance(tree, dict):
            return [(k, tree[k]) for k in sorted(tree)]
        if isinstance(tree, (tuple, list)):
            return list(enumerate(tree))
        return [(None, tree)]

    target = args[argnum]
    grads = {}
    for key, leaf in leaves_of(target):
        g = np.full(leaf.shape, np.nan)
        coords = list(np.ndindex(leaf.shape))
        if samples is not None and len(coords) > samples:
            coords = [coords[i] for i in RNG.choice(len(coords), samples, replace=False)]
        for idx in coords:
            values = []
            for sign in (1, -1):
                bumped = leaf.copy()
                bumped[idx] += sign * eps
                new = dict(target) if isinstance(target, dict) else \
                    list(target) if isinstance(target, (tuple, list)) else None
                if new is None:
                    new = bumped
                else:
                    new[key] = bumped
                    if isinstance(target, tuple):
                        new = tuple(new)
                a = list(args)
                a[argnum] = new
                values.append(float(f(*a)))
            g[idx] = (values[0] - values[1]) / (2 * eps)
        grads[key] = g
    if isinstance(target, dict):
        return grads
    if isinstance(target, (tuple, list)):
        return type(target)(grads[i] for i in range(len(target)))
    return grads[None]


def assert_close_where_sampled(actual, expected, rtol=1e-5, atol=1e-7):
    mask = ~np.isnan(expected)
    assert mask.any()
    np.testing.assert_allclose(np.asarray(actual)[mask], expected[mask], rtol=rtol, atol=atol)


# ----------------------------------------------------------------------------
# The models of the issue: MLP, CNN, layer-norm block
# ----------------------------------------------------------------------------

def mlp_loss(params, x, labels):
    h = nn.relu(x @ params["w1"] + params["b1"])
    return nn.cross_entropy(h @ params["w2"] + params["b2"], labels)


def mlp_loss_jax(params, x, labels):
    h = jax.nn.relu(x @ params["w1"] + params["b1"])
    logp = jax.nn.log_softmax(h @ params["w2"] + params["b2"], axis=1)
    return -jnp.mean(logp[jnp.arange(x.shape[0]), labels])


def mlp_params(dtype=np.float64):
    return {"w1": randn(12, 16, dtype=dtype) * 0.3, "b1": randn(16, dtype=dtype) * 0.1,
            "w2": randn(16, 4, dtype=dtype) * 0.3, "b2": randn(4, dtype=dtype) * 0.1}


def test_mlp_grad_matches_finite_differences():
    params, x, labels = mlp_params(), randn(6, 12), RNG.integers(0, 4, 6)
    grads = relax_mlir.grad(mlp_loss)(params, x, labels)
    assert sorted(grads) == ["b1", "b2", "w1", "w2"]
    forward = relax_mlir.jit(mlp_loss)
    fd = finite_difference(forward, (params, x, labels), 0, samples=12)
    for k in grads:
        assert grads[k].shape == params[k].shape and grads[k].dtype == np.float64
        assert_close_where_sampled(grads[k], fd[k])


@needs_jax
def test_mlp_value_and_grad_matches_jax():
    params, x, labels = mlp_params(), randn(6, 12), RNG.integers(0, 4, 6)
    value, grads = relax_mlir.value_and_grad(mlp_loss)(params, x, labels)
    jvalue, jgrads = jax.value_and_grad(mlp_loss_jax)(params, x, labels)
    np.testing.assert_allclose(value, jvalue, rtol=1e-12)
    for k in params:
        np.testing.assert_allclose(grads[k], jgrads[k], rtol=1e-10, atol=1e-12)


def cnn_loss(params, images, labels):
    h = nn.relu(nn.conv2d(images, params["c1"], params["cb1"], padding=1))
    h = nn.max_pool2d(h, 2)
    h = nn.relu(nn.conv2d(h, params["c2"], padding=1))
    h = nn.avg_pool2d(h, 2)
    logits = h.reshape(h.shape[0], -1) @ params["w"]
    return nn.cross_entropy(logits, labels)


def cnn_loss_jax(params, images, labels):
    def conv(x, w):
        return jax.lax.conv_general_dilated(x, w, (1, 1), [(1, 1), (1, 1)],
                                            dimension_numbers=("NCHW", "OIHW", "NCHW"))
    h = jax.nn.relu(conv(images, params["c1"]) + params["cb1"].reshape(-1, 1, 1))
    h = jax.lax.reduce_window(h, -jnp.inf, jax.lax.max, (1, 1, 2, 2), (1, 1, 2, 2), "VALID")
    h = jax.nn.relu(conv(h, params["c2"]))
    h = jax.lax.reduce_window(h, 0.0, jax.lax.add, (1, 1, 2, 2), (1, 1, 2, 2), "VALID") / 4
    logp = jax.nn.log_softmax(h.reshape(h.shape[0], -1) @ params["w"], axis=1)
    return -jnp.mean(logp[jnp.arange(images.shape[0]), labels])


def cnn_params():
    return {"c1": randn(4, 2, 3, 3) * 0.4, "cb1": randn(4) * 0.1, "c2": randn(6, 4, 3, 3) * 0.3,
            "w": randn(6 * 2 * 2, 3) * 0.3}


def test_cnn_grad_matches_finite_differences():
    params, images, labels = cnn_params(), randn(3, 2, 8, 8), RNG.integers(0, 3, 3)
    grads = relax_mlir.grad(cnn_loss)(params, images, labels)
    fd = finite_difference(relax_mlir.jit(cnn_loss), (params, images, labels), 0, samples=6)
    for k in params:
        assert_close_where_sampled(grads[k], fd[k], rtol=1e-4, atol=1e-7)


@needs_jax
def test_cnn_grad_matches_jax():
    params, images, labels = cnn_params(), randn(3, 2, 8, 8), RNG.integers(0, 3, 3)
    grads = relax_mlir.grad(cnn_loss)(params, images, labels)
    jgrads = jax.grad(cnn_loss_jax)(params, images, labels)
    for k in params:
        np.testing.assert_allclose(grads[k], jgrads[k], rtol=1e-9, atol=1e-12)


def block_loss(p, x):
    h = nn.layer_norm(x, p["gamma"], p["beta"])
    h = nn.gelu(h @ p["w1"]) @ p["w2"]
    return rnp.mean((x + h) ** 2)


def block_loss_jax(p, x):
    mu = x.mean(-1, keepdims=True)
    var = ((x - mu) ** 2).mean(-1, keepdims=True)
    h = (x - mu) / jnp.sqrt(var + 1e-5) * p["gamma"] + p["beta"]
    h = jax.nn.gelu(h @ p["w1"], approximate=False) @ p["w2"]
    return jnp.mean((x + h) ** 2)


def block_params():
    return {"gamma": 1 + 0.1 * randn(8), "beta": 0.1 * randn(8), "w1": randn(8, 16) * 0.3,
            "w2": randn(16, 8) * 0.3}


def test_layer_norm_block_grad_matches_finite_differences():
    p, x = block_params(), randn(2, 5, 8)
    g_p, g_x = relax_mlir.grad(block_loss, argnums=(0, 1))(p, x)
    forward = relax_mlir.jit(block_loss)
    fd_p = finite_difference(forward, (p, x), 0, samples=8)
    fd_x = finite_difference(forward, (p, x), 1, samples=12)
    for k in p:
        assert_close_where_sampled(g_p[k], fd_p[k])
    assert_close_where_sampled(g_x, fd_x)


@needs_jax
def test_layer_norm_block_matches_jax():
    p, x = block_params(), randn(2, 5, 8)
    (v, (g_p, g_x)) = relax_mlir.value_and_grad(block_loss, argnums=(0, 1))(p, x)
    jv, (jg_p, jg_x) = jax.value_and_grad(block_loss_jax, argnums=(0, 1))(p, x)
    np.testing.assert_allclose(v, jv, rtol=1e-12)
    np.testing.assert_allclose(g_x, jg_x, rtol=1e-9, atol=1e-12)
    for k in p:
        np.testing.assert_allclose(g_p[k], jg_p[k], rtol=1e-9, atol=1e-12)


# ----------------------------------------------------------------------------
# Transformation options: argnums, has_aux, pytrees, vjp, static arguments
# ----------------------------------------------------------------------------

def test_argnums_order_and_tuple_pytrees():
    def f(a, bc):
        b, c = bc
        return rnp.sum(rnp.tanh(a * b) + c ** 2)

    a, b, c = randn(3), randn(3), randn(3)
    g_bc, g_a = relax_mlir.grad(f, argnums=(1, 0))(a, (b, c))
    t = np.tanh(a * b)
    np.testing.assert_allclose(g_a, (1 - t ** 2) * b, rtol=1e-12)
    assert isinstance(g_bc, tuple) and len(g_bc) == 2
    np.testing.assert_allclose(g_bc[0], (1 - t ** 2) * a, rtol=1e-12)
    np.testing.assert_allclose(g_bc[1], 2 * c, rtol=1e-12)
    lists = relax_mlir.grad(lambda xs: rnp.sum(xs[0] * xs[1]))([a, b])
    assert isinstance(lists, list)
    np.testing.assert_allclose(lists[0], b)


def test_log1p_is_accurate_for_small_x_and_differentiates():
    """numpy's log1p: x itself where 1 + x rounds to 1 (log(1 + x) would give 0), in
    float32 and float64; its gradient is 1 / (1 + x)."""
    for dtype in (np.float32, np.float64):
        x = np.array([1e-10, -3e-9, 0.5, 4.0], dtype)
        out = relax_mlir.jit(rnp.log1p)(x)
        assert out.dtype == dtype
        np.testing.assert_allclose(out, np.log1p(x.astype(np.float64)),
                                   rtol=2e-7 if dtype == np.float32 else 1e-15)
    x = np.array([1e-10, -0.5, 0.5, 4.0])
    np.testing.assert_allclose(relax_mlir.grad(lambda v: rnp.sum(rnp.log1p(v)))(x), 1 / (1 + x),
                               rtol=1e-14)


def test_has_aux_returns_aux_unchanged():
    def f(w, x):
        pred = x @ w
        return rnp.mean(pred ** 2), {"pred": pred, "n": rnp.sum(pred > 0)}

    w, x = randn(3, 2), randn(4, 3)
    g, aux = relax_mlir.grad(f, has_aux=True)(w, x)
    np.testing.assert_allclose(g, x.T @ (2 * (x @ w) / 8), rtol=1e-12)
    np.testing.assert_allclose(aux["pred"], x @ w, rtol=1e-12)
    assert aux["n"] == np.sum(x @ w > 0) and aux["n"].dtype == np.int64
    (loss, aux2), g2 = relax_mlir.value_and_grad(f, has_aux=True)(w, x)
    np.testing.assert_allclose(loss, np.mean((x @ w) ** 2), rtol=1e-12)
    np.testing.assert_allclose(g2, g)


def test_vjp_of_non_scalar_tuple_output():
    def f(x, w):
        y = x @ w
        return rnp.tanh(y), y.sum(axis=0)

    x, w = randn(4, 3), randn(3, 2)
    (out_t, out_s), pull = relax_mlir.vjp(f, x, w)
    np.testing.assert_allclose(out_t, np.tanh(x @ w), rtol=1e-12)
    ct_t, ct_s = randn(4, 2), randn(2)
    gx, gw = pull((ct_t, ct_s))
    dy = ct_t * (1 - np.tanh(x @ w) ** 2) + ct_s
    np.testing.assert_allclose(gx, dy @ w.T, rtol=1e-10)
    np.testing.assert_allclose(gw, x.T @ dy, rtol=1e-10)
    with pytest.raises(TypeError, match="structure of the output"):
        pull(ct_t)


@needs_jax
def test_vjp_matches_jax():
    def f(x):
        return rnp.exp(x) * rnp.sin(x[::-1])

    x, ct = randn(5), randn(5)
    _, pull = relax_mlir.vjp(f, x)
    _, jpull = jax.vjp(lambda v: jnp.exp(v) * jnp.sin(v[::-1]), x)
    np.testing.assert_allclose(pull(ct)[0], jpull(ct)[0], rtol=1e-12)


def test_jit_pytree_results_static_arguments_and_keywords():
    calls = []

    def f(x, scale, *, axis=0):
        calls.append(scale)
        return {"sum": x.sum(axis=axis) * scale, "shape": (x.T, [x + 1])}

    g = relax_mlir.jit(f, static_argnums=1, static_argnames="axis")
    x = randn(3, 4)
    out = g(x, 2.0, axis=1)
    np.testing.assert_allclose(out["sum"], x.sum(axis=1) * 2)
    assert isinstance(out["shape"], tuple) and isinstance(out["shape"][1], list)
    np.testing.assert_allclose(out["shape"][0], x.T)
    g(x, 2.0, axis=1)
    assert calls == [2.0] and g.cache_size == 1  # traced once
    g(x, 3.0, axis=1)
    g(randn(5, 4), 3.0, axis=1)
    g(x.astype(np.float32), 3.0, axis=1)
    assert calls == [2.0, 3.0, 3.0, 3.0] and g.cache_size == 4
    np.testing.assert_allclose(g(x=x, scale=1.0, axis=0)["sum"], x.sum(axis=0))


def test_compiles_once_per_signature(monkeypatch):
    import relax_mlir._frontend as frontend

    compiled = []
    real = frontend._compile

    def counting(module, **kwargs):
        compiled.append(1)
        return real(module, **kwargs)

    monkeypatch.setattr(frontend, "_compile", counting)
    f = relax_mlir.grad(lambda w, x: rnp.sum(rnp.tanh(x @ w)))
    w, x = randn(3, 2), randn(4, 3)
    for _ in range(3):
        f(w, x)
    assert len(compiled) == 1
    f(w, randn(5, 3))
    assert len(compiled) == 2


def test_parameter_names_come_from_the_signature():
    def step(weights, batch):
        return rnp.sum(batch["x"] @ weights)

    text = relax_mlir.jit(step).lower(randn(3, 2), {"x": randn(4, 3)}).as_text()
    assert 'relax.name = "weights"' in text
    assert """relax.name = "batch['x']\"""" in text


Point = collections.namedtuple("Point", "x y")


def test_namedtuple_pytrees():
    f = relax_mlir.grad(lambda p: rnp.sum(p.x * p.y))
    g = f(Point(randn(3), np.ones(3)))
    assert isinstance(g, Point)
    np.testing.assert_allclose(g.x, np.ones(3))


# ----------------------------------------------------------------------------
# Errors name the user's line
# ----------------------------------------------------------------------------

def test_shape_error_names_the_users_file_and_line():
    def f(a, b):
        return a @ b  # the line the error must name

    line = inspect.getsourcelines(f)[1] + 1
    with pytest.raises(relax_mlir.TracingError) as info:
        relax_mlir.jit(f)(randn(2, 3), randn(4, 2))
    message = str(info.value)
    assert f"{os.path.basename(__file__)}:{line}:" in message, message
    assert __file__ in message
    assert "contracted" in message


def test_gradient_of_non_scalar_is_explained():
    with pytest.raises(TypeError, match="scalar .0-d float array"):
        relax_mlir.grad(lambda x: rnp.exp(x))(randn(3))


def test_integer_argnum_is_explained():
    with pytest.raises(TypeError, match="only float arrays have gradients"):
        relax_mlir.grad(lambda x, y: rnp.sum(x), argnums=1)(randn(3), np.arange(3))


def test_python_control_flow_on_traced_values_is_explained():
    def f(x):
        if x.sum() > 0:
            return x
        return -x

    with pytest.raises(TypeError, match="where"):
        relax_mlir.jit(f)(randn(3))


def test_leaked_tracer_is_explained():
    """A traced array kept past its trace is an error at the user's line that
    says what happened and what to do."""
    leaked = []
    relax_mlir.jit(lambda x: leaked.append(x) or x)(randn(2))
    with pytest.raises(relax_mlir.TracingError,
                       match=r"test_frontend\.py:\d+:\d+: a traced array .* was used after the "
                             r"function traced with it returned(.|\n)*Return values"):
        relax_mlir.jit(lambda y: y + leaked[0])(randn(2))


def test_unsupported_argument_types_are_explained():
    with pytest.raises(TypeError, match="expected a numpy array"):
        relax_mlir.jit(lambda x: x)("text")
    with pytest.raises(TypeError, match="complex128 is not supported"):
        relax_mlir.jit(lambda x: x)(np.ones(2, np.complex128))


def test_grad_of_grad_hessian_vector_products_and_jit_of_grad():
    """grad called inside a traced function adds its adjoint to the outer
    module and calls it; the gradient pass inlines the call, so it can be
    differentiated again (closed forms: f = sum(sin(x) * x))."""
    f = lambda x: rnp.sum(rnp.sin(x) * x)
    x, v = randn(4), randn(4)
    df = np.cos(x) * x + np.sin(x)
    g = relax_mlir.grad(f)
    np.testing.assert_allclose(relax_mlir.jit(lambda x: g(x) * 2)(x), 2 * df, rtol=1e-12)
    hvp = relax_mlir.grad(lambda x, v: rnp.sum(g(x) * v))
    np.testing.assert_allclose(hvp(x, v), (2 * np.cos(x) - x * np.sin(x)) * v, rtol=1e-12)
    second = relax_mlir.grad(lambda x: rnp.sum(relax_mlir.grad(lambda y: rnp.sum(y ** 3))(x)))
    np.testing.assert_allclose(second(x), 6 * x, rtol=1e-12)
    (value, grad_value) = relax_mlir.jit(lambda x: relax_mlir.value_and_grad(f)(x))(x)
    np.testing.assert_allclose(value, np.sum(np.sin(x) * x), rtol=1e-12)
    np.testing.assert_allclose(grad_value, df, rtol=1e-12)


@needs_jax
def test_hessian_vector_product_of_the_mlp_matches_jax():
    params, x, labels = mlp_params(), randn(6, 12), RNG.integers(0, 4, 6)
    tangent = {k: randn(*p.shape) for k, p in params.items()}
    inner = relax_mlir.grad(mlp_loss)

    def directional(p, t, x, labels):
        g = inner(p, x, labels)
        return sum(rnp.sum(g[k] * t[k]) for k in sorted(g))

    hvp = relax_mlir.grad(directional)(params, tangent, x, labels)
    jhvp = jax.grad(lambda p: sum(jnp.sum(jax.grad(mlp_loss_jax)(p, x, labels)[k] * tangent[k])
                                  for k in tangent))(params)
    for k in params:
        np.testing.assert_allclose(hvp[k], jhvp[k], rtol=1e-8, atol=1e-10)


# ----------------------------------------------------------------------------
# relax_mlir.numpy against numpy
# ----------------------------------------------------------------------------

X = randn(4, 5, 6)
INDEXING = [
    (1,), (-1,), (slice(1, 3),), (slice(None, None, -1),), (slice(None), 2),
    (Ellipsis, 1), (Ellipsis, slice(4, 0, -2)), (None, 1), (1, None, slice(0, 3)),
    (slice(None), None, slice(None, None, 2), -2), (np.array([3, 0, 0]),),
    (slice(None), np.array([4, 1])), (2, slice(None), np.array([[0, 5], [1, 1]])),
    (slice(-2, None), Ellipsis),
]


@pytest.mark.parametrize("key", INDEXING, ids=[repr(k) for k in INDEXING])
def test_indexing_matches_numpy(key):
    np.testing.assert_array_equal(relax_mlir.jit(lambda a: a[key])(X), X[key])


A, B = randn(3, 4), randn(4)
FUNCTIONS = [
    ("exp", lambda m: m.exp(A)), ("log", lambda m: m.log(np.abs(A) + 1)),
    ("tanh", lambda m: m.tanh(A)), ("sqrt", lambda m: m.sqrt(np.abs(A))),
    ("sum axis", lambda m: m.sum(A, axis=1)), ("sum all", lambda m: m.sum(A)),
    ("mean keepdims", lambda m: m.mean(A, axis=0, keepdims=True)),
    ("max", lambda m: m.max(A, axis=-1)), ("min", lambda m: m.min(A)),
    ("prod", lambda m: m.prod(A, axis=0)), ("var", lambda m: m.var(A, axis=1)),
    ("cumsum", lambda m: m.cumsum(A, axis=1)), ("where", lambda m: m.where(A > 0, A, B)),
    ("maximum", lambda m: m.maximum(A, B)), ("minimum", lambda m: m.minimum(A, 0.5)),
    ("clip", lambda m: m.clip(A, -0.5, 0.5)), ("power", lambda m: m.power(np.abs(A), 1.5)),
    ("concatenate", lambda m: m.concatenate([A, A * 2], axis=1)),
    ("stack", lambda m: m.stack([A, A], axis=1)), ("split", lambda m: m.split(A, 2, axis=1)[1]),
    ("split points", lambda m: m.split(A, [1, 3], axis=1)[2]),
    ("transpose", lambda m: m.transpose(A)), ("reshape -1", lambda m: m.reshape(A, (2, -1))),
    ("pad", lambda m: m.pad(A, 1)), ("tile", lambda m: m.tile(B, (2, 1))),
    ("triu", lambda m: m.triu(A, 1)), ("tril", lambda m: m.tril(A)),
    ("take", lambda m: m.take(A, np.array([2, 0]), axis=0)),
    ("expand_dims", lambda m: m.expand_dims(B, 0)), ("squeeze", lambda m: m.squeeze(A[None])),
    ("broadcast_to", lambda m: m.broadcast_to(B, (2, 4))),
    ("matmul", lambda m: m.matmul(A, B)), ("dot", lambda m: m.dot(A.T, A)),
    ("zeros", lambda m: m.zeros((2, 3)) + 1), ("full", lambda m: m.full((2,), 3.5)),
    ("ones_like", lambda m: m.ones_like(A)), ("arange", lambda m: m.arange(5) * 2),
    ("astype", lambda m: m.astype(A * 10, np.int32)), ("abs", lambda m: m.abs(A)),
]


@pytest.mark.parametrize("name,fn", FUNCTIONS, ids=[n for n, _ in FUNCTIONS])
def test_numpy_functions_run_eagerly_and_match_numpy(name, fn):
    expected = fn(np)
    actual = fn(rnp)
    assert isinstance(actual, np.ndarray)
    assert actual.shape == expected.shape, name
    if name != "zeros" and name != "full" and name != "arange":
        assert actual.dtype == np.asarray(expected).dtype, name
    np.testing.assert_allclose(actual, expected, rtol=1e-12, atol=1e-14)


def test_methods_and_operators_match_numpy():
    def f(a, b):
        return [a.T @ a, -a, abs(a), a ** 2, 2 ** b, 1 - a, 3 / (a * a + 1), a.sum(0),
                a.mean(axis=1, keepdims=True), a.max(), a.reshape(2, 6), a.transpose(1, 0),
                (a > 0), a == b, a.astype(np.float32), a.flatten(), a[:, None].squeeze(1)]

    a, b = randn(3, 4), randn(4)
    expected = [a.T @ a, -a, abs(a), a ** 2, 2 ** b, 1 - a, 3 / (a * a + 1), a.sum(0),
                a.mean(axis=1, keepdims=True), a.max(), a.reshape(2, 6), a.transpose(1, 0),
                (a > 0), a == b, a.astype(np.float32), a.flatten(), a]
    for got, want in zip(relax_mlir.jit(f)(a, b), expected):
        assert got.dtype == want.dtype and got.shape == want.shape
        np.testing.assert_allclose(got, want, rtol=1e-6 if want.dtype == np.float32 else 1e-12)


def test_dtype_promotion_follows_jax():
    f = relax_mlir.jit(lambda i, x: (i + x, i * 2, i * 0.5, x * 2))
    i, x = np.arange(3, dtype=np.int32), np.ones(3, np.float32)
    out = f(i, x)
    assert [o.dtype for o in out] == [np.float32, np.int32, np.float32, np.float32]
    np.testing.assert_allclose(out[2], i * 0.5)


def test_checkpoint_recomputes_and_keeps_gradients():
    def f(w, x, mark):
        layer = (lambda h: rnp.tanh(h @ w))
        if mark:
            layer = relax_mlir.checkpoint(layer)
        for _ in range(4):
            x = layer(x)
        return rnp.sum(x)

    w, x = randn(4, 4) * 0.5, randn(3, 4)
    plain = relax_mlir.grad(f, static_argnums=2)
    assert "start_checkpoint" in plain.lower(w, x, True).as_text()
    assert "start_checkpoint" not in plain.lower(w, x, False).as_text()
    np.testing.assert_allclose(plain(w, x, True), plain(w, x, False), rtol=1e-12)


# ----------------------------------------------------------------------------
# Seeing the IR at every stage
# ----------------------------------------------------------------------------

def test_lower_shows_every_stage():
    lowered = relax_mlir.grad(lambda w, x: rnp.mean(rnp.tanh(x @ w))).lower(
        randn(32, 16, dtype=np.float32), randn(64, 32, dtype=np.float32))
    assert lowered.stages == relax_mlir.STAGES
    relax_text = lowered.as_text("relax")
    assert "relax.matmul" in relax_text and "main_adjoint" not in relax_text
    assert "func.func @main_adjoint" in lowered.as_text("adjoint")
    linalg = lowered.as_text("linalg")
    assert "linalg.generic" in linalg and "= relax." not in linalg and "vector." not in linalg
    vector = lowered.as_text("vector")
    assert "vector.contract" in vector and "memref." not in vector
    bufferized = lowered.as_text("bufferized")
    assert "memref.dealloc" in bufferized and "tensor<" not in bufferized
    assert "llvm.func @_mlir_ciface_main_adjoint" in lowered.as_text("llvm")
    assert os.path.basename(__file__) in lowered.as_text("relax", debug_info=True)
    with pytest.raises(ValueError, match="stages are"):
        lowered.as_text("ptx")
    jitted = relax_mlir.jit(lambda x: x * 2).lower(randn(3))
    with pytest.raises(ValueError, match="adjoint"):
        jitted.as_text("adjoint")


PLAIN_BODY = """
func.func @main(%x: tensor<3xf64> {relax.name = "x"}) -> tensor<f64> {
  %0 = relax.exp %x : tensor<3xf64>
  %1 = relax.sum %0 : tensor<3xf64> -> tensor<f64>
  return %1 : tensor<f64>
}
"""


def test_gradient_gathers_a_plain_body_into_a_dataflow_block():
    adjoint = relax_mlir.gradient(PLAIN_BODY)
    x = np.array([0.5, -1.0, 2.0])
    value, (dx,) = relax_mlir.compile(adjoint).main_adjoint(x)
    np.testing.assert_allclose(dx, np.exp(x), rtol=1e-14)


def test_module_lower_stages_and_dump_ir(tmp_path):
    relax_text = str(relax_mlir.lower(PLAIN_BODY, "relax"))
    assert "relax.dataflow" in relax_text
    assert "main_adjoint" in str(relax_mlir.lower(PLAIN_BODY, "adjoint", func="main"))
    assert "main_adjoint" in str(relax_mlir.lower(PLAIN_BODY, "llvm", func="main"))
    assert "linalg.generic" in str(relax_mlir.lower(PLAIN_BODY, "linalg"))
    with pytest.raises(ValueError, match="needs func"):
        relax_mlir.lower(PLAIN_BODY, "adjoint")
    with pytest.raises(ValueError, match="unknown stage"):
        relax_mlir.lower(PLAIN_BODY, "ptx")
    exe = relax_mlir.compile(PLAIN_BODY, dump_ir=str(tmp_path / "ir"))
    assert float(exe.main(np.zeros(3))) == 3.0
    files = sorted(os.listdir(tmp_path / "ir"))
    assert files == ["0-relax.mlir", "1-linalg.mlir", "2-vector.mlir", "3-bufferized.mlir",
                     "4-llvm.mlir"]
    assert "relax.exp" in (tmp_path / "ir" / "0-relax.mlir").read_text()
    assert "llvm.func" in (tmp_path / "ir" / "4-llvm.mlir").read_text()


def test_verifier_errors_are_invalid_ir_with_the_ops_line():
    text = """
func.func @main(%a: tensor<2x3xf32>, %b: tensor<2xf32>) -> tensor<2x3xf32> {
  %0 = "relax.add"(%a, %b) : (tensor<2x3xf32>, tensor<2xf32>) -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}"""
    with pytest.raises(relax_mlir.InvalidIRError) as info:
        relax_mlir.compile(text)
    assert "invalid IR" in str(info.value)
    assert ":3:8:" in info.value.diagnostics and "broadcast" in info.value.diagnostics
    with pytest.raises(relax_mlir.RelaxMLIRError, match="could not parse") as syntax:
        relax_mlir.compile(text.replace("return", "retrun"))
    assert not isinstance(syntax.value, relax_mlir.InvalidIRError)


def test_ops_lists_every_op_with_its_gradient_and_lowering():
    from relax_mlir_testing.ops import OPS, STRUCTURAL, STRUCTURE_KINDS

    listed = relax_mlir.ops()
    names = [o.name for o in listed]
    assert names == sorted(names) and len(set(names)) == len(names)
    # Every op of the op table and every structural op.
    assert {f"relax.{n}" for n in OPS} | {f"relax.{s}" for s in STRUCTURAL} <= set(names)
    for op in listed:
        short = op.name[len("relax."):]
        # call_with_rules has rules by construction (the functions it names);
        # all_reduce's derivatives are all-reduces.
        expected = OPS[short].gradient if short in OPS else short in ("call_with_rules",
                                                                      "all_reduce")
        assert op.gradient == expected, op
        # Loops, conditionals and their terminators become scf ops in the
        # conversion; debug_print and all_reduce become calls there.
        if short in ("scan", "while", "if", "switch", "yield", "condition", "debug_print",
                     "all_reduce"):
            assert op.lowering == "convert-relax-to-linalg", op
            continue
        # Tuples, markers, stop_gradient and split (a tuple result) are removed
        # by flattening.
        structural = short in STRUCTURAL or short in ("split", "stop_gradient") or \
            OPS[short].kind in STRUCTURE_KINDS
        assert op.lowering == ("relax-flatten-tuples" if structural
                               else "convert-relax-to-linalg"), op
