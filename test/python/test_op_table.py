"""The op table (relax_mlir_testing/ops.py) against the dialect, and the table's
own references.

The coverage test fails when the dialect registers an op the table has no entry
for (or no case for, or no gradient case for an op with a gradient rule), when the
table names an op the dialect lacks, or when an entry's family or `gradient` flag
disagrees with the dialect. The other tests need no compiler: every case's
reference runs on its samples, and the references of the subtler ops match
values worked out by hand.
"""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest
import relax_mlir

from relax_mlir_testing import harness as rt
from relax_mlir_testing import programs
from relax_mlir_testing import references as ref
from relax_mlir_testing.cases import OpCase, indices, with_zeros
from relax_mlir_testing.ops import CUSTOM, OPS, STRUCTURAL, STRUCTURE_KINDS, TABLE

ROOT = Path(__file__).resolve().parents[2]
ODS = ROOT / "compiler" / "include" / "relax-mlir" / "Dialect" / "Relax" / "IR" / "ops"
ENTRY = "test/lib/relax_mlir_testing/ops.py"


def test_every_dialect_op_has_an_entry_with_cases() -> None:
    dialect = {o.name.removeprefix("relax."): o for o in relax_mlir.ops()}
    problems = []
    missing = sorted(set(dialect) - STRUCTURAL - set(OPS))
    if missing:
        problems.append(
            f"ops the dialect registers with no entry in the op table: {missing}; add an "
            f"`Op(name, family, kind, reference, dtypes, cases=...)` entry to its family's "
            f"section of {ENTRY} (docs/adding-an-op.md)")
    stale = sorted((set(OPS) | STRUCTURAL) - set(dialect))
    if stale:
        problems.append(f"the op table names ops the dialect does not register: {stale}")
    for name, op in OPS.items():
        if name not in dialect:
            continue
        if op.gradient != dialect[name].gradient:
            problems.append(f"{name}: the table says gradient={op.gradient}, the dialect "
                            f"{'has' if dialect[name].gradient else 'has no'} gradient rule")
        if op.kind in STRUCTURE_KINDS:
            if op.cases:
                problems.append(f"{name} is structure (tested in test_gradient_behaviours.py "
                                f"and test_checkpoint.py) but has cases")
            continue
        if not op.bound:
            problems.append(f"{name} has no cases: list its configurations in `cases=`")
        elif op.gradient and not any(c.grad_inputs for c in op.bound):
            problems.append(f"{name} has a gradient rule but no gradient case: give one of "
                            f"its cases a float element type and gradient inputs")
    assert not problems, "\n".join(problems)


def test_each_entry_is_in_its_family_file() -> None:
    """An entry's family is the ODS file that defines the op (ops/<Family>Ops.td)."""
    defined = {}
    for td in ODS.glob("*Ops.td"):
        for name in re.findall(r'Relax_\w*Op<\s*"(\w+)"', td.read_text()):
            defined[name] = td.name.removesuffix("Ops.td")
    wrong = {n: (op.family, defined.get(n)) for n, op in OPS.items() if defined.get(n) != op.family}
    assert not wrong, f"entries whose family is not the .td file of the op: {wrong}"


def test_cases_run_in_element_types_the_op_takes() -> None:
    """A case's data operands (not indices, targets or conditions) have element
    types its op's entry declares, so the generator and the tests agree on them."""
    wrong = {}
    for c in TABLE:
        assert c.spec is not None
        data = {rt.element_type(d) for d in c.run_dtypes
                if any(i.dtype is None for i in c.inputs)}
        if not data <= c.spec.dtypes:
            wrong[c.id] = sorted(data - c.spec.dtypes)
    assert not wrong, f"cases running in element types their op does not take: {wrong}"


def test_ops_with_special_operands_have_a_sampler() -> None:
    """The generator picks a CUSTOM op's operands and attributes only through its sampler."""
    missing = sorted(n for n, op in OPS.items() if op.kind == CUSTOM
                     and n not in programs.SAMPLERS)
    assert not missing, f"CUSTOM ops with no sampler in programs.SAMPLERS: {missing}"
    assert set(programs.SAMPLERS) <= set(OPS)


def test_case_ids_are_unique() -> None:
    ids = [c.id for c in TABLE]
    assert len(ids) == len(set(ids)), sorted(i for i in ids if ids.count(i) > 1)


