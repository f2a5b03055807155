#!/usr/bin/env python3
"""Fetch the pinned MLIR 22.1.8 Python binding sources that Debian does not ship.

The sources come from the PyPI package ``xtc-mlir-dev==22.1.8.4`` (pure data). Only
``mlir/src/python`` is extracted; none of its compiled libraries are used. The
``MLIRPython*`` INTERFACE targets of its ``MLIRTargets.cmake`` are rewritten into
``MLIRPythonTargets.cmake`` (imported against the extracted tree, with the static
``LLVMSupport`` replaced by the ``LLVM`` dylib) for ``add_mlir_python_modules``.

Usage: fetch_mlir_python_sources.py DEST_DIR
"""
from __future__ import annotations

import hashlib
import re
import shutil
import subprocess
import sys
import tempfile
import zipfile
from pathlib import Path

PACKAGE = "xtc-mlir-dev==22.1.8.4"
SHA256 = "04ecaa5fe61ed113dfc85d47ce7b017df05387c1afbd53aa514e8d08c203219b"
STAMP = "relax-mlir-python-sources.stamp"


def _download(tmp: Path) -> Path:
    cmd = [sys.executable, "-m", "pip", "download", "--no-deps", "--only-binary=:all:",
           "--dest", str(tmp), PACKAGE]
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL)
    wheels = list(tmp.glob("*.whl"))
    if len(wheels) != 1:
        sys.exit(f"error: expected one wheel for {PACKAGE}, found {wheels}")
    digest = hashlib.sha256(wheels[0].read_bytes()).hexdigest()
    if digest != SHA256:
        sys.exit(f"error: {wheels[0].name} has sha256 {digest}, expected {SHA256}")
    return wheels[0]


def _python_targets(targets_cmake: str, prefix: Path) -> str:
    """Keep only the MLIRPython* INTERFACE target blocks of MLIRTargets.cmake."""
    blocks = re.findall(
        r"# Create imported target (MLIRPython\S+)\n"
        r"(add_library\(.*?\n\n(?:set_target_properties\(.*?\n\)\n)?)",
        targets_cmake, flags=re.S)
    out = [f'set(_IMPORT_PREFIX "{prefix.as_posix()}")\n']
    for name, body in blocks:
        body = body.replace('"LLVMSupport"', '"LLVM"')
        out.append(f"if(NOT TARGET {name})\n{body}endif()\n")
    out.append("unset(_IMPORT_PREFIX)\n")
    return "\n".join(out)


def main() -> None:
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    dest = Path(sys.argv[1]).resolve()
    stamp = dest / STAMP
    if stamp.exists() and stamp.read_text().strip() == SHA256:
        return
    with tempfile.TemporaryDirectory() as td:
        tmp = Path(td)
        wheel = _download(tmp)
        staging = tmp / "mlir"
        with zipfile.ZipFile(wheel) as zf:
            for info in zf.infolist():
                n = info.filename
                if n.startswith("mlir/src/python/") or n == "mlir/lib/cmake/mlir/MLIRTargets.cmake":
                    zf.extract(info, tmp)
        if dest.exists():
            shutil.rmtree(dest)
        dest.parent.mkdir(parents=True, exist_ok=True)
        shutil.move(str(staging), str(dest))
    targets = (dest / "lib/cmake/mlir/MLIRTargets.cmake").read_text()
    (dest / "MLIRPythonTargets.cmake").write_text(_python_targets(targets, dest))
    (dest / STAMP).write_text(SHA256 + "\n")
    print(f"MLIR Python sources ready in {dest}")


if __name__ == "__main__":
    main()
