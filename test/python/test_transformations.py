"""Transformations that nest: closures over traced values, jvp, vjp with kept
residuals, linearize, jacfwd/jacrev/hessian, and the process-wide compile
cache (issue 28).

Each result is checked in float64 against a closed form or central finite
differences.
"""

from __future__ import annotations

import logging

import numpy as np
import pytest
import relax_mlir
import relax_mlir.numpy as rnp

RNG = np.random.default_rng(28)


def rand(*shape: int) -> np.ndarray:
    return RNG.uniform(-1.0, 1.0, shape)


def loss(p: dict, x: np.ndarray, y: np.ndarray):
    h = rnp.tanh(x @ p["w"] + p["b"])
    return rnp.mean((h - y) ** 2)


def numeric_grad(f, x: np.ndarray, h: float = 1e-6) -> np.ndarray:
    g = np.zeros_like(x)
    for i in np.ndindex(x.shape):
        e = np.zeros_like(x)
        e[i] = h
        g[i] = (f(x + e) - f(x - e)) / (2 * h)
    return g


# ----------------------------------------------------------------------------
# Closures: inner transformations read the enclosing function's traced arrays
# ----------------------------------------------------------------------------

def test_grad_of_a_closure_inside_jit_is_jaxs_idiom() -> None:
    """jit(step) where step takes value_and_grad of a lambda closing over the
    batch: the batch arrays become inputs of the inner function."""
    x, y = rand(5, 3), rand(5, 2)
    p = {"w": rand(3, 2), "b": rand(2)}

    @relax_mlir.jit
    def step(p, x, y):
        value, g = relax_mlir.value_and_grad(lambda q: loss(q, x, y))(p)
        return value, {k: p[k] - 0.1 * g[k] for k in p}

    value, new = step(p, x, y)
    expected_value, expected = relax_mlir.value_and_grad(loss)(p, x, y)
    np.testing.assert_allclose(value, expected_value, rtol=1e-12)
    for k in p:
        np.testing.assert_allclose(new[k], p[k] - 0.1 * expected[k], rtol=1e-12, atol=1e-14)


def test_outer_gradient_flows_through_the_closed_over_values() -> None:
    """f(a) = sum(grad_b(sum(sin(a b)))(x)) = sum(a cos(a x)): the inner
    gradient treats a as a constant, the outer one differentiates through it:
    df/da = cos(a x) - a x sin(a x)."""
    a, x = rand(4), rand(4)

    def f(a):
        inner = relax_mlir.grad(lambda b: rnp.sum(rnp.sin(a * b)))(x)
        return rnp.sum(inner)

    got = relax_mlir.grad(f)(a)
    np.testing.assert_allclose(got, np.cos(a * x) - a * x * np.sin(a * x), rtol=1e-12)
    np.testing.assert_allclose(relax_mlir.jit(relax_mlir.grad(f))(a), got, rtol=1e-12)


def test_closures_over_two_enclosing_levels() -> None:
    """A value of the outermost trace used two levels down is passed through
    the middle one: d/da [d/db [d/dc sum(a b c^2)]] at c = z, b = y is 2 z
    (summed over the elements), for every element of a."""
    a, y, z = rand(3), rand(3), rand(3)

    def f(a):
        def g(b):
            inner = relax_mlir.grad(lambda c: rnp.sum(a * b * c * c))(z)  # 2 a b z
            return rnp.sum(inner)
        return rnp.sum(relax_mlir.grad(g)(y))  # sum(2 a z)

    np.testing.assert_allclose(relax_mlir.grad(f)(a), 2 * z, rtol=1e-12)
    np.testing.assert_allclose(relax_mlir.jit(relax_mlir.grad(f))(a), 2 * z, rtol=1e-12)


def test_nested_jit_grad_jit() -> None:
    f = relax_mlir.jit(lambda v: rnp.sum(rnp.exp(v) * v))
    v = rand(5)
    got = relax_mlir.jit(relax_mlir.grad(f))(v)
    np.testing.assert_allclose(got, np.exp(v) * (v + 1), rtol=1e-12)


# ----------------------------------------------------------------------------
# The process-wide cache
# ----------------------------------------------------------------------------

