"""A short run of the relax-opt mutation fuzzer (tools/fuzz/relax_fuzz.py).

A fixed number of runs (640, about 25 s on a 2-core machine) from a fixed
seed: each run's mutant depends only on the seed and its index, so every
machine tests the same inputs (a fixed duration made a slower or faster run
reach other inputs, and CI could meet a new finding at random). No mutant
may crash relax-opt, hang it, make a pass print IR that does not parse and
verify again, or fail without a diagnostic. `make fuzz` runs the same
fuzzer for longer.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
RELAX_OPT = os.environ.get("RELAX_OPT", str(ROOT / "build" / "bin" / "relax-opt"))
RUNS = 640
SEED = 20240611


def test_fuzz_short(tmp_path: Path) -> None:
    summary = tmp_path / "summary.json"
    proc = subprocess.run(
        [sys.executable, str(ROOT / "tools" / "fuzz" / "relax_fuzz.py"),
         "--relax-opt", RELAX_OPT, "--runs", str(RUNS), "--seed", str(SEED),
         "--jobs", "2", "--out", str(tmp_path / "findings"), "--json", str(summary)],
        capture_output=True, text=True, timeout=900)
    assert summary.exists(), f"the fuzzer did not finish:\n{proc.stdout}\n{proc.stderr}"
    result = json.loads(summary.read_text())
    counts = result["counts"]
    # A fuzzer that only ever hits parse errors tests nothing: some mutants must pass.
    assert result["runs"] == RUNS and counts["accepted"] > 0, proc.stdout
    findings = {c: counts[c] for c in ("crash", "hang", "invalid-ir", "no-diagnostic")}
    assert not any(findings.values()), (
        f"relax-opt findings {findings} (inputs under {tmp_path / 'findings'}):\n{proc.stdout}")
    assert proc.returncode == 0, proc.stdout + proc.stderr
