"""Loops and conditionals (issue 29): `relax_mlir.lax.scan`, `fori_loop`,
`while_loop`, `cond` and `switch`, in both differentiation modes, nested in
each other and in `jit`, `grad`, `jvp`, `vjp` and `checkpoint`.

Every derivative is checked in float64 against central finite differences of
a numpy reference and against the same program unrolled in Python (which
the compiler differentiates as straight-line code).
"""

from __future__ import annotations

import numpy as np
import pytest
import relax_mlir
import relax_mlir.numpy as rnp
from relax_mlir import debug, lax

from relax_mlir_testing.harness import central_difference

RNG = np.random.default_rng(29)


def rand(*shape: int, scale: float = 1.0) -> np.ndarray:
    return RNG.uniform(-1.0, 1.0, shape) * scale


def numeric_grad(f, x: np.ndarray, h: float = 1e-6) -> np.ndarray:
    """d f(x) / dx by float64 central differences."""
    return central_difference(lambda args: f(args[0]), [x], 0, h)


def close(a, b, tol: float = 1e-7) -> None:
    np.testing.assert_allclose(np.asarray(a), np.asarray(b), rtol=tol, atol=tol)


# ----------------------------------------------------------------------------
# scan: an RNN
# ----------------------------------------------------------------------------

def rnn(w, u, h0, xs, reverse=False, checkpoint_every=None):
    def step(h, x):
        h = rnp.tanh(w @ h + u @ x)
        return h, rnp.sum(h * h)
    h, ys = lax.scan(step, h0, xs, reverse=reverse, checkpoint_every=checkpoint_every)
    return rnp.sum(ys) + rnp.sum(h)


def rnn_unrolled(w, u, h0, xs, reverse=False):
    h, total = h0, 0.0
    order = range(xs.shape[0] - 1, -1, -1) if reverse else range(xs.shape[0])
    for t in order:
        h = rnp.tanh(w @ h + u @ xs[t])
        total = total + rnp.sum(h * h)
    return total + rnp.sum(h)


def rnn_numpy(w, u, h0, xs, reverse=False):
    h, total = h0, 0.0
    order = range(xs.shape[0] - 1, -1, -1) if reverse else range(xs.shape[0])
    for t in order:
        h = np.tanh(w @ h + u @ xs[t])
        total += np.sum(h * h)
    return total + np.sum(h)


RNN_ARGS = (rand(4, 4, scale=0.6), rand(4, 3), rand(4), rand(9, 3))


@pytest.mark.parametrize("reverse", [False, True])
@pytest.mark.parametrize("checkpoint_every", [None, 1, 2, 4, 20])
def test_scan_rnn_gradient_matches_unrolled_and_finite_differences(reverse, checkpoint_every):
    args = RNN_ARGS
    value, grads = relax_mlir.value_and_grad(
        lambda *a: rnn(*a, reverse=reverse, checkpoint_every=checkpoint_every),
        argnums=(0, 1, 2, 3))(*args)
    close(value, rnn_numpy(*args, reverse=reverse))
    unrolled = relax_mlir.grad(lambda *a: rnn_unrolled(*a, reverse=reverse),
                               argnums=(0, 1, 2, 3))(*args)
    for i, (g, u) in enumerate(zip(grads, unrolled)):
        close(g, u, 1e-9)
        fd = numeric_grad(lambda v, i=i: rnn_numpy(*[v if j == i else a for j, a in
                                                     enumerate(args)], reverse=reverse),
                          args[i])
        close(g, fd, 1e-7)