def test_grad_made_anew_each_step_compiles_once(caplog: pytest.LogCaptureFixture) -> None:
    """A training loop that writes relax_mlir.grad(loss) inside the loop finds
    the signature the first step compiled (the cache is keyed by the function,
    as JAX's is), and log_compiles says why the one trace happened."""
    def local_loss(p, x, y):
        return loss(p, x, y)

    x, y = rand(4, 3), rand(4, 2)
    p = {"w": rand(3, 2), "b": rand(2)}
    relax_mlir.config.update("log_compiles", True)
    try:
        with caplog.at_level(logging.WARNING, logger="relax_mlir"):
            for _ in range(4):
                g = relax_mlir.grad(local_loss)(p, x, y)
                p = {k: p[k] - 0.1 * g[k] for k in p}
    finally:
        relax_mlir.config.update("log_compiles", False)
    traces = [r.getMessage() for r in caplog.records if "tracing grad" in r.getMessage()]
    assert len(traces) == 1, traces
    assert "local_loss" in traces[0] and "first call" in traces[0], traces[0]
    assert "p['w']: float64[3, 2]" in traces[0], traces[0]
    assert relax_mlir.grad(local_loss).cache_size == 1


def test_a_new_signature_is_logged_with_its_reason(caplog: pytest.LogCaptureFixture) -> None:
    def f(v):
        return rnp.sum(v * v)

    relax_mlir.config.update("log_compiles", True)
    try:
        with caplog.at_level(logging.WARNING, logger="relax_mlir"):
            relax_mlir.jit(f)(rand(3))
            relax_mlir.jit(f)(rand(3))
            relax_mlir.jit(f)(rand(4))
    finally:
        relax_mlir.config.update("log_compiles", False)
    traces = [r.getMessage() for r in caplog.records if "tracing jit" in r.getMessage()]
    assert len(traces) == 2, traces
    assert "first call" in traces[0] and "a new signature" in traces[1], traces


# ----------------------------------------------------------------------------
# jvp, linearize
# ----------------------------------------------------------------------------

def test_jvp_matches_central_differences() -> None:
    w, v = rand(3, 4), rand(4)
    tw, tv = rand(3, 4), rand(4)

    def f(w, v):
        return rnp.tanh(w @ v) * rnp.sum(v)

    out, tangent = relax_mlir.jvp(f, (w, v), (tw, tv))
    np_f = lambda w, v: np.tanh(w @ v) * np.sum(v)
    h = 1e-6
    expected = (np_f(w + h * tw, v + h * tv) - np_f(w - h * tw, v - h * tv)) / (2 * h)
    np.testing.assert_allclose(out, np_f(w, v), rtol=1e-12)
    np.testing.assert_allclose(tangent, expected, rtol=1e-7, atol=1e-9)


def test_jvp_of_structured_outputs_and_integer_inputs() -> None:
    """Pytrees in and out; an integer primal takes no tangent part, an integer
    output gets a zero tangent."""
    x = rand(3)
    idx = np.array([2, 0], np.int64)

    def f(p, i):
        return {"y": rnp.take(p["x"] * p["x"], i), "i": i}

    out, t = relax_mlir.jvp(f, ({"x": x}, idx), ({"x": np.ones(3)}, np.zeros(2, np.int64)))
    np.testing.assert_allclose(out["y"], (x * x)[idx], rtol=1e-15)
    np.testing.assert_allclose(t["y"], 2 * x[idx], rtol=1e-15)
    np.testing.assert_array_equal(t["i"], np.zeros(2, np.int64))


def test_jvp_inside_jit_with_a_closure() -> None:
    a, t = rand(5), rand(5)

    @relax_mlir.jit
    def h(a, t):
        return relax_mlir.jvp(lambda b: rnp.sin(b) * b * a, (a,), (t,))[1]

    np.testing.assert_allclose(h(a, t), (np.cos(a) * a + np.sin(a)) * a * t, rtol=1e-12)


def test_jvp_arguments_are_checked() -> None:
    f = lambda v: v * 2
    with pytest.raises(TypeError, match="tuples"):
        relax_mlir.jvp(f, rand(3), rand(3))
    with pytest.raises(TypeError, match="2 primals but 1 tangents"):
        relax_mlir.jvp(lambda a, b: a * b, (rand(3), rand(3)), (rand(3),))
    with pytest.raises(ValueError, match="shape"):
        relax_mlir.jvp(f, (rand(3),), (rand(4),))


