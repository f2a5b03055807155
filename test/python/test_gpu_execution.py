"""The GPU pipeline's kernels give the CPU's results: every op's adjoint,
random programs and the MLP/CNN adjoints. Each test runs twice: on the
emulator (`target="cuda-emulator"`: the same kernels run on the CPU thread
by thread between barriers, so their indexing, tiling, shared memory and
block reductions are checked on every machine) and on an NVIDIA GPU
(marker `gpu`; skipped without a driver and a device)."""

from __future__ import annotations

import numpy as np
import pytest
import relax_mlir
from relax_mlir import _cuda
from test_gpu_lowering import MLP, OPS, op_adjoints_module, op_case_arguments
from test_ops_gradient import FUNC_NAMES

from relax_mlir_testing import ops as op_table
from relax_mlir_testing import programs as pg

TARGETS = [
    "cuda-emulator",
    pytest.param("cuda", marks=[
        pytest.mark.gpu,
        pytest.mark.skipif(_cuda.driver_status() is not None,
                           reason=f"no usable GPU: {_cuda.driver_status()}")]),
]


@pytest.fixture(params=TARGETS)
def target(request: pytest.FixtureRequest) -> str:
    return request.param


def assert_same(gpu: object, cpu: object, rtol: float = 1e-6, atol: float = 1e-9) -> None:
    if isinstance(cpu, tuple):
        assert isinstance(gpu, tuple) and len(gpu) == len(cpu)
        for g, c in zip(gpu, cpu):
            assert_same(g, c, rtol, atol)
        return
    np.testing.assert_allclose(np.asarray(gpu), np.asarray(cpu), rtol=rtol, atol=atol)


@pytest.mark.parametrize("op", OPS)
def test_op_adjoints_match_the_cpu(op: str, target: str) -> None:
    module = op_adjoints_module(op)
    cpu, gpu = relax_mlir.compile(module), relax_mlir.compile(module, target=target)
    for case in (c for c in op_table.cases_of(op) if c.grad_inputs):
        name = f"{FUNC_NAMES[case.id]}_adjoint"
        args = op_case_arguments(case, [s for _, s in cpu[name].params])
        assert_same(gpu[name](*args), cpu[name](*args))


@pytest.mark.parametrize("seed", range(20))
def test_random_programs_match_the_cpu(seed: int, target: str) -> None:
    program = pg.generate(seed)
    module = relax_mlir.gradient(program.text(), **program.gradient_kwargs())
    name = f"{program.func}_adjoint"
    cpu = relax_mlir.compile(module)[name](*program.args)
    gpu = relax_mlir.compile(module, target=target)[name](*program.args)
    assert_same(gpu, cpu, rtol=1e-5, atol=1e-7)


def leaves(value: object) -> list[np.ndarray]:
    if isinstance(value, tuple):
        return [leaf for item in value for leaf in leaves(item)]
    return [np.asarray(value, np.float64)]


def assert_near_float64(got: object, want: object, what: str, scale: float = 2e-5) -> None:
    """Each array of `got` (f32) within `scale` of the largest magnitude of
    the same array of `want` (the float64 program): two f32 orders of
    summation (the GPU's and the CPU schedule's blocks) differ by rounding,
    which a comparison of one with the other at 1e-6 confused with errors."""
    for i, (g, w) in enumerate(zip(leaves(got), leaves(want), strict=True)):
        bound = scale * max(1.0, float(np.abs(w).max(initial=0.0)))
        err = float(np.abs(g - w).max(initial=0.0))
        assert err <= bound, f"{what} result {i}: max error {err:.3g} > {bound:.3g}"


def test_mlp_adjoint_matches_the_cpu(target: str) -> None:
    module = relax_mlir.gradient(MLP)
    rng = np.random.default_rng(0)
    fn = relax_mlir.compile(module).main_adjoint
    args = [rng.standard_normal(s.shape).astype(np.float32) if s.element == "f32"
            else rng.integers(0, 10, s.shape) for _, s in fn.params]
    gpu = relax_mlir.compile(module, target=target).main_adjoint(*args)
    exact = relax_mlir.compile(relax_mlir.gradient(MLP.replace("f32", "f64"))).main_adjoint(
        *[a.astype(np.float64) if a.dtype == np.float32 else a for a in args])
    assert_near_float64(gpu, exact, target)
    assert_near_float64(fn(*args), exact, "cpu")


