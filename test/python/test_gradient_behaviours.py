"""Behaviours of the gradient pass, checked numerically from Python against float64
central finite differences of numpy references: tuple parameters, nested tuple
results with target_index, aliases, constants, a parameter used many times,
require_grads in any order or subset, integer parameters skipped by default;
and the text of the errors (several missing rules in one error, calls, an
existing @main_adjoint).
"""

from __future__ import annotations

import pickle
from collections.abc import Callable, Sequence
from pathlib import Path

import numpy as np
import pytest
import relax_mlir

from relax_mlir_testing import harness as rt
from relax_mlir_testing import references as ref

H = 1e-6
RTOL = 1e-6
ATOL = 1e-8
F64 = np.float64


def fd(np_loss: Callable[[list[np.ndarray]], float], args: Sequence[np.ndarray],
       index: int) -> np.ndarray:
    return rt.central_difference(np_loss, list(args), index, H)


def assert_grad(actual: np.ndarray, expected: np.ndarray, what: str) -> None:
    actual = np.asarray(actual)
    assert actual.shape == np.shape(expected), (what, actual.shape, np.shape(expected))
    np.testing.assert_allclose(actual, expected, rtol=RTOL, atol=ATOL, err_msg=what)


ISOLATED_SCRIPT = """
import pickle, sys
import relax_mlir
text, kwargs, args = pickle.load(open(sys.argv[1], "rb"))
exe = relax_mlir.compile(relax_mlir.gradient(text, **kwargs))
pickle.dump(exe.main_adjoint(*args), open(sys.argv[2], "wb"))
print("DONE")
"""


def adjoint_isolated(tmp_path: Path, text: str, args: Sequence[object], **kwargs: object):
    """Differentiates, compiles and calls main_adjoint in a fresh interpreter, so
    that a crash in native code fails one test only; returns what it returned."""
    with open(tmp_path / "in.pkl", "wb") as f:
        pickle.dump((text, kwargs, list(args)), f)
    proc = rt.run_python(ISOLATED_SCRIPT, tmp_path, str(tmp_path / "in.pkl"),
                         str(tmp_path / "out.pkl"))
    assert proc.returncode == 0 and "DONE" in proc.stdout, rt.describe_process(proc)
    with open(tmp_path / "out.pkl", "rb") as f:
        return pickle.load(f)


def inputs(key: object, *shapes: tuple[int, ...]) -> list[np.ndarray]:
    gen = rt.rng("behaviours", key)
    return [gen.uniform(-1.5, 1.5, size=s).astype(F64) for s in shapes]


# ----------------------------------------------------------------------------
# Tuple parameters
# ----------------------------------------------------------------------------

TUPLE_PARAM = """
func.func @main(%t: tuple<tensor<2x3xf64>, tensor<3xf64>> {relax.name = "t"},
                %z: tensor<3xf64> {relax.name = "z"}) -> tensor<f64> {
  %r = relax.dataflow -> (tensor<f64>) {
    %a = relax.tuple_get_item %t[0] : tuple<tensor<2x3xf64>, tensor<3xf64>>
    %b = relax.tuple_get_item %t[1] : tuple<tensor<2x3xf64>, tensor<3xf64>>
    %e = relax.exp %a : tensor<2x3xf64>
    %eb = relax.multiply %e, %b : tensor<2x3xf64>, tensor<3xf64> -> tensor<2x3xf64>
    %s1 = relax.sum %eb : tensor<2x3xf64> -> tensor<f64>
    %bz = relax.multiply %b, %z : tensor<3xf64>, tensor<3xf64> -> tensor<3xf64>
    %s2 = relax.sum %bz : tensor<3xf64> -> tensor<f64>
    %l = relax.add %s1, %s2 : tensor<f64>, tensor<f64> -> tensor<f64>
    relax.output %l : tensor<f64>
  }
  return %r : tensor<f64>
}
"""


def tuple_param_np(args: list[np.ndarray]) -> float:
    a, b, z = args
    return float(np.sum(np.exp(a) * b) + np.sum(b * z))


