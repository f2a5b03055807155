"""Checkpointing end to end: the compiled adjoint of a checkpointed chain gives the
numbers of the unmarked chain, both match float64 finite differences, and the
static peak of live bytes of the checkpointed adjoint grows sublinearly.

Chains come from `relax_mlir._chain.tanh_chain` (layer i: h = tanh(h @ w + b),
loss = sum(h)) and from `hand_chain` below, which nests one segment in another
and starts two segments from the same value. Run with `pytest -s` to see the
memory figures.
"""

from __future__ import annotations

import re
from collections.abc import Callable

import numpy as np
import pytest
import relax_mlir
from relax_mlir._chain import tanh_chain

from relax_mlir_testing import harness as rt
from relax_mlir_testing import references as ref

H = 1e-6


# ----------------------------------------------------------------------------
# Chains and their numpy references
# ----------------------------------------------------------------------------

def to_f64(text: str) -> str:
    """The same function in float64 (every f32 of the text becomes f64)."""
    return text.replace("f32", "f64")


def chain_np(layers: int) -> Callable[[list[np.ndarray]], float]:
    def loss(args: list[np.ndarray]) -> float:
        x, w, b = args
        h = x
        for _ in range(layers):
            h = np.tanh(h @ w + b)
        return float(np.sum(h))
    return loss


def hand_chain(marks: bool, batch: int = 4, width: int = 3) -> str:
    """x -> [s0: layer0, [t: layer1], layer2] -> e0; from e0 two segments p, q:
    hp = layer3(p), hq = sigmoid(q @ w); loss = sum(hp * hq). Without `marks`
    the same bindings with no marker (each marker's result is its operand)."""
    t = f"tensor<{batch}x{width}xf32>"
    wt = f"tensor<{width}x{width}xf32>"
    bt = f"tensor<{width}xf32>"
    lines: list[str] = []
    alias: dict[str, str] = {}

    def v(name: str) -> str:
        return alias.get(name, name)

    def marker(kind: str, res: str, arg: str) -> None:
        if marks:
            lines.append(f"    {res} = relax.{kind}_checkpoint {v(arg)} : {t}")
        else:
            alias[res] = v(arg)

    def layer(i: int, h: str) -> str:
        lines.append(f"    %m{i} = relax.matmul {v(h)}, %w : {t}, {wt} -> {t}")
        lines.append(f"    %a{i} = relax.add %m{i}, %b : {t}, {bt} -> {t}")
        lines.append(f"    %h{i} = relax.tanh %a{i} : {t}")
        return f"%h{i}"

    marker("start", "%s0", "%x")
    h0 = layer(0, "%s0")
    marker("start", "%t", h0)           # nested: inside the s0 segment
    h1 = layer(1, "%t")
    marker("end", "%u", h1)
    h2 = layer(2, "%u")
    marker("end", "%e0", h2)
    marker("start", "%p", "%e0")        # two segments sharing the input e0
    marker("start", "%q", "%e0")
    h3 = layer(3, "%p")
    marker("end", "%ep", h3)
    lines.append(f"    %mq = relax.matmul {v('%q')}, %w : {t}, {wt} -> {t}")
    lines.append(f"    %hq = relax.sigmoid %mq : {t}")
    marker("end", "%eq", "%hq")
    lines.append(f"    %prod = relax.multiply {v('%ep')}, {v('%eq')} : {t}, {t} -> {t}")
    lines.append(f"    %l = relax.sum %prod : {t} -> tensor<f32>")
    return "\n".join(
        [f"func.func @main(%x: {t}, %w: {wt}, %b: {bt}) -> tensor<f32> {{",
         "  %r = relax.dataflow -> (tensor<f32>) {", *lines,
         "    relax.output %l : tensor<f32>", "  }", "  return %r : tensor<f32>", "}"])


def hand_chain_np(args: list[np.ndarray]) -> float:
    x, w, b = args
    layer = lambda h: np.tanh(h @ w + b)  # noqa: E731
    h2 = layer(layer(layer(x)))
    return float(np.sum(layer(h2) * ref.sigmoid(h2 @ w)))


def chain_inputs(key: object, batch: int, width: int, dtype=np.float32) -> list[np.ndarray]:
    gen = rt.rng("checkpoint", key, batch, width)
    x = gen.normal(size=(batch, width))
    w = gen.normal(size=(width, width)) / np.sqrt(width)
    b = gen.normal(size=width) * 0.5
    return [a.astype(dtype) for a in (x, w, b)]


