"""Benchmarks one training step (loss + gradients) of relax-mlir against JAX,
numpy by hand and PyTorch eager, each measurement in its own process.

    python bench/run.py                      # all workloads x systems, 1 and 2 threads
    python bench/run.py --quick              # a smoke test: few steps, 1 thread
    python bench/run.py --workloads mlp --threads 1 2
    python bench/run.py --render-only        # RESULTS.md from today's JSON

Every (threads, workload, system) runs `bench/run_one.py` in a subprocess with
the system's interpreter (relax: the repository's `.venv` with
`build/python_packages` on PYTHONPATH; the others: `bench/.venv`) and a
timeout; a failure becomes a row with an "error" field. Each measurement gets
a fresh, empty compilation cache directory (RELAX_MLIR_CACHE_DIR), so relax's
compile time is a first compile; when that compile left its code in the cache,
a second process (`run_one.py --compile-only`) compiles the same step again on
the warm cache: `cached_compile_s`, a compile in a new process as a user's
second run would do. numpy's single-thread
sgemm rate is probed in the same run. Rows are merged into
`bench/results/<YYYY-MM-DD>.json` (a row replaces the earlier one of the same
system, workload and thread count; `--fresh` starts the file anew) and
`bench/RESULTS.md` is regenerated from that file. Every row records the commit
it was measured at (`+dirty` when tracked sources differed from it), and
RESULTS.md names the commit of any row measured at another commit than the
latest run's.

This script needs only the standard library.
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import platform
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterable
from pathlib import Path
from typing import Any

BENCH = Path(__file__).resolve().parent
ROOT = BENCH.parent
RESULTS_DIR = BENCH / "results"
RESULTS_MD = BENCH / "RESULTS.md"

sys.path.insert(0, str(BENCH))
from run_one import thread_environment  # noqa: E402  (stdlib only)

WORKLOADS = ("mlp", "deep_mlp", "cnn", "transformer_block", "deep_mlp_ckpt", "lenet",
             "resnet_block", "attention", "embedding_grad")
SYSTEMS = ("relax", "jax", "numpy", "torch")

Row = dict[str, Any]


def interpreter(system: str, args: argparse.Namespace) -> tuple[str, dict[str, str]]:
    """The Python executable of `system` and the environment additions it needs."""
    if system == "relax":
        packages = str(ROOT / "build" / "python_packages")
        path = os.pathsep.join(p for p in (packages, os.environ.get("PYTHONPATH", "")) if p)
        return args.relax_python, {"PYTHONPATH": path}
    return args.bench_python, {}


def cpu_ticks() -> tuple[int, int]:
    """(busy, total) CPU time of all CPUs since boot, in clock ticks (/proc/stat)."""
    try:
        with open("/proc/stat") as f:
            values = [int(v) for v in f.readline().split()[1:]]
    except (OSError, ValueError):
        return 0, 0
    idle = values[3] + values[4]  # idle + iowait
    return sum(values) - idle, sum(values)


def cpu_busy(seconds: float = 0.5) -> float:
    """The fraction of all CPUs' time spent busy over `seconds` (this driver
    sleeps meanwhile, so it is other processes' load)."""
    busy0, total0 = cpu_ticks()
    time.sleep(seconds)
    busy1, total1 = cpu_ticks()
    return (busy1 - busy0) / max(1, total1 - total0)


def children_cpu_s() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def wait_idle(limit_s: float, threshold: float = 0.1) -> float:
    """Waits (up to `limit_s`) until other processes use under `threshold` of
    the CPUs; returns the last busy fraction seen."""
    deadline = time.monotonic() + limit_s
    busy = cpu_busy()
    while busy >= threshold and time.monotonic() < deadline:
        time.sleep(2.0)
        busy = cpu_busy()
    return busy


