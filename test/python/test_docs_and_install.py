"""Generated docs are current; a missing LLVM/MLIR fails at import, clearly."""

import os
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def test_api_reference_is_current() -> None:
    sys.path.insert(0, os.path.join(ROOT, "tools"))
    try:
        import gen_api_docs
    finally:
        sys.path.pop(0)
    with open(os.path.join(ROOT, "docs", "api.md")) as f:
        assert f.read() == gen_api_docs.render(), "docs/api.md is stale: run `make docs`"


MISSING_MLIR = """
import relax_mlir, sys
assert "relax_mlir._mlir_libs" not in sys.modules
import relax_mlir.runtime  # the loader of exports needs no MLIR
for use in ("relax_mlir.compile", "__import__('relax_mlir.numpy')"):
    try:
        eval(use)
    except ImportError as e:
        print(e)
    else:
        raise SystemExit(use + " did not fail")
"""


def test_missing_mlir_is_a_clear_import_error(tmp_path) -> None:
    """Without libMLIR, `import relax_mlir` and `relax_mlir.runtime` work; the
    first use of the compiler raises an ImportError naming what to install."""
    env = dict(os.environ, RELAX_MLIR_LLVM_LIBRARY_DIR=str(tmp_path))
    run = subprocess.run([sys.executable, "-c", MISSING_MLIR], env=env,
                         capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stderr
    lines = run.stdout.strip().splitlines()
    assert len(lines) == 2, run.stdout
    for line in lines:
        assert line.startswith("relax_mlir needs LLVM/MLIR 22"), line
        assert "libMLIR.so.22.1" in line and "libmlir-22" in line and str(tmp_path) in line


def test_plain_import_reaches_submodules_and_api_lazily() -> None:
    script = ("import sys, relax_mlir\n"
              "assert 'relax_mlir._mlir_libs' not in sys.modules\n"
              "ctx = relax_mlir.ir.Context()\n"
              "assert relax_mlir.numpy.sum and relax_mlir.compile and relax_mlir.runtime.load\n"
              "print(sorted(set(relax_mlir.__all__) - set(dir(relax_mlir))))\n")
    run = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                         timeout=120)
    assert run.returncode == 0, run.stderr
    assert run.stdout.strip() == "[]"
