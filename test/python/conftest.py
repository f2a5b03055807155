"""pytest setup: import relax_mlir from the build tree unless it is installed, and
the test-support package relax_mlir_testing from test/lib."""

import os
import sys

_HERE = os.path.dirname(os.path.abspath(__file__))
# RELAX_MLIR_PYTHON_PACKAGES selects another build tree (`make test-asan`).
_BUILD = os.environ.get("RELAX_MLIR_PYTHON_PACKAGES") or os.path.join(
    _HERE, "..", "..", "build", "python_packages")
for _path in (os.path.join(_HERE, "..", "lib"), _BUILD):
    if os.path.isdir(_path) and os.path.abspath(_path) not in map(os.path.abspath, sys.path):
        sys.path.insert(0, os.path.abspath(_path))
