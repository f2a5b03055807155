"""Gradients of every differentiable op against float64 central finite differences.

For an op `f`, each case differentiates `loss(inputs..., c) = sum(f(inputs...) * c)`
with a fixed random cotangent `c` (a parameter that is not in require_grads)
and compares the gradient of every float input returned by `@main_adjoint`
with central differences of the same loss written in numpy (h = 1e-6).
"""

from __future__ import annotations

from typing import Any, Callable, Optional, Sequence

import numpy as np
import pytest

import relax_testing as rt
from relax_testing import Param

H = 1e-6
RTOL = 1e-5
ATOL = 1e-7

F64 = np.float64


def shape_id(shape: Any) -> str:
    if shape is None:
        return "none"
    return "x".join(str(d) for d in shape) if len(shape) else "scalar"


def check_gradient(op: str, inputs: dict[str, np.ndarray], fn: Callable[..., np.ndarray],
                   attrs: Optional[dict[str, Any]] = None,
                   wrt: Optional[Sequence[str]] = None, dtype: Any = F64,
                   rtol: float = RTOL, atol: float = ATOL) -> None:
    """Differentiates sum(op(inputs) * c) w.r.t. `wrt` (default: every float input) and
    compares with central differences of sum(fn(inputs) * c) in float64."""
    names = list(inputs)
    if wrt is None:
        wrt = [n for n in names if np.issubdtype(inputs[n].dtype, np.floating)]
    expected_out = np.asarray(fn(*inputs.values()))
    gen = rt.rng("cotangent", op, tuple(a.shape for a in inputs.values()), attrs)
    c = rt.random_array(gen, expected_out.shape, F64, -1.5, 1.5)

    def np_loss(args: list[np.ndarray]) -> float:
        return float(np.sum(np.asarray(fn(*args[:-1])) * args[-1]))

    f64_args = [a.astype(F64) if np.issubdtype(a.dtype, np.floating) else a
                for a in inputs.values()] + [c]
    expected_loss = np_loss(f64_args)
    expected_grads = [rt.central_difference(np_loss, f64_args, names.index(n), H) for n in wrt]

    cast = [a.astype(dtype) if np.issubdtype(a.dtype, np.floating) else a
            for a in inputs.values()]
    params = [Param(n, tuple(a.shape), a.dtype.type) for n, a in zip(names, cast)]
    text = rt.loss_function(op, params, expected_out.shape, dtype, attrs)
    indices = tuple(names.index(n) for n in wrt)
    exe = rt.compile_gradient(text, indices)
    args = cast + [c.astype(dtype)]
    copies = [a.copy() for a in args]
    result = exe.main_adjoint(*args)
    for a, b in zip(args, copies):
        np.testing.assert_array_equal(a, b, err_msg="an input array was modified")

    assert isinstance(result, tuple) and len(result) == 2, result
    loss, grads = result
    assert isinstance(loss, np.ndarray) and loss.shape == () and loss.dtype == np.dtype(dtype)
    # The first element is the original result: the forward loss.
    loss_tol = 1e-12 if dtype == F64 else 1e-5
    np.testing.assert_allclose(loss, expected_loss, rtol=loss_tol, atol=loss_tol)
    assert isinstance(grads, tuple) and len(grads) == len(wrt), grads
    for name, g, expected in zip(wrt, grads, expected_grads):
        a = inputs[name]
        assert isinstance(g, np.ndarray), (name, type(g))
        assert g.shape == a.shape, f"gradient of {name}: shape {g.shape}, expected {a.shape}"
        assert g.dtype == np.dtype(dtype), f"gradient of {name}: dtype {g.dtype}"
        np.testing.assert_allclose(g, expected, rtol=rtol, atol=atol,
                                   err_msg=f"gradient of {op} w.r.t. {name}")


# ----------------------------------------------------------------------------
# Elementwise unary
# ----------------------------------------------------------------------------

UNARY_SHAPES = [(), (5,), (3, 4), (2, 3, 4)]

