"""Sweeps of the ops the CPU schedule special-cases, fed through views.

Issue 32 found wrong numbers that the op tables and random programs never
reached: a gather (the im2col patches of a convolution, `take`) from a strided
view addressed its elements as if the view's rows were contiguous, and a
convolution gradient for a 1-wide input with stride 3 and left padding 2 had the
wrong shape. Each sweep here feeds one special-cased path (contractions,
convolutions and their gradients, pooling, reductions, gathers, transposing
copies) through slices with offsets and steps, transposes and degenerate
shapes (size-1 dims, 1-wide outputs), at opt_level 0 (scalar loops, the
reference lowering) and 1 and 3 (the schedule), against numpy in float64.
Seeded samples of each sweep keep the file to about a minute; the long
contractions check accumulation accuracy against float64.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
import pytest
import relax_mlir
import relax_mlir.nn as nn
import relax_mlir.numpy as rnp

OPT_LEVELS = (0, 1, 3)


def sample(cases: Sequence[Any], count: int, seed: int) -> list[Any]:
    """`count` of `cases`, the same ones in every run."""
    rng = np.random.default_rng(seed)
    picks = rng.choice(len(cases), size=min(count, len(cases)), replace=False)
    return [cases[i] for i in sorted(picks)]


def assert_close(got: Any, want: np.ndarray, what: str, rtol: float = 2e-5) -> None:
    got = np.asarray(got, np.float64)
    assert got.shape == want.shape, f"{what}: shape {got.shape}, want {want.shape}"
    scale = max(1.0, float(np.abs(want).max(initial=0.0)))
    err = float(np.abs(got - want).max(initial=0.0))
    assert err <= rtol * scale, f"{what}: max error {err:.3g} (scale {scale:.3g})"


# ---------------------------------------------------------------------------
# numpy float64 references
# ---------------------------------------------------------------------------

def windows(x: np.ndarray, kernel: tuple[int, int], stride: tuple[int, int],
            padding: tuple[int, int, int, int], dilation: tuple[int, int],
            pad_value: float = 0.0) -> np.ndarray:
    """The windows of NCHW `x`: [N, C, OH, OW, KH, KW] (padding top, left,
    bottom, right)."""
    top, left, bottom, right = padding
    xp = np.pad(x, ((0, 0), (0, 0), (top, bottom), (left, right)), constant_values=pad_value)
    kh, kw = kernel
    oh = (xp.shape[2] - dilation[0] * (kh - 1) - 1) // stride[0] + 1
    ow = (xp.shape[3] - dilation[1] * (kw - 1) - 1) // stride[1] + 1
    out = np.empty(x.shape[:2] + (oh, ow, kh, kw), x.dtype)
    for i, j in itertools.product(range(kh), range(kw)):
        r, c = i * dilation[0], j * dilation[1]
        out[..., i, j] = xp[:, :, r:r + stride[0] * (oh - 1) + 1:stride[0],
                            c:c + stride[1] * (ow - 1) + 1:stride[1]]
    return out


def conv_ref(x: np.ndarray, w: np.ndarray, stride=(1, 1), padding=(0, 0, 0, 0),
             dilation=(1, 1)) -> np.ndarray:
    patches = windows(x, w.shape[2:], stride, padding, dilation)
    return np.einsum("ncyxij,ocij->noyx", patches, w)


def conv_vjp_ref(x: np.ndarray, w: np.ndarray, g: np.ndarray, stride, padding,
                 dilation) -> tuple[np.ndarray, np.ndarray]:
    """d sum(conv(x, w) * g) / d(x, w), by accumulating each window's share."""
    top, left, bottom, right = padding
    n, c, h, wd = x.shape
    kh, kw = w.shape[2:]
    dxp = np.zeros((n, c, h + top + bottom, wd + left + right))
    patches = windows(x, (kh, kw), stride, padding, dilation)
    dw = np.einsum("ncyxij,noyx->ocij", patches, g)
    oh, ow = g.shape[2:]
    for i, j in itertools.product(range(kh), range(kw)):
        r, s = i * dilation[0], j * dilation[1]
        dxp[:, :, r:r + stride[0] * (oh - 1) + 1:stride[0],
            s:s + stride[1] * (ow - 1) + 1:stride[1]] += np.einsum("noyx,oc->ncyx", g, w[:, :, i, j])
    return dxp[:, :, top:top + h, left:left + wd], dw


