"""Trains an MLP and a small CNN on scikit-learn's digits with relax-mlir.

`python -m relax_mlir.demo` (or `make demo`). The models are plain Python
functions over `relax_mlir.numpy` and `relax_mlir.nn`; `relax_mlir.value_and_grad`
traces each loss into relax IR, differentiates it with the `gradient` pass,
lowers it to LLVM and JIT-compiles it once; every training step then runs the
compiled adjoint (numpy only applies the SGD update). At the end the gradients
of one batch are checked against float64 finite differences, and the loss and
accuracy curves are written to a PNG.

`mpirun -np 2 python -m relax_mlir.demo --data-parallel` trains the same
models on 2 processes: each computes the gradient of its half of every
batch, and one compiled step (`jit` of `value_and_grad(...,
data_parallel="mean")` and `relax_mlir.optim.sgd`) averages the gradients
with MPI_Allreduce and applies the update; rank 0 reports, every rank prints
its throughput, and the result agrees with the one-process run
(`--data-parallel` without mpirun).
"""

from __future__ import annotations

import argparse
import importlib.util
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

import relax_mlir
import relax_mlir.nn as nn

Params = dict[str, np.ndarray]


# ----------------------------------------------------------------------------
# Models
# ----------------------------------------------------------------------------

def mlp(params: Params, images: Any) -> Any:
    """64 -> hidden (relu) -> 10 logits."""
    x = images.reshape(images.shape[0], -1)
    h = nn.relu(x @ params["w1"] + params["b1"])
    return h @ params["w2"] + params["b2"]


def cnn(params: Params, images: Any) -> Any:
    """conv3x3(8) relu maxpool2, conv3x3(16) relu maxpool2, dense to 10."""
    h = nn.max_pool2d(nn.relu(nn.conv2d(images, params["c1"], params["cb1"], padding=1)), 2)
    h = nn.max_pool2d(nn.relu(nn.conv2d(h, params["c2"], params["cb2"], padding=1)), 2)
    return h.reshape(h.shape[0], -1) @ params["w"] + params["b"]


def init_mlp(rng: np.random.Generator, hidden: int = 64) -> Params:
    return {"w1": rng.normal(size=(64, hidden)) / 8.0, "b1": np.zeros(hidden),
            "w2": rng.normal(size=(hidden, 10)) / np.sqrt(hidden), "b2": np.zeros(10)}


def init_cnn(rng: np.random.Generator) -> Params:
    return {"c1": rng.normal(size=(8, 1, 3, 3)) / 3.0, "cb1": np.zeros(8),
            "c2": rng.normal(size=(16, 8, 3, 3)) / np.sqrt(72), "cb2": np.zeros(16),
            "w": rng.normal(size=(64, 10)) / 8.0, "b": np.zeros(10)}


MODELS: dict[str, tuple[Callable[..., Any], Callable[[np.random.Generator], Params]]] = {
    "mlp": (mlp, init_mlp), "cnn": (cnn, init_cnn)}


def make_loss(model: Callable[..., Any]) -> Callable[..., Any]:
    def loss(params: Params, images: Any, labels: Any) -> Any:
        return nn.cross_entropy(model(params, images), labels)
    return loss


# ----------------------------------------------------------------------------
# Data, progress, plot
# ----------------------------------------------------------------------------

def load_digits(seed: int) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Standardized 1x8x8 float32 images and int64 labels, 80/20 split."""
    from sklearn.datasets import load_digits as sklearn_digits

    digits = sklearn_digits()
    x = digits.images.astype(np.float32)[:, None]
    y = digits.target.astype(np.int64)
    order = np.random.default_rng(seed).permutation(len(x))
    x, y = x[order], y[order]
    split = int(0.8 * len(x))
    mean, std = x[:split].mean(), x[:split].std()
    x = ((x - mean) / std).astype(np.float32)
    return x[:split], y[:split], x[split:], y[split:]


class Progress:
    """A one-line progress bar on a terminal; nothing in between otherwise."""

    def __init__(self, total: int, label: str) -> None:
        self.total, self.label = total, label
        self.live = sys.stdout.isatty()

    def update(self, done: int, loss: float) -> None:
        if not self.live:
            return
        width = 30
        filled = width * done // self.total
        print(f"\r  {self.label} [{'#' * filled}{'.' * (width - filled)}] {done}/{self.total} "
              f"loss {loss:.4f}", end="", flush=True)

    def close(self) -> None:
        if self.live:
            print("\r" + " " * 79 + "\r", end="")


def write_plot(history: dict[str, dict[str, list[float]]], path: str) -> str:
    """Loss and test accuracy per epoch, one line per model."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, (ax_loss, ax_acc) = plt.subplots(1, 2, figsize=(9, 3.5))
    for name, h in history.items():
        epochs = range(1, len(h["loss"]) + 1)
        ax_loss.plot(epochs, h["loss"], marker="o", label=name)
        ax_acc.plot(epochs, h["accuracy"], marker="o", label=name)
    ax_loss.set(xlabel="epoch", ylabel="training loss", title="loss")
    ax_acc.set(xlabel="epoch", ylabel="test accuracy", title="accuracy", ylim=(0, 1))
    for ax in (ax_loss, ax_acc):
        ax.grid(alpha=0.3)
        ax.legend()
    fig.suptitle("relax-mlir on scikit-learn digits")
    fig.tight_layout()
    Path(path).resolve().parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path