def adjoint_text(module: relax_mlir.ir.Module) -> str:
    text = str(module)
    start = text.index("func.func @main_adjoint(")
    return text[start:]


# Checkpointed and unmarked adjoints do the same arithmetic, but the CPU
# schedule tiles and fuses recomputed segments differently (FMAs, vector
# reductions), so f32 results differ by a few ulp: measured up to 1.3e-6 of
# the gradient's scale.
SAME_MATH_RTOL = 1e-5


def assert_close_rel(actual: np.ndarray, expected: np.ndarray, rtol: float, what: str) -> None:
    """|actual - expected| <= rtol * max|expected| (elementwise against the array's scale)."""
    actual, expected = np.asarray(actual, np.float64), np.asarray(expected, np.float64)
    assert actual.shape == expected.shape, (what, actual.shape, expected.shape)
    scale = max(float(np.max(np.abs(expected))), 1e-30)
    err = float(np.max(np.abs(actual - expected))) if actual.size else 0.0
    assert err <= rtol * scale, f"{what}: max |diff| {err:.3e} > {rtol:g} * {scale:.3e}"


# ----------------------------------------------------------------------------
# The checkpointed adjoint is really checkpointed (so the comparisons below
# compare two different programs)
# ----------------------------------------------------------------------------

@pytest.mark.parametrize("layers", [4, 16])
def test_checkpointed_adjoint_recomputes_and_has_no_markers(layers: int) -> None:
    text = tanh_chain(layers, segment=0)
    assert text.count("relax.start_checkpoint") == round(np.sqrt(layers))
    adjoint = adjoint_text(relax_mlir.gradient(text))
    assert "checkpoint" not in adjoint
    # Every layer of every segment is recomputed once: 3 ops per layer.
    assert adjoint.count("{relax.recomputed}") == 3 * layers
    plain = adjoint_text(relax_mlir.gradient(tanh_chain(layers)))
    assert "relax.recomputed" not in plain


def recomputed_ops(adjoint: str) -> dict[str, int]:
    found = re.findall(r"= relax\.(\w+) [^\n]*\{relax\.recomputed\}", adjoint)
    return {name: found.count(name) for name in sorted(set(found))}


def test_hand_chain_recomputes_and_has_no_markers() -> None:
    text = hand_chain(marks=True)
    assert text.count("_checkpoint") == 8
    adjoint = adjoint_text(relax_mlir.gradient(text))
    assert "checkpoint" not in adjoint
    ops = recomputed_ops(adjoint)
    # The sigmoid branch (segment q) once; layers 0, 1 (nested segment) and 3
    # (segment p) at least.
    assert ops.get("sigmoid") == 1, ops
    assert ops.get("tanh", 0) >= 3, ops
    assert "checkpoint" not in hand_chain(marks=False)


def test_hand_chain_nested_segment_is_recomputed_up_to_its_end() -> None:
    # Layer 2 lies between the inner end (%u) and the outer end (%e0): it is
    # part of the outer segment and must be recomputed with it. Every layer is
    # then recomputed exactly once (4 x matmul/add/tanh), plus the q branch
    # (matmul, sigmoid).
    adjoint = adjoint_text(relax_mlir.gradient(hand_chain(marks=True)))
    assert recomputed_ops(adjoint) == {"add": 4, "matmul": 5, "sigmoid": 1, "tanh": 4}


# ----------------------------------------------------------------------------
# Same numbers with and without checkpoints
# ----------------------------------------------------------------------------

@pytest.mark.parametrize("layers", [4, 16])
def test_checkpointed_chain_matches_unmarked(layers: int) -> None:
    batch, width = 32, 16
    plain = rt.compile_gradient(tanh_chain(layers, batch, width))
    marked = rt.compile_gradient(tanh_chain(layers, batch, width, segment=0))
    args = chain_inputs(("chain", layers), batch, width)
    loss_p, grads_p = plain.main_adjoint(*args)
    loss_c, grads_c = marked.main_adjoint(*args)
    assert len(grads_p) == len(grads_c) == 3
    assert_close_rel(loss_c, loss_p, SAME_MATH_RTOL, "loss")
    for name, gc, gp in zip("xwb", grads_c, grads_p):
        assert gc.dtype == np.float32
        assert_close_rel(gc, gp, SAME_MATH_RTOL, f"d{name}")
    # And the forward itself matches numpy.
    ref = chain_np(layers)([a.astype(np.float64) for a in args])
    np.testing.assert_allclose(loss_c, ref, rtol=1e-5)


