"""What every relax op computes, in numpy: the float64 references that the op
tests, the random-program interpreter and its checker all use (each written
once, here), with the kink records and term counts of the ops that need them.

A reference takes the op's operands positionally and its attributes by their
contract names as keywords (an absent attribute is an absent keyword: the
default below is the dialect's). Floats arrive as float64, integers as int64
(or the case's integer type), i1 as bool. Ops whose result type is not implied
by operands and attributes take it too: `shape=` for reshape, broadcast_to,
collapse_sum_to and the creation ops, `dtype=` (an MLIR element type name) for
astype.

Kink records (`corner`, `jump` in ops.py) are called like the reference: the
signed distance of the operands to a kink, or a (side, distance) pair of
arrays. Term counts (`terms`) give the number of terms summed into each result
element, for the forward tolerance.
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

# Element types by their MLIR names.
FLOATS = frozenset({"f16", "f32", "f64"})
INTS = frozenset({"i32", "i64"})
NUMPY_DTYPE: dict[str, Any] = {
    "f16": np.float16, "f32": np.float32, "f64": np.float64,
    "i32": np.int32, "i64": np.int64, "i1": np.bool_,
}
INT_RANGE = {"i32": (-2 ** 31, 2 ** 31 - 1), "i64": (-2 ** 63, 2 ** 63 - 1)}


def sigmoid(x: np.ndarray) -> np.ndarray:
    with np.errstate(over="ignore"):
        return 1.0 / (1.0 + np.exp(-x))


def relu(x: np.ndarray) -> np.ndarray:
    return np.maximum(x, np.zeros((), x.dtype))


def divide(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """a / b; for integers the quotient truncated toward zero, and x / 0 = 0."""
    if np.issubdtype(np.result_type(a, b), np.integer):
        safe = np.where(b == 0, 1, b)
        q = np.abs(a) // np.abs(safe) * np.sign(a) * np.sign(safe)
        return np.where(b == 0, 0, q)
    return a / b


def reduction(fn: Callable[..., np.ndarray]) -> Callable[..., np.ndarray]:
    """A reference taking the contract's attributes (axis: absent = all axes)."""
    def reduce(x: np.ndarray, axis: Sequence[int] | None = None,
               keepdims: bool = False) -> np.ndarray:
        with np.errstate(invalid="ignore", divide="ignore"), warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)  # the mean of an empty slice is nan
            return np.asarray(fn(x, axis=None if axis is None else tuple(axis), keepdims=keepdims))
    return reduce


def permute_dims(x: np.ndarray, axes: Sequence[int] | None = None) -> np.ndarray:
    return np.transpose(x, None if axes is None else tuple(axes))


def collapse_sum_to(x: np.ndarray, shape: Sequence[int]) -> np.ndarray:
    """Sums x down to `shape`, the reverse of numpy broadcasting."""
    shape = tuple(shape)
    lead = x.ndim - len(shape)
    out = x.sum(axis=tuple(range(lead))) if lead else x
    axes = tuple(i for i, d in enumerate(shape) if d == 1 and out.shape[i] != 1)
    return out.sum(axis=axes, keepdims=True) if axes else out


def identity(x: Any) -> Any:
    return x


_erf = np.vectorize(math.erf, otypes=[np.float64])


def erf(x: np.ndarray) -> np.ndarray:
    return np.asarray(_erf(x), dtype=np.float64)


def gelu(x: np.ndarray) -> np.ndarray:
    """The exact (erf) form."""
    return 0.5 * x * (1.0 + erf(x / math.sqrt(2.0)))


def silu(x: np.ndarray) -> np.ndarray:
    return x * sigmoid(x)


def softplus(x: np.ndarray) -> np.ndarray:
    return np.logaddexp(0.0, x)


def rsqrt(x: np.ndarray) -> np.ndarray:
    return 1.0 / np.sqrt(x)


def leaky_relu(x: np.ndarray, alpha: float = 0.01) -> np.ndarray:
    return np.where(x > 0, x, alpha * x)


def clip(x: np.ndarray, min: float, max: float) -> np.ndarray:  # noqa: A002 (attribute names)
    """Integer tensors: the bounds rounded inward (ceil(min), floor(max))."""
    if np.issubdtype(x.dtype, np.integer):
        return np.clip(x, math.ceil(min), math.floor(max))
    return np.minimum(np.maximum(x, min), max)