# ----------------------------------------------------------------------------
# Training and the gradient check
# ----------------------------------------------------------------------------

def as_dtype(params: Params, dtype: Any) -> Params:
    return {k: v.astype(dtype) for k, v in params.items()}


def gradient_check(loss: Callable[..., Any], params: Params, images: np.ndarray,
                   labels: np.ndarray, rng: np.random.Generator, samples: int = 4) -> float:
    """Largest relative error between the compiled float64 gradient and central
    finite differences of the compiled float64 loss, over `samples` random
    coordinates of each parameter."""
    params64, images64 = as_dtype(params, np.float64), images.astype(np.float64)
    grads = relax_mlir.grad(loss)(params64, images64, labels)
    forward = relax_mlir.jit(loss)
    worst, eps = 0.0, 1e-6
    for name, value in params64.items():
        for flat in rng.choice(value.size, min(samples, value.size), replace=False):
            index = np.unravel_index(flat, value.shape)
            diffs = []
            for sign in (1.0, -1.0):
                bumped = dict(params64)
                bumped[name] = value.copy()
                bumped[name][index] += sign * eps
                diffs.append(float(forward(bumped, images64, labels)))
            numeric = (diffs[0] - diffs[1]) / (2 * eps)
            analytic = float(grads[name][index])
            worst = max(worst, abs(analytic - numeric) / max(1e-3, abs(numeric)))
    return worst


def train(name: str, args: argparse.Namespace, data: tuple[np.ndarray, ...]
          ) -> tuple[dict[str, list[float]], float]:
    x_train, y_train, x_test, y_test = data
    model, init = MODELS[name]
    rng = np.random.default_rng(args.seed)
    params = as_dtype(init(rng), np.float32)
    loss = make_loss(model)
    step = relax_mlir.value_and_grad(loss)
    predict = relax_mlir.jit(model)

    start = time.perf_counter()
    step(params, x_train[:args.batch], y_train[:args.batch])
    predict(params, x_test)
    print(f"{name}: traced, differentiated and compiled in {time.perf_counter() - start:.2f} s")

    steps = len(x_train) // args.batch
    history: dict[str, list[float]] = {"loss": [], "accuracy": []}
    for epoch in range(1, args.epochs + 1):
        order = rng.permutation(len(x_train))
        progress = Progress(steps, f"epoch {epoch}")
        losses = []
        begin = time.perf_counter()
        for s in range(steps):
            batch = order[s * args.batch:(s + 1) * args.batch]
            value, grads = step(params, x_train[batch], y_train[batch])
            for k in params:
                params[k] -= args.lr * grads[k]
            losses.append(float(value))
            progress.update(s + 1, float(np.mean(losses)))
        elapsed = time.perf_counter() - begin
        progress.close()
        accuracy = float((predict(params, x_test).argmax(1) == y_test).mean())
        history["loss"].append(float(np.mean(losses)))
        history["accuracy"].append(accuracy)
        print(f"  epoch {epoch:2d}  loss {history['loss'][-1]:.4f}  test accuracy "
              f"{accuracy:.3f}  {elapsed * 1e3:7.1f} ms ({elapsed / steps * 1e6:.0f} us/step)")
    error = gradient_check(loss, params, x_train[:args.batch], y_train[:args.batch], rng)
    verdict = "ok" if error < 1e-5 else "MISMATCH"
    print(f"  gradient check (float64, finite differences, one batch): largest relative "
          f"error {error:.1e} {verdict}")
    if error >= 1e-5:
        raise SystemExit(f"{name}: the compiled gradient disagrees with finite differences")
    return history, history["accuracy"][-1]