@pytest.mark.parametrize("segment", [1, 2, 3])
def test_other_segment_lengths_match_unmarked(segment: int) -> None:
    layers, batch, width = 6, 8, 5
    plain = rt.compile_gradient(tanh_chain(layers, batch, width))
    marked = rt.compile_gradient(tanh_chain(layers, batch, width, segment=segment))
    args = chain_inputs(("segment", segment), batch, width)
    loss_p, grads_p = plain.main_adjoint(*args)
    loss_c, grads_c = marked.main_adjoint(*args)
    assert_close_rel(loss_c, loss_p, SAME_MATH_RTOL, "loss")
    for name, gc, gp in zip("xwb", grads_c, grads_p):
        assert_close_rel(gc, gp, SAME_MATH_RTOL, f"d{name}")


def test_hand_chain_matches_unmarked() -> None:
    plain = rt.compile_gradient(hand_chain(marks=False))
    marked = rt.compile_gradient(hand_chain(marks=True))
    args = chain_inputs("hand", 4, 3)
    loss_p, grads_p = plain.main_adjoint(*args)
    loss_c, grads_c = marked.main_adjoint(*args)
    assert_close_rel(loss_c, loss_p, SAME_MATH_RTOL, "loss")
    for name, gc, gp in zip("xwb", grads_c, grads_p):
        assert_close_rel(gc, gp, SAME_MATH_RTOL, f"d{name}")


# ----------------------------------------------------------------------------
# Both match float64 central finite differences
# ----------------------------------------------------------------------------

CASES = {
    "chain4-plain": (lambda: tanh_chain(4, 3, 4), chain_np(4), (3, 4)),
    "chain4-seg2": (lambda: tanh_chain(4, 3, 4, segment=2), chain_np(4), (3, 4)),
    "chain4-sqrt": (lambda: tanh_chain(4, 3, 4, segment=0), chain_np(4), (3, 4)),
    "hand-plain": (lambda: hand_chain(False, 4, 3), hand_chain_np, (4, 3)),
    "hand-marked": (lambda: hand_chain(True, 4, 3), hand_chain_np, (4, 3)),
}


@pytest.mark.parametrize("case", list(CASES))
def test_float64_adjoint_matches_finite_differences(case: str) -> None:
    make, np_loss, (batch, width) = CASES[case]
    exe = rt.compile_gradient(to_f64(make()))
    args = chain_inputs(("fd", case.split("-")[0]), batch, width, np.float64)
    loss, grads = exe.main_adjoint(*args)
    np.testing.assert_allclose(loss, np_loss(args), rtol=1e-12)
    for i, name in enumerate("xwb"):
        expected = rt.central_difference(np_loss, args, i, H)
        np.testing.assert_allclose(grads[i], expected, rtol=1e-6, atol=1e-8,
                                   err_msg=f"{case}: d{name}")


@pytest.mark.parametrize("case", ["chain4-sqrt", "hand-marked"])
def test_float32_adjoint_matches_finite_differences(case: str) -> None:
    make, np_loss, (batch, width) = CASES[case]
    exe = rt.compile_gradient(make())
    args = chain_inputs(("fd", case.split("-")[0]), batch, width, np.float32)
    _, grads = exe.main_adjoint(*args)
    args64 = [a.astype(np.float64) for a in args]
    for i, name in enumerate("xwb"):
        expected = rt.central_difference(np_loss, args64, i, H)
        np.testing.assert_allclose(grads[i], expected, rtol=1e-4, atol=1e-5,
                                   err_msg=f"{case}: d{name}")


# ----------------------------------------------------------------------------
# Memory: linear without checkpoints, sublinear with ~sqrt(n) segments
# ----------------------------------------------------------------------------

TENSOR_BYTES = 32 * 16 * 4  # one batch x width float32 activation of tanh_chain


