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


def test_missing_mlir_is_a_clear_import_error(tmp_path) -> None:
    env = dict(os.environ, RELAX_MLIR_LLVM_LIBRARY_DIR=str(tmp_path))
    run = subprocess.run([sys.executable, "-c", "import relax_mlir"], env=env,
                         capture_output=True, text=True, timeout=120)
    assert run.returncode != 0
    last = run.stderr.strip().splitlines()[-1]
    assert last.startswith("ImportError: relax_mlir needs LLVM/MLIR 22"), run.stderr
    assert "libMLIR.so.22.1" in last and "libmlir-22" in last and str(tmp_path) in last
