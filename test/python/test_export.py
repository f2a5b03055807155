"""Ahead-of-time export: `Executable.export` / `relax_mlir.export` write one
shared library; `relax_mlir.runtime.load` calls it with numpy, in a process
that never loads libMLIR or the compiled extension, with compile()'s results."""

from __future__ import annotations

import os
import subprocess
import sys

import numpy as np
import program_gen as pg
import pytest
import relax_mlir
import relax_mlir.runtime as rt
from relax_testing import describe_process
from test_gpu_lowering import MLP


def mlp_arguments(fn: relax_mlir.Function) -> list[np.ndarray]:
    rng = np.random.default_rng(0)
    return [rng.standard_normal(s.shape).astype(np.float32) if s.element == "f32"
            else rng.integers(0, 10, s.shape) for _, s in fn.params]


def assert_equal(got: object, want: object) -> None:
    if isinstance(want, tuple):
        assert isinstance(got, tuple) and len(got) == len(want)
        for g, w in zip(got, want):
            assert_equal(g, w)
        return
    assert isinstance(got, np.ndarray) and got.dtype == np.asarray(want).dtype
    np.testing.assert_array_equal(got, want)


# Runs in a fresh interpreter whose only relax_mlir is the copied loader.
ISOLATED = """
import sys
import numpy as np
import relax_mlir.runtime as rt

lib = rt.load(sys.argv[1])
data = np.load(sys.argv[2])
args = [data[f"arg{i}"] for i in range(int(data["nargs"]))]
loss, grads = lib.main_adjoint(*args)
assert loss.dtype == np.float32 and loss.shape == ()
np.testing.assert_array_equal(loss, data["loss"])
for i, g in enumerate(grads):
    np.testing.assert_array_equal(g, data[f"grad{i}"])
loaded = [m for m in sys.modules if m.startswith("relax_mlir.")]
assert sorted(loaded) == ["relax_mlir._boundary", "relax_mlir._cuda", "relax_mlir._libs",
                          "relax_mlir.errors", "relax_mlir.runtime"], loaded
with open("/proc/self/maps") as f:
    maps = f.read()
assert "libMLIR" not in maps and "_mlir_libs" not in maps and "libRelaxMLIR" not in maps
print("ok", lib.target, lib.cpu)
"""


