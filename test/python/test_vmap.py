"""vmap: every op with a batching rule against a loop of per-example calls,
the transformations nested with it (per-example gradients, grad of vmap, jit,
vmap of vmap), in_axes/out_axes and pytrees, and the errors.

The op sweep: for every case of the op table whose op has a batching rule,
the one-op function of one example is batched by the `vmap` pass (all inputs
batched; only the first, or only the last, with the others shared), compiled,
and run on a batch of three different examples; each row must match the
case's float64 numpy reference for that example.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
import relax_mlir
import relax_mlir.nn as nn
import relax_mlir.numpy as rnp
from relax_mlir._module import run_passes
from test_ops_forward import assert_matches, dtype_id

from relax_mlir_testing import harness as rt
from relax_mlir_testing import ops as op_table
from relax_mlir_testing.cases import OpCase

BATCH = 3
BATCHING = {o.name.removeprefix("relax."): o.batching for o in relax_mlir.ops()}

# Ops with tensor operands and no batching rule: vmap would report them by
# name. A rule removed must add its op here.
NO_RULE: set[str] = set()
# Ops that take no batched value (no tensor operands, or structure the pass
# walks itself).
NEVER_BATCHED = {"condition", "dataflow", "full", "ones", "output", "yield", "zeros"}


def test_every_op_has_a_batching_rule_or_is_listed() -> None:
    missing = {name for name, has in BATCHING.items() if not has}
    assert missing == NO_RULE | NEVER_BATCHED, (
        f"ops without a rule not listed: {sorted(missing - NO_RULE - NEVER_BATCHED)}; "
        f"listed but with a rule: {sorted((NO_RULE | NEVER_BATCHED) - missing)}")


def _dtype(case: OpCase) -> Any:
    return np.float64 if np.float64 in case.dtypes else case.dtypes[0]


def _modes(case: OpCase) -> tuple[str, ...]:
    """all inputs batched; only the first; only the last (the others shared)."""
    if len(case.inputs) == 1:
        return ("all",)
    return ("all", "first", "last")


SWEEP = [pytest.param(c, mode, id=f"{c.id}-{mode}")
         for c in op_table.TABLE if BATCHING.get(c.op) for mode in _modes(c)]


@pytest.mark.parametrize("case,mode", SWEEP)
def test_batched_op_matches_a_loop(case: OpCase, mode: str) -> None:
    dtype = _dtype(case)
    gen = rt.rng("vmap", case.id, dtype_id(dtype))
    examples = [case.sample(dtype, gen) for _ in range(BATCH)]
    names = list(examples[0])
    batched = {"all": names, "first": names[:1], "last": names[-1:]}[mode]
    for ex in examples[1:]:  # shared inputs: the first example's
        for name in names:
            if name not in batched:
                ex[name] = examples[0][name]
    expected = [case.expected(ex) for ex in examples]
    text = rt.one_op_function(case.op, rt.params_of(examples[0]),
                              rt.type_of(expected[0], case.result_dtype(dtype)), case.attrs)
    module = relax_mlir.ir.Module.parse(text, context=relax_mlir.ir.Context())
    indices = ",".join(str(names.index(n)) for n in batched)
    run_passes(module, f"builtin.module(vmap{{func=main batch-size={BATCH} batched={indices}}})",
               relax_mlir.CompilationError, "vmap failed")
    exe = relax_mlir.compile(module, functions=["main_vmap"])
    args = [np.stack([ex[n] for ex in examples]) if n in batched else examples[0][n]
            for n in names]
    out = exe.main_vmap(*args)
    want: Any = (tuple(np.stack(f) for f in zip(*expected)) if isinstance(expected[0], tuple)
                 else np.stack(expected))
    assert_matches(out, want, case.result_dtype(dtype), case.tol.get(case.result_dtype(dtype)))


# ----------------------------------------------------------------------------
# The transformations nested
# ----------------------------------------------------------------------------

RNG = np.random.default_rng(0)
PARAMS = {"w1": RNG.normal(size=(6, 16)) * 0.5, "b1": RNG.normal(size=16) * 0.1,
          "w2": RNG.normal(size=(16, 4)) * 0.5, "b2": np.zeros(4)}
X = RNG.normal(size=(5, 6))
LABELS = RNG.integers(0, 4, 5)


def mlp_loss(params: dict, x: Any, label: Any) -> Any:
    """One example's cross entropy (the bench MLP's loss, per example)."""
    h = nn.relu(x @ params["w1"] + params["b1"])
    logits = h @ params["w2"] + params["b2"]
    return nn.cross_entropy(logits[None, :], label[None])


def mlp_loss_numpy(params: dict, x: np.ndarray, label: int) -> float:
    h = np.maximum(x @ params["w1"] + params["b1"], 0)
    z = h @ params["w2"] + params["b2"]
    return float(np.log(np.exp(z - z.max()).sum()) + z.max() - z[label])


def numeric_grads(params: dict, x: np.ndarray, label: int, eps: float = 1e-6) -> dict:
    out = {}
    for k, v in params.items():
        g = np.zeros_like(v)
        for i in np.ndindex(v.shape):
            plus = {**params, k: v.copy()}
            minus = {**params, k: v.copy()}
            plus[k][i] += eps
            minus[k][i] -= eps
            g[i] = (mlp_loss_numpy(plus, x, label) - mlp_loss_numpy(minus, x, label)) / (2 * eps)
        out[k] = g
    return out


def test_per_example_gradients_are_one_program() -> None:
    """vmap(grad(loss), in_axes=(None, 0, 0)): each row is that example's
    gradient (central differences), from one compiled function."""
    grads = relax_mlir.vmap(relax_mlir.grad(mlp_loss), in_axes=(None, 0, 0))(PARAMS, X, LABELS)
    for i in range(len(X)):
        want = numeric_grads(PARAMS, X[i], int(LABELS[i]))
        for k in PARAMS:
            assert grads[k].shape == (len(X),) + PARAMS[k].shape
            np.testing.assert_allclose(grads[k][i], want[k], rtol=1e-6, atol=1e-8)
    text = relax_mlir.jit(relax_mlir.vmap(relax_mlir.grad(mlp_loss), in_axes=(None, 0, 0))
                          ).lower(PARAMS, X, LABELS).as_text()
    assert "func.call" in text and "scan" not in text and text.count("relax.matmul") >= 3


def test_grad_of_vmap_sums_the_examples_gradients() -> None:
    def total(params: dict) -> Any:
        return rnp.sum(relax_mlir.vmap(mlp_loss, in_axes=(None, 0, 0))(params, X, LABELS))

    grads = relax_mlir.grad(total)(PARAMS)
    per = [numeric_grads(PARAMS, X[i], int(LABELS[i])) for i in range(len(X))]
    for k in PARAMS:
        np.testing.assert_allclose(grads[k], sum(p[k] for p in per), rtol=1e-6, atol=1e-8)


def test_values_jit_and_vmap_of_vmap() -> None:
    losses = relax_mlir.vmap(mlp_loss, in_axes=(None, 0, 0))(PARAMS, X, LABELS)
    np.testing.assert_allclose(losses, [mlp_loss_numpy(PARAMS, X[i], int(LABELS[i]))
                                        for i in range(len(X))], rtol=1e-12)
    jitted = relax_mlir.jit(relax_mlir.vmap(mlp_loss, in_axes=(None, 0, 0)))(PARAMS, X, LABELS)
    np.testing.assert_allclose(jitted, losses, rtol=1e-12)
    # vmap of vmap: a (2, 3) grid of examples.
    a = RNG.normal(size=(2, 3, 4))
    w = RNG.normal(size=(4, 5))
    twice = relax_mlir.vmap(relax_mlir.vmap(lambda x, w: rnp.tanh(x @ w), in_axes=(0, None)),
                            in_axes=(0, None))(a, w)
    np.testing.assert_allclose(twice, np.tanh(a @ w), rtol=1e-12)


def test_in_axes_out_axes_and_pytrees() -> None:
    a = RNG.normal(size=(4, 3))
    b = RNG.normal(size=(3,))

    def f(d: dict, y: Any) -> Any:
        return rnp.sum(d["p"] * y), d["p"] * 2.0

    # The batch along axis 1 of the dict's leaves, y shared; the second
    # output's batch on its axis 1.
    s, t = relax_mlir.vmap(f, in_axes=(1, None), out_axes=(0, 1))({"p": a.T}, b)
    np.testing.assert_allclose(s, (a * b).sum(axis=1), rtol=1e-12)
    assert t.shape == (3, 4)
    np.testing.assert_allclose(t, (a * 2.0).T, rtol=1e-12)
    # Negative axes; an int in_axes maps every argument.
    np.testing.assert_allclose(relax_mlir.vmap(lambda x, y: x + y, in_axes=-1)(a.T, a.T),
                               2 * a, rtol=1e-12)


def test_unbatched_ops_run_once_and_unbatched_outputs_broadcast() -> None:
    w = RNG.normal(size=(3, 3))

    def f(x: Any, w: Any) -> Any:
        return (rnp.sum(x), rnp.exp(w))  # exp(w) reads nothing batched

    text = relax_mlir.jit(relax_mlir.vmap(f, in_axes=(0, None))).lower(X, w).as_text()
    assert "tensor<5x3x3xf64>" in text  # exp(w) broadcast to the batch at the end
    s, e = relax_mlir.vmap(f, in_axes=(0, None))(X, w)
    np.testing.assert_allclose(s, X.sum(axis=1), rtol=1e-12)
    np.testing.assert_allclose(e, np.broadcast_to(np.exp(w), (5, 3, 3)), rtol=1e-12)


def test_errors_say_what_to_change() -> None:
    with pytest.raises(ValueError, match=r"different sizes \(\(5, 6\) along axis 0, "
                                         r"\(4,\) along axis 0\)"):
        relax_mlir.vmap(lambda x, y: x, in_axes=0)(X, np.zeros(4))
    with pytest.raises(ValueError, match=r"^\S*test_vmap.py:\d+:\d+: vmap of <lambda>: "
                                         r"in_axes 2 is out of range for arg0 of shape"):
        relax_mlir.vmap(lambda x: x, in_axes=2)(X)
    with pytest.raises(ValueError, match="no argument is mapped"):
        relax_mlir.vmap(lambda x: x, in_axes=None)(X)
    with pytest.raises(ValueError, match="in_axes has 1 entries for 2 arguments"):
        relax_mlir.vmap(lambda x, y: x, in_axes=(0,))(X, X)
    with pytest.raises(TypeError, match="pass the arguments positionally"):
        relax_mlir.vmap(lambda x: x)(x=X)
    with pytest.raises(TypeError, match=r"test_vmap.py:\d+:\d+: vmap of <lambda>: in_axes "
                                        r"must be an int, None or a tuple"):
        relax_mlir.vmap(lambda x: x, in_axes="0")(X)


def test_custom_vjp_under_vmap_keeps_its_rule() -> None:
    """A custom_vjp function under vmap stays one call with rules: the values
    are the function's, and grad of the vmapped function and vmap of its grad
    both use the given backward (deliberately not the derivative: 3 g for x,
    5 g for w), the shared w's gradient summed over the batch."""
    @relax_mlir.custom_vjp
    def f(x: Any, w: Any) -> Any:
        return x * w

    f.defvjp(lambda x, w: (x * w, None), lambda _, g: (g * 3.0, g * 5.0))
    xs, w, c = RNG.normal(size=(4, 3)), RNG.normal(size=(3,)), RNG.normal(size=(4, 3))
    batched = relax_mlir.vmap(f, in_axes=(0, None))
    np.testing.assert_allclose(batched(xs, w), xs * w, rtol=1e-12)
    gx, gw = relax_mlir.grad(lambda xs, w: rnp.sum(batched(xs, w) * c), argnums=(0, 1))(xs, w)
    np.testing.assert_allclose(gx, 3.0 * c, rtol=1e-12)
    np.testing.assert_allclose(gw, 5.0 * c.sum(axis=0), rtol=1e-12)
    per_example = relax_mlir.vmap(
        relax_mlir.grad(lambda x, w, ci: rnp.sum(f(x, w) * ci), argnums=(0, 1)),
        in_axes=(0, None, 0))
    px, pw = per_example(xs, w, c)
    np.testing.assert_allclose(px, 3.0 * c, rtol=1e-12)
    np.testing.assert_allclose(pw, 5.0 * c, rtol=1e-12)
    # Both operands batched, and the function batched twice (vmap of vmap).
    ws = RNG.normal(size=(4, 3))
    gx, gw = relax_mlir.grad(
        lambda xs, ws: rnp.sum(relax_mlir.vmap(f)(xs, ws) * c), argnums=(0, 1))(xs, ws)
    np.testing.assert_allclose(gw, 5.0 * c, rtol=1e-12)
    twice = relax_mlir.vmap(relax_mlir.vmap(f, in_axes=(0, None)), in_axes=(0, None))
    np.testing.assert_allclose(twice(xs.reshape(2, 2, 3), w), (xs * w).reshape(2, 2, 3),
                               rtol=1e-12)


