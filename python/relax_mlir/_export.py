"""`Executable.export`: compiled functions as one self-contained shared library.

The lowered module (LLVM dialect; for target="cuda" with its kernels in
`gpu.binary` ops) is translated to LLVM IR, optimized as the JIT does and
written as a position-independent object (`write_object_file`), which the
system's C++ compiler driver links with the project's runtime archives: the
buffer pool, and for CUDA the mgpu* runtime over the driver API (loaded with
dlopen). The library needs only the C library at run time (libstdc++ and
libgcc are linked statically; glibc >= 2.35). Its exported symbols are the
functions' C interfaces (`_mlir_ciface_<name>`), the runtime's entry points
and the metadata that `relax_mlir.runtime.load` reads. After the ELF contents
the file ends with a trailer holding their length and SHA-256, which `load`
checks before mapping the library (a truncated or damaged copy is refused).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import tempfile
from collections.abc import Callable
from typing import Any

from . import ir
from ._boundary import TypeSpec, spec_to_json
from ._mlir_libs import _site_initialize_0
from .errors import CompilationError
from .runtime import FORMAT, METADATA_SYMBOL, append_checksum

# name -> (parameters (name, type), result type) of each exported function.
Signatures = dict[str, tuple[list[tuple[str, TypeSpec]], TypeSpec]]

_LIBS_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "_mlir_libs")
RUNTIME_ARCHIVE = os.path.join(_LIBS_DIR, "librelax_export_runtime.a")
CUDA_ARCHIVE = os.path.join(_LIBS_DIR, "librelax_export_cuda.a")

# Only these symbols stay visible in the library.
_VERSION_SCRIPT = "{\n  global: _mlir_ciface_*; relax*; mgpu*;\n  local: *;\n};\n"


def linker() -> str:
    """The C++ compiler driver that links exports: $CXX, else c++, g++ or
    clang++ on the PATH."""
    candidates = [os.environ["CXX"]] if os.environ.get("CXX") else ["c++", "g++", "clang++"]
    for candidate in candidates:
        found = shutil.which(candidate)
        if found:
            return found
    raise CompilationError("cannot export: no C++ compiler to link with",
                           f"looked for {', '.join(candidates)} on the PATH; install one "
                           f"(Debian: `sudo apt-get install g++`) or set CXX")


def linker_flags() -> list[str]:
    """`-fuse-ld=gold` when GNU gold is installed beside the default linker
    (binutils ships it on Debian 12; gcc and clang drivers both take the
    flag): it links an export in about 20 ms against 30 for ld.bfd, a tenth
    of a small model's first compile."""
    return ["-fuse-ld=gold"] if shutil.which("ld.gold") else []


