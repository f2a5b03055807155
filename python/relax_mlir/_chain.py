"""A deep tanh chain in relax text, optionally cut into checkpointed segments.

Used by the checkpointing tests and `bench/checkpoint_memory.py`: layer i is
`h = tanh(h @ w + b)` with one shared `w` and `b`, and the loss is `sum(h)`.
"""

from __future__ import annotations

import math


def tanh_chain(layers: int, batch: int = 32, width: int = 16,
               segment: int | None = None) -> str:
    """MLIR text of `@main(x, w, b)`; with `segment`, every `segment` layers form
    one checkpointed segment (0 means about sqrt(layers))."""
    if segment == 0:
        segment = max(1, round(math.sqrt(layers)))
    t = f"tensor<{batch}x{width}xf32>"
    lines = [f"func.func @main(%x: {t}, %w: tensor<{width}x{width}xf32>, "
             f"%b: tensor<{width}xf32>) -> tensor<f32> {{",
             "  %r = relax.dataflow -> (tensor<f32>) {"]
    h = "%x"
    for i in range(layers):
        if segment and i % segment == 0:
            lines.append(f"    %s{i} = relax.start_checkpoint {h} : {t}")
            h = f"%s{i}"
        lines.append(f"    %m{i} = relax.matmul {h}, %w : {t}, tensor<{width}x{width}xf32> -> {t}")
        lines.append(f"    %a{i} = relax.add %m{i}, %b : {t}, tensor<{width}xf32> -> {t}")
        lines.append(f"    %h{i} = relax.tanh %a{i} : {t}")
        h = f"%h{i}"
        if segment and (i % segment == segment - 1 or i == layers - 1):
            lines.append(f"    %e{i} = relax.end_checkpoint {h} : {t}")
            h = f"%e{i}"
    lines += [f"    %l = relax.sum {h} : {t} -> tensor<f32>",
              "    relax.output %l : tensor<f32>", "  }", "  return %r : tensor<f32>", "}"]
    return "\n".join(lines)
