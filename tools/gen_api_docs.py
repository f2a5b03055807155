"""Writes docs/api.md, the Python API reference, from the public docstrings.

`make docs` runs it; test_docs.py fails when docs/api.md is stale.
Usage: python tools/gen_api_docs.py [OUTPUT]   (default: print to stdout)
"""

from __future__ import annotations

import inspect
import sys
from typing import Any

import relax_mlir
import relax_mlir.debug
import relax_mlir.distributed
import relax_mlir.lax
import relax_mlir.nn
import relax_mlir.numpy
import relax_mlir.optim
import relax_mlir.random
import relax_mlir.runtime
import relax_mlir.tree_util

SECTIONS = [
    ("relax_mlir", relax_mlir, "Compiling, differentiating and inspecting relax IR; the "
     "frontend's transformations."),
    ("relax_mlir.numpy", relax_mlir.numpy, "numpy's array functions over traced arrays "
     "(eager on numpy arrays)."),
    ("relax_mlir.nn", relax_mlir.nn, "Neural-network functions over traced arrays."),
    ("relax_mlir.lax", relax_mlir.lax, "JAX's lax: control flow (scan, fori_loop, "
     "while_loop, cond, switch) and stop_gradient."),
    ("relax_mlir.random", relax_mlir.random, "Random numbers as pure functions of a key "
     "(jax.random's)."),
    ("relax_mlir.tree_util", relax_mlir.tree_util, "Pytrees (jax.tree_util's)."),
    ("relax_mlir.optim", relax_mlir.optim, "Optimizers in optax's shape (sgd, momentum, adam, "
     "adamw), usable inside jit."),
    ("relax_mlir.debug", relax_mlir.debug, "Printing values from compiled code "
     "(jax.debug.print)."),
    ("relax_mlir.distributed", relax_mlir.distributed, "Data parallelism across the processes "
     "of an MPI job (mpirun): ranks, broadcast, batch shards."),
    ("relax_mlir.runtime", relax_mlir.runtime, "Loading and calling exported libraries "
     "(pure Python: no LLVM/MLIR needed)."),
]


def _signature(obj: Any) -> str:
    """`(a: int, b: str = 'x') -> T` with annotations as written (unquoted)."""
    try:
        sig = inspect.signature(obj)
    except (TypeError, ValueError):
        return "(...)"
    parts = []
    star_done = False
    for p in sig.parameters.values():
        if p.kind == p.KEYWORD_ONLY and not star_done:
            parts.append("*")
            star_done = True
        if p.kind == p.VAR_POSITIONAL:
            star_done = True
        prefix = {p.VAR_POSITIONAL: "*", p.VAR_KEYWORD: "**"}.get(p.kind, "")
        text = prefix + p.name
        if p.annotation is not p.empty:
            ann = p.annotation if isinstance(p.annotation, str) else \
                inspect.formatannotation(p.annotation)
            text += f": {ann}"
        if p.default is not p.empty:
            default = p.default
            text += f" = {default.__name__ if isinstance(default, type) else repr(default)}"
        parts.append(text)
    out = f"({', '.join(parts)})"
    if sig.return_annotation is not sig.empty:
        ret = sig.return_annotation
        out += f" -> {ret if isinstance(ret, str) else inspect.formatannotation(ret)}"
    return out


def _doc(obj: Any) -> str:
    return inspect.cleandoc(obj.__doc__ or "(undocumented)")


def render() -> str:
    out = ["# Python API reference", "",
           "Generated from the docstrings by `tools/gen_api_docs.py` (`make docs`); do not "
           "edit by hand.", ""]
    for title, module, summary in SECTIONS:
        out += [f"## `{title}`", "", summary, ""]
        for name in sorted(module.__all__, key=str.lower):
            obj = getattr(module, name)
            if inspect.isclass(obj) or callable(obj):
                kind = "class " if inspect.isclass(obj) else ""
                if isinstance(obj, type) and issubclass(obj, BaseException):
                    out += [f"### exception `{title}.{name}`", "", _doc(obj), ""]
                    continue
                if inspect.isclass(obj) and obj.__module__ == "numpy":
                    continue  # dtype aliases (float32, ...)
                # Classes are made by the API, not by users: no constructor.
                sig = "" if inspect.isclass(obj) else _signature(obj)
                out += [f"### {kind}`{title}.{name}{sig}`", "", _doc(obj), ""]
                if inspect.isclass(obj):
                    for attr, member in sorted(vars(obj).items()):
                        if attr.startswith("_") or not (callable(member) or
                                                        isinstance(member, property)):
                            continue
                        target = member.fget if isinstance(member, property) else member
                        sig = "" if isinstance(member, property) else _signature(member)
                        out += [f"- `{name}.{attr}{sig}`: "
                                f"{_doc(target).splitlines()[0]}"]
                    out.append("")
            elif not isinstance(obj, (float, int)):
                shown = obj._defaults_repr() if hasattr(obj, "_defaults_repr") else repr(obj)
                out += [f"### `{title}.{name}`", "", f"`{shown}`", ""]
                if type(obj).__module__.startswith("relax_mlir"):
                    out += [_doc(type(obj)), ""]  # a settings object: its class's doc
    return "\n".join(out).rstrip() + "\n"


if __name__ == "__main__":
    text = render()
    if len(sys.argv) > 1:
        with open(sys.argv[1], "w") as f:
            f.write(text)
    else:
        sys.stdout.write(text)
