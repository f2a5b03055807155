"""Random relax programs (relax_mlir_testing/programs.py) through gradient + jvp + compile + run.

For each of SEEDS, the generated program is differentiated with
`relax_mlir.gradient`, compiled with `relax_mlir.compile` at one opt level of
1-3 (1 + seed % 3: the CPU schedule) and, for every fourth seed (seed % 4 == 0:
opt level 0 compiles about as slowly as the others, and at every seed it
added half again to this file's time), at opt level 0 too (scalar loops: the
reference lowering), and `<func>_adjoint` (and `<func>`) of each called on the
program's arguments (`tools/soak.py` compiles every seed at both). Each
level's forward value is compared
with the float64 interpreter of relax_mlir_testing.programs (tolerances from a jittered
re-evaluation, see `programs.forward_tolerance`), and every gradient element
of f64 programs with float64 central finite differences of the interpreter
(see `programs.check_gradients`), and `<func>_jvp` along random tangents
against those gradients by the dot-product test (`programs.check_jvp`), and
the adjoint split at its residuals (`mode="vjp"`: `<func>_fwd` then
`<func>_bwd` with the target's seed) against them too
(`programs.check_vjp_split`);
f32/f16 programs are checked forward only.
Checks in a finite difference that straddles a kink (relu, abs, clip, maximum,
a comparison, a float -> integer astype, ...) are skipped. About a third of all
operands are read through views (strided, offset, transposed, broadcast,
gathered); `test_seeds_read_operands_through_views` checks from the programs'
text that they still are.

The programs run in worker subprocesses (two by default, RELAX_GEN_WORKERS),
so a crash in native code fails its seed's test with the seed and the program
instead of ending the session. A failure prints the seed, what differed, the
program text and its arguments; `python -m relax_mlir_testing.programs SEED`
prints the program again, and `tools/soak.py` runs many more seeds.
"""

from __future__ import annotations

import collections
import math
import os
import re
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
import pytest

from relax_mlir_testing import programs as pg
from relax_mlir_testing.ops import STRUCTURAL

SEEDS = range(100)
WORKERS = int(os.environ.get("RELAX_GEN_WORKERS", "2"))


def levels(seed: int) -> list[int]:
    """The opt levels seed is checked at here: `pg.opt_levels` (0 and one of
    1-3) for every fourth seed, only the one of 1-3 for the others."""
    return list(pg.opt_levels(seed)) if seed % 4 == 0 else list(pg.opt_levels(seed)[1:])


@pytest.fixture(scope="module")
def outcomes() -> dict[int, dict[str, Any]]:
    """Every seed's record, checked in worker subprocesses."""
    pool = pg.WorkerPool(WORKERS, timeout=300)
    return {rec["seed"]: rec
            for rec in pool.run({"seed": s, "opt_levels": levels(s)} for s in SEEDS)}


@pytest.mark.parametrize("seed", SEEDS)
def test_random_program(outcomes: dict[int, dict[str, Any]], seed: int) -> None:
    rec = outcomes[seed]
    if rec["status"] != "passed":
        pytest.fail(pg.describe(rec), pytrace=False)


def test_every_opt_level_is_checked(outcomes: dict[int, dict[str, Any]]) -> None:
    """Each opt level 0-3 compiled some of the programs, and those compiled at
    two levels were compared at both."""
    by_level: collections.Counter[int] = collections.Counter()
    for s, rec in outcomes.items():
        if rec["status"] == "crashed":
            continue  # test_random_program reports it
        assert rec["opt_levels"] == levels(s), rec
        by_level.update(rec["opt_levels"])
    assert all(by_level[n] >= 10 for n in range(4)), by_level


def test_checker_catches_wrong_results(outcomes: dict[int, dict[str, Any]]) -> None:
    """A forward value, one gradient element, the jvp's tangent or one of the
    split adjoint's gradients off by 1e-3 relative is reported as wrong: the
    comparisons above can fail."""
    fully_checked = [s for s, r in sorted(outcomes.items())
                     if r["status"] == "passed" and r["gradient"] == "checked"
                     and not r["forward_skipped"]]
    assert len(fully_checked) >= 3, "too few fully checked programs"
    requests = [{"seed": s, "corrupt": c, "opt_levels": levels(s)[-1:]} for s in fully_checked[:3]
                for c in ("forward", "gradient", "tangent", "split")]
    records = list(pg.WorkerPool(WORKERS, timeout=300).run(requests))
    for rec in records:
        assert rec["status"] == "wrong", pg.describe(rec)
    # (records come in completion order)
    assert sum("_jvp: the target's tangent" in rec["message"] for rec in records) == 3
    assert sum("_bwd: the gradient of" in rec["message"] for rec in records) == 3


