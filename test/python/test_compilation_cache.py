"""The persistent compilation cache (relax_mlir/_cache.py): a compile writes its
library into the cache directory, a fresh process loads it instead of
compiling; any change of the module, the options, the compiler or the CPU
misses; a damaged or foreign entry is rebuilt, never run; two processes
writing the same entry both succeed; eviction removes the least recently
used entries past the size bound.

Each test has a cache directory of its own (`config.compilation_cache_dir`,
or RELAX_MLIR_CACHE_DIR for child processes).
"""

from __future__ import annotations

import logging
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest
import relax_mlir
from relax_mlir import _cache

from relax_mlir_testing.harness import describe_process

TEXT = """
func.func @main(%x: tensor<4x3xf32>, %w: tensor<3x2xf32>) -> tensor<f32> {
  %r = relax.dataflow -> (tensor<f32>) {
    %0 = relax.matmul %x, %w : tensor<4x3xf32>, tensor<3x2xf32> -> tensor<4x2xf32>
    %1 = relax.tanh %0 : tensor<4x2xf32>
    %2 = relax.sum %1 : tensor<4x2xf32> -> tensor<f32>
    relax.output %2 : tensor<f32>
  }
  return %r : tensor<f32>
}
"""

X = np.arange(12, dtype=np.float32).reshape(4, 3) / 10
W = np.arange(6, dtype=np.float32).reshape(3, 2) / 10
EXPECTED = float(np.tanh(X.astype(np.float64) @ W).sum())


