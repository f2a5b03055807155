"""relax-mlir: reverse-mode automatic differentiation of relax programs on MLIR.

Importing the package loads nothing compiled: the compiler (everything below
but `relax_mlir.runtime` and the exceptions) is imported on first use, and
libMLIR with it. `relax_mlir.runtime` loads libraries written by
`Executable.export` with numpy and ctypes only, on machines without LLVM/MLIR.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from . import _libs
from .errors import CompilationError, GradientError, InvalidIRError, RelaxMLIRError

_libs.install_import_hook()

# Public name -> the module that defines it (imported on first access).
_LAZY = {
    "gradient": "._gradient", "jacobian_vector_product": "._gradient",
    "compile": "._compile", "Executable": "._compile", "Function": "._compile",
    "export": "._compile",
    "lower": "._stages", "STAGES": "._stages",
    "memory_report": "._memory", "memory_stats": "._memory",
    "jit": "._frontend", "grad": "._frontend", "value_and_grad": "._frontend",
    "vjp": "._frontend", "jvp": "._frontend", "linearize": "._frontend",
    "jacfwd": "._frontend", "jacrev": "._frontend", "hessian": "._frontend",
    "vmap": "._vmap",
    "Lowered": "._frontend", "Transformed": "._frontend",
    "config": "._config", "clear_caches": "._frontend",
    "checkpoint": ".nn",
    "custom_vjp": "._custom", "custom_jvp": "._custom",
    "ops": "._ops", "OpInfo": "._ops",
    "TracingError": "._trace",
    "CUDAError": "._cuda", "DeviceArray": "._cuda",
}
_ATTRIBUTE = {"checkpoint": "checkpoint_segment"}
# Submodules reachable as attributes after a plain `import relax_mlir`.
_SUBMODULES = {"ir", "passmanager", "rewrite", "dialects", "numpy", "nn", "lax", "runtime",
               "demo", "tree_util", "random", "debug"}

__all__ = ["gradient", "jacobian_vector_product", "compile", "export", "lower", "STAGES",
           "memory_report", "memory_stats",
           "jit", "grad", "value_and_grad", "vjp", "jvp", "linearize", "jacfwd", "jacrev",
           "hessian", "vmap", "custom_vjp", "custom_jvp", "checkpoint", "ops", "OpInfo", "Lowered",
           "Transformed", "config", "clear_caches",
           "Executable", "Function", "RelaxMLIRError", "GradientError", "CompilationError",
           "InvalidIRError", "TracingError", "CUDAError", "DeviceArray"]


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))


if not TYPE_CHECKING:  # type checkers read the imports below instead
    def __getattr__(name: str) -> Any:
        if name in _SUBMODULES:
            return importlib.import_module(f".{name}", __name__)
        module = _LAZY.get(name)
        if module is None:
            raise AttributeError(f"module 'relax_mlir' has no attribute '{name}'")
        value = getattr(importlib.import_module(module, __name__), _ATTRIBUTE.get(name, name))
        globals()[name] = value
        return value
else:
    from ._compile import Executable, Function, compile, export
    from ._cuda import CUDAError, DeviceArray
    from ._custom import custom_jvp, custom_vjp
    from ._frontend import (
        Lowered,
        Transformed,
        clear_caches,
        config,
        grad,
        hessian,
        jacfwd,
        jacrev,
        jit,
        jvp,
        linearize,
        value_and_grad,
        vjp,
    )
    from ._gradient import gradient, jacobian_vector_product
    from ._memory import memory_report, memory_stats
    from ._ops import OpInfo, ops
    from ._stages import STAGES, lower
    from ._trace import TracingError
    from .nn import checkpoint_segment as checkpoint
