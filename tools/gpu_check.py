"""The two halves of `tools/gpu-check.sh` (see there).

prepare DIR [--target cuda|cpu] [--chip sm_90] [--quick] [--timed W1,W2]
    On a machine with the built project (no GPU needed): exports, ahead of
    time, every op's gradient cases (one library), random programs (one
    library each) and the bench's MLP and CNN training steps, with their
    inputs and the CPU's results (compile(), this machine), into DIR with a
    copy of the pure-Python loader and a manifest; and the compute-bound
    deep_mlp and transformer_block steps (or --timed's), without data. For CUDA, every case is
    first run on the GPU emulator (the same kernels on this CPU) and compared
    with the CPU's results: a mismatch stops here, not on the GPU machine.
run DIR [--steps N]
    On the target machine, with only python3 and numpy (and JAX/PyTorch for
    the timing peers): loads each export with the copied loader, checks every
    result against the CPU's, and times the MLP step (median of N) against
    JAX `jit(value_and_grad)` and PyTorch eager autograd on the same device;
    each timed step is checked against bench/reference.py (float64, inputs
    from bench/workloads.py) and timed the same way (median of N/10).
    Writes DIR/results.json; exits 1 when a result differs.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
MAX_BYTES = 60 << 20  # the device machine takes at most 64 MiB of files
RANDOM_SEEDS = 20
QUICK_OPS = ("matmul", "softmax", "sum")
# Relative/absolute tolerances of GPU (or exported) results against the CPU's.
TOLERANCE = {"ops": (1e-4, 1e-6), "random": (1e-4, 1e-6), "model": (2e-3, 1e-5)}
# The timed steps (float32) against bench/reference.py's float64: the largest
# relative error (max |x - ref| / max |ref|) of the loss and each gradient.
TIMED = ("deep_mlp", "transformer_block")
STEP_TOLERANCE = 1e-3


def _step_error(wl: Any, inputs: dict[str, np.ndarray], result: Any) -> float:
    """The largest relative error of a step's (loss, gradients) against the
    float64 reference."""
    import reference

    loss, grads = result
    ref_loss, ref_grads = reference.reference(wl, inputs)
    errors = [reference.relative_error(np.asarray(loss), ref_loss)]
    errors += [reference.relative_error(np.asarray(g), r) for g, r in zip(grads, ref_grads,
                                                                          strict=True)]
    return max(errors)


def _flat(value: Any) -> list[np.ndarray]:
    if isinstance(value, tuple):
        return [leaf for v in value for leaf in _flat(v)]
    return [np.asarray(value)]


def _save(path: Path, arrays: list[np.ndarray]) -> None:
    np.savez(path, **{f"a{i}": a for i, a in enumerate(arrays)})


def _load(path: Path) -> list[np.ndarray]:
    with np.load(path) as data:
        return [data[f"a{i}"] for i in range(len(data.files))]


# ----------------------------------------------------------------------------
# prepare (needs the built project: relax_mlir, test/lib, test/python and bench on the path)


def _merged_op_module(ops: list[str]) -> str:
    """Every gradient case of `ops` (functions named case<k>, unique across the
    op table) with its adjoint, in one module."""
    from test_gpu_lowering import op_adjoints_module

    bodies = []
    for op in ops:
        text = op_adjoints_module(op).strip()
        assert text.startswith("module {") and text.endswith("}"), text[:40]
        bodies.append(text[len("module {"):-1])
    from relax_mlir import ir

    # Only the adjoints are called: dropping the loss functions halves the
    # library (every kernel is there as cubin and PTX).
    module = ir.Module.parse("module {\n" + "\n".join(bodies) + "\n}\n", context=ir.Context())
    for op in list(module.body.operations):
        name = ir.StringAttr(op.attributes["sym_name"]).value
        if not name.endswith("_adjoint"):
            op.erase()
    return str(module)


def _loop_adjoint() -> tuple[Any, list[np.ndarray]]:
    """The adjoint of an RNN written with lax.scan, followed by a cond and a
    checkpointed while loop, and its arguments."""
    import relax_mlir
    import relax_mlir.numpy as rnp
    from relax_mlir import lax

    def f(w: Any, xs: Any) -> Any:
        h, ys = lax.scan(lambda h, x: (rnp.tanh(w @ h + x), rnp.sum(h)),
                         rnp.zeros(64, np.float32), xs)
        z = lax.cond(rnp.sum(h) > 0, lambda h: h * 2.0, lambda h: rnp.sin(h), h)
        # A counter ends the loop (a float test could flip between devices).
        z, _ = lax.while_loop(lambda s: s[1] < 9, lambda s: (rnp.tanh(s[0] * 0.9 + 0.1), s[1] + 1),
                              (z, np.int32(0)), max_iterations=30, checkpoint_every=4)
        return rnp.sum(z) + rnp.sum(ys)

    rng = np.random.default_rng(29)
    w = rng.uniform(-0.2, 0.2, (64, 64)).astype(np.float32)
    xs = rng.uniform(-1, 1, (16, 64)).astype(np.float32)
    return relax_mlir.gradient(relax_mlir.jit(f).lower(w, xs).module()), [w, xs]


def prepare(out: Path, target: str, chip: str, quick: bool, timed: list[str]) -> None:
    import relax_mlir
    import relax_mlir.runtime as rt
    import workloads
    from systems import relax_system
    from test_gpu_lowering import OPS, op_case_arguments
    from test_ops_gradient import FUNC_NAMES

    from relax_mlir_testing import ops as op_table
    from relax_mlir_testing import programs as pg

    out.mkdir(parents=True, exist_ok=True)
    for sub in ("lib", "data"):
        (out / sub).mkdir(exist_ok=True)
        for old in (out / sub).iterdir():
            old.unlink()
    rt.copy_loader(out / "loader")
    cases: list[dict[str, Any]] = []
    # Cases whose kernels, emulated here, differ from the CPU (device time
    # is scarce: a kernel bug is found before the run).
    emulated_wrong: list[str] = []
    started = time.time()

    def add(kind: str, library: str, module: Any,
            calls: list[tuple[str, list[np.ndarray]]]) -> None:
        """Exports `module` as lib/<library>.so and records each (function,
        inputs as flat leaves) with the CPU's results; for CUDA, checks the
        kernels on the emulator first."""
        exe = relax_mlir.compile(module)
        emulated = relax_mlir.compile(module, target="cuda-emulator") if target == "cuda" else None
        relax_mlir.export(module, out / "lib" / f"{library}.so", target=target, chip=chip)
        rtol, atol = TOLERANCE[kind]
        for name, inputs in calls:
            key = f"{library}.{name}"
            _save(out / "data" / f"{key}.in.npz", inputs)
            want = _flat(exe[name](*_regroup(inputs, exe[name].params)))
            _save(out / "data" / f"{key}.want.npz", want)
            if emulated is not None:
                got = _flat(emulated[name](*_regroup(inputs, emulated[name].params)))
                if not all(np.allclose(g, w, rtol=rtol, atol=atol) for g, w in zip(got, want)):
                    emulated_wrong.append(key)
            cases.append({"kind": kind, "library": f"{library}.so", "function": name,
                          "data": key, "rtol": rtol, "atol": atol})

    # Every op's gradient cases, in one library.
    ops = [op for op in OPS if op in QUICK_OPS] if quick else list(OPS)
    module = _merged_op_module(ops)
    probe = relax_mlir.compile(module)
    calls = []
    for op in ops:
        for case in (c for c in op_table.cases_of(op) if c.grad_inputs):
            name = f"{FUNC_NAMES[case.id]}_adjoint"
            calls.append((name, op_case_arguments(case, [s for _, s in probe[name].params])))
    add("ops", "ops", module, calls)
    print(f"prepare: {len(calls)} op cases of {len(ops)} ops ({time.time() - started:.0f} s)")

    # Random programs, one library each (their functions share names).
    for seed in range(2 if quick else RANDOM_SEEDS):
        program = pg.generate(seed)
        adjoint = relax_mlir.gradient(program.text(), **program.gradient_kwargs())
        add("random", f"random{seed}", adjoint,
            [(f"{program.func}_adjoint", _flat(tuple(program.args)))])
    print(f"prepare: random programs ({time.time() - started:.0f} s)")

    # Loops and branches (relax.scan, relax.while, relax.if): host control
    # flow launching the bodies' kernels.
    loops, loop_args = _loop_adjoint()
    add("random", "loops", loops, [("main_adjoint", loop_args)])

    # The bench's MLP and CNN training steps (value and gradients).
    for workload in (("mlp",) if quick else ("mlp", "cnn")):
        wl = workloads.get(workload)
        ir = getattr(relax_system, f"{workload}_ir")(wl)
        adjoint = relax_mlir.gradient(ir, "main", require_grads=wl.grad_indices)
        inputs = workloads.make_inputs(wl)
        add("model", workload, adjoint, [("main_adjoint", [inputs[n] for n in wl.input_names])])
    print(f"prepare: models ({time.time() - started:.0f} s)")

    # Compute-bound steps, only timed: no data is shipped (run makes the
    # inputs with bench/workloads.py and checks the results against
    # bench/reference.py in float64); for CUDA their kernels are checked on
    # the emulator here first.
    for workload in timed:
        wl = workloads.get(workload)
        ir = relax_system.IR[workload](wl)
        adjoint = relax_mlir.gradient(ir, "main", require_grads=wl.grad_indices)
        relax_mlir.export(adjoint, out / "lib" / f"{workload}.so", target=target, chip=chip,
                          functions=["main_adjoint"])
        if target == "cuda":
            inputs = workloads.make_inputs(wl)
            emulated = relax_mlir.compile(adjoint, target="cuda-emulator",
                                          functions=["main_adjoint"]).main_adjoint
            error = _step_error(wl, inputs, emulated(*[inputs[n] for n in wl.input_names]))
            if error > STEP_TOLERANCE:
                emulated_wrong.append(f"{workload} (relative error {error:.1e})")
    if timed:
        print(f"prepare: timed steps {', '.join(timed)} ({time.time() - started:.0f} s)")

    manifest = {"target": target, "chip": chip if target == "cuda" else None,
                "quick": quick, "cases": cases, "timed": timed}
    (out / "manifest.json").write_text(json.dumps(manifest, indent=1))
    total = sum(f.stat().st_size for f in out.rglob("*") if f.is_file())
    print(f"prepare: {len(cases)} cases in {out} ({total / 2**20:.1f} MiB, target {target})")
    if total > MAX_BYTES:
        raise SystemExit(f"prepare: {out} holds {total / 2**20:.1f} MiB, over the "
                         f"{MAX_BYTES >> 20} MiB the device machine takes")
    if emulated_wrong:
        raise SystemExit(f"prepare: on the GPU emulator (target='cuda-emulator') "
                         f"{len(emulated_wrong)} case(s) differ from the CPU: "
                         f"{', '.join(emulated_wrong)}; fix the kernels before using a GPU")
    if target == "cuda":
        print("prepare: every case's kernels give the CPU's results on the GPU emulator")


# ----------------------------------------------------------------------------
# run (pure: numpy and the copied loader)


def _median_us(step: Any, steps: int, warmup: int = 5) -> float:
    for _ in range(warmup):
        step()
    times = []
    for _ in range(steps):
        start = time.perf_counter()
        step()
        times.append(time.perf_counter() - start)
    return statistics.median(times) * 1e6


def run(out: Path, steps: int) -> int:
    sys.path.insert(0, str(out / "loader"))
    import relax_mlir.runtime as rt

    manifest = json.loads((out / "manifest.json").read_text())
    target = manifest["target"]
    libraries: dict[str, Any] = {}
    failures, report = [], []
    started = time.time()
    unloadable: dict[str, str] = {}
    for case in manifest["cases"]:
        label = f"{case['library']}:{case['function']}"
        if case["library"] not in libraries and case["library"] not in unloadable:
            try:
                libraries[case["library"]] = rt.load(out / "lib" / case["library"])
            except Exception as e:  # noqa: BLE001 (reported below)
                if "no CUDA driver found" in str(e):
                    print(f"run: {e}\nrun: {out} holds CUDA exports: run it on a machine "
                          f"with an NVIDIA GPU and its driver (or make CPU exports with "
                          f"`prepare --target cpu` to try `run` here)")
                    return 1
                unloadable[case["library"]] = f"{type(e).__name__}: {str(e)[:2000]}"
                print(f"FAIL {case['library']} does not load: {unloadable[case['library']]}")
        if case["library"] in unloadable:
            failures.append(label)
            report.append({"case": label, "ok": False,
                           "error": f"the library does not load: {unloadable[case['library']]}"})
            continue
        fn = libraries[case["library"]][case["function"]]
        inputs = _load(out / "data" / f"{case['data']}.in.npz")
        want = _load(out / "data" / f"{case['data']}.want.npz")
        try:
            got = _flat(fn(*_regroup(inputs, fn.params)))
            worst = 0.0
            for g, w in zip(got, want, strict=True):
                np.testing.assert_allclose(g, w, rtol=case["rtol"], atol=case["atol"])
                if w.size and np.issubdtype(w.dtype, np.floating):
                    scale = np.maximum(np.abs(w.astype(np.float64)), 1e-6)
                    worst = max(worst, float(np.max(np.abs(g - w) / scale)))
            report.append({"case": label, "ok": True, "max_rel_error": worst})
        except Exception as e:  # noqa: BLE001 (every case is reported)
            failures.append(label)
            report.append({"case": label, "ok": False, "error": f"{type(e).__name__}: {e}"})
            print(f"FAIL {label}: {type(e).__name__}: {str(e)[:2000]}")
    print(f"run: {len(report) - len(failures)}/{len(report)} cases match the CPU "
          f"({target}, {time.time() - started:.0f} s)")

    timings: dict[str, Any] = {}
    interop: dict[str, str] = {}
    timed: dict[str, Any] = {}
    for workload in manifest.get("timed", []):
        timed[workload] = _time_step(out, rt, workload, target, max(3, steps // 10))
        if not timed[workload].get("ok"):
            failures.append(f"timed {workload}")
    if "mlp.so" in libraries:
        timings = _time_mlp(out, rt, libraries["mlp.so"], target, steps)
        if target == "cuda":
            interop = _interop(libraries["mlp.so"])
            failures += [f"interop {name}" for name, outcome in interop.items()
                         if outcome.startswith("FAIL")]
    (out / "results.json").write_text(json.dumps(
        {"target": target, "chip": manifest["chip"], "cases": report, "failures": failures,
         "interop": interop, "mlp_step_us": timings, "timed": timed}, indent=1))
    return 1 if failures else 0


def _interop(lib: Any) -> dict[str, str]:
    """PyTorch and JAX device arrays into the exported MLP step without
    copies (__cuda_array_interface__ or DLPack), its DeviceArray results out
    through DLPack, each compared with the numpy call."""
    sys.path.insert(0, str(ROOT / "bench"))
    import workloads

    wl = workloads.get("mlp")
    inputs = workloads.make_inputs(wl)
    args = [inputs[n] for n in wl.input_names]
    want_loss, want_grads = lib.main_adjoint(*args)
    outcome: dict[str, str] = {}

    def check(name: str, convert_in: Any, convert_out: Any) -> None:
        try:
            loss, grads = lib.main_adjoint(*[convert_in(a) for a in args])
            np.testing.assert_allclose(np.asarray(loss), want_loss, rtol=1e-6)
            for g, w in zip(grads, want_grads, strict=True):
                np.testing.assert_allclose(convert_out(g), w, rtol=1e-6, atol=1e-7)
            outcome[name] = "ok"
        except Exception as e:  # noqa: BLE001 (reported)
            outcome[name] = f"FAIL {type(e).__name__}: {str(e)[:500]}"
        print(f"interop {name}: {outcome[name]}")

    try:
        import torch

        check("torch in, torch.from_dlpack out", lambda a: torch.from_numpy(a).cuda(),
              lambda g: torch.from_dlpack(g).cpu().numpy())
    except ImportError as e:
        outcome["torch"] = f"not run: {e}"
    try:
        import jax
        import jax.dlpack

        jax.config.update("jax_enable_x64", True)  # the labels are int64
        check("jax in, jax.dlpack.from_dlpack out",
              lambda a: jax.device_put(a, jax.devices("gpu")[0]),
              lambda g: np.asarray(jax.dlpack.from_dlpack(g)))
    except ImportError as e:
        outcome["jax"] = f"not run: {e}"
    return outcome


def _regroup(flat: list[np.ndarray], params: list[Any]) -> list[Any]:
    """Flat leaves back into the parameters' tuples."""
    leaves = iter(flat)

    def build(spec: Any) -> Any:
        if hasattr(spec, "fields"):
            return tuple(build(f) for f in spec.fields)
        return next(leaves)

    return [build(spec) for _, spec in params]