def test_tuple_parameter_gets_a_tuple_of_gradients() -> None:
    a, b, z = inputs("tuple-param", (2, 3), (3,), (3,))
    exe = rt.compile_gradient(TUPLE_PARAM)
    loss, grads = exe.main_adjoint((a, b), z)
    np.testing.assert_allclose(loss, tuple_param_np([a, b, z]), rtol=1e-12)
    assert len(grads) == 2
    dt, dz = grads
    assert isinstance(dt, tuple) and len(dt) == 2
    assert_grad(dt[0], fd(tuple_param_np, [a, b, z], 0), "dt[0]")
    assert_grad(dt[1], fd(tuple_param_np, [a, b, z], 1), "dt[1]")
    assert_grad(dz, fd(tuple_param_np, [a, b, z], 2), "dz")


def test_tuple_parameter_by_name_alone() -> None:
    a, b, z = inputs("tuple-param", (2, 3), (3,), (3,))
    exe = rt.compile_gradient(TUPLE_PARAM, ("t",))
    _, grads = exe.main_adjoint((a, b), z)
    assert len(grads) == 1 and len(grads[0]) == 2
    assert_grad(grads[0][1], fd(tuple_param_np, [a, b, z], 1), "dt[1]")


NESTED_TUPLE = """
func.func @main(%t: tuple<tensor<3xf64>, tuple<tensor<2xf64>, tensor<f64>>>,
                %y: tensor<3xf64>) -> tuple<tuple<tensor<3xf64>, tensor<2xf64>>, tensor<f64>, tensor<f64>> {
  %r:3 = relax.dataflow -> (tuple<tensor<3xf64>, tensor<2xf64>>, tensor<f64>, tensor<f64>) {
    %a = relax.tuple_get_item %t[0] : tuple<tensor<3xf64>, tuple<tensor<2xf64>, tensor<f64>>>
    %in = relax.tuple_get_item %t[1] : tuple<tensor<3xf64>, tuple<tensor<2xf64>, tensor<f64>>>
    %b = relax.tuple_get_item %in[0] : tuple<tensor<2xf64>, tensor<f64>>
    %c = relax.tuple_get_item %in[1] : tuple<tensor<2xf64>, tensor<f64>>
    %ay = relax.multiply %a, %y : tensor<3xf64>, tensor<3xf64> -> tensor<3xf64>
    %tay = relax.tanh %ay : tensor<3xf64>
    %s = relax.sum %tay : tensor<3xf64> -> tensor<f64>
    %l1 = relax.multiply %s, %c : tensor<f64>, tensor<f64> -> tensor<f64>
    %eb = relax.exp %b : tensor<2xf64>
    %l2 = relax.sum %eb : tensor<2xf64> -> tensor<f64>
    %inner = relax.tuple(%a, %eb : tensor<3xf64>, tensor<2xf64>)
    relax.output %inner, %l1, %l2 : tuple<tensor<3xf64>, tensor<2xf64>>, tensor<f64>, tensor<f64>
  }
  %res = relax.tuple(%r#0, %r#1, %r#2 : tuple<tensor<3xf64>, tensor<2xf64>>, tensor<f64>, tensor<f64>)
  return %res : tuple<tuple<tensor<3xf64>, tensor<2xf64>>, tensor<f64>, tensor<f64>>
}
"""


def nested_l1(args: list[np.ndarray]) -> float:
    a, b, c, y = args
    return float(np.sum(np.tanh(a * y)) * c)


def nested_l2(args: list[np.ndarray]) -> float:
    a, b, c, y = args
    return float(np.sum(np.exp(b)))


@pytest.mark.parametrize("target_index, np_loss", [(1, nested_l1), (2, nested_l2)],
                         ids=["l1", "l2"])
