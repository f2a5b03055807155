"""Exceptions raised by relax_mlir."""

from __future__ import annotations

import os
import re
import sys
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


# The user's position, for messages (pure Python: the MLIR-free modules,
# relax_mlir.distributed and relax_mlir.optim, report it too).
_PACKAGE_DIR = os.path.dirname(os.path.abspath(__file__))


def user_position() -> tuple[str, int, int] | None:
    """(file, line, column) of the innermost frame outside relax_mlir."""
    frame = sys._getframe(1)
    while frame is not None and os.path.dirname(
            os.path.abspath(frame.f_code.co_filename)) .startswith(_PACKAGE_DIR):
        frame = frame.f_back  # type: ignore[assignment]
    if frame is None:
        return None
    line, column = frame.f_lineno, 1
    try:
        positions = list(frame.f_code.co_positions())[frame.f_lasti // 2]
        if positions[0] == line and positions[2] is not None:
            column = positions[2] + 1
    except (AttributeError, IndexError):
        pass
    return frame.f_code.co_filename, line, column



def call_site() -> str:
    """`file:line:col` of the user's call (as user_location finds it), for
    error messages; needs no MLIR context."""
    position = user_position()
    return "<unknown>" if position is None else "{}:{}:{}".format(*position)
