"""Ahead-of-time export: `Executable.export` / `relax_mlir.export` write one
shared library; `relax_mlir.runtime.load` calls it with numpy, in a process
that never loads libMLIR or the compiled extension, with compile()'s results."""

from __future__ import annotations

import ctypes
import os
import subprocess
import sys

import numpy as np
import pytest
import relax_mlir
import relax_mlir.runtime as rt
from relax_mlir._export import linker_flags
from test_gpu_lowering import MLP

from relax_mlir_testing import programs as pg
from relax_mlir_testing.harness import describe_process


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
                          "relax_mlir._printer", "relax_mlir._pytree", "relax_mlir.errors",
                          "relax_mlir.runtime"], loaded
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


SCALE = """
func.func @scale(%x: tensor<256x256xf32>, %y: tensor<4xf32>)
    -> tuple<tensor<256x256xf32>, tensor<4xf32>> {
  %two = relax.add %x, %x : tensor<256x256xf32>, tensor<256x256xf32> -> tensor<256x256xf32>
  %y2 = relax.add %y, %y : tensor<4xf32>, tensor<4xf32> -> tensor<4xf32>
  %r = relax.tuple(%two, %y2 : tensor<256x256xf32>, tensor<4xf32>)
  return %r : tuple<tensor<256x256xf32>, tensor<4xf32>>
}
"""


def test_large_results_of_a_library_come_from_its_pool_and_return_when_freed(tmp_path) -> None:
    lib = rt.load(relax_mlir.compile(SCALE).export(tmp_path / "scale.so"))
    x = np.arange(256 * 256, dtype=np.float32).reshape(256, 256)
    y = np.ones(4, np.float32)
    big, small = lib.scale(x, y)
    np.testing.assert_array_equal(big, 2 * x)
    np.testing.assert_array_equal(small, 2 * y)
    assert big.ctypes.data % 64 == 0 and big.flags.writeable and big.flags.c_contiguous
    address = big.ctypes.data
    cached = lib.pool_stats()[2]
    view = big[1:3]  # a view keeps the block out of the pool
    del big
    assert lib.pool_stats()[2] == cached
    np.testing.assert_array_equal(view, 2 * x[1:3])
    del view
    assert lib.pool_stats()[2] >= cached + x.nbytes
    # The next call's result reuses the freed block; the array outlives the
    # Library object (the block keeps the library loaded).
    again, _ = lib.scale(x + 1, y)
    assert again.ctypes.data == address
    del lib
    np.testing.assert_array_equal(again, 2 * (x + 1))


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


@pytest.mark.skipif(not linker_flags(), reason="no ld.gold here")
def test_exports_link_with_gold_and_fall_back_to_the_default_linker(tmp_path,
                                                                    monkeypatch) -> None:
    """With ld.gold installed, an export is linked by gold (its
    .note.gnu.gold-version section); should the preferred linker fail, the
    driver's default links it and the library computes the same, bit for
    bit."""
    from relax_mlir import _export

    # (A cached executable's export copies the cache entry: link anew.)
    cached = relax_mlir.config.enable_compilation_cache
    relax_mlir.config.update("enable_compilation_cache", False)
    try:
        exe = relax_mlir.compile(relax_mlir.gradient(MLP))
    finally:
        relax_mlir.config.update("enable_compilation_cache", cached)
    args = mlp_arguments(exe.main_adjoint)
    gold = exe.export(tmp_path / "gold.so")
    sections = subprocess.run(["readelf", "-W", "-S", gold], capture_output=True, text=True,
                              check=True).stdout
    assert ".note.gnu.gold-version" in sections
    monkeypatch.setattr(_export, "linker_flags", lambda: ["-fuse-ld=no-such-linker"])
    default = exe.export(tmp_path / "default.so")
    sections = subprocess.run(["readelf", "-W", "-S", default], capture_output=True, text=True,
                              check=True).stdout
    assert ".note.gnu.gold-version" not in sections
    assert_equal(rt.load(default).main_adjoint(*args), rt.load(gold).main_adjoint(*args))


