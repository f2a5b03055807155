"""`relax_mlir.gradient` and `relax_mlir.jacobian_vector_product`: the gradient
(reverse-mode) and jvp (forward-mode) passes from Python."""

from __future__ import annotations

import operator
from collections.abc import Sequence
from typing import Any

import numpy as np

from . import ir
from ._module import (
    ModuleLike,
    as_module,
    clone_module,
    parameter_names,
    require_function,
    run_passes,
)
from .errors import GradientError, RelaxMLIRError


def gradient(
    module: ModuleLike,
    func: str = "main",
    require_grads: Sequence[int | str] | None = None,
    target_index: int | None = None,
    mode: str = "adjoint",
    data_parallel: str | None = None,
) -> ir.Module:
    """Differentiates `func` and returns a new module that also holds `<func>_adjoint`.

    `<func>_adjoint` takes the parameters of `func` and returns
    `(original_result, (grad, ...))`, one gradient per required parameter in
    `require_grads` order. `require_grads` lists parameter indices or names (the
    `relax.name` argument attributes); when omitted, every float parameter is
    differentiated. `target_index` picks the field of a tuple result that is
    the (0-d float) target. Left out (None), they are the function's own
    `relax.require_grads` / `relax.target_index` attributes when it has them
    (every float parameter and 0 otherwise). A function body written without a `relax.dataflow`
    block is first gathered into one. The input module is left unchanged.

    With `mode="vjp"` the adjoint comes in two halves instead (JAX's `vjp`):
    `<func>_fwd(params...)` returns `(result, residuals)` and
    `<func>_bwd(*residuals, cotangent)` the gradients for a cotangent of the
    result's type (any result, not only a scalar; `target_index` does not
    apply), so that the forward runs once for any number of cotangents.

    `data_parallel="mean"` (or `"sum"`): every process of an MPI job runs
    the derived function on its own data, and the gradients (and, in
    adjoint mode, the target) are averaged (summed) over the processes
    inside it, packed into one `relax.all_reduce` per element type
    (`relax_mlir.distributed`).

    Raises `ValueError`/`TypeError` for bad arguments and `GradientError` (with
    MLIR's diagnostics) when the pass rejects the function.
    """
    module = as_module(module)
    if data_parallel not in (None, "mean", "sum"):
        raise ValueError(f"data_parallel must be None, 'mean' or 'sum', got {data_parallel!r}")
    parallel = [f"data-parallel={data_parallel}"] if data_parallel else []
    if not isinstance(func, str) or not func.replace("_", "a").isalnum():
        raise ValueError(f"func must be a function name such as 'main', got {func!r}")
    if mode not in ("adjoint", "vjp"):
        raise ValueError(f"mode must be 'adjoint' or 'vjp', got {mode!r}")
    fn = require_function(module, func)
    if mode == "vjp":
        options = [f"func={func}", "mode=vjp", *parallel]
        if require_grads is not None:
            indices = _resolve_params(parameter_names(fn), require_grads, func)
            options.append("require-grads=" + ",".join(str(i) for i in indices))
        return _run_pass(module, "gradient", options, f"cannot differentiate '{func}'")
    if target_index is None:
        target_index = _target_index_attribute(fn, func)
    target_index = _as_index(target_index, "target_index")
    _check_target_index(fn, func, target_index)
    options = [f"func={func}", f"target-index={target_index}", *parallel]
    if require_grads is not None:
        indices = _resolve_params(parameter_names(fn), require_grads, func)
        if indices:
            options.append("require-grads=" + ",".join(str(i) for i in indices))
    return _run_pass(module, "gradient", options, f"cannot differentiate '{func}'")