def test_linearize() -> None:
    """The primal half runs once; f_jvp runs the linear half (the jvp pass's
    linearize mode), for any number of tangents, eagerly and inside jit; the
    linear half holds no primal computation (no exp)."""
    x = rand(4)
    f = lambda v: rnp.exp(v) * v
    out, f_jvp = relax_mlir.linearize(f, x)
    np.testing.assert_allclose(out, np.exp(x) * x, rtol=1e-12)
    for _ in range(2):
        t = rand(4)
        np.testing.assert_allclose(f_jvp(t), np.exp(x) * (x + 1) * t, rtol=1e-12)

    @relax_mlir.jit
    def twice(v, t, s):
        y, lin = relax_mlir.linearize(f, v)
        return y, lin(t) + lin(s)

    t, s = rand(4), rand(4)
    y, both = twice(x, t, s)
    np.testing.assert_allclose(y, np.exp(x) * x, rtol=1e-12)
    np.testing.assert_allclose(both, np.exp(x) * (x + 1) * (t + s), rtol=1e-12)
    module = relax_mlir.jacobian_vector_product(
        relax_mlir.jit(f).lower(x).as_text(), mode="linearize")
    linear = str(module).split("func.func @main_linear")[1].split("func.func")[0]
    assert "relax.exp" not in linear and "relax.multiply" in linear, linear


# ----------------------------------------------------------------------------
# vjp
# ----------------------------------------------------------------------------

def test_vjp_keeps_residuals_and_pulls_back_many_cotangents() -> None:
    w, v = rand(3, 4), rand(4)

    def f(w, v):
        return {"y": rnp.tanh(w @ v), "s": rnp.sum(v * v)}

    out, pullback = relax_mlir.vjp(f, w, v)
    d = 1 - np.tanh(w @ v) ** 2
    for _ in range(3):
        cy, cs = rand(3), rand()
        gw, gv = pullback({"y": cy, "s": cs})
        np.testing.assert_allclose(gw, np.outer(cy * d, v), rtol=1e-12)
        np.testing.assert_allclose(gv, w.T @ (cy * d) + 2 * cs * v, rtol=1e-12)
    with pytest.raises(TypeError, match="structure of the output"):
        pullback(rand(3))


def test_vjp_inside_jit() -> None:
    a, c = rand(5), rand(5)

    @relax_mlir.jit
    def g(a, c):
        _, pullback = relax_mlir.vjp(lambda b: rnp.sin(b) * b, a)
        return pullback(c)[0]

    np.testing.assert_allclose(g(a, c), (np.cos(a) * a + np.sin(a)) * c, rtol=1e-12)


def test_vjp_integer_primal_gets_zeros() -> None:
    x, i = rand(4), np.array([1, 3], np.int64)
    _, pullback = relax_mlir.vjp(lambda v, j: rnp.take(v, j) * 3.0, x, i)
    gx, gi = pullback(np.ones(2))
    np.testing.assert_allclose(gx, np.array([0.0, 3.0, 0.0, 3.0]))
    np.testing.assert_array_equal(gi, np.zeros(2, np.int64))


# ----------------------------------------------------------------------------
# Jacobians and Hessians against closed forms
# ----------------------------------------------------------------------------

A = rand(4, 4)
SECOND_ORDER = {
    # name: (f in relax_mlir.numpy, its Hessian in numpy)
    "sin_x_times_x": (lambda x: rnp.sum(rnp.sin(x) * x),
                      lambda x: np.diag(2 * np.cos(x) - x * np.sin(x))),
    "quadratic_form": (lambda x: x @ (rnp.asarray(A) @ x), lambda x: A + A.T),
    "log_sum_exp": (lambda x: rnp.log(rnp.sum(rnp.exp(x))),
                    lambda x: np.diag(np.exp(x) / np.exp(x).sum())
                    - np.outer(np.exp(x), np.exp(x)) / np.exp(x).sum() ** 2),
    "cube_norm": (lambda x: rnp.sum(x * x) ** 1.5,
                  lambda x: 3 * np.sqrt(x @ x) * np.eye(4) + 3 * np.outer(x, x) / np.sqrt(x @ x)),
}