def run_subprocess(system: str, extra: list[str], threads: int, timeout: float,
                   args: argparse.Namespace, measure: bool = True,
                   env_extra: dict[str, str] | None = None) -> Row:
    """Runs run_one.py (with `env_extra` added to its environment) and returns
    its JSON row, or a row describing the failure; before a measurement (not a
    version probe) it waits for `--wait-idle`."""
    python, env_add = interpreter(system, args)
    base: Row = {"system": system, "threads": threads}
    if not Path(python).exists():
        return {**base, "error": f"interpreter {python} not found"}
    env = {**os.environ, **thread_environment(threads), **env_add, **(env_extra or {})}
    cmd = [python, str(BENCH / "run_one.py"), "--system", system, "--threads", str(threads), *extra]
    busy = wait_idle(args.wait_idle) if measure and args.wait_idle > 0 else cpu_busy()
    base["cpu_busy_before"] = busy
    start = time.perf_counter()
    ticks0, child0 = cpu_ticks(), children_cpu_s()
    try:
        proc = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, env=env,
                              cwd=ROOT)
    except subprocess.TimeoutExpired as e:
        tail = (e.stderr or b"")[-1500:]
        return {**base, "error": f"timeout after {timeout:.0f} s",
                "stderr_tail": tail.decode(errors="replace") if isinstance(tail, bytes) else tail}
    wall = time.perf_counter() - start
    ticks1, child1 = cpu_ticks(), children_cpu_s()
    # Other processes' share of the CPUs while the subprocess ran: all busy
    # ticks minus the subprocess's own CPU time.
    hz = os.sysconf("SC_CLK_TCK")
    others = ((ticks1[0] - ticks0[0]) - (child1 - child0) * hz) / max(1, ticks1[1] - ticks0[1])
    base["cpu_busy_others"] = max(0.0, others)
    lines = [line for line in proc.stdout.splitlines() if line.startswith("{")]
    if lines:
        try:
            row: Row = {**json.loads(lines[-1]), "cpu_busy_before": busy,
                        "cpu_busy_others": base["cpu_busy_others"], "wall_s": wall}
            if proc.returncode != 0 and "error" not in row:
                row["error"] = f"exit status {proc.returncode}"
            return row
        except json.JSONDecodeError:
            pass
    return {**base, "error": f"exit status {proc.returncode}, no JSON row",
            "stderr_tail": proc.stderr[-3000:], "wall_s": wall}


def measure_row(system: str, workload: str, threads: int, args: argparse.Namespace) -> Row:
    """One measurement of (system, workload, threads) on a fresh compilation
    cache directory, then, when its compile left code in the cache, the
    compile again in a new process on that cache (`cached_compile_s`)."""
    extra = ["--workload", workload, "--steps", str(args.steps),
             "--warmup", str(args.warmup), "--time-budget", str(args.time_budget)]
    cache = tempfile.mkdtemp(prefix="relax-bench-cache-")
    try:
        env = {"RELAX_MLIR_CACHE_DIR": cache}
        row = run_subprocess(system, extra, threads, args.timeout, args, env_extra=env)
        row.setdefault("workload", workload)
        if "error" in row or "skipped" in row or not row.get("cache_entry"):
            return row
        warm = run_subprocess(system, ["--workload", workload, "--compile-only"], threads,
                              args.timeout, args, env_extra=env)
    finally:
        shutil.rmtree(cache, ignore_errors=True)
    notes = row.setdefault("notes", [])
    if "error" in warm:
        row["cached_compile_error"] = warm["error"]
        notes.append(f"compile on the warm cache failed: {warm['error'][:200]}")
        return row
    row["cached_compile_s"] = warm["compile_s"]
    row["cached_compile_hit"] = bool(warm.get("cache_hit"))
    row["cached_compile_busy"] = max(warm.get("cpu_busy_before", 0.0),
                                     warm.get("cpu_busy_others", 0.0))
    if row["cached_compile_busy"] >= 0.1:
        notes.append(f"other processes used {row['cached_compile_busy']:.0%} of the CPUs during "
                     f"the warm-cache compile")
    if not row["cached_compile_hit"]:
        notes.append("the warm-cache compile missed the cache")
    if warm.get("loss") != row.get("loss"):
        notes.append(f"the warm-cache run's loss {warm.get('loss')} differs from "
                     f"{row.get('loss')}")
    return row


