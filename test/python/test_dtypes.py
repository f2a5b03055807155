"""Element types at the Python boundary and inside functions.

f16, f32, f64, i1, i32 and i64 cross the boundary as numpy arrays, bf16 as
ml_dtypes' bfloat16 arrays (JAX's); another dtype for a bf16 parameter is
refused with the conversion to make. bf16 computation inside a function
(converted with relax.astype) runs and is differentiated.
"""

from __future__ import annotations

import subprocess
import sys
import textwrap

import ml_dtypes
import numpy as np
import pytest
import relax_mlir

from relax_mlir_testing import harness as rt

BF16_PARAM = """
func.func @main(%x: tensor<3xbf16>) -> tensor<3xbf16> {
  %r = relax.dataflow -> (tensor<3xbf16>) {
    %a = relax.exp %x : tensor<3xbf16>
    relax.output %a : tensor<3xbf16>
  }
  return %r : tensor<3xbf16>
}
"""


def test_bf16_parameters_and_results_are_ml_dtypes_bfloat16() -> None:
    exe = relax_mlir.compile(BF16_PARAM)
    x = np.array([0.0, 1.0, -2.5], ml_dtypes.bfloat16)
    y = exe["main"](x)
    assert y.dtype == ml_dtypes.bfloat16
    np.testing.assert_allclose(y.astype(np.float32), np.exp(x.astype(np.float32)), rtol=1e-2)
    with pytest.raises(TypeError) as info:
        exe["main"](np.ones(3, np.float32))
    message = str(info.value)
    assert "expected dtype bfloat16" in message, message
    assert ".astype(ml_dtypes.bfloat16)" in message, message


BF16_INSIDE = """
func.func @main(%x: tensor<4x3xf32>, %w: tensor<3x2xf32>) -> tensor<f32> {
  %r = relax.dataflow -> (tensor<f32>) {
    %a = relax.astype %x : tensor<4x3xf32> -> tensor<4x3xbf16>
    %wb = relax.astype %w : tensor<3x2xf32> -> tensor<3x2xbf16>
    %m = relax.matmul %a, %wb : tensor<4x3xbf16>, tensor<3x2xbf16> -> tensor<4x2xbf16>
    %e = relax.gelu %m : tensor<4x2xbf16>
    %s = relax.log_softmax %e : tensor<4x2xbf16>
    %l = relax.sum %s : tensor<4x2xbf16> -> tensor<bf16>
    %o = relax.astype %l : tensor<bf16> -> tensor<f32>
    relax.output %o : tensor<f32>
  }
  return %r : tensor<f32>
}
"""


def _reference(x: np.ndarray, w: np.ndarray) -> float:
    from math import erf
    m = x.astype(np.float64) @ w.astype(np.float64)
    g = 0.5 * m * (1 + np.vectorize(erf)(m / np.sqrt(2)))
    s = g - g.max(-1, keepdims=True)
    return float(np.sum(s - np.log(np.exp(s).sum(-1, keepdims=True))))


def test_bf16_computation_inside_a_function_runs_and_differentiates() -> None:
    gen = rt.rng("bf16")
    x = gen.uniform(-1, 1, (4, 3)).astype(np.float32)
    w = gen.uniform(-1, 1, (3, 2)).astype(np.float32)
    exe = relax_mlir.compile(relax_mlir.gradient(BF16_INSIDE))
    loss, (dx, dw) = exe.main_adjoint(x, w)
    # bf16 keeps 8 bits of mantissa: a relative error of about 2^-8 per rounding.
    np.testing.assert_allclose(loss, _reference(x, w), rtol=3e-2)
    args = [x.astype(np.float64), w.astype(np.float64)]
    for i, g in enumerate((dx, dw)):
        expected = rt.central_difference(lambda a: _reference(*a), args, i, 1e-4)
        np.testing.assert_allclose(g, expected, rtol=0.1, atol=3e-2,
                                   err_msg=f"bf16 gradient of argument {i}")


F16_MODEL = """
func.func @main(%x: tensor<8x5xf16>, %w: tensor<5x4xf16>, %t: tensor<8xi32>) -> tensor<f16> {
  %r = relax.dataflow -> (tensor<f16>) {
    %m = relax.matmul %x, %w : tensor<8x5xf16>, tensor<5x4xf16> -> tensor<8x4xf16>
    %a = relax.silu %m : tensor<8x4xf16>
    %p = relax.log_softmax %a : tensor<8x4xf16>
    %l = relax.nll_loss %p, %t : tensor<8x4xf16>, tensor<8xi32> -> tensor<f16>
    relax.output %l : tensor<f16>
  }
  return %r : tensor<f16>
}
"""


def test_f16_model_runs_from_python_with_f16_gradients() -> None:
    gen = rt.rng("f16-model")
    x = gen.uniform(-1, 1, (8, 5)).astype(np.float16)
    w = gen.uniform(-1, 1, (5, 4)).astype(np.float16)
    t = gen.integers(0, 4, 8).astype(np.int32)
    exe = relax_mlir.compile(relax_mlir.gradient(F16_MODEL, require_grads=[0, 1]))
    loss, (dx, dw) = exe.main_adjoint(x, w, t)
    assert loss.dtype == np.float16 and dx.dtype == np.float16 and dw.dtype == np.float16

    def ref(a: list[np.ndarray]) -> float:
        m = a[0] @ a[1]
        s = m / (1 + np.exp(-m))
        s = s - s.max(-1, keepdims=True)
        lp = s - np.log(np.exp(s).sum(-1, keepdims=True))
        return float(-lp[np.arange(8), t].mean())

    args = [x.astype(np.float64), w.astype(np.float64)]
    np.testing.assert_allclose(float(loss), ref(args), rtol=5e-3, atol=5e-3)
    for i, g in enumerate((dx, dw)):
        expected = rt.central_difference(ref, args, i, 1e-4)
        np.testing.assert_allclose(g.astype(np.float64), expected, rtol=2e-2, atol=5e-3)


def test_ml_dtypes_is_imported_only_when_bfloat16_is_used() -> None:
    """Importing ml_dtypes takes about 0.6 s: a process that never touches
    bfloat16 (import, trace, compile and run float32) does not import it;
    `relax_mlir.numpy.bfloat16` and a bf16 function then work, and the
    unsupported-dtype error still lists bfloat16."""
    script = textwrap.dedent("""
        import sys
        import numpy as np
        import relax_mlir, relax_mlir.nn, relax_mlir.numpy as rnp, relax_mlir.runtime
        f = relax_mlir.jit(lambda x: rnp.tanh(x) * 2)
        assert np.allclose(f(np.ones(3, np.float32)), 2 * np.tanh(1.0))
        try:
            f(np.ones(3, np.int8))
        except TypeError as e:
            assert "bfloat16" in str(e), e
        else:
            raise AssertionError("int8 accepted")
        assert "ml_dtypes" not in sys.modules, "imported without bfloat16"
        y = f(np.ones(3, rnp.bfloat16))
        assert y.dtype == rnp.bfloat16 and "ml_dtypes" in sys.modules
        assert np.allclose(y.astype(np.float32), 2 * np.tanh(1.0), rtol=1e-2)
        print("ok")
    """)
    proc = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                          timeout=300, check=False)
    assert proc.returncode == 0 and proc.stdout.strip() == "ok", proc.stderr[-2000:]