def test_code_generation_in_parallel_parts_links_and_computes_the_same(tmp_path,
                                                                        monkeypatch) -> None:
    """A module large enough is split for code generation, one object per
    thread (`path`, `path.1`); the export links them all, and the library
    computes what a one-part export computes, bit for bit."""
    from relax_mlir import _export
    from relax_mlir._mlir_libs import _site_initialize_0

    module = relax_mlir.gradient(MLP)
    # `llvm_module` lowers again when the code came from the compilation
    # cache (where the executable keeps no lowered module).
    lowered = relax_mlir.compile(module).llvm_module
    _, one = _site_initialize_0.write_object_file(lowered, str(tmp_path / "one.o"), 3, "host", "",
                                                  "", "", 1)
    _, two = _site_initialize_0.write_object_file(lowered, str(tmp_path / "two.o"), 3, "host", "",
                                                  "", "", 2)
    assert one == [str(tmp_path / "one.o")]
    assert two == [str(tmp_path / "two.o"), str(tmp_path / "two.o.1")]
    assert all(os.path.getsize(o) > 0 for o in one + two)

    cached = relax_mlir.config.enable_compilation_cache
    relax_mlir.config.update("enable_compilation_cache", False)
    try:
        exe = relax_mlir.compile(module)
        args = mlp_arguments(exe.main_adjoint)
        monkeypatch.setattr(_export, "codegen_threads", lambda: 1)
        whole = rt.load(exe.export(tmp_path / "whole.so")).main_adjoint(*args)
        monkeypatch.setattr(_export, "codegen_threads", lambda: 2)
        parts = rt.load(exe.export(tmp_path / "parts.so")).main_adjoint(*args)
    finally:
        relax_mlir.config.update("enable_compilation_cache", cached)
    assert_equal(parts, whole)


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
    with pytest.raises(ValueError, match="'cuda-emulator' cannot be exported"):
        relax_mlir.export(TUPLES, tmp_path / "a.so", target="cuda-emulator")
    emulated = relax_mlir.compile(TUPLES, target="cuda-emulator")
    with pytest.raises(ValueError, match="'cuda-emulator' cannot be exported"):
        emulated.export(tmp_path / "a.so")
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


def test_gpu_check_run_passes_on_cpu_exports_and_fails_on_a_wrong_result(tmp_path) -> None:
    """`tools/gpu-check.sh run` proven here on what `prepare --target cpu`
    makes (the GPU machine runs the same on CUDA exports)."""
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    folder = tmp_path / "check"
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(
        [*sys.path, os.path.join(root, "test", "python"), os.path.join(root, "bench")]))
    prepare = subprocess.run([sys.executable, os.path.join(root, "tools", "gpu_check.py"),
                              "prepare", str(folder), "--target", "cpu", "--quick",
                              "--timed", "deep_mlp"],
                             env=env, capture_output=True, text=True, timeout=600)
    assert prepare.returncode == 0, describe_process(prepare)
    run_env = dict(os.environ, PYTHON=sys.executable)

    def run() -> subprocess.CompletedProcess[str]:
        return subprocess.run(["bash", os.path.join(root, "tools", "gpu-check.sh"), "run",
                               str(folder), "--steps", "3"], env=run_env, capture_output=True,
                              text=True, timeout=600)

    ok = run()
    assert ok.returncode == 0, describe_process(ok)
    results = json_load(folder / "results.json")
    assert results["failures"] == [] and len(results["cases"]) > 30
    assert isinstance(results["mlp_step_us"]["relax-mlir (numpy in/out)"], float)
    # The timed step is checked against bench/reference.py (float64) and timed.
    deep = results["timed"]["deep_mlp"]
    assert deep["ok"] and deep["max_rel_error"] < 1e-4 and isinstance(deep["relax-mlir"], float)
    # A wrong expected value is reported and fails the run.
    want = folder / "data" / "mlp.main_adjoint.want.npz"
    arrays = dict(np.load(want))
    arrays["a0"] = arrays["a0"] * 2 + 1
    np.savez(want, **arrays)
    bad = run()
    assert bad.returncode == 1 and "FAIL mlp.so:main_adjoint" in bad.stdout, describe_process(bad)
    # A library that does not load fails its cases, is named once, and the
    # other libraries' cases still run (no traceback).
    (folder / "lib" / "mlp.so").write_bytes(b"not a shared library")
    broken = run()
    assert broken.returncode == 1 and "Traceback" not in broken.stderr, describe_process(broken)
    assert broken.stdout.count("FAIL mlp.so does not load: ") == 1, describe_process(broken)
    results = json_load(folder / "results.json")
    failed = {c["case"] for c in results["cases"] if not c["ok"]}
    assert failed == {c["case"] for c in results["cases"] if c["case"].startswith("mlp.so:")}
    assert len(results["cases"]) - len(failed) > 30