def test_scan_rnn_forward_mode_and_vjp():
    args = RNN_ARGS
    tangents = tuple(rand(*a.shape) for a in args)
    value, tangent = relax_mlir.jvp(rnn, args, tangents)
    _, expected = relax_mlir.jvp(rnn_unrolled, args, tangents)
    close(value, rnn_numpy(*args))
    close(tangent, expected, 1e-9)
    # Directional finite difference.
    h = 1e-6
    fd = (rnn_numpy(*[a + h * t for a, t in zip(args, tangents)])
          - rnn_numpy(*[a - h * t for a, t in zip(args, tangents)])) / (2 * h)
    close(tangent, fd, 1e-7)
    out, pullback = relax_mlir.vjp(rnn, *args)
    grads = pullback(np.array(1.0))
    for g, u in zip(grads, relax_mlir.grad(rnn_unrolled, argnums=(0, 1, 2, 3))(*args)):
        close(g, u, 1e-9)


def test_scan_stacks_pytrees_and_has_jax_semantics():
    """Carries and xs are pytrees; ys are stacked per leaf at the rows of the
    slices read (also with reverse); the carry keeps its type."""
    xs = {"a": np.arange(4.0), "b": np.arange(8.0).reshape(4, 2)}

    def f(carry, x):
        s, n = carry
        s = s + x["a"] * x["b"]
        return (s, n + 1), {"row": s, "n": n}

    for reverse in (False, True):
        (s, n), ys = relax_mlir.jit(
            lambda xs, reverse=reverse: lax.scan(f, (np.zeros(2), np.int32(0)), xs,
                                                 reverse=reverse))(xs)
        order = range(3, -1, -1) if reverse else range(4)
        acc, rows = np.zeros(2), np.zeros((4, 2))
        for t in order:
            acc = acc + xs["a"][t] * xs["b"][t]
            rows[t] = acc
        close(s, acc)
        assert int(n) == 4 and ys["n"].dtype == np.int32
        close(ys["row"], rows)
        np.testing.assert_array_equal(ys["n"], np.array([3, 2, 1, 0] if reverse else [0, 1, 2, 3]))


def test_scan_without_xs_and_of_length_zero():
    out = relax_mlir.jit(lambda c: lax.scan(lambda c, _: (c * 2.0, c), c, length=5))(np.array(1.0))
    close(out[0], 32.0)
    close(out[1], [1, 2, 4, 8, 16])
    c, ys = relax_mlir.jit(lambda c, xs: lax.scan(lambda c, x: (c + x, x), c, xs))(
        np.array(3.0), np.zeros((0,)))
    close(c, 3.0)
    assert ys.shape == (0,)
    g = relax_mlir.grad(lambda c, xs: lax.scan(lambda c, x: (c * x, x), c, xs)[0],
                        argnums=(0, 1))(np.array(2.0), np.zeros((0,)))
    close(g[0], 1.0)
    assert g[1].shape == (0,)


def test_scan_eagerly_on_numpy_values():
    c, ys = lax.scan(lambda c, x: (c + x, c * x), np.float32(0), np.arange(4, dtype=np.float32))
    close(c, 6.0)
    close(ys, [0, 0, 2, 9])


# ----------------------------------------------------------------------------
# fori_loop: RK4 over 1,000 steps
# ----------------------------------------------------------------------------

def rk4(y0, k, steps=1000, dt=0.001):
    def f(y):
        # A damped nonlinear oscillator: y = (position, velocity).
        return rnp.stack([y[1], -k[0] * rnp.sin(y[0]) - k[1] * y[1]])

    def step(i, y):
        a = f(y)
        b = f(y + 0.5 * dt * a)
        c = f(y + 0.5 * dt * b)
        d = f(y + dt * c)
        return y + dt / 6.0 * (a + 2.0 * b + 2.0 * c + d)

    return lax.fori_loop(0, steps, step, y0)


def rk4_numpy(y0, k, steps=1000, dt=0.001):
    def f(y):
        return np.array([y[1], -k[0] * np.sin(y[0]) - k[1] * y[1]])

    y = np.asarray(y0, np.float64)
    for _ in range(steps):
        a = f(y)
        b = f(y + 0.5 * dt * a)
        c = f(y + 0.5 * dt * b)
        d = f(y + dt * c)
        y = y + dt / 6.0 * (a + 2 * b + 2 * c + d)
    return y


