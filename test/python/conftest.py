"""pytest setup: import relax_mlir from the build tree unless it is installed, and
the test-support package relax_mlir_testing from test/lib; a compilation cache
of the run's own (so every compile takes the cache's miss path once and hits
within the run, never an entry of another build)."""

import os
import shutil
import sys
import tempfile

_HERE = os.path.dirname(os.path.abspath(__file__))
# RELAX_MLIR_PYTHON_PACKAGES selects another build tree (`make test-asan`).
_BUILD = os.environ.get("RELAX_MLIR_PYTHON_PACKAGES") or os.path.join(
    _HERE, "..", "..", "build", "python_packages")
for _path in (os.path.join(_HERE, "..", "lib"), _BUILD):
    if os.path.isdir(_path) and os.path.abspath(_path) not in map(os.path.abspath, sys.path):
        sys.path.insert(0, os.path.abspath(_path))

# The tests compare with float64 references (finite differences, numpy): they
# trace in float64, as JAX's tests run with JAX_ENABLE_X64. The default
# (float64 canonicalized to float32) is tested where it is named
# (test_dtypes.py), and the documentation's snippets run with it.
os.environ.setdefault("RELAX_MLIR_ENABLE_X64", "1")

_OWN_CACHE = None
if "RELAX_MLIR_CACHE_DIR" not in os.environ:
    _OWN_CACHE = tempfile.mkdtemp(prefix="relax-mlir-test-cache-")
    os.environ["RELAX_MLIR_CACHE_DIR"] = _OWN_CACHE


def pytest_sessionfinish(session, exitstatus):  # noqa: ARG001 (pytest's hook signature)
    if _OWN_CACHE is not None:
        shutil.rmtree(_OWN_CACHE, ignore_errors=True)
