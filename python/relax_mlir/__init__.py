"""relax-mlir: reverse-mode automatic differentiation of relax programs on MLIR."""

import ctypes as _ctypes
import os as _os

from . import _build_config

# Load libMLIR into the global symbol scope before any extension: MLIR tells
# traits and interfaces apart by the address of statics in inline templates, and
# the relax library must resolve those to libMLIR's own copies.
_ctypes.CDLL(_os.path.join(_build_config.LLVM_LIBRARY_DIR, "libMLIR.so.22.1"),
             mode=_ctypes.RTLD_GLOBAL)