def test_fori_loop_rk4_over_1000_steps_both_modes():
    y0, k = np.array([1.0, 0.0]), np.array([2.0, 0.3])
    loss = lambda y0, k: rnp.sum(rk4(y0, k) ** 2)  # noqa: E731
    ref = lambda y0, k: np.sum(rk4_numpy(y0, k) ** 2)  # noqa: E731
    value, (g_y0, g_k) = relax_mlir.value_and_grad(loss, argnums=(0, 1))(y0, k)
    close(value, ref(y0, k), 1e-10)
    close(g_y0, numeric_grad(lambda v: ref(v, k), y0), 1e-6)
    close(g_k, numeric_grad(lambda v: ref(y0, v), k), 1e-6)
    t_y0, t_k = rand(2), rand(2)
    _, tangent = relax_mlir.jvp(loss, (y0, k), (t_y0, t_k))
    close(tangent, g_y0 @ t_y0 + g_k @ t_k, 1e-9)


def test_fori_loop_index_and_traced_bounds():
    f = relax_mlir.jit(lambda x: lax.fori_loop(2, 6, lambda i, v: v + i.astype(np.float64), x))
    close(f(np.array(0.0)), 2 + 3 + 4 + 5)
    g = relax_mlir.jit(lambda n, x: lax.fori_loop(0, n, lambda i, v: v * 2.0, x))
    close(g(np.int32(5), np.array(1.0)), 32.0)
    # Traced bounds are a while loop: forward mode works, reverse mode says
    # how to bound it.
    _, t = relax_mlir.jvp(lambda x: lax.fori_loop(0, np.int32(3), lambda i, v: v * v, x),
                          (np.array(1.5),), (np.array(1.0),))
    close(t, 8 * 1.5 ** 7)
    with pytest.raises(relax_mlir.GradientError, match="max_iterations"):
        relax_mlir.grad(lambda n, x: lax.fori_loop(0, n, lambda i, v: v * v, x),
                        argnums=1)(np.int32(3), np.array(1.5))


# ----------------------------------------------------------------------------
# while_loop: Newton's method
# ----------------------------------------------------------------------------

def newton_sqrt(a, max_iterations=40, checkpoint_every=None):
    def cond(state):
        x, _ = state
        return rnp.abs(x * x - a) > 1e-12

    def body(state):
        x, n = state
        return 0.5 * (x + a / x), n + 1

    return lax.while_loop(cond, body, (a, np.int32(0)), max_iterations=max_iterations,
                          checkpoint_every=checkpoint_every)


@pytest.mark.parametrize("checkpoint_every", [None, 2, 3, 64])
def test_while_loop_newton_gradient(checkpoint_every):
    a = np.array(2.0)
    root, iters = relax_mlir.jit(lambda a: newton_sqrt(a, checkpoint_every=checkpoint_every))(a)
    close(root, np.sqrt(2.0), 1e-12)
    assert 3 <= int(iters) < 40
    g = relax_mlir.grad(lambda a: newton_sqrt(a, checkpoint_every=checkpoint_every)[0])(a)
    close(g, 0.5 / np.sqrt(2.0), 1e-9)
    _, t = relax_mlir.jvp(lambda a: newton_sqrt(a)[0], (a,), (np.array(1.0),))
    close(t, 0.5 / np.sqrt(2.0), 1e-9)


def test_while_loop_stops_at_max_iterations_and_differentiates_the_steps_taken():
    """max_iterations truncates the loop; the gradient is that of the steps
    run (compared with the unrolled truncated loop)."""
    def loop(x, cap):
        return lax.while_loop(lambda v: v < 100.0, lambda v: v * 1.5 + 0.1, x,
                              max_iterations=cap)

    def unrolled(x, n):
        for _ in range(n):
            x = x * 1.5 + 0.1
        return x

    x = np.array(1.0)
    full = relax_mlir.jit(lambda x: loop(x, 1000))(x)
    n = 0
    v = 1.0
    while v < 100.0:
        v = v * 1.5 + 0.1
        n += 1
    close(full, v, 1e-12)
    for cap in (0, 3, n, n + 5):
        close(relax_mlir.jit(lambda x, cap=cap: loop(x, cap))(x), unrolled(1.0, min(cap, n)),
              1e-12)
        close(relax_mlir.grad(lambda x, cap=cap: loop(x, cap))(x), 1.5 ** min(cap, n), 1e-12)