@pytest.mark.parametrize("name", list(SECOND_ORDER))
@pytest.mark.parametrize("how", ["hessian", "jacrev_jacrev", "jacfwd_jacfwd"])
def test_hessians_against_closed_forms(name: str, how: str) -> None:
    f, closed = SECOND_ORDER[name]
    x = rand(4)
    if how == "hessian":  # forward over reverse
        got = relax_mlir.hessian(f)(x)
    elif how == "jacrev_jacrev":
        got = relax_mlir.jacrev(relax_mlir.jacrev(f))(x)
    else:
        got = relax_mlir.jacfwd(relax_mlir.jacfwd(f))(x)
    np.testing.assert_allclose(got, closed(x), rtol=1e-10, atol=1e-12)


def test_jacobians_of_several_arguments_and_outputs() -> None:
    w, v = rand(2, 3), rand(3)

    def g(w, v):
        return (rnp.tanh(w @ v), rnp.sum(v))

    jr = relax_mlir.jacrev(g, argnums=(0, 1))(w, v)
    jf = relax_mlir.jacfwd(g, argnums=(0, 1))(w, v)
    d = 1 - np.tanh(w @ v) ** 2
    dw = np.zeros((2, 2, 3))
    for i in range(2):
        dw[i, i] = d[i] * v
    for j in (jr, jf):
        np.testing.assert_allclose(j[0][0], dw, rtol=1e-12, atol=1e-15)
        np.testing.assert_allclose(j[0][1], d[:, None] * w, rtol=1e-12)
        np.testing.assert_allclose(j[1][0], np.zeros((2, 3)), atol=1e-15)
        np.testing.assert_allclose(j[1][1], np.ones(3), rtol=1e-15)


def test_softmax_jacobian_and_hessian_inside_jit() -> None:
    x = rand(4)
    s = np.exp(x) / np.exp(x).sum()
    jac = relax_mlir.jit(relax_mlir.jacrev(lambda v: rnp.exp(v) / rnp.sum(rnp.exp(v))))(x)
    np.testing.assert_allclose(jac, np.diag(s) - np.outer(s, s), rtol=1e-10, atol=1e-14)
    f, closed = SECOND_ORDER["log_sum_exp"]
    np.testing.assert_allclose(relax_mlir.jit(relax_mlir.hessian(f))(x), closed(x),
                               rtol=1e-10, atol=1e-14)


def test_vjp_fn_must_stay_in_its_trace() -> None:
    keep = []

    @relax_mlir.jit
    def f(a):
        _, pullback = relax_mlir.vjp(lambda b: b * b, a)
        keep.append(pullback)
        return a

    f(rand(3))
    with pytest.raises(relax_mlir.TracingError, match="vjp_fn must be called in the function"):
        relax_mlir.jit(lambda c: keep[0](c)[0])(rand(3))


def test_mask_indexing_and_float_of_a_tracer_say_what_to_write() -> None:
    with pytest.raises(IndexError, match=r"boolean mask indexing .* relax_mlir\.numpy\.where"):
        relax_mlir.jit(lambda v: rnp.sum(v[v > 0]))(rand(4))
    with pytest.raises(TypeError, match=r"float\(\) of .*relax_mlir\.numpy\.where"):
        relax_mlir.jit(lambda v: v * float(rnp.sum(v)))(rand(4))


# ----------------------------------------------------------------------------
# stop_gradient
# ----------------------------------------------------------------------------

def test_stop_gradient_in_every_mode_and_order() -> None:
    """f(x) = sum(x * stop_gradient(x)^2): grad = sg(x)^2 (not 3x^2), the jvp
    along t is <sg(x)^2, t>, the Hessian is 0 (both ways), as in JAX."""
    from relax_mlir import lax

    def f(x):
        s = lax.stop_gradient(x)
        return rnp.sum(x * s * s)

    x, t = rand(4), rand(4)
    np.testing.assert_allclose(relax_mlir.grad(f)(x), x * x, rtol=1e-15)
    np.testing.assert_allclose(relax_mlir.jvp(f, (x,), (t,))[1], np.sum(x * x * t), rtol=1e-12)
    np.testing.assert_allclose(relax_mlir.hessian(f)(x), np.zeros((4, 4)), atol=0)
    np.testing.assert_allclose(relax_mlir.jacrev(relax_mlir.grad(f))(x), np.zeros((4, 4)),
                               atol=0)
    # A pytree, and eagerly: unchanged values.
    tree = {"a": x, "b": (t,)}
    out = lax.stop_gradient(tree)
    np.testing.assert_array_equal(out["a"], x)
    np.testing.assert_array_equal(out["b"][0], t)
    got = relax_mlir.jit(lambda tr: lax.stop_gradient(tr)["a"] * 2)(tree)
    np.testing.assert_allclose(got, 2 * x)


