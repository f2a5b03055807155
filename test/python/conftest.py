"""pytest setup: import relax_mlir from the build tree unless it is installed."""

import os
import sys

# RELAX_MLIR_PYTHON_PACKAGES selects another build tree (`make test-asan`).
_BUILD = os.environ.get("RELAX_MLIR_PYTHON_PACKAGES") or os.path.join(
    os.path.dirname(__file__), "..", "..", "build", "python_packages")
if os.path.isdir(_BUILD) and os.path.abspath(_BUILD) not in map(os.path.abspath, sys.path):
    sys.path.insert(0, os.path.abspath(_BUILD))
