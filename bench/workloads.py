"""The benchmark workloads: input shapes, seeded data and the step interface.

Every system (relax, jax, numpy, torch) runs the same five training steps on
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

WORKLOADS = ("mlp", "deep_mlp", "cnn", "transformer_block", "deep_mlp_ckpt")

DEEP_LAYERS = 8
DEEP_WIDTH = 1024
DEEP_BATCH = 128
# Checkpoint every round(sqrt(layers)) layers, as relax_mlir._chain does.
CHECKPOINT_SEGMENT = max(1, round(math.sqrt(DEEP_LAYERS)))

LAYER_NORM_EPS = 1e-5


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
