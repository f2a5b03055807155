"""Whole models written with the contract's ops, differentiated, compiled and
checked against float64 central finite differences of numpy references:

- a two-layer MLP with log_softmax + nll_loss (gradients of w1, b1, w2, b2);
- a small CNN: conv2d (padded) + relu + max_pool2d, a second conv2d (strided,
  grouped) + relu + avg_pool2d, flatten, dense, log_softmax, nll_loss with
  class weights and an ignored target (gradients of every weight).
"""

from __future__ import annotations

import numpy as np
import relax_mlir

from relax_mlir_testing import harness as rt
from relax_mlir_testing import references as ref


def t(*shape: int) -> str:
    return rt.tensor_type(shape, np.float64)


def log_softmax(z: np.ndarray) -> np.ndarray:
    s = z - z.max(-1, keepdims=True)
    return s - np.log(np.exp(s).sum(-1, keepdims=True))


def nll(lp: np.ndarray, targets: np.ndarray, weights: np.ndarray, ignore: int = -100) -> float:
    valid = targets != ignore
    rows = np.nonzero(valid)[0]
    w = weights[targets[rows]]
    return float(-(w * lp[rows, targets[rows]]).sum() / w.sum())


def check_model(text: str, args: dict[str, np.ndarray], params: list[str], ref) -> None:
    names = list(args)
    module = relax_mlir.gradient(text, require_grads=params)
    exe = relax_mlir.compile(module)
    loss, grads = exe.main_adjoint(**args)
    values = list(args.values())
    np.testing.assert_allclose(loss, ref(values), rtol=1e-10)
    for name, g in zip(params, grads):
        expected = rt.central_difference(ref, values, names.index(name), 1e-6)
        np.testing.assert_allclose(g, expected, rtol=1e-5, atol=1e-7,
                                   err_msg=f"gradient of {name}")


N, D, H, C = 6, 5, 7, 4

MLP = f"""
func.func @main(%x: {t(N, D)} {{relax.name = "x"}}, %w1: {t(D, H)} {{relax.name = "w1"}},
                %b1: {t(H)} {{relax.name = "b1"}}, %w2: {t(H, C)} {{relax.name = "w2"}},
                %b2: {t(C)} {{relax.name = "b2"}}, %y: tensor<{N}xi64> {{relax.name = "y"}})
    -> tensor<f64> {{
  %r = relax.dataflow -> (tensor<f64>) {{
    %0 = relax.matmul %x, %w1 : {t(N, D)}, {t(D, H)} -> {t(N, H)}
    %1 = relax.add %0, %b1 : {t(N, H)}, {t(H)} -> {t(N, H)}
    %2 = relax.relu %1 : {t(N, H)}
    %3 = relax.matmul %2, %w2 : {t(N, H)}, {t(H, C)} -> {t(N, C)}
    %4 = relax.add %3, %b2 : {t(N, C)}, {t(C)} -> {t(N, C)}
    %5 = relax.log_softmax %4 : {t(N, C)}
    %6 = relax.nll_loss %5, %y : {t(N, C)}, tensor<{N}xi64> -> tensor<f64>
    relax.output %6 : tensor<f64>
  }}
  return %r : tensor<f64>
}}
"""


def test_mlp_with_log_softmax_and_nll_loss() -> None:
    gen = rt.rng("model-mlp")
    args = {"x": gen.uniform(-1, 1, (N, D)), "w1": gen.uniform(-1, 1, (D, H)),
            "b1": gen.uniform(-0.5, 0.5, (H,)), "w2": gen.uniform(-1, 1, (H, C)),
            "b2": gen.uniform(-0.5, 0.5, (C,)), "y": gen.integers(0, C, N)}
    # Keep the relu inputs away from 0 (its kink) for the finite differences.
    pre = args["x"] @ args["w1"] + args["b1"]
    args["b1"] = args["b1"] + np.where(np.abs(pre).min(0) < 0.05, 0.2, 0.0)

    def ref(v: list[np.ndarray]) -> float:
        x, w1, b1, w2, b2, y = v
        z = np.maximum(x @ w1 + b1, 0) @ w2 + b2
        return nll(log_softmax(z), y, np.ones(C))

    check_model(MLP, args, ["w1", "b1", "w2", "b2"], ref)


# The CNN: (2, 2, 8, 8) -> conv 3x3 pad 1 (4 ch) -> relu -> max_pool 2 -> (2, 4, 4, 4)
# -> conv 3x3 stride 1 pad 1 groups 2 (6 ch) -> relu -> avg_pool 2 -> (2, 6, 2, 2)
# -> flatten (2, 24) -> dense (24, 3) -> log_softmax -> nll_loss (weights, ignore 2).
CNN = f"""
func.func @main(%x: {t(2, 2, 8, 8)} {{relax.name = "x"}}, %k1: {t(4, 2, 3, 3)} {{relax.name = "k1"}},
                %k2: {t(6, 2, 3, 3)} {{relax.name = "k2"}}, %wd: {t(24, 3)} {{relax.name = "wd"}},
                %cw: {t(3)} {{relax.name = "cw"}}, %y: tensor<2xi64> {{relax.name = "y"}})
    -> tensor<f64> {{
  %r = relax.dataflow -> (tensor<f64>) {{
    %c1 = relax.conv2d %x, %k1 {{padding = array<i64: 1, 1, 1, 1>}} : {t(2, 2, 8, 8)}, {t(4, 2, 3, 3)} -> {t(2, 4, 8, 8)}
    %a1 = relax.relu %c1 : {t(2, 4, 8, 8)}
    %p1 = relax.max_pool2d %a1 {{pool_size = array<i64: 2, 2>}} : {t(2, 4, 8, 8)} -> {t(2, 4, 4, 4)}
    %c2 = relax.conv2d %p1, %k2 {{padding = array<i64: 1, 1, 1, 1>, groups = 2 : i64}} : {t(2, 4, 4, 4)}, {t(6, 2, 3, 3)} -> {t(2, 6, 4, 4)}
    %a2 = relax.relu %c2 : {t(2, 6, 4, 4)}
    %p2 = relax.avg_pool2d %a2 {{pool_size = array<i64: 2, 2>}} : {t(2, 6, 4, 4)} -> {t(2, 6, 2, 2)}
    %f = relax.reshape %p2 : {t(2, 6, 2, 2)} -> {t(2, 24)}
    %z = relax.matmul %f, %wd : {t(2, 24)}, {t(24, 3)} -> {t(2, 3)}
    %lp = relax.log_softmax %z : {t(2, 3)}
    %l = relax.nll_loss %lp, %y, %cw {{ignore_index = 2 : i64}} : {t(2, 3)}, tensor<2xi64>, {t(3)} -> tensor<f64>
    relax.output %l : tensor<f64>
  }}
  return %r : tensor<f64>
}}
"""