def test_cnn_adjoint_matches_the_cpu(target: str) -> None:
    import relax_mlir.nn as nn
    from relax_mlir.demo import cnn, init_cnn, make_loss

    params = {k: v.astype(np.float32) for k, v in init_cnn(np.random.default_rng(0)).items()}
    images = np.random.default_rng(1).standard_normal((8, 1, 8, 8)).astype(np.float32)
    labels = np.arange(8) % 10
    module = relax_mlir.grad(make_loss(cnn)).lower(params, images, labels).module("adjoint")
    cpu = relax_mlir.compile(module).main_adjoint
    gpu = relax_mlir.compile(module, target=target).main_adjoint
    args = [params[k] for k in sorted(params)] + [images, labels]
    params64 = {k: v.astype(np.float64) for k, v in params.items()}
    images64 = images.astype(np.float64)
    exact = relax_mlir.compile(relax_mlir.grad(make_loss(cnn)).lower(
        params64, images64, labels).module("adjoint")).main_adjoint(
        *([params64[k] for k in sorted(params)] + [images64, labels]))
    assert_near_float64(gpu(*args), exact, target)
    assert_near_float64(cpu(*args), exact, "cpu")
    assert nn is not None


# Kernels the op tables' small shapes do not reach: contractions tiled
# through shared memory (>= 1024 outputs, k >= 16; ragged so that every tile
# edge is a bound; 64x64 tiles, 4 KiB of shared memory per operand, when
# there are enough of them) and block reductions (extent >= 1024). Each is checked
# against numpy in float64, and its PTX for the mark of its kernel.
KERNEL_CASES = {
    "matmul_ragged": (lambda xp, a, b: a @ b, [(45, 37), (37, 70)], "float32", ".shared"),
    "matmul_lhs_transposed": (lambda xp, a, b: a.T @ b, [(37, 45), (37, 70)], "float32",
                              ".shared"),
    "matmul_rhs_transposed": (lambda xp, a, b: a @ b.T, [(45, 37), (70, 37)], "float32",
                              ".shared"),
    "batch_matmul": (lambda xp, a, b: a @ b, [(3, 33, 20), (3, 20, 40)], "float32", ".shared"),
    "matmul_f64": (lambda xp, a, b: a @ b, [(40, 17), (17, 33)], "float64", ".shared"),
    # >= 264 64x64 output tiles: 4x4 outputs per thread (ragged in m, n, k).
    "matmul_wide_tiles": (lambda xp, a, b: a @ b, [(1030, 37), (37, 1100)], "float32",
                          ".b8 __wg_main_kernel_0[4096]"),
    "batch_matmul_wide_tiles": (lambda xp, a, b: a @ b.transpose(0, 2, 1),
                                [(24, 200, 20), (24, 170, 20)], "float32",
                                ".b8 __wg_main_kernel_0[4096]"),
    "sum_all": (lambda xp, x: xp.sum(x), [(5003,)], "float32", "shfl.sync"),
    "max_rows": (lambda xp, x: xp.max(x, axis=1), [(3, 2100)], "float32", "shfl.sync"),
    "min_columns": (lambda xp, x: xp.min(x, axis=0), [(1500, 2)], "float64", "shfl.sync"),
    "sum_int": (lambda xp, x: xp.sum(x), [(4099,)], "int32", "shfl.sync"),
}


def kernel_module(name: str) -> tuple[object, list[np.ndarray]]:
    import relax_mlir.numpy as rnp

    fn, shapes, dtype, _ = KERNEL_CASES[name]
    rng = np.random.default_rng(len(name))
    args = [rng.integers(-50, 50, s).astype(dtype) if dtype == "int32"
            else rng.standard_normal(s).astype(dtype) for s in shapes]
    module = relax_mlir.jit(lambda *xs: fn(rnp, *xs)).lower(*args).module("relax")
    return module, args