@pytest.fixture
def cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A fresh cache directory, the cache on, compiles logged."""
    where = tmp_path / "cache"
    monkeypatch.setattr(_cache, "_disabled", None)
    saved = {n: getattr(relax_mlir.config, n) for n in
             ("enable_compilation_cache", "compilation_cache_dir", "compilation_cache_max_size",
              "log_compiles")}
    relax_mlir.config.update("enable_compilation_cache", True)
    relax_mlir.config.update("compilation_cache_dir", str(where))
    relax_mlir.config.update("log_compiles", True)
    yield where
    for name, value in saved.items():
        relax_mlir.config.update(name, value)


def entries(where: Path) -> list[Path]:
    return sorted(p for p in where.glob("*.so"))


def replace_contents(entry: Path, data: bytes) -> None:
    """Damages an entry as a disk or a copy would: new contents under its name.
    (Rewriting the file in place would also change the library this process
    has mapped from it: a truncated mapping faults when touched.)"""
    scratch = entry.with_name(entry.name + ".scratch")
    scratch.write_bytes(data)
    os.replace(scratch, entry)


def compile_logged(caplog: pytest.LogCaptureFixture, text: str = TEXT, **kw) -> tuple:
    caplog.clear()
    with caplog.at_level(logging.WARNING, logger="relax_mlir"):
        exe = relax_mlir.compile(text, **kw)
    return exe, " ".join(r.getMessage() for r in caplog.records)


def test_miss_writes_an_entry_and_a_second_compile_loads_it(cache, caplog):
    exe, log = compile_logged(caplog)
    assert "cache miss" in log, log
    assert len(entries(cache)) == 1
    assert exe.main(X, W) == pytest.approx(EXPECTED, rel=1e-6)
    again, log = compile_logged(caplog)
    assert "cache hit" in log, log
    assert again.main(X, W) == pytest.approx(EXPECTED, rel=1e-6)
    assert len(entries(cache)) == 1


def test_a_fresh_process_loads_without_compiling(cache, tmp_path):
    """The child's lowering pipeline and LLVM code generation are replaced by
    functions that fail: a hit needs neither."""
    relax_mlir.compile(TEXT)
    script = tmp_path / "child.py"
    script.write_text(textwrap.dedent(f"""
        import numpy as np
        import relax_mlir
        from relax_mlir import _compile, _stages

        def fail(*args, **kwargs):
            raise AssertionError("compiled instead of loading from the cache")

        _stages.run_stages = _compile.run_stages = fail
        _compile.ExecutionEngine = fail
        x = np.arange(12, dtype=np.float32).reshape(4, 3) / 10
        w = np.arange(6, dtype=np.float32).reshape(3, 2) / 10
        exe = relax_mlir.compile({TEXT!r})
        print(float(exe.main(x, w)))
    """))
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(p for p in sys.path if p),
               RELAX_MLIR_CACHE_DIR=str(cache))
    proc = subprocess.run([sys.executable, str(script)], capture_output=True, text=True,
                          env=env, timeout=120)
    assert proc.returncode == 0, describe_process(proc)
    assert float(proc.stdout) == pytest.approx(EXPECTED, rel=1e-6)


@pytest.mark.parametrize("change", ["module", "opt_level", "functions", "compiler", "cpu"])
def test_any_key_change_misses(cache, caplog, monkeypatch, change):
    compile_logged(caplog)
    kw: dict = {}
    text = TEXT
    if change == "module":
        text = TEXT.replace("relax.tanh", "relax.sigmoid")
    elif change == "opt_level":
        kw = {"opt_level": 2}
    elif change == "functions":
        text = TEXT + TEXT.replace("@main", "@other")
        compile_logged(caplog, text)  # both functions
        kw = {"functions": ["main"]}
    elif change == "compiler":
        monkeypatch.setattr(_cache, "_compiler_identity", lambda: b"another build")
    elif change == "cpu":
        monkeypatch.setattr(_cache, "_cpu_identity", lambda: b"another cpu")
    before = len(entries(cache))
    _, log = compile_logged(caplog, text, **kw)
    assert "cache miss" in log, log
    assert len(entries(cache)) == before + 1


def test_the_key_names_the_installed_version(tmp_path, monkeypatch):
    """The package's version (part of the key: an upgrade misses) is read
    from the dist-info folder beside the installed package; a build tree has
    none."""
    package = tmp_path / "relax_mlir"
    package.mkdir()
    monkeypatch.setattr(_cache, "__file__", str(package / "_cache.py"))
    assert _cache._version() == "build-tree"
    (tmp_path / "relax_mlir-1.2.3.dist-info").mkdir()
    (tmp_path / "relax_mlir_other-9.dist-info").mkdir()
    assert _cache._version() == "1.2.3"


def test_locations_are_not_part_of_the_key(cache, caplog):
    compile_logged(caplog)
    _, log = compile_logged(caplog, "\n\n\n" + TEXT)
    assert "cache hit" in log, log


def test_a_damaged_entry_is_rebuilt_not_run(cache, caplog):
    compile_logged(caplog)
    (entry,) = entries(cache)
    data = bytearray(entry.read_bytes())
    data[len(data) // 2] ^= 0xFF
    replace_contents(entry, bytes(data))
    exe, log = compile_logged(caplog)
    assert "damaged" in log and "cache miss" in log, log
    assert exe.main(X, W) == pytest.approx(EXPECTED, rel=1e-6)
    compile_logged(caplog)
    assert "cache hit" in " ".join(r.getMessage() for r in caplog.records)


def test_a_foreign_entry_is_rebuilt(cache, caplog, tmp_path):
    """A valid library of other functions at the entry's name (a key collision,
    or a file put there) is not used."""
    compile_logged(caplog)
    (entry,) = entries(cache)
    relax_mlir.export(TEXT.replace("@main", "@other"), str(tmp_path / "other.so"))
    os.replace(tmp_path / "other.so", entry)
    exe, log = compile_logged(caplog)
    assert "cache miss" in log and "other functions" in log, log
    assert exe.main(X, W) == pytest.approx(EXPECTED, rel=1e-6)


def test_truncated_and_empty_entries_are_rebuilt(cache, caplog):
    compile_logged(caplog)
    (entry,) = entries(cache)
    for data in (entry.read_bytes()[:100], b""):
        replace_contents(entry, data)
        exe, log = compile_logged(caplog)
        assert "cache miss" in log, log
        assert exe.main(X, W) == pytest.approx(EXPECTED, rel=1e-6)


def test_concurrent_writers_both_succeed(cache, tmp_path):
    script = tmp_path / "writer.py"
    script.write_text(textwrap.dedent(f"""
        import numpy as np
        import relax_mlir
        x = np.arange(12, dtype=np.float32).reshape(4, 3) / 10
        w = np.arange(6, dtype=np.float32).reshape(3, 2) / 10
        print(float(relax_mlir.compile({TEXT!r}).main(x, w)))
    """))
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(p for p in sys.path if p),
               RELAX_MLIR_CACHE_DIR=str(cache))
    procs = [subprocess.Popen([sys.executable, str(script)], stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, text=True, env=env) for _ in range(2)]
    for p in procs:
        out, err = p.communicate(timeout=180)
        assert p.returncode == 0, err
        assert float(out) == pytest.approx(EXPECTED, rel=1e-6)
    assert len(entries(cache)) == 1
    assert not [p for p in cache.iterdir() if p.name.endswith(".partial")]


def test_eviction_removes_the_least_recently_used(cache, caplog):
    texts = [TEXT.replace("relax.tanh", f"relax.{op}") for op in ("tanh", "sigmoid", "exp")]
    compile_logged(caplog, texts[0])
    size = entries(cache)[0].stat().st_size
    first = entries(cache)[0]
    os.utime(first, (1, 1))  # long unused
    os.utime(str(first) + ".used", (1, 1))
    compile_logged(caplog, texts[1])
    # Room for two entries: the third compile removes the least recently used (the first).
    relax_mlir.config.update("compilation_cache_max_size", int(size * 2.5))
    compile_logged(caplog, texts[2])
    assert len(entries(cache)) == 2 and not first.exists()
    assert not Path(str(first) + ".used").exists()
    _, log = compile_logged(caplog, texts[1])
    assert "cache hit" in log, log


def test_off_writes_nothing(cache, caplog):
    relax_mlir.config.update("enable_compilation_cache", False)
    exe, log = compile_logged(caplog)
    assert "cache off" in log, log
    assert not cache.exists() or not entries(cache)
    assert exe.main(X, W) == pytest.approx(EXPECTED, rel=1e-6)


def test_threads_and_dump_ir_are_not_cached(cache, caplog, tmp_path):
    compile_logged(caplog, num_threads=2)
    compile_logged(caplog, dump_ir=str(tmp_path / "ir"))
    assert not entries(cache)


def test_cached_executable_keeps_memory_stats_and_export(cache, caplog, tmp_path):
    """Temporaries of a loaded library come from the process's pool (as JIT
    code's), and export copies the entry."""
    compile_logged(caplog)
    exe, log = compile_logged(caplog)
    assert "cache hit" in log
    relax_mlir.memory_stats(reset_peak=True)
    exe.main(X, W)
    assert relax_mlir.memory_stats()["peak_bytes"] > 0
    path = exe.export(tmp_path / "copy.so")
    lib = relax_mlir.runtime.load(path)
    assert lib.main(X, W) == pytest.approx(EXPECTED, rel=1e-6)


