"""The GPU lowering without a GPU: every op's adjoint lowers through
`relax-to-nvvm` to kernels in a gpu.binary, and the MLP adjoint's PTX
assembles with ptxas for sm_90 (when CUDA's ptxas is installed)."""

from __future__ import annotations

import re
import shutil
import subprocess

import numpy as np
import pytest
import relax_mlir
from test_ops_gradient import FUNC_NAMES, gradient_inputs, loss_text

from relax_mlir_testing import ops as op_table

OPS = sorted({c.op for c in op_table.TABLE if c.grad_inputs})


def op_adjoints_module(op: str) -> str:
    """Every gradient case of `op` as a loss function with its adjoint."""
    cases = [c for c in op_table.cases_of(op) if c.grad_inputs]
    module = "\n".join(loss_text(op, gradient_inputs(c), c.reference, c.attrs, c.grad_dtype,
                                 c.result_dtype(c.grad_dtype), FUNC_NAMES[c.id])[0]
                       for c in cases)
    for c in cases:
        names = [i.name for i in c.inputs]
        module = relax_mlir.gradient(module, func=FUNC_NAMES[c.id],
                                     require_grads=[names.index(n) for n in c.grad_inputs])
    return str(module)


def op_case_arguments(case: op_table.OpCase, specs: list) -> list[np.ndarray]:
    """The arguments of case `case`'s loss function in `op_adjoints_module`
    (its inputs, then its cotangents), in the parameters' dtypes (`specs`)."""
    from relax_mlir._boundary import NUMPY_DTYPES

    inputs = gradient_inputs(case)
    _, cotangents, _ = loss_text(case.op, inputs, case.reference, case.attrs, case.grad_dtype,
                                 case.result_dtype(case.grad_dtype), FUNC_NAMES[case.id])
    values = [*inputs.values(), *cotangents]
    assert len(values) == len(specs), (case.id, len(values), len(specs))
    return [np.asarray(a, NUMPY_DTYPES[s.element]) for a, s in zip(values, specs)]


@pytest.mark.parametrize("op", OPS)
def test_every_op_adjoint_lowers_to_a_gpu_binary(op: str) -> None:
    lowered = str(relax_mlir.lower(op_adjoints_module(op), "llvm", target="cuda",
                                   gpu_format="isa"))
    assert "gpu.binary" in lowered and ".target sm_90" in lowered
    assert "gpu.launch_func" in lowered
    # Host code is LLVM only: every memory access of the ops runs in a kernel.
    host = re.sub(r"gpu\.binary[^\n]*", "", lowered)
    left = re.findall(r"(?:^|= )\s*\"?((?:memref|linalg|scf|tensor|relax)\.[a-z_]+)", host,
                      re.M)
    assert not left, f"ops left in host code: {sorted(set(left))}"


MLP = """
func.func @main(%x: tensor<64x784xf32>, %w1: tensor<784x128xf32>, %b1: tensor<128xf32>,
                %w2: tensor<128x10xf32>, %b2: tensor<10xf32>, %y: tensor<64xi64>) -> tensor<f32> {
  %0 = relax.matmul %x, %w1 : tensor<64x784xf32>, tensor<784x128xf32> -> tensor<64x128xf32>
  %1 = relax.add %0, %b1 : tensor<64x128xf32>, tensor<128xf32> -> tensor<64x128xf32>
  %2 = relax.relu %1 : tensor<64x128xf32>
  %3 = relax.matmul %2, %w2 : tensor<64x128xf32>, tensor<128x10xf32> -> tensor<64x10xf32>
  %4 = relax.add %3, %b2 : tensor<64x10xf32>, tensor<10xf32> -> tensor<64x10xf32>
  %5 = relax.log_softmax %4 : tensor<64x10xf32>
  %6 = relax.nll_loss %5, %y : tensor<64x10xf32>, tensor<64xi64> -> tensor<f32>
  return %6 : tensor<f32>
}
"""


def _ptxas() -> str | None:
    from relax_mlir import _cuda
    return _cuda.toolkit_ptxas() or shutil.which("ptxas")