def clip_corners(x: np.ndarray, min: float, max: float) -> np.ndarray:  # noqa: A002
    return np.stack([x - min, x - max])


def astype(x: np.ndarray, dtype: str) -> np.ndarray:
    """numpy astype to `dtype` (interpreter form): floats round (by `storage`),
    float -> integer truncates toward zero and saturates, -> i1 is x != 0, i1 ->
    number is 0/1."""
    if dtype == "i1":
        return x != 0
    if dtype in FLOATS:
        return x.astype(np.float64)
    lo, hi = INT_RANGE[dtype]
    if x.dtype == np.float64:
        return np.clip(np.trunc(x), float(lo), float(hi)).astype(np.int64)
    if x.dtype == np.bool_:
        return x.astype(np.int64)
    return x.astype(NUMPY_DTYPE[dtype]).astype(np.int64)  # wraps (never generated)


def astype_jump(x: np.ndarray, dtype: str) -> Any:
    """Where a float -> integer/i1 conversion jumps: integers other than 0
    (truncation), 0 (!= 0). Float -> float conversions are smooth."""
    if dtype in FLOATS:
        return np.zeros(0)
    if dtype == "i1":
        return np.sign(x), np.abs(x)
    ax = np.abs(x)
    return np.trunc(x), np.where(ax < 1.0, 1.0 - ax, np.abs(x - np.round(x)))


def full(value: np.ndarray, shape: Sequence[int]) -> np.ndarray:
    return np.broadcast_to(value, tuple(shape)).copy()


def full_like(x: np.ndarray, value: np.ndarray) -> np.ndarray:
    return np.broadcast_to(value, x.shape).astype(x.dtype)


def compare_jump(fn: Callable[..., np.ndarray]) -> Callable[..., Any]:
    """A comparison's kink record: its value (the side of the jump) and |a - b|."""
    def jump(a: np.ndarray, b: np.ndarray) -> Any:
        return fn(a, b), np.abs(np.subtract(a, b))
    return jump


def _reduced_axes(x: np.ndarray, axis: Sequence[int] | None) -> list[int]:
    """The axes a reduction's `axis` attribute names, non-negative and sorted."""
    return list(range(x.ndim)) if axis is None else sorted(a % x.ndim for a in axis)


def extremum_corner(top: bool) -> Callable[..., Any]:
    """The kink record of max (top) / min: which element of each reduced group is
    the extremum (numpy's first one on a tie), and its gap to the runner-up
    (a tie is a corner: the gradient moves to another element there)."""
    def corner(x: np.ndarray, axis: Sequence[int] | None = None,
               keepdims: bool = False) -> Any:
        red = _reduced_axes(x, axis)
        kept = [d for d in range(x.ndim) if d not in red]
        k = int(np.prod([x.shape[d] for d in red], dtype=np.int64))
        y = np.transpose(x, kept + red).reshape(tuple(x.shape[d] for d in kept) + (k,))
        side = np.argmax(y, axis=-1) if top else np.argmin(y, axis=-1)
        if k < 2:
            return side, np.full(side.shape, np.inf)
        s = np.sort(y, axis=-1)
        return side, (s[..., -1] - s[..., -2]) if top else (s[..., 1] - s[..., 0])
    return corner


def cumsum(x: np.ndarray, axis: int) -> np.ndarray:
    return np.cumsum(x, axis=axis)


def softmax(x: np.ndarray, axis: int = -1) -> np.ndarray:
    if x.size == 0:
        return x.copy()
    e = np.exp(x - np.max(x, axis=axis, keepdims=True))
    return e / np.sum(e, axis=axis, keepdims=True)


def log_softmax(x: np.ndarray, axis: int = -1) -> np.ndarray:
    if x.size == 0:
        return x.copy()
    s = x - np.max(x, axis=axis, keepdims=True)
    return s - np.log(np.sum(np.exp(s), axis=axis, keepdims=True))


def axis_terms(x: np.ndarray, *_: Any, axis: int = -1, **__: Any) -> float:
    """Terms per result element of an op summing along `axis` (cumsum, softmax)."""
    return float(x.shape[axis]) if x.ndim else 1.0


def cross_entropy_with_logits(pred: np.ndarray, labels: np.ndarray) -> np.ndarray:
    n = pred.shape[0] if pred.ndim >= 2 else 1
    return np.asarray(-np.sum(pred * labels) / n)


