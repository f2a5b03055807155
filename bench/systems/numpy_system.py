"""numpy by hand: `reference.forward_backward` on the float32 inputs.

No compilation (compile time 0). BLAS threads follow OPENBLAS_NUM_THREADS /
OMP_NUM_THREADS, set by `bench/run_one.py` before numpy is imported. numpy has
no checkpointing: `deep_mlp_ckpt` is skipped (see `SKIP`).
"""

from __future__ import annotations

from typing import Any

import numpy as np
import reference
from workloads import Prepared, Workload

SKIP = {"deep_mlp_ckpt": "numpy has no checkpointing (same step as deep_mlp)"}


def version() -> str:
    try:
        config: Any = np.show_config(mode="dicts")
        blas = config["Build Dependencies"]["blas"]
        return f"numpy {np.__version__} ({blas['name']} {blas['version']})"
    except (KeyError, TypeError, ValueError):
        return f"numpy {np.__version__}"


def prepare(wl: Workload, arrays: dict[str, np.ndarray], threads: int) -> Prepared:
    def step() -> Any:
        return reference.forward_backward(wl, arrays)

    def unpack(out: Any) -> tuple[float, list[np.ndarray]]:
        loss, grads = out
        return float(loss), list(grads)

    return Prepared(step, unpack, 0.0, [])
