"""Running on an NVIDIA GPU (marker `gpu`; skipped without a driver and a
device): every op's adjoint, random programs and the MLP/CNN adjoints give
the CPU's results."""

from __future__ import annotations

import numpy as np
import op_table
import program_gen as pg
import pytest
import relax_mlir
from relax_mlir import _cuda
from test_gpu_lowering import MLP, OPS, op_adjoints_module, op_case_arguments
from test_ops_gradient import FUNC_NAMES

pytestmark = [pytest.mark.gpu,
              pytest.mark.skipif(_cuda.driver_status() is not None,
                                 reason=f"no usable GPU: {_cuda.driver_status()}")]


def assert_same(gpu: object, cpu: object, rtol: float = 1e-6, atol: float = 1e-9) -> None:
    if isinstance(cpu, tuple):
        assert isinstance(gpu, tuple) and len(gpu) == len(cpu)
        for g, c in zip(gpu, cpu):
            assert_same(g, c, rtol, atol)
        return
    np.testing.assert_allclose(np.asarray(gpu), np.asarray(cpu), rtol=rtol, atol=atol)


@pytest.mark.parametrize("op", OPS)
def test_op_adjoints_match_the_cpu(op: str) -> None:
    module = op_adjoints_module(op)
    cpu, gpu = relax_mlir.compile(module), relax_mlir.compile(module, target="cuda")
    for case in (c for c in op_table.cases_of(op) if c.grad_inputs):
        name = f"{FUNC_NAMES[case.id]}_adjoint"
        args = op_case_arguments(case, [s for _, s in cpu[name].params])
        assert_same(gpu[name](*args), cpu[name](*args))


@pytest.mark.parametrize("seed", range(20))
def test_random_programs_match_the_cpu(seed: int) -> None:
    program = pg.generate(seed)
    module = relax_mlir.gradient(program.text(), **program.gradient_kwargs())
    name = f"{program.func}_adjoint"
    cpu = relax_mlir.compile(module)[name](*program.args)
    gpu = relax_mlir.compile(module, target="cuda")[name](*program.args)
    assert_same(gpu, cpu, rtol=1e-5, atol=1e-7)


def test_mlp_adjoint_matches_the_cpu() -> None:
    module = relax_mlir.gradient(MLP)
    rng = np.random.default_rng(0)
    fn = relax_mlir.compile(module).main_adjoint
    args = [rng.standard_normal(s.shape).astype(np.float32) if s.element == "f32"
            else rng.integers(0, 10, s.shape) for _, s in fn.params]
    gpu = relax_mlir.compile(module, target="cuda").main_adjoint(*args)
    assert_same(gpu, fn(*args), rtol=1e-4, atol=1e-6)


def test_cnn_adjoint_matches_the_cpu() -> None:
    import relax_mlir.nn as nn
    from relax_mlir.demo import cnn, init_cnn, make_loss

    params = {k: v.astype(np.float32) for k, v in init_cnn(np.random.default_rng(0)).items()}
    images = np.random.default_rng(1).standard_normal((8, 1, 8, 8)).astype(np.float32)
    labels = np.arange(8) % 10
    module = relax_mlir.grad(make_loss(cnn)).lower(params, images, labels).module("adjoint")
    cpu = relax_mlir.compile(module).main_adjoint
    gpu = relax_mlir.compile(module, target="cuda").main_adjoint
    leaves = [params[k] for k in sorted(params)] + [images, labels]
    assert_same(gpu(*leaves), cpu(*leaves), rtol=1e-4, atol=1e-6)
    assert nn is not None