def test_pool_reports_a_native_crash_with_its_seed() -> None:
    recs = {r["seed"]: r for r in pg.WorkerPool(1, timeout=300).run(
        [{"seed": 3, "corrupt": "crash"}, {"seed": 4}])}
    assert recs[3]["status"] == "crashed" and "SIGSEGV" in recs[3]["message"], recs[3]
    assert "seed 3" in pg.describe(recs[3]) and "func.func" in pg.describe(recs[3])
    # The worker was restarted for the next seed.
    assert recs[4]["status"] == "passed", pg.describe(recs[4])


def relax_op_names() -> set[str]:
    from relax_mlir.dialects import relax
    return {cls.OPERATION_NAME for cls in vars(relax).values()
            if isinstance(cls, type)
            and str(getattr(cls, "OPERATION_NAME", "")).startswith("relax.")}


def test_every_relax_op_is_generated_or_structural() -> None:
    """Each op the dialect registers is in the generator's table (or is the
    dataflow structure the generator writes itself), and nothing else is."""
    registered = relax_op_names()
    known = {f"relax.{n}" for n in pg.OPS} | {f"relax.{n}" for n in STRUCTURAL}
    missing = sorted(registered - known)
    assert not missing, (f"ops the random program generator does not know: {missing}; add "
                         f"an entry each to the op table (relax_mlir_testing/ops.py)")
    stale = sorted(known - registered)
    assert not stale, f"the generator's ops name ops the dialect does not have: {stale}"


COVERAGE = (
    {*pg.OPS}
    | {f"rank{r}" for r in range(6)}
    | {"size-1-dim", "0-size-dim", "broadcast", "negative-axis", "keepdims", "empty-axis",
       "reduce-0d", "f16", "f32", "f64", "i32", "i64", "i1", "constant", "tuple-param",
       "tuple-result", "nested-tuple", "target-index", "checkpoint", "glue-before",
       "glue-after", "integer-to-target", "require-grads", "func-name", "unnamed-param",
       "mixed-precision", "astype-float-float", "astype-float-int", "astype-float-i1",
       "astype-int-float", "astype-i1-float", "astype-i1-int",
       "split-sections", "split-points", "split-beyond", "split-negative", "take-clamped",
       "negative-stride", "view-slice", "view-transpose", "view-broadcast", "view-gather",
       "view-step", "view-negative-step", "view-empty", "conv-1-wide", "pool-1-wide",
       "nll-ignored", "nll-out-of-range", "nll-weights", "compare-i1",
       "conv-groups", "pool-ceil-mode", "pool-count-include-pad",
       "scan-reverse", "scan-checkpointed", "while-truncated"}
)


def test_seeds_cover_the_dialect() -> None:
    """The programs of SEEDS together use every op and every feature listed."""
    seen: set[str] = set()
    for s in SEEDS:
        seen |= pg.generate(s).features
    assert not sorted(COVERAGE - seen), f"not covered by seeds {SEEDS}: {sorted(COVERAGE - seen)}"


def test_generation_is_deterministic() -> None:
    for s in (0, 7, 42):
        a, b = pg.generate(s), pg.generate(s)
        assert a.text() == b.text()
        for x, y, p in zip(a.args, b.args, a.params):
            for (_, u, _), (_, v, _) in zip(pg.leaves(x, p.type), pg.leaves(y, p.type)):
                np.testing.assert_array_equal(u, v)