def train_data_parallel(name: str, args: argparse.Namespace, data: tuple[np.ndarray, ...]
                        ) -> tuple[dict[str, list[float]], float]:
    """`train` on the processes of an MPI job: the same global batches on
    every rank, each rank's shard differentiated, the gradients averaged and
    the SGD update applied inside one compiled step."""
    from . import distributed, optim

    distributed.initialize()
    rank, size = distributed.rank(), distributed.size()
    if args.batch % size:
        raise SystemExit(f"--batch {args.batch} must be a multiple of the {size} processes")
    x_train, y_train, x_test, y_test = data
    model, init = MODELS[name]
    rng = np.random.default_rng(args.seed)
    params = distributed.broadcast(as_dtype(init(rng), np.float32))
    loss = make_loss(model)
    opt = optim.sgd(args.lr)

    @relax_mlir.jit(donate_argnums=(0, 1))  # parameters and state updated in place
    def train_step(params: Params, state: Any, images: Any, labels: Any) -> Any:
        value, grads = relax_mlir.value_and_grad(loss, data_parallel="mean")(params, images,
                                                                            labels)
        updates, state = opt.update(grads, state, params)
        return optim.apply_updates(params, updates), state, value

    predict = relax_mlir.jit(model)
    state = opt.init(params)
    start = time.perf_counter()
    shard = distributed.shard_batch((x_train[:args.batch], y_train[:args.batch]))
    train_step(params, state, *shard)
    predict(params, x_test)
    if rank == 0:
        print(f"{name}: traced, differentiated and compiled in "
              f"{time.perf_counter() - start:.2f} s on each of {size} process(es)")
    steps = len(x_train) // args.batch
    history: dict[str, list[float]] = {"loss": [], "accuracy": []}
    busy = 0.0
    for epoch in range(1, args.epochs + 1):
        order = rng.permutation(len(x_train))
        losses = []
        begin = time.perf_counter()
        for s in range(steps):
            batch = order[s * args.batch:(s + 1) * args.batch]
            images, labels = distributed.shard_batch((x_train[batch], y_train[batch]))
            params, state, value = train_step(params, state, images, labels)
            losses.append(float(value))
        elapsed = time.perf_counter() - begin
        busy += elapsed
        accuracy = float((predict(params, x_test).argmax(1) == y_test).mean())
        history["loss"].append(float(np.mean(losses)))
        history["accuracy"].append(accuracy)
        if rank == 0:
            print(f"  epoch {epoch:2d}  loss {history['loss'][-1]:.4f}  test accuracy "
                  f"{accuracy:.3f}  {elapsed * 1e3:7.1f} ms ({elapsed / steps * 1e6:.0f} us/step)")
    from mpi4py import MPI

    rate = steps * args.epochs * args.batch / size / busy
    rates = MPI.COMM_WORLD.gather((rank, busy / (steps * args.epochs) * 1e6, rate), root=0)
    if rank == 0 and rates is not None:
        for r, us, images_per_s in rates:
            print(f"  rank {r}: {us:.0f} us/step, {images_per_s:.0f} images/s of its shards")
        print(f"  {name} final: loss {history['loss'][-1]:.6f} test accuracy "
              f"{history['accuracy'][-1]:.4f}")
    return history, history["accuracy"][-1]


# (module, what pip installs) of the demo's own dependencies: the data set and
# the plot.
DEMO_PACKAGES = (("sklearn", "scikit-learn"), ("matplotlib", "matplotlib"))


def missing_packages() -> list[str]:
    """The demo's dependencies this Python lacks (pip's names)."""
    return [name for module, name in DEMO_PACKAGES if importlib.util.find_spec(module) is None]


def default_plot() -> str:
    """Where the plot goes without `--out`: `build/demo/training.png` of the
    repository this package was built from (what `make demo` runs), else
    `~/relax-mlir-demo/training.png`; never relative to the working
    directory."""
    root = Path(__file__).resolve().parents[2]  # (the build tree links to python/)
    if (root / "pyproject.toml").is_file() and (root / "compiler").is_dir():
        return str(root / "build" / "demo" / "training.png")
    return str(Path.home() / "relax-mlir-demo" / "training.png")


def main(argv: list[str] | None = None) -> dict[str, float]:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--models", default="mlp,cnn", help="comma-separated: mlp, cnn")
    parser.add_argument("--epochs", type=int, default=10)
    parser.add_argument("--batch", type=int, default=64)
    parser.add_argument("--lr", type=float, default=0.1)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--data-parallel", action="store_true",
                        help="train on the processes of an MPI job (mpirun -np N python -m "
                             "relax_mlir.demo --data-parallel): gradients averaged and SGD "
                             "applied in one compiled step; needs relax-mlir[mpi]")
    parser.add_argument("--out", "--plot", dest="plot", default=None,
                        help="where to write the loss/accuracy plot (PNG; default: "
                             "build/demo/training.png in the repository, else "
                             "~/relax-mlir-demo/training.png)")
    args = parser.parse_args(argv)
    missing = missing_packages()
    if missing:
        sys.exit(f"the demo needs {' and '.join(missing)} (its data set and its plot): "
                 f"pip install 'relax-mlir[demo]' (in the repository, `make demo` installs "
                 f"them)")
    if args.plot is None:
        args.plot = default_plot()
    names = [m.strip() for m in args.models.split(",") if m.strip()]
    for n in names:
        if n not in MODELS:
            parser.error(f"unknown model {n!r}; choose from {', '.join(MODELS)}")

    data = load_digits(args.seed)
    print(f"data: scikit-learn digits, {len(data[0])} train / {len(data[2])} test images "
          f"of 8x8")
    history, accuracy = {}, {}
    if args.data_parallel:
        for name in names:
            history[name], accuracy[name] = train_data_parallel(name, args, data)
        return accuracy
    for name in names:
        history[name], accuracy[name] = train(name, args, data)
    print(f"plot: {write_plot(history, args.plot)}")
    return accuracy


if __name__ == "__main__":
    main()
