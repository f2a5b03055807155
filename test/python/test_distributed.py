"""Data parallelism across processes (relax_mlir.distributed and the gradient
pass's data-parallel option), with `mpirun -np 2` on this machine: the
gradient of a global batch split over two ranks equals the one-process
gradient of the whole batch, and a rank that raises ends the job, named."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import time

import numpy as np
import pytest
import relax_mlir
import relax_mlir.numpy as rnp

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from distributed_worker import global_batch, mlp_loss  # noqa: E402

MPIRUN = shutil.which("mpirun")
pytestmark = pytest.mark.skipif(MPIRUN is None, reason="no mpirun (apt install openmpi-bin)")


def mpirun(scenario: str, out: str, ranks: int = 2,
           timeout: float = 120) -> subprocess.CompletedProcess:
    env = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1",
               OMPI_MCA_rmaps_base_oversubscribe="1")
    return subprocess.run([MPIRUN, "-np", str(ranks), sys.executable,
                           os.path.join(HERE, "distributed_worker.py"), scenario, out],
                          capture_output=True, text=True, timeout=timeout, env=env)


def test_two_ranks_get_the_gradient_of_the_global_batch(tmp_path) -> None:
    run = mpirun("gradients", str(tmp_path))
    assert run.returncode == 0, run.stdout + run.stderr
    ranks = [dict(np.load(tmp_path / f"rank{r}.npz")) for r in range(2)]
    for key in ranks[0]:  # every rank holds the same reduced values, bit for bit
        np.testing.assert_array_equal(ranks[0][key], ranks[1][key], err_msg=key)
    for dtype, rtol in ((np.float64, 1e-12), (np.float32, 1e-6)):
        params, x, y = global_batch(dtype)
        loss, grads = relax_mlir.value_and_grad(mlp_loss)(params, x, y)
        name = np.dtype(dtype).name
        np.testing.assert_allclose(ranks[0][f"loss_{name}"], loss, rtol=rtol)
        for k, g in grads.items():
            assert ranks[0][f"{k}_{name}"].dtype == dtype
            np.testing.assert_allclose(ranks[0][f"{k}_{name}"], g, rtol=rtol,
                                       atol=rtol * np.abs(g).max(), err_msg=k)
    # data_parallel="sum": the sum of the two shards' mean-loss gradients.
    params, x, y = global_batch(np.float64)
    halves = [relax_mlir.grad(mlp_loss)(params, x[i * 8:(i + 1) * 8], y[i * 8:(i + 1) * 8])
              for i in range(2)]
    for k in params:
        np.testing.assert_allclose(ranks[0][f"{k}_sum"], halves[0][k] + halves[1][k],
                                   rtol=1e-12, atol=1e-15)


def test_fifty_adam_steps_keep_the_ranks_bitwise_equal_and_match_one_process(
        tmp_path) -> None:
    """After 50 data-parallel adam steps (in place) on two ranks, both hold
    the same bits, and the one-process run on the whole batch agrees within
    float32 rounding."""
    from relax_mlir import optim

    run = mpirun("adam_steps", str(tmp_path))
    assert run.returncode == 0, run.stdout + run.stderr
    ranks = [dict(np.load(tmp_path / f"rank{r}.npz")) for r in range(2)]
    params, x, y = global_batch(np.float32)
    opt = optim.adam(0.01)
    state = opt.init(params)
    step = relax_mlir.value_and_grad(mlp_loss)
    for _ in range(50):
        _, grads = step(params, x, y)
        updates, state = opt.update(grads, state, params)
        params = optim.apply_updates(params, updates)
    for k, v in params.items():
        np.testing.assert_array_equal(ranks[0][k], ranks[1][k], err_msg=k)
        np.testing.assert_allclose(ranks[0][k], v, rtol=1e-5, atol=1e-6, err_msg=k)


def test_a_rank_that_raises_ends_the_job_naming_it(tmp_path) -> None:
    start = time.monotonic()
    run = mpirun("raises", str(tmp_path), timeout=60)
    elapsed = time.monotonic() - start
    assert run.returncode != 0
    assert elapsed < 30, elapsed
    assert "rank 1 of 2 raised an uncaught exception; aborting the MPI job" in run.stderr
    assert "a failure in the middle of a step" in run.stderr


def test_a_rank_that_is_killed_ends_the_job_naming_it(tmp_path) -> None:
    """A rank killed by SIGKILL (no Python left to report) mid-step: mpirun
    ends the job and names the rank; the other does not wait forever in the
    all-reduce."""
    start = time.monotonic()
    run = mpirun("dies", str(tmp_path), timeout=60)
    assert run.returncode != 0
    assert time.monotonic() - start < 30
    assert "process rank 1" in run.stdout + run.stderr
    assert "signal 9" in run.stdout + run.stderr


def test_one_process_data_parallel_is_the_plain_gradient() -> None:
    """A job of one process (no mpirun: MPI's singleton): the all-reduces
    are the identity, and the result is the plain gradient."""
    params, x, y = global_batch(np.float64)
    loss, grads = relax_mlir.value_and_grad(mlp_loss, data_parallel="mean")(params, x, y)
    want_loss, want = relax_mlir.value_and_grad(mlp_loss)(params, x, y)
    np.testing.assert_allclose(loss, want_loss, rtol=1e-15)
    for k in params:
        np.testing.assert_allclose(grads[k], want[k], rtol=1e-15)


def test_bad_options_and_a_missing_mpi4py_say_what_to_do() -> None:
    with pytest.raises(ValueError, match=r"^\S*test_distributed.py:\d+:\d+: grad: data_parallel "
                                         r"must be None, 'mean' or 'sum', got 'avg'"):
        relax_mlir.grad(mlp_loss, data_parallel="avg")
    code = ("import sys; sys.modules['mpi4py'] = None\n"
            "import numpy as np, relax_mlir, relax_mlir.numpy as rnp\n"
            "try:\n"
            "    relax_mlir.grad(lambda w: rnp.sum(w * w), data_parallel='mean')(np.ones(3))\n"
            "except ImportError as e:\n"
            "    print(e)\n")
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         timeout=300)
    assert run.returncode == 0, run.stderr
    assert "relax_mlir.distributed needs mpi4py" in run.stdout
    assert "pip install 'relax-mlir[mpi]'" in run.stdout


def test_the_gpu_lowering_refuses_collectives() -> None:
    f = relax_mlir.grad(lambda w: rnp.sum(w * w), data_parallel="mean")
    module = f.lower(np.ones(3)).module("adjoint")
    assert "relax.all_reduce" in str(module)
    with pytest.raises(relax_mlir.CompilationError, match="CPU only"):
        relax_mlir.lower(module, "llvm", target="cuda")


def test_the_data_parallel_demo_agrees_with_one_process() -> None:
    """`mpirun -np 2 python -m relax_mlir.demo --data-parallel` trains to the
    loss and accuracy of the one-process run, and every rank reports its
    throughput."""
    env = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1",
               OMPI_MCA_rmaps_base_oversubscribe="1")
    demo = [sys.executable, "-m", "relax_mlir.demo", "--data-parallel", "--models", "mlp",
            "--epochs", "1"]
    runs = [subprocess.run(command, capture_output=True, text=True, timeout=300, env=env)
            for command in (demo, [MPIRUN, "-np", "2", *demo])]
    finals = []
    for run in runs:
        assert run.returncode == 0, run.stdout + run.stderr
        final = [line.split() for line in run.stdout.splitlines() if "mlp final" in line]
        assert len(final) == 1, run.stdout
        finals.append((float(final[0][3]), float(final[0][6])))
    assert "rank 1:" in runs[1].stdout and "images/s" in runs[1].stdout
    (loss1, acc1), (loss2, acc2) = finals
    assert abs(loss1 - loss2) <= 1e-5 * abs(loss1) and acc1 == acc2, finals


def test_data_parallel_code_is_cached_and_exported_with_its_mpi_library(tmp_path) -> None:
    """A library with collectives links the MPI library mpi4py loaded (the
    compilation cache keeps it: before, its link failed on the undefined MPI
    symbols and every compile fell back to the JIT), and loading an export
    initializes MPI in a process without LLVM."""
    f = relax_mlir.grad(lambda w: rnp.sum(w * w), data_parallel="mean")
    w = np.arange(3, dtype=np.float32)
    exe = relax_mlir.compile(f.lower(w).module("adjoint"))
    assert exe.cache_path is not None
    path = str(tmp_path / "data_parallel.so")
    f.lower(w).export(path)
    code = ("import numpy as np, relax_mlir.runtime as rt\n"
            f"lib = rt.load({path!r})\n"
            "print(lib.main_adjoint(np.arange(3, dtype=np.float32)))\n")
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         timeout=300, env=dict(os.environ,
                                               RELAX_MLIR_LLVM_LIBRARY_DIR="/nonexistent"))
    assert run.returncode == 0, run.stderr
    assert "[0. 2. 4.]" in run.stdout


VIEWS = """
func.func @main(%x: tensor<4x6xf32>, %e: tensor<0x3xf32>, %o: tensor<1x1xf32>, %b: tensor<3xf32>)
    -> tuple<tensor<3x4xf32>, tensor<0x3xf32>, tensor<1x1xf32>, tensor<2x3xf32>> {
  %s = relax.strided_slice %x {axes = array<i64: 1>, begin = array<i64: 0>, end = array<i64: 6>, strides = array<i64: 2>} : tensor<4x6xf32> -> tensor<4x3xf32>
  %t = relax.permute_dims %s : tensor<4x3xf32> -> tensor<3x4xf32>
  %r = relax.all_reduce %t : tensor<3x4xf32>
  %re = relax.all_reduce %e : tensor<0x3xf32>
  %ro = relax.all_reduce %o : tensor<1x1xf32>
  %bb = relax.broadcast_to %b : tensor<3xf32> -> tensor<2x3xf32>
  %rb = relax.all_reduce %bb : tensor<2x3xf32>
  %out = relax.tuple(%r, %re, %ro, %rb : tensor<3x4xf32>, tensor<0x3xf32>, tensor<1x1xf32>, tensor<2x3xf32>)
  return %out : tuple<tensor<3x4xf32>, tensor<0x3xf32>, tensor<1x1xf32>, tensor<2x3xf32>>
}
"""


@pytest.mark.parametrize("opt_level", [0, 1, 2, 3])
def test_all_reduce_reads_views_and_small_dims_at_every_opt_level(opt_level: int) -> None:
    """relax.all_reduce of a strided, transposed view, a broadcast, a size-0
    and a size-1 tensor: in a one-process job each is its operand's value."""
    x = np.arange(24, dtype=np.float32).reshape(4, 6)
    e, o = np.zeros((0, 3), np.float32), np.full((1, 1), 7.0, np.float32)
    b = np.array([1.0, 2.0, 3.0], np.float32)
    r, re, ro, rb = relax_mlir.compile(VIEWS, opt_level=opt_level).main(x, e, o, b)
    np.testing.assert_array_equal(r, x[:, ::2].T)
    assert re.shape == (0, 3)
    np.testing.assert_array_equal(ro, o)
    np.testing.assert_array_equal(rb, np.broadcast_to(b, (2, 3)))
