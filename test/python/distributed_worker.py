"""Run under `mpirun -np N` by test_distributed.py: one scenario per call
(`python distributed_worker.py SCENARIO OUTDIR`); each rank writes what the
test compares to OUTDIR/rank<r>.npz."""

from __future__ import annotations

import os
import signal
import sys

import numpy as np
import relax_mlir
import relax_mlir.nn as nn
from relax_mlir import distributed


def mlp_loss(params, x, y):
    h = nn.relu(x @ params["w1"] + params["b1"])
    return nn.cross_entropy(h @ params["w2"] + params["b2"], y)


def global_batch(dtype):
    rng = np.random.default_rng(7)
    params = {"w1": rng.normal(size=(6, 8)).astype(dtype) * 0.5,
              "b1": rng.normal(size=(8,)).astype(dtype) * 0.1,
              "w2": rng.normal(size=(8, 3)).astype(dtype) * 0.5,
              "b2": np.zeros(3, dtype)}
    x = rng.normal(size=(16, 6)).astype(dtype)
    y = rng.integers(0, 3, size=16).astype(np.int32)
    return params, x, y


def gradients(out: str) -> None:
    """Each rank's value_and_grad of its shard, averaged in the step, for
    float64 and float32 (and the sum, float64)."""
    results = {}
    for dtype in (np.float64, np.float32):
        params, x, y = global_batch(dtype)
        # Rank 0's random start reaches every rank.
        if distributed.rank() != 0:
            params = {k: np.zeros_like(v) for k, v in params.items()}
        params = distributed.broadcast(params)
        xs, ys = distributed.shard_batch((x, y))
        loss, grads = relax_mlir.value_and_grad(mlp_loss, data_parallel="mean")(params, xs, ys)
        name = np.dtype(dtype).name
        results[f"loss_{name}"] = loss
        for k, g in grads.items():
            results[f"{k}_{name}"] = g
    params, x, y = global_batch(np.float64)
    xs, ys = distributed.shard_batch((x, y))
    sums = relax_mlir.grad(mlp_loss, data_parallel="sum")(params, xs, ys)
    for k, g in sums.items():
        results[f"{k}_sum"] = g
    np.savez(os.path.join(out, f"rank{distributed.rank()}.npz"), **results)


def adam_steps(out: str) -> None:
    """50 adam steps of the data-parallel step (parameters and state
    donated), float32: each rank writes its parameters."""
    from relax_mlir import optim

    params, x, y = global_batch(np.float32)
    opt = optim.adam(0.01)

    @relax_mlir.jit(donate_argnums=(0, 1))
    def step(params, state, x, y):
        value, grads = relax_mlir.value_and_grad(mlp_loss, data_parallel="mean")(params, x, y)
        updates, state = opt.update(grads, state, params)
        return optim.apply_updates(params, updates), state, value

    state = opt.init(params)
    xs, ys = distributed.shard_batch((x, y))
    for _ in range(50):
        params, state, _ = step(params, state, xs, ys)
    np.savez(os.path.join(out, f"rank{distributed.rank()}.npz"), **params)


def raises(out: str) -> None:
    """Rank 1 raises in the middle of a step; rank 0 goes on into the step's
    all-reduce, which would wait forever without the abort."""
    params, x, y = global_batch(np.float64)
    step = relax_mlir.value_and_grad(mlp_loss, data_parallel="mean")
    xs, ys = distributed.shard_batch((x, y))
    step(params, xs, ys)
    if distributed.rank() == 1:
        raise RuntimeError("a failure in the middle of a step")
    step(params, xs, ys)


def dies(out: str) -> None:
    """Rank 1 is killed (SIGKILL: no Python, no hook) in the middle of a
    step; rank 0 goes on into the step's all-reduce."""
    params, x, y = global_batch(np.float64)
    step = relax_mlir.value_and_grad(mlp_loss, data_parallel="mean")
    xs, ys = distributed.shard_batch((x, y))
    step(params, xs, ys)
    if distributed.rank() == 1:
        os.kill(os.getpid(), signal.SIGKILL)
    step(params, xs, ys)


if __name__ == "__main__":
    scenario, out = sys.argv[1], sys.argv[2]
    distributed.initialize()
    {"gradients": gradients, "adam_steps": adam_steps, "raises": raises,
     "dies": dies}[scenario](out)
    distributed.shutdown()
