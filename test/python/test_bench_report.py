"""bench/run.py's bookkeeping (not a benchmark): rows merged into one day's
results file keep the commit they were measured at, and RESULTS.md says which
rows predate the latest run's commit."""

from __future__ import annotations

import importlib.util
import subprocess
from pathlib import Path
from types import ModuleType

import pytest

ROOT = Path(__file__).resolve().parents[2]


def bench_run() -> ModuleType:
    spec = importlib.util.spec_from_file_location("bench_run", ROOT / "bench" / "run.py")
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def row(system: str, commit: str | None, ms: float) -> dict:
    r = {"system": system, "workload": "mlp", "threads": 1, "median_ms": ms, "compile_s": 0.0,
         "steps": 100, "max_rel_err": 1e-6}
    if commit:
        r["commit"] = commit
    return r


def test_rows_from_an_earlier_commit_say_so_in_results_md() -> None:
    run = bench_run()
    old = [row("relax", "aaaaaaaaaaaa", 2.0), row("jax", "aaaaaaaaaaaa", 1.0)]
    new = [row("relax", "bbbbbbbbbbbb+dirty", 1.5)]
    doc = {"date": "2026-12-06", "commit": "bbbbbbbbbbbb+dirty", "rows": run.merge_rows(old, new)}
    lines = {line.split("|")[2].strip(): line for line in run.render(doc).splitlines()
             if line.startswith("| mlp") or line.startswith("|  |")}
    assert "at commit bbbbbbbbbbbb+dirty" in run.render(doc)
    # The relax row was replaced by the newer measurement; JAX's is older.
    assert "1.500" in lines["relax"] and "measured at commit" not in lines["relax"]
    assert "measured at commit aaaaaaaaaaaa" in lines["jax"]


def test_rows_without_a_commit_get_no_commit_note() -> None:
    # Files written before rows recorded their commit still render.
    run = bench_run()
    doc = {"date": "2026-12-05", "rows": [row("relax", None, 2.0), row("jax", None, 1.0)]}
    assert "measured at commit" not in run.render(doc)


def test_source_commit_is_the_checkout_head() -> None:
    run = bench_run()
    try:
        head = subprocess.run(["git", "rev-parse", "--short=12", "HEAD"], cwd=ROOT,
                              capture_output=True, text=True, check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        pytest.skip("not a git checkout")
    assert run.source_commit().split("+")[0] == head


def test_compile_table_has_relax_first_warm_cache_and_jax_columns() -> None:
    run = bench_run()
    relax = {**row("relax", "b", 1.0), "compile_s": 0.5, "cached_compile_s": 0.1,
             "cached_compile_hit": True}
    miss = {**row("relax", "b", 1.0), "workload": "cnn", "compile_s": 2.0,
            "cached_compile_s": 1.9, "cached_compile_hit": False}
    jax = {**row("jax", "b", 1.0), "compile_s": 0.4}
    no_cache = {**row("relax", "b", 1.0), "workload": "lenet", "threads": 2, "compile_s": 3.0}
    text = run.render({"date": "2026-12-07", "commit": "b",
                       "rows": run.merge_rows([], [relax, miss, jax, no_cache])})
    assert "| relax first compile s | relax compile, new process, warm cache s | JAX compile s |" \
        in text
    assert "| mlp | 0.50 | 0.10 | 0.40 |" in text
    assert "| cnn | 2.00 | 1.90 (cache miss) | – |" in text
    # 2 threads: relax's code is not cached, JAX was not run.
    assert "| lenet | 3.00 | – | – |" in text


def test_reference_gradients_match_finite_differences(capsys: pytest.CaptureFixture) -> None:
    """bench/reference.py's hand-written gradients of every workload (the
    float64 reference all systems are checked against) agree with central
    finite differences on tiny shapes, and keep float32 on float32 inputs."""
    import sys

    bench = str(ROOT / "bench")
    if bench not in sys.path:
        sys.path.insert(0, bench)
    import reference
    import workloads

    assert reference.check(samples=50), capsys.readouterr().out
    out = capsys.readouterr().out
    for name in workloads.WORKLOADS:
        assert name == "deep_mlp_ckpt" or f"{name} " in out


def test_run_py_lists_the_workloads_of_workloads_py() -> None:
    # run.py needs only the standard library, so it keeps its own copy.
    import sys

    bench = str(ROOT / "bench")
    if bench not in sys.path:
        sys.path.insert(0, bench)
    import workloads

    assert bench_run().WORKLOADS == workloads.WORKLOADS