def test_interpreter_semantics() -> None:
    """The references the checks rest on, on cases worked out by hand."""
    a = np.array([7, -7, 7, -7, 5, 0])
    b = np.array([2, 2, -2, -2, 0, 3])
    np.testing.assert_array_equal(pg.OPS["divide"].ref(a, b), [3, -3, -3, 3, 0, 0])
    x = np.arange(24.0).reshape(2, 3, 4)
    np.testing.assert_array_equal(pg.OPS["collapse_sum_to"].ref(x, shape=(3, 1)),
                                  x.sum(axis=(0, 2)).reshape(3, 1))
    np.testing.assert_array_equal(pg.OPS["sum"].ref(x, axis=[-1, 0], keepdims=True),
                                  x.sum(axis=(0, 2), keepdims=True))
    np.testing.assert_array_equal(pg.OPS["mean"].ref(x, axis=[]), x)
    np.testing.assert_array_equal(pg.OPS["permute_dims"].ref(x, axes=[-1, 0, 1]),
                                  x.transpose(2, 0, 1))
    np.testing.assert_array_equal(pg.OPS["permute_dims"].ref(x), x.transpose(2, 1, 0))
    # New elementwise ops: clip rounds integer bounds inward; astype truncates
    # toward zero, saturates, maps to i1 by != 0 and from i1 to 0/1.
    i = np.array([-3, -1, 0, 1, 2, 3])
    np.testing.assert_array_equal(pg.OPS["clip"].ref(i, min=-1.5, max=2.5), [-1, -1, 0, 1, 2, 2])
    np.testing.assert_array_equal(pg.OPS["clip"].ref(np.array([-2.0, 0.3, 4.0]), min=-1.5, max=2.5),
                                  [-1.5, 0.3, 2.5])
    f = np.array([-2.7, -0.5, 0.0, 0.5, 2.7, 3e9, -3e9])
    np.testing.assert_array_equal(pg.OPS["astype"].ref(f, dtype="i32"),
                                  [-2, 0, 0, 0, 2, 2 ** 31 - 1, -2 ** 31])
    np.testing.assert_array_equal(pg.OPS["astype"].ref(f, dtype="i1"), f != 0)
    np.testing.assert_array_equal(pg.OPS["astype"].ref(np.array([True, False]), dtype="i64"),
                                  [1, 0])
    np.testing.assert_array_equal(pg.OPS["leaky_relu"].ref(np.array([-2.0, 3.0])), [-0.02, 3.0])
    np.testing.assert_allclose(pg.OPS["gelu"].ref(np.array([-1.0, 0.0, 1.0])),
                               [-0.15865525393145707, 0.0, 0.8413447460685429], rtol=1e-15)
    np.testing.assert_allclose(pg.OPS["softplus"].ref(np.array([-800.0, 0.0, 800.0])),
                               [0.0, math.log(2.0), 800.0])
    np.testing.assert_array_equal(pg.OPS["full"].ref(np.array(2.5), shape=(2, 1)), [[2.5], [2.5]])
    np.testing.assert_array_equal(pg.OPS["full_like"].ref(i, np.array(7)), np.full(6, 7))
    # The kink records of the new non-smooth ops: side and distance.
    side, dist = pg.OPS["equal"].jump(np.array([1.0, 2.0]), np.array([1.0, 2.5]))
    np.testing.assert_array_equal(side, [True, False])
    np.testing.assert_array_equal(dist, [0.0, 0.5])
    side, dist = pg.OPS["astype"].jump(np.array([-2.25, 0.5, 2.9]), dtype="i64")
    np.testing.assert_array_equal(side, [-2.0, 0.0, 2.0])
    np.testing.assert_allclose(dist, [0.25, 0.5, 0.1])
    assert pg.attr_dict_text({"min": -1.0, "max": 0.5, "alpha": 1e20}) == \
        " {min = -1.0 : f64, max = 0.5 : f64, alpha = 1.0e+20 : f64}"
    t = pg.TensorType((2, 0, 3), "f64")
    assert pg.dense_text(np.zeros((2, 0, 3)), t) == "dense<>"
    assert pg.dense_text(np.array([1e-5, 2.0]), pg.TensorType((2,), "f64")) == \
        "dense<[1.0000000000000001e-05, 2.0]>"
    assert pg.dense_text(np.array([True, False]), pg.TensorType((2,), "i1")) == \
        "dense<[true, false]>"
    assert pg.attr_dict_text({"reduction": "none", "ignore_index": 2}) == \
        ' {reduction = "none", ignore_index = 2 : i64}'