# ----------------------------------------------------------------------------
# custom_vjp and custom_jvp: rules written with relax_mlir.numpy
# ----------------------------------------------------------------------------

def _clipped_sin():
    @relax_mlir.custom_vjp
    def f(x):
        return rnp.sin(x)

    def fwd(x):
        return rnp.sin(x), (rnp.cos(x),)

    def bwd(residuals, g):
        (c,) = residuals
        return (rnp.clip(g * c, -0.1, 0.1),)

    f.defvjp(fwd, bwd)
    return f


def test_custom_vjp_rules_are_used_in_reverse_mode() -> None:
    f = _clipped_sin()
    x = np.linspace(-2, 2, 7)
    expected = np.clip(3 * np.cos(x), -0.1, 0.1)
    np.testing.assert_allclose(relax_mlir.grad(lambda v: rnp.sum(f(v) * 3.0))(x), expected,
                               rtol=1e-15)
    np.testing.assert_allclose(relax_mlir.jit(relax_mlir.grad(lambda v: rnp.sum(f(v) * 3.0)))(x),
                               expected, rtol=1e-15)
    _, pullback = relax_mlir.vjp(f, x)
    np.testing.assert_allclose(pullback(3 * np.ones(7))[0], expected, rtol=1e-15)
    np.testing.assert_allclose(f(x), np.sin(x), rtol=1e-15)  # eagerly: the function


def test_jvp_of_a_custom_vjp_function_differentiates_the_function() -> None:
    """JAX refuses this (jax-ml/jax#6127): here forward mode goes through the
    function's body, reverse mode through its rules."""
    f = _clipped_sin()
    x, t = rand(5), rand(5)
    np.testing.assert_allclose(relax_mlir.jvp(f, (x,), (t,))[1], np.cos(x) * t, rtol=1e-14)


def test_custom_jvp_rule_in_both_modes() -> None:
    """log(1 + exp(x)) with JAX's stable rule: at x = 100 in float32 the
    naive derivative is nan (inf / inf); the rule gives 1 in forward mode and,
    transposed, in reverse mode."""
    @relax_mlir.custom_jvp
    def log1pexp(x):
        return rnp.log(1.0 + rnp.exp(x))

    @log1pexp.defjvp
    def log1pexp_jvp(primals, tangents):
        (x,), (t,) = primals, tangents
        return log1pexp(x), (1.0 - 1.0 / (1.0 + rnp.exp(x))) * t

    x = np.array([100.0, 0.0, -3.0], np.float32)
    expected = np.array([1.0, 0.5, 1 / (1 + np.exp(3.0))], np.float32)
    naive = relax_mlir.grad(lambda v: rnp.sum(rnp.log(1.0 + rnp.exp(v))))(x)
    assert np.isnan(naive[0])
    np.testing.assert_allclose(relax_mlir.grad(lambda v: rnp.sum(log1pexp(v)))(x), expected,
                               rtol=1e-6)
    np.testing.assert_allclose(relax_mlir.jvp(log1pexp, (x,), (np.ones(3, np.float32),))[1],
                               expected, rtol=1e-6)


def test_custom_rules_with_several_arguments_outputs_and_both_rules() -> None:
    """Two arguments (one a dict), two outputs; a function given both rules
    uses the JVP rule forward and the VJP rules backward (deliberately
    different here: 2x and 3x the true derivative)."""
    @relax_mlir.custom_jvp
    def f(p, y):
        return p["a"] * y, rnp.sum(y)

    @f.defjvp
    def f_jvp(primals, tangents):
        (p, y), (tp, ty) = primals, tangents
        return f(p, y), (2 * (tp["a"] * y + p["a"] * ty), 2 * rnp.sum(ty))

    f.defvjp(lambda p, y: (f(p, y), (p, y)),
             lambda res, g: ({"a": 3 * g[0] * res[1]}, 3 * (g[0] * res[0]["a"] + g[1])))
    a, y = rand(3), rand(3)
    ta, ty = rand(3), rand(3)
    (o0, o1), (t0, t1) = relax_mlir.jvp(f, ({"a": a}, y), ({"a": ta}, ty))
    np.testing.assert_allclose(o0, a * y, rtol=1e-15)
    np.testing.assert_allclose(t0, 2 * (ta * y + a * ty), rtol=1e-14)
    np.testing.assert_allclose(t1, 2 * np.sum(ty), rtol=1e-14)
    g = relax_mlir.grad(lambda p, v: rnp.sum(f(p, v)[0]) + f(p, v)[1], argnums=(0, 1))(
        {"a": a}, y)
    np.testing.assert_allclose(g[0]["a"], 3 * y, rtol=1e-14)
    np.testing.assert_allclose(g[1], 3 * (a + 1), rtol=1e-14)