UNARY = {
    # op: (reference, low, high, |x| kept at least)
    "negative": (np.negative, -2, 2, 0.0),
    "exp": (np.exp, -2, 2, 0.0),
    "log": (np.log, 0.5, 2.5, 0.0),
    "tanh": (np.tanh, -2, 2, 0.0),
    "sigmoid": (rt.sigmoid, -3, 3, 0.0),
    "relu": (lambda x: np.maximum(x, 0), -2, 2, 0.1),  # away from the kink at 0
}


@pytest.mark.parametrize("shape", UNARY_SHAPES, ids=shape_id)
@pytest.mark.parametrize("op", list(UNARY))
def test_unary_gradient(op: str, shape: tuple) -> None:
    fn, low, high, avoid = UNARY[op]
    x = rt.random_array(rt.rng("g", op, shape), shape, F64, low, high, avoid_zero=avoid)
    check_gradient(op, {"x": x}, fn)


def test_relu_gradient_has_both_branches() -> None:
    """The relu case must exercise both sides of the kink to be meaningful."""
    x = np.array([[-1.5, 0.7, -0.2], [0.3, -0.9, 1.1]])
    check_gradient("relu", {"x": x}, lambda v: np.maximum(v, 0))


# ----------------------------------------------------------------------------
# Elementwise binary (with broadcasting) and where
# ----------------------------------------------------------------------------

BINARY_SHAPES = [
    ((3, 4), (3, 4)),
    ((3, 4), (4,)),
    ((4,), (3, 4)),
    ((2, 1, 4), (3, 1)),
    ((), (2, 3)),
    ((3, 1), ()),
    ((3, 1), (1, 4)),
    ((1, 3), (2, 1, 3)),
]

BINARY = {
    "add": np.add,
    "subtract": np.subtract,
    "multiply": np.multiply,
    "divide": np.divide,
}


def binary_inputs(op: str, shape_a: tuple, shape_b: tuple) -> dict[str, np.ndarray]:
    gen = rt.rng("g", op, shape_a, shape_b)
    a = rt.random_array(gen, shape_a, F64, -2, 2)
    if op == "divide":
        b = rt.random_array(gen, shape_b, F64, -2, 2, avoid_zero=0.5)  # away from 0
    else:
        b = rt.random_array(gen, shape_b, F64, -2, 2)
    return {"a": a, "b": b}


@pytest.mark.parametrize("shape_a,shape_b", BINARY_SHAPES,
                         ids=[f"{shape_id(a)}-{shape_id(b)}" for a, b in BINARY_SHAPES])
@pytest.mark.parametrize("op", list(BINARY))
def test_binary_gradient(op: str, shape_a: tuple, shape_b: tuple) -> None:
    check_gradient(op, binary_inputs(op, shape_a, shape_b), BINARY[op])


@pytest.mark.parametrize("wrt", [["a"], ["b"], ["b", "a"]], ids="-".join)
@pytest.mark.parametrize("op", list(BINARY))
def test_binary_gradient_subset(op: str, wrt: list[str]) -> None:
    check_gradient(op, binary_inputs(op, (2, 1, 4), (3, 1)), BINARY[op], wrt=wrt)


WHERE_SHAPES = [
    ((3, 4), (3, 4), (3, 4)),
    ((3, 4), (4,), ()),
    ((3, 1), (1, 4), (3, 4)),
    ((4,), (3, 4), (3, 1)),
    ((), (2, 3), (2, 3)),
    ((2, 1, 3), (4, 1), (3,)),
]


@pytest.mark.parametrize("shape_c,shape_a,shape_b", WHERE_SHAPES,
                         ids=[f"{shape_id(c)}-{shape_id(a)}-{shape_id(b)}"
                              for c, a, b in WHERE_SHAPES])
def test_where_gradient(shape_c: tuple, shape_a: tuple, shape_b: tuple) -> None:
    gen = rt.rng("g", "where", shape_c, shape_a, shape_b)
    cond = rt.random_array(gen, shape_c, np.bool_)
    if cond.size > 1:  # both branches taken
        cond.flat[0], cond.flat[1] = True, False
    inputs = {"cond": cond, "a": rt.random_array(gen, shape_a, F64),
              "b": rt.random_array(gen, shape_b, F64)}
    check_gradient("where", inputs, np.where)


