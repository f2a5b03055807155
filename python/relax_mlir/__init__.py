"""relax-mlir: reverse-mode automatic differentiation of relax programs on MLIR."""

import ctypes as _ctypes
import os as _os

from . import _libs

# Load libMLIR into the global symbol scope before any extension: MLIR tells
# traits and interfaces apart by the address of statics in inline templates, and
# the relax library must resolve those to libMLIR's own copies.
_ctypes.CDLL(_os.path.join(_libs.LLVM_LIBRARY_DIR, _libs.MLIR_SONAME), mode=_ctypes.RTLD_GLOBAL)

from ._compile import Executable, Function, compile  # noqa: E402
from ._cuda import CUDAError  # noqa: E402
from ._frontend import Lowered, Transformed, grad, jit, value_and_grad, vjp  # noqa: E402
from ._gradient import gradient  # noqa: E402
from ._memory import memory_report, memory_stats  # noqa: E402
from ._ops import OpInfo, ops  # noqa: E402
from ._stages import STAGES, lower  # noqa: E402
from ._trace import TracingError  # noqa: E402
from .errors import CompilationError, GradientError, InvalidIRError, RelaxMLIRError  # noqa: E402
from .nn import checkpoint_segment as checkpoint  # noqa: E402

__all__ = ["gradient", "compile", "lower", "STAGES", "memory_report", "memory_stats",
           "jit", "grad", "value_and_grad", "vjp", "checkpoint", "ops", "OpInfo", "Lowered",
           "Transformed",
           "Executable", "Function", "RelaxMLIRError", "GradientError", "CompilationError",
           "InvalidIRError", "TracingError", "CUDAError"]
