"""The benchmark workloads: input shapes, seeded data and the step interface.

Every system (relax, jax, numpy, torch) runs the same nine training steps on
the same arrays, made here with numpy only so that each system's interpreter
can import this module:

- `mlp`: batch 64, 784 -> 256 (relu) -> 10, log_softmax + nll_loss (mean).
- `deep_mlp`: 8 layers `h = tanh(h @ W_i + b_i)` of width 1024 on a 128x1024
  input; loss `mean((h_8 - target)^2)`.
- `cnn`: batch 32 of 3x32x32; conv 3x3 (16) + bias + relu + max_pool 2;
  conv 3x3 (32) + bias + relu + max_pool 2; flatten; dense to 10 (+ bias);
  log_softmax + nll_loss.
- `transformer_block`: 64x128 tokens of width 256, flattened to 8192x256;
  `y = x + gelu(layer_norm(x) @ W1 + b1) @ W2 + b2`, loss `mean((y - target)^2)`.
- `deep_mlp_ckpt`: `deep_mlp` with checkpointed segments of `CHECKPOINT_SEGMENT`
  layers (systems without checkpointing skip it).
- `lenet`: LeNet-5 on batch 64 of 1x28x28: conv 5x5 (6, padding 2) + bias +
  relu + avg_pool 2; conv 5x5 (16, no padding) + bias + relu + avg_pool 2;
  flatten (400); dense 400 -> 120 (relu) -> 84 (relu) -> 10 (each + bias);
  log_softmax + nll_loss.
- `resnet_block`: batch 16 of 64x16x16; `a = relu(conv3x3(x))` (64 -> 64,
  padding 1), `r = relu(conv3x3(a) + x)` (64 -> 64, padding 1, the residual);
  conv 3x3 stride 2 (64 -> 128, padding 1) + relu (8x8); global average pool
  over H, W; dense 128 -> 10 (+ bias); log_softmax + nll_loss. No batch norm
  and no conv biases (as ResNet's convolutions). Its gradients are sensitive
  to rounding: the global average pool gives every position of a channel the
  same cotangent, so float32 rounding that flips the sign of one pre-relu
  value of the strided conv moves the kernel gradients by up to ~1e-2 of
  their largest entry. With the seeded data one such value is 2.3e-8 from
  zero (JAX's float32 forward puts it on the other side: max rel err ~1e-2,
  and ~4e-7 against the reference with that one relu flipped).
- `attention`: one causal self-attention block on 8 x 128 tokens of width 256,
  `ATTENTION_HEADS` = 4 heads of 64: `qkv = x @ Wqkv + bqkv` (256 -> 768, one
  matmul), split into q, k, v and into heads, scores `q k^T / sqrt(64)`, the
  causal mask (`where(tril(ones(128, 128)), scores, MASK_VALUE)`), softmax over
  the keys, times v, heads merged, `y = x + o @ Wo + bo` (256 -> 256); loss
  `mean((y - target)^2)`.
- `embedding_grad`: 512 int64 token ids (0..V-1) looked up in a table of
  V = 32768 rows of width 256 (`take(table, ids, axis=0)`), then
  `h = tanh(e @ W)` (256 -> 256, no bias); loss `mean((h - target)^2)`;
  gradients of the table (dense, 32 MiB: the cost of take's gradient, a
  scatter-add into zeros) and of W.

Inputs are float32 (parameters scaled normal, biases small normal), class
targets int64. Gradients are taken of the parameters only (`Workload.grads`),
never of the data (`x`, `y`, `target`).
"""

from __future__ import annotations

import math
import zlib
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

WORKLOADS = ("mlp", "deep_mlp", "cnn", "transformer_block", "deep_mlp_ckpt", "lenet",
             "resnet_block", "attention", "embedding_grad")

DEEP_LAYERS = 8
DEEP_WIDTH = 1024
DEEP_BATCH = 128
# Checkpoint every round(sqrt(layers)) layers, as relax_mlir._chain does.
CHECKPOINT_SEGMENT = max(1, round(math.sqrt(DEEP_LAYERS)))

LAYER_NORM_EPS = 1e-5

ATTENTION_HEADS = 4
# The score of a masked (future) key: exp() of it underflows to 0 in float32
# and float64 alike, and no row is all masked (the diagonal stays).
MASK_VALUE = -1e9


