"""Reductions of values that repeat along the reduced axes (issue 32, item 12).

A reduction of `ones`, `zeros`, `full` or `broadcast_to` (or of an elementwise
function of one) materialized the whole array first: 2.1 GB for
`sum(broadcast_to(x, (5e8,)))`, 3.7 GB for `sum(ones((30000, 30000)))` (JAX:
about 210 MB). relax-fuse-elementwise now drops the loops along which every
term is the same (a sum multiplies the term by their trip count, max/min take
it once), so nothing of the broadcast shape is allocated. The large cases run
in a child process under a 1 GiB address-space limit, where the old code could
not even allocate the array.
"""

from __future__ import annotations

import subprocess
import sys
import textwrap

import numpy as np
import pytest
import relax_mlir
import relax_mlir.numpy as rnp


def run_limited(code: str, limit_bytes: int = 1 << 30) -> str:
    """Runs `code` in a child Python whose address space is limited; its stdout."""
    script = textwrap.dedent(f"""
        import resource
        resource.setrlimit(resource.RLIMIT_AS, ({limit_bytes}, {limit_bytes}))
        import numpy as np
        import relax_mlir
        import relax_mlir.numpy as rnp
    """) + textwrap.dedent(code)
    proc = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                          timeout=300)
    assert proc.returncode == 0, proc.stderr[-3000:]
    return proc.stdout


def test_huge_reductions_of_repeated_values_stay_within_1_gib() -> None:
    out = run_limited("""
        x = np.arange(1, 4, dtype=np.float32)
        print(float(relax_mlir.jit(lambda: rnp.sum(rnp.ones((30000, 30000))))()))
        print(float(relax_mlir.jit(lambda v: rnp.sum(rnp.broadcast_to(v, (500000000,))))(
            np.float32(0.5))))
        print(float(relax_mlir.jit(lambda x: rnp.mean(rnp.broadcast_to(x, (100000000, 3))))(x)))
        print(float(relax_mlir.jit(lambda x: rnp.max(rnp.exp(rnp.broadcast_to(x, (100000000, 3)))))(x)))
        print(float(relax_mlir.jit(lambda: rnp.sum(rnp.full((20000, 20000), 0.25)))()))
    """)
    values = [float(v) for v in out.split()]
    assert values[0] == 9e8
    assert values[1] == 2.5e8
    assert values[2] == 2.0
    assert values[3] == pytest.approx(np.exp(3.0), rel=1e-6)
    assert values[4] == 1e8


@pytest.mark.parametrize("opt_level", [0, 3])
def test_reductions_of_broadcasts_match_numpy(opt_level: int) -> None:
    rng = np.random.default_rng(0)
    x = rng.standard_normal(3).astype(np.float32)
    col = rng.standard_normal((4, 1)).astype(np.float32)

    def fn(x, col):
        b = rnp.broadcast_to(x, (5, 4, 3))
        return (rnp.sum(b), rnp.sum(b, axis=(0, 1)), rnp.mean(b * 2.0, axis=0),
                rnp.max(rnp.tanh(b), axis=1), rnp.min(b + col, axis=0),
                rnp.sum(col * x, axis=1), rnp.sum(rnp.zeros((6, 7)), axis=0),
                rnp.sum(rnp.full((6, 7), 3, dtype=np.int32)),
                rnp.prod(rnp.broadcast_to(x, (2, 3)), axis=0))

    got = relax_mlir.jit(fn, opt_level=opt_level)(x, col)
    x64, c64 = x.astype(np.float64), col.astype(np.float64)
    b = np.broadcast_to(x64, (5, 4, 3))
    want = (b.sum(), b.sum(axis=(0, 1)), (b * 2).mean(axis=0), np.tanh(b).max(axis=1),
            (b + c64).min(axis=0), (c64 * x64).sum(axis=1), np.zeros(7), 126, x64 * x64)
    for i, (g, w) in enumerate(zip(got, want)):
        np.testing.assert_allclose(np.asarray(g, np.float64), w, rtol=2e-6, atol=1e-6,
                                   err_msg=f"result {i}")


def test_gradient_through_a_reduced_broadcast() -> None:
    # d/dx sum(broadcast_to(x, (7, 3)) ** 2) = 14 x; d/dx max over the
    # broadcast axis of x * w = w summed where it is the max.
    x = np.array([1.0, -2.0, 0.5])

    def loss(x):
        b = rnp.broadcast_to(x, (7, 3))
        return rnp.sum(b * b) + rnp.sum(rnp.max(b, axis=0))

    value, grad = relax_mlir.value_and_grad(loss)(x)
    assert value == pytest.approx(7 * np.sum(x * x) + np.sum(x))
    np.testing.assert_allclose(grad, 14 * x + 1, rtol=1e-12)