# ---------------------------------------------------------------------------
# Convolutions of sliced images (the 1-wide outputs of issue 32's sweep)
# ---------------------------------------------------------------------------

def _conv_slice_cases() -> list[tuple]:
    cases = []
    for kh, kw in [(1, 1), (1, 3), (3, 1), (3, 3)]:
        for h0, h1, w0, w1 in itertools.product(range(7), range(1, 8), range(7), range(1, 8)):
            if h1 - h0 >= kh and w1 - w0 >= kw and (h1 - h0 == kh or w1 - w0 == kw):
                cases.append((kh, kw, h0, h1, w0, w1))
    return cases


CONV_SLICES = sample(_conv_slice_cases(), 60, seed=1)


@pytest.mark.parametrize("opt_level", OPT_LEVELS)
def test_conv2d_of_slices_with_one_wide_outputs(opt_level: int) -> None:
    # Was 171 wrong of 661 at opt_level >= 1 (x[:, :, 0:2, 2:3] with a
    # (4, 3, 1, 1) filter off by 3.04): the patches' gather ignored the
    # slice's row stride.
    rng = np.random.default_rng(0)
    x = rng.standard_normal((2, 3, 7, 7)).astype(np.float32)
    for kh, kw, h0, h1, w0, w1 in CONV_SLICES:
        w = rng.standard_normal((4, 3, kh, kw)).astype(np.float32)
        f = relax_mlir.jit(lambda x, w, h0=h0, h1=h1, w0=w0, w1=w1:
                           nn.conv2d(x[:, :, h0:h1, w0:w1], w), opt_level=opt_level)
        want = conv_ref(x[:, :, h0:h1, w0:w1].astype(np.float64), w.astype(np.float64))
        assert_close(f(x, w), want, f"conv2d of x[:, :, {h0}:{h1}, {w0}:{w1}], {kh}x{kw}")


def _conv_grad_cases() -> list[tuple]:
    cases = []
    for width, kw, sw, left, right, dw in itertools.product(
            (1, 2, 5), (1, 2, 3), (1, 2, 3), (0, 1, 2), (0, 2), (1, 2)):
        if width + left + right - dw * (kw - 1) - 1 < 0:
            continue
        cases.append((width, kw, sw, left, right, dw))
    return cases


# Every 1-wide input, a sample of the others.
CONV_GRADS = ([c for c in _conv_grad_cases() if c[0] == 1]
              + sample([c for c in _conv_grad_cases() if c[0] != 1], 30, seed=2))


def test_conv2d_gradients_of_narrow_padded_strided_inputs() -> None:
    # Was an internal error for a 1-wide input with stride 3 and left padding 2
    # (69 of 3,174 configurations): the weight gradient cropped the window's
    # end from the unpadded input, past its start.
    rng = np.random.default_rng(1)
    for width, kw, sw, left, right, dw in CONV_GRADS:
        stride, padding, dilation = (1, sw), (1, left, 0, right), (1, dw)
        x = rng.standard_normal((2, 2, 3, width))
        w = rng.standard_normal((3, 2, 2, kw))
        out = conv_ref(x, w, stride, padding, dilation)
        g = rng.standard_normal(out.shape)

        def loss(x, w, g, stride=stride, padding=padding, dilation=dilation):
            return rnp.sum(nn.conv2d(x, w, stride=stride, padding=padding, dilation=dilation) * g)

        value, (dx, dwt) = relax_mlir.value_and_grad(loss, argnums=(0, 1))(x, w, g)
        what = f"width {width}, kernel {kw}, stride {sw}, padding ({left}, {right}), dilation {dw}"
        want_dx, want_dw = conv_vjp_ref(x, w, g, stride, padding, dilation)
        assert_close(value, np.sum(out * g), what + ": value", 1e-10)
        assert_close(dx, want_dx, what + ": dx", 1e-10)
        assert_close(dwt, want_dw, what + ": dw", 1e-10)