def nll_valid(pred: np.ndarray, targets: np.ndarray, ignore_index: int) -> np.ndarray:
    """The targets that count: not ignore_index and within [0, C)."""
    classes = pred.shape[0 if pred.ndim == 1 else 1]
    return (targets != ignore_index) & (targets >= 0) & (targets < classes)


def nll_loss(pred: np.ndarray, targets: np.ndarray, weights: np.ndarray | None = None,
              reduction: str = "mean", ignore_index: int = -100) -> np.ndarray:
    """PyTorch's nll_loss: pred (C), (N, C) or (N, C, d1..dk), targets pred's shape
    without the class axis; a target equal to ignore_index or outside [0, C) gives
    0 and no weight; "mean" divides by the summed weights of the counted targets."""
    axis = 0 if pred.ndim == 1 else 1
    classes = pred.shape[axis]
    valid = nll_valid(pred, targets, ignore_index)
    safe = np.where(valid, targets, 0)
    if classes == 0:
        picked = np.zeros(targets.shape)
        w = np.zeros(targets.shape)
    else:
        picked = np.take_along_axis(pred, np.expand_dims(safe, axis), axis=axis).squeeze(axis)
        w = np.ones(targets.shape) if weights is None else weights[safe]
    w = np.where(valid, w, 0.0)
    loss = np.where(valid, -w * picked, 0.0)
    if reduction == "none":
        return loss
    if reduction == "sum":
        return np.asarray(loss.sum())
    return np.asarray(loss.sum() / w.sum())


def _layer_norm_axes(x: np.ndarray, axes: Sequence[int]) -> tuple[int, ...]:
    return tuple(sorted(a % x.ndim for a in axes))


def layer_norm(x: np.ndarray, gamma: np.ndarray, beta: np.ndarray, axes: Sequence[int],
                epsilon: float = 1e-5) -> np.ndarray:
    ax = _layer_norm_axes(x, axes)
    if x.size == 0:
        return x.copy()
    mean = x.mean(axis=ax, keepdims=True)
    var = ((x - mean) ** 2).mean(axis=ax, keepdims=True)
    shape = [x.shape[i] if i in ax else 1 for i in range(x.ndim)]
    return (x - mean) / np.sqrt(var + epsilon) * gamma.reshape(shape) + beta.reshape(shape)


def layer_norm_terms(x: np.ndarray, *_: Any, axes: Sequence[int] = (), **__: Any) -> float:
    return float(np.prod([x.shape[a] for a in _layer_norm_axes(x, axes)]))


def expand_dims(x: np.ndarray, axis: Sequence[int]) -> np.ndarray:
    return np.expand_dims(x, tuple(axis))


def squeeze(x: np.ndarray, axis: Sequence[int] | None = None) -> np.ndarray:
    return np.squeeze(x, None if axis is None else tuple(axis))


def concat(*xs: np.ndarray, axis: int) -> np.ndarray:
    return np.concatenate(xs, axis=axis)


def split(x: np.ndarray, indices_or_sections: int | Sequence[int],
           axis: int = 0) -> tuple[np.ndarray, ...]:
    """np.split: n equal sections, or the parts between split points (negative
    ones count from the end; sorted so counted; points beyond the axis give empty
    parts)."""
    ios = indices_or_sections
    return tuple(np.split(x, ios if isinstance(ios, int) else list(ios), axis=axis))


def take(x: np.ndarray, indices: np.ndarray, axis: int | None = None) -> np.ndarray:
    """np.take; negative indices count from the end, the rest is clamped into [0, n)."""
    if axis is None:
        x, axis = x.reshape(-1), 0
    n = x.shape[axis]
    i = np.where(indices < 0, indices + n, indices)
    return np.take(x, np.clip(i, 0, max(n - 1, 0)), axis=axis)


def argmax(x: np.ndarray, axis: int | None = None, keepdims: bool = False) -> np.ndarray:
    """np.argmax (the first index of a tie or of a NaN) as int64."""
    return np.asarray(np.argmax(x, axis=axis, keepdims=keepdims), np.int64)


def argmin(x: np.ndarray, axis: int | None = None, keepdims: bool = False) -> np.ndarray:
    return np.asarray(np.argmin(x, axis=axis, keepdims=keepdims), np.int64)


