"""relax-mlir: each workload as relax IR text, differentiated by
`relax_mlir.gradient` and compiled by `relax_mlir.compile(opt_level=3)`.

The first five workloads' IR is written here as text; `lenet`,
`resnet_block`, `attention` and `embedding_grad` are Python functions over
`relax_mlir.numpy` / `relax_mlir.nn`, traced into IR text by
`relax_mlir.jit(fn).lower(...)` (the frontend; `FRONTEND`).

The compile time is the wall time of making the IR (the trace, for the
frontend workloads), `gradient` (which parses the text) and `compile` of
`main_adjoint` alone (`functions=`; the forward `main` is not compiled),
with the package's modules imported before (as JAX's are by `import jax`). The
generated code is single-threaded unless `compile` takes a `num_threads`
keyword, which is then given the thread count.

The compilation cache: with RELAX_MLIR_CACHE_DIR set (bench/run.py sets it to
a fresh, empty directory per measurement and runs a second process on it, the
compile with the cache warm), the compile uses that directory and reports in
`Prepared.info` whether it loaded its code from it (`cache_hit`) and whether
the code is in it now (`cache_entry`; not with num_threads > 1, which the
cache does not keep). Without the variable, a directory of the run's own is
used and removed afterwards, so the compile is always a first compile.
`python bench/systems/relax_system.py WORKLOAD` prints a workload's IR.
"""

from __future__ import annotations

import inspect
import math
import os
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

if __package__ in (None, ""):
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import workloads  # noqa: E402
from workloads import Prepared, Workload  # noqa: E402


def t(*shape: int, dtype: str = "f32") -> str:
    """The tensor type of `shape` (0-d when empty)."""
    return f"tensor<{'x'.join(map(str, shape))}{'x' if shape else ''}{dtype}>"


def signature(workload: Workload) -> str:
    """`func.func @main(...)` parameters with their `relax.name`s."""
    params = []
    for spec in workload.inputs:
        dtype = "i64" if spec.kind == "classes" else "f32"
        params.append(f'%{spec.name}: {t(*spec.shape, dtype=dtype)} {{relax.name = "{spec.name}"}}')
    return "func.func @main(" + ",\n                ".join(params) + ") -> tensor<f32> {"


def function(workload: Workload, body: list[str]) -> str:
    """A complete `@main` whose dataflow block is `body`, ending in the 0-d `%loss`."""
    lines = [signature(workload), "  %r = relax.dataflow -> (tensor<f32>) {"]
    lines += ["    " + line for line in body]
    lines += ["    relax.output %loss : tensor<f32>", "  }", "  return %r : tensor<f32>", "}", ""]
    return "\n".join(lines)


def mse_lines(y: str, target: str, ty: str) -> list[str]:
    return [f"%diff = relax.subtract {y}, {target} : {ty}, {ty} -> {ty}",
            f"%sq = relax.square %diff : {ty}",
            f"%loss = relax.mean %sq : {ty} -> tensor<f32>"]


def mlp_ir(wl: Workload) -> str:
    shapes = {s.name: s.shape for s in wl.inputs}
    (b, d), (_, h), (_, c) = shapes["x"], shapes["w1"], shapes["w2"]
    body = [
        f"%z1m = relax.matmul %x, %w1 : {t(b, d)}, {t(d, h)} -> {t(b, h)}",
        f"%z1 = relax.add %z1m, %b1 : {t(b, h)}, {t(h)} -> {t(b, h)}",
        f"%h = relax.relu %z1 : {t(b, h)}",
        f"%z2m = relax.matmul %h, %w2 : {t(b, h)}, {t(h, c)} -> {t(b, c)}",
        f"%z2 = relax.add %z2m, %b2 : {t(b, c)}, {t(c)} -> {t(b, c)}",
        f"%lp = relax.log_softmax %z2 : {t(b, c)}",
        f"%loss = relax.nll_loss %lp, %y : {t(b, c)}, {t(b, dtype='i64')} -> tensor<f32>",
    ]
    return function(wl, body)