@pytest.mark.parametrize("name", KERNEL_CASES)
def test_kernels_match_numpy(name: str, target: str) -> None:
    fn, _, dtype, mark = KERNEL_CASES[name]
    module, args = kernel_module(name)
    ptx = str(relax_mlir.lower(module, "llvm", target="cuda", gpu_format="isa"))
    assert mark in ptx, f"{name} does not use its kernel ({mark})"
    result = relax_mlir.compile(module, target=target).main(*args)
    expected = fn(np, *[a.astype(np.float64) if dtype != "int32" else a for a in args])
    tolerance = 1e-4 if dtype == "float32" else 1e-10
    np.testing.assert_allclose(np.asarray(result), expected, rtol=tolerance, atol=tolerance)


# The emulator itself: a shared-memory matmul kernel (from
# relax-gpu-shared-contractions) checked against linalg.matmul in one
# function that returns the largest difference. The inputs are small
# integers, so any correct schedule is exact.
TILED_MATMUL = """
#a = affine_map<(m, n, k) -> (m, k)>
#b = affine_map<(m, n, k) -> (k, n)>
#c = affine_map<(m, n, k) -> (m, n)>
#id = affine_map<(i, j) -> (i, j)>
func.func @main() -> f32 attributes {llvm.emit_c_interface} {
  %a = memref.alloc() : memref<45x37xf32>
  %b = memref.alloc() : memref<37x70xf32>
  %c = memref.alloc() : memref<45x70xf32>
  %r = memref.alloc() : memref<45x70xf32>
  %e = memref.alloc() : memref<f32>
  %zero = arith.constant 0.0 : f32
  %c3 = arith.constant 3 : index
  %c7 = arith.constant 7 : index
  %c11 = arith.constant 11 : index
  %five = arith.constant 5.0 : f32
  linalg.generic {indexing_maps = [#id], iterator_types = ["parallel", "parallel"]}
      outs(%a : memref<45x37xf32>) {
  ^bb0(%o: f32):
    %i = linalg.index 0 : index
    %k = linalg.index 1 : index
    %i3 = arith.muli %i, %c3 : index
    %k7 = arith.muli %k, %c7 : index
    %s = arith.addi %i3, %k7 : index
    %m = arith.remui %s, %c11 : index
    %v = arith.index_cast %m : index to i32
    %f = arith.sitofp %v : i32 to f32
    %g = arith.subf %f, %five : f32
    linalg.yield %g : f32
  }
  linalg.generic {indexing_maps = [#id], iterator_types = ["parallel", "parallel"]}
      outs(%b : memref<37x70xf32>) {
  ^bb0(%o: f32):
    %k = linalg.index 0 : index
    %n = linalg.index 1 : index
    %k3 = arith.muli %k, %c3 : index
    %s = arith.addi %k3, %n : index
    %m = arith.remui %s, %c7 : index
    %v = arith.index_cast %m : index to i32
    %f = arith.sitofp %v : i32 to f32
    %g = arith.subf %f, %five : f32
    linalg.yield %g : f32
  }
  linalg.fill ins(%zero : f32) outs(%c : memref<45x70xf32>)
  linalg.fill ins(%zero : f32) outs(%r : memref<45x70xf32>)
  linalg.fill ins(%zero : f32) outs(%e : memref<f32>)
  linalg.generic {indexing_maps = [#a, #b, #c],
                  iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%a, %b : memref<45x37xf32>, memref<37x70xf32>) outs(%c : memref<45x70xf32>) {
  ^bb0(%x: f32, %y: f32, %acc: f32):
    %p = arith.mulf %x, %y : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  }
  linalg.matmul ins(%a, %b : memref<45x37xf32>, memref<37x70xf32>)
                outs(%r : memref<45x70xf32>)
  linalg.generic {indexing_maps = [#id, #id, affine_map<(i, j) -> ()>],
                  iterator_types = ["reduction", "reduction"]}
      ins(%c, %r : memref<45x70xf32>, memref<45x70xf32>) outs(%e : memref<f32>) {
  ^bb0(%x: f32, %y: f32, %m: f32):
    %d = arith.subf %x, %y : f32
    %abs = math.absf %d : f32
    %n = arith.maximumf %m, %abs : f32
    linalg.yield %n : f32
  }
  %error = memref.load %e[] : memref<f32>
  return %error : f32
}
"""