def test_conv2d_gradient_reported_shape() -> None:
    # The reproducer: 1-wide input, stride 3, left padding 2, 1-wide kernel
    # (the window reads only padding).
    x = np.arange(6.0).reshape(1, 2, 3, 1)
    w = np.ones((1, 2, 1, 1))

    def loss(x, w):
        return rnp.sum(nn.conv2d(x, w, stride=(1, 3), padding=(0, 2, 0, 0)))

    dx, dw = relax_mlir.grad(loss, argnums=(0, 1))(x, w)
    want_dx, want_dw = conv_vjp_ref(x, w, np.ones((1, 1, 3, 1)), (1, 3), (0, 2, 0, 0), (1, 1))
    assert_close(dw, want_dw, "dw", 1e-12)
    assert_close(dx, want_dx, "dx", 1e-12)


# ---------------------------------------------------------------------------
# Pooling of sliced images
# ---------------------------------------------------------------------------

POOL_SLICES = sample([(k, h0, h1, w0, w1) for k in (1, 2, 3)
                      for h0, h1, w0, w1 in itertools.product(range(6), range(1, 8), range(6), range(1, 8))
                      if h1 - h0 >= k and w1 - w0 >= k and (h1 - h0 < 2 * k or w1 - w0 < 2 * k)],
                     40, seed=3)


@pytest.mark.parametrize("opt_level", OPT_LEVELS)
def test_pooling_of_slices(opt_level: int) -> None:
    rng = np.random.default_rng(2)
    x = rng.standard_normal((2, 3, 8, 8)).astype(np.float32)
    for k, h0, h1, w0, w1 in POOL_SLICES:
        view = x[:, :, h0:h1:1, w0:w1].astype(np.float64)
        f = relax_mlir.jit(lambda x, k=k, h0=h0, h1=h1, w0=w0, w1=w1: (
            nn.max_pool2d(x[:, :, h0:h1, w0:w1], k, stride=1),
            nn.avg_pool2d(x[:, :, h0:h1, w0:w1], k, stride=1)), opt_level=opt_level)
        mx, avg = f(x)
        patches = windows(view, (k, k), (1, 1), (0, 0, 0, 0), (1, 1))
        what = f"pool {k} of x[:, :, {h0}:{h1}, {w0}:{w1}]"
        assert_close(mx, patches.max(axis=(4, 5)), what + " max")
        assert_close(avg, patches.mean(axis=(4, 5)), what + " avg")


# ---------------------------------------------------------------------------
# Gathers, contractions, reductions and transposing copies of views
# ---------------------------------------------------------------------------

# Views of a 10x12 matrix: column and row slices with offsets and steps,
# reversed, transposed, single rows and columns.
VIEWS: dict[str, Callable[[Any], Any]] = {
    "[:, :3]": lambda a: a[:, :3],
    "[:, 2:7]": lambda a: a[:, 2:7],
    "[:, ::2]": lambda a: a[:, ::2],
    "[:, 1::3]": lambda a: a[:, 1::3],
    "[2:9, 3:4]": lambda a: a[2:9, 3:4],
    "[::-1, 4:10]": lambda a: a[::-1, 4:10],
    "[1:8:2, ::-2]": lambda a: a[1:8:2, ::-2],
    "[3:4, :]": lambda a: a[3:4, :],
    ".T[:, 1:6]": lambda a: a.T[:, 1:6],
    ".T[::3]": lambda a: a.T[::3],
}


@pytest.mark.parametrize("opt_level", OPT_LEVELS)
@pytest.mark.parametrize("view", list(VIEWS))
def test_gathers_from_views(view: str, opt_level: int) -> None:
    # `W[:, :3][tokens]` gave 15.19 for an embedding loss numpy puts at 7.67;
    # `W[:, ::2][i]` failed to compile ("LLVM Translation failed ...
    # unrealized_conversion_cast").
    rng = np.random.default_rng(3)
    a = rng.standard_normal((10, 12)).astype(np.float32)
    v = VIEWS[view](a)
    rows = rng.integers(0, v.shape[0], 7)
    cols = rng.integers(0, v.shape[1], 5)
    f = relax_mlir.jit(lambda a, r, c: (VIEWS[view](a)[r], rnp.take(VIEWS[view](a), c, axis=1)),
                       opt_level=opt_level)
    got_rows, got_cols = f(a, rows, cols)
    assert_close(got_rows, v[rows].astype(np.float64), f"a{view}[rows]")
    assert_close(got_cols, np.take(v, cols, axis=1).astype(np.float64), f"take(a{view}, cols, 1)")


