"""The IR at each stage of compilation: `relax_mlir.lower` and `dump_ir`."""

from __future__ import annotations

import os
from collections.abc import Sequence
from typing import Any

from . import ir
from ._module import ModuleLike, as_module, clone_module, run_passes
from .errors import CompilationError

# The stages of `relax-to-llvm` (its `to-stage`/`from-stage` values), in order.
LOWERING_STAGES = ("linalg", "vector", "bufferized", "llvm")
# Everything `lower` can show: the input, the gradient pass's output, then those.
STAGES = ("relax", "adjoint") + LOWERING_STAGES
# What `lower(..., target="cuda")` can show.
GPU_STAGES = ("relax", "adjoint", "kernels", "llvm")

STAGE_DOCS = {
    "relax": "relax ops on tensors, one dataflow block per function (the input)",
    "adjoint": "after the gradient pass: <func>_adjoint added",
    "linalg": "linalg/tensor/arith/math on tensors, elementwise ops fused",
    "vector": "the CPU schedule: register tiles of vector ops on tensors "
              "(the same as linalg at opt_level=0)",
    "bufferized": "memrefs: results as out-parameters, temporaries freed after last use",
    "llvm": "the LLVM dialect, what the JIT compiles",
    "kernels": "(target='cuda' only) memrefs, each kernel a gpu.launch with its grid and "
               "block sizes, before outlining and NVVM",
}


def check_stage(stage: str, allowed: Sequence[str] = STAGES) -> str:
    if stage not in allowed:
        raise ValueError(f"unknown stage {stage!r}; the stages are: {', '.join(allowed)}")
    return stage


def pipeline(opt_level: int = 3, num_threads: int = 1, from_stage: str = "relax",
             to_stage: str = "llvm", pooled_alloc: bool = True,
             mpi_implementation: str | None = None,
             kernel_min_iterations: int | None = None) -> str:
    """The `relax-to-llvm` pipeline text between two stages. Only the C
    interfaces (`_mlir_ciface_<name>`, what the JIT and exported libraries
    call) stay external: LLVM inlines each function into its wrapper.
    `mpi_implementation` names the MPI library that collectives call;
    `kernel_min_iterations` overrides the pipeline's (ops of at most that
    many iterations are not scheduled as kernels of their own)."""
    mpi = f" mpi-implementation={mpi_implementation}" if mpi_implementation else ""
    kernels = ("" if kernel_min_iterations is None
               else f" kernel-min-iterations={kernel_min_iterations}")
    return (f"builtin.module(relax-to-llvm{{opt-level={opt_level} num-threads={num_threads} "
            f"pooled-alloc={'true' if pooled_alloc else 'false'} c-interface-only=true "
            f"from-stage={from_stage} to-stage={to_stage}{mpi}{kernels}}})")


GPU_FORMATS = ("isa", "bin", "fatbin")


def gpu_pipeline(chip: str = "sm_90", features: str = "+ptx80", gpu_format: str = "fatbin",
                 toolkit: str = "") -> str:
    """The `relax-to-nvvm` pipeline text (see `lower`)."""
    if gpu_format not in GPU_FORMATS:
        raise ValueError(f"gpu_format must be one of {', '.join(GPU_FORMATS)}, got "
                         f"{gpu_format!r}")
    if not isinstance(chip, str) or not chip.startswith("sm_") or not chip[3:].isdigit():
        raise ValueError(f"chip must name an NVIDIA architecture such as 'sm_90', got {chip!r}")
    toolkit_option = f" toolkit={toolkit}" if toolkit else ""
    return (f"builtin.module(relax-to-nvvm{{chip={chip} features={features} "
            f"format={gpu_format}{toolkit_option}}})")


def run_gpu_pipeline(module: ir.Module, chip: str, gpu_format: str,
                     features: str = "+ptx80") -> ir.Module:
    """A copy of `module` lowered by `relax-to-nvvm` (host LLVM code and gpu.binary ops)."""
    _refuse_cpu_only_ops(module, f"target 'cuda' ({chip})")
    lowered = clone_module(module)
    run_passes(lowered, gpu_pipeline(chip, features, gpu_format), CompilationError,
               f"lowering for the GPU ({chip}, {gpu_format}) failed")
    return lowered


def _first_location(module: ir.Module, name: str) -> str | None:
    """The location of the first op named `name` in `module` (the walk stops
    there), or None."""
    found: list[str] = []

    def visit(op: Any) -> Any:
        if op.name == name:
            found.append(str(op.location))
            return ir.WalkResult.INTERRUPT
        return ir.WalkResult.ADVANCE

    module.operation.walk(visit)
    return found[0] if found else None


def uses_collectives(module: ir.Module) -> bool:
    """Whether `module` communicates across processes (relax.all_reduce):
    running it needs MPI (relax_mlir.distributed)."""
    return _first_location(module, "relax.all_reduce") is not None


def _refuse_cpu_only_ops(module: ir.Module, target: str) -> None:
    """A CompilationError for an op that only the CPU pipeline lowers: a
    relax.debug_print (the GPU's values live in device memory) or a
    relax.all_reduce (MPI calls are host code)."""
    found = _first_location(module, "relax.debug_print")
    if found:
        raise CompilationError(f"relax_mlir.debug.print is not supported on {target}",
                               f"it prints on the CPU only; found at {found}. Compile "
                               f"for the CPU to print, or remove the print")
    found = _first_location(module, "relax.all_reduce")
    if found:
        raise CompilationError(f"relax.all_reduce (data_parallel) is not supported on {target}",
                               f"collectives are compiled for the CPU only; found at "
                               f"{found}. Compile for the CPU, or leave data_parallel out")