def test_second_order_goes_through_the_rules() -> None:
    """The Hessian of sum(f(x)) with a custom VJP g -> g * 2x (the true one):
    reverse over reverse differentiates the rule's body, 2 on the diagonal."""
    @relax_mlir.custom_vjp
    def square(x):
        return x * x

    square.defvjp(lambda x: (x * x, x), lambda x, g: (g * 2.0 * x,))
    x = rand(3)
    f = lambda v: rnp.sum(square(v))
    np.testing.assert_allclose(relax_mlir.jacrev(relax_mlir.grad(f))(x), 2 * np.eye(3),
                               rtol=1e-15, atol=0)
    np.testing.assert_allclose(relax_mlir.hessian(f)(x), 2 * np.eye(3), rtol=1e-15, atol=0)


def test_custom_rule_errors_name_the_problem() -> None:
    @relax_mlir.custom_vjp
    def norule(x):
        return x * 2

    with pytest.raises(TypeError, match=r"test_transformations\.py:\d+:\d+: .*has no rules: "
                                        r"call .*defvjp\(fwd, bwd\)"):
        relax_mlir.grad(lambda v: rnp.sum(norule(v)))(rand(3))

    @relax_mlir.custom_vjp
    def bad(x):
        return x * 2

    bad.defvjp(lambda x: (x * 2, ()), lambda res, g: g * 2)  # not a tuple
    with pytest.raises(TypeError, match=r"test_transformations\.py:\d+:\d+: .*bwd rule must "
                                        r"return a tuple"):
        relax_mlir.grad(lambda v: rnp.sum(bad(v)))(rand(3))

    def outer(w):
        @relax_mlir.custom_vjp
        def closes(x):
            return x * w

        closes.defvjp(lambda x: (x * w, ()), lambda res, g: (g,))
        return rnp.sum(closes(w))

    with pytest.raises(relax_mlir.TracingError,
                       match=r"test_transformations\.py:\d+:\d+: .*closes over traced arrays"):
        relax_mlir.grad(outer)(rand(3))


# ----------------------------------------------------------------------------
# The frontend's layers
# ----------------------------------------------------------------------------

def _package_imports(anywhere: bool = False) -> dict[str, set[str]]:
    """Module -> the package modules it imports at module level (`anywhere`:
    inside functions too), and every `from .x import _name` anywhere."""
    import ast
    import pathlib

    root = pathlib.Path(relax_mlir.__file__).resolve().parent
    graph: dict[str, set[str]] = {}
    private: list[str] = []
    for path in sorted(root.glob("*.py")):
        name = path.stem
        tree = ast.parse(path.read_text())
        deps: set[str] = set()
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and node.level == 1:
                target = node.module or ""
                names = [a.name for a in node.names]
                crossing = [n for n in names if n.startswith("_") and not n.startswith("__")
                            and target not in ("_mlir_libs", "")]
                if crossing:
                    private.append(f"{name}: from .{target} import {', '.join(crossing)}")
        for node in (ast.walk(tree) if anywhere else tree.body):
            if isinstance(node, ast.ImportFrom) and node.level == 1:
                if node.module:
                    deps.add(node.module.split(".")[0])
                else:
                    deps.update(a.name for a in node.names)
        graph[name] = deps
    graph["__private__"] = set(private)
    return graph