def cpu_info() -> dict[str, Any]:
    """CPU model, vendor and vector features from /proc/cpuinfo, and the core count."""
    info: dict[str, Any] = {"cores": os.cpu_count(), "allowed_cpus": len(os.sched_getaffinity(0))}
    try:
        text = Path("/proc/cpuinfo").read_text()
    except OSError:
        return info
    fields: dict[str, str] = {}
    for line in text.splitlines():
        if ":" in line:
            key, _, value = line.partition(":")
            fields.setdefault(key.strip(), value.strip())
    info["model"] = fields.get("model name", platform.processor())
    info["vendor"] = fields.get("vendor_id", "")
    info["family_model"] = f"{fields.get('cpu family', '?')}/{fields.get('model', '?')}"
    flags = fields.get("flags", "").split()
    info["vector_flags"] = [f for f in ("avx2", "fma", "avx512f", "avx512bw", "avx512vl",
                                        "avx512_bf16", "amx_tile") if f in flags]
    return info


def source_commit() -> str:
    """The repository's commit as a short hash, with "+dirty" when tracked
    files other than the results differ from it; "?" outside a git checkout."""
    def git(*cmd: str) -> str:
        return subprocess.run(["git", *cmd], cwd=ROOT, capture_output=True, text=True,
                              timeout=60, check=True).stdout.strip()
    try:
        sha = git("rev-parse", "--short=12", "HEAD")
        dirty = git("status", "--porcelain", "--untracked-files=no", "--", ".",
                    ":!bench/results", ":!bench/RESULTS.md")
    except (OSError, subprocess.SubprocessError):
        return "?"
    return sha + ("+dirty" if dirty else "")


def load(path: Path) -> dict[str, Any]:
    if path.exists():
        return json.loads(path.read_text())
    return {}


def row_key(row: Row) -> tuple[str, str, int]:
    return (row.get("system", ""), row.get("workload", ""), int(row.get("threads", 0)))


def merge_rows(old: Iterable[Row], new: Iterable[Row]) -> list[Row]:
    merged = {row_key(r): r for r in old}
    for r in new:
        merged[row_key(r)] = r
    order = {w: i for i, w in enumerate(WORKLOADS)}
    sorder = {s: i for i, s in enumerate(SYSTEMS)}
    return sorted(merged.values(), key=lambda r: (r.get("threads", 0),
                                                  order.get(r.get("workload", ""), 99),
                                                  sorder.get(r.get("system", ""), 99)))


# --- RESULTS.md -----------------------------------------------------------------------------

LEGEND = [
    "Workloads (float32, see `bench/workloads.py`): `mlp` 64x784 -> 256 relu -> 10, "
    "log_softmax + nll_loss; `deep_mlp` 8 x (1024x1024 dense + tanh) on 128x1024, mean squared "
    "error; `cnn` 32x3x32x32, two 3x3 conv (16, 32) + bias + relu + 2x2 max-pool, dense to 10, "
    "log_softmax + nll_loss; `transformer_block` 8192x256 tokens, x + W2 gelu(W1 layer_norm(x) "
    "+ b1) + b2, mean squared error; `deep_mlp_ckpt` = `deep_mlp` with checkpointed segments "
    "of 3, 3 and 2 layers (relax checkpoint markers, `jax.checkpoint`, "
    "`torch.utils.checkpoint`); `lenet` 64x1x28x28, 5x5 conv (6, padding 2) and 5x5 conv (16) "
    "each + bias + relu + 2x2 avg-pool, dense 400 -> 120 -> 84 -> 10 (relu), log_softmax + "
    "nll_loss; `resnet_block` 16x64x16x16, relu(conv3x3(relu(conv3x3(x))) + x), stride-2 "
    "conv3x3 to 128 + relu, global average pool, dense to 10, log_softmax + nll_loss (no batch "
    "norm); `attention` 8x128 tokens of width 256, 4 heads, qkv projection, causal softmax(q "
    "k^T / 8) v, output projection + residual, mean squared error; `embedding_grad` 512 ids "
    "into a 32768x256 table (take), tanh(e @ W), mean squared error, gradients of the table "
    "(dense) and W. relax traces the last four from `relax_mlir.numpy`/`nn`.",
    "",
    "- Each cell is one process, pinned to the first N cores: warm-up steps, then the median "
    "wall time of one step (the loss and every parameter gradient) on fixed inputs.",
    "- *× JAX*: step time / JAX's step time (above 1 is slower than JAX).",
    "- *compile s*: relax `gradient` + `compile` (and the trace, for the workloads written "
    "with the frontend) on an empty compilation cache; JAX `.lower().compile()`; 0 for the "
    "eager systems. The *compile* table after each thread count's table: relax's first compile, "
    "relax's compile in a new process on the compilation cache the first one filled (the same "
    "`RELAX_MLIR_CACHE_DIR`: the code is loaded, not compiled; the cache keeps no "
    "multi-threaded code, so – at 2 threads), and JAX's first compile.",
    "- *RSS Δ MiB*: the resident high-water mark during the steps minus the resident size just "
    "before the first step (after `malloc_trim`); *peak RSS*: the process's lifetime peak.",
    "- *temp MiB*: the step's peak of temporaries (not its inputs and results): relax measures "
    "it at run time (`relax_mlir.memory_stats()`, the buffer pool's high-water mark over the "
    "steps); JAX reports XLA's static buffer assignment (`memory_analysis().temp_size_in_bytes`).",
    "- *max rel err*: the largest max|v - ref| / max|ref| over the loss and every gradient, "
    "against a float64 numpy reference computed in the same process. `resnet_block`'s can "
    "reach ~1e-2 without a wrong gradient: one of its pre-relu values is 2.3e-8 from zero, "
    "and a system whose float32 rounding puts it on the other side changes the kernel "
    "gradients by that much (see `bench/workloads.py`).",
    "- *notes*: rows from `--quick` runs (few steps: indicative only), and measurements during "
    "which other processes used 10% or more of the CPUs (the machine is shared).",
]