def deep_mlp_ir(wl: Workload, checkpoint: bool) -> str:
    shapes = {s.name: s.shape for s in wl.inputs}
    b, w = shapes["x"]
    layers = workloads.deep_layers(wl)
    ty = t(b, w)
    starts, ends = set(), set()
    if checkpoint:
        for segment in workloads.segments(layers):
            starts.add(segment[0])
            ends.add(segment[-1])
    body: list[str] = []
    h = "%x"
    for i in range(layers):
        if i in starts:
            body.append(f"%s{i} = relax.start_checkpoint {h} : {ty}")
            h = f"%s{i}"
        body += [f"%m{i} = relax.matmul {h}, %w{i} : {ty}, {t(w, w)} -> {ty}",
                 f"%a{i} = relax.add %m{i}, %b{i} : {ty}, {t(w)} -> {ty}",
                 f"%h{i} = relax.tanh %a{i} : {ty}"]
        h = f"%h{i}"
        if i in ends:
            body.append(f"%e{i} = relax.end_checkpoint {h} : {ty}")
            h = f"%e{i}"
    body += mse_lines(h, "%target", ty)
    return function(wl, body)


def cnn_ir(wl: Workload) -> str:
    shapes = {s.name: s.shape for s in wl.inputs}
    n, c, hw, _ = shapes["x"]
    f1, f2 = shapes["k1"][0], shapes["k2"][0]
    flat, k = shapes["wd"]
    h2, h4 = hw // 2, hw // 4
    pad = "{padding = array<i64: 1, 1, 1, 1>}"
    pool = "{pool_size = array<i64: 2, 2>}"
    body = [
        f"%cv1 = relax.conv2d %x, %k1 {pad} : {t(n, c, hw, hw)}, {t(f1, c, 3, 3)} -> {t(n, f1, hw, hw)}",
        f"%c1r = relax.reshape %c1 : {t(f1)} -> {t(f1, 1, 1)}",
        f"%z1 = relax.add %cv1, %c1r : {t(n, f1, hw, hw)}, {t(f1, 1, 1)} -> {t(n, f1, hw, hw)}",
        f"%a1 = relax.relu %z1 : {t(n, f1, hw, hw)}",
        f"%p1 = relax.max_pool2d %a1 {pool} : {t(n, f1, hw, hw)} -> {t(n, f1, h2, h2)}",
        f"%cv2 = relax.conv2d %p1, %k2 {pad} : {t(n, f1, h2, h2)}, {t(f2, f1, 3, 3)} -> {t(n, f2, h2, h2)}",
        f"%c2r = relax.reshape %c2 : {t(f2)} -> {t(f2, 1, 1)}",
        f"%z2 = relax.add %cv2, %c2r : {t(n, f2, h2, h2)}, {t(f2, 1, 1)} -> {t(n, f2, h2, h2)}",
        f"%a2 = relax.relu %z2 : {t(n, f2, h2, h2)}",
        f"%p2 = relax.max_pool2d %a2 {pool} : {t(n, f2, h2, h2)} -> {t(n, f2, h4, h4)}",
        f"%f = relax.reshape %p2 : {t(n, f2, h4, h4)} -> {t(n, flat)}",
        f"%zm = relax.matmul %f, %wd : {t(n, flat)}, {t(flat, k)} -> {t(n, k)}",
        f"%z = relax.add %zm, %bd : {t(n, k)}, {t(k)} -> {t(n, k)}",
        f"%lp = relax.log_softmax %z : {t(n, k)}",
        f"%loss = relax.nll_loss %lp, %y : {t(n, k)}, {t(n, dtype='i64')} -> tensor<f32>",
    ]
    return function(wl, body)


def transformer_block_ir(wl: Workload) -> str:
    shapes = {s.name: s.shape for s in wl.inputs}
    (n, d), (_, h) = shapes["x"], shapes["w1"]
    body = [
        f"%ln = relax.layer_norm %x, %gamma, %beta {{axes = array<i64: -1>, "
        f"epsilon = {workloads.LAYER_NORM_EPS:e} : f64}} : {t(n, d)}, {t(d)}, {t(d)}",
        f"%um = relax.matmul %ln, %w1 : {t(n, d)}, {t(d, h)} -> {t(n, h)}",
        f"%u = relax.add %um, %b1 : {t(n, h)}, {t(h)} -> {t(n, h)}",
        f"%g = relax.gelu %u : {t(n, h)}",
        f"%vm = relax.matmul %g, %w2 : {t(n, h)}, {t(h, d)} -> {t(n, d)}",
        f"%v = relax.add %vm, %b2 : {t(n, d)}, {t(d)} -> {t(n, d)}",
        f"%y = relax.add %x, %v : {t(n, d)}, {t(n, d)} -> {t(n, d)}",
        *mse_lines("%y", "%target", t(n, d)),
    ]
    return function(wl, body)


