"""`relax_mlir.ops()`: every relax op with its gradient and lowering status."""

from __future__ import annotations

from typing import NamedTuple

from . import ir
from ._mlir_libs import _site_initialize_0

# Ops without a relax-to-linalg pattern: relax-flatten-tuples (with the relax
# canonicalizations) removes them before that conversion runs.
_STRUCTURE = "relax-flatten-tuples"
_CONVERSION = "convert-relax-to-linalg"


class OpInfo(NamedTuple):
    """One relax op: `gradient` is whether it has a gradient rule
    (GradientOpInterface); `lowering` the pass that lowers or removes it;
    `batching` whether it has a batching rule (BatchingOpInterface: `vmap`
    batches it)."""

    name: str
    gradient: bool
    lowering: str
    batching: bool = False


def ops() -> list[OpInfo]:
    """Every op of the relax dialect, by name, read from the dialect itself
    (its registered ops, their interfaces and the lowering's patterns)."""
    with ir.Context() as context:
        found = _site_initialize_0.relax_ops(context)
    return sorted(OpInfo(name, gradient, _CONVERSION if lowered else _STRUCTURE, batching)
                  for name, gradient, lowered, batching in found)