@pytest.mark.parametrize("opt_level", OPT_LEVELS)
def test_column_of_row_strided_slice(opt_level: int) -> None:
    # Soak seed 33004: take(x[1::2, 1:2], 0, axis=1) of a 16x3 matrix is a
    # gather of the consecutive positions 0..7 of an 8x1 view with row stride
    # 6; the canonicalizer folded it into a load of 8 consecutive elements
    # (the sum was that of x.flat[4:12], 8.919 instead of 7.485).
    rng = np.random.default_rng(33004)
    x = rng.uniform(0.2, 2.0, (16, 3)).astype(np.float32)
    p = rng.standard_normal(8).astype(np.float32)

    def f(x, p):
        column = rnp.take(x[1::2, 1:2], 0, axis=1)
        return rnp.sum(column), rnp.mean(column * p)

    got_sum, got_mean = relax_mlir.jit(f, opt_level=opt_level)(x, p)
    column = x.astype(np.float64)[1::2, 1]
    assert_close(got_sum, np.sum(column), "sum of the column")
    assert_close(got_mean, np.mean(column * p), "mean of column * p")


def test_embedding_loss_from_a_column_slice() -> None:
    # The reproducer: an embedding-style loss over the first 3 columns.
    rng = np.random.default_rng(4)
    w = rng.standard_normal((50, 8)).astype(np.float32)
    tokens = rng.integers(0, 50, 32)

    def loss(w, tokens):
        return rnp.sum(rnp.tanh(w[:, :3][tokens]) ** 2)

    value, grad = relax_mlir.value_and_grad(loss)(w, tokens)
    w64 = w.astype(np.float64)
    t = np.tanh(w64[:, :3][tokens])
    want = np.zeros_like(w64)
    np.add.at(want[:, :3], tokens, 2 * t * (1 - t * t))
    assert_close(value, np.sum(t ** 2), "loss")
    assert_close(grad, want, "gradient")


@pytest.mark.parametrize("opt_level", OPT_LEVELS)
def test_contractions_of_views(opt_level: int) -> None:
    rng = np.random.default_rng(5)
    a = rng.standard_normal((10, 12)).astype(np.float32)
    b = rng.standard_normal((12, 10)).astype(np.float32)
    pairs = [(va, vb) for va, vb in itertools.product(VIEWS, VIEWS)
             if VIEWS[va](a).shape[1] == VIEWS[vb](b).shape[0]
             or VIEWS[va](a).shape[1] == VIEWS[vb](b).shape[1]]
    for va, vb in sample(pairs, 25, seed=4):
        x, y = VIEWS[va](a), VIEWS[vb](b)
        transpose = x.shape[1] != y.shape[0]
        f = relax_mlir.jit(lambda a, b, va=va, vb=vb, t=transpose:
                           VIEWS[va](a) @ (VIEWS[vb](b).T if t else VIEWS[vb](b)),
                           opt_level=opt_level)
        want = x.astype(np.float64) @ (y.T if transpose else y).astype(np.float64)
        assert_close(f(a, b), want, f"a{va} @ b{vb}{'.T' if transpose else ''}")


@pytest.mark.parametrize("opt_level", OPT_LEVELS)
@pytest.mark.parametrize("view", list(VIEWS))
def test_reductions_and_transposing_copies_of_views(view: str, opt_level: int) -> None:
    rng = np.random.default_rng(6)
    a = rng.standard_normal((10, 12)).astype(np.float32)
    v = VIEWS[view](a).astype(np.float64)
    f = relax_mlir.jit(lambda a: (rnp.sum(VIEWS[view](a), axis=0), rnp.max(VIEWS[view](a), axis=1),
                                  rnp.transpose(VIEWS[view](a)) * 2.0,
                                  rnp.sum(rnp.exp(VIEWS[view](a)))), opt_level=opt_level)
    s0, m1, t, e = f(a)
    assert_close(s0, v.sum(axis=0), f"sum(a{view}, 0)")
    assert_close(m1, v.max(axis=1), f"max(a{view}, 1)")
    assert_close(t, v.T * 2.0, f"a{view}.T * 2")
    assert_close(e, np.exp(v).sum(), f"sum(exp(a{view}))")


