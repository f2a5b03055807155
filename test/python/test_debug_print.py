"""relax_mlir.debug.print: values printed from compiled code, in order, on
every call, through grad and vmap, from a compilation-cache library and from
an exported one; format errors at the caller's line; the GPU refuses it.
"""

from __future__ import annotations

import os
import subprocess
import sys

import numpy as np
import pytest
import relax_mlir
import relax_mlir.numpy as rnp
from relax_mlir import runtime


def lines(capsys) -> list[str]:
    return capsys.readouterr().out.splitlines()


def test_prints_each_call_in_program_order_with_that_calls_values(capsys) -> None:
    @relax_mlir.jit
    def f(x, n):
        y = rnp.tanh(x)
        relax_mlir.debug.print("y = {y}, max {m:.3f}", y=y, m=rnp.max(y))
        relax_mlir.debug.print("n={} pair={}", n, (x[0], None))
        return y * 2

    f(np.array([0.0, 1.0]), np.int64(3))
    f(np.array([2.0, -1.0]), np.int64(4))
    assert lines(capsys) == [
        f"y = {np.tanh([0.0, 1.0])}, max {np.tanh(1.0):.3f}",
        f"n=3 pair=({np.array(0.0)!r}, None)",
        f"y = {np.tanh([2.0, -1.0])}, max {np.tanh(2.0):.3f}",
        f"n=4 pair=({np.array(2.0)!r}, None)",
    ]


def test_prints_the_forward_values_under_grad_and_each_example_under_vmap(capsys) -> None:
    def loss(w):
        relax_mlir.debug.print("w {}", w)
        return rnp.sum(w * w)

    g = relax_mlir.grad(loss)(np.array([1.0, 2.0]))
    np.testing.assert_array_equal(g, [2.0, 4.0])
    assert lines(capsys) == ["w [1. 2.]"]

    def double(x):
        relax_mlir.debug.print("x {} and {}", x, np.int64(7))
        return x * 2

    relax_mlir.vmap(double)(np.arange(6.0).reshape(3, 2))
    assert lines(capsys) == ["x [0. 1.] and 7", "x [2. 3.] and 7", "x [4. 5.] and 7"]


def test_dtypes_shapes_and_eager_calls(capsys) -> None:
    f = relax_mlir.jit(lambda b, i, h: (relax_mlir.debug.print("{} {} {}", b, i, h), i)[1])
    f(np.array([True, False]), np.arange(6, dtype=np.int32).reshape(2, 3),
      np.float16(1.5))
    relax_mlir.debug.print("eager {x}", x=np.int64(5))
    assert capsys.readouterr().out == f"[ True False] {np.arange(6).reshape(2, 3)} 1.5\neager 5\n"


def test_a_format_that_does_not_match_is_an_error_at_the_callers_line() -> None:
    def f(x):
        relax_mlir.debug.print("{missing}", x)
        return x

    with pytest.raises(relax_mlir.TracingError, match=r"(?s)test_debug_print.py:\d+.*KeyError"):
        relax_mlir.jit(f)(np.ones(2))


def test_libraries_print_from_the_cache_and_from_an_export(tmp_path) -> None:
    """A new process that loads the compiled code from the compilation cache,
    and a library exported and loaded with relax_mlir.runtime only, print."""
    script = ("import numpy as np, relax_mlir, relax_mlir.numpy as rnp\n"
              "f = relax_mlir.jit(lambda x: (relax_mlir.debug.print('s={}', rnp.sum(x)), x)[1])\n"
              "f(np.arange(4.0))\n")
    env = {**os.environ, "RELAX_MLIR_CACHE_DIR": str(tmp_path / "cache")}
    for _ in range(2):   # the second process loads the cached library
        run = subprocess.run([sys.executable, "-c", script], env=env, capture_output=True,
                             text=True, timeout=300)
        assert run.returncode == 0, run.stderr
        assert run.stdout.splitlines() == ["s=6.0"]
    assert any(name.endswith(".so") for name in os.listdir(tmp_path / "cache"))
    fn = relax_mlir.jit(lambda x: (relax_mlir.debug.print("t={}", x * 2), x)[1])
    path = fn.lower(np.ones(2)).export(tmp_path / "p.so")
    loader = tmp_path / "loader"
    runtime.copy_loader(loader)
    code = (f"from relax_mlir import runtime; import numpy as np\n"
            f"runtime.load({str(path)!r}).main(np.array([1.0, 3.0]))\n")
    clean = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    run = subprocess.run([sys.executable, "-c", code], env={**clean, "PYTHONPATH": str(loader)},
                         capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stderr
    assert run.stdout.splitlines() == ["t=[2. 6.]"]


def test_the_gpu_lowering_refuses_it() -> None:
    f = relax_mlir.jit(lambda x: (relax_mlir.debug.print("{}", x), x + 1)[1])
    module = f.lower(np.ones(2)).module()
    with pytest.raises(relax_mlir.CompilationError, match="CPU only"):
        relax_mlir.lower(module, "llvm", target="cuda")
