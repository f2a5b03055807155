"""Exceptions raised by relax_mlir."""

from __future__ import annotations

import re
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


class InvalidIRError(RelaxMLIRError):
    """The IR is well-formed text but an op's verifier rejected it (see
    `diagnostics`, each line located at the offending op)."""


_FILE_LINE_COL = re.compile(r'loc\("((?:[^"\\]|\\.)*)":(\d+):(\d+)\)')


def format_location(location: Any) -> str:
    """`file:line:col` for a file location (as compilers print them); other
    locations as MLIR prints them."""
    text = str(location)
    match = _FILE_LINE_COL.fullmatch(text)
    return f"{match[1]}:{match[2]}:{match[3]}" if match else text


def format_mlir_error(error: Any) -> str:
    """Renders an `ir.MLIRError` as `location: message` lines, notes indented."""
    lines = []
    for diag in getattr(error, "error_diagnostics", []):
        lines.append(f"{format_location(diag.location)}: {diag.message}")
        for note in diag.notes:
            if note.message.startswith("see current operation"):
                continue
            lines.append(f"  {format_location(note.location)}: note: {note.message}")
    return "\n".join(lines) or str(error)


_VERIFIER_MESSAGE = re.compile(r"'[\w.]+' op ")


def is_verifier_error(error: Any) -> bool:
    """Whether an `ir.MLIRError` comes from an op's verifier or type inference
    (`'relax.add' op ...`) rather than from the parser's syntax checks."""
    return any(_VERIFIER_MESSAGE.match(d.message)
               for d in getattr(error, "error_diagnostics", []))
