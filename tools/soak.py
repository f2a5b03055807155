#!/usr/bin/env python3
"""Soak test: many random relax programs through gradient + compile + run.

Each seed's program (test/lib/relax_mlir_testing/programs.py) is differentiated, compiled and
run in a worker subprocess, so that a native crash or a hang is reported with
its seed instead of ending the run. Every program is compiled at opt level 0
and at one of 1-3 (1 + seed % 3; `--opt-levels 0,1,2,3` for all four) and
each level's results checked; about a third of all operands are read through
views (strided and offset slices, transposes, broadcasts, gathers). Prints
every failure (seed, opt levels, message, program text, arguments) and a
summary; exits non-zero when any program crashed, gave a wrong result, was
rejected by relax_mlir, or broke the checker itself.

    python tools/soak.py --count 1000 --seed 0 --workers 2
    make soak N=5000 SEED=100000
"""

from __future__ import annotations

import argparse
import collections
import os
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "test", "lib"))

from relax_mlir_testing import programs as pg  # noqa: E402

# Statuses, in the order of the summary, with what they mean.
STATUSES = {
    "passed": "passed",
    "rejected": "rejected (relax_mlir raised an error for a valid program)",
    "crashed": "crashed (worker killed by a signal, exited, or timed out)",
    "wrong": "wrong results",
    "error": "checker errors (an exception in the generator or checker)",
}


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--count", "-n", type=int, default=1000, help="number of programs")
    parser.add_argument("--seed", type=int, default=0, help="first seed")
    parser.add_argument("--workers", "-j", type=int, default=2)
    parser.add_argument("--timeout", type=float, default=300.0, help="seconds per program")
    parser.add_argument("--no-int-div-zero", action="store_true",
                        help="never generate integer division by zero")
    parser.add_argument("--opt-levels", type=lambda s: [int(x) for x in s.split(",")],
                        default=None, metavar="L,L",
                        help="opt levels to compile every program at (default: 0 and "
                             "1 + seed %% 3)")
    parser.add_argument("--quiet", "-q", action="store_true", help="no progress lines")
    opts = parser.parse_args(argv)

    config = pg.GenConfig(int_div_zero=not opts.no_int_div_zero)
    worker_args = ["--no-int-div-zero"] if opts.no_int_div_zero else []
    pool = pg.WorkerPool(opts.workers, opts.timeout, worker_args)
    seeds = range(opts.seed, opts.seed + opts.count)
    counts: collections.Counter[str] = collections.Counter()
    failures: list[dict] = []
    skipped_programs = partial_programs = skipped_elements = checked_elements = 0
    forward_skipped = 0
    margins: dict[str, tuple[float, int]] = {}  # dtype -> (largest forward |error|/tolerance, seed)
    grad_margin = (0.0, -1)
    start = time.time()
    requests = ({"seed": s, "opt_levels": opts.opt_levels or list(pg.opt_levels(s))}
                for s in seeds)
    for done, rec in enumerate(pool.run(requests), 1):
        counts[rec["status"]] += 1
        if rec["status"] == "passed":
            skipped_programs += rec["gradient"] == "skipped"
            partial_programs += rec["gradient"] == "partial"
            forward_skipped += bool(rec["forward_skipped"])
            skipped_elements += rec["grad_skipped"]
            checked_elements += rec["grad_elements"]
            if rec["forward_margin"] > margins.get(rec["dtype"], (0.0, -1))[0]:
                margins[rec["dtype"]] = (rec["forward_margin"], rec["seed"])
            if rec["grad_margin"] > grad_margin[0]:
                grad_margin = (rec["grad_margin"], rec["seed"])
        else:
            failures.append(rec)
            print(f"\n=== {pg.describe(rec, config)}", flush=True)
        if not opts.quiet and (done % 100 == 0 or done == len(seeds)):
            print(f"[{done}/{len(seeds)}] {time.time() - start:.0f} s: "
                  + ", ".join(f"{k} {v}" for k, v in sorted(counts.items())), flush=True)

    print(f"\nsoak: seeds {seeds.start}..{seeds.stop - 1}, {time.time() - start:.0f} s")
    print(f"  programs:      {len(seeds)}")
    for status, what in STATUSES.items():
        print(f"  {what}: {counts[status]}")
    print(f"  gradient checks skipped (kinks): {skipped_programs} programs entirely, "
          f"{partial_programs} partly ({skipped_elements} elements skipped, "
          f"{checked_elements} checked); forward checks skipped (ties): {forward_skipped}")
    print("  largest |error| / tolerance among passed checks: forward "
          + ", ".join(f"{d} {m:.3g} (seed {s})" for d, (m, s) in sorted(margins.items()))
          + f"; gradients {grad_margin[0]:.3g} (seed {grad_margin[1]})")
    if failures:
        by_status = collections.defaultdict(list)
        for rec in failures:
            by_status[rec["status"]].append(rec["seed"])
        for status, bad in by_status.items():
            print(f"  {status} seeds: {' '.join(map(str, sorted(bad)))}")
    bad = sum(counts[s] for s in STATUSES if s != "passed")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