@dataclass(frozen=True)
class InputSpec:
    """One function parameter: its shape, dtype and how its data is drawn."""

    name: str
    shape: tuple[int, ...]
    kind: str  # "normal" (scale * N(0,1) + offset), "uniform" (+-scale), "classes" (0..scale-1)
    scale: float = 1.0
    offset: float = 0.0

    @property
    def dtype(self) -> type:
        return np.int64 if self.kind == "classes" else np.float32


@dataclass(frozen=True)
class Workload:
    """A workload's parameters in call order and the ones that get gradients."""

    name: str
    inputs: tuple[InputSpec, ...]
    grads: tuple[str, ...]

    @property
    def input_names(self) -> list[str]:
        return [s.name for s in self.inputs]

    @property
    def grad_indices(self) -> list[int]:
        names = self.input_names
        return [names.index(g) for g in self.grads]


@dataclass
class Prepared:
    """One system's compiled (or eager) training step on fixed inputs.

    `step()` runs forward and backward once and returns when the results are
    ready; `unpack(out)` turns its result into `(loss, [grad, ...])` as numpy
    arrays in `Workload.grads` order.
    """

    step: Callable[[], Any]
    unpack: Callable[[Any], tuple[float, list[np.ndarray]]]
    compile_s: float = 0.0
    notes: list[str] = field(default_factory=list)
    # Peak bytes of the step's temporaries, when the system can tell:
    # `temp_bytes(reset=True)` before the steps, `temp_bytes(reset=False)` after.
    temp_bytes: Callable[[bool], int | None] | None = None
    # Further fields for the row (relax: whether the compile used the
    # compilation cache, `cache_entry`, and loaded from it, `cache_hit`).
    info: dict[str, Any] = field(default_factory=dict)


def _normal(name: str, shape: tuple[int, ...], scale: float = 1.0, offset: float = 0.0) -> InputSpec:
    return InputSpec(name, shape, "normal", scale, offset)


def _he(name: str, shape: tuple[int, ...], fan_in: int) -> InputSpec:
    return _normal(name, shape, 1.0 / math.sqrt(fan_in))