def _mpi_implementation(module: ir.Module, collectives: bool | None) -> str | None:
    """The MPI library the module's collectives are compiled for (None when
    it has none; `collectives`: whether it has any, when the caller knows):
    the one mpi4py loads, else Open MPI (running the code then asks for
    mpi4py)."""
    if not (uses_collectives(module) if collectives is None else collectives):
        return None
    try:
        from .distributed import implementation

        return implementation()
    except ImportError:
        return "OpenMPI"


def run_gpu_emulator(module: ir.Module, reverse: bool = False,
                     check_bounds: bool = True) -> ir.Module:
    """A copy of `module` lowered by `relax-to-gpu-emulator`: the GPU
    pipeline's kernels run on the host thread by thread (host LLVM code),
    every memory access checked (an out-of-bounds one aborts)."""
    _refuse_cpu_only_ops(module, "the GPU emulator")
    lowered = clone_module(module)
    run_passes(lowered, f"builtin.module(relax-to-gpu-emulator{{reverse={str(reverse).lower()} "
                        f"check-bounds={str(check_bounds).lower()} pooled-alloc=true}})",
               CompilationError,
               "lowering for the GPU emulator failed")
    return lowered


def run_stages(module: ir.Module, opt_level: int, num_threads: int,
               to_stage: str = "llvm", dump_ir: str | None = None,
               collectives: bool | None = None) -> ir.Module:
    """A lowered copy of `module` (left unchanged) at `to_stage`; with
    `dump_ir`, each stage's IR is written there as `<n>-<stage>.mlir`.
    `collectives`: whether the module has a relax.all_reduce, when the
    caller already looked (else the module is walked to find out)."""
    lowered = clone_module(module)
    mpi = _mpi_implementation(module, collectives)
    end = LOWERING_STAGES.index(to_stage)
    steps = [("relax", to_stage)] if dump_ir is None else \
        list(zip(("relax",) + LOWERING_STAGES[:end], LOWERING_STAGES[:end + 1]))
    if dump_ir is not None:
        os.makedirs(dump_ir, exist_ok=True)
        _write(lowered, os.path.join(dump_ir, "0-relax.mlir"))
    for number, (start, stop) in enumerate(steps, start=1):
        run_passes(lowered, pipeline(opt_level, num_threads, start, stop,
                                     mpi_implementation=mpi), CompilationError,
                   f"lowering to the {stop} stage failed")
        if dump_ir is not None:
            _write(lowered, os.path.join(dump_ir, f"{number}-{stop}.mlir"))
    return lowered


def _write(module: ir.Module, path: str) -> None:
    with open(path, "w") as f:
        f.write(module.operation.get_asm(enable_debug_info=True))


def lower(module: ModuleLike, stage: str = "llvm", *, func: str | None = None,
          require_grads: Sequence[int | str] | None = None, target_index: int | None = None,
          opt_level: int = 3, num_threads: int = 1, target: str = "cpu", chip: str = "sm_90",
          gpu_format: str = "isa") -> ir.Module:
    """A copy of `module` (left unchanged) lowered to `stage`.

    Stages, in order: `relax` (the input, checked, with a plain function body
    gathered into a dataflow block), `adjoint` (after the gradient pass),
    `linalg`, `vector`, `bufferized`, `llvm` (see `STAGE_DOCS`). With `func`,
    the gradient pass runs first (`func`, `require_grads`, `target_index` as
    in `gradient`), so every stage from `adjoint` on holds `<func>_adjoint`;
    `adjoint` needs `func`. `opt_level` and `num_threads` are `compile`'s.
    With `target="cuda"`, the stages are `relax`, `adjoint`, `kernels` (each
    kernel a `gpu.launch` with its grid and block sizes, before outlining:
    the `relax-to-gpu-kernels` pipeline) and `llvm`, the `relax-to-nvvm`
    pipeline's output: host code launching kernels that `gpu.binary` ops hold
    for `chip` (`gpu_format`: `isa` = PTX text, `bin` = cubin, `fatbin` =
    both; `bin` and `fatbin` need CUDA's ptxas). `str(lower(...))` is the
    text."""
    from ._gradient import convert_to_dataflow, gradient

    if target not in ("cpu", "cuda"):
        raise ValueError(f"target must be 'cpu' or 'cuda', got {target!r}")
    if target == "cuda" and stage in STAGES and stage not in GPU_STAGES:
        raise ValueError(f"stage {stage!r} is not available for target='cuda' yet; use "
                         f"one of {', '.join(GPU_STAGES)}")
    if target == "cpu" and stage == "kernels":
        raise ValueError("stage 'kernels' is for target='cuda'")
    check_stage(stage, GPU_STAGES if target == "cuda" else STAGES)
    if stage == "adjoint" and func is None:
        raise ValueError("stage 'adjoint' needs func=<the function to differentiate>")
    module = convert_to_dataflow(as_module(module))
    if stage == "relax":
        return module
    if func is not None:
        module = gradient(module, func, require_grads, target_index)
    if stage == "adjoint":
        return module
    if stage == "kernels":
        lowered = clone_module(module)
        run_passes(lowered, "builtin.module(relax-to-gpu-kernels)", CompilationError,
                   "lowering to GPU kernels failed")
        return lowered
    if target == "cuda":
        return run_gpu_pipeline(module, chip, gpu_format)
    return run_stages(module, opt_level, num_threads, to_stage=stage)