def _unescape(text: str) -> str:
    """An MLIR string attribute's text (\\0A, \\22, \\5C, \\09 escapes) as Python text."""
    return re.sub(r"\\([0-9A-Fa-f]{2})", lambda m: chr(int(m[1], 16)), text)


@pytest.mark.skipif(_ptxas() is None, reason="CUDA's ptxas is not installed")
def test_mlp_adjoint_ptx_assembles_for_sm90(tmp_path) -> None:
    lowered = str(relax_mlir.lower(MLP, "llvm", func="main", target="cuda", gpu_format="isa"))
    ptx = [_unescape(m) for m in re.findall(r'assembly = "((?:[^"\\]|\\.)*)"', lowered)]
    assert len(ptx) >= 5, "expected a kernel per fused loop nest of the MLP adjoint"
    # Its matmuls (forward, and both gradients: one operand read transposed)
    # stage tiles in shared memory between barriers.
    tiled = [t for t in ptx if ".shared" in t and "bar.sync" in t]
    assert len(tiled) >= 3, f"{len(tiled)} kernels use shared memory"
    for i, text in enumerate(ptx):
        assert ".target sm_90" in text and "__nv_" not in text.split(".entry")[0]
        path = tmp_path / f"kernel{i}.ptx"
        path.write_text(text)
        run = subprocess.run([_ptxas(), "-arch=sm_90", str(path), "-o", str(tmp_path / "k.cubin")],
                             capture_output=True, text=True, timeout=120)
        assert run.returncode == 0, f"ptxas rejected kernel {i}:\n{run.stderr}"


def test_gpu_options_are_checked() -> None:
    with pytest.raises(ValueError, match="gpu_format"):
        relax_mlir.lower(MLP, "llvm", target="cuda", gpu_format="ptx")
    with pytest.raises(ValueError, match="sm_90"):
        relax_mlir.lower(MLP, "llvm", target="cuda", chip="hopper")
    with pytest.raises(ValueError, match="not available for target='cuda'"):
        relax_mlir.lower(MLP, "vector", target="cuda")
    assert np is not None


def test_cuda_runtime_loads_without_a_driver_and_says_why() -> None:
    from relax_mlir import _cuda

    why = _cuda.driver_status()
    if why is None:
        pytest.skip("a CUDA driver and device are present")
    assert why.startswith("no CUDA driver found") or "no CUDA device" in why
    with pytest.raises(relax_mlir.CUDAError, match="no CUDA driver found|CUDA is not usable"):
        relax_mlir.compile(MLP, target="cuda")
    # Runtime calls without a driver record the reason instead of crashing.
    assert _cuda.runtime().lib.mgpuMemAlloc(64, None, False) is None
    with pytest.raises(relax_mlir.CUDAError, match="allocating"):
        _cuda.check("allocating")
    _cuda.check("nothing pending")  # the error was taken


def test_descriptor_call_boundary_on_the_cpu() -> None:
    """The GPU functions' call boundary (ctypes memref descriptors, inputs then
    out-parameters) run against the CPU build of the same function, with host
    pointers: the same results as the runtime's own boundary."""
    from relax_mlir import _cuda

    # JIT code: its packed entry takes pointers to descriptors, as the GPU
    # host code's (a cached library's takes the descriptors themselves).
    relax_mlir.config.update("enable_compilation_cache", False)
    try:
        exe = relax_mlir.compile(relax_mlir.gradient(MLP.replace("f32", "f64").replace(
            "xi64", "xi64"), require_grads=[1, 2]))
    finally:
        relax_mlir.config.update("enable_compilation_cache", True)
    fn = exe.main_adjoint
    rng = np.random.default_rng(0)
    args = [rng.standard_normal(s.shape) if s.element == "f64" else
            rng.integers(0, 10, s.shape) for _, s in fn.params]
    expected_loss, (expected_w1, expected_b1) = fn(*args)
    outputs = [np.empty(shape, dtype) for shape, dtype in fn._out_leaves]
    arrays = [np.ascontiguousarray(a) for a in args]
    _cuda.call_with_descriptors(fn._address, [a.ctypes.data for a in arrays + outputs],
                                [a.shape for a in arrays + outputs])
    np.testing.assert_array_equal(outputs[0], expected_loss)
    np.testing.assert_array_equal(outputs[1], expected_w1)
    np.testing.assert_array_equal(outputs[2], expected_b1)