def test_gpu_check_run_on_cuda_exports_without_a_driver_says_so(tmp_path) -> None:
    """`run` on CUDA exports where no CUDA driver loads: one clear line and
    exit status 1, not a traceback per library."""
    from relax_mlir import _cuda

    if _cuda.driver_status() is None:
        pytest.skip("a CUDA driver is present: the exports would run")
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    folder = tmp_path / "check"
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(
        [*sys.path, os.path.join(root, "test", "python"), os.path.join(root, "bench")]))
    prepare = subprocess.run([sys.executable, os.path.join(root, "tools", "gpu_check.py"),
                              "prepare", str(folder), "--quick", "--timed", ""],
                             env=env, capture_output=True, text=True, timeout=600)
    assert prepare.returncode == 0, describe_process(prepare)
    proc = subprocess.run(["bash", os.path.join(root, "tools", "gpu-check.sh"), "run",
                           str(folder), "--steps", "3"], env=dict(os.environ, PYTHON=sys.executable),
                          capture_output=True, text=True, timeout=600)
    assert proc.returncode == 1 and "Traceback" not in proc.stderr, describe_process(proc)
    assert proc.stdout.startswith("run: no CUDA driver found"), describe_process(proc)
    assert "holds CUDA exports" in proc.stdout and "--target cpu" in proc.stdout


def json_load(path: object) -> dict:
    import json

    with open(str(path)) as f:
        return json.load(f)


class HostMemoryRuntime:
    """A stand-in for the CUDA runtime over host memory (device pointers are
    host addresses), so that the device-array boundary runs without a GPU:
    a CPU export reads and writes those buffers as a CUDA one would."""

    def __init__(self) -> None:
        self.blocks: dict[int, ctypes.Array] = {}
        self.allocations = 0
        self.synchronized = 0
        self.dlpack_device = (1, 0)  # DLPack's CPU: numpy can consume its arrays

    def alloc(self, nbytes: int) -> int:
        block = ctypes.create_string_buffer(max(nbytes, 1))
        self.blocks[ctypes.addressof(block)] = block
        self.allocations += 1
        return ctypes.addressof(block)

    def release(self, pointer: int) -> None:
        del self.blocks[pointer]

    free = release

    def copy_to_device(self, pointer: int, array: np.ndarray) -> None:
        ctypes.memmove(pointer, array.ctypes.data, array.nbytes)

    def copy_to_host(self, out: np.ndarray, pointer: int) -> None:
        ctypes.memmove(out.ctypes.data, pointer, out.nbytes)

    def check(self, what: str) -> None:
        pass

    def synchronize(self) -> None:
        self.synchronized += 1


class ForeignArray:
    """Another library's device array: only `__cuda_array_interface__`."""

    def __init__(self, array: np.ndarray, strides: tuple[int, ...] | None = None) -> None:
        self.array = array
        self.__cuda_array_interface__ = {
            "shape": array.shape, "typestr": array.dtype.str, "version": 3,
            "data": (array.ctypes.data, False), "strides": strides}


class DLPackOnly:
    """Another library's array that speaks only DLPack."""

    def __init__(self, array: np.ndarray) -> None:
        self.array = array

    def __dlpack__(self, stream: object = None) -> object:
        return self.array.__dlpack__()

    def __dlpack_device__(self) -> tuple[int, int]:
        return (1, 0)


