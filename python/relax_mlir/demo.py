"""Trains a 2-layer MLP classifier whose every step runs the compiled adjoint.

`python -m relax_mlir.demo` (or `make demo`): the loss is written in the relax
dialect, differentiated by the `gradient` pass, lowered to LLVM and JIT-compiled;
numpy only updates the weights (plain SGD). Data: scikit-learn's 8x8 digits
(1797 images, 10 classes), or synthetic blobs when scikit-learn is missing.
"""

from __future__ import annotations

import argparse
import time

import numpy as np

import relax_mlir

LOSS_TEMPLATE = """
func.func @loss(%x: tensor<{B}x{D}xf32> {{relax.name = "x"}},
                %y: tensor<{B}x{C}xf32> {{relax.name = "y"}},
                %w1: tensor<{D}x{H}xf32> {{relax.name = "w1"}},
                %b1: tensor<{H}xf32> {{relax.name = "b1"}},
                %w2: tensor<{H}x{C}xf32> {{relax.name = "w2"}},
                %b2: tensor<{C}xf32> {{relax.name = "b2"}}) -> tensor<f32> {{
  %r = relax.dataflow -> (tensor<f32>) {{
    %h0 = relax.matmul %x, %w1 : tensor<{B}x{D}xf32>, tensor<{D}x{H}xf32> -> tensor<{B}x{H}xf32>
    %h1 = relax.add %h0, %b1 : tensor<{B}x{H}xf32>, tensor<{H}xf32> -> tensor<{B}x{H}xf32>
    %h = relax.relu %h1 : tensor<{B}x{H}xf32>
    %z0 = relax.matmul %h, %w2 : tensor<{B}x{H}xf32>, tensor<{H}x{C}xf32> -> tensor<{B}x{C}xf32>
    %z = relax.add %z0, %b2 : tensor<{B}x{C}xf32>, tensor<{C}xf32> -> tensor<{B}x{C}xf32>
    // softmax cross-entropy: mean(log(sum(exp(z))) - sum(z * y))
    %e = relax.exp %z : tensor<{B}x{C}xf32>
    %s = relax.sum %e {{axis = array<i64: 1>, keepdims = true}} : tensor<{B}x{C}xf32> -> tensor<{B}x1xf32>
    %lse = relax.log %s : tensor<{B}x1xf32>
    %zy = relax.multiply %z, %y : tensor<{B}x{C}xf32>, tensor<{B}x{C}xf32> -> tensor<{B}x{C}xf32>
    %picked = relax.sum %zy {{axis = array<i64: 1>, keepdims = true}} : tensor<{B}x{C}xf32> -> tensor<{B}x1xf32>
    %nll = relax.subtract %lse, %picked : tensor<{B}x1xf32>, tensor<{B}x1xf32> -> tensor<{B}x1xf32>
    %l = relax.mean %nll : tensor<{B}x1xf32> -> tensor<f32>
    relax.output %l : tensor<f32>
  }}
  return %r : tensor<f32>
}}

func.func @predict(%x: tensor<{N}x{D}xf32>, %w1: tensor<{D}x{H}xf32>, %b1: tensor<{H}xf32>,
                   %w2: tensor<{H}x{C}xf32>, %b2: tensor<{C}xf32>) -> tensor<{N}x{C}xf32> {{
  %r = relax.dataflow -> (tensor<{N}x{C}xf32>) {{
    %h0 = relax.matmul %x, %w1 : tensor<{N}x{D}xf32>, tensor<{D}x{H}xf32> -> tensor<{N}x{H}xf32>
    %h1 = relax.add %h0, %b1 : tensor<{N}x{H}xf32>, tensor<{H}xf32> -> tensor<{N}x{H}xf32>
    %h = relax.relu %h1 : tensor<{N}x{H}xf32>
    %z0 = relax.matmul %h, %w2 : tensor<{N}x{H}xf32>, tensor<{H}x{C}xf32> -> tensor<{N}x{C}xf32>
    %z = relax.add %z0, %b2 : tensor<{N}x{C}xf32>, tensor<{C}xf32> -> tensor<{N}x{C}xf32>
    relax.output %z : tensor<{N}x{C}xf32>
  }}
  return %r : tensor<{N}x{C}xf32>
}}
"""


def load_data(seed: int) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, str]:
    """Train/test features (standardized float32) and integer labels."""
    rng = np.random.default_rng(seed)
    try:
        from sklearn.datasets import load_digits

        digits = load_digits()
        x, y, name = digits.data.astype(np.float32), digits.target, "scikit-learn digits"
    except ImportError:
        centers = rng.normal(0.0, 3.0, size=(10, 64))
        y = rng.integers(0, 10, size=1800)
        x = (centers[y] + rng.normal(size=(1800, 64))).astype(np.float32)
        name = "synthetic blobs (scikit-learn not installed)"
    order = rng.permutation(len(x))
    x, y = x[order], y[order]
    split = int(0.8 * len(x))
    mean, std = x[:split].mean(0), x[:split].std(0) + 1e-6
    x = ((x - mean) / std).astype(np.float32)
    return x[:split], y[:split], x[split:], y[split:], name


def main(argv: list[str] | None = None) -> float:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--epochs", type=int, default=15)
    parser.add_argument("--batch", type=int, default=64)
    parser.add_argument("--hidden", type=int, default=64)
    parser.add_argument("--lr", type=float, default=0.1)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)

    x_train, y_train, x_test, y_test, name = load_data(args.seed)
    classes, features = 10, x_train.shape[1]
    text = LOSS_TEMPLATE.format(B=args.batch, D=features, H=args.hidden, C=classes,
                                N=len(x_test))
    start = time.perf_counter()
    adjoint = relax_mlir.gradient(text, func="loss", require_grads=["w1", "b1", "w2", "b2"])
    exe = relax_mlir.compile(adjoint)
    print(f"data: {name}, {len(x_train)} train / {len(x_test)} test images")
    print(f"compiled loss_adjoint and predict in {time.perf_counter() - start:.2f} s")

    rng = np.random.default_rng(args.seed)
    params = [
        (rng.normal(size=(features, args.hidden)) / np.sqrt(features)).astype(np.float32),
        np.zeros(args.hidden, np.float32),
        (rng.normal(size=(args.hidden, classes)) / np.sqrt(args.hidden)).astype(np.float32),
        np.zeros(classes, np.float32),
    ]
    onehot = np.eye(classes, dtype=np.float32)
    steps = len(x_train) // args.batch
    for epoch in range(1, args.epochs + 1):
        order = rng.permutation(len(x_train))
        losses = []
        for s in range(steps):
            idx = order[s * args.batch:(s + 1) * args.batch]
            loss, grads = exe.loss_adjoint(x_train[idx], onehot[y_train[idx]], *params)
            params = [p - args.lr * g for p, g in zip(params, grads)]
            losses.append(float(loss))
        print(f"epoch {epoch:3d}  loss {np.mean(losses):.4f}")
    logits = exe.predict(x_test, *params)
    accuracy = float((logits.argmax(1) == y_test).mean())
    print(f"test accuracy: {accuracy:.3f} (chance: {1 / classes:.3f})")
    return accuracy


if __name__ == "__main__":
    main()
