"""Hessian-vector product of the bench MLP's loss (workloads.py `mlp`: batch 64,
784 -> 256 relu -> 10, log_softmax + nll_loss) with respect to its four
parameters, along a seeded direction: relax_mlir's forward over reverse,
`jit(lambda p, v: jvp(grad(loss), (p,), (v,))[1])` (the jvp pass over the
gradient pass's adjoint), against JAX's `jax.jvp(jax.grad(loss))` in the same
run, each in its own interpreter (relax's venv, bench/.venv for JAX) on the
same arrays, one thread. Both results are compared (float32, relative 1e-3 of
the largest entry) before the times are reported.

Run: make bench   (or .venv/bin/python bench/hvp.py; --repeats N)
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
import peers  # noqa: E402
import workloads  # noqa: E402

PARAMS = ("w1", "b1", "w2", "b2")


def arrays() -> tuple[dict[str, np.ndarray], dict[str, np.ndarray]]:
    """The workload's inputs and a seeded direction for each parameter."""
    data = workloads.make_inputs(workloads.get("mlp"))
    rng = np.random.default_rng(7)
    direction = {p: rng.standard_normal(data[p].shape).astype(np.float32) for p in PARAMS}
    return data, direction


def worker_relax(data: dict[str, Any], v: dict[str, Any]) -> tuple[Any, float, Any]:
    import relax_mlir
    import relax_mlir.nn as nn
    import relax_mlir.numpy as rnp

    def loss(p: dict[str, Any], x: Any, y: Any) -> Any:
        h = nn.relu(x @ p["w1"] + p["b1"])
        return nn.nll_loss(nn.log_softmax(h @ p["w2"] + p["b2"]), y)

    grad = relax_mlir.grad(loss)
    hvp = relax_mlir.jit(lambda p, v, x, y: relax_mlir.jvp(lambda q: grad(q, x, y), (p,),
                                                             (v,))[1])
    p = {k: data[k] for k in PARAMS}
    start = time.perf_counter()
    out = hvp(p, v, data["x"], data["y"])
    compile_s = time.perf_counter() - start
    del rnp
    return (lambda: hvp(p, v, data["x"], data["y"])), compile_s, out


def worker_jax(data: dict[str, Any], v: dict[str, Any]) -> tuple[Any, float, Any]:
    import jax
    import jax.numpy as jnp

    def loss(p: dict[str, Any], x: Any, y: Any) -> Any:
        h = jax.nn.relu(x @ p["w1"] + p["b1"])
        lp = jax.nn.log_softmax(h @ p["w2"] + p["b2"], axis=-1)
        return -jnp.mean(jnp.take_along_axis(lp, y[:, None], axis=1))

    hvp = jax.jit(lambda p, v, x, y: jax.jvp(lambda q: jax.grad(loss)(q, x, y), (p,), (v,))[1])
    p = {k: jnp.asarray(data[k]) for k in PARAMS}
    vj = {k: jnp.asarray(v[k]) for k in PARAMS}
    x, y = jnp.asarray(data["x"]), jnp.asarray(data["y"].astype(np.int32))
    start = time.perf_counter()
    out = jax.block_until_ready(hvp(p, vj, x, y))
    compile_s = time.perf_counter() - start
    return (lambda: jax.block_until_ready(hvp(p, vj, x, y))), compile_s, out


def worker(system: str, repeats: int) -> None:
    data, v = arrays()
    run, compile_s, out = (worker_relax if system == "relax" else worker_jax)(data, v)
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        run()
        times.append(time.perf_counter() - start)
    result = {k: np.asarray(out[k]).tolist() for k in PARAMS}
    print(json.dumps({"step_ms": 1e3 * float(np.median(times)), "compile_s": compile_s,
                      "hvp": result}))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--worker", choices=("relax", "jax"))
    parser.add_argument("--repeats", type=int, default=50)
    args = parser.parse_args()
    if args.worker:
        worker(args.worker, args.repeats)
        return
    env = peers.one_thread_env()
    missing = peers.missing_python()
    if missing:
        print(f"hvp: {missing} is missing (make bench sets up bench/.venv)")
        return
    results = {}
    for system, python in peers.PYTHONS.items():
        proc = subprocess.run([python, __file__, "--worker", system, "--repeats",
                               str(args.repeats)], env=env, capture_output=True, text=True,
                              check=False, timeout=900)
        if proc.returncode != 0:
            print(f"hvp: the {system} worker failed:\n{proc.stderr[-2000:]}")
            return
        results[system] = json.loads(proc.stdout.strip().splitlines()[-1])
    for k in PARAMS:
        a, b = np.asarray(results["relax"]["hvp"][k]), np.asarray(results["jax"]["hvp"][k])
        scale = max(float(np.abs(b).max()), 1e-30)
        if float(np.abs(a - b).max()) > 1e-3 * scale:
            print(f"hvp: the Hessian-vector products differ for {k} "
                  f"(max |diff| {np.abs(a - b).max():.3g}, scale {scale:.3g})")
            return
    r, j = results["relax"], results["jax"]
    print(f"Hessian-vector product of the mlp loss (forward over reverse, one thread): "
          f"relax {r['step_ms']:.2f} ms, JAX {j['step_ms']:.2f} ms, ratio "
          f"{r['step_ms'] / j['step_ms']:.2f}; first call (trace + compile) relax "
          f"{r['compile_s']:.2f} s, JAX {j['compile_s']:.2f} s")


if __name__ == "__main__":
    main()
