#!/usr/bin/env bash
# `pip install .` into a fresh venv, then checks what a user gets: the package
# imports from site-packages (not from this checkout), `grad` of a frontend
# function works, site-packages holds no stray `src/` folder, and nothing
# installed names a path of this checkout (libMLIR is found at import); an
# export written from the installed package loads in a process without libMLIR.
# Usage: tools/check_wheel.sh [VENV_DIR]   (`make check-wheel`; CI runs it)
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
VENV=${1:-$ROOT/build/wheel-venv}
rm -rf "$VENV"
python3 -m venv "$VENV"
"$VENV/bin/pip" install -q --disable-pip-version-check "$ROOT"
SITE=$("$VENV/bin/python" -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')

if [ -e "$SITE/src" ]; then
  echo "FAIL: pip install left $SITE/src"; exit 1
fi
if grep -rlI --exclude-dir=__pycache__ "$ROOT" "$SITE/relax_mlir"; then
  echo "FAIL: the files above name the build checkout $ROOT"; exit 1
fi
for lib in "$SITE"/relax_mlir/_mlir_libs/*.so; do
  if readelf -d "$lib" | grep -E "R(UN)?PATH" | grep -q "$ROOT"; then
    echo "FAIL: $lib has a run path into $ROOT"; exit 1
  fi
done
test -f "$SITE/relax_mlir/py.typed" || { echo "FAIL: no py.typed"; exit 1; }

cd /
env -u PYTHONPATH "$VENV/bin/python" - "$SITE" <<'PY'
import sys
import numpy as np
import relax_mlir
import relax_mlir.numpy as rnp

assert relax_mlir.__file__.startswith(sys.argv[1]), relax_mlir.__file__
w = np.array([[0.5, -1.0], [2.0, 0.25]], np.float32)
x = np.array([[1.0, 2.0], [3.0, -1.0], [0.5, 0.5]], np.float32)
g = relax_mlir.grad(lambda w, x: rnp.sum(rnp.tanh(x @ w)))(w, x)
expected = x.T @ (1 - np.tanh(x @ w) ** 2)
np.testing.assert_allclose(g, expected, rtol=1e-5)
fn = relax_mlir.jit(lambda w, x: rnp.tanh(x @ w))
fn.lower(w, x).export("/tmp/relax-wheel-export.so")
np.save("/tmp/relax-wheel-want.npy", fn(w, x))
print(f"wheel OK: relax_mlir from {relax_mlir.__file__}, grad matches, exported")
PY
RELAX_MLIR_LLVM_LIBRARY_DIR=/nonexistent env -u PYTHONPATH "$VENV/bin/python" - <<'PY'
import sys
import numpy as np
import relax_mlir.runtime as rt

lib = rt.load("/tmp/relax-wheel-export.so")
w = np.array([[0.5, -1.0], [2.0, 0.25]], np.float32)
x = np.array([[1.0, 2.0], [3.0, -1.0], [0.5, 0.5]], np.float32)
np.testing.assert_array_equal(lib.main(w, x), np.load("/tmp/relax-wheel-want.npy"))
assert "relax_mlir._mlir_libs" not in sys.modules
print("wheel OK: the export runs without libMLIR")
PY
rm -f /tmp/relax-wheel-export.so /tmp/relax-wheel-want.npy
