"""What the bench scripts that time relax_mlir against JAX in separate
interpreters share (hvp.py, rnn_scan.py): the two interpreters and an
environment that keeps each to one thread."""

from __future__ import annotations

import os
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

# relax_mlir's venv and the peers' (make bench sets up bench/.venv).
PYTHONS = {"relax": str(ROOT / ".venv" / "bin" / "python"),
           "jax": str(ROOT / "bench" / ".venv" / "bin" / "python")}


def one_thread_env() -> dict[str, str]:
    """The environment of a worker: one OpenMP and one XLA thread, and the
    built package on the path."""
    return {**os.environ, "OMP_NUM_THREADS": "1",
            "XLA_FLAGS": "--xla_cpu_multi_thread_eigen=false intra_op_parallelism_threads=1",
            "PYTHONPATH": str(ROOT / "build" / "python_packages")}


def missing_python() -> str | None:
    """The first interpreter that is not there, or None."""
    return next((p for p in PYTHONS.values() if not os.path.exists(p)), None)