def test_nested_tuple_parameter_and_result_with_target_index(tmp_path, target_index,
                                                            np_loss) -> None:
    # Isolated: with target_index=2 the gradient d/db = 1 * exp(b) is the very
    # tensor returned as field 0.1 of the result, which the lowering used to
    # crash on (see test_same_tensor_in_two_result_fields_compiles).
    a, b, y = inputs("nested", (3,), (2,), (3,))
    c = np.array(0.75)
    result, grads = adjoint_isolated(tmp_path, NESTED_TUPLE, [(a, (b, c)), y],
                                     target_index=target_index)
    # The whole nested result comes back.
    (ra, reb), l1, l2 = result
    np.testing.assert_array_equal(ra, a)
    np.testing.assert_allclose(reb, np.exp(b), rtol=1e-14)
    np.testing.assert_allclose(l1, nested_l1([a, b, c, y]), rtol=1e-12)
    np.testing.assert_allclose(l2, nested_l2([a, b, c, y]), rtol=1e-12)
    # Gradients of field `target_index` only, nested like the parameter.
    dt, dy = grads
    da, (db, dc) = dt
    args = [a, b, c, y]
    assert_grad(da, fd(np_loss, args, 0), "da")
    assert_grad(db, fd(np_loss, args, 1), "db")
    assert_grad(dc, fd(np_loss, args, 2), "dc")
    assert_grad(dy, fd(np_loss, args, 3), "dy")
    if target_index == 1:
        np.testing.assert_array_equal(db, np.zeros(2))
    else:
        for g in (da, dc, dy):
            np.testing.assert_array_equal(g, np.zeros_like(g))


# ----------------------------------------------------------------------------
# Aliases
# ----------------------------------------------------------------------------

ALIASES = """
func.func @main(%x: tensor<f64>, %y: tensor<3xf64>) -> tuple<tensor<f64>, tensor<f64>> {
  %r:2 = relax.dataflow -> (tensor<f64>, tensor<f64>) {
    %e = relax.exp %y : tensor<3xf64>
    %s = relax.sum %e : tensor<3xf64> -> tensor<f64>
    relax.output %x, %s : tensor<f64>, tensor<f64>
  }
  %t = relax.tuple(%r#1, %r#0 : tensor<f64>, tensor<f64>)
  %again = relax.tuple_get_item %t[0] : tuple<tensor<f64>, tensor<f64>>
  %res = relax.tuple(%r#0, %again : tensor<f64>, tensor<f64>)
  return %res : tuple<tensor<f64>, tensor<f64>>
}
"""


def sum_exp_y(args: list[np.ndarray]) -> float:
    return float(np.sum(np.exp(args[1])))


def test_parameter_returned_unchanged_as_target() -> None:
    (y,) = inputs("alias", (3,))
    x = np.array(-0.4)
    exe = rt.compile_gradient(ALIASES, target_index=0)
    (rx, rs), (dx, dy) = exe.main_adjoint(x, y)
    np.testing.assert_array_equal(rx, x)
    np.testing.assert_allclose(rs, np.sum(np.exp(y)), rtol=1e-14)
    np.testing.assert_array_equal(dx, 1.0)
    np.testing.assert_array_equal(dy, np.zeros(3))


def test_rebound_value_as_target() -> None:
    (y,) = inputs("alias", (3,))
    x = np.array(-0.4)
    exe = rt.compile_gradient(ALIASES, target_index=1)
    (rx, rs), (dx, dy) = exe.main_adjoint(x, y)
    np.testing.assert_allclose(rs, sum_exp_y([x, y]), rtol=1e-14)
    np.testing.assert_array_equal(dx, 0.0)
    assert_grad(dy, fd(sum_exp_y, [x, y], 1), "dy")


ALIASES_TWICE = """
func.func @main(%x: tensor<f64>, %y: tensor<3xf64>) -> tuple<tensor<f64>, tensor<f64>, tensor<f64>> {
  %r:2 = relax.dataflow -> (tensor<f64>, tensor<f64>) {
    %e = relax.exp %y : tensor<3xf64>
    %s = relax.sum %e : tensor<3xf64> -> tensor<f64>
    relax.output %x, %s : tensor<f64>, tensor<f64>
  }
  %res = relax.tuple(%r#0, %r#1, %r#1 : tensor<f64>, tensor<f64>, tensor<f64>)
  return %res : tuple<tensor<f64>, tensor<f64>, tensor<f64>>
}
"""


@pytest.mark.parametrize("target_index", [0, 1, 2])
def test_value_returned_twice(tmp_path, target_index: int) -> None:
    # The same sum is result fields 1 and 2; only the target field is seeded,
    # so the gradient counts it once. Isolated: the same tensor in two result
    # fields used to crash the lowering.
    (y,) = inputs("alias", (3,))
    x = np.array(-0.4)
    (rx, rs, rs2), (dx, dy) = adjoint_isolated(tmp_path, ALIASES_TWICE, [x, y],
                                               target_index=target_index)
    np.testing.assert_array_equal(rx, x)
    np.testing.assert_allclose(rs, sum_exp_y([x, y]), rtol=1e-14)
    np.testing.assert_array_equal(rs2, rs)
    if target_index == 0:
        np.testing.assert_array_equal(dx, 1.0)
        np.testing.assert_array_equal(dy, np.zeros(3))
    else:
        np.testing.assert_array_equal(dx, 0.0)
        assert_grad(dy, fd(sum_exp_y, [x, y], 1), "dy")


