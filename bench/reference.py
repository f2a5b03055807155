"""Forward and backward passes of every workload, by hand in numpy.

The functions keep the floating dtype of their inputs: called on float64
copies they are the reference every system is checked against (`reference`),
called on the float32 inputs they are the `numpy` system of the benchmark.
Convolutions use im2col (a strided window view and one matmul); max pooling
routes each window's gradient to its first maximum, as PyTorch does; average
pooling spreads it evenly; `take`'s gradient (embedding_grad) is a
scatter-add (`np.add.at`) into a zero table.

`python bench/reference.py --check` compares every gradient with float64
central finite differences on tiny shapes of each workload.
"""

from __future__ import annotations

import argparse
import math
import sys
from collections.abc import Callable
from pathlib import Path

import numpy as np
from numpy.lib.stride_tricks import sliding_window_view

if __package__ in (None, ""):
    sys.path.insert(0, str(Path(__file__).resolve().parent))

import workloads  # noqa: E402

try:
    from scipy.special import erf as _erf
except ImportError:  # pragma: no cover - scipy comes with jax and scikit-learn
    _erf = np.vectorize(math.erf, otypes=[np.float64])

Arrays = dict[str, np.ndarray]
Result = tuple[np.ndarray, Arrays]


def erf(x: np.ndarray) -> np.ndarray:
    return np.asarray(_erf(x), dtype=x.dtype)


# --- losses ---------------------------------------------------------------------------------


def log_softmax(z: np.ndarray) -> np.ndarray:
    s = z - z.max(-1, keepdims=True)
    return s - np.log(np.exp(s).sum(-1, keepdims=True))