def emulated_matmul_error(erase_barrier: int | None = None, reverse: bool = False,
                          wide: bool = False) -> float:
    """TILED_MATMUL's largest error with its kernel emulated, after erasing
    the kernel's `erase_barrier`-th gpu.barrier (0: after staging the
    tiles; 1: before staging the next ones); `wide`: 64x64 output tiles."""
    import ctypes

    from relax_mlir import _libs, ir
    from relax_mlir._mlir_libs._mlirExecutionEngine import ExecutionEngine
    from relax_mlir._module import run_passes
    from relax_mlir.errors import CompilationError

    with ir.Context():
        module = ir.Module.parse(TILED_MATMUL)
        run_passes(module, "builtin.module(func.func(relax-gpu-shared-contractions{"
                           f"wide-tile-min-blocks={1 if wide else 1 << 40}}}))",
                   CompilationError, "tiling")
        assert ("memref<64x16xf32" in str(module)) == wide
        barriers: list[ir.Operation] = []

        def collect(op: ir.Operation) -> ir.WalkResult:
            if op.name == "gpu.barrier":
                barriers.append(op)
            return ir.WalkResult.ADVANCE

        module.operation.walk(collect)
        assert len(barriers) == 2
        if erase_barrier is not None:
            barriers[erase_barrier].erase()
        run_passes(module, f"builtin.module(func.func(relax-gpu-emulate{{reverse={int(reverse)}}}),"
                           f"relax-to-llvm{{from-stage=bufferized opt-level=0}})",
                   CompilationError, "emulating")
        engine = ExecutionEngine(module, opt_level=2, shared_libs=[_libs.c_runner_utils()])
        error = (ctypes.c_float * 1)(-1.0)
        main = ctypes.CFUNCTYPE(None, ctypes.c_void_p)(engine.raw_lookup("main"))
        main((ctypes.c_void_p * 1)(ctypes.cast(error, ctypes.c_void_p)))
        return float(error[0])


@pytest.mark.parametrize("wide", [False, True])
@pytest.mark.parametrize("reverse", [False, True])
def test_emulated_tiled_matmul_is_exact(reverse: bool, wide: bool) -> None:
    assert emulated_matmul_error(reverse=reverse, wide=wide) == 0.0


@pytest.mark.parametrize("wide", [False, True])
@pytest.mark.parametrize("barrier", [0, 1])
@pytest.mark.parametrize("reverse", [False, True])
def test_emulator_shows_a_missing_barrier(barrier: int, reverse: bool, wide: bool) -> None:
    # Without the first barrier a thread reads tile elements other threads
    # have not staged yet; without the second, a thread stages the next
    # tile while others still read this one. (NaN counts: unstaged shared
    # memory holds whatever was there.)
    assert emulated_matmul_error(barrier, reverse, wide) != 0.0


def test_loops_and_branches_run_as_host_control_flow_around_kernels(target: str) -> None:
    """The adjoint of a scan, a while loop (reversed as guarded steps) and a
    cond: their bodies' kernels are launched from host loops, and the
    conditions are read back from device memory."""
    from relax_mlir import lax
    from relax_mlir import numpy as rnp

    def f(w, xs):
        h, ys = lax.scan(lambda h, x: (rnp.tanh(w @ h + x), rnp.sum(h)), rnp.zeros(8, np.float64), xs)
        z = lax.cond(rnp.sum(h) > 0, lambda h: h * 2.0, lambda h: rnp.sin(h), h)
        z = lax.while_loop(lambda v: rnp.sum(v * v) < 100.0, lambda v: v * 1.5 + 0.1, z,
                           max_iterations=20, checkpoint_every=3)
        return rnp.sum(z) + rnp.sum(ys)

    rng = np.random.default_rng(29)
    w, xs = rng.uniform(-0.5, 0.5, (8, 8)), rng.uniform(-1, 1, (5, 8))
    module = relax_mlir.gradient(relax_mlir.jit(f).lower(w, xs).module())
    cpu = relax_mlir.compile(module)["main_adjoint"](w, xs)
    gpu = relax_mlir.compile(module, target=target)["main_adjoint"](w, xs)
    assert_same(gpu, cpu, rtol=1e-9, atol=1e-12)