def _time_mlp(out: Path, rt: Any, lib: Any, target: str, steps: int) -> dict[str, Any]:
    sys.path.insert(0, str(ROOT / "bench"))
    import workloads

    wl = workloads.get("mlp")
    inputs = workloads.make_inputs(wl)
    fn = lib.main_adjoint
    args = [inputs[n] for n in wl.input_names]
    rows: dict[str, Any] = {"relax-mlir (numpy in/out)": lambda: fn(*args)}
    if target == "cuda":
        device_args = [lib.to_device(a) for a in args]
        rows["relax-mlir (DeviceArray)"] = lambda: fn(*device_args)
    rows.update(_workload_peers(wl, inputs, on_gpu=target == "cuda"))
    timings: dict[str, Any] = {}
    print(f"MLP step 64x784->256->10 (value and 4 gradients), median of {steps}:")
    for name, step in rows.items():
        if isinstance(step, str):
            timings[name] = step
            print(f"  {name:40s} {step}")
            continue
        us = _median_us(step, steps)
        timings[name] = us
        print(f"  {name:40s} {us:10.1f} us")
    return timings


def _time_step(out: Path, rt: Any, workload: str, target: str, steps: int) -> dict[str, Any]:
    """A compute-bound step (bench workload): relax-mlir's export checked
    against the float64 reference, then timed next to JAX and PyTorch on the
    same device (median of `steps`, in us)."""
    sys.path.insert(0, str(ROOT / "bench"))
    import workloads

    wl = workloads.get(workload)
    inputs = workloads.make_inputs(wl)
    args = [inputs[n] for n in wl.input_names]
    row: dict[str, Any] = {}
    try:
        lib = rt.load(out / "lib" / f"{workload}.so")
        fn = lib.main_adjoint
        if target == "cuda":
            device_args = [lib.to_device(a) for a in args]
            rows: dict[str, Any] = {"relax-mlir (DeviceArray)": lambda: fn(*device_args)}
        else:
            rows = {"relax-mlir": lambda: fn(*args)}
        error = _step_error(wl, inputs, fn(*args))
        row["max_rel_error"] = error
        row["ok"] = error <= STEP_TOLERANCE
    except Exception as e:  # noqa: BLE001 (reported)
        row["ok"] = False
        row["error"] = f"{type(e).__name__}: {str(e)[:1000]}"
        print(f"FAIL timed {workload}: {row['error']}")
        return row
    rows.update(_workload_peers(wl, inputs, on_gpu=target == "cuda"))
    print(f"{workload} step (value and {len(wl.grads)} gradients), max relative error "
          f"{row['max_rel_error']:.1e} against float64, median of {steps}:")
    for name, step in rows.items():
        row[name] = step if isinstance(step, str) else _median_us(step, steps, warmup=2)
        shown = row[name] if isinstance(row[name], str) else f"{row[name]:10.1f} us"
        print(f"  {name:40s} {shown}")
    return row


