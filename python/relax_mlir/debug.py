"""`relax_mlir.debug`: looking at values inside compiled functions.

`print(fmt, *args, **kwargs)` is `jax.debug.print`: inside a function given
to `jit`, `grad`, `vmap`, ... it prints when the compiled code runs (each
call, in program order), with the values of that call::

    @relax_mlir.jit
    def f(x):
        y = rnp.tanh(x)
        relax_mlir.debug.print("y = {y}, max {m:.3f}", y=y, m=rnp.max(y))
        return y * 2

The format is Python's `str.format`; the arguments are arrays or pytrees of
them (numpy arrays when printed). Under `grad` it prints the forward values
when the gradient runs; under `vmap` once per example, as JAX. Called
outside a traced function it prints at once. CPU only (the GPU lowering
refuses it).
"""

from __future__ import annotations

import builtins
import json
from typing import Any

from . import numpy as rnp
from ._pytree import tree_flatten, tree_unflatten, treedef_to_json
from ._trace import TracingError, current_trace
from .dialects import relax as _r
from .errors import call_site

__all__ = ["print"]


class _Placeholder:
    """Stands for a value when the format is checked at trace time."""

    def __format__(self, spec: str) -> str:
        return ""


def print(fmt: str, *args: Any, **kwargs: Any) -> None:  # noqa: A001 (JAX's name)
    """Prints `fmt.format(*args, **kwargs)` when the compiled code runs (at
    once outside a traced function)."""
    if not isinstance(fmt, str):
        raise TypeError(f"debug.print takes a format string first, got {type(fmt).__name__}")
    trace = current_trace()
    if trace is None:
        builtins.print(fmt.format(*args, **kwargs))
        return
    arg_leaves, _, args_def = tree_flatten(args, "args")
    kw_leaves, _, kwargs_def = tree_flatten(kwargs, "kwargs")
    try:
        # Checked now, at the caller's line, not when the code runs.
        fmt.format(*tree_unflatten(args_def, iter([_Placeholder()] * len(arg_leaves))),
                   **tree_unflatten(kwargs_def, iter([_Placeholder()] * len(kw_leaves))))
    except (IndexError, KeyError, ValueError) as e:
        raise TracingError(f"{call_site()}: debug.print format {fmt!r} does not match its "
                           f"arguments", f"{type(e).__name__}: {e}") from None
    values = [rnp.asarray(v) for v in arg_leaves + kw_leaves]  # (checks their dtypes)
    spec = {"format": fmt, "args": treedef_to_json(args_def, "args"),
            "kwargs": treedef_to_json(kwargs_def, "kwargs")}
    trace.emit(_r.debug_print, json.dumps(spec), [trace.operand(v) for v in values],
               op="debug_print")