def _fmt(value: Any, spec: str, missing: str = "–") -> str:
    return missing if value is None else format(value, spec)


def _notes(row: Row, versions: dict[str, str], commit: str | None = None) -> str:
    parts = []
    if row.get("commit") and row["commit"] != commit:
        parts.append(f"measured at commit {row['commit']}")
    if row.get("version") and row["version"] != versions.get(row.get("system", "")):
        parts.append(f"measured with {row['version']}")
    if row.get("quick"):
        parts.append(f"quick ({row.get('steps')} steps)")
    busy = max(row.get("cpu_busy_before", 0.0), row.get("cpu_busy_others", 0.0))
    if busy >= 0.1:
        parts.append(f"other processes used {busy:.0%} of the CPUs")
    if row.get("steps_note"):
        parts.append(row["steps_note"])
    parts += row.get("notes", [])
    return "; ".join(parts)


def compile_table(rows: list[Row]) -> list[str]:
    """Per workload: relax's first compile, relax's compile in a new process on
    the warm compilation cache, and JAX's first compile (seconds)."""
    lines = ["", "Compile times (seconds):", "",
             "| workload | relax first compile s | relax compile, new process, warm cache s "
                 "| JAX compile s |", "|---|--:|--:|--:|"]
    count = 0
    for workload in WORKLOADS:
        found = {r.get("system"): r for r in rows if r.get("workload") == workload
                 and "error" not in r and "skipped" not in r}
        relax, jax = found.get("relax", {}), found.get("jax", {})
        if not relax and not jax:
            continue
        cached = _fmt(relax.get("cached_compile_s"), ".2f")
        if relax.get("cached_compile_s") is not None and not relax.get("cached_compile_hit"):
            cached += " (cache miss)"
        lines.append(f"| {workload} | {_fmt(relax.get('compile_s'), '.2f')} | {cached} "
                     f"| {_fmt(jax.get('compile_s'), '.2f')} |")
        count += 1
    return lines if count else []


