"""Runs one (system, workload, thread count) measurement and prints one JSON line.

    run_one.py --system relax --workload mlp --threads 1 --steps 100
    run_one.py --system numpy --probe sgemm --threads 1   (numpy's sgemm GFLOP/s)
    run_one.py --system jax --probe version
    run_one.py --system relax --workload mlp --compile-only   (compile time and one loss)

Before anything heavy is imported, the thread count is fixed: BLAS/OpenMP
variables, XLA_FLAGS, and the process is pinned to the first N allowed cores.
Then: seeded inputs, the system's compile (`systems/<system>_system.py`),
warm-up steps, the timed steps on the same inputs, and last the float64 numpy
reference (`reference.py`) that the last step's results are checked against.
Step count: `--steps`, except when a warm-up step takes more than 100 ms, then
as many as fit in `--time-budget` seconds but at least 20 (the JSON says so in
`steps_note`).

Memory: `peak_rss_mib` is the process's lifetime peak (ru_maxrss);
`rss_before_mib` is the resident size just before the first step (after
`malloc_trim`, which hands freed heap pages back), when the kernel's
high-water mark is also reset (/proc/self/clear_refs), so
`rss_increase_mib` = high-water mark over the steps - `rss_before_mib` is what
the steps themselves add (activations, gradients, workspaces).
Accuracy: max |g - ref| / max |ref| for the loss and each gradient.
Compile: `compile_s` and the fields of the system's `Prepared.info` (relax:
`cache_entry`, `cache_hit`); `--compile-only` stops after the compile and one
step (no timing, no reference).
"""

from __future__ import annotations

import argparse
import gc
import importlib
import json
import os
import platform
import resource
import statistics
import sys
import time
import traceback
from pathlib import Path
from typing import Any

BENCH = Path(__file__).resolve().parent
SLOW_STEP_S = 0.1
MIN_SLOW_STEPS = 20


