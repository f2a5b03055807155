"""`relax_mlir.nn`: neural-network functions over traced arrays.

Activations, softmax and losses, convolution, pooling and layer norm, each
one relax op of the contract (or a short composition of them), with PyTorch's
argument conventions (NCHW images, OIHW kernels, `stride`/`padding` as an int
or a pair). Use them inside a function given to `relax_mlir.jit`/`grad`.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Union

import numpy as _np

from . import numpy as rnp
from ._trace import Tracer, emit_op, is_float, primitive
from .dialects import relax as _r
from .errors import call_site
from .numpy import asarray

IntPair = Union[int, Sequence[int]]

__all__ = ["relu", "gelu", "silu", "sigmoid", "softplus", "leaky_relu", "softmax",
           "log_softmax", "logsumexp", "one_hot", "dropout", "nll_loss", "cross_entropy", "conv2d",
           "max_pool2d", "avg_pool2d", "layer_norm", "checkpoint_segment"]


def _float(x: Any) -> Tracer:
    x = asarray(x)
    if not is_float(x.dtype):
        raise TypeError(f"expected a float array, got dtype {x.dtype}; convert it with "
                        f".astype(relax_mlir.numpy.float32)")
    return x


def _unary(builder: Any, doc: str) -> Any:
    def op(x: Any) -> Tracer:
        return emit_op(builder, _float(x))

    return primitive(op, builder.__name__, doc)


relu = _unary(_r.relu, "max(x, 0) (relax.relu).")
gelu = _unary(_r.gelu, "x * Phi(x), the exact (erf) GELU (relax.gelu).")
silu = _unary(_r.silu, "x * sigmoid(x) (relax.silu).")
sigmoid = _unary(_r.sigmoid, "1 / (1 + exp(-x)) (relax.sigmoid).")
softplus = _unary(_r.softplus, "log(1 + exp(x)) (relax.softplus).")


@primitive
def leaky_relu(x: Any, negative_slope: float = 0.01) -> Tracer:
    """x where x > 0, else negative_slope * x (relax.leaky_relu)."""
    return emit_op(_r.leaky_relu, _float(x), alpha=float(negative_slope))


@primitive
def softmax(x: Any, axis: int = -1) -> Tracer:
    """exp(x) / sum(exp(x)) along `axis` (relax.softmax)."""
    return emit_op(_r.softmax, _float(x), axis=int(axis))


@primitive
def log_softmax(x: Any, axis: int = -1) -> Tracer:
    """x - log(sum(exp(x))) along `axis` (relax.log_softmax)."""
    return emit_op(_r.log_softmax, _float(x), axis=int(axis))


_REDUCTIONS = ("mean", "sum", "none")


@primitive
def logsumexp(a: Any, axis: Any = None, b: Any = None, keepdims: bool = False) -> Tracer:
    """log(sum(b * exp(a))) over `axis` (all axes when None), as
    jax.nn.logsumexp: computed around the maximum (itself out of the
    derivative, which is softmax-weighted), so large values do not overflow;
    -inf where every term is 0."""
    a = _float(a)
    axes = None if axis is None else ([int(axis)] if isinstance(axis, int)
                                      else [int(x) for x in axis])
    top = rnp.max(a, axes, keepdims=True)
    # A non-finite maximum (all -inf, or inf) shifts by 0 instead: x - x is 0
    # only for finite x.
    top = _stop_gradient(rnp.where(rnp.equal(top - top, 0), top, 0))
    terms = rnp.exp(a - top)
    if b is not None:
        terms = terms * b
    out = rnp.log(rnp.sum(terms, axes, keepdims=True)) + top
    if not keepdims:
        out = rnp.squeeze(out, axes if axes is not None else None) if out.ndim else out
    return out


@primitive
def dropout(key: Any, x: Any, rate: float, deterministic: bool = False) -> Tracer:
    """`x` with each element zeroed with probability `rate` and the kept ones
    scaled by 1 / (1 - rate) (inverted dropout, flax.linen.Dropout's), the
    mask drawn from `key` (relax_mlir.random.bernoulli): the same key gives
    the same mask, also when a checkpointed segment is recomputed.
    `deterministic=True` (evaluation) returns x."""
    x = _float(x)
    rate = float(rate)
    if not 0.0 <= rate < 1.0:
        raise ValueError(f"{call_site()}: dropout rate must be in [0, 1), got {rate}; pass the "
                         f"probability of zeroing an element (0 keeps every one)")
    if deterministic or rate == 0.0:
        return x
    from . import random

    keep = random.bernoulli(key, 1.0 - rate, x.shape)
    return rnp.where(keep, x / (1.0 - rate), rnp.zeros_like(x))


def _stop_gradient(x: Tracer) -> Tracer:
    return emit_op(_r.stop_gradient, x)


@primitive
def one_hot(x: Any, num_classes: int, dtype: Any = _np.float32, axis: int = -1) -> Tracer:
    """The one-hot encoding of integer `x`, as jax.nn.one_hot: a new axis
    `axis` of `num_classes` holding 1 at x's class and 0 elsewhere (all 0 for
    an x outside [0, num_classes))."""
    x = asarray(x)
    if is_float(x.dtype) or x.dtype == _np.bool_:
        raise TypeError(f"{call_site()}: one_hot: x must hold integer classes, got dtype "
                        f"{x.dtype}; convert it with .astype(relax_mlir.numpy.int32)")
    rank = x.ndim + 1
    axis = int(axis)
    if not -rank <= axis < rank:
        raise ValueError(f"{call_site()}: one_hot: axis {axis} is out of range for the "
                         f"result's rank {rank}; pass an axis in [-{rank}, {rank}) (-1: last)")
    axis %= rank
    classes = _np.arange(int(num_classes), dtype=x.dtype).reshape(
        [int(num_classes) if d == axis else 1 for d in range(rank)])
    return rnp.astype(rnp.equal(rnp.expand_dims(x, axis), classes), dtype)


@primitive
def nll_loss(log_probs: Any, targets: Any, weight: Any = None, reduction: str = "mean",
             ignore_index: int = -100) -> Tracer:
    """The negative log-likelihood of integer `targets` under `log_probs` (N, C),
    as torch.nn.functional.nll_loss (relax.nll_loss)."""
    if reduction not in _REDUCTIONS:
        raise ValueError(f"reduction must be one of {', '.join(_REDUCTIONS)}, got {reduction!r}")
    log_probs = _float(log_probs)
    targets = asarray(targets)
    if is_float(targets.dtype) or targets.dtype == _np.bool_:
        raise TypeError(f"nll_loss: targets must be integer class indices, got dtype "
                        f"{targets.dtype}")
    w = None if weight is None else asarray(weight, log_probs.dtype).value
    return emit_op(_r.nll_loss, log_probs, targets, weights=w, reduction=reduction,
                 ignore_index=int(ignore_index))


@primitive
def cross_entropy(logits: Any, targets: Any, weight: Any = None, reduction: str = "mean",
                  ignore_index: int = -100) -> Tracer:
    """Cross-entropy of `logits` (N, C) against integer class `targets` (N,)
    (nll_loss of log_softmax, as torch.nn.functional.cross_entropy), or against
    class probabilities of `logits`' shape (relax.cross_entropy_with_logits of
    log_softmax: the mean over the batch of -sum(p * log_softmax))."""
    logits = _float(logits)
    log_probs = log_softmax(logits, axis=1 if logits.ndim > 1 else 0)
    targets = asarray(targets)
    if not is_float(targets.dtype):
        return nll_loss(log_probs, targets, weight, reduction, ignore_index)
    if weight is not None or reduction != "mean":
        raise ValueError("cross_entropy with probability targets supports only "
                         "reduction='mean' and no weight")
    return emit_op(_r.cross_entropy_with_logits, log_probs, rnp.astype(targets, logits.dtype))


def _pair(value: IntPair, what: str) -> list[int]:
    if isinstance(value, (int, _np.integer)):
        return [int(value)] * 2
    value = [int(v) for v in value]
    if len(value) != 2:
        raise ValueError(f"{what} must be an int or a pair, got {value}")
    return value


def _padding(value: int | Sequence[int]) -> list[int]:
    """top, left, bottom, right from an int, a (h, w) pair or four values."""
    if isinstance(value, (int, _np.integer)):
        return [int(value)] * 4
    value = [int(v) for v in value]
    if len(value) == 2:
        return value + value
    if len(value) != 4:
        raise ValueError(f"padding must be an int, (h, w) or (top, left, bottom, right), "
                         f"got {value}")
    return value


@primitive
def conv2d(x: Any, w: Any, bias: Any = None, stride: IntPair = 1,
           padding: int | Sequence[int] = 0, dilation: IntPair = 1,
           groups: int = 1) -> Tracer:
    """2-D convolution of NCHW `x` with OIHW `w` (relax.conv2d), plus `bias`
    (O,) when given, as torch.nn.functional.conv2d."""
    x, w = rnp._promote(_float(x), _float(w))
    y = emit_op(_r.conv2d, x, w, strides=_pair(stride, "stride"), padding=_padding(padding),
              dilation=_pair(dilation, "dilation"), groups=int(groups))
    if bias is not None:
        y = y + rnp.reshape(asarray(bias, y.dtype), (-1, 1, 1))
    return y


@primitive
def max_pool2d(x: Any, kernel_size: IntPair, stride: IntPair | None = None,
               padding: int | Sequence[int] = 0, dilation: IntPair = 1,
               ceil_mode: bool = False) -> Tracer:
    """Max pooling of NCHW `x` (relax.max_pool2d); `stride` defaults to the
    kernel size."""
    kernel = _pair(kernel_size, "kernel_size")
    return emit_op(_r.max_pool2d, _float(x), kernel,
                 strides=kernel if stride is None else _pair(stride, "stride"),
                 padding=_padding(padding), dilation=_pair(dilation, "dilation"),
                 ceil_mode=bool(ceil_mode))


@primitive
def avg_pool2d(x: Any, kernel_size: IntPair, stride: IntPair | None = None,
               padding: int | Sequence[int] = 0, ceil_mode: bool = False,
               count_include_pad: bool = False) -> Tracer:
    """Average pooling of NCHW `x` (relax.avg_pool2d); `stride` defaults to the
    kernel size."""
    kernel = _pair(kernel_size, "kernel_size")
    return emit_op(_r.avg_pool2d, _float(x), kernel,
                 strides=kernel if stride is None else _pair(stride, "stride"),
                 padding=_padding(padding), ceil_mode=bool(ceil_mode),
                 count_include_pad=bool(count_include_pad))


@primitive
def layer_norm(x: Any, gamma: Any, beta: Any, axes: int | Sequence[int] = -1,
               epsilon: float = 1e-5) -> Tracer:
    """(x - mean) / sqrt(var + epsilon) * gamma + beta over `axes` (relax.layer_norm)."""
    x = _float(x)
    axes = [int(axes)] if isinstance(axes, (int, _np.integer)) else [int(a) for a in axes]
    return emit_op(_r.layer_norm, x, asarray(gamma, x.dtype), asarray(beta, x.dtype), axes,
                 epsilon=float(epsilon))


def checkpoint_segment(fn: Any) -> Any:
    """`fn` with its intermediate values recomputed in the backward pass instead
    of kept (relax.start_checkpoint/end_checkpoint around its body, as
    jax.checkpoint; Chen et al. 2016): less memory for some more compute."""
    from ._pytree import tree_flatten, tree_unflatten

    def wrapped(*args: Any) -> Any:
        leaves, _, treedef = tree_flatten(args)
        marked = [emit_op(_r.start_checkpoint, a) if isinstance(a, Tracer) and is_float(a.dtype)
                  else a for a in leaves]
        out = fn(*tree_unflatten(treedef, iter(marked)))
        out_leaves, _, out_def = tree_flatten(out)
        ends = [emit_op(_r.end_checkpoint, o) if isinstance(o, Tracer) and is_float(o.dtype)
                else o for o in out_leaves]
        return tree_unflatten(out_def, iter(ends))

    return wrapped
