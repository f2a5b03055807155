"""Peak bytes of a tanh chain's adjoint, with and without checkpointing (about
sqrt(n) segments of about sqrt(n) layers): the static peak of live tensors
(`memory_report`) and the run-time peak of temporaries of the compiled code
(`memory_stats`, the buffer pool's high-water mark during one call).

Run: PYTHONPATH=build/python_packages .venv/bin/python bench/checkpoint_memory.py
"""

from __future__ import annotations

import time

import numpy as np
import relax_mlir
from relax_mlir._chain import tanh_chain

BATCH, WIDTH = 256, 256


def run_time(text: str) -> tuple[int, float]:
    """Peak temporaries (bytes) and the median call time (ms) of the adjoint."""
    fn = relax_mlir.compile(relax_mlir.gradient(text))["main_adjoint"]
    rng = np.random.default_rng(0)
    args = (rng.standard_normal((BATCH, WIDTH)).astype(np.float32),
            (rng.standard_normal((WIDTH, WIDTH)) / np.sqrt(WIDTH)).astype(np.float32),
            (0.1 * rng.standard_normal(WIDTH)).astype(np.float32))
    fn(*args)
    relax_mlir.memory_stats(reset_peak=True)
    times = []
    for _ in range(20):
        start = time.perf_counter()
        fn(*args)
        times.append(time.perf_counter() - start)
    return relax_mlir.memory_stats(reset_peak=True)["peak_bytes"], 1e3 * float(np.median(times))


def main() -> None:
    mib = 2.0 ** 20
    print(f"tanh chain of {BATCH}x{WIDTH} activations ({BATCH * WIDTH * 4 / mib:.2f} MiB each)")
    print(f"{'layers':>6} {'static MiB':>22} {'run-time MiB':>22} {'step ms':>18}")
    print(f"{'':>6} {'plain':>10} {'ckpt':>11} {'plain':>10} {'ckpt':>11} {'plain':>8} {'ckpt':>9}")
    for n in (4, 16, 64):
        plain, marked = tanh_chain(n, BATCH, WIDTH), tanh_chain(n, BATCH, WIDTH, segment=0)
        sp = relax_mlir.memory_report(relax_mlir.gradient(plain), "main_adjoint")["main_adjoint"]
        sc = relax_mlir.memory_report(relax_mlir.gradient(marked), "main_adjoint")["main_adjoint"]
        rp, tp = run_time(plain)
        rc, tc = run_time(marked)
        print(f"{n:>6} {sp / mib:>10.2f} {sc / mib:>11.2f} {rp / mib:>10.2f} {rc / mib:>11.2f} "
              f"{tp:>8.2f} {tc:>9.2f}")


if __name__ == "__main__":
    main()