def test_frontend_modules_form_layers_without_cycles() -> None:
    """No import circle among the package's modules (the tracer core imports
    no layer above it: relax_mlir.numpy registers the tracer's methods, the
    frontend installs eager execution as the bottom trace), and no module
    imports another's private names."""
    graph = _package_imports()
    private = graph.pop("__private__")
    assert not private, f"private names imported across modules: {sorted(private)}"
    # The layers, even inside functions: the core below the array functions,
    # both below the transformations.
    everywhere = _package_imports(anywhere=True)
    for low, high in (("_trace", "numpy"), ("_trace", "nn"), ("_trace", "_frontend"),
                      ("numpy", "_frontend"), ("nn", "_frontend"), ("lax", "_frontend"),
                      ("numpy", "_custom"), ("_trace", "_custom")):
        assert high not in everywhere[low], f"{low} imports {high}, a layer above it"
    state: dict[str, int] = {}

    def visit(node: str, path: list[str]) -> None:
        if state.get(node) == 1:
            raise AssertionError(f"import cycle: {' -> '.join(path + [node])}")
        if state.get(node) == 2 or node not in graph:
            return
        state[node] = 1
        for dep in graph[node]:
            visit(dep, path + [node])
        state[node] = 2

    for module in graph:
        visit(module, [])


def test_trace_levels() -> None:
    """Eager execution is level 0; each nested trace is one level up."""
    from relax_mlir import _trace

    seen = []

    def inner(x):
        seen.append(_trace.current_trace().level)
        return rnp.sum(x * x)

    def outer(x):
        seen.append(_trace.current_trace().level)
        return relax_mlir.grad(inner)(x)

    assert _trace.current_trace() is None and _trace.EVAL_TRACE.level == 0
    relax_mlir.jit(outer)(rand(3))
    assert seen == [1, 2], seen


# ----------------------------------------------------------------------------
# Every transformation inside every other
# ----------------------------------------------------------------------------

def _f(x):
    return rnp.sum(rnp.sin(x) * x)


def _df(x):  # the gradient of _f
    return np.cos(x) * x + np.sin(x)


def _d2f(x):  # the diagonal Hessian of _f
    return 2 * np.cos(x) - x * np.sin(x)


COMBINATIONS = {
    # name: (function of (x, v) built from the transformations, expected in numpy)
    "grad(jvp)": (lambda x, v: relax_mlir.grad(
        lambda y: relax_mlir.jvp(_f, (y,), (v,))[1])(x), lambda x, v: _d2f(x) * v),
    "jvp(grad)": (lambda x, v: relax_mlir.jvp(relax_mlir.grad(_f), (x,), (v,))[1],
                  lambda x, v: _d2f(x) * v),
    "vjp(jvp)": (lambda x, v: relax_mlir.vjp(
        lambda y: relax_mlir.jvp(_f, (y,), (v,))[1], x)[1](np.float64(1.0))[0],
        lambda x, v: _d2f(x) * v),
    "jvp(vjp)": (lambda x, v: relax_mlir.jvp(
        lambda y: relax_mlir.vjp(_f, y)[1](np.float64(1.0))[0], (x,), (v,))[1],
        lambda x, v: _d2f(x) * v),
    "value_and_grad(vjp)": (lambda x, v: relax_mlir.value_and_grad(
        lambda y: rnp.sum(relax_mlir.vjp(_f, y)[1](np.float64(1.0))[0] * v))(x)[1],
        lambda x, v: _d2f(x) * v),
    "grad(linearize)": (lambda x, v: relax_mlir.grad(
        lambda y: rnp.sum(relax_mlir.linearize(_f, y)[1](v)))(x), lambda x, v: _d2f(x) * v),
    "jvp(checkpoint)": (lambda x, v: relax_mlir.jvp(relax_mlir.checkpoint(_f), (x,), (v,))[1],
                        lambda x, v: np.sum(_df(x) * v)),
    "grad(checkpoint of a closure)": (lambda x, v: relax_mlir.grad(
        lambda y: relax_mlir.checkpoint(lambda z: rnp.sum(rnp.sin(z) * z * v))(y))(x),
        lambda x, v: _df(x) * v),
    "jvp(jit(grad(jit)))": (lambda x, v: relax_mlir.jvp(
        relax_mlir.jit(relax_mlir.grad(relax_mlir.jit(_f))), (x,), (v,))[1],
        lambda x, v: _d2f(x) * v),
}


@pytest.mark.parametrize("name", list(COMBINATIONS))
@pytest.mark.parametrize("outer_jit", [False, True], ids=["eager", "jit"])
def test_transformations_nest(name: str, outer_jit: bool) -> None:
    build, expected = COMBINATIONS[name]
    x, v = rand(4), rand(4)
    fn = relax_mlir.jit(build) if outer_jit else build
    np.testing.assert_allclose(fn(x, v), expected(x, v), rtol=1e-12, atol=1e-14)