def test_custom_jvp_under_vmap_keeps_its_rule() -> None:
    """A custom_jvp function under vmap: jvp of the batched function uses the
    given tangent map (deliberately 2 t, not cos(x) t), and so does its
    reverse mode (the map's transpose)."""
    @relax_mlir.custom_jvp
    def g(x: Any) -> Any:
        return rnp.sin(x)

    @g.defjvp
    def g_jvp(primals: Any, tangents: Any) -> Any:
        return rnp.sin(primals[0]), 2.0 * tangents[0]

    xs, ts = RNG.normal(size=(4, 3)), RNG.normal(size=(4, 3))
    out, tangent = relax_mlir.jvp(relax_mlir.vmap(g), (xs,), (ts,))
    np.testing.assert_allclose(out, np.sin(xs), rtol=1e-12)
    np.testing.assert_allclose(tangent, 2.0 * ts, rtol=1e-12)
    grads = relax_mlir.grad(lambda xs: rnp.sum(relax_mlir.vmap(g)(xs)))(xs)
    np.testing.assert_allclose(grads, np.full_like(xs, 2.0), rtol=1e-12)


@pytest.mark.parametrize("groups,shared_input", [(1, False), (1, True), (2, False), (2, True)])
def test_a_batched_filter_convolves_each_example_with_its_own(groups: int,
                                                             shared_input: bool) -> None:
    """conv2d with a filter per example (the examples' filters become groups
    of one convolution): values and the gradient of every operand against a
    loop of per-example calls, grouped or not, the input batched or shared."""
    xs = RNG.normal(size=(3, 2, 4, 6, 5))
    ks = RNG.normal(size=(3, 6, 4 // groups, 3, 2))
    c = RNG.normal(size=(3, 2, 6, 3, 6))

    def conv(x: Any, k: Any) -> Any:
        return nn.conv2d(x, k, stride=(2, 1), padding=1, groups=groups)

    in_axes = (None, 0) if shared_input else (0, 0)
    x_arg = xs[0] if shared_input else xs
    got = relax_mlir.vmap(conv, in_axes=in_axes)(x_arg, ks)
    single = relax_mlir.jit(conv)
    single_grad = relax_mlir.grad(lambda x, k, ci: rnp.sum(conv(x, k) * ci), argnums=(0, 1))
    gx, gk = relax_mlir.grad(
        lambda x, k: rnp.sum(relax_mlir.vmap(conv, in_axes=in_axes)(x, k) * c),
        argnums=(0, 1))(x_arg, ks)
    want_gx = []
    for i in range(3):
        xi = xs[0] if shared_input else xs[i]
        np.testing.assert_allclose(got[i], single(xi, ks[i]), rtol=1e-12, atol=1e-12)
        ex_gx, ex_gk = single_grad(xi, ks[i], c[i])
        np.testing.assert_allclose(gk[i], ex_gk, rtol=1e-10, atol=1e-12)
        want_gx.append(ex_gx)
    want = np.sum(want_gx, axis=0) if shared_input else np.stack(want_gx)
    np.testing.assert_allclose(gx, want, rtol=1e-10, atol=1e-12)


def test_batched_class_weights_weigh_each_examples_losses() -> None:
    """nll_loss with class weights per example (each "mean" divided by its
    own weights of the targets not ignored), and their gradient, against a
    loop."""
    logp = np.log(RNG.dirichlet(np.ones(4), size=(3, 5)))
    targets = RNG.integers(0, 4, size=(3, 5)).astype(np.int32)
    targets[:, 0] = 1
    weights = RNG.uniform(0.5, 2.0, size=(3, 4))

    def loss(p: Any, t: Any, w: Any) -> Any:
        return nn.nll_loss(p, t, weight=w, ignore_index=1)

    got = relax_mlir.vmap(loss)(logp, targets, weights)
    grads = relax_mlir.grad(lambda p, t, w: rnp.sum(relax_mlir.vmap(loss)(p, t, w)),
                            argnums=2)(logp, targets, weights)
    single_grad = relax_mlir.grad(loss, argnums=2)
    for i in range(3):
        kept = targets[i] != 1
        picked = weights[i][targets[i]] * kept
        want = -(picked * logp[i][np.arange(5), targets[i]]).sum() / picked.sum()
        np.testing.assert_allclose(got[i], want, rtol=1e-12)
        np.testing.assert_allclose(grads[i], single_grad(logp[i], targets[i], weights[i]),
                                   rtol=1e-10, atol=1e-14)


def test_a_batch_of_images_through_a_cnn() -> None:
    """conv2d, max and average pooling and layer_norm with the batch folded
    into N: a batch of 3 single-image examples against a loop."""
    images = RNG.normal(size=(3, 1, 2, 8, 8))
    k = RNG.normal(size=(4, 2, 3, 3))
    g = RNG.normal(size=(4,))

    def net(x: Any) -> Any:
        y = nn.relu(nn.conv2d(x, k, padding=1))
        y = nn.max_pool2d(y, 2) + nn.avg_pool2d(y, 2)
        y = rnp.transpose(y, (0, 2, 3, 1))
        return nn.layer_norm(y, g, g * 0.5)

    batched = relax_mlir.vmap(net)(images)
    single = relax_mlir.jit(net)
    for i in range(3):
        np.testing.assert_allclose(batched[i], single(images[i]), rtol=1e-12, atol=1e-12)


def test_vmap_nests_with_jvp_and_vjp() -> None:
    """Per-example Jacobian-vector products (vmap of jvp) and the jvp and vjp
    of a vmapped function, against closed forms."""
    w = RNG.normal(size=(3, 2))
    xs = RNG.normal(size=(4, 3))
    vs = RNG.normal(size=(4, 3))

    def f(x: Any) -> Any:
        return rnp.tanh(x @ w)

    def jvp_one(x: Any, v: Any) -> Any:
        return relax_mlir.jvp(f, (x,), (v,))[1]

    d = 1 - np.tanh(xs @ w) ** 2
    np.testing.assert_allclose(relax_mlir.vmap(jvp_one)(xs, vs), d * (vs @ w), rtol=1e-12)
    y, t = relax_mlir.jvp(relax_mlir.vmap(f), (xs,), (vs,))
    np.testing.assert_allclose(y, np.tanh(xs @ w), rtol=1e-12)
    np.testing.assert_allclose(t, d * (vs @ w), rtol=1e-12)
    ct = RNG.normal(size=(4, 2))
    _, pullback = relax_mlir.vjp(relax_mlir.vmap(f), xs)
    np.testing.assert_allclose(pullback(ct)[0], (ct * d) @ w.T, rtol=1e-12)


def test_checkpointed_segments_batch_and_still_recompute() -> None:
    """A checkpointed segment (its markers batched) inside vmap: the gradient
    of the batched function equals the one without the checkpoint, and the
    adjoint recomputes the segment."""
    w = RNG.normal(size=(3, 3))
    xs = RNG.normal(size=(4, 3))

    def layer(x: Any) -> Any:
        return rnp.tanh(x @ w) * 2.0

    def plain(x: Any) -> Any:
        return rnp.sum(layer(layer(x)))

    def marked(x: Any) -> Any:
        return rnp.sum(relax_mlir.checkpoint(layer)(layer(x)))

    def total(f: Any) -> Any:
        return lambda x: rnp.sum(relax_mlir.vmap(f)(x))

    np.testing.assert_allclose(relax_mlir.grad(total(marked))(xs),
                               relax_mlir.grad(total(plain))(xs), rtol=1e-12)
    def tanhs(f: Any) -> int:
        return relax_mlir.grad(total(f)).lower(xs).as_text("adjoint").count("relax.tanh")

    assert tanhs(marked) == tanhs(plain) + 1  # the segment's tanh, recomputed


def test_a_second_call_reuses_the_trace_and_the_code() -> None:
    """Calls with the same shapes trace, batch and compile once (a training
    loop of per-example gradients does not retrace every step)."""
    calls = []

    def f(x: Any, w: Any) -> Any:
        calls.append(1)
        return rnp.sum(x @ w)

    batched = relax_mlir.vmap(f, in_axes=(0, None))
    w = RNG.normal(size=(6, 2))
    first = batched(X, w)
    second = batched(X + 1.0, w)
    assert len(calls) == 1
    np.testing.assert_allclose(second, (X + 1.0) @ w @ np.ones(2), rtol=1e-12)
    np.testing.assert_allclose(first, X @ w @ np.ones(2), rtol=1e-12)
    # Another batch size: the same example, so no new trace (only the
    # batched function is made again).
    np.testing.assert_allclose(batched(X[:2], w), X[:2] @ w @ np.ones(2), rtol=1e-12)
    assert len(calls) == 1


def test_batched_indices_out_of_range_are_clamped_within_their_own_example() -> None:
    """take and scatter with a batch of indices are one op over the batch
    flattened with the axis: an index past the end (or before the start) is
    clamped into its own example's rows, as the unbatched op clamps it, not
    read from or written to a neighbour's."""
    data = RNG.normal(size=(4, 5))
    idx = np.array([[7, -9], [5, 0], [-1, 12], [2, -6]])
    got = relax_mlir.vmap(lambda d, i: rnp.take(d, i))(data, idx)
    want = np.stack([np.take(d, np.clip(np.where(i < 0, i + 5, i), 0, 4))
                     for d, i in zip(data, idx)])
    np.testing.assert_array_equal(got, want)
    upd = RNG.normal(size=(4, 2))
    got = relax_mlir.vmap(lambda d, i, u: d.at[rnp.clip(i, -5, 4)].add(u))(data, idx, upd)
    want = np.stack([relax_mlir.jit(lambda d, i, u: d.at[rnp.clip(i, -5, 4)].add(u))(d, i, u)
                     for d, i, u in zip(data, idx, upd)])
    np.testing.assert_allclose(got, want)
    got = relax_mlir.vmap(lambda d, i, u: d.at[rnp.clip(i, -5, 4)].max(u))(data, idx, upd)
    want = np.stack([relax_mlir.jit(lambda d, i, u: d.at[rnp.clip(i, -5, 4)].max(u))(d, i, u)
                     for d, i, u in zip(data, idx, upd)])
    np.testing.assert_allclose(got, want)


# ----------------------------------------------------------------------------
# Loops and branches
# ----------------------------------------------------------------------------

def rnn_loss(w: Any, h0: Any, xs: Any) -> Any:
    """A tanh RNN over xs (one example: (steps, 3)), its last state's square sum."""
    def step(h: Any, x: Any) -> Any:
        h = rnp.tanh(h @ w + x)
        return h, rnp.sum(h)
    h, ys = relax_mlir.lax.scan(step, h0, xs)
    return rnp.sum(h * h) + rnp.sum(ys)


def rnn_loss_numpy(w: np.ndarray, h0: np.ndarray, xs: np.ndarray) -> float:
    h, total = h0, 0.0
    for x in xs:
        h = np.tanh(h @ w + x)
        total += h.sum()
    return float((h * h).sum() + total)


def test_a_scan_batches_into_one_scan_and_per_example_grads_match() -> None:
    """vmap of a scan whose carry starts shared and becomes batched (xs are
    per example), and the per-example gradients of the RNN."""
    w = RNG.normal(size=(3, 3)) * 0.5
    h0 = np.zeros(3)
    xs = RNG.normal(size=(4, 5, 3))   # 4 examples of 5 steps
    got = relax_mlir.vmap(rnn_loss, in_axes=(None, None, 0))(w, h0, xs)
    np.testing.assert_allclose(got, [rnn_loss_numpy(w, h0, x) for x in xs], rtol=1e-12)
    text = relax_mlir.jit(relax_mlir.vmap(rnn_loss, in_axes=(None, None, 0))).lower(
        w, h0, xs).as_text()
    assert text.count("relax.scan") == 1, text   # one loop for the batch, not four
    grads = relax_mlir.vmap(relax_mlir.grad(rnn_loss), in_axes=(None, None, 0))(w, h0, xs)
    for i, x in enumerate(xs):
        want = np.zeros_like(w)
        for j in np.ndindex(w.shape):
            plus, minus = w.copy(), w.copy()
            plus[j] += 1e-6
            minus[j] -= 1e-6
            want[j] = (rnn_loss_numpy(plus, h0, x) - rnn_loss_numpy(minus, h0, x)) / 2e-6
        np.testing.assert_allclose(grads[i], want, rtol=1e-6, atol=1e-8)
    # A batched constant of the body (w per example) and a batched carry.
    ws = RNG.normal(size=(4, 3, 3)) * 0.5
    got = relax_mlir.vmap(rnn_loss, in_axes=(0, None, 0))(ws, h0, xs)
    np.testing.assert_allclose(got, [rnn_loss_numpy(a, h0, x) for a, x in zip(ws, xs)],
                               rtol=1e-12)


@pytest.mark.parametrize("batched_pred", [False, True])
def test_cond_and_switch_batch_with_shared_or_per_example_selectors(batched_pred: bool) -> None:
    xs = RNG.normal(size=(6, 3))
    preds = np.array([True, False, True, True, False, False])
    index = np.array([0, 2, 1, 5, -1, 1])

    def f(p: Any, i: Any, x: Any) -> Any:
        a = relax_mlir.lax.cond(p, lambda v: rnp.exp(v), lambda v: v * 2.0, x)
        b = relax_mlir.lax.switch(i, [lambda v: v, lambda v: -v, lambda v: v * v], x)
        return a + b

    def f_numpy(p: bool, i: int, x: np.ndarray) -> np.ndarray:
        a = np.exp(x) if p else x * 2.0
        b = [x, -x, x * x][int(np.clip(i, 0, 2))]
        return a + b

    if batched_pred:
        got = relax_mlir.vmap(f, in_axes=(0, 0, 0))(preds, index, xs)
        want = [f_numpy(p, i, x) for p, i, x in zip(preds, index, xs)]
    else:
        got = relax_mlir.vmap(f, in_axes=(None, None, 0))(np.bool_(True), np.int64(2), xs)
        want = [f_numpy(True, 2, x) for x in xs]
    np.testing.assert_allclose(got, np.stack(want), rtol=1e-12)


def test_the_batched_signatures_kept_follow_config_cache_size() -> None:
    saved = relax_mlir.config.cache_size
    relax_mlir.config.update("cache_size", 2)
    try:
        f = relax_mlir.vmap(lambda x: x * 2.0)
        for n in range(1, 6):
            np.testing.assert_array_equal(f(np.ones((n, 3))), np.full((n, 3), 2.0))
        assert len(f._cache) == 2       # the two most recent batch sizes
        assert len(f._jits) == 1        # one argument structure
    finally:
        relax_mlir.config.update("cache_size", saved)


def test_a_while_loop_batches_with_a_shared_or_per_example_predicate() -> None:
    """A per-example predicate: the loop runs while any example's holds, each
    example's carry kept once its own fails (JAX's batched while_loop)."""
    def halve_until(x: Any, limit: Any) -> Any:
        return relax_mlir.lax.while_loop(lambda v: rnp.sum(v) > limit, lambda v: v * 0.5, x)

    def halve_until_numpy(x: np.ndarray, limit: float) -> np.ndarray:
        while x.sum() > limit:
            x = x * 0.5
        return x

    xs = np.abs(RNG.normal(size=(5, 3))) * np.array([[1.0], [10.0], [100.0], [0.1], [3.0]])
    got = relax_mlir.vmap(halve_until, in_axes=(0, None))(xs, 1.0)
    np.testing.assert_allclose(got, [halve_until_numpy(x, 1.0) for x in xs], rtol=1e-12)
    limits = np.array([0.5, 1.0, 2.0, 4.0, 8.0])
    got = relax_mlir.vmap(halve_until, in_axes=(None, 0))(xs[2], limits)
    np.testing.assert_allclose(got, [halve_until_numpy(xs[2], t) for t in limits], rtol=1e-12)
    # A shared predicate (a fixed count) over batched carries: one plain loop.
    got = relax_mlir.vmap(lambda x: relax_mlir.lax.fori_loop(0, 3, lambda i, v: v * 2.0, x))(xs)
    np.testing.assert_allclose(got, xs * 8.0, rtol=1e-12)