@pytest.mark.parametrize("case", [pytest.param(c, id=c.id) for c in TABLE])
def test_reference_runs_on_its_samples(case: OpCase) -> None:
    """In each element type of the case, the samples have the declared types and the
    reference gives finite values (so that a forward failure is the compiler's, not the
    table's); the gradient samples keep away from the kinks."""
    for dtype in case.dtypes:
        inputs = case.sample(dtype, rt.rng(case.id, rt.element_type(dtype)))
        for i in case.inputs:
            a = inputs[i.name]
            assert a.shape == tuple(i.shape) and a.dtype == np.dtype(i.element_type(dtype)), i
        with np.errstate(all="raise"):
            out = case.expected(inputs)
        outs = out if isinstance(out, tuple) else (out,)
        # Empty parts of a split may occur; an all-empty result checks nothing.
        assert any(o.size > 0 for o in outs), "all-empty results are not in the table"
        for o in outs:
            if np.issubdtype(o.dtype, np.floating):
                assert np.all(np.isfinite(o)), (dtype, o)
    if case.grad_inputs:
        g = case.sample(case.grad_dtype, rt.rng("g", case.id), gradient=True)
        for name in case.grad_inputs:
            assert is_float_input(g[name]), (name, g[name].dtype)
            for k in case.kinks:
                assert np.all(np.abs(g[name] - k) >= case.kink_margin), (name, k, g[name])


def is_float_input(a: np.ndarray) -> bool:
    return np.issubdtype(a.dtype, np.floating)


def test_nll_loss_reference() -> None:
    """PyTorch's F.nll_loss on a case worked out by hand."""
    pred = np.array([[0.1, 0.2, 0.7], [0.5, 0.3, 0.2], [0.6, 0.1, 0.3]])
    t = np.array([2, -100, 0])
    w = np.array([1.0, 2.0, 3.0])
    # Rows 0 and 2 count: -(3 * 0.7 + 1 * 0.6); the weights of their targets sum to 4.
    assert ref.nll_loss(pred, t, w, reduction="sum") == pytest.approx(-2.7)
    assert ref.nll_loss(pred, t, w) == pytest.approx(-2.7 / 4)
    np.testing.assert_allclose(ref.nll_loss(pred, t, w, reduction="none"), [-2.1, 0.0, -0.6])
    assert ref.nll_loss(pred, t) == pytest.approx(-(0.7 + 0.6) / 2)
    # ignore_index may be a class index.
    assert ref.nll_loss(pred, np.array([2, 1, 0]), ignore_index=2) == \
        pytest.approx(-(0.3 + 0.6) / 2)
    # (C) with a 0-d target, and (N, C, d1) with (N, d1).
    assert ref.nll_loss(pred[0], np.array(1), w) == pytest.approx(-0.2)
    p3 = np.arange(12.0).reshape(2, 3, 2)
    t3 = np.array([[0, 2], [1, -100]])
    np.testing.assert_allclose(ref.nll_loss(p3, t3, reduction="none"),
                               [[-0.0, -5.0], [-8.0, 0.0]])


def test_layer_norm_reference() -> None:
    x = np.arange(24.0).reshape(2, 3, 4)
    gamma = np.arange(1.0, 9.0).reshape(2, 4)
    beta = np.full((2, 4), 0.5)
    out = ref.layer_norm(x, gamma, beta, axes=[2, 0], epsilon=0.0)
    for j in range(3):
        s = x[:, j, :]
        np.testing.assert_allclose(out[:, j, :], (s - s.mean()) / s.std() * gamma + beta)


def test_shape_references() -> None:
    x = np.arange(20).reshape(4, 5)
    np.testing.assert_array_equal(ref.strided_slice(x, [0, 1], [3, 4], [-5, 0], [-1, -2]),
                                  x[::-1, 4:0:-2])
    np.testing.assert_array_equal(ref.strided_slice(x, [1], [-4], [100]), x[:, 1:])
    np.testing.assert_array_equal(ref.pad(x, [1, 0, 0, 2], -1.0)[0], np.full(7, -1))
    idx = indices(5)(np.random.default_rng(0), (4,), np.int64)
    assert idx[1] == idx[0] and idx[2] == -1
    z = with_zeros((1, 2), (2, 0), (2, 3))(np.random.default_rng(0), (3, 4), np.float64)
    assert [int(np.sum(r == 0)) for r in z] == [0, 1, 2]
    np.testing.assert_array_equal(ref.astype(np.array([-2.7, 2.7]), "i32"), [-2, 2])
