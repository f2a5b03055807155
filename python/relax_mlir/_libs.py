"""LLVM/MLIR 22's shared libraries, found on this machine when first needed.

The package links against libMLIR.so.22.1 (Debian package `libmlir-22`) but
carries no path from the machine it was built on: the libraries are looked up
in `$RELAX_MLIR_LLVM_LIBRARY_DIR` when set (only there), else in
`llvm-config-22 --libdir` and Debian's `/usr/lib/llvm-22/lib`.

Nothing is loaded when `relax_mlir` is imported: `relax_mlir.runtime` (the
loader of exported libraries) runs on machines without LLVM. libMLIR is
loaded, with RTLD_GLOBAL, right before the compiled extension is first
imported (an import hook on `relax_mlir._mlir_libs`): MLIR tells traits and
interfaces apart by the address of statics in inline templates, and the relax
library must resolve those to libMLIR's own copies.
"""

from __future__ import annotations

import ctypes
import functools
import importlib.abc
import os
import shutil
import subprocess
import sys
from collections.abc import Sequence
from typing import Any

MLIR_SONAME = "libMLIR.so.22.1"
C_RUNNER_UTILS_SONAME = "libmlir_c_runner_utils.so.22.1"
OPENMP_SONAME = "libomp.so"  # libomp-22-dev
ENV = "RELAX_MLIR_LLVM_LIBRARY_DIR"
DEBIAN_DIR = "/usr/lib/llvm-22/lib"


def _candidates() -> list[str]:
    if os.environ.get(ENV):
        return [os.environ[ENV]]
    found = []
    config = shutil.which("llvm-config-22")
    if config:
        try:
            found.append(subprocess.run([config, "--libdir"], capture_output=True, text=True,
                                        timeout=10, check=True).stdout.strip())
        except (OSError, subprocess.SubprocessError):
            pass
    found.append(DEBIAN_DIR)
    return found


@functools.cache
def llvm_library_dir() -> str:
    """The directory holding libMLIR.so.22.1, or an ImportError that says
    which package to install."""
    searched = _candidates()
    for directory in searched:
        if directory and os.path.exists(os.path.join(directory, MLIR_SONAME)):
            return directory
    raise ImportError(
        f"relax_mlir needs LLVM/MLIR 22: {MLIR_SONAME} was not found in "
        f"{', '.join(searched)}. On Debian 12 install the package libmlir-22 (and "
        f"libomp-22-dev for num_threads > 1) from apt.llvm.org: "
        f"`sudo apt-get install libmlir-22 libomp-22-dev`; or set {ENV} to the "
        f"directory that holds {MLIR_SONAME}.")



@functools.cache
def load_mlir() -> None:
    """Loads libMLIR into the global symbol scope (once), or raises the
    ImportError of `llvm_library_dir`."""
    ctypes.CDLL(os.path.join(llvm_library_dir(), MLIR_SONAME), mode=ctypes.RTLD_GLOBAL)


def c_runner_utils() -> str:
    return os.path.join(llvm_library_dir(), C_RUNNER_UTILS_SONAME)


def openmp() -> str:
    return os.path.join(llvm_library_dir(), OPENMP_SONAME)


_EXTENSIONS = "relax_mlir._mlir_libs"


class _LoadMLIRFirst(importlib.abc.MetaPathFinder):
    """Loads libMLIR before `relax_mlir._mlir_libs` (the compiled extension)
    is imported; finds nothing itself."""

    def find_spec(self, fullname: str, path: Sequence[str] | None, target: Any = None) -> None:
        if fullname == _EXTENSIONS:
            load_mlir()
        return None


def install_import_hook() -> None:
    if not any(isinstance(f, _LoadMLIRFirst) for f in sys.meta_path):
        sys.meta_path.insert(0, _LoadMLIRFirst())