@pytest.mark.parametrize("seed", range(40))
def test_random_programs_lower_to_gpu_binaries(seed: int) -> None:
    """Random programs exercise what the op table does not: scalars read from
    one kernel's results and used by later kernels or host code, buffers
    allocated in loops (issue 10's gpu-check found both failing)."""
    from relax_mlir_testing import programs as pg

    program = pg.generate(seed)
    module = relax_mlir.gradient(program.text(), **program.gradient_kwargs())
    lowered = str(relax_mlir.lower(module, "llvm", target="cuda", gpu_format="isa"))
    assert "gpu.binary" in lowered and "gpu.launch_func" in lowered


LONG_REDUCTIONS = """
func.func @main(%x: tensor<64x128x256xf32>, %b: tensor<16x4096xf64>, %t: tensor<2048xf32>)
    -> tensor<f32> {
  %m = relax.mean %x : tensor<64x128x256xf32> -> tensor<f32>
  %s = relax.sum %b {axis = array<i64: 1>} : tensor<16x4096xf64> -> tensor<16xf64>
  %s1 = relax.sum %s : tensor<16xf64> -> tensor<f64>
  %s2 = relax.astype %s1 : tensor<f64> -> tensor<f32>
  %mx = relax.max %t : tensor<2048xf32> -> tensor<f32>
  %a = relax.add %m, %s2 : tensor<f32>, tensor<f32> -> tensor<f32>
  %r = relax.add %a, %mx : tensor<f32>, tensor<f32> -> tensor<f32>
  return %r : tensor<f32>
}
"""


@pytest.mark.skipif(_ptxas() is None, reason="CUDA's ptxas is not installed")
def test_long_reductions_are_block_reductions_that_ptxas_accepts(tmp_path) -> None:
    """Long reductions (and their adjoints) run as one block per output
    element: warp shuffles and a shared-memory exchange, then a barrier."""
    lowered = str(relax_mlir.lower(LONG_REDUCTIONS, "llvm", func="main", target="cuda",
                                   gpu_format="isa"))
    ptx = [_unescape(m) for m in re.findall(r'assembly = "((?:[^"\\]|\\.)*)"', lowered)]
    text = "\n".join(ptx)
    assert "shfl.sync" in text and "bar.sync" in text and ".shared" in text
    for i, kernel in enumerate(ptx):
        path = tmp_path / f"kernel{i}.ptx"
        path.write_text(kernel)
        run = subprocess.run([_ptxas(), "-arch=sm_90", str(path), "-o", str(tmp_path / "k.cubin")],
                             capture_output=True, text=True, timeout=120)
        assert run.returncode == 0, f"ptxas rejected kernel {i}:\n{run.stderr}"


def _constant(value) -> int | None:
    """The integer a `arith.constant` defines, else None."""
    owner = value.owner
    if not hasattr(owner, "name") or owner.name != "arith.constant":
        return None
    return int(str(owner.attributes["value"]).split(":")[0])


