"""PyTorch eager autograd: the forward with `torch.nn.functional`, then
`torch.autograd.grad` of the loss (no gradient accumulation between steps).

No compilation (compile time 0); `torch.set_num_threads(threads)` and one
inter-op thread. `deep_mlp_ckpt` wraps each segment in
`torch.utils.checkpoint.checkpoint(..., use_reentrant=False)`. The causal
mask of `attention` is `torch.where` on the scores (as the other systems), not
`scaled_dot_product_attention`; `embedding_grad` is `F.embedding` (a dense
gradient of the table).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import numpy as np
import workloads
from workloads import Prepared, Workload


def version() -> str:
    import torch

    return f"torch {torch.__version__}"


def _losses() -> dict[str, Callable[[dict[str, Any]], Any]]:
    import torch
    import torch.nn.functional as F
    from torch.utils.checkpoint import checkpoint

    def nll(logits: Any, y: Any) -> Any:
        return F.nll_loss(F.log_softmax(logits, dim=-1), y)

    def mlp(a: dict[str, Any]) -> Any:
        h = torch.relu(a["x"] @ a["w1"] + a["b1"])
        return nll(h @ a["w2"] + a["b2"], a["y"])

    def dense_tanh(h: Any, *wb: Any) -> Any:
        for w, b in zip(wb[0::2], wb[1::2]):
            h = torch.tanh(h @ w + b)
        return h

    def deep(a: dict[str, Any], ckpt: bool) -> Any:
        layers = sum(1 for k in a if k.startswith("w"))
        h = a["x"]
        for seg in workloads.segments(layers):
            wb = [a[f"{p}{i}"] for i in seg for p in ("w", "b")]
            h = checkpoint(dense_tanh, h, *wb, use_reentrant=False) if ckpt else dense_tanh(h, *wb)
        return F.mse_loss(h, a["target"])

    def cnn(a: dict[str, Any]) -> Any:
        p1 = F.max_pool2d(torch.relu(F.conv2d(a["x"], a["k1"], a["c1"], padding=1)), 2)
        p2 = F.max_pool2d(torch.relu(F.conv2d(p1, a["k2"], a["c2"], padding=1)), 2)
        return nll(p2.reshape(p2.shape[0], -1) @ a["wd"] + a["bd"], a["y"])

    def transformer_block(a: dict[str, Any]) -> Any:
        x = a["x"]
        ln = F.layer_norm(x, x.shape[-1:], a["gamma"], a["beta"], eps=workloads.LAYER_NORM_EPS)
        g = F.gelu(ln @ a["w1"] + a["b1"])  # exact (erf) form by default
        return F.mse_loss(x + g @ a["w2"] + a["b2"], a["target"])

    def lenet(a: dict[str, Any]) -> Any:
        p1 = F.avg_pool2d(torch.relu(F.conv2d(a["x"], a["k1"], a["c1"], padding=2)), 2)
        p2 = F.avg_pool2d(torch.relu(F.conv2d(p1, a["k2"], a["c2"])), 2)
        h = p2.reshape(p2.shape[0], -1)
        h = torch.relu(h @ a["w3"] + a["b3"])
        h = torch.relu(h @ a["w4"] + a["b4"])
        return nll(h @ a["w5"] + a["b5"], a["y"])

    def resnet_block(a: dict[str, Any]) -> Any:
        x = a["x"]
        h = torch.relu(F.conv2d(x, a["k1"], padding=1))
        h = torch.relu(F.conv2d(h, a["k2"], padding=1) + x)
        h = torch.relu(F.conv2d(h, a["k3"], stride=2, padding=1))
        return nll(h.mean((2, 3)) @ a["wd"] + a["bd"], a["y"])

    def attention(a: dict[str, Any]) -> Any:
        x = a["x"]
        b, t, d = x.shape
        heads = workloads.ATTENTION_HEADS
        dh = d // heads
        qkv = x.reshape(b * t, d) @ a["wqkv"] + a["bqkv"]

        def split(m: Any) -> Any:
            return m.reshape(b, t, heads, dh).transpose(1, 2)

        q, k, v = split(qkv[:, :d]), split(qkv[:, d:2 * d]), split(qkv[:, 2 * d:])
        s = (q @ k.transpose(2, 3)) * (1 / math.sqrt(dh))
        mask = torch.tril(torch.ones((t, t), dtype=torch.bool))
        s = torch.where(mask, s, workloads.MASK_VALUE)
        o = (torch.softmax(s, dim=-1) @ v).transpose(1, 2).reshape(b * t, d)
        y = x.reshape(b * t, d) + o @ a["wo"] + a["bo"]
        return F.mse_loss(y, a["target"].reshape(b * t, d))

    def embedding_grad(a: dict[str, Any]) -> Any:
        e = F.embedding(a["ids"], a["table"])  # a dense gradient of the table
        return F.mse_loss(torch.tanh(e @ a["w"]), a["target"])

    return {"mlp": mlp, "deep_mlp": lambda a: deep(a, False),
            "deep_mlp_ckpt": lambda a: deep(a, True), "cnn": cnn,
            "transformer_block": transformer_block, "lenet": lenet,
            "resnet_block": resnet_block, "attention": attention,
            "embedding_grad": embedding_grad}


def prepare(wl: Workload, arrays: dict[str, np.ndarray], threads: int) -> Prepared:
    import torch

    try:
        torch.set_num_interop_threads(1)
    except RuntimeError:  # already set, or inter-op work has started
        pass
    torch.set_num_threads(threads)
    tensors = {n: torch.from_numpy(arrays[n]) for n in wl.input_names}
    params = [tensors[g].requires_grad_(True) for g in wl.grads]
    body = _losses()[wl.name]

    def step() -> Any:
        loss = body(tensors)
        return loss.detach(), torch.autograd.grad(loss, params)

    def unpack(out: Any) -> tuple[float, list[np.ndarray]]:
        loss, grads = out
        return float(loss), [g.numpy() for g in grads]

    notes = [f"torch.get_num_threads() = {torch.get_num_threads()}"]
    if wl.name == "deep_mlp_ckpt":
        notes.append("torch.utils.checkpoint per segment")
    return Prepared(step, unpack, 0.0, notes)
