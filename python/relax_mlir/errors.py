"""Exceptions raised by relax_mlir."""

from __future__ import annotations

from typing import Any


class RelaxMLIRError(RuntimeError):
    """An MLIR step failed; `diagnostics` holds MLIR's messages, one per line."""

    def __init__(self, what: str, diagnostics: str) -> None:
        super().__init__(f"{what}:\n{diagnostics}" if diagnostics else what)
        self.diagnostics = diagnostics


class GradientError(RelaxMLIRError):
    """The gradient pass rejected the function (see `diagnostics`)."""


class CompilationError(RelaxMLIRError):
    """Lowering or JIT compilation failed (see `diagnostics`)."""


def format_mlir_error(error: Any) -> str:
    """Renders an `ir.MLIRError` as `location: message` lines, notes indented."""
    lines = []
    for diag in getattr(error, "error_diagnostics", []):
        lines.append(f"{diag.location}: {diag.message}")
        for note in diag.notes:
            if note.message.startswith("see current operation"):
                continue
            lines.append(f"  {note.location}: note: {note.message}")
    return "\n".join(lines) or str(error)