def test_unwritable_directory_turns_the_cache_off(cache, caplog, tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("")
    relax_mlir.config.update("compilation_cache_dir", str(blocker / "cache"))
    exe, log = compile_logged(caplog)
    assert "cache off for this process" in log, log
    assert exe.main(X, W) == pytest.approx(EXPECTED, rel=1e-6)


def test_settings_are_checked():
    with pytest.raises(ValueError, match="True or False"):
        relax_mlir.config.update("log_compiles", 1)
    with pytest.raises(ValueError, match="positive int or None"):
        relax_mlir.config.update("compilation_cache_max_size", 0)
    with pytest.raises(ValueError, match="directory path"):
        relax_mlir.config.update("compilation_cache_dir", "")
    with pytest.raises(AttributeError, match="compilation_cache_dir"):
        relax_mlir.config.update("cache_dir", "/tmp")


def test_a_hit_leaves_the_entry_file_alone(cache, caplog):
    """Loads record their time in a marker beside the entry: the entry's own
    identity stays, so loading it again in the process reuses the library
    mapped before (a changed file would be loaded through a private copy)."""
    compile_logged(caplog)
    (entry,) = entries(cache)
    before = entry.stat().st_mtime_ns
    marker = Path(str(entry) + ".used")
    os.utime(marker, (1, 1))
    _, log = compile_logged(caplog)
    assert "cache hit" in log
    assert entry.stat().st_mtime_ns == before
    assert marker.stat().st_mtime_ns > 1_000_000_000


def test_code_that_copies_strided_views_is_cached(cache, caplog):
    """At opt_level 0, the gradient of a scan over a view with a step copies
    strided slices through `memrefCopy` (MLIR's C runner utils), which the
    library of a cache entry (and of an export) must carry: linking failed
    with "undefined reference to `memrefCopy'" and turned the cache off for
    the rest of the process."""
    from relax_mlir import lax
    from relax_mlir import numpy as rnp

    def f(a):
        h, ys = lax.scan(lambda h, x: (rnp.tanh(h * x + x), rnp.sum(h)),
                         rnp.ones((4,), np.float64) * 0.5, a[::2])
        return rnp.sum(h) + rnp.sum(ys)

    a = np.random.default_rng(0).standard_normal((6, 4))
    caplog.clear()
    with caplog.at_level(logging.WARNING, logger="relax_mlir"):
        value, g = relax_mlir.value_and_grad(f, opt_level=0)(a)
    log = " ".join(r.getMessage() for r in caplog.records)
    assert "cache miss: written" in log, log
    assert not _cache.is_disabled()
    h, want = np.full(4, 0.5), 0.0
    for x in a[::2]:
        want += h.sum()
        h = np.tanh(h * x + x)
    assert value == pytest.approx(want + h.sum(), rel=1e-12)
    assert g[1::2].tolist() == np.zeros((3, 4)).tolist()


def test_a_module_whose_library_cannot_be_built_runs_uncached(cache, caplog, monkeypatch):
    """A library that fails to build (one module's problem) runs that module
    by the JIT and leaves the cache on for the others."""
    from relax_mlir import _export

    def failing(*args, **kwargs):
        raise relax_mlir.CompilationError("cannot export: linking failed", "undefined reference")

    with monkeypatch.context() as patch:
        patch.setattr(_export, "export_library", failing)
        exe, log = compile_logged(caplog)
    assert "not cached: writing" in log and "linking failed" in log, log
    assert exe.cache_path is None and not _cache.is_disabled()
    assert exe.main(X, W) == pytest.approx(EXPECTED, rel=1e-6)
    exe, log = compile_logged(caplog)
    assert "cache miss: written" in log, log