def test_while_loop_reverse_mode_work_follows_the_trip_count(capsys):
    """The adjoint of a while_loop that stops after 11 of at most 100,000
    iterations evaluates its condition a few hundred times (a few chunks of 8
    per checkpoint level), not once per possible iteration: a chunk entered
    after the loop ended is skipped, forward and backward."""
    def cond(v):
        debug.print("cond")
        return v < 100.0

    f = lambda x: lax.while_loop(cond, lambda v: v * 1.5 + 0.1, x,  # noqa: E731
                                 max_iterations=100_000)
    close(relax_mlir.grad(f)(np.array(1.0)), 1.5 ** 11, 1e-12)
    evaluations = capsys.readouterr().out.count("cond")
    assert 11 < evaluations < 1000, evaluations


def test_while_loop_without_bound_is_an_error_in_reverse_mode_only():
    f = lambda x: lax.while_loop(lambda v: v < 10.0, lambda v: v * 2.0, x)  # noqa: E731
    close(relax_mlir.jit(f)(np.array(1.5)), 12.0)
    _, t = relax_mlir.jvp(f, (np.array(1.5),), (np.array(1.0),))
    close(t, 8.0)
    with pytest.raises(relax_mlir.GradientError, match="has no max_iterations"):
        relax_mlir.grad(f)(np.array(1.5))


# ----------------------------------------------------------------------------
# cond and switch
# ----------------------------------------------------------------------------

def branchy(x, w):
    return lax.cond(rnp.sum(x) > 0, lambda x, w: rnp.sin(x * w), lambda x, w: rnp.exp(x) * w,
                    x, w)


def branchy_numpy(x, w):
    return np.sin(x * w) if np.sum(x) > 0 else np.exp(x) * w


@pytest.mark.parametrize("sign", [1.0, -1.0])
def test_cond_differentiates_the_branch_taken(sign):
    x, w = sign * np.abs(rand(3)) + sign * 0.1, rand(3)
    loss = lambda x, w: rnp.sum(branchy(x, w) ** 2)  # noqa: E731
    ref = lambda x, w: np.sum(branchy_numpy(x, w) ** 2)  # noqa: E731
    value, (gx, gw) = relax_mlir.value_and_grad(loss, argnums=(0, 1))(x, w)
    close(value, ref(x, w))
    close(gx, numeric_grad(lambda v: ref(v, w), x))
    close(gw, numeric_grad(lambda v: ref(x, v), w))
    tx, tw = rand(3), rand(3)
    _, t = relax_mlir.jvp(loss, (x, w), (tx, tw))
    close(t, gx @ tx + gw @ tw, 1e-9)


def test_cond_closes_over_traced_arrays_and_checks_branch_types():
    def f(p, x):
        y = x * 3.0
        return lax.cond(p, lambda: y + x, lambda: y * x)

    close(relax_mlir.jit(f)(True, np.array(2.0)), 8.0)
    close(relax_mlir.jit(f)(False, np.array(2.0)), 12.0)
    close(relax_mlir.grad(f, argnums=1)(False, np.array(2.0)), 12.0)
    with pytest.raises(TypeError, match="branch 0 and branch 1 must have the same types"):
        relax_mlir.jit(lambda x: lax.cond(x > 0, lambda x: x, lambda x: x.astype(np.float32),
                                          x))(np.array(1.0))