def test_interpreter_semantics_of_reductions_nn_and_shape_ops() -> None:
    """The references of the reduction, neural-network and shape ops, on cases
    worked out by hand."""
    ops = pg.OPS
    # nll_loss: pred (3, 4) holds -1..-12; target 2 counts (weight 2: loss 6), 7 is
    # outside [0, 4) and 1 is ignore_index: both give 0 and no weight.
    pred = -np.arange(1.0, 13.0).reshape(3, 4)
    w = np.array([0.5, 1.0, 2.0, 4.0])
    t = np.array([2, 7, 1])
    np.testing.assert_array_equal(ops["nll_loss"].ref(pred, t, w, reduction="none",
                                                      ignore_index=1), [6.0, 0.0, 0.0])
    assert ops["nll_loss"].ref(pred, t, w, reduction="sum", ignore_index=1) == 6.0
    assert ops["nll_loss"].ref(pred, t, w, ignore_index=1) == 3.0  # 6 / weight 2
    # No weights, ignore_index -100: -1 is out of range; the mean is (3 + 10) / 2.
    assert ops["nll_loss"].ref(pred, np.array([2, -1, 1])) == 6.5
    # (C) pred with a 0-d target; (N, C, d) pred with (N, d) targets.
    assert ops["nll_loss"].ref(np.array([-0.5, -1.5, -2.5]), np.array(1)) == 1.5
    p3 = np.arange(12.0).reshape(2, 3, 2)
    np.testing.assert_array_equal(
        ops["nll_loss"].ref(p3, np.array([[0, 2], [3, 1]]), reduction="none"),
        [[-0.0, -5.0], [0.0, -9.0]])
    assert ops["cross_entropy_with_logits"].ref(np.ones((2, 3)), np.full((2, 3), 2.0)) == -6.0
    assert ops["cross_entropy_with_logits"].ref(np.ones(3), np.full(3, 2.0)) == -6.0
    # strided_slice: numpy slices; negative strides, begin/end clamped.
    x = np.arange(15.0).reshape(5, 3)
    np.testing.assert_array_equal(
        ops["strided_slice"].ref(x, axes=[0], begin=[4], end=[-6], strides=[-2]), x[[4, 2, 0]])
    np.testing.assert_array_equal(
        ops["strided_slice"].ref(x, axes=[-1, 0], begin=[100, -1], end=[-100, 0],
                                 strides=[-1, -3]), [[14, 13, 12], [5, 4, 3]])
    np.testing.assert_array_equal(
        ops["strided_slice"].ref(x, axes=[1], begin=[-2], end=[100]), x[:, 1:])
    # take: negative indices count from the end, the rest is clamped (not wrapped).
    v = np.array([10.0, 20.0, 30.0, 40.0])
    np.testing.assert_array_equal(ops["take"].ref(v, np.array([-1, -5, 7, 2, 2]), axis=0),
                                  [40, 10, 40, 30, 30])
    np.testing.assert_array_equal(ops["take"].ref(x, np.array([[0, -1]])), [[0, 14]])
    np.testing.assert_array_equal(ops["take"].ref(x, np.array(9), axis=1), x[:, 2])
    # split: sections, and points (sorted; beyond the axis: empty parts).
    a = np.arange(4.0)
    parts = ops["split"].ref(a, indices_or_sections=[1, 3, 6])
    assert [p.tolist() for p in parts] == [[0.0], [1.0, 2.0], [3.0], []]
    parts = ops["split"].ref(a, indices_or_sections=[2, 2])
    assert [p.tolist() for p in parts] == [[0.0, 1.0], [], [2.0, 3.0]]
    # Negative points count from the end (-1 is 3, -9 is below 0: 0).
    parts = ops["split"].ref(a, indices_or_sections=[-9, -1, 5])
    assert [p.tolist() for p in parts] == [[], [0.0, 1.0, 2.0], [3.0], []]
    parts = ops["split"].ref(x, indices_or_sections=3, axis=-1)
    assert [p.shape for p in parts] == [(5, 1)] * 3
    # max/min: a tie is a corner (the gap to the runner-up is 0).
    m = np.array([[1.0, 3.0, 3.0], [2.0, 0.0, 1.0]])
    side, gap = ops["max"].corner(m, axis=[1])
    np.testing.assert_array_equal(side, [1, 0])
    np.testing.assert_array_equal(gap, [0.0, 1.0])
    side, gap = ops["min"].corner(m)
    assert int(side) == 4 and float(gap) == 1.0
    # Reductions and cumsum.
    np.testing.assert_allclose(ops["variance"].ref(m, axis=[-1]), [8 / 9, 2 / 3])
    np.testing.assert_array_equal(ops["prod"].ref(m, axis=[0], keepdims=True), [[2, 0, 3]])
    np.testing.assert_array_equal(ops["cumsum"].ref(m, axis=-2), [[1, 3, 3], [3, 3, 4]])
    # softmax / log_softmax along an axis; layer_norm with gamma/beta at the axes.
    np.testing.assert_allclose(ops["softmax"].ref(np.array([[0.0, math.log(3.0)]]), axis=1),
                               [[0.25, 0.75]])
    np.testing.assert_allclose(ops["log_softmax"].ref(np.array([0.0, 0.0])),
                               [-math.log(2.0)] * 2)
    y = ops["layer_norm"].ref(np.array([[1.0, 3.0], [2.0, 2.0]]), np.array([2.0, 1.0]),
                              np.array([0.5, 0.0]), axes=[-1], epsilon=1e-12)
    np.testing.assert_allclose(y, [[-1.5, 1.0], [0.5, 0.0]])
    # Shape ops.
    assert ops["expand_dims"].ref(np.zeros(3), axis=[0, -1]).shape == (1, 3, 1)
    assert ops["squeeze"].ref(np.zeros((1, 3, 1)), axis=[-1]).shape == (1, 3)
    assert ops["squeeze"].ref(np.zeros((1, 3, 1))).shape == (3,)
    assert ops["flatten"].ref(np.zeros(())).shape == (1,)
    assert ops["tile"].ref(np.zeros((2, 3)), repeats=[2, 1, 0]).shape == (2, 2, 0)
    assert ops["tile"].ref(np.zeros((2, 3)), repeats=[2]).shape == (2, 6)
    np.testing.assert_array_equal(ops["pad"].ref(np.array([True, False]), pad_width=[1, 2],
                                                 pad_value=1.0),
                                  [True, True, False, True, True])
    np.testing.assert_array_equal(ops["pad"].ref(np.array([[5]]), pad_width=[0, 1, 1, 0]),
                                  [[0, 5], [0, 0]])
    np.testing.assert_array_equal(ops["triu"].ref(np.ones((2, 3)), k=1), [[0, 1, 1], [0, 0, 1]])
    np.testing.assert_array_equal(ops["tril"].ref(np.ones((2, 3)), k=-1), [[0, 0, 0], [1, 0, 0]])
    np.testing.assert_array_equal(
        ops["concat"].ref(np.zeros((2, 1)), np.ones((2, 2)), axis=-1), [[0, 1, 1], [0, 1, 1]])