def test_exported_mlp_runs_without_mlir_with_compile_results(tmp_path) -> None:
    module = relax_mlir.gradient(MLP)
    exe = relax_mlir.compile(module)
    fn = exe.main_adjoint
    args = mlp_arguments(fn)
    loss, grads = fn(*args)
    library = exe.export(tmp_path / "mlp.so")
    assert library == str(tmp_path / "mlp.so") and os.path.getsize(library) < 4 << 20
    np.savez(tmp_path / "data.npz", nargs=len(args), loss=loss,
             **{f"arg{i}": a for i, a in enumerate(args)},
             **{f"grad{i}": g for i, g in enumerate(grads)})
    loader = tmp_path / "loader"
    rt.copy_loader(loader)
    (tmp_path / "check.py").write_text(ISOLATED)
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTHON", "RELAX_MLIR"))}
    env["PYTHONPATH"] = str(loader)
    proc = subprocess.run([sys.executable, "-X", "faulthandler", str(tmp_path / "check.py"),
                           library, str(tmp_path / "data.npz")], cwd=tmp_path, env=env,
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0 and proc.stdout.startswith("ok cpu"), describe_process(proc)


@pytest.mark.parametrize("seed", range(8))
def test_exported_random_programs_match_compile(tmp_path, seed: int) -> None:
    program = pg.generate(seed)
    module = relax_mlir.gradient(program.text(), **program.gradient_kwargs())
    exe = relax_mlir.compile(module)
    lib = rt.load(exe.export(tmp_path / f"p{seed}.so"))
    assert lib.function_names == exe.function_names
    for name in exe.function_names:
        assert lib[name].params == exe[name].params and lib[name].result == exe[name].result
        assert_equal(lib[name](*program.args), exe[name](*program.args))


TUPLES = """
func.func @swap(%t: tuple<tensor<2xf32>, tuple<tensor<3xi64>>> {relax.name = "pair"},
                %s: tensor<f64> {relax.name = "scale"})
    -> tuple<tuple<tensor<3xi64>>, tensor<2xf32>> {
  %a = relax.tuple_get_item %t[0] : tuple<tensor<2xf32>, tuple<tensor<3xi64>>>
  %b = relax.tuple_get_item %t[1] : tuple<tensor<2xf32>, tuple<tensor<3xi64>>>
  %c = relax.astype %s : tensor<f64> -> tensor<f32>
  %d = relax.multiply %a, %c : tensor<2xf32>, tensor<f32> -> tensor<2xf32>
  %r = relax.tuple(%b, %d : tuple<tensor<3xi64>>, tensor<2xf32>)
  return %r : tuple<tuple<tensor<3xi64>>, tensor<2xf32>>
}
"""


def test_exported_functions_bind_and_check_arguments_as_compile_does(tmp_path) -> None:
    exe = relax_mlir.compile(TUPLES)
    lib = rt.load(relax_mlir.export(TUPLES, tmp_path / "tuples.so"))
    pair = (np.array([1.5, -2.0], np.float32), (np.arange(3),))
    (ints,), floats = lib.swap(scale=np.float64(2.0), pair=pair)
    np.testing.assert_array_equal(ints, [0, 1, 2])
    np.testing.assert_array_equal(floats, [3.0, -4.0])
    assert_equal(lib.swap(pair, np.float64(2.0)), exe.swap(pair, np.float64(2.0)))
    assert "relax_mlir.runtime.Function swap(pair: tuple<tensor<2xf32>" in repr(lib.swap)
    # The same errors, word for word, as compile()'s functions.
    bad_calls = [((pair,), {}), ((pair, np.float32(2.0)), {}),
                 (((pair[0], (np.arange(4),)), np.float64(1)), {}),
                 ((pair,), {"scale": np.float64(1), "other": 1}), (([1.0], np.float64(1)), {})]
    for args, kwargs in bad_calls:
        with pytest.raises((TypeError, ValueError)) as want:
            exe.swap(*args, **kwargs)
        with pytest.raises(type(want.value)) as got:
            lib.swap(*args, **kwargs)
        assert str(got.value) == str(want.value)
    with pytest.raises(AttributeError, match="no function 'swapp'.*it has: swap"):
        lib.swapp  # noqa: B018


def test_export_for_a_generic_cpu_records_it_and_computes_the_same(tmp_path) -> None:
    module = relax_mlir.gradient(MLP)
    exe = relax_mlir.compile(module)
    args = mlp_arguments(exe.main_adjoint)
    lib = rt.load(exe.export(tmp_path / "generic.so", cpu="x86-64"))
    assert lib.cpu == "x86-64"
    want, got = exe.main_adjoint(*args), lib.main_adjoint(*args)
    np.testing.assert_allclose(got[0], want[0], rtol=1e-5)
    for g, w in zip(got[1], want[1]):
        np.testing.assert_allclose(g, w, rtol=1e-4, atol=1e-6)


def test_missing_cpu_features_are_named() -> None:
    flags = ["fpu", "sse2", "avx", "avx2", "fma"]
    assert rt._missing_cpu_features("+avx2,+fma,-avx512f", flags) == []
    assert rt._missing_cpu_features("+avx2,+avx512f,+avx512vnni,+cx16", flags) == [
        "avx512f", "avx512vnni"]


def test_export_errors_are_clear_and_leave_no_file(tmp_path) -> None:
    exe = relax_mlir.compile(TUPLES)
    with pytest.raises(relax_mlir.CompilationError, match="'pentium9' is not a CPU"):
        exe.export(tmp_path / "a.so", cpu="pentium9")
    with pytest.raises(FileNotFoundError, match="does not exist"):
        exe.export(tmp_path / "missing" / "a.so")
    threaded = relax_mlir.compile(TUPLES, num_threads=2)
    with pytest.raises(relax_mlir.CompilationError, match="num_threads=1 to export"):
        threaded.export(tmp_path / "a.so")
    with pytest.raises(ValueError, match="target 'tpu' is not supported"):
        relax_mlir.export(TUPLES, tmp_path / "a.so", target="tpu")
    assert os.listdir(tmp_path) == []


def test_load_errors_are_clear(tmp_path) -> None:
    with pytest.raises(rt.LoadError, match="no such file"):
        rt.load(tmp_path / "nothing.so")
    (tmp_path / "text.so").write_text("not a library")
    with pytest.raises(rt.LoadError, match="cannot load"):
        rt.load(tmp_path / "text.so")
    libm = next(p for p in ("/lib/x86_64-linux-gnu/libm.so.6", "/usr/lib/x86_64-linux-gnu/libm.so.6")
                if os.path.exists(p))
    with pytest.raises(rt.LoadError, match="not one written by relax_mlir"):
        rt.load(libm)


def test_cuda_export_needs_no_gpu_and_load_says_what_is_missing(tmp_path) -> None:
    """Exporting for the GPU runs no code; loading it without a driver is a
    clear CUDAError (in a fresh process: the library's constructor loads the
    kernels)."""
    library = relax_mlir.export(relax_mlir.gradient(MLP), tmp_path / "mlp_cuda.so",
                                target="cuda", chip="sm_90")
    data = open(library, "rb").read()
    assert b"sm_90" in data and os.path.getsize(library) < 8 << 20
    script = (f"import relax_mlir.runtime as rt\ntry:\n    rt.load({library!r})\n"
              f"except rt.CUDAError as e:\n    print('CUDAError:', e)\nelse:\n"
              f"    lib = rt.load({library!r}); print('loaded', lib.target, lib.chip)\n")
    proc = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                          timeout=120, env=dict(os.environ, PYTHONPATH=os.pathsep.join(sys.path)))
    assert proc.returncode == 0, describe_process(proc)
    from relax_mlir import _cuda

    if _cuda.driver_status() is None:
        assert proc.stdout.startswith("loaded cuda sm_90"), proc.stdout
    else:
        assert proc.stdout.startswith("CUDAError: no CUDA driver found"), proc.stdout