def cnn_reference(v: list[np.ndarray]) -> float:
    x, k1, k2, wd, cw, y = v
    a1 = np.maximum(ref.conv2d(x, k1, padding=(1, 1, 1, 1)), 0)
    p1 = ref.max_pool2d(a1, (2, 2))
    a2 = np.maximum(ref.conv2d(p1, k2, padding=(1, 1, 1, 1), groups=2), 0)
    p2 = ref.avg_pool2d(a2, (2, 2))
    z = p2.reshape(2, 24) @ wd
    return nll(log_softmax(z), y, cw, ignore=2)


def test_small_cnn_with_conv_pooling_and_nll_loss() -> None:
    gen = rt.rng("model-cnn")
    args = {"x": gen.uniform(-1, 1, (2, 2, 8, 8)), "k1": gen.uniform(-0.5, 0.5, (4, 2, 3, 3)),
            "k2": gen.uniform(-0.5, 0.5, (6, 2, 3, 3)), "wd": gen.uniform(-1, 1, (24, 3)),
            "cw": np.array([1.0, 2.0, 0.5]), "y": np.array([1, 0])}
    check_model(CNN, args, ["k1", "k2", "wd", "cw"], cnn_reference)
    # An ignored target contributes nothing: the same loss with it ignored.
    args["y"] = np.array([1, 2])
    check_model(CNN, args, ["k1", "k2", "wd"], cnn_reference)


LOSSES_AT_1E3 = """
func.func @main(%z: tensor<3x4xf32> {relax.name = "z"}, %y: tensor<3xi64> {relax.name = "y"},
                %lab: tensor<3x4xf32> {relax.name = "labels"}) -> tensor<f32> {
  %r = relax.dataflow -> (tensor<f32>) {
    %lp = relax.log_softmax %z : tensor<3x4xf32>
    %n = relax.nll_loss %lp, %y : tensor<3x4xf32>, tensor<3xi64> -> tensor<f32>
    %c = relax.cross_entropy_with_logits %lp, %lab : tensor<3x4xf32> -> tensor<f32>
    %s = relax.softplus %z : tensor<3x4xf32>
    %g = relax.sigmoid %z : tensor<3x4xf32>
    %sg = relax.multiply %s, %g : tensor<3x4xf32>, tensor<3x4xf32> -> tensor<3x4xf32>
    %m = relax.mean %sg : tensor<3x4xf32> -> tensor<f32>
    %a = relax.add %n, %c : tensor<f32>, tensor<f32> -> tensor<f32>
    %l = relax.add %a, %m : tensor<f32>, tensor<f32> -> tensor<f32>
    relax.output %l : tensor<f32>
  }
  return %r : tensor<f32>
}
"""


def test_losses_are_finite_and_correct_at_logits_of_magnitude_1e3() -> None:
    """log_softmax + nll_loss, cross entropy, softplus and sigmoid in f32 at
    |z| ~ 1e3, where exp overflows: forward and gradient finite and equal to the
    float64 closed forms."""
    z = np.array([[1000.0, 999.0, -1000.0, 0.0],
                  [-1000.0, -998.0, -999.0, -1001.0],
                  [500.0, -500.0, 1000.0, 999.5]], dtype=np.float32)
    y = np.array([1, 0, 3])
    lab = np.full((3, 4), 0.25, dtype=np.float32)
    exe = relax_mlir.compile(relax_mlir.gradient(LOSSES_AT_1E3, require_grads=["z"]))
    loss, (dz,) = exe.main_adjoint(z, y, lab)
    z64 = z.astype(np.float64)
    lp = log_softmax(z64)
    p = np.exp(lp)
    softplus = np.logaddexp(0.0, z64)
    sig = 0.5 * (1.0 + np.tanh(0.5 * z64))  # the logistic function without overflow
    expected = (-lp[np.arange(3), y].mean() - (lp * lab).sum() / 3
                + (softplus * sig).mean())
    onehot = np.eye(4)[y]
    # d nll = (p - onehot) / 3; d ce = (p * sum(lab) - lab) / 3 per row;
    # d mean(softplus * sigmoid) = (sig * sig + softplus * sig * (1 - sig)) / 12.
    expected_dz = ((p - onehot) / 3 + (p * lab.sum(1, keepdims=True) - lab) / 3
                   + (sig * sig + softplus * sig * (1 - sig)) / 12)
    assert np.isfinite(loss) and np.all(np.isfinite(dz)), (loss, dz)
    np.testing.assert_allclose(loss, expected, rtol=1e-5)
    np.testing.assert_allclose(dz, expected_dz, rtol=1e-4, atol=1e-6)