def test_device_arrays_stay_on_the_device_between_calls(tmp_path) -> None:
    import gc

    exe = relax_mlir.compile(relax_mlir.gradient(MLP))
    lib = rt.load(exe.export(tmp_path / "mlp.so"))
    lib.cuda = device = HostMemoryRuntime()  # type: ignore[assignment]
    args = mlp_arguments(exe.main_adjoint)
    want = exe.main_adjoint(*args)
    # numpy in, numpy out: copied in and out, nothing left allocated.
    assert_equal(lib.main_adjoint(*args), want)
    gc.collect()
    assert device.blocks == {}
    # Device arrays in (weights kept there): results stay on the device.
    on_device = [lib.to_device(a) for a in args]
    loss, grads = lib.main_adjoint(*on_device)
    assert isinstance(loss, rt.DeviceArray) and loss.shape == () and loss.dtype == np.float32
    assert_equal(loss.numpy(), want[0])
    assert_equal(tuple(np.asarray(g) for g in grads), want[1])
    assert grads[1].__cuda_array_interface__["shape"] == args[1].shape
    assert grads[1].__cuda_array_interface__["typestr"] == "<f4"
    assert device.synchronized == 0  # only this library's arrays: no wait
    # Another library's arrays pass without a copy (after a device-wide wait).
    before = device.allocations
    foreign = [ForeignArray(a) for a in args]
    assert_equal(tuple(np.asarray(v) if not isinstance(v, tuple) else
                       tuple(np.asarray(g) for g in v) for v in lib.main_adjoint(*foreign)),
                 want)
    assert (device.allocations - before, device.synchronized) == (1 + len(want[1]), 1)
    # DLPack producers of the runtime's device pass without a copy too.
    before = device.allocations
    got = lib.main_adjoint(*[DLPackOnly(a) for a in args])
    assert_equal(tuple(np.asarray(v) if not isinstance(v, tuple) else
                       tuple(np.asarray(g) for g in v) for v in got), want)
    assert device.allocations - before == 1 + len(want[1])
    del got
    # Wrong device arrays are named.
    with pytest.raises(TypeError, match="argument 'arg1' of main_adjoint: expected dtype "
                                        "float32.*device array of float64"):
        lib.main_adjoint(args[0], ForeignArray(args[1].astype(np.float64)), *args[2:])
    with pytest.raises(ValueError, match="'arg1' of main_adjoint: the device array is not "
                                         "C-contiguous"):
        lib.main_adjoint(args[0], ForeignArray(args[1], strides=(4, 4 * args[1].shape[0])),
                         *args[2:])
    other = HostMemoryRuntime()
    with pytest.raises(ValueError, match="belongs to another library"):
        lib.main_adjoint(rt.DeviceArray.from_host(other, args[0]), *args[1:])
    del on_device, loss, grads
    gc.collect()
    assert device.blocks == {}


def test_to_device_needs_a_cuda_library(tmp_path) -> None:
    lib = rt.load(relax_mlir.export(TUPLES, tmp_path / "tuples.so"))
    with pytest.raises(ValueError, match="needs a library exported for target='cuda'"):
        lib.to_device(np.zeros(3))
    with pytest.raises(ValueError, match="target='cuda'"):
        relax_mlir.compile(TUPLES).to_device(np.zeros(3))


def test_dlpack_reads_producers_and_hands_device_arrays_out() -> None:
    import gc

    from relax_mlir import _dlpack

    host = np.arange(6, dtype=np.float32).reshape(2, 3)
    borrowed = _dlpack.Borrowed(host)
    assert borrowed.pointer == host.ctypes.data and borrowed.shape == (2, 3)
    assert borrowed.dtype == np.float32 and borrowed.device == (1, 0)
    assert borrowed.strides in (None, (3, 1))
    del borrowed
    # A DeviceArray as a DLPack capsule: the consumer sees the same memory.
    device = HostMemoryRuntime()
    array = rt.DeviceArray.from_host(device, host * 2)
    view = np.from_dlpack(array)
    assert view.ctypes.data == array.pointer and view.shape == (2, 3)
    np.testing.assert_array_equal(view, host * 2)
    assert array.__dlpack_device__() == (1, 0)
    # The consumer keeps the array alive; releasing it frees the entry.
    del array
    gc.collect()
    np.testing.assert_array_equal(view, host * 2)
    assert len(_dlpack._LIVE) == 1
    del view
    gc.collect()
    assert _dlpack._LIVE == {} and device.blocks == {}
    # A capsule nobody consumes releases its tensor when it goes.
    array = rt.DeviceArray.from_host(device, host)
    capsule = array.__dlpack__()
    assert len(_dlpack._LIVE) == 1
    del capsule
    gc.collect()
    assert _dlpack._LIVE == {}
    with pytest.raises(BufferError, match="does not copy"):
        array.__dlpack__(copy=True)


