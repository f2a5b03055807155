"""The Python API: argument checking, tuples, executables, gradient options, errors,
and modules built with the Python op classes."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
import relax_mlir
from relax_mlir import ir

from relax_mlir_testing import harness as rt

MLP_LAYER = """
func.func @main(%x: tensor<4x3xf32> {relax.name = "x"}, %w: tensor<3x2xf32> {relax.name = "w"},
                %b: tensor<2xf32> {relax.name = "b"}) -> tensor<f32> {
  %r = relax.dataflow -> (tensor<f32>) {
    %0 = relax.matmul %x, %w : tensor<4x3xf32>, tensor<3x2xf32> -> tensor<4x2xf32>
    %1 = relax.add %0, %b : tensor<4x2xf32>, tensor<2xf32> -> tensor<4x2xf32>
    %2 = relax.tanh %1 : tensor<4x2xf32>
    %3 = relax.mean %2 : tensor<4x2xf32> -> tensor<f32>
    relax.output %3 : tensor<f32>
  }
  return %r : tensor<f32>
}
"""

# The same function in float64, for exact comparisons of gradients.
MLP_LAYER64 = MLP_LAYER.replace("f32", "f64")


def layer_inputs(dtype=np.float32):
    gen = rt.rng("api-layer")
    return (gen.normal(size=(4, 3)).astype(dtype), gen.normal(size=(3, 2)).astype(dtype),
            gen.normal(size=2).astype(dtype))


def layer_np(x, w, b):
    return np.mean(np.tanh(x @ w + b))


def layer_grads_np(x, w, b):
    """Analytic gradients of mean(tanh(x @ w + b)) in float64."""
    x, w, b = (np.asarray(v, np.float64) for v in (x, w, b))
    t = np.tanh(x @ w + b)
    d = (1 - t * t) / t.size
    return d @ w.T, x.T @ d, d.sum(axis=0)


@pytest.fixture(scope="module")
def layer():
    return rt.compile_text(MLP_LAYER)


# ----------------------------------------------------------------------------
# Calling compiled functions
# ----------------------------------------------------------------------------

def test_call_returns_numpy_result(layer) -> None:
    x, w, b = layer_inputs()
    out = layer.main(x, w, b)
    assert isinstance(out, np.ndarray) and out.shape == () and out.dtype == np.float32
    np.testing.assert_allclose(out, layer_np(*(v.astype(np.float64) for v in (x, w, b))),
                               rtol=1e-5)


@pytest.mark.parametrize("count", [0, 2, 4])
def test_wrong_number_of_arguments(layer, count: int) -> None:
    args = list(layer_inputs()) + [np.zeros(2, np.float32)]
    with pytest.raises(TypeError) as info:
        layer.main(*args[:count])
    message = str(info.value)
    assert "3" in message and "takes 3 arguments" in message, message
    assert f"got {count}" in message, message


def test_wrong_dtype_names_the_parameter(layer) -> None:
    x, w, b = layer_inputs()
    with pytest.raises(TypeError, match=r"'w'") as info:
        layer.main(x, w.astype(np.float64), b)
    assert "float32" in str(info.value) and "float64" in str(info.value)
    with pytest.raises(TypeError, match=r"'b'"):
        layer.main(x, w, b.astype(np.int32))


def test_unnamed_parameter_is_named_by_position() -> None:
    text = """