def scatter(x: np.ndarray, indices: np.ndarray, updates: np.ndarray, axis: int | None = None,
            reduction: str = "set") -> np.ndarray:
    """scatter_add's positions, the updates applied one at a time in index
    order (so "set" keeps the last of repeated indices)."""
    combine = {"set": lambda old, new: new, "multiply": np.multiply,
               "min": np.minimum, "max": np.maximum}[reduction]
    flat = x.reshape(-1).copy() if axis is None else x.copy()
    axis = 0 if axis is None else axis % x.ndim
    n = flat.shape[axis]
    i = np.clip(np.where(indices < 0, indices + n, indices), 0, max(n - 1, 0)).reshape(-1)
    moved = np.moveaxis(flat, axis, 0)
    q = indices.ndim
    upd = np.moveaxis(updates, list(range(axis, axis + q)), list(range(q)))
    upd = upd.reshape((i.size,) + moved.shape[1:])
    for j, at in enumerate(i):
        moved[at] = combine(moved[at], upd[j])
    return flat.reshape(x.shape)


def scatter_add(x: np.ndarray, indices: np.ndarray, updates: np.ndarray,
                axis: int | None = None) -> np.ndarray:
    """np.add.at of `updates` into a copy of x at take's positions (the same
    normalization; repeated indices accumulate)."""
    flat = x.reshape(-1).copy() if axis is None else x.copy()
    axis = 0 if axis is None else axis % x.ndim
    n = flat.shape[axis]
    i = np.clip(np.where(indices < 0, indices + n, indices), 0, max(n - 1, 0))
    # Move the axis first so that np.add.at indexes it; updates follow with
    # the indices' dims in its place.
    moved = np.moveaxis(flat, axis, 0)
    q = indices.ndim
    upd = np.moveaxis(updates, list(range(axis, axis + q)), list(range(q)))
    np.add.at(moved, i, upd)
    return flat.reshape(x.shape)


def strided_slice(x: np.ndarray, axes: Sequence[int], begin: Sequence[int],
                   end: Sequence[int], strides: Sequence[int] | None = None) -> np.ndarray:
    index = [slice(None)] * x.ndim
    for k, a in enumerate(axes):
        index[a] = slice(begin[k], end[k], strides[k] if strides is not None else 1)
    return x[tuple(index)].copy()


def tile(x: np.ndarray, repeats: Sequence[int]) -> np.ndarray:
    return np.tile(x, tuple(repeats))


def pad(x: np.ndarray, pad_width: Sequence[int], pad_value: float = 0.0) -> np.ndarray:
    """New elements are pad_value in the element type (i1: pad_value != 0)."""
    if x.ndim == 0:
        return x.copy()
    pairs = [(pad_width[2 * i], pad_width[2 * i + 1]) for i in range(x.ndim)]
    value: Any = pad_value != 0 if x.dtype == np.bool_ else pad_value
    return np.pad(x, pairs, mode="constant", constant_values=value)


def triu(x: np.ndarray, k: int = 0) -> np.ndarray:
    return np.triu(x, k)


def tril(x: np.ndarray, k: int = 0) -> np.ndarray:
    return np.tril(x, k)


def window_positions(size: int, before: int, after: int, k: int, stride: int, dilation: int,
                      ceil_mode: bool = False) -> np.ndarray:
    """(out, k): the input position of each window's elements along one axis (negative
    or >= size: padding), with the output size of PyTorch (`ceil_mode`: one more
    window when the division leaves a rest and it starts inside the input or its
    leading padding). out is 0 when the window does not fit in the padded input."""
    span = size + before + after - dilation * (k - 1) - 1
    if span < 0:
        return np.zeros((0, k), np.int64)
    out = span // stride + 1
    if ceil_mode and span % stride and out * stride < size + before:
        out += 1
    return np.arange(out)[:, None] * stride - before + np.arange(k)[None, :] * dilation