def _workload_peers(wl: Any, inputs: dict[str, np.ndarray], on_gpu: bool) -> dict[str, Any]:
    """JAX (bench/systems/jax_system: jit(value_and_grad) on its default
    device) and PyTorch (eager autograd, on the GPU when there is one) steps
    of a bench workload, each a zero-argument callable that blocks."""
    peers: dict[str, Any] = {}
    try:
        import jax
        from systems import jax_system

        step = jax_system.prepare(wl, inputs, threads=1).step
        peers[f"jax {jax.__version__} ({jax.devices()[0].platform})"] = step
    except Exception as e:  # noqa: BLE001 (a peer that cannot run is reported)
        peers["jax"] = f"not run: {type(e).__name__}: {str(e)[:300]}"
    try:
        import torch
        from systems import torch_system

        dev = "cuda" if on_gpu else "cpu"
        tensors = {n: torch.from_numpy(a).to(dev) for n, a in inputs.items()}
        params = [tensors[g].requires_grad_(True) for g in wl.grads]
        body = torch_system._losses()[wl.name]

        def torch_step() -> Any:
            value = body(tensors)
            grads = torch.autograd.grad(value, params)
            if on_gpu:
                torch.cuda.synchronize()
            return value, grads

        peers[f"torch {torch.__version__} ({dev})"] = torch_step
    except Exception as e:  # noqa: BLE001
        peers["torch"] = f"not run: {type(e).__name__}: {str(e)[:300]}"
    return peers


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="command", required=True)
    p = sub.add_parser("prepare")
    p.add_argument("dir", type=Path)
    p.add_argument("--target", choices=("cuda", "cpu"), default="cuda")
    p.add_argument("--chip", default="sm_90")
    p.add_argument("--quick", action="store_true",
                   help="3 ops, 2 programs, the MLP (and no timed steps unless --timed)")
    p.add_argument("--timed", default=None,
                   help=f"comma-separated bench workloads exported to be timed on the "
                        f"device (default: {','.join(TIMED)}; none with --quick)")
    r = sub.add_parser("run")
    r.add_argument("dir", type=Path)
    r.add_argument("--steps", type=int, default=200)
    args = parser.parse_args()
    if args.command == "prepare":
        timed = ([] if args.quick else list(TIMED)) if args.timed is None else \
            [w for w in args.timed.split(",") if w]
        prepare(args.dir, args.target, args.chip, args.quick, timed)
    else:
        sys.exit(run(args.dir, args.steps))


if __name__ == "__main__":
    main()
