"""The CUDA runtime's host side (runtime/CudaRuntime.cpp, the mgpu* entry
points and the call boundary) under a stand-in driver: test/fake-cuda's
libcuda.so.1 over host memory (no kernel runs, so values are not checked
here; the kernels are checked on the emulator in test_gpu_execution.py).
Each test runs a child process with the stand-in first on LD_LIBRARY_PATH."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
import relax_mlir

FAKE = Path(os.path.abspath(relax_mlir.__file__)).parents[2] / "test" / "fake-cuda"
pytestmark = pytest.mark.skipif(not (FAKE / "libcuda.so.1").exists(),
                                reason="the stand-in driver is built with the project only")

PRELUDE = """
import ctypes, gc, json, sys
import numpy as np
import relax_mlir
from relax_mlir import _cuda
from test_gpu_lowering import MLP
fake = ctypes.CDLL("libcuda.so.1")
fake.fakeCudaCount.restype = ctypes.c_int64
fake.fakeCudaCount.argtypes = [ctypes.c_char_p]
KEYS = ("alloc", "free", "alloc_async", "free_async", "bad_free", "live", "launch",
        "release_threshold", "stream_create", "stream_destroy", "module_load")
def counts():
    gc.collect()
    return {k: fake.fakeCudaCount(k.encode()) for k in KEYS}
assert _cuda.driver_status() is None, _cuda.driver_status()
module = relax_mlir.gradient(MLP)
loaded = counts()["module_load"]
exe = relax_mlir.compile(module, target="cuda", functions=["main_adjoint"])
# The kernels' modules are loaded when the executable is made, by the
# lowered module's global constructors, one per gpu.binary.
binaries = str(exe.llvm_module).count("gpu.binary @")
assert binaries > 0 and counts()["module_load"] - loaded == binaries, (binaries, counts())
fn = exe.main_adjoint
rng = np.random.default_rng(0)
args = [rng.standard_normal(s.shape).astype(np.float32) if s.element == "f32"
        else rng.integers(0, 10, s.shape) for _, s in fn.params]
launches = str(exe.llvm_module).count("gpu.launch_func")
"""


def run_child(body: str, **env: str) -> dict:
    here = Path(__file__).resolve().parent
    environment = dict(os.environ, LD_LIBRARY_PATH=f"{FAKE}:{os.environ.get('LD_LIBRARY_PATH', '')}",
                       PYTHONPATH=os.pathsep.join([str(here), *sys.path]), **env)
    child = subprocess.run([sys.executable, "-c", PRELUDE + body], env=environment,
                           capture_output=True, text=True, timeout=300)
    assert child.returncode == 0, child.stdout + child.stderr
    return json.loads(child.stdout.strip().splitlines()[-1])


def test_temporaries_come_from_the_stream_ordered_pool() -> None:
    out = run_child("""
before = counts()
for _ in range(3):
    fn(*args)
after = counts()
print(json.dumps({"before": before, "after": after, "launches": launches}))
""")
    before, after = out["before"], out["after"]
    calls = {k: after[k] - before[k] for k in after}
    # Every allocation of a call (arguments, results, temporaries) is a
    # stream-ordered one from the pool, and every one is freed back to it.
    assert calls["alloc_async"] > 3 * 6 and calls["alloc"] == 0 and calls["free"] == 0
    assert calls["free_async"] == calls["alloc_async"]
    assert after["live"] == 0 and after["bad_free"] == 0
    # The pool keeps freed memory (no release threshold) for the next call.
    assert after["release_threshold"] == -1  # UINT64_MAX
    # Each gpu.launch_func of the host code reaches cuLaunchKernel with a
    # valid grid, once per call (the host code has no loops). The calls
    # share one stream: a stream given back idle is kept for the next call.
    assert out["launches"] > 0 and calls["launch"] == 3 * out["launches"]
    assert calls["stream_create"] == 1 and calls["stream_destroy"] == 0


def test_without_memory_pools_the_runtime_falls_back_to_cumemalloc() -> None:
    out = run_child("""
fn(*args)
print(json.dumps(counts()))
""", FAKE_CUDA_NO_POOLS="1")
    assert out["alloc"] > 6 and out["free"] == out["alloc"] and out["alloc_async"] == 0
    assert out["live"] == 0 and out["bad_free"] == 0 and out["release_threshold"] == 0


def test_device_arrays_are_freed_to_the_pool() -> None:
    out = run_child("""
weights = [exe.to_device(a) for a in args]
results = fn(*weights)
held = counts()["live"]
del weights, results
print(json.dumps({"held": held, "after": counts(), "inputs": len(args)}))
""")
    assert out["held"] >= out["inputs"]  # the device arrays and results stay
    assert out["after"]["live"] == 0 and out["after"]["bad_free"] == 0
    assert out["after"]["alloc"] == 0


def test_out_of_device_memory_is_a_cuda_error() -> None:
    out = run_child("""
try:
    fn(*args)
    print(json.dumps({"raised": None}))
except _cuda.CUDAError as e:
    print(json.dumps({"raised": str(e), "after": counts()}))
""", FAKE_CUDA_FAIL_ALLOC="1")
    assert out["raised"] and "out of memory (fake)" in out["raised"], out
    assert out["after"]["live"] == 0 and out["after"]["bad_free"] == 0


def test_an_exported_cuda_library_loads_its_kernels_and_runs(tmp_path: Path) -> None:
    # What tools/gpu-check.sh runs on the GPU machine: the library written by
    # export(target="cuda"), called through the pure-Python loader.
    out = run_child(f"""
import relax_mlir.runtime as rt
path = relax_mlir.export(module, {str(tmp_path / "mlp.so")!r}, target="cuda",
                         functions=["main_adjoint"])
before = counts()
library = rt.load(path)
loaded = counts()
for _ in range(2):
    library.main_adjoint(*args)
print(json.dumps({{"before": before, "loaded": loaded, "after": counts(),
                   "launches": launches, "binaries": binaries}}))
""")
    before, loaded, after = out["before"], out["loaded"], out["after"]
    assert loaded["module_load"] - before["module_load"] == out["binaries"]
    assert after["launch"] - loaded["launch"] == 2 * out["launches"]
    assert after["alloc_async"] - loaded["alloc_async"] > 0 and after["alloc"] == 0
    assert after["live"] == 0 and after["bad_free"] == 0


def test_device_arguments_of_the_wrong_shape_or_dtype_are_refused() -> None:
    out = run_child("""
outcome = {}
weights = [exe.to_device(a) for a in args]
wrong_shape = exe.to_device(np.zeros((3, 3), np.float32))
wrong_dtype = exe.to_device(args[0].astype(np.float64))
for name, bad in (("shape", wrong_shape), ("dtype", wrong_dtype)):
    try:
        fn(bad, *weights[1:])
        outcome[name] = None
    except (TypeError, ValueError) as e:
        outcome[name] = f"{type(e).__name__}: {e}"
del weights, wrong_shape, wrong_dtype, bad
outcome["live"] = counts()["live"]
print(json.dumps(outcome))
""")
    assert out["shape"].startswith("ValueError") and "expected shape (64, 784)" in out["shape"]
    assert out["dtype"].startswith("TypeError") and "expected dtype float32" in out["dtype"]
    assert out["live"] == 0
