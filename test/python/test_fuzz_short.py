"""A short run of the relax-opt mutation fuzzer (tools/fuzz/relax_fuzz.py).

About 30 s with a fixed seed: no mutant may crash relax-opt, hang it, make a
pass print IR that does not parse and verify again, or fail without a
diagnostic. `make fuzz` runs the same fuzzer for longer.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
RELAX_OPT = os.environ.get("RELAX_OPT", str(ROOT / "build" / "bin" / "relax-opt"))
DURATION_S = 30
SEED = 20240611


def test_fuzz_short(tmp_path: Path) -> None:
    summary = tmp_path / "summary.json"
    proc = subprocess.run(
        [sys.executable, str(ROOT / "tools" / "fuzz" / "relax_fuzz.py"),
         "--relax-opt", RELAX_OPT, "--duration", str(DURATION_S), "--seed", str(SEED),
         "--jobs", "2", "--out", str(tmp_path / "findings"), "--json", str(summary)],
        capture_output=True, text=True, timeout=DURATION_S + 120)
    assert summary.exists(), f"the fuzzer did not finish:\n{proc.stdout}\n{proc.stderr}"
    result = json.loads(summary.read_text())
    counts = result["counts"]
    # A fuzzer that only ever hits parse errors tests nothing: some mutants must pass.
    assert result["runs"] >= 50 and counts["accepted"] > 0, proc.stdout
    findings = {c: counts[c] for c in ("crash", "hang", "invalid-ir", "no-diagnostic")}
    assert not any(findings.values()), (
        f"relax-opt findings {findings} (inputs under {tmp_path / 'findings'}):\n{proc.stdout}")
    assert proc.returncode == 0, proc.stdout + proc.stderr