@pytest.mark.parametrize("index", [-3, 0, 1, 2, 7])
def test_switch_clamps_like_jax_and_differentiates_the_branch_taken(index):
    branches = [lambda x: x * x, lambda x: rnp.exp(x), lambda x: -rnp.sin(x)]
    refs = [lambda x: x * x, np.exp, lambda x: -np.sin(x)]
    x = rand(3)
    f = lambda i, x: rnp.sum(lax.switch(i, branches, x))  # noqa: E731
    picked = refs[min(max(index, 0), 2)]
    close(relax_mlir.jit(f)(np.int32(index), x), np.sum(picked(x)))
    g = relax_mlir.grad(f, argnums=1)(np.int32(index), x)
    close(g, numeric_grad(lambda v: np.sum(picked(v)), x))


# ----------------------------------------------------------------------------
# Nesting: loops in loops, with checkpoint, second order
# ----------------------------------------------------------------------------

def test_nested_loops_scan_of_while_of_cond():
    def f(w, xs):
        def outer(c, x):
            def inner(v):
                v2 = lax.cond(rnp.sum(v) > 0, lambda v: rnp.tanh(w @ v + x),
                              lambda v: rnp.sin(v) + x, v)
                return v2
            c = lax.fori_loop(0, 3, lambda i, v: inner(v), c)
            return c, rnp.sum(c)
        c, ys = lax.scan(outer, np.zeros(3), xs)
        return rnp.sum(ys * ys)

    def f_numpy(w, xs):
        c, total = np.zeros(3), 0.0
        for x in xs:
            for _ in range(3):
                c = np.tanh(w @ c + x) if np.sum(c) > 0 else np.sin(c) + x
            total += np.sum(c) ** 2
        return total

    w, xs = rand(3, 3, scale=0.7), rand(5, 3)
    close(relax_mlir.jit(f)(w, xs), f_numpy(w, xs))
    gw, gx = relax_mlir.grad(f, argnums=(0, 1))(w, xs)
    close(gw, numeric_grad(lambda v: f_numpy(v, xs), w), 1e-6)
    close(gx, numeric_grad(lambda v: f_numpy(w, v), xs), 1e-6)


def test_loop_inside_a_checkpointed_segment_and_a_checkpointed_body():
    w, xs, h0 = rand(4, 4, scale=0.6), rand(6, 4), rand(4)

    def inside(w, xs):
        seg = relax_mlir.checkpoint(lambda w, h: lax.scan(
            lambda h, x: (rnp.tanh(w @ h + x), None), h, xs)[0])
        return rnp.sum(seg(w, h0) ** 2)

    def body_checkpointed(w, xs):
        step = relax_mlir.checkpoint(lambda h, x: rnp.tanh(w @ h + x))
        return rnp.sum(lax.scan(lambda h, x: (step(h, x), None), h0, xs)[0] ** 2)

    def ref(w, xs):
        h = h0
        for x in xs:
            h = np.tanh(w @ h + x)
        return np.sum(h ** 2)

    expected = numeric_grad(lambda v: ref(v, xs), w)
    for f in (inside, body_checkpointed):
        close(relax_mlir.grad(f)(w, xs), expected, 1e-7)


def test_second_order_through_a_loop():
    """Hessian-vector product and grad of grad through scan (reverse over
    reverse and forward over reverse)."""
    def f(x):
        return rnp.sum(lax.scan(lambda c, _: (rnp.sin(c) * x, None), x, length=4)[0])

    def f_numpy(x):
        c = x
        for _ in range(4):
            c = np.sin(c) * x
        return np.sum(c)

    x, v = rand(3), rand(3)
    hvp = relax_mlir.jvp(relax_mlir.grad(f), (x,), (v,))[1]
    grad_fd = lambda y: numeric_grad(f_numpy, y, 1e-5)  # noqa: E731
    expected = (grad_fd(x + 1e-4 * v) - grad_fd(x - 1e-4 * v)) / 2e-4
    close(hvp, expected, 1e-4)
    gg = relax_mlir.grad(lambda x: rnp.sum(relax_mlir.grad(f)(x) * v))(x)
    close(gg, hvp, 1e-9)