@pytest.fixture(scope="module")
def peaks() -> dict[str, dict[int, int]]:
    out: dict[str, dict[int, int]] = {"plain": {}, "checkpointed": {}}
    for n in (4, 16, 64):
        for kind, segment in (("plain", None), ("checkpointed", 0)):
            module = relax_mlir.gradient(tanh_chain(n, segment=segment))
            report = relax_mlir.memory_report(module, "main_adjoint")
            assert list(report) == ["main_adjoint"], report
            out[kind][n] = report["main_adjoint"]
    print()
    for kind in ("plain", "checkpointed"):
        for n in (4, 16, 64):
            print(f"peak live bytes of main_adjoint, {kind:12s} n={n:2d}: {out[kind][n]:7d} "
                  f"({out[kind][n] / TENSOR_BYTES:.2f} activations)")
    return out


def test_unmarked_peak_grows_linearly(peaks) -> None:
    plain = peaks["plain"]
    assert plain[4] < plain[16] < plain[64]
    assert plain[64] / plain[16] > 3, plain
    # Without checkpoints every activation h_0 .. h_{n-1} is still needed when
    # the backward sweep starts (by the rules of tanh and of the next matmul).
    for n in (4, 16, 64):
        assert plain[n] >= n * TENSOR_BYTES, (n, plain[n])


def test_checkpointed_peak_grows_sublinearly(peaks) -> None:
    cp, plain = peaks["checkpointed"], peaks["plain"]
    assert cp[64] / cp[16] < 2.5, cp
    assert cp[64] < plain[64] / 2, (cp, plain)
    for n in (16, 64):
        assert cp[n] < plain[n], (n, cp[n], plain[n])


@pytest.fixture(scope="module")
def run_peaks() -> dict[str, dict[int, int]]:
    """Peak bytes of temporaries during one call of the compiled adjoint (the
    buffer pool's high-water mark; the results are the caller's arrays)."""
    out: dict[str, dict[int, int]] = {"plain": {}, "checkpointed": {}}
    rng = np.random.default_rng(0)
    args = (rng.standard_normal((32, 16)).astype(np.float32),
            (rng.standard_normal((16, 16)) / 4).astype(np.float32),
            rng.standard_normal(16).astype(np.float32))
    for n in (16, 64):
        for kind, segment in (("plain", None), ("checkpointed", 0)):
            exe = relax_mlir.compile(relax_mlir.gradient(tanh_chain(n, segment=segment)))
            fn = exe["main_adjoint"]
            fn(*args)
            relax_mlir.memory_stats(reset_peak=True)
            fn(*args)
            stats = relax_mlir.memory_stats(reset_peak=True)
            assert stats["live_bytes"] == 0, stats
            out[kind][n] = stats["peak_bytes"]
    print()
    for kind in ("plain", "checkpointed"):
        for n in (16, 64):
            print(f"run-time peak of temporaries, {kind:12s} n={n:2d}: {out[kind][n]:7d} "
                  f"({out[kind][n] / TENSOR_BYTES:.2f} activations)")
    return out


def test_run_time_peak_is_linear_without_checkpoints(run_peaks) -> None:
    plain = run_peaks["plain"]
    for n in (16, 64):
        assert plain[n] >= n * TENSOR_BYTES, (n, plain[n])
    # Each temporary is freed after its last use: the backward sweep does not
    # hold every layer's adjoint temporaries as well (3 or more per layer).
    assert plain[64] < 2 * 64 * TENSOR_BYTES, plain


def test_run_time_peak_is_sublinear_with_checkpoints(run_peaks) -> None:
    cp, plain = run_peaks["checkpointed"], run_peaks["plain"]
    assert cp[64] < plain[64] / 2, (cp, plain)
    assert cp[64] / cp[16] < 2.5, cp


def test_memory_report_of_the_original_is_unaffected_by_markers() -> None:
    # The markers alias their operands, so the forward alone costs the same.
    plain = relax_mlir.memory_report(tanh_chain(16), "main")["main"]
    marked = relax_mlir.memory_report(tanh_chain(16, segment=0), "main")["main"]
    assert plain == marked


def test_memory_report_of_every_function_and_unknown_function() -> None:
    module = relax_mlir.gradient(tanh_chain(4))
    report = relax_mlir.memory_report(module)
    assert sorted(report) == ["main", "main_adjoint"]
    assert report["main_adjoint"] == relax_mlir.memory_report(module, "main_adjoint")["main_adjoint"]
    with pytest.raises(ValueError, match="no function named 'nope'"):
        relax_mlir.memory_report(module, "nope")