# The definitions of convolution and pooling, one output element (or kernel tap)
# at a time: an oracle for the vectorized references of references.py.
def conv2d_by_loops(strides: Sequence[int] = (1, 1), padding: Sequence[int] = (0, 0, 0, 0),
           dilation: Sequence[int] = (1, 1), groups: int = 1) -> Callable[..., np.ndarray]:
    """relax.conv2d (cross-correlation, NCHW x, OIHW w) by explicit loops over the kernel."""
    def ref(x: np.ndarray, w: np.ndarray) -> np.ndarray:
        n, _, _, _ = x.shape
        o, i, kh, kw = w.shape
        xp = np.pad(x, ((0, 0), (0, 0), (padding[0], padding[2]), (padding[1], padding[3])))
        oh = (xp.shape[2] - dilation[0] * (kh - 1) - 1) // strides[0] + 1
        ow = (xp.shape[3] - dilation[1] * (kw - 1) - 1) // strides[1] + 1
        out = np.zeros((n, o, oh, ow))
        per_group = o // groups
        for oc in range(o):
            g = oc // per_group
            for a in range(kh):
                for b in range(kw):
                    r0, c0 = a * dilation[0], b * dilation[1]
                    patch = xp[:, g * i:(g + 1) * i,
                               r0:r0 + (oh - 1) * strides[0] + 1:strides[0],
                               c0:c0 + (ow - 1) * strides[1] + 1:strides[1]]
                    out[:, oc] += np.einsum("nchw,c->nhw", patch, w[oc, :, a, b])
        return out
    return ref