# --- workloads written with the frontend (relax_mlir.numpy and relax_mlir.nn) ----------------


def _frontend() -> dict[str, Callable[..., Any]]:
    """The frontend workloads: each a loss function whose parameters are the
    workload's inputs, by name and in order."""
    import relax_mlir.nn as nn
    import relax_mlir.numpy as rnp

    def lenet(x: Any, y: Any, k1: Any, c1: Any, k2: Any, c2: Any, w3: Any, b3: Any, w4: Any,
              b4: Any, w5: Any, b5: Any) -> Any:
        p1 = nn.avg_pool2d(nn.relu(nn.conv2d(x, k1, c1, padding=2)), 2)
        p2 = nn.avg_pool2d(nn.relu(nn.conv2d(p1, k2, c2)), 2)
        h = rnp.reshape(p2, (p2.shape[0], -1))
        h = nn.relu(h @ w3 + b3)
        h = nn.relu(h @ w4 + b4)
        return nn.nll_loss(nn.log_softmax(h @ w5 + b5), y)

    def resnet_block(x: Any, y: Any, k1: Any, k2: Any, k3: Any, wd: Any, bd: Any) -> Any:
        h = nn.relu(nn.conv2d(x, k1, padding=1))
        h = nn.relu(nn.conv2d(h, k2, padding=1) + x)
        h = nn.relu(nn.conv2d(h, k3, stride=2, padding=1))
        return nn.nll_loss(nn.log_softmax(rnp.mean(h, axis=(2, 3)) @ wd + bd), y)

    def attention(x: Any, target: Any, wqkv: Any, bqkv: Any, wo: Any, bo: Any) -> Any:
        b, t, d = x.shape
        heads = workloads.ATTENTION_HEADS
        dh = d // heads
        x2 = rnp.reshape(x, (b * t, d))
        qkv = x2 @ wqkv + bqkv

        def split(m: Any) -> Any:
            return rnp.transpose(rnp.reshape(m, (b, t, heads, dh)), (0, 2, 1, 3))

        q, k, v = split(qkv[:, :d]), split(qkv[:, d:2 * d]), split(qkv[:, 2 * d:])
        s = (q @ rnp.transpose(k, (0, 1, 3, 2))) * (1 / math.sqrt(dh))
        mask = rnp.tril(rnp.ones((t, t), dtype=rnp.bool_))
        s = rnp.where(mask, s, workloads.MASK_VALUE)
        o = rnp.reshape(rnp.transpose(nn.softmax(s, axis=-1) @ v, (0, 2, 1, 3)), (b * t, d))
        out = x2 + o @ wo + bo
        return rnp.mean(rnp.square(out - rnp.reshape(target, (b * t, d))))

    def embedding_grad(ids: Any, target: Any, table: Any, w: Any) -> Any:
        e = rnp.take(table, ids, axis=0)
        return rnp.mean(rnp.square(rnp.tanh(e @ w) - target))

    return {"lenet": lenet, "resnet_block": resnet_block, "attention": attention,
            "embedding_grad": embedding_grad}


FRONTEND = ("lenet", "resnet_block", "attention", "embedding_grad")


def frontend_ir(wl: Workload) -> str:
    """A frontend workload traced into relax IR text (`@main`, its parameters
    named as the workload's inputs)."""
    import relax_mlir

    fn = _frontend()[wl.name]
    if list(inspect.signature(fn).parameters) != wl.input_names:
        raise AssertionError(f"{wl.name}: the function's parameters "
                             f"{list(inspect.signature(fn).parameters)} are not the "
                             f"workload's inputs {wl.input_names}")
    # Tracing reads only shapes and dtypes.
    shaped: list[np.ndarray] = [np.zeros(s.shape, s.dtype) for s in wl.inputs]
    return str(relax_mlir.jit(fn).lower(*shaped).as_text())


IR: dict[str, Callable[[Workload], str]] = {
    "mlp": mlp_ir,
    "deep_mlp": lambda wl: deep_mlp_ir(wl, checkpoint=False),
    "deep_mlp_ckpt": lambda wl: deep_mlp_ir(wl, checkpoint=True),
    "cnn": cnn_ir,
    "transformer_block": transformer_block_ir,
    **{name: frontend_ir for name in FRONTEND},
}


