"""`relax_mlir.lax`: JAX's `lax` functions that are not numpy's.

- `stop_gradient(x)`: `x` (any pytree of arrays), with a zero derivative: the
  `relax.stop_gradient` op, which the gradient and jvp passes treat as a
  constant, at every order.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ._trace import Tracer, current_trace, emit_op, tree_flatten, tree_unflatten
from .dialects import relax as _r
from .numpy import asarray

__all__ = ["stop_gradient"]


def stop_gradient(x: Any) -> Any:
    """`x` unchanged, but constant to differentiation (JAX's
    `lax.stop_gradient`): no gradient flows back through it and no tangent
    forward, in `grad`, `vjp`, `jvp` and their compositions (a Hessian does
    not see through it either). Works on pytrees; outside a traced function
    it returns numpy arrays unchanged."""
    leaves, _, treedef = tree_flatten(x)
    trace = current_trace()
    if trace is None:
        return tree_unflatten(treedef, iter(np.asarray(v) for v in leaves))
    out = []
    for v in leaves:
        array = asarray(v)
        out.append(emit_op(_r.stop_gradient, array) if isinstance(array, Tracer) else array)
    return tree_unflatten(treedef, iter(out))