def render(doc: dict[str, Any]) -> str:
    """RESULTS.md: machine, versions, then one table per thread count."""
    machine = doc.get("machine", {})
    out = ["# Training-step benchmark: relax-mlir vs JAX, numpy, PyTorch", "",
           f"Generated by `python bench/run.py` on {doc.get('date', '?')} at commit "
           f"{doc.get('commit', '?')} (raw rows: `bench/results/{doc.get('date', '?')}.json`; "
           f"a row measured at another commit says so in its notes).", "",
           f"- Machine: {machine.get('model', '?')} ({machine.get('vendor', '?')}, family/model "
           f"{machine.get('family_model', '?')}), {machine.get('cores', '?')} cores, "
           f"vector features: {', '.join(machine.get('vector_flags', []))}",
           f"- Kernel: {machine.get('kernel', '?')}; Python {machine.get('python', '?')}"]
    for system, version in sorted(doc.get("versions", {}).items()):
        out.append(f"- {system}: {version}")
    sgemm = doc.get("sgemm")
    if sgemm and "gflops" in sgemm:
        out.append(f"- numpy float32 1024x1024x1024 matmul, 1 thread: "
                   f"**{sgemm['gflops']:.1f} GFLOP/s** ({sgemm['median_ms']:.2f} ms)")
    elif sgemm:
        out.append(f"- numpy sgemm probe failed: {sgemm.get('error')}")
    out += ["", *LEGEND, ""]
    rows: list[Row] = doc.get("rows", [])
    for threads in sorted({r.get("threads", 0) for r in rows}):
        out += [f"## {threads} thread{'s' if threads != 1 else ''}", "",
                "| workload | system | step ms | × JAX | compile s | RSS Δ MiB | peak RSS MiB "
                "| temp MiB | max rel err | steps | notes |",
                "|---|---|--:|--:|--:|--:|--:|--:|--:|--:|---|"]
        trows = [r for r in rows if r.get("threads") == threads]
        for workload in WORKLOADS:
            wrows = [r for r in trows if r.get("workload") == workload]
            jax = next((r for r in wrows if r.get("system") == "jax" and "median_ms" in r), None)
            for r in wrows:
                name = f"{workload}" if r is wrows[0] else ""
                if "error" in r:
                    error = r["error"].replace("|", "\\|").replace("\n", " ")[:160]
                    out.append(f"| {name} | {r['system']} | **error** | | | | | | | | {error} |")
                    continue
                if "skipped" in r:
                    out.append(f"| {name} | {r['system']} | n/a | | | | | | | | {r['skipped']} |")
                    continue
                ratio = r["median_ms"] / jax["median_ms"] if jax else None
                out.append(
                    f"| {name} | {r['system']} | {r['median_ms']:.3f} | {_fmt(ratio, '.2f')} "
                    f"| {r.get('compile_s', 0):.2f} | {r.get('rss_increase_mib', 0):.1f} "
                    f"| {r.get('peak_rss_mib', 0):.0f} | {_fmt(r.get('temp_peak_mib'), '.1f')} "
                    f"| {r.get('max_rel_err', float('nan')):.1e} "
                    f"| {r.get('steps')} "
                    f"| {_notes(r, doc.get('versions', {}), doc.get('commit'))} |")
        out += compile_table(trows)
        deep = [r for r in trows if r.get("workload") == "deep_mlp" and "matmul_gflops" in r]
        if deep:
            counted = deep[0].get("matmul_flops", 0) / 1e9
            rates = ", ".join(f"{r['system']} {r['matmul_gflops']:.1f}" for r in deep)
            out += ["", f"deep_mlp achieved GFLOP/s ({counted:.2f} GFLOP per step counted: 3 "
                        f"matmuls per layer, forward, dX and dW, each 2*128*1024*1024; the first "
                        f"layer's dX is counted although a compiler may skip it): {rates}."]
        out.append("")
    return "\n".join(out)