def thread_environment(threads: int) -> dict[str, str]:
    """Variables that fix the thread count of OpenBLAS/MKL/OpenMP and XLA."""
    env = {k: str(threads) for k in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS")}
    eigen = "false" if threads == 1 else "true"
    env["XLA_FLAGS"] = f"--xla_cpu_multi_thread_eigen={eigen} intra_op_parallelism_threads={threads}"
    return env


def pin_cores(threads: int) -> list[int]:
    """Restricts this process (and threads it starts later) to its first `threads` allowed CPUs."""
    allowed = sorted(os.sched_getaffinity(0))
    if threads > len(allowed):
        raise RuntimeError(f"{threads} threads asked, but only CPUs {allowed} are allowed")
    os.sched_setaffinity(0, allowed[:threads])
    return allowed[:threads]


def _status_kib(field: str) -> float:
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith(field + ":"):
                return float(line.split()[1])
    return float("nan")


def current_rss_mib() -> float:
    return _status_kib("VmRSS") / 1024


def reset_peak_rss() -> bool:
    """Resets the kernel's resident high-water mark (VmHWM); False where not allowed."""
    try:
        with open("/proc/self/clear_refs", "w") as f:
            f.write("5")
        return True
    except OSError:
        return False


def trim_heap() -> None:
    """Returns the C heap's free pages to the kernel (glibc `malloc_trim`), so
    that memory freed by the compiler no longer counts as resident and the
    steps' allocations show up in the high-water mark."""
    try:
        import ctypes

        ctypes.CDLL(None).malloc_trim(0)
    except (OSError, AttributeError):
        pass


def lifetime_peak_rss_mib() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # KiB on Linux


def sgemm_probe(n: int = 1024, reps: int = 30) -> dict[str, Any]:
    """GFLOP/s of numpy's float32 n x n x n matmul (median of `reps`)."""
    import numpy as np

    rng = np.random.default_rng(0)
    a = rng.standard_normal((n, n), dtype=np.float32)
    b = rng.standard_normal((n, n), dtype=np.float32)
    c = np.empty((n, n), np.float32)
    for _ in range(3):
        np.matmul(a, b, out=c)
    times = []
    for _ in range(reps):
        start = time.perf_counter()
        np.matmul(a, b, out=c)
        times.append(time.perf_counter() - start)
    median = statistics.median(times)
    return {"probe": "sgemm", "n": n, "median_ms": median * 1e3,
            "gflops": 2 * n ** 3 / median / 1e9, "numpy": np.__version__}


def matmul_flops(workload: Any) -> dict[str, Any] | None:
    """Nominal matmul FLOPs of a deep_mlp step: per layer forward, dX and dW,
    each 2*B*W*W (the first layer's dX is counted though it is not needed)."""
    if not workload.name.startswith("deep_mlp"):
        return None
    batch, width = next(s.shape for s in workload.inputs if s.name == "x")
    layers = sum(1 for s in workload.inputs if s.name.startswith("w"))
    return {"flops": 3 * layers * 2 * batch * width * width,
            "counted": f"3 matmuls x {layers} layers x 2*{batch}*{width}*{width} "
                       "(includes the first layer's dX, which a compiler may skip)"}


def measure(args: argparse.Namespace, row: dict[str, Any]) -> None:
    import numpy as np
    import reference
    import workloads

    system = importlib.import_module(f"systems.{args.system}_system")
    row["version"] = system.version()
    skip = getattr(system, "SKIP", {}).get(args.workload)
    if skip:
        row["skipped"] = skip
        return
    wl = workloads.get(args.workload)
    arrays = workloads.make_inputs(wl, args.seed)

    prepared = system.prepare(wl, arrays, args.threads)
    row["compile_s"] = prepared.compile_s
    row["notes"] = list(prepared.notes)
    row.update(prepared.info)
    if args.compile_only:
        # One step (its loss is compared with the measured run's by run.py).
        loss, _ = prepared.unpack(prepared.step())
        row["loss"] = loss
        return
    gc.collect()
    trim_heap()

    row["rss_before_mib"] = current_rss_mib()
    peak_reset = reset_peak_rss()
    if prepared.temp_bytes:
        prepared.temp_bytes(True)
    warm: list[float] = []
    out: Any = None
    while len(warm) < args.warmup:
        start = time.perf_counter()
        out = prepared.step()
        warm.append(time.perf_counter() - start)
        if warm[0] > 1.0 and len(warm) >= 2:
            break  # slow steps: two warm-ups are enough
    steps = args.steps
    if statistics.median(warm) > SLOW_STEP_S and steps > MIN_SLOW_STEPS:
        fit = int(args.time_budget / statistics.median(warm))
        steps = max(MIN_SLOW_STEPS, min(steps, fit))
        if steps < args.steps:
            row["steps_note"] = (f"warm-up step {statistics.median(warm) * 1e3:.0f} ms > "
                                 f"{SLOW_STEP_S * 1e3:.0f} ms: {steps} steps instead of {args.steps}")
    times: list[float] = []
    for _ in range(steps):
        start = time.perf_counter()
        out = prepared.step()
        times.append(time.perf_counter() - start)
    row["os_threads"] = len(os.listdir("/proc/self/task"))
    row["peak_rss_mib"] = lifetime_peak_rss_mib()
    if peak_reset:
        row["step_peak_rss_mib"] = _status_kib("VmHWM") / 1024
    else:
        row["step_peak_rss_mib"] = row["peak_rss_mib"]
        row["notes"].append("could not reset VmHWM: step peak is the lifetime peak")
    row["rss_increase_mib"] = row["step_peak_rss_mib"] - row["rss_before_mib"]
    if prepared.temp_bytes:
        temp = prepared.temp_bytes(False)
        if temp is not None:
            row["temp_peak_mib"] = temp / 2**20

    median = statistics.median(times)
    row.update(warmup=len(warm), steps=steps, median_ms=median * 1e3, min_ms=min(times) * 1e3,
               max_ms=max(times) * 1e3, mean_ms=statistics.fmean(times) * 1e3)
    flops = matmul_flops(wl)
    if flops:
        row["matmul_flops"] = flops["flops"]
        row["matmul_gflops"] = flops["flops"] / median / 1e9
        row["matmul_flops_counted"] = flops["counted"]

    # The float64 reference comes after the timed steps, so that its (large,
    # freed) arrays cannot be reused by the steps without showing in the RSS.
    loss, grads = prepared.unpack(out)
    ref_loss, ref_grads = reference.reference(wl, arrays)
    row["loss"] = loss
    row["ref_loss"] = ref_loss
    row["loss_rel_err"] = reference.relative_error(loss, ref_loss)
    if len(grads) != len(ref_grads):
        raise RuntimeError(f"{len(grads)} gradients returned, {len(ref_grads)} expected")
    row["grad_rel_err"] = {name: reference.relative_error(g, r)
                           for name, g, r in zip(wl.grads, grads, ref_grads)}
    row["grad_dtypes"] = sorted({str(np.asarray(g).dtype) for g in grads})
    row["max_rel_err"] = max([row["loss_rel_err"], *row["grad_rel_err"].values()])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--system", required=True, choices=("relax", "jax", "numpy", "torch"))
    parser.add_argument("--workload", default="mlp")
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--steps", type=int, default=100)
    parser.add_argument("--warmup", type=int, default=10)
    parser.add_argument("--time-budget", type=float, default=60.0,
                        help="seconds of timed steps when a step takes over 100 ms")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--probe", choices=("version", "sgemm"),
                        help="print the system's version, or numpy's sgemm rate, instead")
    parser.add_argument("--compile-only", action="store_true",
                        help="only compile and run one step: the compile time (bench/run.py's "
                             "second relax process, on a warm compilation cache) and the loss")
    args = parser.parse_args()

    env = thread_environment(args.threads)
    os.environ.update(env)
    row: dict[str, Any] = {"system": args.system, "threads": args.threads,
                           "python": platform.python_version()}
    try:
        row["cores"] = pin_cores(args.threads)
        sys.path.insert(0, str(BENCH))
        if args.probe == "sgemm":
            row.update(sgemm_probe())
        elif args.probe == "version":
            row["version"] = importlib.import_module(f"systems.{args.system}_system").version()
        else:
            row.update(workload=args.workload, env=env)
            measure(args, row)
    except Exception as e:  # reported as a row, not a crash
        row["error"] = f"{type(e).__name__}: {e}"
        row["traceback"] = traceback.format_exc()[-4000:]
        print(json.dumps(row), flush=True)
        sys.exit(1)
    print(json.dumps(row), flush=True)


if __name__ == "__main__":
    main()