SAME_TENSOR_TWICE = """
func.func @main(%x: tensor<3xf64>) -> tuple<tensor<3xf64>, tensor<3xf64>> {
  %r = relax.dataflow -> (tuple<tensor<3xf64>, tensor<3xf64>>) {
    %a = relax.exp %x : tensor<3xf64>
    %t = relax.tuple(%a, %a : tensor<3xf64>, tensor<3xf64>)
    relax.output %t : tuple<tensor<3xf64>, tensor<3xf64>>
  }
  return %r : tuple<tensor<3xf64>, tensor<3xf64>>
}
"""

SAME_TENSOR_SCRIPT = """
import sys
import numpy as np
import relax_mlir
exe = relax_mlir.compile(sys.argv[1])
x = np.array([0.5, -1.0, 2.0])
a, b = exe.main(x)
assert np.allclose(a, np.exp(x)) and np.allclose(b, np.exp(x)), (a, b)
print("DONE")
"""


def test_same_tensor_in_two_result_fields_compiles(tmp_path) -> None:
    # What the adjoints above need from the lowering, in its smallest form.
    proc = rt.run_python(SAME_TENSOR_SCRIPT, tmp_path, SAME_TENSOR_TWICE)
    assert proc.returncode == 0 and "DONE" in proc.stdout, rt.describe_process(proc)


# ----------------------------------------------------------------------------
# Constants, many uses
# ----------------------------------------------------------------------------

CONSTANTS = """
func.func @main(%x: tensor<2x3xf64>) -> tuple<tensor<f64>, tuple<tensor<3xf64>, tensor<2x3xf64>>> {
  %c = arith.constant dense<[1.0, -2.0, 3.0]> : tensor<3xf64>
  %r:2 = relax.dataflow -> (tensor<f64>, tensor<2x3xf64>) {
    %h = arith.constant dense<0.5> : tensor<f64>
    %m = relax.multiply %x, %c : tensor<2x3xf64>, tensor<3xf64> -> tensor<2x3xf64>
    %a = relax.add %m, %h : tensor<2x3xf64>, tensor<f64> -> tensor<2x3xf64>
    %t = relax.tanh %a : tensor<2x3xf64>
    %ct = relax.tuple(%c, %t : tensor<3xf64>, tensor<2x3xf64>)
    %c2 = relax.tuple_get_item %ct[0] : tuple<tensor<3xf64>, tensor<2x3xf64>>
    %t2 = relax.tuple_get_item %ct[1] : tuple<tensor<3xf64>, tensor<2x3xf64>>
    %p = relax.multiply %t2, %c2 : tensor<2x3xf64>, tensor<3xf64> -> tensor<2x3xf64>
    %s = relax.sum %p : tensor<2x3xf64> -> tensor<f64>
    relax.output %s, %t : tensor<f64>, tensor<2x3xf64>
  }
  %inner = relax.tuple(%c, %r#1 : tensor<3xf64>, tensor<2x3xf64>)
  %res = relax.tuple(%r#0, %inner : tensor<f64>, tuple<tensor<3xf64>, tensor<2x3xf64>>)
  return %res : tuple<tensor<f64>, tuple<tensor<3xf64>, tensor<2x3xf64>>>
}
"""
C = np.array([1.0, -2.0, 3.0])


def test_constants_in_ops_and_tuples() -> None:
    (x,) = inputs("constants", (2, 3))
    exe = rt.compile_gradient(CONSTANTS)
    (loss, (rc, rt_)), grads = exe.main_adjoint(x)
    np_loss = lambda a: float(np.sum(np.tanh(a[0] * C + 0.5) * C))  # noqa: E731
    np.testing.assert_allclose(loss, np_loss([x]), rtol=1e-12)
    np.testing.assert_array_equal(rc, C)
    np.testing.assert_allclose(rt_, np.tanh(x * C + 0.5), rtol=1e-14)
    assert len(grads) == 1
    assert_grad(grads[0], fd(np_loss, [x], 0), "dx")