def pool2d_by_loops(kind: str, pool_size: Sequence[int], strides: Sequence[int] | None = None,
           padding: Sequence[int] = (0, 0, 0, 0), dilation: Sequence[int] = (1, 1),
           ceil_mode: bool = False, count_include_pad: bool = False) -> Callable[..., np.ndarray]:
    """relax.max_pool2d / avg_pool2d as PyTorch defines them, window by window."""
    s = tuple(strides or pool_size)

    def out_size(size: int, before: int, after: int, k: int, st: int, d: int) -> int:
        span = size + before + after - d * (k - 1) - 1
        out = span // st + 1
        if ceil_mode and span % st and out * st < size + before:
            out += 1
        return out

    def ref(x: np.ndarray) -> np.ndarray:
        n, c, h, w = x.shape
        oh = out_size(h, padding[0], padding[2], pool_size[0], s[0], dilation[0])
        ow = out_size(w, padding[1], padding[3], pool_size[1], s[1], dilation[1])
        out = np.zeros((n, c, oh, ow))
        for i in range(oh):
            for j in range(ow):
                vals, count = [], 0
                for a in range(pool_size[0]):
                    for b in range(pool_size[1]):
                        r = i * s[0] - padding[0] + a * dilation[0]
                        q = j * s[1] - padding[1] + b * dilation[1]
                        inside = 0 <= r < h and 0 <= q < w
                        if inside:
                            vals.append(x[:, :, r, q])
                        if inside or (count_include_pad and r < h + padding[2]
                                      and q < w + padding[3]):
                            count += 1
                v = np.stack(vals)
                out[:, :, i, j] = v.max(0) if kind == "max" else v.sum(0) / count
        return out
    return ref