def test_loops_nest_in_jit_and_vjp_inside_jit():
    args = RNN_ARGS

    @relax_mlir.jit
    def step(w, u, h0, xs):
        loss, pullback = relax_mlir.vjp(lambda w: rnn(w, u, h0, xs), w)
        return loss, pullback(np.array(1.0))[0]

    loss, gw = step(*args)
    close(loss, rnn_numpy(*args))
    close(gw, relax_mlir.grad(rnn)(*args), 1e-9)


# ----------------------------------------------------------------------------
# Errors
# ----------------------------------------------------------------------------

# Each error a user can make: (exception, what the message says, the call).
USER_ERRORS = [
    (TypeError, r"carry f returns and the carry it takes must have the same types.*float32.*"
                r"\.astype", lambda x: lax.scan(lambda c, _: (c.astype(np.float32), None), x,
                                                length=2)),
    (TypeError, r"same structure.*return the same tuples",
     lambda x: lax.scan(lambda c, _: ((c, c), None), x, length=2)),
    (ValueError, r"different leading axes.*must all equal the number of iterations",
     lambda x: lax.scan(lambda c, x: (c, x), x, (np.zeros(3), np.zeros(4)))),
    (ValueError, r"give the number of iterations as length=",
     lambda x: lax.scan(lambda c, _: (c, None), x)),
    (ValueError, r"0-d array: stack the per-iteration values",
     lambda x: lax.scan(lambda c, y: (c, None), x, x)),
    (ValueError, r"length must be a non-negative int.*write length=",
     lambda x: lax.scan(lambda c, _: (c, None), x, length=-2)),
    (ValueError, r"unroll must be a positive int.*leave it out",
     lambda x: lax.scan(lambda c, _: (c, None), x, length=2, unroll=0)),
    (ValueError, r"checkpoint_every must be an int >= 1.*write checkpoint_every=",
     lambda x: lax.scan(lambda c, _: (c, None), x, length=2, checkpoint_every=0)),
    (TypeError, r"f must be a function.*write lax.scan\(f, init, xs\)",
     lambda x: lax.scan(x, x, length=2)),
    (TypeError, r"must return a pair.*return \(new_carry, None\)",
     lambda x: lax.scan(lambda c, _: c, x, length=2)),
    (TypeError, r"body_fun must be a function.*lax.fori_loop\(lower, upper",
     lambda x: lax.fori_loop(0, 2, x, x)),
    (TypeError, r"upper must be an int.*int\(\.\.\.\)",
     lambda x: lax.fori_loop(0, 2.5, lambda i, v: v, x)),
    (TypeError, r"cond_fun must be a function.*lax.while_loop\(cond_fun",
     lambda x: lax.while_loop(x, lambda v: v, x)),
    (TypeError, r"cond_fun must return a scalar boolean.*return one comparison",
     lambda x: lax.while_loop(lambda v: v, lambda v: v, x)),
    (TypeError, r"the value body_fun returns and the one it takes must have the same types",
     lambda x: lax.while_loop(lambda v: v < 1.0, lambda v: v.astype(np.float32), x)),
    (ValueError, r"max_iterations must be an int >= 0.*or leave it out",
     lambda x: lax.while_loop(lambda v: v > 0, lambda v: v, x, max_iterations=-1)),
    (TypeError, r"pred must be a scalar.*reduce it to one value",
     lambda x: lax.cond(rnp.stack([x, x]) > 0, lambda: x, lambda: x)),
    (TypeError, r"branch 1 must be a function.*pass functions",
     lambda x: lax.cond(x > 0, lambda: x, x)),
    (TypeError, r"branch 0 and branch 1 must have the same types",
     lambda x: lax.cond(x > 0, lambda: x, lambda: x.astype(np.float32))),
    (TypeError, r"index must be a scalar integer.*\.astype\(np\.int32\)",
     lambda x: lax.switch(x, [lambda: x, lambda: x])),
    (TypeError, r"branches must be a non-empty list.*lax.switch\(index, \[f0, f1\]",
     lambda x: lax.switch(np.int32(0), [])),
]