MANY_USES = """
func.func @main(%x: tensor<4xf64>, %w: tensor<4xf64>) -> tensor<f64> {
  %r = relax.dataflow -> (tensor<f64>) {
    %a = relax.exp %x : tensor<4xf64>
    %b = relax.tanh %x : tensor<4xf64>
    %c = relax.sigmoid %x : tensor<4xf64>
    %d = relax.negative %x : tensor<4xf64>
    %e = relax.multiply %x, %x : tensor<4xf64>, tensor<4xf64> -> tensor<4xf64>
    %f = relax.multiply %e, %x : tensor<4xf64>, tensor<4xf64> -> tensor<4xf64>
    %g = relax.divide %x, %w : tensor<4xf64>, tensor<4xf64> -> tensor<4xf64>
    %ab = relax.add %a, %b : tensor<4xf64>, tensor<4xf64> -> tensor<4xf64>
    %cd = relax.subtract %c, %d : tensor<4xf64>, tensor<4xf64> -> tensor<4xf64>
    %fg = relax.multiply %f, %g : tensor<4xf64>, tensor<4xf64> -> tensor<4xf64>
    %abcd = relax.multiply %ab, %cd : tensor<4xf64>, tensor<4xf64> -> tensor<4xf64>
    %all = relax.add %abcd, %fg : tensor<4xf64>, tensor<4xf64> -> tensor<4xf64>
    %s = relax.sum %all : tensor<4xf64> -> tensor<f64>
    %sx = relax.multiply %s, %x : tensor<f64>, tensor<4xf64> -> tensor<4xf64>
    %l = relax.sum %sx : tensor<4xf64> -> tensor<f64>
    relax.output %l : tensor<f64>
  }
  return %r : tensor<f64>
}
"""


def many_np(args: list[np.ndarray]) -> float:
    x, w = args
    inner = (np.exp(x) + np.tanh(x)) * (ref.sigmoid(x) + x) + x * x * x * (x / w)
    return float(np.sum(np.sum(inner) * x))


def test_parameter_used_many_times() -> None:
    x, w = inputs("many", (4,), (4,))
    w = w + np.sign(w) * 0.5  # keep away from 0
    exe = rt.compile_gradient(MANY_USES)
    loss, (dx, dw) = exe.main_adjoint(x, w)
    np.testing.assert_allclose(loss, many_np([x, w]), rtol=1e-12)
    assert_grad(dx, fd(many_np, [x, w], 0), "dx")
    assert_grad(dw, fd(many_np, [x, w], 1), "dw")


# ----------------------------------------------------------------------------
# require_grads: any order, any subset; integer parameters skipped by default
# ----------------------------------------------------------------------------

LAYER = """
func.func @main(%x: tensor<4x3xf64> {relax.name = "x"}, %w: tensor<3x2xf64> {relax.name = "w"},
                %b: tensor<2xf64> {relax.name = "b"}) -> tensor<f64> {
  %r = relax.dataflow -> (tensor<f64>) {
    %0 = relax.matmul %x, %w : tensor<4x3xf64>, tensor<3x2xf64> -> tensor<4x2xf64>
    %1 = relax.add %0, %b : tensor<4x2xf64>, tensor<2xf64> -> tensor<4x2xf64>
    %2 = relax.tanh %1 : tensor<4x2xf64>
    %3 = relax.mean %2 : tensor<4x2xf64> -> tensor<f64>
    relax.output %3 : tensor<f64>
  }
  return %r : tensor<f64>
}
"""


def layer_np(args: list[np.ndarray]) -> float:
    x, w, b = args
    return float(np.mean(np.tanh(x @ w + b)))


@pytest.mark.parametrize("wanted", [
    ("x", "w", "b"), ("b", "x"), (2, 0, 1), (1,), ("w",), (0, "b"), ("b", 1, "x"), (2,),
], ids=lambda w: "-".join(map(str, w)))
def test_require_grads_any_order_and_subset(wanted) -> None:
    args = inputs("layer", (4, 3), (3, 2), (2,))
    names = ["x", "w", "b"]
    exe = rt.compile_gradient(LAYER, tuple(wanted))
    loss, grads = exe.main_adjoint(*args)
    np.testing.assert_allclose(loss, layer_np(args), rtol=1e-12)
    assert len(grads) == len(wanted)
    for g, w in zip(grads, wanted):
        i = names.index(w) if isinstance(w, str) else w
        assert_grad(g, fd(layer_np, args, i), f"d{names[i]} for {wanted}")