def codegen_threads() -> int:
    """Threads LLVM's code generation may use: the cores this process may run
    on (its CPU affinity, as `taskset` or a batch scheduler sets it)."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except (AttributeError, OSError):
        return max(1, os.cpu_count() or 1)


def functions_metadata(signatures: Signatures,
                       structures: dict[str, Any] | None = None) -> dict[str, Any]:
    """The functions as an export's metadata lists them (and runtime.load
    reads them): parameters and result types, and for a function in
    `structures` its arguments' and result's pytree structure."""
    out: dict[str, Any] = {}
    for name, (params, result) in sorted(signatures.items()):
        out[name] = {"params": [[p, spec_to_json(s)] for p, s in params],
                     "result": spec_to_json(result)}
        if structures and name in structures:
            out[name]["pytree"] = structures[name]
    return out


def destination(path: str) -> str:
    """The absolute path of a library to write at `path`, once its directory
    is known to exist and the path not to be a directory."""
    path = os.path.abspath(os.fspath(path))
    directory = os.path.dirname(path)
    if not os.path.isdir(directory):
        raise FileNotFoundError(f"cannot export to {path}: the directory {directory} "
                                f"does not exist")
    if os.path.isdir(path):
        raise CompilationError(f"cannot export to {path}",
                               f"it is a directory; give the library's file path, such as "
                               f"{os.path.join(path, 'model.so')}")
    return path


def partial_path(path: str) -> str:
    """Where a library for `path` is written before it is renamed there (so
    that a failed write leaves no file)."""
    return os.path.join(os.path.dirname(path), f".{os.path.basename(path)}.{os.getpid()}.partial")


def _mpi_library(llvm_module: ir.Module) -> str | None:
    """The MPI library a module calling MPI (relax.all_reduce) links against:
    the one mpi4py loads (its soname becomes a dependency of the library);
    None for a module without MPI calls."""
    for op in llvm_module.body.operations:
        if op.name == "llvm.func" and \
                ir.StringAttr(op.attributes["sym_name"]).value.startswith("MPI_"):
            break
    else:
        return None
    from . import distributed

    try:
        distributed.initialize()
    except ImportError as e:
        raise CompilationError("cannot export: the module calls MPI (data_parallel)",
                               str(e)) from None
    return distributed.library_path()


def export_library(llvm_module: ir.Module, signatures: Signatures, path: str, *, target: str,
                   chip: str | None, opt_level: int, num_threads: int, cpu: str,
                   structures: dict[str, Any] | None = None) -> str:
    """Writes the lowered `llvm_module` as a shared library at `path`."""
    if num_threads > 1:
        raise CompilationError(
            "cannot export a num_threads > 1 executable",
            "its code calls the OpenMP runtime (libomp), which the machines exports run on "
            "need not have; compile with num_threads=1 to export")
    if not isinstance(cpu, str) or not cpu:
        raise ValueError(f"cpu must be 'host' or an LLVM CPU name such as 'x86-64-v3', "
                         f"got {cpu!r}")
    archives = [RUNTIME_ARCHIVE] + ([CUDA_ARCHIVE] if target == "cuda" else [])
    for archive in archives:
        if not os.path.exists(archive):
            raise CompilationError("cannot export: the package's runtime is incomplete",
                                   f"{archive} is missing; reinstall relax_mlir")
    mpi = _mpi_library(llvm_module)
    metadata = {
        "format": FORMAT,
        "target": target,
        "chip": chip if target == "cuda" else None,
        "opt_level": opt_level,
        "functions": functions_metadata(signatures, structures),
    }
    if mpi:
        metadata["mpi"] = True  # the loader initializes MPI (relax_mlir.distributed)
    path = destination(path)
    cxx = linker()
    with tempfile.TemporaryDirectory(prefix="relax-export-") as tmp:
        obj = os.path.join(tmp, "host.o")
        try:
            _, objects = _site_initialize_0.write_object_file(
                llvm_module, obj, opt_level, cpu, "", METADATA_SYMBOL,
                json.dumps(metadata, sort_keys=True), codegen_threads())
        except RuntimeError as e:
            raise CompilationError("cannot export: writing the object file failed",
                                   str(e)) from None
        version_script = os.path.join(tmp, "exports.map")
        with open(version_script, "w") as f:
            f.write(_VERSION_SCRIPT)
        # Written next to `path` and renamed: a failed export leaves no file.
        partial = partial_path(path)
        arguments = ["-shared", "-o", partial, *objects, "-Wl,--whole-archive", *archives,
                     "-Wl,--no-whole-archive", "-static-libstdc++", "-static-libgcc",
                     "-Wl,-z,defs", "-Wl,--gc-sections",
                     f"-Wl,--version-script={version_script}",
                     *([mpi] if mpi else []), "-lm", "-ldl", "-lpthread"]
        # (Should gold refuse, the driver's default linker gets its turn.)
        preferred = linker_flags()
        for flags in [preferred, []] if preferred else [[]]:
            command = [cxx, *flags, *arguments]
            try:
                run = subprocess.run(command, capture_output=True, text=True, timeout=600)
            except (OSError, subprocess.SubprocessError) as e:
                if os.path.exists(partial):
                    os.unlink(partial)
                raise CompilationError("cannot export: linking failed", str(e)) from None
            if run.returncode == 0:
                break
            if os.path.exists(partial):
                os.unlink(partial)
        else:
            raise CompilationError("cannot export: linking failed",
                                   f"{' '.join(command)}\n{run.stderr.strip()}")
        # The checksum trailer that runtime.load verifies before mapping it.
        _finish(partial, path, lambda: append_checksum(partial))
    return path


def copy_library(source: str, path: str) -> str:
    """Copies the library at `source` to `path` (replaced if it exists, never
    left half-written); returns its absolute path."""
    path = destination(path)
    partial = partial_path(path)
    _finish(partial, path, lambda: shutil.copyfile(source, partial))
    return path


def _finish(partial: str, path: str, write: Callable[[], object]) -> None:
    """Runs `write` (which completes `partial`), then renames `partial` to
    `path`; on failure removes `partial` and raises CompilationError."""
    try:
        write()
        os.replace(partial, path)
    except OSError as e:
        if os.path.exists(partial):
            os.unlink(partial)
        raise CompilationError(f"cannot export to {path}",
                               f"{e.strerror or e}; check that the path is a writable "
                               f"file location") from None