@pytest.mark.parametrize("error, message, call", USER_ERRORS,
                         ids=[f"error{i}" for i in range(len(USER_ERRORS))])
def test_errors_name_the_line_and_say_what_to_write(error, message, call):
    """Every error of the lax functions names the user's file:line (here, the
    lambda's) and says what to write instead."""
    with pytest.raises(error, match=r"test_control_flow.py:\d+.*" + message):
        relax_mlir.jit(call)(np.array(1.0))


def test_checkpointed_while_adjoint_frees_every_buffer():
    """The adjoint of a while loop (reversed as three levels of nested chunks
    and a tail) frees every buffer it allocates, whichever steps ran (a
    loop-carried buffer's deallocation was split away from its ownership
    transfer: 128 bytes leaked per call)."""
    w = rand(8, scale=0.5)

    def f(w):
        return rnp.sum(lax.while_loop(lambda v: rnp.sum(v * v) < 100.0,
                                      lambda v: v * 1.5 + 0.1, w * 1.0, max_iterations=20,
                                      checkpoint_every=3))

    step = relax_mlir.grad(f)
    step(w)
    before = relax_mlir.memory_stats()["live_bytes"]
    for _ in range(3):
        g = step(w)
        del g
    assert relax_mlir.memory_stats()["live_bytes"] == before


# Loop inputs read through views, and size-1 and size-0 dims: (name, shape of
# the argument, the view as traced, the same view in numpy).
VIEWS = [
    ("step", (6, 4), lambda a: a[::2], lambda a: a[::2]),
    ("negative-step", (5, 3), lambda a: a[::-2], lambda a: a[::-2]),
    ("transpose", (4, 6), lambda a: a.T, lambda a: a.T),
    ("broadcast", (4,), lambda a: rnp.broadcast_to(a, (3, 4)),
     lambda a: np.broadcast_to(a, (3, 4))),
    ("size-1", (1, 1), lambda a: a, lambda a: a),
    ("size-0-length", (0, 4), lambda a: a, lambda a: a),
    ("size-0-carry", (3, 0), lambda a: a, lambda a: a),
]


@pytest.mark.parametrize("opt_level", [0, 1, 2, 3])
@pytest.mark.parametrize("name, shape, view, np_view", VIEWS, ids=[v[0] for v in VIEWS])
def test_loops_over_views_and_small_dims_at_every_opt_level(name, shape, view, np_view,
                                                            opt_level):
    """A scan over a view (its slices and the carry read through it) then a
    cond and a while loop: value and gradient against numpy and central
    differences, through each opt level's pipeline."""
    def f(a):
        xs = view(a)
        h0 = rnp.ones(xs.shape[1:], np.float64) * 0.5
        h, ys = lax.scan(lambda h, x: (rnp.tanh(h * x + x), rnp.sum(h)), h0, xs)
        z = lax.cond(rnp.sum(h) >= 0, lambda h: h * 2.0, lambda h: rnp.sin(h), h)
        z = lax.while_loop(lambda v: rnp.sum(v * v) < 50.0, lambda v: v * 1.5 + 0.1, z,
                           max_iterations=4)
        return rnp.sum(z) + rnp.sum(ys)

    def f_numpy(a):
        xs = np_view(a)
        h, total = np.full(xs.shape[1:], 0.5), 0.0
        for x in xs:
            total += np.sum(h)
            h = np.tanh(h * x + x)
        z = h * 2.0 if np.sum(h) >= 0 else np.sin(h)
        for _ in range(4):
            if np.sum(z * z) >= 50.0:
                break
            z = z * 1.5 + 0.1
        return np.sum(z) + total

    a = rand(*shape, scale=0.8)
    value, g = relax_mlir.value_and_grad(f, opt_level=opt_level)(a)
    close(value, f_numpy(a))
    close(g, numeric_grad(f_numpy, a), 1e-6)