@pytest.mark.parametrize("opt_level", OPT_LEVELS)
@pytest.mark.parametrize("view", list(VIEWS))
def test_scatters_arg_extrema_and_bit_ops_of_views(view: str, opt_level: int, capsys) -> None:
    """The ops added for the first week (scatter through `.at`, argmax/argmin,
    shifts and bitwise ops, debug_print's contiguous copy) reading views."""
    rng = np.random.default_rng(7)
    a = rng.standard_normal((10, 12)).astype(np.float32)
    v = VIEWS[view](a)
    rows = np.array([0, v.shape[0] - 1, 0])            # a repeated row
    upd = rng.standard_normal((3, v.shape[1])).astype(np.float32)

    def f(a: Any, u: Any) -> Any:
        x = VIEWS[view](a)
        relax_mlir.debug.print("{}", x)
        return (x.at[rows].add(u), x.at[rows].max(u), x.at[rows].set(u),
                rnp.argmax(x, axis=0), rnp.argmin(x, axis=1),
                rnp.right_shift(rnp.astype(x * 100.0, rnp.int32), 2) & 7)

    got = relax_mlir.jit(f, opt_level=opt_level)(a, upd)
    add, mx, st = v.astype(np.float64).copy(), v.astype(np.float64).copy(), v.copy()
    np.add.at(add, rows, upd)
    np.maximum.at(mx, rows, upd)
    for i, r in enumerate(rows):
        st[r] = upd[i]
    assert_close(got[0], add, f"a{view}.at[rows].add")
    assert_close(got[1], mx, f"a{view}.at[rows].max")
    np.testing.assert_array_equal(got[2], st, f"a{view}.at[rows].set (the last wins)")
    np.testing.assert_array_equal(got[3], np.argmax(v, axis=0))
    np.testing.assert_array_equal(got[4], np.argmin(v, axis=1))
    np.testing.assert_array_equal(got[5], ((v * 100.0).astype(np.int32) >> 2) & 7)
    assert capsys.readouterr().out == f"{v}\n"


# ---------------------------------------------------------------------------
# Accuracy of long contractions
# ---------------------------------------------------------------------------

@pytest.mark.parametrize("k", [100_000, 1_000_000, 2 ** 20])
def test_long_contraction_accuracy(k: int) -> None:
    # (2, K) @ (K, 2) of uniform [0, 1) values in f32: the relative error
    # against float64 was 5.6e-6 at K = 1e5 and 1.6e-4 at K = 1e6, every
    # product added to one running sum (numpy/OpenBLAS: 6.4e-7).
    rng = np.random.default_rng(7)
    a = rng.random((2, k), dtype=np.float32)
    b = rng.random((k, 2), dtype=np.float32)
    want = a.astype(np.float64) @ b.astype(np.float64)
    got = relax_mlir.jit(lambda a, b: a @ b)(a, b)
    rel = float(np.abs(got - want).max() / np.abs(want).max())
    assert rel < 2e-6, f"relative error {rel:.3g}"


def test_long_contraction_accuracy_in_cache_blocks() -> None:
    # A reduction walked in cache blocks of the output (K a multiple of 256,
    # many output columns): each block also sums from zero.
    rng = np.random.default_rng(8)
    a = rng.random((16, 65536), dtype=np.float32)
    b = rng.random((65536, 64), dtype=np.float32)
    want = a.astype(np.float64) @ b.astype(np.float64)
    got = relax_mlir.jit(lambda a, b: a @ b)(a, b)
    rel = float(np.abs(got - want).max() / np.abs(want).max())
    assert rel < 2e-6, f"relative error {rel:.3g}"


# ---------------------------------------------------------------------------
# Single elements of stepped views, and repeats (found by the random programs
# fed through views)
# ---------------------------------------------------------------------------

@pytest.mark.parametrize("opt_level", OPT_LEVELS)
def test_single_elements_of_stepped_views(opt_level: int) -> None:
    # Failed to compile at opt_level >= 1 ("LLVM Translation failed ...
    # unrealized_conversion_cast"): a 0-d read of a strided view.
    rng = np.random.default_rng(9)
    x = rng.standard_normal(8)
    m = rng.standard_normal((2, 4))
    f = relax_mlir.jit(lambda x, m: (
        rnp.broadcast_to(x[1:6:2][0:1], (2,)),
        rnp.broadcast_to(x[2::2][2:3], (3,)),
        rnp.take(x[1:6:2], np.zeros(2, np.int64), axis=0),
        nn.layer_norm(m, x[1:5:2], x[0:4:2][::-1], axes=0)), opt_level=opt_level)
    a, b, c, d = f(x, m)
    assert_close(a, np.broadcast_to(x[1:6:2][0:1], (2,)), "x[1:6:2][0:1] broadcast")
    assert_close(b, np.broadcast_to(x[2::2][2:3], (3,)), "x[2::2][2:3] broadcast")
    assert_close(c, x[1:6:2][[0, 0]], "take(x[1:6:2], [0, 0])")
    mean, var = m.mean(axis=0), m.var(axis=0)
    want = (m - mean) / np.sqrt(var + 1e-5) * x[1:5:2][:, None] + x[0:4:2][::-1][:, None]
    assert_close(d, want, "layer_norm over axis 0 with gamma x[1:5:2]")