def version() -> str:
    """The repository's commit (`-dirty` with uncommitted changes); importing
    relax_mlir here makes a broken build show up before any measurement."""
    import relax_mlir  # noqa: F401

    root = Path(__file__).resolve().parents[2]
    try:
        out = subprocess.run(["git", "-C", str(root), "describe", "--always", "--dirty"],
                             capture_output=True, text=True, timeout=10, check=True)
        return f"git {out.stdout.strip()}"
    except (OSError, subprocess.SubprocessError):
        return "unknown"


def prepare(wl: Workload, arrays: dict[str, np.ndarray], threads: int) -> Prepared:
    import relax_mlir

    options: dict[str, Any] = {"opt_level": 3}
    notes = []
    if "num_threads" in inspect.signature(relax_mlir.compile).parameters:
        options["num_threads"] = threads
        notes.append(f"compile(num_threads={threads})")
    else:
        notes.append("single-threaded code (compile() has no num_threads)")
    if "functions" in inspect.signature(relax_mlir.compile).parameters:
        # Only the step is compiled (JAX compiles only value_and_grad too).
        options["functions"] = ["main_adjoint"]
    if wl.name in FRONTEND:
        notes.append("traced from relax_mlir.numpy/nn")
    # The compilation cache: bench/run.py's directory (empty for the first
    # compile, warm for its second process), else one of this run's own.
    config = getattr(relax_mlir, "config", None)
    cache = own_cache = None
    if config is not None and hasattr(config, "compilation_cache_dir"):
        cache = os.environ.get("RELAX_MLIR_CACHE_DIR")
        if not cache:
            cache = own_cache = tempfile.mkdtemp(prefix="relax-bench-cache-")
        config.update("compilation_cache_dir", cache)
    before = _entries(cache)
    # The package's modules are imported before the clock starts, as JAX's
    # are by `import jax` before its compile is timed: relax_mlir imports
    # them on first use, which is not compiling.
    for name in ("gradient", "compile", "jit", "numpy", "nn"):
        getattr(relax_mlir, name)
    start = time.perf_counter()
    text = IR[wl.name](wl)
    module = relax_mlir.gradient(text, func="main", require_grads=list(wl.grads))
    exe = relax_mlir.compile(module, **options)
    compile_s = time.perf_counter() - start
    cache_path = getattr(exe, "cache_path", None)
    info: dict[str, Any] = {}
    if cache is not None:
        info["cache_entry"] = cache_path is not None
        info["cache_hit"] = cache_path is not None and os.path.basename(cache_path) in before
        if info["cache_hit"]:
            notes.append("code loaded from the compilation cache")
        elif cache_path is None:
            notes.append("compilation cache not used"
                         + (f" (num_threads={threads})" if threads > 1 else ""))
    if own_cache is not None:
        shutil.rmtree(own_cache, ignore_errors=True)  # the loaded libraries stay mapped
    fn = exe["main_adjoint"]
    # 64-byte aligned copies, made once (as JAX's device_put): numpy aligns to
    # 16, and relax copies a misaligned large input on every call.
    args = [_aligned(arrays[name]) for name in wl.input_names]

    def step() -> Any:
        return fn(*args)

    def unpack(out: Any) -> tuple[float, list[np.ndarray]]:
        loss, grads = out
        return float(loss), [np.asarray(g) for g in grads]

    temp_bytes = None
    if hasattr(relax_mlir, "memory_stats"):
        def temp_bytes(reset: bool) -> Any:
            return relax_mlir.memory_stats(reset_peak=reset)["peak_bytes"]

    return Prepared(step, unpack, compile_s, notes, temp_bytes, info)


def _entries(cache: str | None) -> set[str]:
    """The names in the compilation cache directory `cache` (none when missing)."""
    try:
        return set(os.listdir(cache)) if cache else set()
    except OSError:
        return set()


def _aligned(a: np.ndarray) -> np.ndarray:
    raw = np.empty(a.nbytes + 64, np.uint8)
    offset = -raw.ctypes.data % 64
    out = raw[offset:offset + a.nbytes].view(a.dtype).reshape(a.shape)
    out[...] = a
    return out


if __name__ == "__main__":
    print(IR[sys.argv[1]](workloads.get(sys.argv[1], tiny="--tiny" in sys.argv)))
