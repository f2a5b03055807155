"""A tanh RNN written with `lax.scan`, over T = 10, 100 and 1,000 steps (batch
16, input 32, hidden 128, float32, one thread): the training step
`value_and_grad` of the mean final hidden state's square plus the mean of the
per-step outputs, relax_mlir against JAX's `lax.scan` in the same run, each in
its own interpreter on the same arrays. Reported per T: the first call (trace +
compile; it should stay flat in T), the step time, and for relax the adjoint's
peak live tensor bytes (relax-memory-report) with the carries stored every
iteration and with `checkpoint_every` = the divisor of T from sqrt(T) on (two
levels: O(sqrt T) carries).
Gradients are compared (float32, relative 1e-3 of the largest entry) before the
times are reported.

Run: make bench   (or .venv/bin/python bench/rnn_scan.py; --steps 10,100)
"""

from __future__ import annotations

import argparse
import json
import math
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
import peers  # noqa: E402

BATCH, INPUT, HIDDEN = 16, 32, 128


def arrays(steps: int) -> dict[str, np.ndarray]:
    rng = np.random.default_rng(29)
    return {
        "w": (rng.standard_normal((HIDDEN, HIDDEN)) / math.sqrt(HIDDEN)).astype(np.float32),
        "u": (rng.standard_normal((INPUT, HIDDEN)) / math.sqrt(INPUT)).astype(np.float32),
        "h0": np.zeros((BATCH, HIDDEN), np.float32),
        "xs": rng.standard_normal((steps, BATCH, INPUT)).astype(np.float32),
    }


def worker_relax(data: dict[str, np.ndarray], every: int | None) -> tuple[Any, float, Any, int]:
    import relax_mlir
    import relax_mlir.numpy as rnp
    from relax_mlir import lax

    def loss(p: dict[str, Any], h0: Any, xs: Any) -> Any:
        def step(h: Any, x: Any) -> Any:
            h = rnp.tanh(h @ p["w"] + x @ p["u"])
            return h, rnp.mean(h)
        h, ys = lax.scan(step, h0, xs, checkpoint_every=every)
        return rnp.mean(h * h) + rnp.mean(ys)

    p = {"w": data["w"], "u": data["u"]}
    train = relax_mlir.jit(relax_mlir.value_and_grad(loss))
    start = time.perf_counter()
    out = train(p, data["h0"], data["xs"])
    compile_s = time.perf_counter() - start
    adjoint = relax_mlir.gradient(relax_mlir.jit(loss).lower(p, data["h0"], data["xs"]).module(),
                                  require_grads=[0, 1])
    peak = relax_mlir.memory_report(adjoint, "main_adjoint")["main_adjoint"]
    return (lambda: train(p, data["h0"], data["xs"])), compile_s, out[1], peak


def worker_jax(data: dict[str, np.ndarray], every: int | None) -> tuple[Any, float, Any, int]:
    import jax
    import jax.numpy as jnp

    def loss(p: dict[str, Any], h0: Any, xs: Any) -> Any:
        def step(h: Any, x: Any) -> Any:
            h = jnp.tanh(h @ p["w"] + x @ p["u"])
            return h, jnp.mean(h)
        h, ys = jax.lax.scan(step, h0, xs)
        return jnp.mean(h * h) + jnp.mean(ys)

    p = {"w": jnp.asarray(data["w"]), "u": jnp.asarray(data["u"])}
    h0, xs = jnp.asarray(data["h0"]), jnp.asarray(data["xs"])
    train = jax.jit(jax.value_and_grad(loss))
    start = time.perf_counter()
    out = jax.block_until_ready(train(p, h0, xs))
    compile_s = time.perf_counter() - start
    return (lambda: jax.block_until_ready(train(p, h0, xs))), compile_s, out[1], 0


def worker(system: str, steps: int, every: int | None, repeats: int) -> None:
    data = arrays(steps)
    run, compile_s, grads, peak = (worker_relax if system == "relax" else worker_jax)(data,
                                                                                      every)
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        run()
        times.append(time.perf_counter() - start)
    print(json.dumps({"step_ms": 1e3 * float(np.median(times)), "compile_s": compile_s,
                      "peak_bytes": peak,
                      "grads": {k: np.asarray(grads[k]).tolist() for k in ("w", "u")}}))


def run_worker(python: str, system: str, steps: int, every: int | None, repeats: int,
               env: dict[str, str]) -> dict[str, Any] | None:
    args = [python, __file__, "--worker", system, "--steps", str(steps), "--repeats",
            str(repeats)]
    if every:
        args += ["--every", str(every)]
    # A fresh, empty compilation cache: the first call is a first compile.
    with tempfile.TemporaryDirectory(prefix="relax-bench-cache-") as cache:
        proc = subprocess.run(args, env={**env, "RELAX_MLIR_CACHE_DIR": cache},
                              capture_output=True, text=True, check=False, timeout=1800)
    if proc.returncode != 0:
        print(f"rnn_scan: the {system} worker (T={steps}) failed:\n{proc.stderr[-2000:]}")
        return None
    return json.loads(proc.stdout.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--worker", choices=("relax", "jax"))
    parser.add_argument("--steps", default="10,100,1000")
    parser.add_argument("--every", type=int, default=None)
    parser.add_argument("--repeats", type=int, default=20)
    args = parser.parse_args()
    if args.worker:
        worker(args.worker, int(args.steps), args.every, args.repeats)
        return
    env, pythons = peers.one_thread_env(), peers.PYTHONS
    missing = peers.missing_python()
    if missing:
        print(f"rnn_scan: {missing} is missing (make bench sets up bench/.venv)")
        return
    print(f"tanh RNN with lax.scan (batch {BATCH}, input {INPUT}, hidden {HIDDEN}, float32, "
          f"one thread): value_and_grad")
    print(f"{'T':>6} {'first call relax / JAX (s)':>28} {'step relax / JAX (ms)':>24} "
          f"{'ratio':>6} {'adjoint peak: every step / sqrt checkpoints (KiB)':>52}")
    for steps in (int(s) for s in args.steps.split(",")):
        repeats = max(3, args.repeats * 10 // steps) if steps > 10 else args.repeats
        relax = run_worker(pythons["relax"], "relax", steps, None, repeats, env)
        jax = run_worker(pythons["jax"], "jax", steps, None, repeats, env)
        # The smallest divisor of T from sqrt(T) on: two levels, no tail loop.
        every = next(k for k in range(max(2, math.ceil(math.sqrt(steps))), steps + 1)
                     if steps % k == 0)
        chunked = run_worker(pythons["relax"], "relax", steps, every, repeats, env)
        if relax is None or jax is None or chunked is None:
            return
        for k in ("w", "u"):
            a, b, c = (np.asarray(r["grads"][k]) for r in (relax, jax, chunked))
            scale = max(float(np.abs(b).max()), 1e-30)
            if max(float(np.abs(a - b).max()), float(np.abs(c - b).max())) > 1e-3 * scale:
                print(f"rnn_scan: the gradients differ for {k} at T={steps}")
                return
        print(f"{steps:>6} {relax['compile_s']:>13.2f} / {jax['compile_s']:<12.2f} "
              f"{relax['step_ms']:>11.2f} / {jax['step_ms']:<10.2f} "
              f"{relax['step_ms'] / jax['step_ms']:>6.2f} "
              f"{relax['peak_bytes'] / 1024:>24.0f} / {chunked['peak_bytes'] / 1024:<10.0f}"
              f" (k={every}, step {chunked['step_ms']:.2f} ms)")


if __name__ == "__main__":
    main()