def test_frontend_lowered_functions_export(tmp_path) -> None:
    import relax_mlir.numpy as rnp

    def loss(w: np.ndarray, x: np.ndarray) -> object:
        return rnp.sum(rnp.tanh(x @ w))

    w = np.array([[0.5, -1.0], [2.0, 0.25]], np.float32)
    x = np.array([[1.0, 2.0], [3.0, -1.0], [0.5, 0.5]], np.float32)
    value_and_grad = relax_mlir.value_and_grad(loss)
    lib = rt.load(value_and_grad.lower(w, x).export(tmp_path / "vg.so"))
    # The library returns what value_and_grad returns (its structure recorded).
    value, grad_w = lib.main_adjoint(w, x)
    want_value, want_grad = value_and_grad(w, x)
    np.testing.assert_array_equal(value, want_value)
    np.testing.assert_array_equal(grad_w, want_grad)


# ---------------------------------------------------------------------------
# Issue 32: loading a re-exported file, damaged files, exporting to a directory
# ---------------------------------------------------------------------------

def scale_module(k: float) -> str:
    """`main(x) = x * k` for a 3-vector."""
    return f"""
func.func @main(%x: tensor<3xf32>) -> tensor<3xf32> {{
  %c = arith.constant dense<{k:.1f}> : tensor<3xf32>
  %r = relax.multiply %x, %c : tensor<3xf32>, tensor<3xf32> -> tensor<3xf32>
  return %r : tensor<3xf32>
}}
"""


X3 = np.array([1.0, -2.0, 0.5], np.float32)


def test_load_after_re_export_to_the_same_path_gets_the_new_library(tmp_path) -> None:
    # Was the first library: dlopen hands back its handle for the same name.
    path = tmp_path / "model.so"
    first = rt.load(relax_mlir.export(scale_module(2), path))
    np.testing.assert_array_equal(first.main(X3), 2 * X3)
    relax_mlir.export(scale_module(3), path)
    second = rt.load(path)
    np.testing.assert_array_equal(second.main(X3), 3 * X3)
    np.testing.assert_array_equal(rt.load(str(path)).main(X3), 3 * X3)
    np.testing.assert_array_equal(first.main(X3), 2 * X3)  # still loaded, still the old one
    relax_mlir.export(scale_module(5), path)
    np.testing.assert_array_equal(rt.load(path).main(X3), 5 * X3)
    assert os.listdir(tmp_path) == ["model.so"]  # the private copies are gone


def reseal(data: bytes) -> bytes:
    """An export's bytes edited after its trailer was cut off, with a new
    trailer: what a file written by a damaged exporter would be."""
    body = data[:-rt._TRAILER.size]
    import hashlib
    return body + rt._TRAILER.pack(rt.TRAILER_MAGIC, len(body), hashlib.sha256(body).digest())


@pytest.fixture(scope="module")
def small_export(tmp_path_factory) -> bytes:
    path = tmp_path_factory.mktemp("small") / "small.so"
    relax_mlir.export(scale_module(2), path)
    return path.read_bytes()


# Loads argv[1] in a fresh interpreter (a crash fails only its case) and says
# what happened: LoadError, or loaded and computed right or wrong.
DAMAGED = """
import sys
import numpy as np
import relax_mlir.runtime as rt
try:
    lib = rt.load(sys.argv[1])
except rt.LoadError as e:
    print("LoadError:", str(e).replace("\\n", " "))
else:
    x = np.array([1.0, -2.0, 0.5], np.float32)
    print("loaded", "right" if np.array_equal(lib.main(x), 2 * x) else "WRONG")
"""