@pytest.mark.parametrize("opt_level", OPT_LEVELS)
@pytest.mark.parametrize("shape,reps", [((2, 1), (3, 2)), ((5,), (1, 2)), ((1, 2), (2, 2))])
def test_reductions_of_tiles(shape: tuple, reps: tuple, opt_level: int) -> None:
    # Failed to compile at every opt level ("invalid indexing maps are
    # non-invertible: (d0) -> (d0 mod 2, 0)"): the repeated-terms rewrite of
    # a reduction took relax.tile's gather for a broadcast.
    x = np.arange(1.0, 1.0 + np.prod(shape)).reshape(shape)
    f = relax_mlir.jit(lambda x: (rnp.sum(rnp.tile(x, reps)), rnp.max(rnp.tile(x, reps), axis=0)),
                       opt_level=opt_level)
    s, mx = f(x)
    assert_close(s, np.tile(x, reps).sum(), f"sum(tile(x {shape}, {reps}))")
    assert_close(mx, np.tile(x, reps).max(axis=0), f"max(tile(x {shape}, {reps}), 0)")


@pytest.mark.parametrize("opt_level", OPT_LEVELS)
@pytest.mark.parametrize("view", list(VIEWS))
def test_gather_gradients_into_views(view: str, opt_level: int) -> None:
    # take's gradient is a scatter_add into zeros (repeated and negative
    # indices accumulate), then the view's own adjoint; rows and columns,
    # including none at all (a size-0 index vector).
    rng = np.random.default_rng(4)
    a = rng.standard_normal((10, 12))
    v = VIEWS[view](a)
    rows = np.array([0, v.shape[0] - 1, 0, -1])
    cols = np.array([1 % v.shape[1], 0, 1 % v.shape[1]])
    cr, cc = rng.standard_normal((4, v.shape[1])), rng.standard_normal((v.shape[0], 3))

    def loss(a, r, c, cr, cc):
        w = VIEWS[view](a)
        return rnp.sum(w[r] * cr) + rnp.sum(rnp.take(w, c, axis=1) * cc)

    for r in (rows, rows[:0]):
        got = relax_mlir.jit(relax_mlir.grad(loss), opt_level=opt_level)(a, r, cols, cr[:len(r)], cc)
        dv = np.zeros_like(v)
        np.add.at(dv, np.where(r < 0, r + v.shape[0], r), cr[:len(r)])
        np.add.at(dv.T, cols, cc.T)
        want = np.zeros_like(a)
        VIEWS[view](want)[...] = dv  # the view's adjoint: dv placed where the view reads
        assert_close(got, want, f"grad through a{view}[{len(r)} rows], take(cols)", 1e-12)


@pytest.mark.parametrize("opt_level", OPT_LEVELS)
def test_conv2d_filter_gradient_of_views(opt_level: int) -> None:
    # The filter gradient multiplies conv2d_patches of x: x a channel slice
    # with a step, a transposed image, and a 1-high image.
    rng = np.random.default_rng(5)
    base = rng.standard_normal((2, 6, 5, 7))
    views = {"[:, ::2]": lambda t: t[:, ::2], "transposed": lambda t: rnp.transpose(t, (0, 1, 3, 2))
             if not isinstance(t, np.ndarray) else np.transpose(t, (0, 1, 3, 2)),
             "[:, :3, 2:3]": lambda t: t[:, :3, 2:3]}
    for name, view in views.items():
        x = view(base)
        w = rng.standard_normal((4, x.shape[1], 2, 3))
        stride, padding = (2, 1), (1, 0, 1, 2)
        g = rng.standard_normal(conv_ref(x, w, stride, padding).shape)

        def loss(w, base, g, view=view, stride=stride, padding=padding):
            return rnp.sum(nn.conv2d(view(base), w, stride=stride, padding=padding) * g)

        got = relax_mlir.jit(relax_mlir.grad(loss), opt_level=opt_level)(w, base, g)
        _, want = conv_vjp_ref(x, w, g, stride, padding, (1, 1))
        assert_close(got, want, f"filter gradient of x{name}", 1e-10)