def nll_mean(lp: np.ndarray, y: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Mean negative log-likelihood of log-probabilities `lp` (N, C) at class
    targets `y`, and its gradient with respect to the logits under `lp`."""
    n = lp.shape[0]
    rows = np.arange(n)
    loss = -lp[rows, y].mean()
    dz = np.exp(lp)
    dz[rows, y] -= 1
    return loss, dz / n


def mse(y: np.ndarray, target: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """`mean((y - target)^2)` and its gradient with respect to `y`."""
    d = y - target
    return (d * d).mean(), d * (2.0 / d.size)


# --- layers ---------------------------------------------------------------------------------


def im2col(x: np.ndarray, k: int, pad: int, stride: int = 1) -> np.ndarray:
    """(N*Ho*Wo, C*k*k) patches of `x` (N, C, H, W) for a k x k convolution
    with `pad` zeros on every side and stride `stride`."""
    n, c = x.shape[:2]
    xp = np.pad(x, ((0, 0), (0, 0), (pad, pad), (pad, pad)))
    windows = sliding_window_view(xp, (k, k), axis=(2, 3))  # (N, C, Ho, Wo, k, k) at stride 1
    windows = windows[:, :, ::stride, ::stride]
    ho, wo = windows.shape[2:4]
    return windows.transpose(0, 2, 3, 1, 4, 5).reshape(n * ho * wo, c * k * k)


def conv2d(x: np.ndarray, kernel: np.ndarray, pad: int,
           stride: int = 1) -> tuple[np.ndarray, np.ndarray]:
    """Convolution (NCHW, OIHW, no bias) with `pad` zeros on every side;
    returns the output and the im2col patches for the backward pass."""
    n, _, h, w = x.shape
    o, _, k, _ = kernel.shape
    ho, wo = (h + 2 * pad - k) // stride + 1, (w + 2 * pad - k) // stride + 1
    cols = im2col(x, k, pad, stride)
    out = cols @ kernel.reshape(o, -1).T
    return out.reshape(n, ho, wo, o).transpose(0, 3, 1, 2), cols


def conv2d_backward(dout: np.ndarray, cols: np.ndarray, kernel: np.ndarray, pad: int,
                    x_shape: tuple[int, ...] | None,
                    stride: int = 1) -> tuple[np.ndarray, np.ndarray | None]:
    """Gradients of `conv2d` for the kernel and (when `x_shape` is given) the input."""
    o, c, k, _ = kernel.shape
    dmat = dout.transpose(0, 2, 3, 1).reshape(-1, o)
    dkernel = (dmat.T @ cols).reshape(kernel.shape)
    if x_shape is None:
        return dkernel, None
    n, _, h, w = x_shape
    ho, wo = dout.shape[2:]
    dcols = (dmat @ kernel.reshape(o, -1)).reshape(n, ho, wo, c, k, k)
    dxp = np.zeros((n, c, h + 2 * pad, w + 2 * pad), dtype=dout.dtype)
    for i in range(k):
        for j in range(k):
            dxp[:, :, i:i + stride * (ho - 1) + 1:stride, j:j + stride * (wo - 1) + 1:stride] += \
                dcols[:, :, :, :, i, j].transpose(0, 3, 1, 2)
    return dkernel, dxp[:, :, pad:pad + h, pad:pad + w]


def _pool_windows(a: np.ndarray) -> np.ndarray:
    n, c, h, w = a.shape
    return a.reshape(n, c, h // 2, 2, w // 2, 2).transpose(0, 1, 2, 4, 3, 5).reshape(
        n, c, h // 2, w // 2, 4)


def max_pool2(a: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """2x2 stride-2 max pooling; returns the output and each window's argmax."""
    windows = _pool_windows(a)
    idx = windows.argmax(-1)[..., None]
    return np.take_along_axis(windows, idx, -1)[..., 0], idx


def max_pool2_backward(dout: np.ndarray, idx: np.ndarray) -> np.ndarray:
    n, c, ho, wo = dout.shape
    d = np.zeros((n, c, ho, wo, 4), dtype=dout.dtype)
    np.put_along_axis(d, idx, dout[..., None], -1)
    return d.reshape(n, c, ho, wo, 2, 2).transpose(0, 1, 2, 4, 3, 5).reshape(n, c, 2 * ho, 2 * wo)


def avg_pool2(a: np.ndarray) -> np.ndarray:
    """2x2 stride-2 average pooling."""
    return _pool_windows(a).mean(-1)


def avg_pool2_backward(dout: np.ndarray) -> np.ndarray:
    """Each window's gradient spread evenly over its four inputs."""
    d = dout * 0.25
    return np.repeat(np.repeat(d, 2, axis=2), 2, axis=3)


def softmax(s: np.ndarray) -> np.ndarray:
    e = np.exp(s - s.max(-1, keepdims=True))
    return e / e.sum(-1, keepdims=True)


# --- workloads ------------------------------------------------------------------------------


def mlp(a: Arrays) -> Result:
    x, y, w1, b1, w2, b2 = (a[k] for k in ("x", "y", "w1", "b1", "w2", "b2"))
    z1 = x @ w1 + b1
    h = np.maximum(z1, 0)
    z2 = h @ w2 + b2
    loss, dz2 = nll_mean(log_softmax(z2), y)
    dz1 = (dz2 @ w2.T) * (z1 > 0)
    return loss, {"w1": x.T @ dz1, "b1": dz1.sum(0), "w2": h.T @ dz2, "b2": dz2.sum(0)}


def deep_mlp(a: Arrays) -> Result:
    layers = sum(1 for k in a if k.startswith("w"))
    hs = [a["x"]]
    for i in range(layers):
        hs.append(np.tanh(hs[-1] @ a[f"w{i}"] + a[f"b{i}"]))
    loss, dh = mse(hs[-1], a["target"])
    grads: Arrays = {}
    for i in reversed(range(layers)):
        da = dh * (1 - hs[i + 1] * hs[i + 1])
        grads[f"w{i}"] = hs[i].T @ da
        grads[f"b{i}"] = da.sum(0)
        if i > 0:
            dh = da @ a[f"w{i}"].T
    return loss, grads


def cnn(a: Arrays) -> Result:
    x, y = a["x"], a["y"]
    k1, c1, k2, c2, wd, bd = (a[k] for k in ("k1", "c1", "k2", "c2", "wd", "bd"))
    z1, cols1 = conv2d(x, k1, 1)
    z1 = z1 + c1[:, None, None]
    p1, idx1 = max_pool2(np.maximum(z1, 0))
    z2, cols2 = conv2d(p1, k2, 1)
    z2 = z2 + c2[:, None, None]
    p2, idx2 = max_pool2(np.maximum(z2, 0))
    f = p2.reshape(p2.shape[0], -1)
    loss, dz = nll_mean(log_softmax(f @ wd + bd), y)
    dp2 = (dz @ wd.T).reshape(p2.shape)
    dz2 = max_pool2_backward(dp2, idx2) * (z2 > 0)
    dk2, dp1 = conv2d_backward(dz2, cols2, k2, 1, p1.shape)
    assert dp1 is not None
    dz1 = max_pool2_backward(dp1, idx1) * (z1 > 0)
    dk1, _ = conv2d_backward(dz1, cols1, k1, 1, None)
    return loss, {"k1": dk1, "c1": dz1.sum((0, 2, 3)), "k2": dk2, "c2": dz2.sum((0, 2, 3)),
                  "wd": f.T @ dz, "bd": dz.sum(0)}


def transformer_block(a: Arrays) -> Result:
    x, target, gamma, beta = a["x"], a["target"], a["gamma"], a["beta"]
    w1, b1, w2, b2 = a["w1"], a["b1"], a["w2"], a["b2"]
    mu = x.mean(-1, keepdims=True)
    xc = x - mu
    rstd = 1 / np.sqrt((xc * xc).mean(-1, keepdims=True) + workloads.LAYER_NORM_EPS)
    xhat = xc * rstd
    ln = xhat * gamma + beta
    u = ln @ w1 + b1
    cdf = 0.5 * (1 + erf(u * (1 / math.sqrt(2.0))))
    g = u * cdf
    y = x + (g @ w2 + b2)
    loss, dy = mse(y, target)
    dg = dy @ w2.T
    du = dg * (cdf + u * np.exp(-0.5 * u * u) * (1 / math.sqrt(2 * math.pi)))
    dln = du @ w1.T
    return loss, {"gamma": (dln * xhat).sum(0), "beta": dln.sum(0), "w1": ln.T @ du,
                  "b1": du.sum(0), "w2": g.T @ dy, "b2": dy.sum(0)}


def lenet(a: Arrays) -> Result:
    x, y = a["x"], a["y"]
    k1, c1, k2, c2 = a["k1"], a["c1"], a["k2"], a["c2"]
    w3, b3, w4, b4, w5, b5 = (a[k] for k in ("w3", "b3", "w4", "b4", "w5", "b5"))
    z1, cols1 = conv2d(x, k1, 2)
    z1 = z1 + c1[:, None, None]
    p1 = avg_pool2(np.maximum(z1, 0))
    z2, cols2 = conv2d(p1, k2, 0)
    z2 = z2 + c2[:, None, None]
    p2 = avg_pool2(np.maximum(z2, 0))
    f = p2.reshape(p2.shape[0], -1)
    z3 = f @ w3 + b3
    h3 = np.maximum(z3, 0)
    z4 = h3 @ w4 + b4
    h4 = np.maximum(z4, 0)
    loss, dz5 = nll_mean(log_softmax(h4 @ w5 + b5), y)
    dz4 = (dz5 @ w5.T) * (z4 > 0)
    dz3 = (dz4 @ w4.T) * (z3 > 0)
    dp2 = (dz3 @ w3.T).reshape(p2.shape)
    dz2 = avg_pool2_backward(dp2) * (z2 > 0)
    dk2, dp1 = conv2d_backward(dz2, cols2, k2, 0, p1.shape)
    assert dp1 is not None
    dz1 = avg_pool2_backward(dp1) * (z1 > 0)
    dk1, _ = conv2d_backward(dz1, cols1, k1, 2, None)
    return loss, {"k1": dk1, "c1": dz1.sum((0, 2, 3)), "k2": dk2, "c2": dz2.sum((0, 2, 3)),
                  "w3": f.T @ dz3, "b3": dz3.sum(0), "w4": h3.T @ dz4, "b4": dz4.sum(0),
                  "w5": h4.T @ dz5, "b5": dz5.sum(0)}


def resnet_block(a: Arrays) -> Result:
    x, y, k1, k2, k3, wd, bd = (a[k] for k in ("x", "y", "k1", "k2", "k3", "wd", "bd"))
    z1, cols1 = conv2d(x, k1, 1)
    a1 = np.maximum(z1, 0)
    z2, cols2 = conv2d(a1, k2, 1)
    r = z2 + x
    a2 = np.maximum(r, 0)
    z3, cols3 = conv2d(a2, k3, 1, stride=2)
    a3 = np.maximum(z3, 0)
    g = a3.mean((2, 3))
    loss, dz = nll_mean(log_softmax(g @ wd + bd), y)
    dg = dz @ wd.T
    area = z3.shape[2] * z3.shape[3]
    dz3 = np.broadcast_to((dg / area)[:, :, None, None], z3.shape) * (z3 > 0)
    dk3, da2 = conv2d_backward(dz3, cols3, k3, 1, a2.shape, stride=2)
    assert da2 is not None
    dr = da2 * (r > 0)
    dk2, da1 = conv2d_backward(dr, cols2, k2, 1, a1.shape)
    assert da1 is not None
    dk1, _ = conv2d_backward(da1 * (z1 > 0), cols1, k1, 1, None)
    return loss, {"k1": dk1, "k2": dk2, "k3": dk3, "wd": g.T @ dz, "bd": dz.sum(0)}


def attention(a: Arrays) -> Result:
    x, target, wqkv, bqkv, wo, bo = (a[k] for k in ("x", "target", "wqkv", "bqkv", "wo", "bo"))
    b, t, d = x.shape
    heads = workloads.ATTENTION_HEADS
    dh = d // heads
    scale = 1 / math.sqrt(dh)

    def split(m: np.ndarray) -> np.ndarray:  # (b*t, d) -> (b, heads, t, dh)
        return m.reshape(b, t, heads, dh).transpose(0, 2, 1, 3)

    def merge(m: np.ndarray) -> np.ndarray:  # (b, heads, t, dh) -> (b*t, d)
        return m.transpose(0, 2, 1, 3).reshape(b * t, d)

    x2 = x.reshape(b * t, d)
    qkv = x2 @ wqkv + bqkv
    q, k, v = split(qkv[:, :d]), split(qkv[:, d:2 * d]), split(qkv[:, 2 * d:])
    mask = np.tril(np.ones((t, t), dtype=bool))
    s = np.where(mask, (q @ k.transpose(0, 1, 3, 2)) * scale,
                 np.asarray(workloads.MASK_VALUE, dtype=x.dtype))
    p = softmax(s)
    o = merge(p @ v)
    y = x2 + o @ wo + bo
    loss, dy = mse(y, target.reshape(b * t, d))
    do = split(dy @ wo.T)
    dp = do @ v.transpose(0, 1, 3, 2)
    dv = p.transpose(0, 1, 3, 2) @ do
    ds = np.where(mask, p * (dp - (dp * p).sum(-1, keepdims=True)), 0) * scale
    dq = ds @ k
    dk = ds.transpose(0, 1, 3, 2) @ q
    dqkv = np.concatenate([merge(dq), merge(dk), merge(dv)], axis=1)
    return loss, {"wqkv": x2.T @ dqkv, "bqkv": dqkv.sum(0), "wo": o.T @ dy, "bo": dy.sum(0)}


def embedding_grad(a: Arrays) -> Result:
    ids, target, table, w = a["ids"], a["target"], a["table"], a["w"]
    e = table[ids]
    h = np.tanh(e @ w)
    loss, dh = mse(h, target)
    du = dh * (1 - h * h)
    dtable = np.zeros_like(table)
    np.add.at(dtable, ids, du @ w.T)
    return loss, {"table": dtable, "w": e.T @ du}


FORWARD_BACKWARD: dict[str, Callable[[Arrays], Result]] = {
    "mlp": mlp, "deep_mlp": deep_mlp, "deep_mlp_ckpt": deep_mlp, "cnn": cnn,
    "transformer_block": transformer_block, "lenet": lenet, "resnet_block": resnet_block,
    "attention": attention, "embedding_grad": embedding_grad,
}


def forward_backward(workload: workloads.Workload, arrays: Arrays) -> tuple[float, list[np.ndarray]]:
    """Loss and gradients (in `workload.grads` order) in the inputs' float dtype."""
    loss, grads = FORWARD_BACKWARD[workload.name](arrays)
    return float(loss), [grads[g] for g in workload.grads]


def reference(workload: workloads.Workload, arrays: Arrays) -> tuple[float, list[np.ndarray]]:
    """The float64 reference: `forward_backward` on float64 copies of the inputs."""
    wide = {k: v.astype(np.float64) if v.dtype.kind == "f" else v for k, v in arrays.items()}
    return forward_backward(workload, wide)


def relative_error(value: np.ndarray | float, ref: np.ndarray | float) -> float:
    """max |value - ref| / max |ref| (the absolute error where ref is all zero)."""
    value64 = np.asarray(value, dtype=np.float64)
    ref64 = np.asarray(ref, dtype=np.float64)
    if value64.shape != ref64.shape:
        return math.inf
    scale = float(np.abs(ref64).max()) if ref64.size else 0.0
    err = float(np.abs(value64 - ref64).max()) if ref64.size else 0.0
    return err / scale if scale > 0 else err


# --- self-check -----------------------------------------------------------------------------


def check(samples: int = 6, eps: float = 1e-6, tol: float = 1e-6, seed: int = 1) -> bool:
    """Every workload's float64 gradients against central finite differences
    on tiny shapes (a few random entries of each gradient); prints a line per
    workload and returns whether all are within `tol` (relative to the
    gradient's largest entry)."""
    ok = True
    rng = np.random.default_rng(seed)
    for name in workloads.WORKLOADS:
        if name == "deep_mlp_ckpt":
            continue
        wl = workloads.get(name, tiny=True)
        arrays = {k: v.astype(np.float64) if v.dtype.kind == "f" else v
                  for k, v in workloads.make_inputs(wl, seed).items()}
        _, grads = forward_backward(wl, arrays)
        worst = 0.0
        for gname, grad in zip(wl.grads, grads):
            assert grad.shape == arrays[gname].shape, (name, gname, grad.shape)
            scale = max(float(np.abs(grad).max()), 1e-12)
            for flat in rng.choice(grad.size, size=min(samples, grad.size), replace=False):
                index = np.unravel_index(flat, grad.shape)
                saved = arrays[gname][index]
                arrays[gname][index] = saved + eps
                plus, _ = forward_backward(wl, arrays)
                arrays[gname][index] = saved - eps
                minus, _ = forward_backward(wl, arrays)
                arrays[gname][index] = saved
                numeric = (plus - minus) / (2 * eps)
                worst = max(worst, float(abs(numeric - grad[index])) / scale)
        status = "ok" if worst < tol else "FAILED"
        ok &= worst < tol
        print(f"{name:18s} max |fd - grad| / max|grad| = {worst:.2e}  {status}")
    # The float32 path keeps float32 throughout (it is the numpy system).
    for name in workloads.WORKLOADS:
        wl = workloads.get(name, tiny=True)
        _, grads = forward_backward(wl, workloads.make_inputs(wl, seed))
        if any(g.dtype != np.float32 for g in grads):
            print(f"{name}: float32 inputs gave {[str(g.dtype) for g in grads]}  FAILED")
            ok = False
    return ok


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true",
                        help="compare the gradients with finite differences on tiny shapes")
    args = parser.parse_args()
    if not args.check:
        parser.print_help()
        return
    sys.exit(0 if check() else 1)


if __name__ == "__main__":
    main()
