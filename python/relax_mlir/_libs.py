"""LLVM/MLIR 22's shared libraries, found at import on this machine.

The package links against libMLIR.so.22.1 (Debian package `libmlir-22`) but
carries no path from the machine it was built on: the libraries are looked up
in `$RELAX_MLIR_LLVM_LIBRARY_DIR` when set (only there), else in
`llvm-config-22 --libdir` and Debian's `/usr/lib/llvm-22/lib`.
"""

from __future__ import annotations

import os
import shutil
import subprocess

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


LLVM_LIBRARY_DIR = llvm_library_dir()
C_RUNNER_UTILS = os.path.join(LLVM_LIBRARY_DIR, C_RUNNER_UTILS_SONAME)
OPENMP = os.path.join(LLVM_LIBRARY_DIR, OPENMP_SONAME)