# ---------------------------------------------------------------------------
# Ragged widths: what relax-cpu-vectorize splits into power-of-two pieces
# ---------------------------------------------------------------------------

@pytest.mark.parametrize("opt_level", (0, 1, 2, 3))
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("width", [24, 56, 120])
def test_ragged_widths_of_views(width: int, dtype: type, opt_level: int) -> None:
    """Rows wider than a vector and not a power of two (24, 56, 120: 16 + 8,
    32 + 16 + 8, 64 + 32 + 16 + 8 floats at 16 lanes; in float64 at 8 lanes,
    and the matmul's register tile peeled to such a remainder), each split
    into power-of-two pieces by the vectorizer, read through a stepped
    slice, a transpose and a broadcast, with a 1-row and a 0-row operand:
    forward values and gradients against float64 closed forms at every
    opt_level (0 takes the scalar loops, which never split)."""
    rng = np.random.default_rng(width)
    wide = rng.standard_normal((6, 2 * width)).astype(dtype)   # wide[:, ::2]: 6 x width
    tall = rng.standard_normal((width, 6)).astype(dtype)       # tall.T: 6 x width
    bias = rng.standard_normal(width).astype(dtype)            # broadcast over rows
    lhs = rng.standard_normal((6, 40)).astype(dtype)
    w = rng.standard_normal((40, width)).astype(dtype)
    one = rng.standard_normal((1, width)).astype(dtype)
    empty = np.zeros((0, width), dtype)
    c = rng.standard_normal((6, width)).astype(dtype)

    def forward(wide, tall, bias, lhs, w, one, empty):
        z = rnp.tanh(wide[:, ::2]) * tall.T + bias
        return (z, rnp.sum(z, axis=0), lhs @ w + bias, rnp.tanh(one) * bias,
                rnp.tanh(empty) + bias)

    def loss(wide, tall, bias, w, lhs, c):
        z = rnp.tanh(wide[:, ::2]) * tall.T + bias
        return rnp.sum(z * c) + rnp.sum((lhs @ w + bias) * c)

    jitted = relax_mlir.jit(forward, opt_level=opt_level)
    got = jitted(wide, tall, bias, lhs, w, one, empty)
    if opt_level > 0:
        # The arithmetic is on the pieces, none of it `width` lanes wide.
        text = jitted.lower(wide, tall, bias, lhs, w, one, empty).as_text("vector")
        ragged = re.search(rf"(math\.tanh|arith\.addf|arith\.mulf|vector\.contract)"
                           rf"[^\n]*[<x]{width}xf(32|64)>", text)
        assert ragged is None, ragged.group(0)
    x, y, b, l64, w64, c64 = (a.astype(np.float64) for a in (wide[:, ::2], tall.T, bias, lhs, w, c))
    z = np.tanh(x) * y + b
    want = (z, z.sum(axis=0), l64 @ w64 + b, np.tanh(one.astype(np.float64)) * b,
            np.zeros((0, width)))
    for name, g, ref in zip(("z", "sum(z, 0)", "lhs @ w + bias", "tanh(one) * bias",
                             "tanh(empty) + bias"), got, want):
        assert_close(g, ref, f"{name} (width {width}, {np.dtype(dtype).name})")

    value, (g_wide, g_tall, g_bias, g_w) = relax_mlir.value_and_grad(
        loss, argnums=(0, 1, 2, 3), opt_level=opt_level)(wide, tall, bias, w, lhs, c)
    want_wide = np.zeros((6, 2 * width))
    want_wide[:, ::2] = (1 - np.tanh(x) ** 2) * y * c64
    assert_close(value, np.sum(z * c64) + np.sum((l64 @ w64 + b) * c64), "loss")
    assert_close(g_wide, want_wide, "d/d wide")
    assert_close(g_tall, (np.tanh(x) * c64).T, "d/d tall")
    assert_close(g_bias, 2 * c64.sum(axis=0), "d/d bias")
    assert_close(g_w, l64.T @ c64, "d/d w")