# ----------------------------------------------------------------------------
# Reductions
# ----------------------------------------------------------------------------

REDUCTION_AXES = [
    ((2, 3, 4), None, False),
    ((2, 3, 4), None, True),
    ((2, 3, 4), [0], False),
    ((2, 3, 4), [1], True),
    ((2, 3, 4), [-1], False),
    ((2, 3, 4), [-2], True),
    ((2, 3, 4), [0, 2], False),
    ((2, 3, 4), [-3, -1], True),
    ((5,), None, False),
    ((5,), [0], True),
    ((4, 3), [-2], False),
    ((), None, False),
]


@pytest.mark.parametrize("shape,axis,keepdims", REDUCTION_AXES,
                         ids=[f"{shape_id(s)}-axis{shape_id(a)}-kd{int(k)}"
                              for s, a, k in REDUCTION_AXES])
@pytest.mark.parametrize("op", ["sum", "mean"])
def test_reduction_gradient(op: str, shape: tuple, axis: Optional[list], keepdims: bool) -> None:
    x = rt.random_array(rt.rng("g", op, shape, axis, keepdims), shape, F64)
    np_axis = None if axis is None else tuple(axis)
    fn = np.sum if op == "sum" else np.mean
    check_gradient(op, {"x": x}, lambda v: fn(v, axis=np_axis, keepdims=keepdims),
                   attrs={"axis": axis, "keepdims": keepdims})


# ----------------------------------------------------------------------------
# Linear algebra
# ----------------------------------------------------------------------------

MATMUL_SHAPES = [
    ((4, 3), (3, 2)),
    ((3,), (3, 5)),
    ((4, 3), (3,)),
    ((6,), (6,)),
    ((2, 4, 3), (2, 3, 5)),
    ((2, 4, 3), (3, 5)),
    ((4, 3), (2, 3, 5)),
    ((2, 1, 4, 3), (3, 3, 5)),
    ((1, 4, 3), (2, 3, 2)),
    ((3,), (2, 3, 4)),
    ((2, 4, 3), (3,)),
]


@pytest.mark.parametrize("shape_a,shape_b", MATMUL_SHAPES,
                         ids=[f"{shape_id(a)}-{shape_id(b)}" for a, b in MATMUL_SHAPES])
def test_matmul_gradient(shape_a: tuple, shape_b: tuple) -> None:
    gen = rt.rng("g", "matmul", shape_a, shape_b)
    inputs = {"a": rt.random_array(gen, shape_a, F64), "b": rt.random_array(gen, shape_b, F64)}
    check_gradient("matmul", inputs, np.matmul)


# ----------------------------------------------------------------------------
# Shape manipulation
# ----------------------------------------------------------------------------

PERMUTE_CASES = [((3, 4), None), ((2, 3, 4), None), ((5,), None), ((2, 3, 4), [1, 0, 2]),
                 ((2, 3, 4), [2, 0, 1]), ((2, 3, 4, 2), [3, 1, 0, 2])]


@pytest.mark.parametrize("shape,axes", PERMUTE_CASES,
                         ids=[f"{shape_id(s)}-axes{shape_id(a)}" for s, a in PERMUTE_CASES])
def test_permute_dims_gradient(shape: tuple, axes: Optional[list]) -> None:
    x = rt.random_array(rt.rng("g", "permute", shape, axes), shape, F64)
    check_gradient("permute_dims", {"x": x}, lambda v: np.transpose(v, axes), {"axes": axes})


RESHAPE_CASES = [((2, 6), (3, 4)), ((2, 3, 4), (24,)), ((6,), (1, 2, 3)), ((2, 3, 4), (4, 6)),
                 ((1,), ()), ((), (1, 1))]


@pytest.mark.parametrize("shape,new_shape", RESHAPE_CASES,
                         ids=[f"{shape_id(s)}-to-{shape_id(t)}" for s, t in RESHAPE_CASES])