def test_interpreter_semantics_of_convolution_and_pooling() -> None:
    """conv2d / max_pool2d / avg_pool2d references on cases worked out by hand, and
    against their window-by-window definitions; comparisons of i1 operands."""
    ops = pg.OPS
    x = np.arange(18.0).reshape(1, 2, 3, 3)
    # Grouped conv: each output channel sums 2x2 windows of its own input channel.
    np.testing.assert_array_equal(ops["conv2d"].ref(x, np.ones((2, 1, 2, 2)), groups=2),
                                  [[[[8, 12], [20, 24]], [[44, 48], [56, 60]]]])
    # One zero row on top, stride 2 down: rows (-1, 0) and (1, 2).
    np.testing.assert_array_equal(
        ops["conv2d"].ref(x[:, :1], np.ones((1, 1, 2, 2)), strides=[2, 1],
                          padding=[1, 0, 0, 0]), [[[[1, 3], [20, 24]]]])
    # ceil_mode adds the windows that start inside the input.
    y = x[:, :1]
    np.testing.assert_array_equal(ops["max_pool2d"].ref(y, pool_size=[2, 2], ceil_mode=True),
                                  [[[[4, 5], [7, 8]]]])
    assert ops["max_pool2d"].ref(y, pool_size=[2, 2]).shape == (1, 1, 1, 1)
    # Padding never wins a max (all elements negative).
    np.testing.assert_array_equal(
        ops["max_pool2d"].ref(-1.0 - y, pool_size=[3, 3], strides=[2, 2], padding=[1, 1, 1, 1]),
        [[[[-1, -2], [-4, -5]]]])
    # The gradient goes to the first maximum of a window (row-major): a tie is a corner.
    side, gap = ops["max_pool2d"].corner(np.array([[[[1.0, 2.0], [2.0, 0.0]]]]), pool_size=[2, 2])
    assert side.tolist() == [[[[1]]]] and gap.tolist() == [[[[0.0]]]]
    # avg: the divisor counts elements inside the input, or with count_include_pad
    # those inside the padded bounds (not the rows ceil_mode adds beyond them).
    ones = np.ones((1, 1, 2, 3))
    kw = {"pool_size": [3, 3], "strides": [2, 2], "padding": [1, 1, 1, 1], "ceil_mode": True}
    np.testing.assert_allclose(ops["avg_pool2d"].ref(ones, **kw), np.ones((1, 1, 2, 2)))
    np.testing.assert_allclose(ops["avg_pool2d"].ref(ones, count_include_pad=True, **kw),
                               [[[[4 / 9, 4 / 9], [2 / 6, 2 / 6]]]])
    # Against the definitions: strides, padding, dilation, groups, ceil_mode.
    rng = np.random.default_rng(0)
    a = rng.normal(size=(2, 4, 7, 6))
    for kw in [{}, {"strides": [2, 3], "padding": [1, 0, 2, 1]},
               {"dilation": [2, 1], "padding": [1, 1, 1, 1], "groups": 2},
               {"groups": 4, "strides": [1, 2]}]:
        w = rng.normal(size=(4, 4 // kw.get("groups", 1), 3, 2))
        np.testing.assert_allclose(ops["conv2d"].ref(a, w, **kw), conv2d_by_loops(**kw)(a, w))
    for kw in [{"pool_size": [2, 2]},
               {"pool_size": [3, 3], "strides": [2, 2], "padding": [1, 1, 1, 1]},
               {"pool_size": [3, 2], "strides": [2, 2], "padding": [1, 1, 1, 0], "ceil_mode": True},
               {"pool_size": [2, 2], "strides": [1, 2], "dilation": [2, 1], "ceil_mode": True}]:
        np.testing.assert_array_equal(ops["max_pool2d"].ref(a, **kw), pool2d_by_loops("max", **kw)(a))
        for include in (False, True):
            np.testing.assert_allclose(ops["avg_pool2d"].ref(a, count_include_pad=include, **kw),
                                       pool2d_by_loops("avg", count_include_pad=include, **kw)(a))
    # i1 operands compare unsigned: False < True.
    t, f = np.array([False, True, True]), np.array([True, True, False])
    np.testing.assert_array_equal(ops["less"].ref(t, f), [True, False, False])
    np.testing.assert_array_equal(ops["greater_equal"].ref(t, f), [False, True, True])


# ----------------------------------------------------------------------------
# Views and degenerate shapes: what the programs of SEEDS contain, read from
# their text (a meta-test: it fails when the generator stops producing them)
# ----------------------------------------------------------------------------

_BINDING = re.compile(r'%(\S+) = "relax\.(\w+)"\(([^)]*)\)(?: \{(.*)\})? : \((.*)\) -> (.*)$')
_TENSOR = re.compile(r"tensor<((?:\d+x)*)\w+>")
VIEW_OPS = ("strided_slice", "permute_dims", "broadcast_to", "take")
CONTRACTIONS = ("matmul", "conv2d")
WINDOWED = ("conv2d", "max_pool2d", "avg_pool2d")
REDUCTIONS = ("sum", "mean", "max", "min", "prod", "variance")


def _shape(text: str) -> tuple[int, ...] | None:
    m = _TENSOR.fullmatch(text.strip())
    return None if m is None else tuple(int(d) for d in m.group(1).split("x")[:-1])


def _ints(attrs: str, name: str) -> list[int]:
    """The values of an `array<i64: ...>` attribute in an attribute dict's text."""
    m = re.search(name + r" = array<i64(?:: ([^>]*))?>", attrs)
    return [int(v) for v in m.group(1).split(",")] if m and m.group(1) else []


def _split_types(text: str) -> list[str]:
    """The types of a `(t1, t2, ...)` list (tuple types hold commas)."""
    out, depth, cur = [], 0, ""
    for ch in text:
        depth += (ch == "<") - (ch == ">")
        if ch == "," and depth == 0:
            out.append(cur)
            cur = ""
        else:
            cur += ch
    return [t.strip() for t in out + [cur] if t.strip()]


def view_patterns(text: str) -> tuple[set[str], int, int]:
    """The patterns of views and degenerate shapes in a program's text, and
    (operands read from a view op, operands) over its relax ops."""
    found: set[str] = set()
    made: dict[str, tuple[str, str, tuple[int, ...] | None]] = {}  # name -> (op, attrs, shape)
    viewed = operands = 0
    for line in text.splitlines():
        m = _BINDING.search(line)
        if m is None:
            continue
        name, op, args, attrs, types, rtype = m.groups()
        names = [a.strip().lstrip("%") for a in args.split(",") if a.strip()]
        out = _shape(rtype)
        made[name] = (op, attrs or "", out)
        views = []
        for i, (a, t) in enumerate(zip(names, _split_types(types))):
            shape = _shape(t)
            operands += 1
            if shape is not None and op not in VIEW_OPS:
                if 0 in shape:
                    found.add("size-0-operand")
                if 1 in shape:
                    found.add("size-1-operand")
            src, src_attrs, src_shape = made.get(a, ("", "", None))
            if src not in VIEW_OPS:
                continue
            viewed += 1
            views.append(src)
            steps = _ints(src_attrs, "strides")
            stepped = any(s != 1 for s in steps)
            if src == "strided_slice" and stepped:
                found.add(f"stepped-slice->{op}" if op in ("conv2d", "take", "matmul")
                          else "stepped-slice->other")
                if any(s < 0 for s in steps):
                    found.add("negative-step-view")
            if src == "strided_slice" and op in WINDOWED:
                found.add("slice->window-op")
            if src == "permute_dims" and op in CONTRACTIONS:
                found.add("permute->contraction")
            if src == "broadcast_to" and op not in VIEW_OPS:
                found.add("broadcast->op")
            if op == "take" and i == 0 and src in ("strided_slice", "permute_dims"):
                found.add("take-of-view")
            if op == "take" and i == 0 and src == "strided_slice" and src_shape:
                # W[:, :3][tokens]: a gather along an axis the slice kept whole;
                # W[:, ::2][i]: a 0-d index into a stepped slice.
                rank = len(src_shape)
                sliced = {int(a) % rank for a in _ints(src_attrs, "axes")}
                axis = re.search(r"axis = (-?\d+) : i64", attrs or "")
                if axis is not None and int(axis.group(1)) % rank not in sliced:
                    found.add("take-across-a-slice")
                if stepped and _shape(_split_types(types)[1]) == ():
                    found.add("take-0d-of-stepped-slice")
            if src == "take" and op not in VIEW_OPS:
                found.add("gather->op")
            if src_shape is not None and 0 in src_shape and op not in VIEW_OPS:
                found.add("size-0-view->op")
        if out is None:
            continue
        x = _shape(_split_types(types)[0]) if op in WINDOWED else None
        if x is not None and any(out[i] == 1 < x[i] for i in (2, 3)):
            found.add(f"{'conv' if op == 'conv2d' else 'pool'}-1-wide")
            if views and op == "conv2d":
                found.add("view->conv-1-wide")
            src, src_attrs, src_shape = made.get(names[0], ("", "", None))
            if op == "conv2d" and src == "strided_slice" and src_shape and \
                    {int(a) % 4 for a in _ints(src_attrs, "axes")} & {2, 3}:
                found.add("window-slice->conv-1-wide")  # x[:, :, h0:h1, w0:w1]
        if op == "matmul" and len(out) >= 2 and 1 in out[-2:]:
            found.add("matmul-1-row-or-column")
        if op in REDUCTIONS and len(out) and all(d == 1 for d in out):
            found.add("reduce-to-one-element")
    return found, viewed, operands


# Programs among SEEDS that must show each pattern (about a third of what the
# generator gave when this was written; a generator change that loses one fails).
VIEW_PATTERNS = {
    "stepped-slice->conv2d": 1, "stepped-slice->matmul": 2, "stepped-slice->take": 25,
    "stepped-slice->other": 30, "negative-step-view": 30, "slice->window-op": 2,
    "permute->contraction": 2, "broadcast->op": 25, "take-of-view": 30, "gather->op": 30,
    "conv-1-wide": 2, "view->conv-1-wide": 1, "pool-1-wide": 3, "matmul-1-row-or-column": 2,
    "reduce-to-one-element": 20, "size-0-operand": 6, "size-0-view->op": 3,
    "size-1-operand": 40, "take-across-a-slice": 2, "take-0d-of-stepped-slice": 15,
    "window-slice->conv-1-wide": 1,
}


def test_seeds_read_operands_through_views() -> None:
    """Every op's operands are read through views (programs `view_of`):
    stepped and offset slices feeding convolutions, gathers and matmuls,
    transposes feeding contractions, broadcasts, gathers of views, size-0 and
    size-1 dims, and windowed ops and matmuls whose output is 1 wide; the
    class of bug (a strided or gathered operand read as if it were dense)
    these were added for."""
    counts: collections.Counter[str] = collections.Counter()
    viewed = operands = 0
    for s in SEEDS:
        found, v, n = view_patterns(pg.generate(s).text())
        counts.update(found)
        viewed += v
        operands += n
    low = {k: counts[k] for k, least in VIEW_PATTERNS.items() if counts[k] < least}
    assert not low, f"programs of seeds {SEEDS} with each pattern: {low}, want {VIEW_PATTERNS}"
    assert viewed >= 0.15 * operands, f"only {viewed} of {operands} operands read a view"