INT_PARAMS = """
func.func @main(%labels: tensor<3xi32>, %x: tensor<4x3xf64>, %m: tensor<4x3xi1>,
                %b: tensor<3xf64>, %k: tensor<i64>) -> tensor<f64> {
  %zero = arith.constant dense<0> : tensor<i32>
  %r = relax.dataflow -> (tensor<f64>) {
    %pos = relax.greater %labels, %zero : tensor<3xi32>, tensor<i32> -> tensor<3xi1>
    %y1 = relax.where %pos, %x, %b : tensor<3xi1>, tensor<4x3xf64>, tensor<3xf64> -> tensor<4x3xf64>
    %y2 = relax.where %m, %y1, %x : tensor<4x3xi1>, tensor<4x3xf64>, tensor<4x3xf64> -> tensor<4x3xf64>
    %sq = relax.multiply %y2, %y2 : tensor<4x3xf64>, tensor<4x3xf64> -> tensor<4x3xf64>
    %bx = relax.multiply %sq, %b : tensor<4x3xf64>, tensor<3xf64> -> tensor<4x3xf64>
    %s = relax.sum %bx : tensor<4x3xf64> -> tensor<f64>
    relax.output %s : tensor<f64>
  }
  return %r : tensor<f64>
}
"""


def int_params_np(labels, m):
    def loss(args: list[np.ndarray]) -> float:
        x, b = args
        y1 = np.where(labels > 0, x, b)
        y2 = np.where(m, y1, x)
        return float(np.sum(y2 * y2 * b))
    return loss


def test_integer_parameters_skipped_without_require_grads() -> None:
    gen = rt.rng("int-params")
    labels = np.array([3, -1, 0], np.int32)
    m = gen.random((4, 3)) < 0.5
    x, b = inputs("int-params", (4, 3), (3,))
    k = np.array(7, np.int64)
    module = relax_mlir.gradient(INT_PARAMS)
    exe = relax_mlir.compile(module)
    adj = exe.main_adjoint
    # The gradient tuple holds the float parameters only, in parameter order.
    assert str(adj.result) == ("tuple<tensor<f64>, tuple<tensor<4x3xf64>, tensor<3xf64>>>"), \
        adj.result
    loss, grads = adj(labels, x, m, b, k)
    np_loss = int_params_np(labels, m)
    np.testing.assert_allclose(loss, np_loss([x, b]), rtol=1e-12)
    assert len(grads) == 2
    assert_grad(grads[0], fd(np_loss, [x, b], 0), "dx")
    assert_grad(grads[1], fd(np_loss, [x, b], 1), "db")


@pytest.mark.parametrize("wanted", [(0,), (2,), (4,), (1, 4)])
def test_integer_parameter_required_is_an_error(wanted) -> None:
    bad = next(w for w in wanted if w in (0, 2, 4))
    with pytest.raises(relax_mlir.GradientError) as info:
        relax_mlir.gradient(INT_PARAMS, require_grads=list(wanted))
    assert f"require-grads: parameter {bad} has type" in info.value.diagnostics
    assert "only float tensors (and tuples of them) have gradients" in info.value.diagnostics


MIXED_TUPLE = """
func.func @main(%x: tensor<3xf64>, %k: tensor<3xi32>) -> tensor<f64> {
  %r = relax.dataflow -> (tensor<f64>) {
    %t = relax.tuple(%x, %k : tensor<3xf64>, tensor<3xi32>)
    %a = relax.tuple_get_item %t[0] : tuple<tensor<3xf64>, tensor<3xi32>>
    %e = relax.exp %a : tensor<3xf64>
    %s = relax.sum %e : tensor<3xf64> -> tensor<f64>
    relax.output %s : tensor<f64>
  }
  return %r : tensor<f64>
}
"""


