"""Static peak of live tensor bytes of a tanh chain's adjoint, with and without
checkpointing (about sqrt(n) segments of about sqrt(n) layers).

Run: PYTHONPATH=build/python_packages .venv/bin/python bench/checkpoint_memory.py
"""

from __future__ import annotations

import relax_mlir
from relax_mlir._chain import tanh_chain


def main() -> None:
    print(f"{'layers':>6} {'unmarked':>10} {'checkpointed':>13} {'ratio':>6}")
    for n in (4, 16, 64):
        plain = relax_mlir.memory_report(relax_mlir.gradient(tanh_chain(n)), "main_adjoint")
        marked = relax_mlir.memory_report(relax_mlir.gradient(tanh_chain(n, segment=0)),
                                          "main_adjoint")
        p, c = plain["main_adjoint"], marked["main_adjoint"]
        print(f"{n:>6} {p:>10} {c:>13} {p / c:>6.2f}")


if __name__ == "__main__":
    main()