def jacobian_vector_product(
    module: ModuleLike,
    func: str = "main",
    wrt: Sequence[int | str] | None = None,
    mode: str = "jvp",
) -> ir.Module:
    """Differentiates `func` in forward mode and returns a new module that also
    holds `<func>_jvp` (the jvp pass).

    `<func>_jvp` takes the parameters of `func` followed by one tangent per
    parameter in `wrt` (indices or `relax.name`s; every float parameter when
    omitted), each of its parameter's type, and returns `(output,
    output_tangent)`: the result of `func` and its directional derivative
    along the tangents (for a function with several results, a tuple of the
    results and a tuple of their tangents; integer results get zero tangents).
    It is JAX's `jvp` for IR you hold; `<func>_jvp` can be differentiated again,
    and the jvp of an adjoint (`gradient` first) is a forward-over-reverse
    Hessian-vector product. A function body written without a `relax.dataflow`
    block is first gathered into one. The input module is left unchanged.

    With `mode="linearize"` it comes in two halves instead (JAX's
    `linearize`): `<func>_primal(params...)` returns `(output, residuals)` and
    `<func>_linear(*residuals, *tangents)` the output tangent, the linear map
    alone (no primal computation in it).

    Raises `ValueError`/`TypeError` for bad arguments and `GradientError` (with
    MLIR's diagnostics, every op without a tangent rule among them) when the
    pass rejects the function.
    """
    module = as_module(module)
    if not isinstance(func, str) or not func.replace("_", "a").isalnum():
        raise ValueError(f"func must be a function name such as 'main', got {func!r}")
    if mode not in ("jvp", "linearize"):
        raise ValueError(f"mode must be 'jvp' or 'linearize', got {mode!r}")
    fn = require_function(module, func)
    options = [f"func={func}", f"mode={mode}"]
    if wrt is not None:
        indices = _resolve_params(parameter_names(fn), wrt, func, "wrt")
        options.append("wrt=" + ",".join(str(i) for i in indices))
    return _run_pass(module, "jvp", options, f"cannot differentiate '{func}' in forward mode")


def _run_pass(module: ir.Module, name: str, options: list[str], what: str) -> ir.Module:
    """A copy of `module` after pass `name` with `options`; a plain function
    body (relax ops, no dataflow block) is gathered into one first."""
    result = clone_module(module)
    pipeline = ("builtin.module(func.func(relax-convert-to-dataflow), " + name + "{"
                + " ".join(options) + "})")
    run_passes(result, pipeline, GradientError, what)
    return result


def convert_to_dataflow(module: ModuleLike) -> ir.Module:
    """A copy of `module` in which each function whose body has relax ops but
    no `relax.dataflow` has them gathered into one (relax-convert-to-dataflow)."""
    module = as_module(module)
    result = clone_module(module)
    run_passes(result, "builtin.module(func.func(relax-convert-to-dataflow))", RelaxMLIRError,
               "relax-convert-to-dataflow failed")
    return result


def _as_index(value: object, what: str, expected: str = "an integer") -> int:
    """`value` as a Python int (numpy integers too); bools are rejected."""
    if not isinstance(value, (bool, np.bool_)):
        try:
            return operator.index(value)  # type: ignore[arg-type]
        except TypeError:
            pass
    raise TypeError(f"{what} must be {expected}, got {value!r} ({type(value).__name__})")


def _target_index_attribute(fn: Any, func: str) -> int:
    """The function's `relax.target_index`, 0 when it has none."""
    if "relax.target_index" not in fn.attributes:
        return 0
    attr = fn.attributes["relax.target_index"]
    try:
        return int(ir.IntegerAttr(attr).value)
    except ValueError:
        raise ValueError(f"'{func}' has relax.target_index = {attr}; it must be an integer "
                         f"attribute such as `relax.target_index = 1`") from None


def _check_target_index(fn: Any, func: str, target_index: int) -> None:
    """The pass checks the range of an int64 target index (GradientError); an
    index beyond int64, which the pass option cannot even hold, gets the same
    explanation here."""
    if -2**63 <= target_index < 2**63:
        return
    results = ir.FunctionType(ir.TypeAttr(fn.attributes["function_type"]).value).results
    if len(results) != 1:
        return  # the pass explains this one
    result = results[0].maybe_downcast()
    if isinstance(result, ir.TupleType):
        raise ValueError(f"target_index {target_index} is out of range: '{func}' returns a "
                         f"tuple of {result.num_types} fields; pass 0 to {result.num_types - 1}")
    raise ValueError(f"target_index {target_index} given, but '{func}' returns a single "
                     f"value; pass target_index=0")


def _resolve_params(names: list[str], wanted: Sequence[int | str], func: str,
                    option: str = "require_grads") -> list[int]:
    if isinstance(wanted, (str, int, np.integer)):
        wanted = [wanted]
    indices = []
    for w in wanted:
        if not isinstance(w, str):
            w = _as_index(w, f"{option} entries", "parameter indices or names")
        if isinstance(w, str):
            if w not in names:
                raise ValueError(f"'{func}' has no parameter named '{w}'; its parameters are: "
                                 f"{', '.join(names)}")
            w = names.index(w)
        elif not 0 <= w < len(names):
            raise ValueError(f"{option} index {w} is out of range: '{func}' has "
                             f"{len(names)} parameters")
        indices.append(w)
    if not indices:
        raise ValueError(f"{option} is empty; pass None to differentiate every float parameter")
    return indices