def test_float_value_through_tuple_with_integer_field() -> None:
    # The integer field gets no gradient, but x, read back from (x, k), does.
    (x,) = inputs("mixed", (3,))
    exe = rt.compile_gradient(MIXED_TUPLE)
    loss, grads = exe.main_adjoint(x, np.array([1, 2, 3], np.int32))
    np.testing.assert_allclose(loss, np.sum(np.exp(x)), rtol=1e-12)
    assert len(grads) == 1
    assert_grad(grads[0], np.exp(x), "dx")


# ----------------------------------------------------------------------------
# Error texts
# ----------------------------------------------------------------------------

TWO_MISSING_RULES = """
func.func @main(%x: tensor<3xf32>) -> tensor<f32> {
  %r = relax.dataflow -> (tensor<f32>) {
    %a = arith.addf %x, %x : tensor<3xf32>
    %b = arith.mulf %x, %x : tensor<3xf32>
    %c = relax.add %a, %b : tensor<3xf32>, tensor<3xf32> -> tensor<3xf32>
    %s = relax.sum %c : tensor<3xf32> -> tensor<f32>
    relax.output %s : tensor<f32>
  }
  return %r : tensor<f32>
}
"""


def test_two_missing_rules_in_one_error() -> None:
    with pytest.raises(relax_mlir.GradientError) as info:
        relax_mlir.gradient(TWO_MISSING_RULES)
    err = info.value
    lines = err.diagnostics.splitlines()
    add = [l for l in lines if "'arith.addf' is on the path to the target but has no gradient rule" in l]
    mul = [l for l in lines if "'arith.mulf' is on the path to the target but has no gradient rule" in l]
    assert len(add) == 1 and len(mul) == 1, err.diagnostics
    # Each at its own op (lines 4 and 5 of the text).
    assert ":4:" in add[0] and ":5:" in mul[0], err.diagnostics
    assert str(err).startswith("cannot differentiate 'main':"), str(err)
    assert err.diagnostics in str(err)


CALL_ON_PATH = """
func.func private @f(tensor<3xf32>) -> tensor<3xf32>

func.func @main(%x: tensor<3xf32>) -> tensor<f32> {
  %r = relax.dataflow -> (tensor<f32>) {
    %0 = func.call @f(%x) : (tensor<3xf32>) -> tensor<3xf32>
    %1 = relax.sum %0 : tensor<3xf32> -> tensor<f32>
    relax.output %1 : tensor<f32>
  }
  return %r : tensor<f32>
}
"""


def test_call_on_the_path() -> None:
    with pytest.raises(relax_mlir.GradientError) as info:
        relax_mlir.gradient(CALL_ON_PATH)
    diags = info.value.diagnostics
    assert ("call on the path to the target: the callee has no body to inline and "
            "differentiate") in diags, diags
    assert ":6:" in diags.splitlines()[0], diags
    assert str(info.value).startswith("cannot differentiate 'main':")


def test_call_off_the_path_is_fine() -> None:
    text = CALL_ON_PATH.replace("%1 = relax.sum %0", "%1 = relax.sum %x").replace(
        "%0 = func.call", "%unused = func.call")
    module = relax_mlir.gradient(text)
    assert "func.func @main_adjoint" in str(module)


ADJOINT_EXISTS = """
func.func @main_adjoint(%x: tensor<3xf32>) -> tensor<3xf32> {
  return %x : tensor<3xf32>
}

func.func @main(%x: tensor<3xf32>) -> tensor<f32> {
  %r = relax.dataflow -> (tensor<f32>) {
    %1 = relax.sum %x : tensor<3xf32> -> tensor<f32>
    relax.output %1 : tensor<f32>
  }
  return %r : tensor<f32>
}
"""


def test_main_adjoint_already_defined() -> None:
    with pytest.raises(relax_mlir.GradientError) as info:
        relax_mlir.gradient(ADJOINT_EXISTS)
    diags = info.value.diagnostics
    assert "cannot create '@main_adjoint': the module already has a symbol of that name" in diags
    assert ":2:" in diags.splitlines()[0], diags
    assert str(info.value).startswith("cannot differentiate 'main':")


def test_gradient_of_a_gradient_module_again_is_the_same_error() -> None:
    once = relax_mlir.gradient(LAYER)
    with pytest.raises(relax_mlir.GradientError,
                       match="cannot create '@main_adjoint': the module already has a symbol"):
        relax_mlir.gradient(once)