def get(name: str, tiny: bool = False) -> Workload:
    """The workload `name`; `tiny` shrinks every dimension (for finite-difference checks)."""
    inputs: tuple[InputSpec, ...]
    if name == "mlp":
        b, d, h, c = (4, 6, 5, 3) if tiny else (64, 784, 256, 10)
        inputs = (_normal("x", (b, d)), InputSpec("y", (b,), "classes", c),
                  _he("w1", (d, h), d), _normal("b1", (h,), 0.1),
                  _he("w2", (h, c), h), _normal("b2", (c,), 0.1))
        return Workload(name, inputs, ("w1", "b1", "w2", "b2"))
    if name in ("deep_mlp", "deep_mlp_ckpt"):
        layers, b, w = (3, 4, 5) if tiny else (DEEP_LAYERS, DEEP_BATCH, DEEP_WIDTH)
        params: list[InputSpec] = []
        for i in range(layers):
            params += [_he(f"w{i}", (w, w), w), _normal(f"b{i}", (w,), 0.1)]
        inputs = (_normal("x", (b, w)), InputSpec("target", (b, w), "uniform", 1.0), *params)
        return Workload(name, inputs, tuple(p.name for p in params))
    if name == "cnn":
        n, c, hw, f1, f2, k = (2, 2, 8, 3, 4, 3) if tiny else (32, 3, 32, 16, 32, 10)
        flat = f2 * (hw // 4) ** 2
        inputs = (_normal("x", (n, c, hw, hw)), InputSpec("y", (n,), "classes", k),
                  _he("k1", (f1, c, 3, 3), c * 9), _normal("c1", (f1,), 0.1),
                  _he("k2", (f2, f1, 3, 3), f1 * 9), _normal("c2", (f2,), 0.1),
                  _he("wd", (flat, k), flat), _normal("bd", (k,), 0.1))
        return Workload(name, inputs, ("k1", "c1", "k2", "c2", "wd", "bd"))
    if name == "transformer_block":
        t, d, h = (6, 4, 8) if tiny else (64 * 128, 256, 1024)
        inputs = (_normal("x", (t, d)), _normal("target", (t, d)),
                  _normal("gamma", (d,), 0.1, 1.0), _normal("beta", (d,), 0.1),
                  _he("w1", (d, h), d), _normal("b1", (h,), 0.1),
                  _he("w2", (h, d), h), _normal("b2", (d,), 0.1))
        return Workload(name, inputs, ("gamma", "beta", "w1", "b1", "w2", "b2"))
    if name == "lenet":
        # (batch, image side, conv channels, dense widths, classes)
        n, hw, f1, f2, h1, h2, k = (2, 16, 2, 3, 5, 4, 3) if tiny else (64, 28, 6, 16, 120, 84, 10)
        side = ((hw // 2) - 4) // 2  # 28 -> 28 (padding 2) -> 14 -> 10 -> 5
        flat = f2 * side * side
        inputs = (_normal("x", (n, 1, hw, hw)), InputSpec("y", (n,), "classes", k),
                  _he("k1", (f1, 1, 5, 5), 25), _normal("c1", (f1,), 0.1),
                  _he("k2", (f2, f1, 5, 5), f1 * 25), _normal("c2", (f2,), 0.1),
                  _he("w3", (flat, h1), flat), _normal("b3", (h1,), 0.1),
                  _he("w4", (h1, h2), h1), _normal("b4", (h2,), 0.1),
                  _he("w5", (h2, k), h2), _normal("b5", (k,), 0.1))
        return Workload(name, inputs, ("k1", "c1", "k2", "c2", "w3", "b3", "w4", "b4", "w5",
                                       "b5"))
    if name == "resnet_block":
        n, c, hw, c2, k = (2, 3, 4, 4, 3) if tiny else (16, 64, 16, 128, 10)
        inputs = (_normal("x", (n, c, hw, hw)), InputSpec("y", (n,), "classes", k),
                  _he("k1", (c, c, 3, 3), c * 9), _he("k2", (c, c, 3, 3), c * 9),
                  _he("k3", (c2, c, 3, 3), c * 9),
                  _he("wd", (c2, k), c2), _normal("bd", (k,), 0.1))
        return Workload(name, inputs, ("k1", "k2", "k3", "wd", "bd"))
    if name == "attention":
        b, t, d = (2, 5, 8) if tiny else (8, 128, 256)
        inputs = (_normal("x", (b, t, d)), _normal("target", (b, t, d)),
                  _he("wqkv", (d, 3 * d), d), _normal("bqkv", (3 * d,), 0.1),
                  _he("wo", (d, d), d), _normal("bo", (d,), 0.1))
        return Workload(name, inputs, ("wqkv", "bqkv", "wo", "bo"))
    if name == "embedding_grad":
        # tiny: more ids than rows, so that repeated ids accumulate
        n, v, e = (6, 5, 4) if tiny else (512, 32768, 256)
        inputs = (InputSpec("ids", (n,), "classes", v), InputSpec("target", (n, e), "uniform", 1.0),
                  _normal("table", (v, e)), _he("w", (e, e), e))
        return Workload(name, inputs, ("table", "w"))
    raise ValueError(f"unknown workload {name!r}; choose from {', '.join(WORKLOADS)}")


def make_inputs(workload: Workload, seed: int = 0) -> dict[str, np.ndarray]:
    """Seeded data for `workload`, in parameter order (deep_mlp and
    deep_mlp_ckpt get the same data)."""
    base = workload.name.removesuffix("_ckpt")
    rng = np.random.default_rng([seed, zlib.crc32(base.encode())])
    arrays: dict[str, np.ndarray] = {}
    for spec in workload.inputs:
        value: np.ndarray
        if spec.kind == "classes":
            value = rng.integers(0, int(spec.scale), size=spec.shape)
        elif spec.kind == "uniform":
            value = rng.uniform(-spec.scale, spec.scale, size=spec.shape)
        else:
            value = spec.offset + spec.scale * rng.standard_normal(spec.shape)
        arrays[spec.name] = np.ascontiguousarray(value, dtype=spec.dtype)
    return arrays


def deep_layers(workload: Workload) -> int:
    """The number of dense layers of a deep_mlp workload."""
    return sum(1 for s in workload.inputs if s.name.startswith("w"))


def segments(layers: int, size: int = CHECKPOINT_SEGMENT) -> list[list[int]]:
    """Layer indices grouped into checkpointed segments of `size` layers."""
    return [list(range(i, min(i + size, layers))) for i in range(0, layers, size)]