def load_damaged(tmp_path, cases: dict[str, bytes]) -> dict[str, str]:
    """Each case's bytes loaded in its own interpreter, two at a time: the
    first line of its output, or how it died."""
    script = tmp_path / "damaged.py"
    script.write_text(DAMAGED)
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(p for p in sys.path if p))
    results: dict[str, str] = {}
    names = list(cases)
    for start in range(0, len(names), 2):
        running = []
        for name in names[start:start + 2]:
            path = tmp_path / f"{name}.so"
            path.write_bytes(cases[name])
            running.append((name, subprocess.Popen(
                [sys.executable, str(script), str(path)], env=env, text=True,
                stdout=subprocess.PIPE, stderr=subprocess.PIPE)))
        for name, proc in running:
            out, err = proc.communicate(timeout=60)
            results[name] = out.strip() if proc.returncode == 0 else \
                f"died with {proc.returncode}: {err.strip()[-300:]}"
    return results


def test_truncated_exports_are_a_load_error_not_a_crash(tmp_path, small_export) -> None:
    # Was SIGBUS inside dlopen (an interrupted copy).
    size = len(small_export)
    cases = {f"cut{p}": small_export[:size * p // 100] for p in range(5, 100, 5)}
    cases["cut_trailer"] = small_export[:-20]
    results = load_damaged(tmp_path, cases)
    bad = {k: v for k, v in results.items()
           if not (v.startswith("LoadError:") and ("truncated" in v or "damaged" in v))}
    assert not bad, bad


def test_bit_flips_in_an_export_are_a_load_error(tmp_path, small_export) -> None:
    # The checksum export appends covers every byte: any flip is refused.
    size = len(small_export)
    rng = np.random.default_rng(32)
    positions = sorted(set(rng.choice(size, 36, replace=False).tolist()) |
                       {4, 18, 40, 60, size - 1, size - 30, size - 50})
    cases = {}
    for pos in positions:
        data = bytearray(small_export)
        data[pos] ^= 1 << int(rng.integers(8))
        cases[f"flip{pos}"] = bytes(data)
    results = load_damaged(tmp_path, cases)
    bad = {k: v for k, v in results.items() if not v.startswith("LoadError:")}
    assert not bad, bad


def test_damaged_metadata_another_machine_and_directories_are_load_errors(
        tmp_path, small_export) -> None:
    # Were JSONDecodeError, UnicodeDecodeError, KeyError and, for an ELF of
    # another architecture, "No such file or directory".
    start = small_export.index(b'{"chip"')
    edits = {"json": (start, b"x"), "utf8": (start + 2, b"\xff"),
             "key": (small_export.index(b'"functions"', start) + 1, b"F")}
    for name, (pos, byte) in edits.items():
        data = bytearray(small_export)
        data[pos:pos + 1] = byte
        (tmp_path / f"{name}.so").write_bytes(reseal(bytes(data)))
        with pytest.raises(rt.LoadError, match="export metadata is damaged"):
            rt.load(tmp_path / f"{name}.so")
    arm = bytearray(small_export)
    arm[18:20] = (183).to_bytes(2, "little")  # e_machine: AArch64
    (tmp_path / "arm.so").write_bytes(reseal(bytes(arm)))
    with pytest.raises(rt.LoadError, match="built for AArch64, this machine is x86-64"):
        rt.load(tmp_path / "arm.so")
    (tmp_path / "folder.so").mkdir()
    with pytest.raises(rt.LoadError, match="is a directory"):
        rt.load(tmp_path / "folder.so")


def test_export_to_a_directory_is_a_compilation_error_and_leaves_no_file(tmp_path) -> None:
    # Was a raw IsADirectoryError, with a .partial file left behind.
    (tmp_path / "out").mkdir()
    with pytest.raises(relax_mlir.CompilationError, match="it is a directory; give the "
                                                          "library's file path"):
        relax_mlir.export(scale_module(2), tmp_path / "out")
    assert os.listdir(tmp_path) == ["out"] and os.listdir(tmp_path / "out") == []