def test_jvp_and_vjp_with_aux() -> None:
    """has_aux, as JAX's: the function returns (out, aux); aux comes back as is
    and takes no part in the derivatives (eagerly and inside jit)."""
    x, t = rand(3), rand(3)

    def f(v):
        return rnp.sum(rnp.sin(v)), {"norm": rnp.sum(v * v)}

    out, tangent, aux = relax_mlir.jvp(f, (x,), (t,), has_aux=True)
    np.testing.assert_allclose(out, np.sum(np.sin(x)), rtol=1e-15)
    np.testing.assert_allclose(tangent, np.sum(np.cos(x) * t), rtol=1e-14)
    np.testing.assert_allclose(aux["norm"], np.sum(x * x), rtol=1e-15)
    out, pullback, aux = relax_mlir.vjp(f, x, has_aux=True)
    np.testing.assert_allclose(pullback(np.float64(2.0))[0], 2 * np.cos(x), rtol=1e-14)
    np.testing.assert_allclose(aux["norm"], np.sum(x * x), rtol=1e-15)

    @relax_mlir.jit
    def inside(v, c):
        _, pb, a = relax_mlir.vjp(f, v, has_aux=True)
        return pb(c)[0] + a["norm"]

    np.testing.assert_allclose(inside(x, np.float64(3.0)), 3 * np.cos(x) + np.sum(x * x),
                               rtol=1e-14)
    with pytest.raises(TypeError, match="has_aux=True: the function must return a pair"):
        relax_mlir.vjp(lambda v: rnp.sin(v), x, has_aux=True)


def test_bad_arguments_of_the_transformations_are_explained() -> None:
    f = lambda v: rnp.sum(v * v)
    with pytest.raises(ValueError, match="jacrev: argnums 2 is out of range"):
        relax_mlir.jacrev(f, argnums=2)(rand(3))
    with pytest.raises(ValueError, match="jacfwd: argnums 1 is out of range"):
        relax_mlir.jacfwd(f, argnums=(0, 1))(rand(3))
    with pytest.raises(ValueError, match="wrt is empty"):
        relax_mlir.jacobian_vector_product(
            "func.func @main(%x: tensor<3xf32>) -> tensor<3xf32> {\n"
            "  return %x : tensor<3xf32>\n}", wrt=[])
    with pytest.raises(ValueError, match="mode must be 'adjoint' or 'vjp'"):
        relax_mlir.gradient("func.func @main(%x: tensor<f32>) -> tensor<f32> {\n"
                            "  return %x : tensor<f32>\n}", mode="forward")
    with pytest.raises(TypeError, match="custom_vjp: expected a function"):
        relax_mlir.custom_vjp(3)


@pytest.mark.parametrize("opt_level", [0, 1, 2, 3])
@pytest.mark.parametrize("shape", [(6, 4), (1, 4), (6, 1), (0, 4)], ids=lambda s: "x".join(map(str, s)))
def test_stop_gradient_of_views_at_every_opt_level(opt_level: int, shape: tuple) -> None:
    """stop_gradient of views (a slice with a step, a transpose, a broadcast)
    and of size-1 and size-0 dims: the value passes, the derivative is held
    fixed, through every opt level's lowering."""
    from relax_mlir import lax

    def f(x):
        s = lax.stop_gradient(x[::2].T)  # a strided, transposed view
        b = lax.stop_gradient(rnp.broadcast_to(x[:1], x.shape))
        return rnp.sum(x[::2].T * s) + rnp.sum(x * b)

    x = rand(*shape)
    half = x[::2]
    expected_value = np.sum(half * half) + np.sum(x * np.broadcast_to(x[:1], x.shape)) \
        if x.size else 0.0
    expected_grad = np.zeros_like(x)
    expected_grad[::2] += half  # d/dx of x[::2] * const
    if x.size:
        expected_grad += np.broadcast_to(x[:1], x.shape)
    value, grad = relax_mlir.value_and_grad(f, opt_level=opt_level)(x)
    np.testing.assert_allclose(value, expected_value, rtol=1e-12, atol=1e-14)
    np.testing.assert_allclose(grad, expected_grad, rtol=1e-12, atol=1e-14)
    np.testing.assert_allclose(relax_mlir.jit(f, opt_level=opt_level)(x), expected_value,
                               rtol=1e-12, atol=1e-14)
