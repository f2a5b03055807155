"""`relax_mlir.memory_report`: the static peak of live tensor bytes per function;
`relax_mlir.memory_stats`: the bytes compiled code holds at run time."""

from __future__ import annotations

from . import ir
from ._mlir_libs import _relax_runtime
from ._module import (
    ModuleLike,
    as_module,
    clone_module,
    functions,
    require_function,
    run_passes,
)
from .errors import RelaxMLIRError


def memory_report(module: ModuleLike, func: str | None = None) -> dict[str, int]:
    """Peak bytes of tensors live at once in each function (or just `func`).

    Counted in program order from each tensor's definition to its last use;
    parameters (owned by the caller) are not counted, and tuples and checkpoint
    markers alias what they hold. Runs `relax-memory-report` on a copy.
    """
    module = as_module(module)
    if func is not None:
        require_function(module, func)
    copy = clone_module(module)
    options = f"{{func={func}}}" if func else ""
    run_passes(copy, f"builtin.module(relax-memory-report{options})", RelaxMLIRError,
               "memory report failed")
    report = {}
    for name, fn in functions(copy).items():
        if "relax.peak_live_bytes" in fn.attributes:
            report[name] = ir.IntegerAttr(fn.attributes["relax.peak_live_bytes"]).value
    return report


def memory_stats(reset_peak: bool = False) -> dict[str, int]:
    """What the buffer pool of compiled code (`compile(opt_level>=1)`) holds now.

    - `live_bytes`: temporaries in use (0 between calls);
    - `peak_bytes`: the most in use at once since the last reset: the peak of
      a call's temporaries (its results are the caller's arrays, not counted);
    - `cached_bytes`: freed buffers kept for the next call.

    `reset_peak=True` restarts `peak_bytes` from `live_bytes` after reading it.
    Sizes are rounded up to the pool's size classes (within 1/8).
    """
    live, peak, cached = _relax_runtime.pool_stats(reset_peak)
    return {"live_bytes": live, "peak_bytes": peak, "cached_bytes": cached}