def conv2d(x: np.ndarray, w: np.ndarray, strides: Sequence[int] = (1, 1),
            padding: Sequence[int] = (0, 0, 0, 0), dilation: Sequence[int] = (1, 1),
            groups: int = 1) -> np.ndarray:
    """Cross-correlation of NCHW x with OIHW w ((O, C / groups, KH, KW)): output
    channel o reads the input channels of group o // (O / groups); zero padding
    (top, left, bottom, right)."""
    n, c, h, wd = x.shape
    o, cg, kh, kw = w.shape
    top, left, bottom, right = padding
    oh = (h + top + bottom - dilation[0] * (kh - 1) - 1) // strides[0] + 1
    ow = (wd + left + right - dilation[1] * (kw - 1) - 1) // strides[1] + 1
    xp = np.pad(x, ((0, 0), (0, 0), (top, bottom), (left, right)))
    xg = xp.reshape(n, groups, cg, xp.shape[2], xp.shape[3])
    wg = w.reshape(groups, o // groups, cg, kh, kw)
    out = np.zeros((n, groups, o // groups, oh, ow))
    for a in range(kh):
        for b in range(kw):
            r0, c0 = a * dilation[0], b * dilation[1]
            patch = xg[:, :, :, r0:r0 + (oh - 1) * strides[0] + 1:strides[0],
                       c0:c0 + (ow - 1) * strides[1] + 1:strides[1]]
            out += np.einsum("ngchw,goc->ngohw", patch, wg[:, :, :, a, b])
    return out.reshape(n, o, oh, ow)


def conv2d_patches(x: np.ndarray, kernel_size: Sequence[int], strides: Sequence[int] = (1, 1),
                   padding: Sequence[int] = (0, 0, 0, 0), dilation: Sequence[int] = (1, 1),
                   ) -> np.ndarray:
    """The window elements conv2d reads, (N, C * KH * KW, OH, OW) with the
    feature index (c * KH + kh) * KW + kw (JAX's conv_general_dilated_patches)."""
    n, c, h, wd = x.shape
    kh, kw = kernel_size
    top, left, bottom, right = padding
    oh = (h + top + bottom - dilation[0] * (kh - 1) - 1) // strides[0] + 1
    ow = (wd + left + right - dilation[1] * (kw - 1) - 1) // strides[1] + 1
    xp = np.pad(x, ((0, 0), (0, 0), (top, bottom), (left, right)))
    out = np.zeros((n, c, kh, kw, oh, ow), x.dtype)
    for a in range(kh):
        for b in range(kw):
            r0, c0 = a * dilation[0], b * dilation[1]
            out[:, :, a, b] = xp[:, :, r0:r0 + (oh - 1) * strides[0] + 1:strides[0],
                                 c0:c0 + (ow - 1) * strides[1] + 1:strides[1]]
    return out.reshape(n, c * kh * kw, oh, ow)


def conv2d_terms(x: np.ndarray, w: np.ndarray, *_: Any, **__: Any) -> float:
    return float(w.shape[1] * w.shape[2] * w.shape[3])


def _pool_windows(x: np.ndarray, pool_size: Sequence[int], strides: Sequence[int] | None,
                  padding: Sequence[int], dilation: Sequence[int], ceil_mode: bool,
                  ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """The windows of a pooling op: values (N, C, OH, OW, KH * KW) in row-major
    window order, which of them are inside the input (OH, OW, KH * KW), and the
    row and column positions ((OH, KH), (OW, KW))."""
    n, c, h, w = x.shape
    s = tuple(strides) if strides is not None else tuple(pool_size)
    rows = window_positions(h, padding[0], padding[2], pool_size[0], s[0], dilation[0],
                             ceil_mode)
    cols = window_positions(w, padding[1], padding[3], pool_size[1], s[1], dilation[1],
                             ceil_mode)
    (oh, kh), (ow, kw) = rows.shape, cols.shape
    rin, cin = (rows >= 0) & (rows < h), (cols >= 0) & (cols < w)
    if h and w:
        rc, cc = np.clip(rows, 0, h - 1), np.clip(cols, 0, w - 1)
        vals = x[:, :, rc[:, :, None, None], cc[None, None, :, :]]  # (N, C, OH, KH, OW, KW)
    else:
        vals = np.zeros((n, c, oh, kh, ow, kw))
    vals = vals.transpose(0, 1, 2, 4, 3, 5).reshape(n, c, oh, ow, kh * kw)
    mask = (rin[:, None, :, None] & cin[None, :, None, :]).reshape(oh, ow, kh * kw)
    return vals, mask, rows, cols


def max_pool2d(x: np.ndarray, pool_size: Sequence[int], strides: Sequence[int] | None = None,
                padding: Sequence[int] = (0, 0, 0, 0), dilation: Sequence[int] = (1, 1),
                ceil_mode: bool = False) -> np.ndarray:
    """The maximum of each window's elements inside the input (padding never wins;
    a window of only padding gives -inf)."""
    vals, mask, _, _ = _pool_windows(x, pool_size, strides, padding, dilation, ceil_mode)
    return np.where(mask, vals, -np.inf).max(axis=-1)


def max_pool2d_corner(x: np.ndarray, pool_size: Sequence[int],
                       strides: Sequence[int] | None = None,
                       padding: Sequence[int] = (0, 0, 0, 0), dilation: Sequence[int] = (1, 1),
                       ceil_mode: bool = False) -> Any:
    """Which element of each window is its first maximum (row-major window order:
    the one the gradient goes to), and its gap to the runner-up (a tie is a corner)."""
    vals, mask, _, _ = _pool_windows(x, pool_size, strides, padding, dilation, ceil_mode)
    y = np.where(mask, vals, -np.inf)
    side = np.argmax(y, axis=-1)
    if y.shape[-1] < 2:
        return side, np.full(side.shape, np.inf)
    s = np.sort(y, axis=-1)
    return side, s[..., -1] - s[..., -2]


def avg_pool2d(x: np.ndarray, pool_size: Sequence[int], strides: Sequence[int] | None = None,
                padding: Sequence[int] = (0, 0, 0, 0), dilation: Sequence[int] = (1, 1),
                ceil_mode: bool = False, count_include_pad: bool = False) -> np.ndarray:
    """The sum of each window's elements inside the input over the divisor: how
    many of its positions are inside the input, or with count_include_pad inside
    the padded bounds [-top, H + bottom) x [-left, W + right) (not the positions
    beyond them that ceil_mode adds)."""
    h, w = x.shape[2:]
    vals, mask, rows, cols = _pool_windows(x, pool_size, strides, padding, dilation, ceil_mode)
    if count_include_pad:
        rn = ((rows >= -padding[0]) & (rows < h + padding[2])).sum(axis=1)
        cn = ((cols >= -padding[1]) & (cols < w + padding[3])).sum(axis=1)
    else:
        rn = ((rows >= 0) & (rows < h)).sum(axis=1)
        cn = ((cols >= 0) & (cols < w)).sum(axis=1)
    return np.where(mask, vals, 0.0).sum(axis=-1) / (rn[:, None] * cn[None, :])


def pool_terms(x: np.ndarray, pool_size: Sequence[int], *_: Any, **__: Any) -> float:
    return float(pool_size[0] * pool_size[1])


def _bits_view(x: np.ndarray) -> np.ndarray:
    """x's bits as the unsigned integer type of its width."""
    # (np.ascontiguousarray would make a 0-d array 1-d.)
    return np.array(x, order="C").view(np.dtype(f"u{x.dtype.itemsize}"))


def _shift(a: np.ndarray, b: np.ndarray, how: str) -> np.ndarray:
    """JAX's shifts: an amount outside [0, width) gives 0 (the sign's fill for
    an arithmetic right shift)."""
    a, b = np.broadcast_arrays(a, b)
    width = a.dtype.itemsize * 8
    inside = (b >= 0) & (b < width)
    amount = np.where(inside, b, 0).astype(np.dtype(f"u{a.dtype.itemsize}"))
    if how == "left":
        out = (_bits_view(a) << amount).view(a.dtype)
        fill = np.zeros_like(a)
    elif how == "logical":
        out = (_bits_view(a) >> amount).view(a.dtype)
        fill = np.zeros_like(a)
    else:
        out = a >> amount.astype(a.dtype)
        fill = np.where(a < 0, -1, 0).astype(a.dtype)
    return np.where(inside, out, fill).astype(a.dtype)


def left_shift(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    return _shift(a, b, "left")


def right_shift(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    return _shift(a, b, "arithmetic")


def shift_right_logical(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    return _shift(a, b, "logical")


def bitcast(x: np.ndarray, dtype: str) -> np.ndarray:
    """The bits of x read as `dtype` ("i32", "f64", ...), x holding values of
    the other kind of that width (interpreter form: floats in float64, ints
    in int64; the result in that form too)."""
    width = int(dtype[1:]) // 8
    source = np.dtype(f"{'i' if dtype.startswith('f') else 'f'}{width}")
    out = np.array(x.astype(source), order="C").view(np.dtype(f"{dtype[0]}{width}"))
    return out.astype(np.float64 if dtype.startswith("f") else np.int64)