def test_reshape_gradient(shape: tuple, new_shape: tuple) -> None:
    x = rt.random_array(rt.rng("g", "reshape", shape, new_shape), shape, F64)
    check_gradient("reshape", {"x": x}, lambda v: np.reshape(v, new_shape))


BROADCAST_CASES = [((3,), (4, 3)), ((1, 3), (2, 4, 3)), ((4, 1), (4, 3)), ((), (2, 3)),
                   ((2, 1, 3), (2, 5, 3)), ((3,), (3,))]


@pytest.mark.parametrize("shape,new_shape", BROADCAST_CASES,
                         ids=[f"{shape_id(s)}-to-{shape_id(t)}" for s, t in BROADCAST_CASES])
def test_broadcast_to_gradient(shape: tuple, new_shape: tuple) -> None:
    x = rt.random_array(rt.rng("g", "broadcast_to", shape, new_shape), shape, F64)
    check_gradient("broadcast_to", {"x": x}, lambda v: np.broadcast_to(v, new_shape))


COLLAPSE_CASES = [((4, 3), (3,)), ((4, 3), (1, 3)), ((4, 3), (4, 1)), ((2, 4, 3), (4, 1)),
                  ((2, 3), ()), ((2, 3), (2, 3)), ((3, 4, 5), (3, 1, 5))]


@pytest.mark.parametrize("shape,new_shape", COLLAPSE_CASES,
                         ids=[f"{shape_id(s)}-to-{shape_id(t)}" for s, t in COLLAPSE_CASES])
def test_collapse_sum_to_gradient(shape: tuple, new_shape: tuple) -> None:
    x = rt.random_array(rt.rng("g", "collapse", shape, new_shape), shape, F64)
    check_gradient("collapse_sum_to", {"x": x},
                   lambda v: rt.reference_collapse_sum_to(v, new_shape))


# ----------------------------------------------------------------------------
# float32 gradients agree with the float64 finite differences (loosely)
# ----------------------------------------------------------------------------

F32_CASES = [
    ("exp", {"x": (3, 4)}, np.exp, None),
    ("tanh", {"x": (2, 3, 4)}, np.tanh, None),
    ("sigmoid", {"x": (5,)}, rt.sigmoid, None),
    ("multiply", {"a": (2, 1, 4), "b": (3, 1)}, np.multiply, None),
    ("divide", {"a": (3, 4), "b": (4,)}, np.divide, None),
    ("matmul", {"a": (2, 4, 3), "b": (3, 5)}, np.matmul, None),
    ("mean", {"x": (2, 3, 4)}, lambda v: np.mean(v, axis=(0, 2), keepdims=True),
     {"axis": [0, 2], "keepdims": True}),
]


@pytest.mark.parametrize("op,shapes,fn,attrs", F32_CASES, ids=[c[0] for c in F32_CASES])
def test_float32_gradient(op: str, shapes: dict, fn: Callable, attrs: Optional[dict]) -> None:
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
             target_index: int = 0, result_check: Optional[Callable[[Any], None]] = None) -> Any:
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
    ("sigmoid", rt.sigmoid, lambda x: rt.sigmoid(x) * (1 - rt.sigmoid(x))),
    ("tanh", np.tanh, lambda x: 1 - np.tanh(x) ** 2),
    ("exp", np.exp, np.exp),
])
def test_saturated_gradients_are_finite(op: str, fn: Callable, dfn: Callable) -> None:
    x = np.array([-800.0, -40.0, -1.0, 0.0, 1.0, 40.0]) if op == "exp" else \
        np.array([-800.0, -40.0, -1.0, 0.0, 1.0, 40.0, 800.0])
    text = rt.loss_function(op, [Param("x", x.shape, F64)], x.shape, F64)
    loss, (g,) = rt.compile_gradient(text, (0,)).main_adjoint(x, np.ones_like(x))
    assert np.all(np.isfinite(g)), g
    np.testing.assert_allclose(g, dfn(x), rtol=1e-12, atol=1e-300)
    np.testing.assert_allclose(loss, np.sum(fn(x)), rtol=1e-12)
