"""Random relax programs (program_gen.py) through gradient + compile + run.

For each of SEEDS, the generated program is differentiated with
`relax_mlir.gradient`, compiled with `relax_mlir.compile`, and `<func>_adjoint`
(and `<func>`) called on the program's arguments. The forward value is compared
with the float64 interpreter of program_gen (tolerances from a jittered
re-evaluation, see `program_gen.forward_tolerance`), and every gradient element
of f64 programs with float64 central finite differences of the interpreter
(see `program_gen.check_gradients`); f32/f16 programs are checked forward only.
Checks in a finite difference that straddles a relu/greater kink are skipped.

The programs run in worker subprocesses (two by default, RELAX_GEN_WORKERS),
so a crash in native code fails its seed's test with the seed and the program
instead of ending the session. A failure prints the seed, what differed, the
program text and its arguments; `python test/python/program_gen.py SEED`
prints the program again, and `tools/soak.py` runs many more seeds.
"""

from __future__ import annotations

import os
from typing import Any

import numpy as np
import pytest

import program_gen as pg

SEEDS = range(100)
WORKERS = int(os.environ.get("RELAX_GEN_WORKERS", "2"))


@pytest.fixture(scope="module")
def outcomes() -> dict[int, dict[str, Any]]:
    """Every seed's record, checked in worker subprocesses."""
    pool = pg.WorkerPool(WORKERS, timeout=300)
    return {rec["seed"]: rec for rec in pool.run({"seed": s} for s in SEEDS)}


@pytest.mark.parametrize("seed", SEEDS)
def test_random_program(outcomes: dict[int, dict[str, Any]], seed: int) -> None:
    rec = outcomes[seed]
    if rec["status"] != "passed":
        pytest.fail(pg.describe(rec), pytrace=False)


def test_checker_catches_wrong_results(outcomes: dict[int, dict[str, Any]]) -> None:
    """A forward value or one gradient element off by 1e-3 relative is reported
    as wrong: the comparisons above can fail."""
    fully_checked = [s for s, r in sorted(outcomes.items())
                     if r["status"] == "passed" and r["gradient"] == "checked"
                     and not r["forward_skipped"]]
    assert len(fully_checked) >= 3, "too few fully checked programs"
    requests = [{"seed": s, "corrupt": c} for s in fully_checked[:3]
                for c in ("forward", "gradient")]
    for rec in pg.WorkerPool(WORKERS, timeout=300).run(requests):
        assert rec["status"] == "wrong", pg.describe(rec)


def test_pool_reports_a_native_crash_with_its_seed() -> None:
    recs = {r["seed"]: r for r in pg.WorkerPool(1, timeout=300).run(
        [{"seed": 3, "corrupt": "crash"}, {"seed": 4}])}
    assert recs[3]["status"] == "crashed" and "SIGSEGV" in recs[3]["message"], recs[3]
    assert "seed 3" in pg.describe(recs[3]) and "func.func" in pg.describe(recs[3])
    # The worker was restarted for the next seed.
    assert recs[4]["status"] == "passed", pg.describe(recs[4])


def relax_op_names() -> set[str]:
    from relax_mlir.dialects import relax
    return {cls.OPERATION_NAME for cls in vars(relax).values()
            if isinstance(cls, type)
            and str(getattr(cls, "OPERATION_NAME", "")).startswith("relax.")}


def test_every_relax_op_is_generated_or_structural() -> None:
    """Each op the dialect registers is in the generator's table (or is the
    dataflow structure the generator writes itself), and nothing else is."""
    registered = relax_op_names()
    known = {f"relax.{n}" for n in pg.OPS} | {f"relax.{n}" for n in pg.STRUCTURAL}
    missing = sorted(registered - known)
    assert not missing, (f"ops the random program generator does not know: {missing}; add "
                         f"one OpSpec line each to program_gen.OPS")
    stale = sorted(known - registered)
    assert not stale, f"program_gen.OPS names ops the dialect does not have: {stale}"


COVERAGE = (
    {*pg.OPS}
    | {f"rank{r}" for r in range(6)}
    | {"size-1-dim", "0-size-dim", "broadcast", "negative-axis", "keepdims", "empty-axis",
       "reduce-0d", "f16", "f32", "f64", "i32", "i64", "i1", "constant", "tuple-param",
       "tuple-result", "nested-tuple", "target-index", "checkpoint", "glue-before",
       "glue-after", "integer-to-target", "require-grads", "func-name", "unnamed-param"}
)


def test_seeds_cover_the_dialect() -> None:
    """The programs of SEEDS together use every op and every feature listed."""
    seen: set[str] = set()
    for s in SEEDS:
        seen |= pg.generate(s).features
    assert not sorted(COVERAGE - seen), f"not covered by seeds {SEEDS}: {sorted(COVERAGE - seen)}"


def test_generation_is_deterministic() -> None:
    for s in (0, 7, 42):
        a, b = pg.generate(s), pg.generate(s)
        assert a.text() == b.text()
        for x, y, p in zip(a.args, b.args, a.params):
            for (_, u, _), (_, v, _) in zip(pg.leaves(x, p.type), pg.leaves(y, p.type)):
                np.testing.assert_array_equal(u, v)


def test_interpreter_semantics() -> None:
    """The references the checks rest on, on cases worked out by hand."""
    a = np.array([7, -7, 7, -7, 5, 0])
    b = np.array([2, 2, -2, -2, 0, 3])
    np.testing.assert_array_equal(pg.OPS["divide"].ref(a, b), [3, -3, -3, 3, 0, 0])
    x = np.arange(24.0).reshape(2, 3, 4)
    np.testing.assert_array_equal(pg.OPS["collapse_sum_to"].ref(x, shape=(3, 1)),
                                  x.sum(axis=(0, 2)).reshape(3, 1))
    np.testing.assert_array_equal(pg.OPS["sum"].ref(x, axis=[-1, 0], keepdims=True),
                                  x.sum(axis=(0, 2), keepdims=True))
    np.testing.assert_array_equal(pg.OPS["mean"].ref(x, axis=[]), x)
    np.testing.assert_array_equal(pg.OPS["permute_dims"].ref(x, axes=[-1, 0, 1]),
                                  x.transpose(2, 0, 1))
    np.testing.assert_array_equal(pg.OPS["permute_dims"].ref(x), x.transpose(2, 1, 0))
    t = pg.TensorType((2, 0, 3), "f64")
    assert pg.dense_text(np.zeros((2, 0, 3)), t) == "dense<>"
    assert pg.dense_text(np.array([1e-5, 2.0]), pg.TensorType((2,), "f64")) == \
        "dense<[1.0000000000000001e-05, 2.0]>"
    assert pg.dense_text(np.array([True, False]), pg.TensorType((2,), "i1")) == \
        "dense<[true, false]>"
