"""Gradients of every differentiable op, in both modes, against float64 central
finite differences.

For each case of the op table (op_table.TABLE) with gradient inputs, the test
differentiates `loss(inputs..., c) = sum(op(inputs...) * c)` with a fixed random
cotangent `c` (a parameter that is not in require_grads; one per field of a
tuple result, whose terms are added) and compares the gradient of every input
the case names, as returned by its `_adjoint`, with central differences of the
same loss written in numpy (h = 1e-6). The loss functions of one op are
differentiated and compiled together as one module (if that fails, each case
compiles alone, so that the error names its case). The tests after the table
cover what one op in isolation cannot: gradient subsets, exact values at ties
and kinks, float32, fan-out, constants, tuples and saturation.

Forward mode, on the same loss functions (their `_jvp`, compiled in the same
module): along random tangents of the inputs, the loss's tangent
`<jvp_op(t), c>` must equal central differences of the loss along t, and the
dot product `<t, vjp_op(c)>` of the tangents with the reverse-mode gradients
(the two rules are each other's transpose).
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
import pytest
import relax_mlir

from relax_mlir_testing import harness as rt
from relax_mlir_testing import ops as op_table
from relax_mlir_testing import references as ref
from relax_mlir_testing.cases import OpCase, is_float
from relax_mlir_testing.harness import Param

H = 1e-6
RTOL = 1e-5
ATOL = 1e-7

F64 = np.float64


def loss_text(op: str, inputs: dict[str, np.ndarray], fn: Callable[..., Any],
              attrs: dict[str, Any] | None, dtype: Any, result_dtype: Any,
              name: str = "main") -> tuple[str, list[np.ndarray], bool]:
    """The loss function `name(inputs..., c...) = sum(op(inputs) * c)` with float inputs
    in `dtype` and the result in `result_dtype`, its cotangents (float64, drawn from the
    op, shapes and attrs) and whether the result is a tuple (one cotangent per field)."""
    expected_out = fn(*inputs.values())
    is_tuple = isinstance(expected_out, (tuple, list))
    fields = [np.asarray(f) for f in (expected_out if is_tuple else (expected_out,))]
    gen = rt.rng("cotangent", op, tuple(a.shape for a in inputs.values()), attrs)
    cs = [rt.random_array(gen, f.shape, F64, -1.5, 1.5) for f in fields]
    params = [Param(n, tuple(a.shape), dtype if np.issubdtype(a.dtype, np.floating)
                    else a.dtype.type) for n, a in inputs.items()]
    if is_tuple:
        text = rt.tuple_loss_function(op, params, [f.shape for f in fields], result_dtype,
                                      attrs, name)
    else:
        text = rt.loss_function(op, params, fields[0].shape, result_dtype, attrs, name=name)
    return text, cs, is_tuple


def check_gradient(op: str, inputs: dict[str, np.ndarray], fn: Callable[..., Any],
                   attrs: dict[str, Any] | None = None,
                   wrt: Sequence[str] | None = None, dtype: Any = F64,
                   rtol: float = RTOL, atol: float = ATOL,
                   result_dtype: Any = None, exe: Any = None, func: str = "main") -> None:
    """Differentiates sum(op(inputs) * c) w.r.t. `wrt` (default: every float input) and
    compares with central differences of sum(fn(inputs) * c) in float64. Float inputs
    are passed in `dtype`; the result (and c) has `result_dtype` (default `dtype`). A
    tuple result gets one cotangent per field and the loss adds the fields' terms.
    `exe` may hold `<func>_adjoint` already (compiled with other cases' functions)."""
    names = list(inputs)
    if wrt is None:
        wrt = [n for n in names if np.issubdtype(inputs[n].dtype, np.floating)]
    rdtype = dtype if result_dtype is None else result_dtype
    text, cs, is_tuple = loss_text(op, inputs, fn, attrs, dtype, rdtype, func)
    n_in = len(names)

    def np_loss(args: list[np.ndarray]) -> float:
        out = fn(*args[:n_in])
        outs = out if is_tuple else (out,)
        return float(sum(np.sum(np.asarray(o) * c) for o, c in zip(outs, args[n_in:])))

    f64_args = [a.astype(F64) if np.issubdtype(a.dtype, np.floating) else a
                for a in inputs.values()] + cs
    expected_loss = np_loss(f64_args)
    expected_grads = [rt.central_difference(np_loss, f64_args, names.index(n), H) for n in wrt]

    cast = [a.astype(dtype) if np.issubdtype(a.dtype, np.floating) else a
            for a in inputs.values()]
    if exe is None:
        exe = rt.compile_gradient(text, tuple(names.index(n) for n in wrt), func)
    args = cast + [c.astype(rdtype) for c in cs]
    copies = [a.copy() for a in args]
    result = exe[f"{func}_adjoint"](*args)
    for a, b in zip(args, copies):
        np.testing.assert_array_equal(a, b, err_msg="an input array was modified")

    assert isinstance(result, tuple) and len(result) == 2, result
    loss, grads = result
    assert isinstance(loss, np.ndarray) and loss.shape == () and loss.dtype == np.dtype(rdtype)
    # The first element is the original result: the forward loss.
    loss_tol = 1e-12 if rdtype == F64 else 1e-5
    np.testing.assert_allclose(loss, expected_loss, rtol=loss_tol, atol=loss_tol)
    assert isinstance(grads, tuple) and len(grads) == len(wrt), grads
    for name, g, expected in zip(wrt, grads, expected_grads):
        a = cast[names.index(name)]
        assert isinstance(g, np.ndarray), (name, type(g))
        assert g.shape == a.shape, f"gradient of {name}: shape {g.shape}, expected {a.shape}"
        assert g.dtype == a.dtype, f"gradient of {name}: dtype {g.dtype}, expected {a.dtype}"
        np.testing.assert_allclose(g, expected, rtol=rtol, atol=atol,
                                   err_msg=f"gradient of {op} w.r.t. {name}")


# ----------------------------------------------------------------------------
# Every op table case with gradient inputs
# ----------------------------------------------------------------------------

GRADIENT_CASES = [pytest.param(c, id=c.id) for c in op_table.TABLE if c.grad_inputs]
FUNC_NAMES = {c.id: f"case{k}" for k, c in enumerate(op_table.TABLE)}


def gradient_inputs(case: OpCase) -> dict[str, np.ndarray]:
    """The case's gradient-test inputs (the same on every call), floats as float64 values
    (exact), which check_gradient passes in the case's grad_dtype again."""
    inputs = case.sample(case.grad_dtype, rt.rng("g", case.id), gradient=True)
    return {n: a.astype(F64) if is_float(a.dtype) else a for n, a in inputs.items()}


def differentiate_case(module: Any, case: OpCase) -> Any:
    """`module` with the case's adjoint and jvp (w.r.t. its gradient inputs) added."""
    names = [i.name for i in case.inputs]
    wrt = [names.index(n) for n in case.grad_inputs]
    module = relax_mlir.gradient(module, func=FUNC_NAMES[case.id], require_grads=wrt)
    return relax_mlir.jacobian_vector_product(module, func=FUNC_NAMES[case.id], wrt=wrt)


@functools.cache
def op_adjoints(op: str) -> Any | None:
    """The loss functions of every gradient case of `op` in one module, each with its
    adjoint and jvp, compiled once (compiling is most of the run time); None if that
    fails: then each case compiles alone, so that the error names its case."""
    cases = [c for c in op_table.cases_of(op) if c.grad_inputs]
    texts = [loss_text(op, gradient_inputs(c), c.reference, c.attrs, c.grad_dtype,
                       c.result_dtype(c.grad_dtype), FUNC_NAMES[c.id])[0] for c in cases]
    try:
        module: Any = "\n".join(texts)
        for c in cases:
            module = differentiate_case(module, c)
        return relax_mlir.compile(module)
    except Exception:
        return None


@pytest.mark.parametrize("case", GRADIENT_CASES)
def test_gradient(case: OpCase) -> None:
    dtype = case.grad_dtype
    rtol, atol = case.grad_tol or ((RTOL, ATOL) if dtype == F64 else (1e-4, 1e-5))
    check_gradient(case.op, gradient_inputs(case), case.reference, case.attrs, case.grad_inputs,
                   dtype, rtol, atol, case.result_dtype(dtype), exe=op_adjoints(case.op),
                   func=FUNC_NAMES[case.id])


@pytest.mark.parametrize("case", GRADIENT_CASES)
def test_jvp(case: OpCase) -> None:
    dtype = case.grad_dtype
    rdtype = case.result_dtype(dtype)
    inputs = gradient_inputs(case)
    names = list(inputs)
    func = FUNC_NAMES[case.id]
    text, cs, is_tuple = loss_text(case.op, inputs, case.reference, case.attrs, dtype, rdtype,
                                   func)
    exe = op_adjoints(case.op)
    if exe is None:  # name the failing case
        exe = relax_mlir.compile(differentiate_case(text, case))
    gen = rt.rng("tangent", case.id)
    tangents = {n: rt.random_array(gen, inputs[n].shape, F64, -1.0, 1.0)
                for n in case.grad_inputs}
    n_in = len(names)

    def np_loss(args: list[np.ndarray]) -> float:
        out = case.reference(*args[:n_in])
        outs = out if is_tuple else (out,)
        return float(sum(np.sum(np.asarray(o) * c) for o, c in zip(outs, args[n_in:])))

    def moved(step: float) -> list[np.ndarray]:
        return [inputs[n] + step * tangents[n] if n in tangents else inputs[n]
                for n in names] + cs

    expected = (np_loss(moved(H)) - np_loss(moved(-H))) / (2 * H)
    cast = [a.astype(dtype) if is_float(a.dtype) else a for a in inputs.values()]
    args = cast + [c.astype(rdtype) for c in cs]
    loss, dloss = exe[f"{func}_jvp"](*args, *[tangents[n].astype(dtype)
                                              for n in case.grad_inputs])
    _, grads = exe[f"{func}_adjoint"](*args)
    np.testing.assert_allclose(loss, np_loss(moved(0.0)), rtol=1e-5, atol=1e-6)
    scale = max(1.0, abs(expected))
    f64 = dtype == F64 and rdtype == F64
    np.testing.assert_allclose(dloss, expected, rtol=0, atol=(1e-6 if f64 else 1e-3) * scale,
                               err_msg=f"jvp of {case.op} against central differences")
    dot = sum(float(np.sum(tangents[n] * g.astype(F64))) for n, g in zip(case.grad_inputs, grads))
    np.testing.assert_allclose(dloss, dot, rtol=0, atol=(1e-10 if f64 else 1e-4) * scale,
                               err_msg=f"<jvp(t), c> != <t, vjp(c)> for {case.op}")


# ----------------------------------------------------------------------------
# Kinks, ties and subsets
# ----------------------------------------------------------------------------

def test_relu_gradient_has_both_branches() -> None:
    """The relu case must exercise both sides of the kink to be meaningful."""
    x = np.array([[-1.5, 0.7, -0.2], [0.3, -0.9, 1.1]])
    check_gradient("relu", {"x": x}, lambda v: np.maximum(v, 0))



@pytest.mark.parametrize("wrt", [["a"], ["b"], ["b", "a"]], ids="-".join)
@pytest.mark.parametrize("op", ["add", "subtract", "multiply", "divide", "power", "maximum",
                                "minimum"])
def test_binary_gradient_subset(op: str, wrt: list[str]) -> None:
    case = op_table.find(op, (2, 1, 4), (3, 1))
    inputs = case.sample(F64, rt.rng("g", op, "subset"), gradient=True)
    check_gradient(op, inputs, case.reference, wrt=wrt)


@pytest.mark.parametrize("op", ["maximum", "minimum"])
def test_maximum_minimum_gradient_at_ties(op: str) -> None:
    """At a tie the whole cotangent goes to the lhs (lhs >= rhs for maximum, lhs <= rhs
    for minimum), none to the rhs."""
    a = np.array([1.0, 2.0, 3.0, -1.0, 0.0])
    b = np.array([1.0, 3.0, 2.0, -1.0, -0.0])
    c = np.array([1.0, 2.0, 3.0, 4.0, 5.0])
    params = [Param("a", a.shape, F64), Param("b", b.shape, F64)]
    text = rt.loss_function(op, params, a.shape, F64)
    _, (ga, gb) = rt.compile_gradient(text, (0, 1)).main_adjoint(a, b, c)
    to_a = a >= b if op == "maximum" else a <= b
    np.testing.assert_array_equal(ga, np.where(to_a, c, 0.0))
    np.testing.assert_array_equal(gb, np.where(to_a, 0.0, c))


def _max_pool_first_max_vjp(x: np.ndarray, c: np.ndarray, k: int, s: int) -> np.ndarray:
    """Reference adjoint of max_pool2d (k x k windows, stride s, no padding):
    each window's cotangent goes to its first maximum in row-major order."""
    dx = np.zeros_like(x)
    n, ch, oh, ow = c.shape
    for i in range(n):
        for j in range(ch):
            for r in range(oh):
                for q in range(ow):
                    win = x[i, j, r * s:r * s + k, q * s:q * s + k]
                    a, b = np.unravel_index(np.argmax(win), win.shape)  # first max
                    dx[i, j, r * s + a, q * s + b] += c[i, j, r, q]
    return dx


@pytest.mark.parametrize("k,s,shape", [(2, 2, (2, 3, 4, 6)), (3, 3, (1, 2, 6, 3)),
                                       (3, 2, (1, 2, 7, 5))],
                         ids=["2x2-tiled", "3x3-tiled", "3x3-stride2"])
def test_max_pool_gradient_goes_to_the_first_maximum(k: int, s: int, shape: tuple) -> None:
    """Ties in a window (values from {0, 1}, whole windows equal) send the
    cotangent to the first maximum in row-major order, for windows that tile
    the input (the reshape-and-slice rule) and for overlapping ones (the
    general rule)."""
    gen = np.random.default_rng(11)
    x = gen.integers(0, 2, shape).astype(np.float64)
    x[0, 0, :k, :k] = 1.0  # one window all tied
    oh, ow = (shape[2] - k) // s + 1, (shape[3] - k) // s + 1
    c = gen.uniform(0.5, 1.5, (shape[0], shape[1], oh, ow))
    params = [Param("x", x.shape, F64)]
    text = rt.loss_function("max_pool2d", params, c.shape, F64,
                            {"pool_size": [k, k], "strides": [s, s]})
    _, (g,) = rt.compile_gradient(text, (0,)).main_adjoint(x, c)
    np.testing.assert_array_equal(g, _max_pool_first_max_vjp(x, c, k, s))


@pytest.mark.parametrize("axis", [[1], None], ids=["axis1", "all"])
@pytest.mark.parametrize("op", ["max", "min"])
def test_max_min_gradient_splits_ties_evenly(op: str, axis: list | None) -> None:
    x = np.array([[1.0, 3.0, 3.0], [2.0, 0.0, 2.0], [5.0, 5.0, 5.0]])
    if op == "min":
        x = -x
    out_shape = (3,) if axis else ()
    c = np.array([1.0, 2.0, 3.0]) if axis else np.array(6.0)
    text = rt.loss_function(op, [Param("x", x.shape, F64)], out_shape, F64, {"axis": axis})
    _, (g,) = rt.compile_gradient(text, (0,)).main_adjoint(x, c)
    extreme = np.max(x, axis=1, keepdims=True) if op == "max" else np.min(x, axis=1, keepdims=True)
    if axis is None:
        extreme = np.max(x) if op == "max" else np.min(x)
    hit = (x == extreme).astype(F64)
    count = hit.sum(axis=1, keepdims=True) if axis else hit.sum()
    expected = hit / count * (c[:, None] if axis else c)
    np.testing.assert_allclose(g, expected, rtol=1e-15, atol=0)


# ----------------------------------------------------------------------------
# float32 gradients agree with the float64 finite differences (loosely)
# ----------------------------------------------------------------------------

F32_CASES = [
    ("exp", {"x": (3, 4)}, np.exp, None),
    ("tanh", {"x": (2, 3, 4)}, np.tanh, None),
    ("sigmoid", {"x": (5,)}, ref.sigmoid, None),
    ("multiply", {"a": (2, 1, 4), "b": (3, 1)}, np.multiply, None),
    ("divide", {"a": (3, 4), "b": (4,)}, np.divide, None),
    ("matmul", {"a": (2, 4, 3), "b": (3, 5)}, np.matmul, None),
    ("mean", {"x": (2, 3, 4)}, lambda v: np.mean(v, axis=(0, 2), keepdims=True),
     {"axis": [0, 2], "keepdims": True}),
    ("gelu", {"x": (3, 4)}, ref.gelu, None),
    ("softplus", {"x": (3, 4)}, lambda v: np.logaddexp(0.0, v), None),
    ("log_softmax", {"x": (3, 4)}, ref.log_softmax, None),
    ("layer_norm", {"x": (3, 4), "gamma": (4,), "beta": (4,)}, functools.partial(ref.layer_norm, axes=[1]),
     {"axes": [1]}),
]


@pytest.mark.parametrize("op,shapes,fn,attrs", F32_CASES, ids=[c[0] for c in F32_CASES])
def test_float32_gradient(op: str, shapes: dict, fn: Callable, attrs: dict | None) -> None:
    gen = rt.rng("g32", op)
    inputs = {n: rt.random_array(gen, s, F64, -2, 2, avoid_zero=0.5 if op == "divide" else 0)
              for n, s in shapes.items()}
    # Round the inputs to float32 first so that both sides see the same values.
    inputs = {n: a.astype(np.float32).astype(F64) for n, a in inputs.items()}
    check_gradient(op, inputs, fn, attrs, dtype=np.float32, rtol=1e-4, atol=1e-5)


# ----------------------------------------------------------------------------
# Multi-op functions: fan-out accumulation, constants, tuples, unused parameters
# ----------------------------------------------------------------------------

def fd_check(text: str, args: list, wrt: list[int], np_loss: Callable[[list], float],
             target_index: int = 0, result_check: Callable[[Any], None] | None = None) -> Any:
    exe = rt.compile_gradient(text, tuple(wrt), target_index=target_index)
    result, grads = exe.main_adjoint(*args)
    if result_check is not None:
        result_check(result)
    assert len(grads) == len(wrt)
    for i, g in zip(wrt, grads):
        expected = rt.central_difference(np_loss, args, i, H)
        assert g.shape == np.shape(args[i]) and g.dtype == np.float64
        np.testing.assert_allclose(g, expected, rtol=RTOL, atol=ATOL, err_msg=f"parameter {i}")
    return result, grads


SQUARE = """
func.func @main(%x: tensor<3x4xf64>, %c: tensor<3x4xf64>) -> tensor<f64> {
  %r = relax.dataflow -> (tensor<f64>) {
    %0 = relax.multiply %x, %x : tensor<3x4xf64>, tensor<3x4xf64> -> tensor<3x4xf64>
    %1 = relax.multiply %0, %c : tensor<3x4xf64>, tensor<3x4xf64> -> tensor<3x4xf64>
    %2 = relax.sum %1 : tensor<3x4xf64> -> tensor<f64>
    relax.output %2 : tensor<f64>
  }
  return %r : tensor<f64>
}
"""


def test_operand_used_twice_accumulates() -> None:
    gen = rt.rng("square")
    x, c = gen.normal(size=(3, 4)), gen.normal(size=(3, 4))
    _, (g,) = fd_check(SQUARE, [x, c], [0], lambda a: float(np.sum(a[0] * a[0] * a[1])))
    np.testing.assert_allclose(g, 2 * x * c, rtol=1e-12)


FANOUT = """
func.func @main(%x: tensor<4x3xf64>, %w: tensor<3x3xf64>) -> tensor<f64> {
  %r = relax.dataflow -> (tensor<f64>) {
    %0 = relax.matmul %x, %w : tensor<4x3xf64>, tensor<3x3xf64> -> tensor<4x3xf64>
    %1 = relax.tanh %0 : tensor<4x3xf64>
    %2 = relax.multiply %1, %x : tensor<4x3xf64>, tensor<4x3xf64> -> tensor<4x3xf64>
    %3 = relax.sum %2 {axis = array<i64: 1>} : tensor<4x3xf64> -> tensor<4xf64>
    %4 = relax.exp %x : tensor<4x3xf64>
    %5 = relax.mean %4 {axis = array<i64: 1>} : tensor<4x3xf64> -> tensor<4xf64>
    %6 = relax.subtract %3, %5 : tensor<4xf64>, tensor<4xf64> -> tensor<4xf64>
    %7 = relax.matmul %w, %w : tensor<3x3xf64>, tensor<3x3xf64> -> tensor<3x3xf64>
    %8 = relax.sum %7 : tensor<3x3xf64> -> tensor<f64>
    %9 = relax.sum %6 : tensor<4xf64> -> tensor<f64>
    %10 = relax.add %9, %8 : tensor<f64>, tensor<f64> -> tensor<f64>
    relax.output %10 : tensor<f64>
  }
  return %r : tensor<f64>
}
"""


def fanout_np(args: list) -> float:
    x, w = args
    s = np.sum(np.tanh(x @ w) * x, axis=1) - np.mean(np.exp(x), axis=1)
    return float(np.sum(s) + np.sum(w @ w))


def test_fanout_through_several_ops() -> None:
    gen = rt.rng("fanout")
    x, w = gen.normal(size=(4, 3)) * 0.7, gen.normal(size=(3, 3)) * 0.7
    fd_check(FANOUT, [x, w], [0, 1], fanout_np,
             result_check=lambda r: np.testing.assert_allclose(r, fanout_np([x, w]), rtol=1e-12))


CONSTANT = """
func.func @main(%x: tensor<2x3xf64>) -> tensor<f64> {
  %k = arith.constant dense<[[1.0, -2.0, 0.5], [3.0, 0.25, -1.0]]> : tensor<2x3xf64>
  %r = relax.dataflow -> (tensor<f64>) {
    %0 = relax.multiply %x, %k : tensor<2x3xf64>, tensor<2x3xf64> -> tensor<2x3xf64>
    %1 = relax.exp %0 : tensor<2x3xf64>
    %2 = relax.sum %1 : tensor<2x3xf64> -> tensor<f64>
    relax.output %2 : tensor<f64>
  }
  return %r : tensor<f64>
}
"""


def test_constant_operand() -> None:
    k = np.array([[1.0, -2.0, 0.5], [3.0, 0.25, -1.0]])
    x = rt.rng("const").normal(size=(2, 3)) * 0.5
    _, (g,) = fd_check(CONSTANT, [x], [0], lambda a: float(np.sum(np.exp(a[0] * k))))
    np.testing.assert_allclose(g, k * np.exp(x * k), rtol=1e-12)


UNUSED = """
func.func @main(%x: tensor<3xf64>, %y: tensor<2x2xf64>) -> tensor<f64> {
  %r = relax.dataflow -> (tensor<f64>) {
    %0 = relax.exp %x : tensor<3xf64>
    %1 = relax.sum %0 : tensor<3xf64> -> tensor<f64>
    relax.output %1 : tensor<f64>
  }
  return %r : tensor<f64>
}
"""


def test_parameter_not_on_the_path_gets_zeros() -> None:
    gen = rt.rng("unused")
    x, y = gen.normal(size=3), gen.normal(size=(2, 2))
    exe = rt.compile_gradient(UNUSED, (0, 1))
    loss, (gx, gy) = exe.main_adjoint(x, y)
    np.testing.assert_allclose(loss, np.sum(np.exp(x)), rtol=1e-12)
    np.testing.assert_allclose(gx, np.exp(x), rtol=1e-12)
    assert gy.shape == (2, 2) and gy.dtype == np.float64
    np.testing.assert_array_equal(gy, np.zeros((2, 2)))


TUPLE_PARAM = """
func.func @main(%t: tuple<tensor<3xf64>, tensor<2x3xf64>> {relax.name = "t"}, %s: tensor<f64>) -> tensor<f64> {
  %r = relax.dataflow -> (tensor<f64>) {
    %a = relax.tuple_get_item %t[0] : tuple<tensor<3xf64>, tensor<2x3xf64>>
    %b = relax.tuple_get_item %t[1] : tuple<tensor<3xf64>, tensor<2x3xf64>>
    %0 = relax.multiply %a, %b : tensor<3xf64>, tensor<2x3xf64> -> tensor<2x3xf64>
    %1 = relax.multiply %0, %s : tensor<2x3xf64>, tensor<f64> -> tensor<2x3xf64>
    %2 = relax.sum %1 : tensor<2x3xf64> -> tensor<f64>
    relax.output %2 : tensor<f64>
  }
  return %r : tensor<f64>
}
"""


def test_tuple_parameter_gets_tuple_gradient() -> None:
    gen = rt.rng("tuple")
    a, b, s = gen.normal(size=3), gen.normal(size=(2, 3)), np.array(1.7)
    exe = rt.compile_gradient(TUPLE_PARAM, (0, 1))
    loss, grads = exe.main_adjoint((a, b), s)
    np.testing.assert_allclose(loss, np.sum(a * b * s), rtol=1e-12)
    assert len(grads) == 2
    (ga, gb), gs = grads
    assert ga.shape == (3,) and gb.shape == (2, 3) and gs.shape == ()
    np.testing.assert_allclose(ga, s * b.sum(axis=0), rtol=1e-12)
    np.testing.assert_allclose(gb, s * np.broadcast_to(a, (2, 3)), rtol=1e-12)
    np.testing.assert_allclose(gs, np.sum(a * b), rtol=1e-12)


TUPLE_RESULT = """
func.func @main(%x: tensor<4xf64>) -> tuple<tensor<4xf64>, tensor<f64>, tensor<f64>> {
  %r:3 = relax.dataflow -> (tensor<4xf64>, tensor<f64>, tensor<f64>) {
    %0 = relax.tanh %x : tensor<4xf64>
    %1 = relax.sum %0 : tensor<4xf64> -> tensor<f64>
    %2 = relax.multiply %x, %x : tensor<4xf64>, tensor<4xf64> -> tensor<4xf64>
    %3 = relax.mean %2 : tensor<4xf64> -> tensor<f64>
    relax.output %0, %1, %3 : tensor<4xf64>, tensor<f64>, tensor<f64>
  }
  %t = relax.tuple(%r#0, %r#1, %r#2 : tensor<4xf64>, tensor<f64>, tensor<f64>)
  return %t : tuple<tensor<4xf64>, tensor<f64>, tensor<f64>>
}
"""


@pytest.mark.parametrize("target_index", [1, 2])
def test_target_index_picks_the_tuple_field(target_index: int) -> None:
    x = rt.rng("tuple-result").normal(size=4)
    expected_result = (np.tanh(x), np.sum(np.tanh(x)), np.mean(x * x))

    def check(result: Any) -> None:
        assert isinstance(result, tuple) and len(result) == 3
        for got, want in zip(result, expected_result):
            np.testing.assert_allclose(got, want, rtol=1e-12)

    if target_index == 1:
        def np_loss(a: list) -> float:
            return float(np.sum(np.tanh(a[0])))
    else:
        def np_loss(a: list) -> float:
            return float(np.mean(a[0] * a[0]))
    fd_check(TUPLE_RESULT, [x], [0], np_loss, target_index=target_index, result_check=check)


@pytest.mark.parametrize("op,fn,dfn", [
    ("sigmoid", ref.sigmoid, lambda x: ref.sigmoid(x) * (1 - ref.sigmoid(x))),
    ("tanh", np.tanh, lambda x: 1 - np.tanh(x) ** 2),
    ("exp", np.exp, np.exp),
    ("softplus", lambda x: np.logaddexp(0.0, x), ref.sigmoid),
])
def test_saturated_gradients_are_finite(op: str, fn: Callable, dfn: Callable) -> None:
    x = np.array([-800.0, -40.0, -1.0, 0.0, 1.0, 40.0]) if op == "exp" else \
        np.array([-800.0, -40.0, -1.0, 0.0, 1.0, 40.0, 800.0])
    text = rt.loss_function(op, [Param("x", x.shape, F64)], x.shape, F64)
    loss, (g,) = rt.compile_gradient(text, (0,)).main_adjoint(x, np.ones_like(x))
    assert np.all(np.isfinite(g)), g
    np.testing.assert_allclose(g, dfn(x), rtol=1e-12, atol=1e-300)
    np.testing.assert_allclose(loss, np.sum(fn(x)), rtol=1e-12)


@pytest.mark.parametrize("op", ["softmax", "log_softmax"])
def test_softmax_gradients_are_finite_for_large_inputs(op: str) -> None:
    """float32 inputs of magnitude 1e3: the gradient (s * (c - sum(c * s)) for softmax,
    c - s * sum(c) for log_softmax, s = softmax(x)) stays finite and correct."""
    x = np.array([[1000.0, 999.0, 998.0, -1000.0],
                  [-1000.0, -1001.0, -999.5, -1002.0]], dtype=np.float32)
    c = np.array([[0.5, -1.0, 2.0, 1.0], [1.5, 0.25, -0.5, 1.0]], dtype=np.float32)
    text = rt.loss_function(op, [Param("x", x.shape, np.float32)], x.shape, np.float32)
    _, (g,) = rt.compile_gradient(text, (0,)).main_adjoint(x, c)
    s = ref.softmax(x.astype(F64))
    c64 = c.astype(F64)
    if op == "softmax":
        expected = s * (c64 - np.sum(c64 * s, axis=-1, keepdims=True))
    else:
        expected = c64 - s * np.sum(c64, axis=-1, keepdims=True)
    assert np.all(np.isfinite(g)), g
    np.testing.assert_allclose(g, expected, rtol=1e-5, atol=1e-6)


def test_power_gradient_at_zero_base_and_exponent() -> None:
    """d a^b / da is 0 where b = 0 (also at a = 0, where b a^(b-1) would be 0 * inf),
    and d a^b / db uses log(a) = 0 at a = 0: no NaN, as in JAX and PyTorch."""
    a = np.array([0.0, 0.0, 2.0, 0.0])
    b = np.array([0.0, 2.0, 3.0, 1.0])
    c = np.ones(4)
    params = [Param("a", a.shape, F64), Param("b", b.shape, F64)]
    text = rt.loss_function("power", params, a.shape, F64)
    _, (ga, gb) = rt.compile_gradient(text, (0, 1)).main_adjoint(a, b, c)
    np.testing.assert_array_equal(ga, [0.0, 0.0, 12.0, 1.0])
    np.testing.assert_allclose(gb, [0.0, 0.0, 8.0 * np.log(2.0), 0.0])


NLL_WITH_NEG_INF = """
func.func @main(%p: tensor<3x3xf64>, %t: tensor<3xi64>, %w: tensor<3xf64>) -> tensor<f64> {
  %r = relax.dataflow -> (tensor<f64>) {
    %l = "relax.nll_loss"(%p, %t, %w) {reduction = "REDUCTION"} : (tensor<3x3xf64>, tensor<3xi64>, tensor<3xf64>) -> RESULT
    %s = "relax.sum"(%l) : (RESULT) -> tensor<f64>
    relax.output %s : tensor<f64>
  }
  return %r : tensor<f64>
}
"""


@pytest.mark.parametrize("reduction", ["none", "sum", "mean"])
def test_nll_loss_with_neg_inf_log_probabilities(reduction: str) -> None:
    """Log-probabilities of -inf (a zero probability) at classes that are not the
    target, or at an ignored target's class, give finite losses and gradients:
    gathers select instead of multiplying by 0 (0 * -inf is NaN)."""
    p = np.array([[-np.inf, -0.5, -1.0], [-0.25, -2.0, -np.inf], [-1.0, -1.5, -0.1]])
    t = np.array([-100, 0, 2])
    w = np.array([1.0, 2.0, 3.0])
    result = "tensor<3xf64>" if reduction == "none" else "tensor<f64>"
    text = NLL_WITH_NEG_INF.replace("REDUCTION", reduction).replace("RESULT", result)
    exe = relax_mlir.compile(relax_mlir.gradient(text, require_grads=[0, 2]))
    loss, (dp, dw) = exe.main_adjoint(p, t, w)
    per = np.array([0.0, 1.0 * 0.25, 3.0 * 0.1])  # -w[t] * p[n, t], 0 when ignored
    denominator = 1.0 + 3.0  # the weights of the targets not ignored
    total = {"none": per.sum(), "sum": per.sum(), "mean": per.sum() / denominator}[reduction]
    np.testing.assert_allclose(loss, total, rtol=1e-12)
    scale = 1.0 / denominator if reduction == "mean" else 1.0
    expected_dp = np.zeros((3, 3))
    expected_dp[1, 0], expected_dp[2, 2] = -1.0 * scale, -3.0 * scale
    np.testing.assert_allclose(dp, expected_dp, rtol=1e-12)
    if reduction == "mean":  # d(S / D) / dw_c = (-p_t - loss) / D summed over class c
        expected_dw = np.array([(0.25 - total) / denominator, 0.0, (0.1 - total) / denominator])
    else:
        expected_dw = np.array([0.25, 0.0, 0.1])
    np.testing.assert_allclose(dw, expected_dw, rtol=1e-12)