# --- driver ---------------------------------------------------------------------------------


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--workloads", nargs="+", default=list(WORKLOADS), choices=WORKLOADS,
                        metavar="W", help=f"subset of {', '.join(WORKLOADS)}")
    parser.add_argument("--systems", nargs="+", default=list(SYSTEMS), choices=SYSTEMS,
                        metavar="S", help=f"subset of {', '.join(SYSTEMS)}")
    parser.add_argument("--threads", nargs="+", type=int, default=None,
                        help="thread counts (default 1 2; 1 with --quick)")
    parser.add_argument("--steps", type=int, default=None,
                        help="timed steps (default 100; 5 with --quick)")
    parser.add_argument("--warmup", type=int, default=None,
                        help="warm-up steps (default 10; 2 with --quick)")
    parser.add_argument("--quick", action="store_true", help="smoke test: few steps, 1 thread")
    parser.add_argument("--timeout", type=float, default=1800.0,
                        help="seconds per subprocess (default 1800)")
    parser.add_argument("--time-budget", type=float, default=60.0,
                        help="seconds of timed steps for a workload whose step takes > 100 ms")
    parser.add_argument("--wait-idle", type=float, default=0.0, metavar="SECONDS",
                        help="before each measurement, wait up to SECONDS for the other "
                             "processes' CPU use to drop under 10%% (a shared machine)")
    parser.add_argument("--fresh", action="store_true",
                        help="do not merge with today's results file")
    parser.add_argument("--no-sgemm", action="store_true", help="skip numpy's sgemm probe")
    parser.add_argument("--render-only", action="store_true",
                        help="only regenerate RESULTS.md from today's (or --date's) JSON")
    parser.add_argument("--date", default=dt.date.today().isoformat(),
                        help="the results file's date (default today)")
    parser.add_argument("--relax-python", default=str(ROOT / ".venv" / "bin" / "python"))
    parser.add_argument("--bench-python", default=str(BENCH / ".venv" / "bin" / "python"))
    args = parser.parse_args(argv)
    if args.threads is None:
        args.threads = [1] if args.quick else [1, 2]
    if args.steps is None:
        args.steps = 5 if args.quick else 100
    if args.warmup is None:
        args.warmup = 2 if args.quick else 10
    return args


def main(argv: list[str] | None = None) -> None:
    args = parse_args(argv)
    path = RESULTS_DIR / f"{args.date}.json"
    doc = {} if args.fresh else load(path)
    if args.render_only:
        RESULTS_MD.write_text(render(doc))
        print(f"wrote {RESULTS_MD}")
        return

    commit = source_commit()
    machine = cpu_info()
    machine.update(kernel=platform.release(), python=platform.python_version())
    versions: dict[str, str] = dict(doc.get("versions", {}))
    broken: dict[str, str] = {}
    for system in args.systems:
        probe = run_subprocess(system, ["--probe", "version"], 1, 300, args, measure=False)
        if "error" in probe:
            broken[system] = probe["error"] + (": " + probe.get("stderr_tail", "")[-500:]
                                               if "stderr_tail" in probe else "")
            print(f"[{system}] unusable: {broken[system]}", file=sys.stderr)
        else:
            versions[system] = probe["version"]

    sgemm = doc.get("sgemm")
    if not args.no_sgemm:
        sgemm = run_subprocess("numpy", ["--probe", "sgemm"], 1, 600, args)
        print(f"[numpy sgemm 1 thread] {sgemm.get('gflops', sgemm.get('error'))} GFLOP/s",
              file=sys.stderr)

    rows: list[Row] = []
    for threads in args.threads:
        for workload in args.workloads:
            for system in args.systems:
                label = f"[{threads}T {workload} {system}]"
                if system in broken:
                    row: Row = {"system": system, "workload": workload, "threads": threads,
                                "error": f"system unusable: {broken[system]}"}
                else:
                    row = measure_row(system, workload, threads, args)
                row["quick"] = args.quick
                row["commit"] = commit
                rows.append(row)
                if "error" in row:
                    print(f"{label} ERROR {row['error'][:300]}", file=sys.stderr)
                elif "skipped" in row:
                    print(f"{label} skipped: {row['skipped']}", file=sys.stderr)
                else:
                    cached = (f" ({row['cached_compile_s']:.2f} s on the warm cache)"
                              if "cached_compile_s" in row else "")
                    print(f"{label} {row['median_ms']:.3f} ms, compile {row['compile_s']:.2f} s"
                          f"{cached}, RSS +{row['rss_increase_mib']:.1f} MiB, max rel err "
                          f"{row['max_rel_err']:.1e}", file=sys.stderr)

    doc = {"date": args.date, "commit": commit, "machine": machine, "versions": versions,
           "sgemm": sgemm,
           "command": " ".join([Path(sys.executable).name, *sys.argv]),
           "rows": merge_rows(doc.get("rows", []), rows)}
    RESULTS_DIR.mkdir(exist_ok=True)
    tmp = path.with_suffix(".json.tmp")
    tmp.write_text(json.dumps(doc, indent=1) + "\n")
    tmp.replace(path)
    RESULTS_MD.write_text(render(doc))
    print(f"wrote {path} and {RESULTS_MD}", file=sys.stderr)


if __name__ == "__main__":
    main()
