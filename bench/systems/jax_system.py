"""JAX: `jax.jit(jax.value_and_grad(loss, argnums=...))`, compiled ahead of time.

The compile time is the wall time of `.lower(*args).compile()`; the step calls
the compiled object and blocks until its results are ready. Inputs are moved
to the device once, before timing. Class targets are int32 (JAX without x64).
Threads are set by `bench/run_one.py` (XLA_FLAGS and CPU affinity, before
jax is imported). `deep_mlp_ckpt` wraps each segment in `jax.checkpoint`.
Token ids (embedding_grad) are int32 as well; `jnp.take` of them clamps out of
range ids, which the seeded ids never are.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from typing import Any

import numpy as np
import workloads
from workloads import Prepared, Workload


def version() -> str:
    import jax
    import jaxlib

    return f"jax {jax.__version__}, jaxlib {jaxlib.__version__}"


def _losses() -> dict[str, Callable[..., Any]]:
    import jax
    import jax.numpy as jnp

    def nll(logits: Any, y: Any) -> Any:
        lp = jax.nn.log_softmax(logits, axis=-1)
        return -jnp.mean(jnp.take_along_axis(lp, y[:, None], axis=1))

    def mse(y: Any, target: Any) -> Any:
        return jnp.mean(jnp.square(y - target))

    def mlp(a: dict[str, Any]) -> Any:
        h = jax.nn.relu(a["x"] @ a["w1"] + a["b1"])
        return nll(h @ a["w2"] + a["b2"], a["y"])

    def dense_tanh(h: Any, *wb: Any) -> Any:
        for w, b in zip(wb[0::2], wb[1::2]):
            h = jnp.tanh(h @ w + b)
        return h

    def deep(a: dict[str, Any], checkpoint: bool) -> Any:
        layers = sum(1 for k in a if k.startswith("w"))
        h = a["x"]
        segment = jax.checkpoint(dense_tanh) if checkpoint else dense_tanh
        for seg in workloads.segments(layers):
            h = segment(h, *[a[f"{p}{i}"] for i in seg for p in ("w", "b")])
        return mse(h, a["target"])

    def conv(x: Any, k: Any, bias: Any) -> Any:
        z = jax.lax.conv_general_dilated(x, k, (1, 1), [(1, 1), (1, 1)],
                                         dimension_numbers=("NCHW", "OIHW", "NCHW"))
        return z + bias[:, None, None]

    def pool(a: Any) -> Any:
        return jax.lax.reduce_window(a, -jnp.inf, jax.lax.max, (1, 1, 2, 2), (1, 1, 2, 2), "VALID")

    def cnn(a: dict[str, Any]) -> Any:
        p1 = pool(jax.nn.relu(conv(a["x"], a["k1"], a["c1"])))
        p2 = pool(jax.nn.relu(conv(p1, a["k2"], a["c2"])))
        f = p2.reshape(p2.shape[0], -1)
        return nll(f @ a["wd"] + a["bd"], a["y"])

    def transformer_block(a: dict[str, Any]) -> Any:
        x = a["x"]
        mu = jnp.mean(x, axis=-1, keepdims=True)
        var = jnp.mean(jnp.square(x - mu), axis=-1, keepdims=True)
        ln = (x - mu) * jax.lax.rsqrt(var + workloads.LAYER_NORM_EPS) * a["gamma"] + a["beta"]
        g = jax.nn.gelu(ln @ a["w1"] + a["b1"], approximate=False)
        return mse(x + g @ a["w2"] + a["b2"], a["target"])

    def conv2(x: Any, k: Any, pad: int, stride: int = 1) -> Any:
        return jax.lax.conv_general_dilated(x, k, (stride, stride), [(pad, pad), (pad, pad)],
                                            dimension_numbers=("NCHW", "OIHW", "NCHW"))

    def avg_pool(a: Any) -> Any:
        return jax.lax.reduce_window(a, 0.0, jax.lax.add, (1, 1, 2, 2), (1, 1, 2, 2),
                                     "VALID") * 0.25

    def lenet(a: dict[str, Any]) -> Any:
        p1 = avg_pool(jax.nn.relu(conv2(a["x"], a["k1"], 2) + a["c1"][:, None, None]))
        p2 = avg_pool(jax.nn.relu(conv2(p1, a["k2"], 0) + a["c2"][:, None, None]))
        h = p2.reshape(p2.shape[0], -1)
        h = jax.nn.relu(h @ a["w3"] + a["b3"])
        h = jax.nn.relu(h @ a["w4"] + a["b4"])
        return nll(h @ a["w5"] + a["b5"], a["y"])

    def resnet_block(a: dict[str, Any]) -> Any:
        x = a["x"]
        h = jax.nn.relu(conv2(x, a["k1"], 1))
        h = jax.nn.relu(conv2(h, a["k2"], 1) + x)
        h = jax.nn.relu(conv2(h, a["k3"], 1, stride=2))
        return nll(jnp.mean(h, axis=(2, 3)) @ a["wd"] + a["bd"], a["y"])

    def attention(a: dict[str, Any]) -> Any:
        x = a["x"]
        b, t, d = x.shape
        heads = workloads.ATTENTION_HEADS
        dh = d // heads
        qkv = x.reshape(b * t, d) @ a["wqkv"] + a["bqkv"]

        def split(m: Any) -> Any:
            return m.reshape(b, t, heads, dh).transpose(0, 2, 1, 3)

        q, k, v = split(qkv[:, :d]), split(qkv[:, d:2 * d]), split(qkv[:, 2 * d:])
        s = (q @ k.transpose(0, 1, 3, 2)) * (1 / math.sqrt(dh))
        s = jnp.where(jnp.tril(jnp.ones((t, t), dtype=bool)), s, workloads.MASK_VALUE)
        o = (jax.nn.softmax(s, axis=-1) @ v).transpose(0, 2, 1, 3).reshape(b * t, d)
        y = x.reshape(b * t, d) + o @ a["wo"] + a["bo"]
        return mse(y, a["target"].reshape(b * t, d))

    def embedding_grad(a: dict[str, Any]) -> Any:
        e = jnp.take(a["table"], a["ids"], axis=0)
        return mse(jnp.tanh(e @ a["w"]), a["target"])

    return {"mlp": mlp, "deep_mlp": lambda a: deep(a, False),
            "deep_mlp_ckpt": lambda a: deep(a, True), "cnn": cnn,
            "transformer_block": transformer_block, "lenet": lenet,
            "resnet_block": resnet_block, "attention": attention,
            "embedding_grad": embedding_grad}


def prepare(wl: Workload, arrays: dict[str, np.ndarray], threads: int) -> Prepared:
    import jax

    names = wl.input_names
    body = _losses()[wl.name]

    def loss(*args: Any) -> Any:
        return body(dict(zip(names, args)))

    args = [jax.device_put(arrays[n].astype(np.int32) if arrays[n].dtype == np.int64
                           else arrays[n]) for n in names]
    start = time.perf_counter()
    compiled = jax.jit(jax.value_and_grad(loss, argnums=tuple(wl.grad_indices))) \
        .lower(*args).compile()
    compile_s = time.perf_counter() - start

    def step() -> Any:
        return jax.block_until_ready(compiled(*args))

    def unpack(out: Any) -> tuple[float, list[np.ndarray]]:
        value, grads = out
        return float(value), [np.asarray(g) for g in grads]

    notes = ["int32 targets (x64 disabled)"] if any(a.dtype == np.int64 for a in arrays.values()) else []
    if wl.name == "deep_mlp_ckpt":
        notes.append("jax.checkpoint per segment")
    def temp_bytes(reset: bool) -> Any:
        # XLA's buffer assignment: the temporaries of the compiled step.
        try:
            analysis = compiled.memory_analysis()
        except Exception:  # noqa: BLE001 - not every backend reports it
            return None
        return None if analysis is None else analysis.temp_size_in_bytes

    return Prepared(step, unpack, compile_s, notes, temp_bytes)
