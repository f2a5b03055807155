"""Cost of one call of a compiled function with 11 array arguments (the shapes
of the MLP adjoint's parameters and data), measured on a function that does
almost nothing, so that the call boundary dominates.

Compared in the same run with
- the previous boundary (a ctypes memref descriptor per argument per call,
  `ExecutionEngine.invoke`), kept here only as a reference point;
- a plain Python function taking the same 11 arrays and calling one numpy ufunc
  on a 0-d array (the floor any Python-level call pays).

Run: make bench   (or PYTHONPATH=build/python_packages .venv/bin/python bench/call_overhead.py)
"""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable
from typing import Any

import numpy as np
import relax_mlir
from relax_mlir import _cuda

SHAPES = [(64, 784), (784, 256), (256,), (256, 10), (10,), (64, 10), (64, 256), (64, 256),
          (256,), (10,), ()]


def source() -> str:
    params = ", ".join(f"%a{i}: tensor<{'x'.join(map(str, s)) + 'x' if s else ''}f32>"
                       for i, s in enumerate(SHAPES))
    return f"""
func.func @main({params}) -> tensor<f32> {{
  %r = relax.dataflow -> (tensor<f32>) {{
    %0 = relax.negative %a10 : tensor<f32>
    relax.output %0 : tensor<f32>
  }}
  return %r : tensor<f32>
}}
"""


def per_call_us(fn: Callable[[], Any], calls: int = 20_000, repeats: int = 7) -> float:
    """Median over `repeats` runs of the mean time of one call, in microseconds."""
    for _ in range(1000):
        fn()
    runs = []
    for _ in range(repeats):
        start = time.perf_counter()
        for _ in range(calls):
            fn()
        runs.append((time.perf_counter() - start) / calls * 1e6)
    return statistics.median(runs)


def main() -> None:
    # JIT code: the ctypes reference below calls its packed entry point (a
    # pointer to each descriptor pointer), which a cached library's differs from.
    relax_mlir.config.update("enable_compilation_cache", False)
    exe = relax_mlir.compile(source())
    args = [np.ones(s, np.float32) for s in SHAPES]
    main_fn = exe.main

    def relax_call() -> Any:
        return main_fn(*args)

    def ctypes_call() -> Any:  # the boundary before issue 6
        out = np.empty((), np.float32)
        arrays = args + [out]
        _cuda.call_with_descriptors(main_fn._address, [a.ctypes.data for a in arrays],
                                    [a.shape for a in arrays])
        return out

    def python_floor(*arrays: np.ndarray) -> np.ndarray:
        return np.negative(arrays[10])

    def floor_call() -> Any:
        return python_floor(*args)

    assert relax_call() == -1 and ctypes_call() == -1
    relax_us = per_call_us(relax_call)
    floor_us = per_call_us(floor_call)
    ctypes_us = per_call_us(ctypes_call, calls=2_000, repeats=3)
    print(f"call of a trivial function with {len(SHAPES)} array arguments (median of runs)")
    print(f"  {'relax-mlir':<34} {relax_us:8.2f} us")
    print(f"  {'python + one numpy ufunc (floor)':<34} {floor_us:8.2f} us  "
          f"(relax-mlir / floor = {relax_us / floor_us:.1f}x)")
    print(f"  {'ctypes descriptors (before)':<34} {ctypes_us:8.2f} us  "
          f"(before / now = {ctypes_us / relax_us:.1f}x)")
    print(f"  target: <= 20 us: {'met' if relax_us <= 20 else 'NOT met'}")


if __name__ == "__main__":
    main()
