"""First compile of a deep MLP's training step against its depth: relax_mlir
and JAX, each in a fresh interpreter (relax's venv, bench/.venv for JAX) on
an empty compilation cache, one thread.

The step is `value_and_grad` of the mean squared error of `depth` layers of
tanh(h @ w + b), 1024 wide, batch 128 (the bench's `deep_mlp` at other
depths). Timed: relax `jit(fn).lower(...)` (the trace, the gradient) and
`compile` of the differentiated step (`module("adjoint")`, `main_adjoint`);
JAX `jit(fn).lower(...).compile()`. Nothing runs. Each cell is the median of `--repeats` processes, the systems
alternating.

Run: make bench   (or .venv/bin/python bench/compile_depth.py; --depths 2 8 32)
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
import peers  # noqa: E402

WIDTH, BATCH = 1024, 128


def inputs(depth: int) -> tuple[list[np.ndarray], list[np.ndarray], np.ndarray, np.ndarray]:
    rng = np.random.default_rng(0)
    ws = [(rng.standard_normal((WIDTH, WIDTH)) / np.sqrt(WIDTH)).astype(np.float32)
          for _ in range(depth)]
    bs = [np.zeros(WIDTH, np.float32) for _ in range(depth)]
    x = rng.standard_normal((BATCH, WIDTH)).astype(np.float32)
    return ws, bs, x, np.zeros_like(x)


def loss_in(xp: Any) -> Any:
    """The step's loss written with `xp` (relax_mlir.numpy or jax.numpy)."""

    def loss(ws: Any, bs: Any, x: Any, t: Any) -> Any:
        h = x
        for w, b in zip(ws, bs):
            h = xp.tanh(h @ w + b)
        return xp.mean(xp.square(h - t))

    return loss


def worker_relax(depth: int) -> float:
    import relax_mlir
    import relax_mlir.numpy as rnp

    ws, bs, x, t = inputs(depth)
    step = relax_mlir.jit(relax_mlir.value_and_grad(loss_in(rnp), argnums=(0, 1)))
    start = time.perf_counter()
    # The differentiated module's step alone (JAX compiles only the step too).
    relax_mlir.compile(step.lower(ws, bs, x, t).module("adjoint"), functions=["main_adjoint"])
    return time.perf_counter() - start


def worker_jax(depth: int) -> float:
    import jax
    import jax.numpy as jnp

    ws, bs, x, t = inputs(depth)
    args = jax.device_put((ws, bs, x, t))
    start = time.perf_counter()
    jax.jit(jax.value_and_grad(loss_in(jnp), argnums=(0, 1))).lower(*args).compile()
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--worker", choices=("relax", "jax"))
    parser.add_argument("--depths", type=int, nargs="+", default=[2, 8, 32])
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    if args.worker:
        # The package's modules imported before the clock, as JAX's are.
        if args.worker == "relax":
            import relax_mlir.numpy  # noqa: F401
        else:
            import jax  # noqa: F401
        seconds = (worker_relax if args.worker == "relax" else worker_jax)(args.depths[0])
        print(json.dumps({"compile_s": seconds}))
        return
    missing = peers.missing_python()
    if missing:
        print(f"compile_depth: {missing} is missing (make bench sets up bench/.venv)")
        return
    rows = []
    for depth in args.depths:
        times: dict[str, list[float]] = {"relax": [], "jax": []}
        for _ in range(args.repeats):
            for system, python in peers.PYTHONS.items():
                with tempfile.TemporaryDirectory(prefix="relax-bench-cache-") as cache:
                    env = {**peers.one_thread_env(), "RELAX_MLIR_CACHE_DIR": cache}
                    proc = subprocess.run([python, __file__, "--worker", system, "--depths",
                                           str(depth)], env=env, capture_output=True,
                                          text=True, check=False, timeout=900)
                if proc.returncode != 0:
                    print(f"compile_depth: the {system} worker failed at depth {depth}:\n"
                          f"{proc.stderr[-2000:]}")
                    return
                times[system].append(json.loads(proc.stdout.strip().splitlines()[-1])["compile_s"])
        relax, jax_s = statistics.median(times["relax"]), statistics.median(times["jax"])
        rows.append((depth, relax, jax_s))
    print(f"First compile of a deep MLP's step ({WIDTH} wide, batch {BATCH}; median of "
          f"{args.repeats} fresh processes, empty cache, one thread):")
    print("| layers | relax s | JAX s | relax / JAX |")
    print("|--:|--:|--:|--:|")
    for depth, relax, jax_s in rows:
        print(f"| {depth} | {relax:.2f} | {jax_s:.2f} | {relax / jax_s:.2f} |")


if __name__ == "__main__":
    main()