def _serial_iterations(block) -> int | None:
    """Loop iterations one thread runs in `block`: each `scf.for` (or
    `scf.parallel` left in a kernel) counts its trip count times its body's
    (at least 1), siblings add up; nested regions
    of other ops count once. None when a loop's bounds are not constants."""
    total = 0
    for op in block.operations:
        op = op.operation
        counts = [_serial_iterations(b) for r in op.regions for b in r.blocks]
        if None in counts:
            return None
        inner = sum(counts)
        if op.name in ("scf.for", "scf.parallel"):
            # scf.parallel inside a kernel runs in the thread: (lbs, ubs, steps).
            rank = 1 if op.name == "scf.for" else len(op.operands) // 3
            bounds = [_constant(op.operands[i]) for i in range(3 * rank)]
            if None in bounds:
                return None
            trips = 1
            for d in range(rank):
                lb, ub, step = bounds[d], bounds[rank + d], bounds[2 * rank + d]
                trips *= max(0, -(-(ub - lb) // step))
            total += trips * max(1, inner)
        else:
            total += inner
    return total


def _launches(module) -> list[tuple[int, int, int | None]]:
    """(blocks, threads per block, loop iterations per thread or None) of
    every `gpu.launch` in `module` (the `kernels` stage)."""
    found = []

    def walk(op) -> None:
        for region in op.regions:
            for block in region.blocks:
                for inner in block.operations:
                    inner = inner.operation
                    if inner.name == "gpu.launch":
                        sizes = [_constant(inner.operands[i]) for i in range(6)]
                        assert None not in sizes, "a launch with unknown sizes"
                        found.append((sizes[0] * sizes[1] * sizes[2],
                                      sizes[3] * sizes[4] * sizes[5],
                                      _serial_iterations(inner.regions[0].blocks[0])))
                    else:
                        walk(inner)

    walk(module.operation)
    return found


@pytest.mark.parametrize("workload", ["mlp", "deep_mlp", "cnn", "transformer_block"])
def test_training_steps_have_no_long_one_thread_kernels(workload: str) -> None:
    """The bench's training steps, at their sizes: every kernel has its
    launch sizes known, and a kernel of one thread runs at most 4096 loop
    iterations, known when compiled (a bias gradient, a column sum, once ran its 128x1024
    additions in one thread: its row loop was outside the parallel one)."""
    import sys
    from pathlib import Path

    bench = str(Path(__file__).resolve().parents[2] / "bench")
    if bench not in sys.path:
        sys.path.insert(0, bench)
    import workloads
    from systems import relax_system

    wl = workloads.get(workload)
    kernels = relax_mlir.lower(relax_system.IR[workload](wl), "kernels", func="main",
                               require_grads=list(wl.grads), target="cuda")
    launches = _launches(kernels)
    assert len(launches) >= 5
    serial = [(b, t, n) for b, t, n in launches if b * t == 1 and (n is None or n > 4096)]
    assert not serial, f"one-thread kernels with long loops (blocks, threads, iterations): {serial}"


def test_kernels_stage_is_for_cuda_only() -> None:
    with pytest.raises(ValueError, match="stage 'kernels' is for target='cuda'"):
        relax_mlir.lower(MLP, "kernels")
    with pytest.raises(ValueError, match="one of relax, adjoint, kernels, llvm"):
        relax_mlir.lower(MLP, "bufferized", target="cuda")


def test_loop_adjoints_lower_to_kernels_launched_from_host_loops() -> None:
    """A scan, a while loop and a cond (forward and adjoint): host loops and
    branches (LLVM control flow on the host) launching the bodies' kernels;
    no memory access of the ops is left in host code."""
    from relax_mlir import lax
    from relax_mlir import numpy as rnp

    def f(w, xs):
        h, _ = lax.scan(lambda h, x: (rnp.tanh(w @ h + x), None), rnp.zeros(16, np.float32), xs)
        h = lax.cond(rnp.sum(h) > 0, lambda h: h * 2.0, lambda h: rnp.sin(h), h)
        h = lax.while_loop(lambda v: rnp.sum(v * v) < 100.0, lambda v: v * 1.5, h,
                           max_iterations=30)
        return rnp.sum(h)

    w, xs = np.zeros((16, 16), np.float32), np.zeros((8, 16), np.float32)
    module = relax_mlir.gradient(relax_mlir.jit(f).lower(w, xs).module())
    lowered = str(relax_mlir.lower(module, "llvm", target="cuda", gpu_format="isa"))
    assert lowered.count("gpu.launch_func") >= 6 and "gpu.binary" in lowered
    host = re.sub(r"gpu\.binary[^\n]*", "", lowered)
    left = re.findall(r"(?:^|= )\s*\"?((?:memref|linalg|scf|tensor|relax)\.[a-z_]+)", host, re.M)
    assert not left, f"ops left in host code: {sorted(set(left))}"
    # The loops stay loops: the host branches back (no unrolling). Everything
    # translates to LLVM IR (a gpu.memcpy of a strided element did not).
    assert re.search(r"llvm\.cond_br", host)
    assert "unrealized_conversion_cast" not in host