func.func @main(%a: tensor<2xf32>, %b: tensor<2xf32>) -> tensor<2xf32> {
  %r = relax.dataflow -> (tensor<2xf32>) {
    %0 = relax.add %a, %b : tensor<2xf32>, tensor<2xf32> -> tensor<2xf32>
    relax.output %0 : tensor<2xf32>
  }
  return %r : tensor<2xf32>
}
"""
    exe = rt.compile_text(text)
    with pytest.raises(ValueError, match=r"'arg1'"):
        exe.main(np.zeros(2, np.float32), np.zeros(3, np.float32))


def test_wrong_shape_names_the_parameter(layer) -> None:
    x, w, b = layer_inputs()
    with pytest.raises(ValueError, match=r"'x'") as info:
        layer.main(x.T.copy(), w, b)
    assert "(4, 3)" in str(info.value) and "(3, 4)" in str(info.value)
    with pytest.raises(ValueError, match=r"'b'"):
        layer.main(x, w, b[None, :])


def test_non_array_argument_is_a_type_error(layer) -> None:
    x, w, b = layer_inputs()
    with pytest.raises(TypeError, match=r"'x'"):
        layer.main(x.tolist(), w, b)


def test_python_scalar_for_0d_parameter() -> None:
    text = rt.op_function("multiply", [rt.Param("x", (3,), np.float64),
                                       rt.Param("s", (), np.float64)], (3,), np.float64)
    exe = rt.compile_text(text)
    x = np.array([1.0, -2.0, 4.0])
    np.testing.assert_array_equal(exe.main(x, 2.5), x * 2.5)
    np.testing.assert_array_equal(exe.main(x, np.float64(0.5)), x * 0.5)


def test_non_contiguous_inputs(layer) -> None:
    x, w, b = layer_inputs()
    xt = np.asfortranarray(x)           # column-major
    wt = np.ascontiguousarray(w.T).T    # a transposed view
    b2 = np.repeat(b, 2)[::2]           # a strided view
    assert not xt.flags.c_contiguous and not wt.flags.c_contiguous
    assert not b2.flags.c_contiguous
    np.testing.assert_array_equal(layer.main(xt, wt, b2), layer.main(x, w, b))


def test_read_only_and_broadcast_view_inputs(layer) -> None:
    x, w, b = layer_inputs()
    expected = layer.main(x, w, b)
    xr = x.copy()
    xr.setflags(write=False)
    np.testing.assert_array_equal(layer.main(xr, w, b), expected)
    bb = np.broadcast_to(np.float32(0.25), (2,))  # read-only, zero strides
    np.testing.assert_array_equal(layer.main(x, w, bb), layer.main(x, w, np.full(2, 0.25,
                                                                                 np.float32)))


def test_function_outlives_its_executable() -> None:
    import gc
    text = rt.op_function("exp", [rt.Param("x", (3,), np.float64)], (3,), np.float64)
    fn = relax_mlir.compile(text).main
    gc.collect()
    x = np.array([0.0, 1.0, 2.0])
    np.testing.assert_allclose(fn(x), np.exp(x), rtol=1e-15)


INPLACE = """
func.func @main(%x: tensor<3x4xf32> {relax.name = "x"}, %y: tensor<3x4xf32> {relax.name = "y"})
    -> tuple<tensor<3x4xf32>, tensor<4x3xf32>, tensor<3x4xf32>> {
  %r:3 = relax.dataflow -> (tensor<3x4xf32>, tensor<4x3xf32>, tensor<3x4xf32>) {
    %0 = relax.add %x, %y : tensor<3x4xf32>, tensor<3x4xf32> -> tensor<3x4xf32>
    %1 = relax.negative %0 : tensor<3x4xf32>
    %2 = relax.exp %x : tensor<3x4xf32>
    %3 = relax.multiply %2, %y : tensor<3x4xf32>, tensor<3x4xf32> -> tensor<3x4xf32>
    %4 = relax.reshape %y : tensor<3x4xf32> -> tensor<4x3xf32>
    relax.output %1, %4, %x : tensor<3x4xf32>, tensor<4x3xf32>, tensor<3x4xf32>
  }
  %t = relax.tuple(%r#0, %r#1, %r#2 : tensor<3x4xf32>, tensor<4x3xf32>, tensor<3x4xf32>)
  return %t : tuple<tensor<3x4xf32>, tensor<4x3xf32>, tensor<3x4xf32>>
}
"""


def test_inputs_are_never_modified() -> None:
    exe = rt.compile_text(INPLACE)
    gen = rt.rng("inplace")
    x, y = gen.normal(size=(3, 4)).astype(np.float32), gen.normal(size=(3, 4)).astype(np.float32)
    x0, y0 = x.copy(), y.copy()
    neg, resh, same = exe.main(x, y)
    np.testing.assert_array_equal(x, x0)
    np.testing.assert_array_equal(y, y0)
    np.testing.assert_allclose(neg, -(x0 + y0), rtol=1e-6)
    np.testing.assert_array_equal(resh, y0.reshape(4, 3))
    np.testing.assert_array_equal(same, x0)
    # Results are fresh memory: writing them leaves the inputs alone.
    for out in (neg, resh, same):
        assert not np.shares_memory(out, x) and not np.shares_memory(out, y)
        out[...] = 123.0
    np.testing.assert_array_equal(x, x0)
    np.testing.assert_array_equal(y, y0)


def test_adjoint_does_not_modify_inputs() -> None:
    text = """
func.func @main(%x: tensor<3x4xf64>, %y: tensor<3x4xf64>) -> tensor<f64> {
  %r = relax.dataflow -> (tensor<f64>) {
    %0 = relax.multiply %x, %y : tensor<3x4xf64>, tensor<3x4xf64> -> tensor<3x4xf64>
    %1 = relax.exp %0 : tensor<3x4xf64>
    %2 = relax.add %1, %x : tensor<3x4xf64>, tensor<3x4xf64> -> tensor<3x4xf64>
    %3 = relax.sum %2 : tensor<3x4xf64> -> tensor<f64>
    relax.output %3 : tensor<f64>
  }
  return %r : tensor<f64>
}
"""
    exe = rt.compile_gradient(text)
    gen = rt.rng("adjoint-inplace")
    x, y = gen.normal(size=(3, 4)), gen.normal(size=(3, 4))
    x0, y0 = x.copy(), y.copy()
    loss, (gx, gy) = exe.main_adjoint(x, y)
    np.testing.assert_array_equal(x, x0)
    np.testing.assert_array_equal(y, y0)
    np.testing.assert_allclose(loss, np.sum(np.exp(x0 * y0) + x0), rtol=1e-12)
    np.testing.assert_allclose(gx, y0 * np.exp(x0 * y0) + 1, rtol=1e-12)
    np.testing.assert_allclose(gy, x0 * np.exp(x0 * y0), rtol=1e-12)


# ----------------------------------------------------------------------------
# Tuples
# ----------------------------------------------------------------------------

TUPLES = """
func.func @main(%t: tuple<tensor<2xf32>, tuple<tensor<3xf32>, tensor<f32>>> {relax.name = "t"},
                %z: tensor<2xf32> {relax.name = "z"})
    -> tuple<tensor<2xf32>, tuple<tensor<3xf32>, tuple<tensor<f32>>>> {
  %r:3 = relax.dataflow -> (tensor<2xf32>, tensor<3xf32>, tensor<f32>) {
    %a = relax.tuple_get_item %t[0] : tuple<tensor<2xf32>, tuple<tensor<3xf32>, tensor<f32>>>
    %inner = relax.tuple_get_item %t[1] : tuple<tensor<2xf32>, tuple<tensor<3xf32>, tensor<f32>>>
    %b = relax.tuple_get_item %inner[0] : tuple<tensor<3xf32>, tensor<f32>>
    %s = relax.tuple_get_item %inner[1] : tuple<tensor<3xf32>, tensor<f32>>
    %0 = relax.add %a, %z : tensor<2xf32>, tensor<2xf32> -> tensor<2xf32>
    %1 = relax.multiply %b, %s : tensor<3xf32>, tensor<f32> -> tensor<3xf32>
    %2 = relax.sum %b : tensor<3xf32> -> tensor<f32>
    relax.output %0, %1, %2 : tensor<2xf32>, tensor<3xf32>, tensor<f32>
  }
  %u = relax.tuple(%r#2 : tensor<f32>)
  %v = relax.tuple(%r#1, %u : tensor<3xf32>, tuple<tensor<f32>>)
  %w = relax.tuple(%r#0, %v : tensor<2xf32>, tuple<tensor<3xf32>, tuple<tensor<f32>>>)
  return %w : tuple<tensor<2xf32>, tuple<tensor<3xf32>, tuple<tensor<f32>>>>
}
"""


@pytest.fixture(scope="module")
def tuples():
    return rt.compile_text(TUPLES)


def tuple_inputs():
    a = np.array([1.0, 2.0], np.float32)
    b = np.array([0.5, -1.0, 3.0], np.float32)
    s = np.array(2.0, np.float32)
    z = np.array([10.0, 20.0], np.float32)
    return a, b, s, z


@pytest.mark.parametrize("container", [tuple, list])
def test_tuple_parameter_and_nested_tuple_result(tuples, container) -> None:
    a, b, s, z = tuple_inputs()
    out = tuples.main(container([a, container([b, s])]), z)
    assert type(out) is tuple and len(out) == 2
    first, rest = out
    assert isinstance(first, np.ndarray)
    np.testing.assert_array_equal(first, a + z)
    assert type(rest) is tuple and len(rest) == 2
    np.testing.assert_array_equal(rest[0], b * s)
    assert type(rest[1]) is tuple and len(rest[1]) == 1
    assert rest[1][0].shape == () and rest[1][0].dtype == np.float32
    np.testing.assert_allclose(rest[1][0], b.sum(), rtol=1e-6)


def test_tuple_parameter_wrong_structure(tuples) -> None:
    a, b, s, z = tuple_inputs()
    with pytest.raises(TypeError, match=r"'t\[1\]'"):
        tuples.main((a, (b,)), z)
    with pytest.raises(TypeError, match=r"'t'"):
        tuples.main(a, z)
    with pytest.raises(ValueError, match=r"'t\[1\]\[0\]'"):
        tuples.main((a, (b[:2], s)), z)


# ----------------------------------------------------------------------------
# Executables
# ----------------------------------------------------------------------------

TWO_FUNCS = """
func.func @main(%x: tensor<3xf64>) -> tensor<3xf64> {
  %r = relax.dataflow -> (tensor<3xf64>) {
    %0 = relax.exp %x : tensor<3xf64>
    relax.output %0 : tensor<3xf64>
  }
  return %r : tensor<3xf64>
}
func.func @other(%x: tensor<3xf64>) -> tensor<3xf64> {
  %r = relax.dataflow -> (tensor<3xf64>) {
    %0 = relax.negative %x : tensor<3xf64>
    relax.output %0 : tensor<3xf64>
  }
  return %r : tensor<3xf64>
}
"""


def test_functions_by_attribute_and_by_key() -> None:
    exe = rt.compile_text(TWO_FUNCS)
    x = np.array([0.0, 1.0, -2.0])
    np.testing.assert_allclose(exe.main(x), np.exp(x), rtol=1e-15)
    np.testing.assert_allclose(exe["main"](x), np.exp(x), rtol=1e-15)
    np.testing.assert_array_equal(exe.other(x), -x)
    np.testing.assert_array_equal(exe["other"](x), -x)
    assert "main" in exe and "other" in exe and "nope" not in exe
    assert exe.function_names == ["main", "other"]


def test_unknown_function_name() -> None:
    exe = rt.compile_text(TWO_FUNCS)
    with pytest.raises(KeyError, match="nope"):
        exe["nope"]
    with pytest.raises(AttributeError, match="nope"):
        exe.nope  # noqa: B018 - the attribute access is what raises
    assert not hasattr(exe, "main_adjoint")


def test_compile_rejects_unknown_target() -> None:
    with pytest.raises(ValueError, match="target 'gpu' is not supported; use target='cpu', "
                                         "'cuda' or 'cuda-emulator'"):
        relax_mlir.compile(TWO_FUNCS, target="gpu")


def test_compile_leaves_module_unchanged() -> None:
    module = ir.Module.parse(TWO_FUNCS, context=ir.Context())
    before = str(module)
    exe = relax_mlir.compile(module)
    assert str(module) == before
    np.testing.assert_array_equal(exe.other(np.ones(3)), -np.ones(3))


# ----------------------------------------------------------------------------
# relax_mlir.gradient options
# ----------------------------------------------------------------------------

def function_names(module: ir.Module) -> list[str]:
    return [ir.StringAttr(op.attributes["sym_name"]).value for op in module.body.operations
            if op.operation.name == "func.func"]


def function_text(module: ir.Module, name: str) -> str:
    for op in module.body.operations:
        if op.operation.name == "func.func" and \
                ir.StringAttr(op.attributes["sym_name"]).value == name:
            return str(op)
    raise KeyError(name)


def test_gradient_leaves_input_unchanged_and_keeps_main() -> None:
    module = ir.Module.parse(MLP_LAYER, context=ir.Context())
    before = str(module)
    main_before = function_text(module, "main")
    result = relax_mlir.gradient(module, require_grads=["w"])
    assert str(module) == before
    assert function_names(module) == ["main"]
    assert sorted(function_names(result)) == ["main", "main_adjoint"]
    assert function_text(result, "main") == main_before
    exe = relax_mlir.compile(result)
    x, w, b = layer_inputs()
    np.testing.assert_array_equal(exe.main(x, w, b), rt.compile_text(MLP_LAYER).main(x, w, b))


def test_gradient_accepts_text() -> None:
    result = relax_mlir.gradient(MLP_LAYER)
    assert isinstance(result, ir.Module)
    assert sorted(function_names(result)) == ["main", "main_adjoint"]


ATTRIBUTED = """
func.func @main(%x: tensor<3xf32>, %y: tensor<3xf32>) -> tuple<tensor<f32>, tensor<f32>>
    attributes {relax.target_index = 1 : i64, relax.require_grads = array<i64: 1>} {
  %s = relax.sum %x : tensor<3xf32> -> tensor<f32>
  %p = relax.multiply %x, %y : tensor<3xf32>, tensor<3xf32> -> tensor<3xf32>
  %t = relax.sum %p : tensor<3xf32> -> tensor<f32>
  %r = relax.tuple(%s, %t : tensor<f32>, tensor<f32>)
  return %r : tuple<tensor<f32>, tensor<f32>>
}
"""


def test_gradient_takes_target_and_parameters_from_function_attributes() -> None:
    x = np.array([1.0, 2.0, 3.0], np.float32)
    y = np.array([4.0, 5.0, 6.0], np.float32)
    # relax.target_index = 1 (sum(x * y)), relax.require_grads = [1] (y): x.
    exe = relax_mlir.compile(relax_mlir.gradient(ATTRIBUTED))
    _, (grad_y,) = exe.main_adjoint(x, y)
    np.testing.assert_array_equal(grad_y, x)
    # Arguments given override them: sum(x) by x, then sum(x * y) by x (y).
    _, (grad_x,) = relax_mlir.compile(relax_mlir.gradient(
        ATTRIBUTED, require_grads=[0], target_index=0)).main_adjoint(x, y)
    np.testing.assert_array_equal(grad_x, np.ones(3, np.float32))
    _, (grad_x,) = relax_mlir.compile(relax_mlir.gradient(
        ATTRIBUTED, require_grads=[0])).main_adjoint(x, y)
    np.testing.assert_array_equal(grad_x, y)
    with pytest.raises(ValueError, match="relax.target_index = \"one\"; it must be an integer"):
        relax_mlir.gradient(ATTRIBUTED.replace("relax.target_index = 1 : i64",
                                               'relax.target_index = "one"'))


def test_gradient_of_another_function() -> None:
    text = MLP_LAYER64.replace("@main", "@loss")
    exe = relax_mlir.compile(relax_mlir.gradient(text, func="loss"))
    assert exe.function_names == ["loss", "loss_adjoint"]
    x, w, b = layer_inputs(np.float64)
    loss, grads = exe.loss_adjoint(x, w, b)
    np.testing.assert_allclose(loss, layer_np(x, w, b), rtol=1e-12)
    for g, e in zip(grads, layer_grads_np(x, w, b)):
        np.testing.assert_allclose(g, e, rtol=1e-10, atol=1e-14)


def test_default_require_grads_is_every_float_parameter() -> None:
    exe = rt.compile_gradient(MLP_LAYER64)
    x, w, b = layer_inputs(np.float64)
    loss, grads = exe.main_adjoint(x, w, b)
    assert len(grads) == 3
    for g, e in zip(grads, layer_grads_np(x, w, b)):
        assert g.shape == e.shape
        np.testing.assert_allclose(g, e, rtol=1e-10, atol=1e-14)


INT_PARAM = """
func.func @main(%x: tensor<4xf64> {relax.name = "x"}, %m: tensor<4xi1> {relax.name = "mask"},
                %k: tensor<4xi64> {relax.name = "k"}) -> tensor<f64> {
  %r = relax.dataflow -> (tensor<f64>) {
    %0 = relax.exp %x : tensor<4xf64>
    %1 = relax.zeros : tensor<f64>
    %2 = relax.where %m, %0, %1 : tensor<4xi1>, tensor<4xf64>, tensor<f64> -> tensor<4xf64>
    %3 = relax.sum %2 : tensor<4xf64> -> tensor<f64>
    relax.output %3 : tensor<f64>
  }
  return %r : tensor<f64>
}
"""


def test_default_require_grads_skips_non_float_parameters() -> None:
    exe = rt.compile_gradient(INT_PARAM)
    x = np.array([0.1, -0.5, 1.0, 2.0])
    m = np.array([True, False, True, False])
    k = np.arange(4, dtype=np.int64)
    loss, grads = exe.main_adjoint(x, m, k)
    assert len(grads) == 1
    np.testing.assert_allclose(loss, np.sum(np.exp(x) * m), rtol=1e-12)
    np.testing.assert_allclose(grads[0], np.exp(x) * m, rtol=1e-12)


def test_require_grads_by_name_and_index_agree_in_order() -> None:
    x, w, b = layer_inputs(np.float64)
    expected = dict(zip("xwb", layer_grads_np(x, w, b)))
    by_name = rt.compile_gradient(MLP_LAYER64, ("b", "x"))
    by_index = rt.compile_gradient(MLP_LAYER64, (2, 0))
    mixed = rt.compile_gradient(MLP_LAYER64, ("b", 0))
    results = [e.main_adjoint(x, w, b) for e in (by_name, by_index, mixed)]
    for loss, grads in results:
        np.testing.assert_allclose(loss, layer_np(x, w, b), rtol=1e-12)
        assert len(grads) == 2
        assert grads[0].shape == (2,) and grads[1].shape == (4, 3)
        np.testing.assert_allclose(grads[0], expected["b"], rtol=1e-10, atol=1e-14)
        np.testing.assert_allclose(grads[1], expected["x"], rtol=1e-10, atol=1e-14)
    for _, grads in results[1:]:
        for g, ref in zip(grads, results[0][1]):
            np.testing.assert_array_equal(g, ref)


def test_require_grads_single_name() -> None:
    exe = relax_mlir.compile(relax_mlir.gradient(MLP_LAYER64, require_grads="w"))
    x, w, b = layer_inputs(np.float64)
    _, grads = exe.main_adjoint(x, w, b)
    assert len(grads) == 1
    np.testing.assert_allclose(grads[0], layer_grads_np(x, w, b)[1], rtol=1e-10, atol=1e-14)


def test_unknown_parameter_name() -> None:
    with pytest.raises(ValueError, match="nope"):
        relax_mlir.gradient(MLP_LAYER, require_grads=["x", "nope"])


def test_parameter_index_out_of_range() -> None:
    with pytest.raises(ValueError, match="3"):
        relax_mlir.gradient(MLP_LAYER, require_grads=[0, 3])


def test_unknown_function() -> None:
    with pytest.raises(ValueError, match="nope"):
        relax_mlir.gradient(MLP_LAYER, func="nope")


def test_bad_target_index_type() -> None:
    with pytest.raises(TypeError):
        relax_mlir.gradient(MLP_LAYER, target_index="0")


# ----------------------------------------------------------------------------
# GradientError diagnostics
# ----------------------------------------------------------------------------

def gradient_error(text: str, **kwargs) -> relax_mlir.GradientError:
    module = ir.Module.parse(text, context=ir.Context())
    before = str(module)
    with pytest.raises(relax_mlir.GradientError) as info:
        relax_mlir.gradient(module, **kwargs)
    assert str(module) == before, "a failed gradient changed the input module"
    error = info.value
    assert isinstance(error, relax_mlir.RelaxMLIRError)
    assert isinstance(error.diagnostics, str) and error.diagnostics
    assert error.diagnostics in str(error)
    return error


def test_duplicate_require_grads() -> None:
    error = gradient_error(MLP_LAYER, require_grads=["w", "w"])
    assert "twice" in error.diagnostics


def test_duplicate_require_grads_name_and_index() -> None:
    error = gradient_error(MLP_LAYER, require_grads=[1, "w"])
    assert "twice" in error.diagnostics


NON_SCALAR = """
func.func @main(%x: tensor<3xf32>) -> tensor<3xf32> {
  %r = relax.dataflow -> (tensor<3xf32>) {
    %0 = relax.exp %x : tensor<3xf32>
    relax.output %0 : tensor<3xf32>
  }
  return %r : tensor<3xf32>
}
"""


def test_target_not_scalar() -> None:
    error = gradient_error(NON_SCALAR)
    assert "0-d float tensor" in error.diagnostics
    assert "tensor<3xf32>" in error.diagnostics


def test_integer_target() -> None:
    text = rt.op_function("sum", [rt.Param("x", (3,), np.int32)], (), np.int32)
    error = gradient_error(text)
    assert "0-d float tensor" in error.diagnostics


NO_RULE = """
func.func @main(%x: tensor<3xf32>) -> tensor<f32> {
  %r = relax.dataflow -> (tensor<f32>) {
    %0 = arith.addf %x, %x : tensor<3xf32>
    %1 = relax.sum %0 : tensor<3xf32> -> tensor<f32>
    relax.output %1 : tensor<f32>
  }
  return %r : tensor<f32>
}
"""


def test_op_without_gradient_rule() -> None:
    error = gradient_error(NO_RULE)
    assert "arith.addf" in error.diagnostics
    assert "no gradient rule" in error.diagnostics


def test_require_grads_of_integer_parameter() -> None:
    error = gradient_error(INT_PARAM, require_grads=["k"])
    assert "only float tensors" in error.diagnostics


def test_target_index_on_single_result() -> None:
    error = gradient_error(MLP_LAYER, target_index=1)
    # The diagnostic must print the index as a number.
    assert "target-index 1 given" in error.diagnostics, repr(error.diagnostics)


TUPLE_TARGET = """
func.func @main(%x: tensor<3xf32>) -> tuple<tensor<f32>, tensor<3xf32>> {
  %r:2 = relax.dataflow -> (tensor<f32>, tensor<3xf32>) {
    %0 = relax.sum %x : tensor<3xf32> -> tensor<f32>
    relax.output %0, %x : tensor<f32>, tensor<3xf32>
  }
  %t = relax.tuple(%r#0, %r#1 : tensor<f32>, tensor<3xf32>)
  return %t : tuple<tensor<f32>, tensor<3xf32>>
}
"""


def test_target_index_out_of_range_for_tuple() -> None:
    error = gradient_error(TUPLE_TARGET, target_index=2)
    assert "target-index 2 is out of range" in error.diagnostics, repr(error.diagnostics)


def test_target_index_pointing_at_non_scalar_field() -> None:
    error = gradient_error(TUPLE_TARGET, target_index=1)
    assert "0-d float tensor" in error.diagnostics


NEGATIVE_TARGET_SCRIPT = """
import relax_mlir
text = {text!r}
try:
    relax_mlir.gradient(text, target_index={index})
except (ValueError, relax_mlir.GradientError) as e:
    print("RAISED", type(e).__name__, str(e))
else:
    print("NO ERROR")
"""


@pytest.mark.parametrize("text,index", [(MLP_LAYER, -1), (TUPLE_TARGET, -1), (MLP_LAYER, 200)],
                         ids=["single-neg", "tuple-neg", "single-200"])
def test_bad_target_index_raises_instead_of_crashing(tmp_path: Path, text: str,
                                                      index: int) -> None:
    proc = rt.run_python(NEGATIVE_TARGET_SCRIPT.format(text=text, index=index), tmp_path)
    assert proc.returncode == 0, rt.describe_process(proc)
    assert "RAISED" in proc.stdout, proc.stdout
    assert str(index) in proc.stdout, proc.stdout


def test_gradient_twice_is_an_error() -> None:
    once = relax_mlir.gradient(MLP_LAYER)
    text = str(once)
    error = gradient_error(text)
    assert "main_adjoint" in error.diagnostics and "already" in error.diagnostics


def test_empty_require_grads() -> None:
    with pytest.raises(ValueError, match="empty"):
        relax_mlir.gradient(MLP_LAYER, require_grads=[])


OUTSIDE = """
func.func @main(%x: tensor<3xf64>) -> tensor<f64> {
  %0 = relax.exp %x : tensor<3xf64>
  %r = relax.dataflow -> (tensor<f64>) {
    %1 = relax.sum %0 : tensor<3xf64> -> tensor<f64>
    relax.output %1 : tensor<f64>
  }
  return %r : tensor<f64>
}
"""


def test_binding_outside_dataflow_compiles_but_is_not_differentiated() -> None:
    exe = rt.compile_text(OUTSIDE)
    x = np.array([0.0, 1.0, -1.0])
    np.testing.assert_allclose(exe.main(x), np.sum(np.exp(x)), rtol=1e-14)
    error = gradient_error(OUTSIDE)
    assert "outside the relax.dataflow" in error.diagnostics


INVALID = [
    ("sum", [rt.Param("x", (2, 3), np.float32)], (2,), {"axis": [3]}, "out of range"),
    ("sum", [rt.Param("x", (2, 3), np.float32)], (2,), {"axis": [0, -2]}, "repeated"),
    ("permute_dims", [rt.Param("x", (2, 3), np.float32)], (2, 3), {"axes": [0, 0]}, "repeated"),
    ("reshape", [rt.Param("x", (2, 3), np.float32)], (4, 2), None, "cannot reshape"),
    ("broadcast_to", [rt.Param("x", (3,), np.float32)], (4, 2), None, "cannot broadcast"),
    ("collapse_sum_to", [rt.Param("x", (4, 3), np.float32)], (2,), None, "collapse-sum"),
    ("matmul", [rt.Param("a", (2, 3), np.float32), rt.Param("b", (4, 2), np.float32)], (2, 2),
     None, "contracted"),
    ("add", [rt.Param("a", (2, 3), np.float32), rt.Param("b", (2,), np.float32)], (2, 3), None,
     "broadcast"),
    ("exp", [rt.Param("x", (3,), np.int32)], (3,), None, "float"),
]


@pytest.mark.parametrize("op,params,shape,attrs,message", INVALID,
                         ids=[f"{c[0]}-{c[4]}" for c in INVALID])
def test_invalid_ir_is_rejected_with_diagnostics(op, params, shape, attrs, message) -> None:
    dtype = params[0].dtype
    text = rt.op_function(op, params, shape, dtype, attrs)
    with pytest.raises(relax_mlir.RelaxMLIRError) as info:
        relax_mlir.compile(text)
    assert message in info.value.diagnostics, info.value.diagnostics


# ----------------------------------------------------------------------------
# Modules built with the Python op classes
# ----------------------------------------------------------------------------

BUILDER_SCRIPT = """
import sys
import numpy as np
import relax_mlir
from relax_mlir import ir
from relax_mlir.dialects import func, relax

KEEPDIMS = {keepdims!r}

def sum_op(x, **kw):
    if KEEPDIMS is not None:
        kw["keepdims"] = KEEPDIMS
    return relax.SumOp(x, **kw).result

with ir.Context(), ir.Location.unknown():
    module = ir.Module.create()
    f64 = ir.F64Type.get()
    tx = ir.RankedTensorType.get([2, 3], f64)
    tw = ir.RankedTensorType.get([3], f64)
    ts = ir.RankedTensorType.get([], f64)
    with ir.InsertionPoint(module.body):
        fn = func.FuncOp("main", ir.FunctionType.get([tx, tw], [ts]))
        fn.arg_attrs = ir.ArrayAttr.get([
            ir.DictAttr.get({{"relax.name": ir.StringAttr.get("x")}}),
            ir.DictAttr.get({{"relax.name": ir.StringAttr.get("w")}})])
        entry = fn.add_entry_block()
        with ir.InsertionPoint(entry):
            df = relax.DataflowOp([ts])
            body = df.body.blocks.append()
            with ir.InsertionPoint(body):
                x, w = entry.arguments
                e = relax.ExpOp(x).result
                m = relax.MultiplyOp(e, w).result
                rows = sum_op(m, axis=[1])
                s = sum_op(rows)
                relax.OutputOp([s])
            func.ReturnOp([df.result])
    assert module.operation.verify()
    grad = relax_mlir.gradient(module, require_grads=["w", "x"])
    exe = relax_mlir.compile(grad)
    xv = np.load(sys.argv[1] + "/x.npy")
    wv = np.load(sys.argv[1] + "/w.npy")
    loss, (gw, gx) = exe.main_adjoint(xv, wv)
    np.save(sys.argv[1] + "/loss.npy", loss)
    np.save(sys.argv[1] + "/gw.npy", gw)
    np.save(sys.argv[1] + "/gx.npy", gx)
    np.save(sys.argv[1] + "/main.npy", exe.main(xv, wv))
"""


def run_builder(tmp_path: Path, keepdims) -> None:
    """Builds, differentiates and runs the module in a subprocess (a crash there must
    not take the test session down) and checks the results against numpy."""
    gen = rt.rng("builder")
    x, w = gen.normal(size=(2, 3)), gen.normal(size=3)
    np.save(tmp_path / "x.npy", x)
    np.save(tmp_path / "w.npy", w)
    proc = rt.run_python(BUILDER_SCRIPT.format(keepdims=keepdims), tmp_path, str(tmp_path))
    assert proc.returncode == 0, rt.describe_process(proc)
    expected = np.sum(np.exp(x) * w)
    np.testing.assert_allclose(np.load(tmp_path / "loss.npy"), expected, rtol=1e-12)
    np.testing.assert_allclose(np.load(tmp_path / "main.npy"), expected, rtol=1e-12)
    np.testing.assert_allclose(np.load(tmp_path / "gw.npy"), np.exp(x).sum(axis=0), rtol=1e-12)
    np.testing.assert_allclose(np.load(tmp_path / "gx.npy"), np.exp(x) * w, rtol=1e-12)


def test_python_built_module_explicit_keepdims(tmp_path: Path) -> None:
    run_builder(tmp_path, keepdims=False)


def test_python_built_module_default_keepdims(tmp_path: Path) -> None:
    """relax.SumOp(x) without keepdims (its default is false) must infer its result type."""
    run_builder(tmp_path, keepdims=None)


def test_compile_only_named_functions() -> None:
    """`functions=` compiles those public functions only; the others are not
    lowered (nor callable), unknown names are an error naming the choices."""
    text = """
func.func @f(%x: tensor<3xf32>) -> tensor<3xf32> {
  %y = relax.exp %x : tensor<3xf32>
  return %y : tensor<3xf32>
}
func.func @g(%x: tensor<3xf32>) -> tensor<3xf32> {
  %y = relax.negative %x : tensor<3xf32>
  return %y : tensor<3xf32>
}
"""
    exe = relax_mlir.compile(text, functions=["g"])
    assert exe.function_names == ["g"]
    llvm = str(exe.llvm_module)
    assert "@f(" not in llvm and "@_mlir_ciface_f(" not in llvm and "@_mlir_ciface_g(" in llvm
    np.testing.assert_array_equal(exe.g(np.ones(3, np.float32)), -np.ones(3, np.float32))
    with pytest.raises(ValueError, match="names no public function: h; the public functions "
                                         "are: f, g"):
        relax_mlir.compile(text, functions=["h"])
