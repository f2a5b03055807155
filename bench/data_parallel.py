"""Data parallelism on this machine (issue 31's benchmark; not a test).

One SGD training step of the bench MLP and deep MLP (`workloads.py`'s shapes)
on a fixed global batch, at 1 process and at 2 (mpirun, one thread each):
relax-mlir's compiled step (`jit` of `value_and_grad(...,
data_parallel="mean")` and `optim.sgd`: the gradients averaged by
MPI_Allreduce inside it) against PyTorch's DistributedDataParallel (gloo),
each process taking its half of the batch. At 1 process both run without
communication. Reported: the median step time of rank 0, the scaling
efficiency t1 / (2 t2) (1.0: the step time halves), and the bytes each
process all-reduces per step.

    python bench/data_parallel.py [--steps 30] [--workloads mlp,deep_mlp]

(`make bench` runs it). relax runs in the repository's .venv, PyTorch in
bench/.venv; a system whose interpreter is missing is skipped.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import subprocess
import time
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
PYTHONS = {"relax": ROOT / ".venv" / "bin" / "python",
           "torch": ROOT / "bench" / ".venv" / "bin" / "python"}
SHAPES = {
    # batch, widths (the last layer's width is the output), loss
    "mlp": (64, [784, 256, 10], "nll"),
    "deep_mlp": (128, [1024] * 9, "mse"),
}


def data(name: str) -> tuple[list[np.ndarray], np.ndarray, np.ndarray]:
    batch, widths, loss = SHAPES[name]
    rng = np.random.default_rng(0)
    weights = []
    for fan_in, fan_out in zip(widths, widths[1:]):
        weights.append((rng.normal(size=(fan_in, fan_out)) * np.sqrt(2.0 / fan_in))
                       .astype(np.float32))
        weights.append(np.zeros(fan_out, np.float32))
    x = rng.normal(size=(batch, widths[0])).astype(np.float32)
    if loss == "nll":
        y = rng.integers(0, widths[-1], size=batch).astype(np.int64)
    else:
        y = rng.normal(size=(batch, widths[-1])).astype(np.float32)
    return weights, x, y


def timed(step: Any, steps: int) -> float:
    for _ in range(3):
        step()
    times = []
    for _ in range(steps):
        start = time.perf_counter()
        step()
        times.append(time.perf_counter() - start)
    return float(np.median(times)) * 1e3


def relax_worker(name: str, steps: int) -> dict[str, Any]:
    import relax_mlir
    import relax_mlir.nn as nn
    import relax_mlir.numpy as rnp
    from relax_mlir import distributed, optim

    distributed.initialize()
    size = distributed.size()
    weights, x, y = data(name)
    _, _, kind = SHAPES[name]
    if kind == "nll":
        y = y.astype(np.int32)

    def loss(params: list[Any], x: Any, y: Any) -> Any:
        h = x
        for i in range(0, len(params), 2):
            h = h @ params[i] + params[i + 1]
            if i + 2 < len(params):
                h = nn.relu(h) if kind == "nll" else rnp.tanh(h)
        if kind == "nll":
            return nn.cross_entropy(h, y)
        if len(params) > 2:
            h = rnp.tanh(h)
        return rnp.mean((h - y) ** 2)

    opt = optim.sgd(0.01)
    mode = "mean" if size > 1 else None

    @relax_mlir.jit
    def train_step(params: list[Any], state: Any, x: Any, y: Any) -> Any:
        value, grads = relax_mlir.value_and_grad(loss, data_parallel=mode)(params, x, y)
        updates, state = opt.update(grads, state, params)
        return optim.apply_updates(params, updates), state, value

    xs, ys = distributed.shard_batch((x, y))
    carry = [weights, opt.init(weights)]

    def step() -> None:
        carry[0], carry[1], _ = train_step(carry[0], carry[1], xs, ys)

    ms = timed(step, steps)
    reduced = (sum(w.size for w in weights) + 2) * 4 if size > 1 else 0
    return {"rank": distributed.rank(), "step_ms": ms, "bytes_reduced": reduced}


def torch_worker(name: str, steps: int) -> dict[str, Any]:
    import torch
    import torch.distributed as dist

    torch.set_num_threads(1)
    rank = int(os.environ.get("OMPI_COMM_WORLD_RANK", "0"))
    size = int(os.environ.get("OMPI_COMM_WORLD_SIZE", "1"))
    weights, x, y = data(name)
    _, widths, kind = SHAPES[name]
    layers: list[Any] = []
    for i, (fan_in, fan_out) in enumerate(zip(widths, widths[1:])):
        linear = torch.nn.Linear(fan_in, fan_out)
        with torch.no_grad():
            linear.weight.copy_(torch.from_numpy(weights[2 * i].T.copy()))
            linear.bias.copy_(torch.from_numpy(weights[2 * i + 1]))
        layers.append(linear)
        if i + 2 < len(widths) or kind == "mse":
            layers.append(torch.nn.ReLU() if kind == "nll" else torch.nn.Tanh())
    model: Any = torch.nn.Sequential(*layers)
    if size > 1:
        dist.init_process_group("gloo", init_method="tcp://127.0.0.1:29533", rank=rank,
                                world_size=size)
        model = torch.nn.parallel.DistributedDataParallel(model)
    part = len(x) // size
    xs = torch.from_numpy(x[rank * part:(rank + 1) * part])
    ys = torch.from_numpy(y[rank * part:(rank + 1) * part])
    opt = torch.optim.SGD(model.parameters(), lr=0.01)
    criterion = torch.nn.CrossEntropyLoss() if kind == "nll" else torch.nn.MSELoss()

    def step() -> None:
        opt.zero_grad()
        criterion(model(xs), ys).backward()
        opt.step()

    ms = timed(step, steps)
    reduced = sum(w.size for w in weights) * 4 if size > 1 else 0
    if size > 1:
        dist.destroy_process_group()
    return {"rank": rank, "step_ms": ms, "bytes_reduced": reduced}


def run(system: str, name: str, ranks: int, steps: int) -> dict[str, Any] | None:
    python = PYTHONS[system]
    if not python.exists():
        return None
    env = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1",
               OMPI_MCA_rmaps_base_oversubscribe="1", OMP_NUM_THREADS="1",
               PYTHONPATH=str(ROOT / "build" / "python_packages"))
    command = [str(python), __file__, "--worker", system, "--workloads", name,
               "--steps", str(steps)]
    if ranks > 1:
        command = ["mpirun", "-np", str(ranks), "--bind-to", "core", *command]
    done = subprocess.run(command, capture_output=True, text=True, timeout=900, env=env)
    if done.returncode != 0:
        raise SystemExit(f"{system} {name} at {ranks} process(es) failed:\n"
                         f"{done.stdout}\n{done.stderr}")
    return next(r for r in worker_reports(done.stdout) if r["rank"] == 0)


def worker_reports(stdout: str) -> list[dict[str, Any]]:
    """The JSON objects the ranks printed. mpirun forwards each rank's output
    as it comes, so two ranks' lines may arrive joined on one line."""
    decoder = json.JSONDecoder()
    reports = []
    for line in stdout.splitlines():
        at = line.find("{")
        while at >= 0:
            report, end = decoder.raw_decode(line, at)
            reports.append(report)
            at = line.find("{", end)
    return reports


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--workloads", default="mlp,deep_mlp")
    parser.add_argument("--steps", type=int, default=30)
    parser.add_argument("--worker", choices=sorted(PYTHONS), help=argparse.SUPPRESS)
    args = parser.parse_args()
    names = [n for n in args.workloads.split(",") if n]
    if args.worker:
        worker = relax_worker if args.worker == "relax" else torch_worker
        print(json.dumps(worker(names[0], args.steps)), flush=True)
        return
    cpu = platform.processor() or "unknown"
    try:
        cpu = next(line.split(":", 1)[1].strip() for line in open("/proc/cpuinfo")
                   if line.startswith("model name"))
    except (OSError, StopIteration):
        pass
    print(f"data parallelism, {cpu}, {os.cpu_count()} cores; one thread per process; "
          f"median of {args.steps} steps")
    print(f"{'workload':10} {'system':6} {'1 proc ms':>10} {'2 procs ms':>11} "
          f"{'efficiency':>10} {'bytes reduced/step':>19}")
    for name in names:
        for system in ("relax", "torch"):
            one, two = run(system, name, 1, args.steps), run(system, name, 2, args.steps)
            if one is None or two is None:
                print(f"{name:10} {system:6} (skipped: no {PYTHONS[system]})")
                continue
            efficiency = one["step_ms"] / (2 * two["step_ms"])
            print(f"{name:10} {system:6} {one['step_ms']:10.2f} {two['step_ms']:11.2f} "
                  f"{efficiency:10.2f} {two['bytes_reduced']:19,d}")


if __name__ == "__main__":
    main()
