#!/usr/bin/env python3
"""Mutation fuzzer for relax-opt: the parser, the op verifiers and every pass.

Seeds are the lit corpus (every ``test/**/*.mlir``, split on ``// -----``, comment
lines dropped). Each run takes one seed (or, about a third of the time, a
freshly generated, mostly well-typed program: a chain of relax ops ending in a
scalar loss, so that the passes past the verifier get exercised), applies a few
random mutations (token level: numbers, dims, axes, element types, op names,
lines, attributes, tuple indices, value references, types, functions, dataflow
blocks, inserted ops; and some byte-level ones) and feeds the mutant to
``relax-opt`` with one randomly chosen pass setup (plain parse and verify,
``--gradient`` with random and sometimes invalid options, each lowering and
transform pass, and a few pass chains). Each run is classified:

  accepted      exit 0, and the printed IR parses and verifies again
  rejected      non-zero exit with an ``error:`` diagnostic (a pass failure is
                a rejection too)
  crash         killed by a signal, or LLVM's crash stack dump / fatal error
  hang          ran past ``--timeout`` (SIGABRT is sent first, to get a stack)
  invalid-ir    exit 0 (run with ``--verify-each=false``) but the printed IR
                does not parse or verify when fed back to ``relax-opt``
  no-diagnostic non-zero exit without any ``error:`` diagnostic

The last four are findings. Each is saved under the output directory (default
``build/fuzz-findings/``), one folder per distinct signature (top stack frames
for crashes and hangs, the normalised first error line for invalid IR), with
the input, the command line and relax-opt's stderr; the smallest input seen for
a signature is kept. ``--reduce DIR`` shrinks a saved finding line by line while
its signature stays the same.

Runs are reproducible: mutant ``i`` depends only on ``--seed`` and ``i``.
Exit status: 0 when nothing crashed, hung, produced invalid IR or failed
silently; 1 otherwise; 2 on usage errors.

    python3 tools/fuzz/relax_fuzz.py --duration 600 --seed 1
    python3 tools/fuzz/relax_fuzz.py --runs 200 --seed 7 --jobs 2
    python3 tools/fuzz/relax_fuzz.py --reduce build/fuzz-findings/crash-1a2b3c4d

Needs the Python standard library and numpy (the op table imports it).
"""

from __future__ import annotations

import argparse
import concurrent.futures
import dataclasses
import hashlib
import json
import os
import random
import re
import resource
import shlex
import signal
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

FINDING_CLASSES = ("crash", "hang", "invalid-ir", "no-diagnostic")
ALL_CLASSES = ("accepted", "rejected") + FINDING_CLASSES

# ----------------------------------------------------------------------------
# Vocabulary of the relax dialect, from the op table (test/lib/relax_mlir_testing/
# ops.py): a new op is fuzzed as soon as it has an entry.
# ----------------------------------------------------------------------------

sys.path.insert(0, str(ROOT / "test" / "lib"))
from relax_mlir_testing.ops import (  # noqa: E402
    BINARY,
    COMPARE,
    CREATE,
    FAMILIES,
    MARKER,
    OPS,
    REDUCE,
    STRUCTURAL,
    plain_unary,
)

# Ops the generator writes as `relax.<op> %x : type` (one operand, no attribute),
# `relax.<op> %a, %b : ...` (binary, comparisons), reductions, fills (`relax.<op> :
# type`) and checkpoint markers; the others enter through mutations of op names.
UNARY_OPS = [n for n, op in OPS.items() if plain_unary(op)]
BINARY_OPS = [n for n, op in OPS.items() if op.kind == BINARY]
COMPARE_OPS = [n for n, op in OPS.items() if op.kind == COMPARE]
REDUCTION_OPS = [n for n, op in OPS.items() if op.kind == REDUCE]
FILL_OPS = [n for n, op in OPS.items() if op.kind == CREATE and not op.cases[0].inputs]
MARKER_OPS = [n for n, op in OPS.items() if op.kind == MARKER]
# Junk names (rejected by the parser).
EXTRA_OPS = ["bogus", "Sum", "relu6"]
# An op name is swapped for one of its family (its ODS file) most of the time.
OP_GROUPS = list(FAMILIES.values())
ALL_OPS = sorted(set(OPS) | STRUCTURAL)

FLOAT_TYPES = ["f16", "bf16", "f32", "f64"]
INT_TYPES = ["i1", "i32", "i64"]
# Element types relax does not take; the first ten are valid tensor element types.
ODD_TYPES = ["i8", "i16", "ui32", "si64", "index", "f8E4M3FN", "tf32", "f80", "f8E5M2", "f128",
             "complex<f32>", "i0", "none", "vector<2xf32>", "!llvm.ptr", "memref<2xf32>"]
ELEMENT_TYPES = FLOAT_TYPES + INT_TYPES

INTERESTING_INTS = [0, 1, 2, 3, 4, 5, 7, 8, 16, 63, 64, 255, 1024,
                    2**31 - 1, 2**31, 2**32, 2**32 + 1, 2**62, 2**63 - 1, 2**63, 2**64,
                    -1, -2, -3, -4, -(2**31), -(2**63)]
SMALL_DIMS = [0, 1, 1, 2, 2, 3, 3, 4, 5, 6, 8]
HUGE_DIMS = [2**31 - 1, 2**31, 2**32, 2**40, 2**62, 2**63 - 1]

_TENSOR_RE = re.compile(r"tensor<((?:[0-9?]+x)*)([a-zA-Z][a-zA-Z0-9_]*)>")
_VALUE_USE_RE = re.compile(r"%[A-Za-z0-9_$.\-]+(?:#\d+)?")
_DEF_RE = re.compile(r"^\s*(%[A-Za-z0-9_$.\-]+)(?::(\d+))?\s*=")
_FUNC_RE = re.compile(r"^\s*func\.func\s+(?:(?:private|public|nested)\s+)?@([A-Za-z0-9_$.\-]+)")


# ----------------------------------------------------------------------------
# Seeds
# ----------------------------------------------------------------------------

def load_seeds(corpus: Path) -> list[tuple[str, str]]:
    """Return (label, text) for every split of every .mlir file under corpus.

    Full-line comments (RUN, CHECK, expected-* and prose) are dropped, so the
    seed is plain IR.
    """
    seeds = []
    for path in sorted(corpus.rglob("*.mlir")):
        parts = re.split(r"^// -----.*$", path.read_text(), flags=re.M)
        for n, part in enumerate(parts):
            lines = [l for l in part.splitlines() if not l.lstrip().startswith("//")]
            text = "\n".join(lines).strip("\n")
            if text.strip():
                seeds.append((f"{path.relative_to(corpus.parent)}#{n}", text + "\n"))
    return seeds


# ----------------------------------------------------------------------------
# A light reading of the IR text: functions, their parameters, value types.
# ----------------------------------------------------------------------------

def read_type(text: str, pos: int) -> tuple[str, int]:
    """Read one MLIR type starting at text[pos] (balanced <...>); return (type, end)."""
    while pos < len(text) and text[pos] == " ":
        pos += 1
    start = pos
    depth = 0
    while pos < len(text):
        c = text[pos]
        if c == "<":
            depth += 1
        elif c == ">":
            if depth == 0:
                break
            depth -= 1
            if depth == 0:
                pos += 1
                break
        elif depth == 0 and (c in ",)} \n{=" or (c == "-" and text[pos:pos + 2] == "->")):
            break
        pos += 1
    return text[start:pos], pos


def split_top(text: str, sep: str = ",") -> list[str]:
    """Split on sep where it is not nested inside <>, (), [] or {}."""
    out, depth, cur = [], 0, []
    for c in text:
        if c in "<([{":
            depth += 1
        elif c in ">)]}":
            depth -= 1
        if c == sep and depth == 0:
            out.append("".join(cur).strip())
            cur = []
        else:
            cur.append(c)
    if "".join(cur).strip():
        out.append("".join(cur).strip())
    return out


def tuple_fields(ty: str) -> list[str]:
    """The field types of a tuple<...> type ([] for anything else)."""
    return split_top(ty[len("tuple<"):-1]) if ty.startswith("tuple<") else []


@dataclasses.dataclass
class Function:
    name: str
    start: int            # line index of the func.func line
    end: int              # line index of the closing "}" (or start for declarations)
    params: list[tuple[str, str]]   # (name, type)


def find_functions(lines: list[str]) -> list[Function]:
    """The func.func ops of the text (relies on the corpus' one-op-per-line layout)."""
    funcs = []
    i = 0
    while i < len(lines):
        m = _FUNC_RE.match(lines[i])
        if not m:
            i += 1
            continue
        header = lines[i]
        j = i
        # Signatures may span lines; read on until the body opens (or it is a declaration).
        while not header.rstrip().endswith("{") and j + 1 < len(lines) and \
                "->" not in header and header.count("(") > header.count(")"):
            j += 1
            header += " " + lines[j].strip()
        params = []
        for pm in re.finditer(r"(%[A-Za-z0-9_$.\-]+)\s*:", header):
            ty, _ = read_type(header, pm.end())
            params.append((pm.group(1), ty))
        end = j
        if header.rstrip().endswith("{"):
            indent = len(lines[i]) - len(lines[i].lstrip())
            for k in range(j + 1, len(lines)):
                if lines[k].rstrip() == " " * indent + "}":
                    end = k
                    break
            else:
                end = len(lines) - 1
        funcs.append(Function(m.group(1), i, end, params))
        i = j + 1
    return funcs


def result_types(line: str) -> list[str]:
    """Best-effort result types of the op on one line (empty when unknown)."""
    body = line.split("=", 1)[1] if "=" in line else line
    if re.search(r"relax\.tuple\(", body):
        inner = body[body.index("(") + 1:body.rindex(")")]
        if ":" not in inner:
            return ["tuple<>"]
        return ["tuple<" + ", ".join(split_top(inner.split(":", 1)[1])) + ">"]
    m = re.search(r"relax\.tuple_get_item\s+\S+\[(\d+)\]\s*:\s*(.*)$", body)
    if m:
        fields = tuple_fields(read_type(m.group(2), 0)[0])
        idx = int(m.group(1))
        return [fields[idx]] if idx < len(fields) else []
    if "->" in body:
        tail = body.rsplit("->", 1)[1].strip().rstrip("{").strip()
        if tail.startswith("("):
            tail = tail[1:tail.rfind(")")]
        return split_top(tail)
    if ":" in body:
        return [read_type(body.rsplit(":", 1)[1], 0)[0]]
    return []


def visible_values(lines: list[str], fn: Function, upto: int) -> dict[str, str]:
    """Values (name -> type) defined in fn before line index `upto`."""
    vals = dict(fn.params)
    indent = [len(l) - len(l.lstrip()) if l.strip() else 10**6 for l in lines]
    for k in range(fn.start + 1, upto):
        m = _DEF_RE.match(lines[k])
        # A value of a region that has closed again (a dedented line since) is out of scope.
        if not m or min(indent[k + 1:upto], default=10**6) < indent[k]:
            continue
        tys = result_types(lines[k])
        if m.group(2):
            for r, ty in enumerate(tys):
                vals[f"{m.group(1)}#{r}"] = ty
        elif len(tys) == 1:
            vals[m.group(1)] = tys[0]
    return vals


def parse_tensor(ty: str) -> tuple[list[int], str] | None:
    """'tensor<4x3xf32>' -> ([4, 3], 'f32'); None for other and dynamic types."""
    m = _TENSOR_RE.fullmatch(ty.strip())
    if not m or "?" in m.group(1):
        return None
    dims = [int(d) for d in m.group(1).split("x") if d]
    return dims, m.group(2)


def tensor(dims: list[int], elt: str) -> str:
    return "tensor<" + "".join(f"{d}x" for d in dims) + elt + ">"


def broadcast(a: list[int], b: list[int]) -> list[int] | None:
    """The numpy broadcast of two shapes, or None when they are incompatible."""
    out = []
    for i in range(1, max(len(a), len(b)) + 1):
        x = a[-i] if i <= len(a) else 1
        y = b[-i] if i <= len(b) else 1
        if x != y and 1 not in (x, y):
            return None
        out.append(y if x == 1 else x)
    return out[::-1]


# ----------------------------------------------------------------------------
# Mutations. Each takes (rng, text) and returns the new text (or the same text
# when it does not apply).
# ----------------------------------------------------------------------------

def _replace_span(text: str, m: re.Match, new: str, group: int = 0) -> str:
    return text[:m.start(group)] + new + text[m.end(group):]


def _pick(rng: random.Random, matches: list[re.Match]) -> re.Match | None:
    return rng.choice(matches) if matches else None


def random_int(rng: random.Random, old: int | None = None) -> int:
    r = rng.random()
    if old is not None and r < 0.4:
        return old + rng.choice([-2, -1, 1, 2])
    if r < 0.8:
        return rng.choice(INTERESTING_INTS)
    return rng.randint(-10, 100)


def mut_dim(rng: random.Random, text: str) -> str:
    """Change, add or remove one dimension of one tensor type."""
    ms = list(_TENSOR_RE.finditer(text))
    m = _pick(rng, ms)
    if not m:
        return text
    dims = [d for d in m.group(1).split("x") if d]
    choice = rng.random()
    if choice < 0.5 and dims:
        i = rng.randrange(len(dims))
        r = rng.random()
        dims[i] = "?" if r < 0.1 else str(rng.choice(HUGE_DIMS) if r < 0.25 else rng.choice(SMALL_DIMS))
    elif choice < 0.75:
        dims.insert(rng.randint(0, len(dims)), str(rng.choice(SMALL_DIMS)))
    elif dims:
        dims.pop(rng.randrange(len(dims)))
    new = "tensor<" + "".join(d + "x" for d in dims) + m.group(2) + ">"
    if rng.random() < 0.3:  # consistently everywhere: keeps the IR well typed more often
        return text.replace(m.group(0), new)
    return _replace_span(text, m, new)


def mut_dim_global(rng: random.Random, text: str) -> str:
    """Change one dimension size everywhere it occurs (keeps shapes consistent more often)."""
    sizes = sorted({int(d) for m in _TENSOR_RE.finditer(text) for d in m.group(1).split("x") if d.isdigit()})
    if not sizes:
        return text
    old = rng.choice(sizes)
    new = rng.choice(SMALL_DIMS + HUGE_DIMS[:3] if rng.random() < 0.3 else SMALL_DIMS)

    def fix(m: re.Match) -> str:
        dims = [str(new) if d == str(old) else d for d in m.group(1).split("x") if d]
        return "tensor<" + "".join(d + "x" for d in dims) + m.group(2) + ">"
    return _TENSOR_RE.sub(fix, text)


def mut_constant(rng: random.Random, text: str) -> str:
    """Change the payload of a dense<...> constant (special floats, wrong shapes, splats)."""
    m = _pick(rng, list(re.finditer(r"dense<([^<>]*)>", text)))
    if not m:
        return text
    new = rng.choice(["0.0", "-0.0", "1.0e+38", "3.4e+39", "0x7FC00000", "0x7F800000", "0xFF800000",
                      "1", "-1", "true", "[1.0, 2.0]", "[[1.0], [2.0]]", "[]", "\"0xDEAD\"",
                      "9223372036854775808", "1.0e-45"])
    return _replace_span(text, m, new, 1)


def mut_number(rng: random.Random, text: str) -> str:
    """Change one integer literal (an axis, an index, a dim, an attribute value)."""
    ms = [m for m in re.finditer(r"(?<![A-Za-z0-9_%#.x])-?\d+(?![.\dxe])", text)]
    m = _pick(rng, ms)
    if not m:
        return text
    return _replace_span(text, m, str(random_int(rng, int(m.group(0)))))


def mut_int_list(rng: random.Random, text: str) -> str:
    """Edit one array<i64: ...> attribute: change, add, drop or duplicate an entry."""
    ms = list(re.finditer(r"array<i64(?::\s*([-0-9,\s]*))?>", text))
    m = _pick(rng, ms)
    if not m:
        return text
    vals = [int(v) for v in (m.group(1) or "").replace(" ", "").split(",") if v]
    r = rng.random()
    if r < 0.35 and vals:
        i = rng.randrange(len(vals))
        vals[i] = random_int(rng, vals[i]) if rng.random() < 0.5 else rng.randint(-4, 4)
    elif r < 0.55:
        vals.insert(rng.randint(0, len(vals)), rng.randint(-4, 4))
    elif r < 0.7 and vals:
        vals.pop(rng.randrange(len(vals)))
    elif r < 0.85 and vals:
        vals.insert(rng.randint(0, len(vals)), rng.choice(vals))
    else:
        rng.shuffle(vals)
    new = "array<i64: " + ", ".join(map(str, vals)) + ">" if vals else "array<i64>"
    return _replace_span(text, m, new)


def mut_element_type(rng: random.Random, text: str) -> str:
    """Swap element types: one occurrence, or every occurrence of one type."""
    ms = list(_TENSOR_RE.finditer(text))
    m = _pick(rng, ms)
    if not m:
        return text
    old = m.group(2)
    new = rng.choice(ELEMENT_TYPES + ODD_TYPES[:10] if rng.random() < 0.2 else ELEMENT_TYPES)
    if rng.random() < 0.5:
        # Everywhere, including scalar constants: keeps the module consistent.
        out = re.sub(r"(?<=x)" + re.escape(old) + r">|(?<=<)" + re.escape(old) + r">",
                     new + ">", text)
        if old in FLOAT_TYPES and new in FLOAT_TYPES:
            out = re.sub(r"(?<=: )" + old + r"\b", new, out)
        return out
    return _replace_span(text, m, new, 2)


def mut_op_name(rng: random.Random, text: str) -> str:
    """Replace one relax op name by another (same family usually)."""
    ms = list(re.finditer(r"relax\.([a-z_]+)", text))
    m = _pick(rng, ms)
    if not m:
        return text
    old = m.group(1)
    group = next((g for g in OP_GROUPS if old in g), ALL_OPS)
    pool = group if rng.random() < 0.6 else ALL_OPS + EXTRA_OPS
    return _replace_span(text, m, rng.choice(pool), 1)


def mut_lines(rng: random.Random, text: str) -> str:
    """Drop, duplicate, swap or move lines."""
    lines = text.splitlines()
    if len(lines) < 2:
        return text
    i = rng.randrange(len(lines))
    r = rng.random()
    if r < 0.35:
        del lines[i]
    elif r < 0.55:
        lines.insert(i, lines[i])
    elif r < 0.8:
        j = rng.randrange(len(lines))
        lines[i], lines[j] = lines[j], lines[i]
    else:
        line = lines.pop(i)
        lines.insert(rng.randrange(len(lines) + 1), line)
    return "\n".join(lines) + "\n"


ATTRIBUTES = [
    "axis = array<i64: {a}>", "axis = array<i64: {a}, {b}>", "axis = array<i64>",
    "keepdims = true", "keepdims = false", "keepdims = 1 : i64",
    "axes = array<i64: {a}, {b}>", "axes = array<i64: {a}, {b}, {c}>", "axes = array<i64>",
    "index = {a} : i64", "index = {big} : i64", "index = 1.5 : f64",
    "axis = {a} : i64", "axis = \"x\"", "relax.recomputed", "relax.name = \"w\"",
    "foo = 1", "axis = array<i32: {a}>", "axis = dense<[{a}]> : tensor<1xi64>",
]


def random_attribute(rng: random.Random) -> str:
    return rng.choice(ATTRIBUTES).format(a=rng.randint(-4, 4), b=rng.randint(-4, 4),
                                         c=rng.randint(-4, 4), big=rng.choice(INTERESTING_INTS))


def mut_attributes(rng: random.Random, text: str) -> str:
    """Delete, replace or insert an attribute dictionary, or flip a bool."""
    r = rng.random()
    if r < 0.3:
        m = _pick(rng, list(re.finditer(r" \{[^{}\n]*\}(?= :)", text)))
        return _replace_span(text, m, "") if m else text
    if r < 0.45:
        m = _pick(rng, list(re.finditer(r"\b(true|false)\b", text)))
        return _replace_span(text, m, "false" if m.group(0) == "true" else "true") if m else text
    if r < 0.65:
        m = _pick(rng, list(re.finditer(r"\{([^{}\n]*)\}(?= :)", text)))
        return _replace_span(text, m, random_attribute(rng), 1) if m else text
    # Insert an attribute dictionary before the ' : type' of a relax op.
    m = _pick(rng, list(re.finditer(r"(= relax\.[a-z_]+ [^{}\n:]*?)( : )", text)))
    if not m:
        return text
    attrs = ", ".join(random_attribute(rng) for _ in range(rng.randint(1, 2)))
    return text[:m.end(1)] + " {" + attrs + "}" + text[m.end(1):]


def mut_tuple_index(rng: random.Random, text: str) -> str:
    """Change a tuple_get_item index, a result number %r#N, or a :N result count."""
    ms = list(re.finditer(r"(?<=\[)\d+(?=\])|(?<=#)\d+|(?<=:)\d+(?= =)", text))
    m = _pick(rng, ms)
    if not m:
        return text
    choices = [0, 1, 2, 3, 5, int(m.group(0)) + 1]
    if text[m.start() - 1] == "[":
        # Huge %r#N / %r:N make upstream MLIR's parser allocate N slots (out of memory
        # in mlir-opt too), so only the relax tuple index gets them.
        choices += [2**31, 2**32, 2**63 - 1]
    return _replace_span(text, m, str(rng.choice(choices)))


def mut_value_ref(rng: random.Random, text: str) -> str:
    """Make one use of a value refer to another value (defined or not)."""
    uses = [m for m in _VALUE_USE_RE.finditer(text)
            if not re.match(r"\s*(?::\d+)?\s*=", text[m.end():m.end() + 4])]
    m = _pick(rng, uses)
    if not m:
        return text
    names = sorted({u.group(0) for u in uses})
    new = rng.choice(names) if rng.random() < 0.9 else rng.choice(["%undefined", "%0#7", "%arg9"])
    return _replace_span(text, m, new)


def mut_type(rng: random.Random, text: str) -> str:
    """Replace one whole type by another type of the module, or wrap it in a tuple."""
    ms = list(re.finditer(r"(?:tensor|tuple)<", text))
    m = _pick(rng, ms)
    if not m:
        return text
    ty, end = read_type(text, m.start())
    others = sorted({read_type(text, o.start())[0] for o in ms})
    r = rng.random()
    if r < 0.5:
        new = rng.choice(others)
    elif r < 0.7:
        new = f"tuple<{ty}>" if rng.random() < 0.5 else f"tuple<{ty}, {rng.choice(others)}>"
    elif r < 0.8:
        new = "tuple<>"
    else:
        new = rng.choice(["tensor<*xf32>", "tensor<?xf32>", "tensor<3x?xf32>", "memref<3xf32>",
                          "vector<3xf32>", "f32", "i64", "none", "tensor<3xf32, #enc>",
                          "tensor<3xf32, 1 : i64>"])
    return text[:m.start()] + new + text[end:]


def mut_function(rng: random.Random, text: str) -> str:
    """Function-level edits: rename, make private, drop the body, add a declaration."""
    lines = text.splitlines()
    funcs = find_functions(lines)
    if not funcs:
        return text
    fn = rng.choice(funcs)
    r = rng.random()
    if r < 0.3:
        new = rng.choice(["main", "main_adjoint", funcs[0].name, funcs[0].name + "_adjoint"])
        lines[fn.start] = lines[fn.start].replace("@" + fn.name, "@" + new, 1)
    elif r < 0.5:
        lines[fn.start] = lines[fn.start].replace("func.func @", "func.func private @", 1)
    elif r < 0.7 and fn.end > fn.start:
        # Turn it into a declaration.
        header = lines[fn.start].rstrip()
        if header.endswith("{"):
            lines[fn.start] = header[:-1].rstrip().replace("func.func @", "func.func private @", 1)
            del lines[fn.start + 1:fn.end + 1]
    else:
        # A declaration of the adjoint (legal for the gradient pass when body-less),
        # with a random signature.
        params = ", ".join(ty for _, ty in fn.params)
        res = rng.choice(["", f" -> {rng.choice([ty for _, ty in fn.params] or ['tensor<f32>'])}",
                          f" -> tuple<tensor<f32>, tuple<{params}>>"])
        lines.append(f"func.func private @{fn.name}_adjoint({params}){res}")
    return "\n".join(lines) + "\n"


def mut_dataflow(rng: random.Random, text: str) -> str:
    """Unwrap a dataflow block (its ops become plain bindings) or nest/duplicate one."""
    lines = text.splitlines()
    starts = [i for i, l in enumerate(lines) if "relax.dataflow" in l and l.rstrip().endswith("{")]
    if not starts:
        return text
    i = rng.choice(starts)
    indent = len(lines[i]) - len(lines[i].lstrip())
    close = next((k for k in range(i + 1, len(lines)) if lines[k].rstrip() == " " * indent + "}"),
                 None)
    if close is None:
        return text
    out_line = lines[close - 1]
    m = re.match(r"\s*relax\.output\s+(.*?)\s*:", out_line)
    res = _DEF_RE.match(lines[i])
    if rng.random() < 0.6 and m and res:
        # Unwrap: inner ops stay, %r / %r#k uses are renamed to the output operands.
        outs = split_top(m.group(1))
        body = lines[i + 1:close - 1]
        fn_end = next((f.end for f in find_functions(lines) if f.start < i <= f.end), len(lines) - 1)
        rest = "\n".join(lines[close + 1:fn_end + 1])
        name = res.group(1)
        for k, o in enumerate(outs):
            rest = re.sub(re.escape(f"{name}#{k}") + r"\b", o, rest)
        rest = re.sub(re.escape(name) + r"(?![\w#])", outs[0] if outs else name, rest)
        return "\n".join(lines[:i] + body + [rest] + lines[fn_end + 1:]) + "\n"
    # Duplicate the whole block (two dataflow blocks in one function).
    block = lines[i:close + 1]
    return "\n".join(lines[:close + 1] + block + lines[close + 1:]) + "\n"


def mut_splice(rng: random.Random, text: str, seeds: list[tuple[str, str]]) -> str:
    """Append the functions of another seed (name clashes, calls, other shapes)."""
    other = rng.choice(seeds)[1]
    if rng.random() < 0.5:
        lines = other.splitlines()
        funcs = find_functions(lines)
        if funcs:
            fn = rng.choice(funcs)
            other = "\n".join(lines[fn.start:fn.end + 1])
    return text + other


def mut_bytes(rng: random.Random, text: str) -> str:
    """Byte-level havoc: flip, delete, duplicate, insert punctuation, truncate."""
    if not text:
        return text
    data = bytearray(text.encode())
    r = rng.random()
    i = rng.randrange(len(data))
    if r < 0.25:
        data[i] = rng.choice(b"{}()<>[]:,%#@\"=-x0123456789 \n")
    elif r < 0.45:
        del data[i:i + rng.randint(1, 16)]
    elif r < 0.6:
        j = min(len(data), i + rng.randint(1, 32))
        data[i:i] = data[i:j]
    elif r < 0.75:
        data.insert(i, rng.choice(b"{}()<>[]:,%#@\"=\\\x00\xff"))
    elif r < 0.85:
        data[i] ^= 1 << rng.randrange(8)
    else:
        del data[rng.randrange(len(data)):]
    return data.decode("utf-8", errors="replace")


# --- inserting new ops -------------------------------------------------------

def _float_like(elt: str) -> bool:
    return elt in FLOAT_TYPES


def make_op(rng: random.Random, vals: dict[str, str], fresh: str) -> tuple[list[str], str | None]:
    """Build one to three new op lines using the visible values; return (lines, result type)."""
    tensors = {v: parse_tensor(t) for v, t in vals.items() if parse_tensor(t)}
    tuples = {v: t for v, t in vals.items() if t.startswith("tuple<")}
    if not tensors:
        ty = tensor([rng.choice(SMALL_DIMS) for _ in range(rng.randint(0, 3))], rng.choice(FLOAT_TYPES))
        return [f"{fresh} = relax.{rng.choice(FILL_OPS)} : {ty}"], ty
    # Prefer recent values (vals is in definition order): longer chains of dependent ops.
    order = list(tensors)
    v = rng.choice(order[-3:]) if rng.random() < 0.7 else rng.choice(order)
    dims, elt = tensors[v]
    ty = tensor(dims, elt)
    kind = rng.choice(["unary", "unary", "binary", "binary", "compare", "reduce", "reduce",
                       "permute", "reshape", "broadcast", "collapse", "matmul", "where", "tuple",
                       "tuple_get", "marker", "fill", "const", "foreign"])
    if kind == "unary":
        ops = UNARY_OPS if _float_like(elt) or rng.random() < 0.1 else \
            ["negative", "relu", "abs", "square"]
        return [f"{fresh} = relax.{rng.choice(ops)} {v} : {ty}"], ty
    if kind in ("binary", "compare"):
        same = [t for t in tensors if tensors[t][1] == elt]
        w = rng.choice(same if rng.random() < 0.9 else sorted(tensors))
        wd, we = tensors[w]
        out = broadcast(dims, wd) or dims
        relt = "i1" if kind == "compare" else elt
        op = rng.choice(COMPARE_OPS if kind == "compare" else BINARY_OPS)
        return [f"{fresh} = relax.{op} {v}, {w} : {ty}, {tensor(wd, we)} -> {tensor(out, relt)}"], \
            tensor(out, relt)
    if kind == "reduce":
        op = rng.choice(REDUCTION_OPS) if _float_like(elt) or rng.random() < 0.1 else "sum"
        if not dims or rng.random() < 0.2:
            return [f"{fresh} = relax.{op} {v} : {ty} -> {tensor([], elt)}"], tensor([], elt)
        axes = sorted(set(rng.sample(range(len(dims)), rng.randint(1, len(dims)))))
        keep = rng.random() < 0.5
        out = [1 if i in axes else d for i, d in enumerate(dims)] if keep else \
            [d for i, d in enumerate(dims) if i not in axes]
        shown = [a - len(dims) if rng.random() < 0.3 else a for a in axes]
        attr = f"axis = array<i64: {', '.join(map(str, shown))}>" + (", keepdims = true" if keep else "")
        return [f"{fresh} = relax.{op} {v} {{{attr}}} : {ty} -> {tensor(out, elt)}"], tensor(out, elt)
    if kind == "permute":
        perm = list(range(len(dims)))
        rng.shuffle(perm)
        out = [dims[p] for p in perm]
        attr = f" {{axes = array<i64: {', '.join(map(str, perm))}>}}" if perm and rng.random() < 0.7 else ""
        if not attr:
            out = dims[::-1]
        return [f"{fresh} = relax.permute_dims {v}{attr} : {ty} -> {tensor(out, elt)}"], tensor(out, elt)
    if kind == "reshape":
        n = 1
        for d in dims:
            n *= d
        out = rng.choice([[n], [1, n], [n, 1], [], dims[::-1], dims + [1]])
        return [f"{fresh} = relax.reshape {v} : {ty} -> {tensor(out, elt)}"], tensor(out, elt)
    if kind == "broadcast":
        out = [rng.choice([1, 2, 3])] + [d if d != 1 else rng.choice([1, 4]) for d in dims]
        return [f"{fresh} = relax.broadcast_to {v} : {ty} -> {tensor(out, elt)}"], tensor(out, elt)
    if kind == "collapse":
        out = [rng.choice([1, d]) for d in dims[rng.randint(0, len(dims)):]]
        return [f"{fresh} = relax.collapse_sum_to {v} : {ty} -> {tensor(out, elt)}"], tensor(out, elt)
    if kind == "matmul":
        k = dims[-1] if dims else 1
        n = rng.choice([1, 2, 3])
        wt = tensor([k, n], elt) if dims else tensor([1], elt)
        out = (dims[:-1] + [n]) if dims else [1]
        if len(dims) == 1:
            out = [n]
        lines = [f"{fresh}w = relax.ones : {wt}"]
        if not dims:
            return lines + [f"{fresh} = relax.matmul {fresh}w, {fresh}w : {wt}, {wt} -> {tensor([], elt)}"], \
                tensor([], elt)
        return lines + [f"{fresh} = relax.matmul {v}, {fresh}w : {ty}, {wt} -> {tensor(out, elt)}"], \
            tensor(out, elt)
    if kind == "where":
        return [f"{fresh}c = relax.greater {v}, {v} : {ty}, {ty} -> {tensor(dims, 'i1')}",
                f"{fresh} = relax.where {fresh}c, {v}, {v} : {tensor(dims, 'i1')}, {ty}, {ty} -> {ty}"], ty
    if kind == "tuple":
        fields = [v] + rng.sample(sorted(vals), min(len(vals), rng.randint(0, 2)))
        ftys = [vals[f] for f in fields]
        return [f"{fresh} = relax.tuple({', '.join(fields)} : {', '.join(ftys)})"], \
            f"tuple<{', '.join(ftys)}>"
    if kind == "tuple_get" and tuples:
        t = rng.choice(sorted(tuples))
        fields = tuple_fields(tuples[t])
        if fields:
            i = rng.randrange(len(fields))
            return [f"{fresh} = relax.tuple_get_item {t}[{i}] : {tuples[t]}"], fields[i]
    if kind == "marker":
        return [f"{fresh} = relax.{rng.choice(MARKER_OPS)} {v} : {ty}"], ty
    if kind == "fill":
        return [f"{fresh} = relax.{rng.choice(FILL_OPS)} : {ty}"], ty
    if kind == "const":
        lit = "1.500000e+00" if _float_like(elt) else ("true" if elt == "i1" else "3")
        return [f"{fresh} = arith.constant dense<{lit}> : {ty}"], ty
    # An op of another dialect: no gradient rule, no relax lowering.
    if _float_like(elt):
        return [f"{fresh} = arith.addf {v}, {v} : {ty}"], ty
    return [f"{fresh} = tensor.empty() : {ty}"], ty


def mut_insert_op(rng: random.Random, text: str) -> str:
    """Insert a well-typed (mostly) new op and sometimes route a later use through it."""
    lines = text.splitlines()
    funcs = [f for f in find_functions(lines) if f.end > f.start + 1]
    if not funcs:
        return text
    fn = rng.choice(funcs)
    at = rng.randint(fn.start + 1, fn.end)
    while at > fn.start + 1 and re.match(r"\s*(relax\.output|return)\b", lines[at - 1]):
        at -= 1   # not after a terminator
    vals = visible_values(lines, fn, at)
    fresh = f"%fz{rng.randrange(1000)}"
    new, rty = make_op(rng, vals, fresh)
    indent = re.match(r"\s*", lines[at]).group(0) if at < len(lines) else "  "
    lines[at:at] = [indent + l for l in new]
    # Replace one later use of a value of the same type by the new value.
    if rty and rng.random() < 0.7:
        later = [(k, m) for k in range(at + len(new), fn.end + len(new))
                 for m in _VALUE_USE_RE.finditer(lines[k])
                 if vals.get(m.group(0)) == rty and not _DEF_RE.match(lines[k][:m.end() + 4])]
        if later:
            k, m = rng.choice(later)
            lines[k] = lines[k][:m.start()] + fresh + lines[k][m.end():]
    return "\n".join(lines) + "\n"


MUTATIONS: list[tuple[float, Callable[[random.Random, str], str]]] = [
    (3, mut_dim), (2, mut_dim_global), (1, mut_constant), (2, mut_number), (2, mut_int_list), (2, mut_element_type),
    (3, mut_op_name), (2, mut_lines), (2, mut_attributes), (1, mut_tuple_index),
    (2, mut_value_ref), (1, mut_type), (1, mut_function), (1, mut_dataflow),
    (4, mut_insert_op), (1, mut_bytes),
]


def random_tensor_type(rng: random.Random, elt: str) -> str:
    return tensor([rng.choice([1, 2, 3, 4]) for _ in range(rng.choice([0, 1, 1, 2, 2, 2, 3]))], elt)


def generate_program(rng: random.Random) -> str:
    """A fresh random function @main: a chain of relax ops ending in a scalar loss.

    Mostly well typed, so it gets past the parser into the passes (the gradient
    pass in particular). Parameters may be tuples; the body is usually one
    dataflow block, sometimes plain bindings; tuple glue may sit outside the
    block; a checkpoint segment may mark part of the chain; a helper function
    may be called.
    """
    params: list[tuple[str, str]] = []
    elt = rng.choice(["f32"] * 6 + FLOAT_TYPES)   # one float type per program, mostly
    for i in range(rng.randint(1, 3)):
        pelt = elt if rng.random() < 0.85 else rng.choice(INT_TYPES + FLOAT_TYPES)
        ty = random_tensor_type(rng, pelt)
        if rng.random() < 0.15:
            ty = f"tuple<{ty}, {random_tensor_type(rng, elt)}>"
        params.append((f"%p{i}", ty))
    if rng.random() < 0.08:
        # A parameter relax ops cannot take (dynamic shape, unsupported element type).
        params.append(("%odd", rng.choice(["tensor<?xf32>", "tensor<2x?xf64>", "tensor<*xf32>",
                                           "tensor<3xf8E4M3FN>", "tensor<2xtf32>", "tensor<2xf80>",
                                           "tensor<3xi8>", "tuple<tensor<?xf32>>", "f32",
                                           "tensor<f80>", "tensor<tf32>", "tensor<?xf32>"])))
    vals = dict(params)

    def latest_tensor() -> str | None:
        ts = [v for v, t in vals.items() if parse_tensor(t)]
        return ts[-1] if ts else None

    # Tuple glue outside the dataflow block.
    glue: list[str] = []
    if rng.random() < 0.15:
        fields = [v for v, _ in params]
        tys = [vals[v] for v in fields]
        glue.append(f"%g = relax.tuple({', '.join(fields)} : {', '.join(tys)})")
        k = rng.randrange(len(fields))
        glue.append(f"%gi = relax.tuple_get_item %g[{k}] : tuple<{', '.join(tys)}>")
        vals["%g"] = f"tuple<{', '.join(tys)}>"
        vals["%gi"] = tys[k]

    helper: list[str] = []
    body: list[str] = []
    open_checkpoint = False
    for n in range(rng.randint(1, 8)):
        r, last = rng.random(), latest_tensor()
        if last and r < 0.1 and not open_checkpoint:
            body.append(f"%v{n} = relax.start_checkpoint {last} : {vals[last]}")
            vals[f"%v{n}"], open_checkpoint = vals[last], True
            continue
        if last and r < 0.2 and open_checkpoint:
            body.append(f"%v{n} = relax.end_checkpoint {last} : {vals[last]}")
            vals[f"%v{n}"], open_checkpoint = vals[last], False
            continue
        if last and r < 0.25 and not helper:
            ty = vals[last]
            helper = [f"func.func @helper(%h: {ty}) -> {ty} {{",
                      f"  %0 = relax.{rng.choice(['negative', 'relu'])} %h : {ty}",
                      f"  return %0 : {ty}", "}", ""]
            body.append(f"%v{n} = func.call @helper({last}) : ({ty}) -> {ty}")
            vals[f"%v{n}"] = ty
            continue
        new, rty = make_op(rng, vals, f"%v{n}")
        if any("arith.addf" in l or "tensor.empty" in l for l in new) and rng.random() < 0.8:
            continue
        body += new
        if rty:
            vals[f"%v{n}"] = rty
    if open_checkpoint and rng.random() < 0.8:
        last = latest_tensor()
        body.append(f"%vend = relax.end_checkpoint {last} : {vals[last]}")
        vals["%vend"] = vals[last]
    floats = [v for v, t in vals.items() if (parse_tensor(t) or ([], ""))[1] in FLOAT_TYPES]
    target = rng.choice(floats[-3:]) if floats else None
    if target:
        dims, elt = parse_tensor(vals[target])
        body.append(f"%loss = relax.{rng.choice(REDUCTION_OPS)} {target} : {vals[target]} -> tensor<{elt}>")
        results = [("%loss", f"tensor<{elt}>")]
    else:
        v = rng.choice(sorted(vals))
        results = [(v, vals[v])]
    if "%odd" in vals and rng.random() < 0.3:
        results = [("%odd", vals["%odd"])]   # the unusual parameter is the target
    if rng.random() < 0.25:
        extra = rng.choice(sorted(vals))
        results.append((extra, vals[extra]))
    rtys = ", ".join(t for _, t in results)
    sig = ", ".join(f"{v}: {t}" for v, t in params)
    if len(results) > 1 and rng.random() < 0.8:
        # A tuple result built inside the block.
        tuple_ty = f"tuple<{rtys}>"
        body.append(f"%res = relax.tuple({', '.join(v for v, _ in results)} : {rtys})")
        results = [("%res", tuple_ty)]
        rtys = tuple_ty
    names = ", ".join(v for v, _ in results)
    lines = helper + [f"func.func @main({sig}) -> ({rtys}) {{"] + ["  " + l for l in glue]
    if rng.random() < 0.2:
        lines += ["  " + l for l in body] + [f"  return {names} : {rtys}", "}"]
    else:
        count = f":{len(results)}" if len(results) > 1 else ""
        lines.append(f"  %r{count} = relax.dataflow -> ({rtys}) {{")
        lines += ["    " + l for l in body]
        lines.append(f"    relax.output {names} : {rtys}")
        lines.append("  }")
        outs = ", ".join(f"%r#{i}" for i in range(len(results))) if count else "%r"
        lines += [f"  return {outs} : {rtys}", "}"]
    return "\n".join(lines) + "\n"


def mutate(rng: random.Random, seeds: list[tuple[str, str]]) -> tuple[str, str, list[str]]:
    """Pick a seed (or generate a program) and apply 0-4 stacked mutations.

    Returns (seed label, text, mutation names).
    """
    if rng.random() < 0.35:
        label, text = "generated", generate_program(rng)
        if rng.random() < 0.5:
            return label, text, []
    else:
        label, text = rng.choice(seeds)
    names = []
    count = 0 if rng.random() < 0.04 else rng.choice([1, 1, 1, 1, 2, 2, 3, 4])
    weights = [w for w, _ in MUTATIONS]
    for _ in range(count):
        if rng.random() < 0.03:
            text, name = mut_splice(rng, text, seeds), "mut_splice"
        else:
            fn = rng.choices([f for _, f in MUTATIONS], weights)[0]
            text, name = fn(rng, text), fn.__name__
        names.append(name)
    return label, text, names


# ----------------------------------------------------------------------------
# Pass setups
# ----------------------------------------------------------------------------

def gradient_option(rng: random.Random, text: str) -> str:
    """A --gradient=... option with a random (sometimes invalid) func / require-grads / target-index."""
    funcs = find_functions(text.splitlines())
    opts = []
    fn = rng.choice(funcs) if funcs else None
    if fn and rng.random() < 0.9:
        opts.append(f"func={fn.name}")
    elif rng.random() < 0.5:
        opts.append("func=" + rng.choice(["main", "nope", "main_adjoint", ""]))
    nparams = len(fn.params) if fn else 2
    if rng.random() < 0.35:
        pool = list(range(nparams)) or [0]
        if rng.random() < 0.2:
            pool += [-1, nparams, nparams + 1, 2**31, 2**63 - 1]
        grads = [rng.choice(pool) for _ in range(rng.randint(1, max(1, nparams + 1)))]
        if rng.random() < 0.7:
            grads = list(dict.fromkeys(grads))
        opts.append("require-grads=" + ",".join(map(str, grads)))
    if rng.random() < 0.15:
        opts.append(f"target-index={rng.choice([0, 0, 1, 2, 3, -1, 2**31])}")
    if rng.random() < 0.03:
        # Malformed option text (the option parser must reject it with a message).
        opts.append(rng.choice(["require-grads=a", "target-index=", "bogus=1", "require-grads=,",
                                "target-index=99999999999999999999", "func=\"main\""]))
    return "--gradient=" + " ".join(opts) if opts else "--gradient"


def gradient_twice(rng: random.Random, text: str) -> list[list[str]]:
    """Two gradient stages: usually the second differentiates the first's adjoint."""
    first = gradient_option(rng, text)
    m = re.search(r"func=(\S*)", first)
    fn = (m.group(1) if m else "main") + ("_adjoint" if rng.random() < 0.8 else "")
    return [[first], [f"--gradient=func={fn}"]]


def choose_setup(rng: random.Random, text: str) -> tuple[str, list[list[str]]]:
    """Return (setup name, stages): each stage is one relax-opt run's pass arguments.

    A chain of passes runs as separate relax-opt runs, each on the (re-verified)
    output of the one before, so a finding is always a pass run on valid IR.
    """
    setups: list[tuple[float, str, Callable[[], list[list[str]]]]] = [
        (2, "parse", lambda: [[] if rng.random() < 0.7 else ["--mlir-print-op-generic"]]),
        (5, "gradient", lambda: [[gradient_option(rng, text)]]),
        (3, "convert-relax-to-linalg", lambda: [["--convert-relax-to-linalg"]]),
        (3, "relax-to-llvm", lambda: [["--relax-to-llvm"]]),
        (2, "relax-flatten-tuples", lambda: [["--relax-flatten-tuples"]]),
        (2, "relax-convert-to-dataflow", lambda: [["--relax-convert-to-dataflow"]]),
        (2, "relax-memory-report", lambda: [["--relax-memory-report" + rng.choice(
            ["", "", "=func=main", "=func=nope"])]]),
        (2, "canonicalize", lambda: [["--canonicalize"]]),
        (1, "dataflow+gradient", lambda: [["--relax-convert-to-dataflow"], [gradient_option(rng, text)]]),
        (2, "gradient+relax-to-llvm", lambda: [[gradient_option(rng, text)], ["--relax-to-llvm"]]),
        (1, "gradient+canonicalize", lambda: [[gradient_option(rng, text)], ["--canonicalize"]]),
        (1, "gradient+gradient", lambda: gradient_twice(rng, text)),
    ]
    _, name, make = rng.choices(setups, [w for w, _, _ in setups])[0]
    stages = make()
    if name != "parse" and rng.random() < 0.1:
        stages[-1].append("--mlir-print-op-generic")   # the re-parse reads the generic form
    return name, stages


def stage_name(args: list[str]) -> str:
    """'--gradient=func=main' -> 'gradient'; no pass (printing flags only) -> 'parse'."""
    return "+".join(a.lstrip("-").split("=")[0] for a in args if not a.startswith("--mlir-")) \
        or "parse"


# ----------------------------------------------------------------------------
# Running relax-opt and classifying the outcome
# ----------------------------------------------------------------------------

@dataclasses.dataclass
class Outcome:
    cls: str
    signature: str = ""
    stderr: str = ""
    output: str = ""          # the pass output, for invalid-ir
    reparse_stderr: str = ""
    stage: int = 0            # which stage of a pass chain it came from
    stage_input: str | None = None   # that stage's input, when not the original


def run_tool(cmd: list[str], timeout: float, stdin: str | None = None) -> tuple[int | None, str, str]:
    """Run cmd; return (returncode or None on timeout, stdout, stderr).

    On timeout the process gets SIGABRT first so LLVM prints where it was stuck.
    """
    for attempt in range(60):
        try:
            proc = subprocess.Popen(cmd, stdin=subprocess.PIPE if stdin is not None else subprocess.DEVNULL,
                                    stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                    text=True, errors="replace")
            break
        except OSError:
            # relax-opt is being relinked (missing, not executable or busy): wait for it.
            if attempt == 59:
                raise
            time.sleep(2)
    try:
        out, err = proc.communicate(stdin, timeout=timeout)
        return proc.returncode, out, err
    except subprocess.TimeoutExpired:
        proc.send_signal(signal.SIGABRT)
        try:
            out, err = proc.communicate(timeout=15)
        except subprocess.TimeoutExpired:
            proc.kill()
            out, err = proc.communicate()
        return None, out or "", err or ""


_FRAME_RE = re.compile(r"^\s*#\d+ 0x[0-9a-f]+ (.*?)(?: \(/[^()]*\+0x[0-9a-f]+\)| \S+:\d+(?::\d+)?)?$")
_SKIP_FRAMES = re.compile(r"llvm::sys::|SignalHandler|__restore_rt|^\(/lib/|libc\.so|"
                          r"raise$|abort$|pthread_kill|__GI_|llvm::report_fatal_error|"
                          r"llvm::llvm_unreachable_internal|__assert_fail|__cxa_|std::terminate|"
                          r"__gnu_cxx::__verbose_terminate")


def strip_args(fn: str) -> str:
    """'ns::f(int, char) const' -> 'ns::f' (keeps '(anonymous namespace)')."""
    fn = fn.replace("(anonymous namespace)", "<anon>")
    depth, cut = 0, len(fn)
    for i in range(len(fn) - 1, -1, -1):
        if fn[i] == ")":
            depth += 1
        elif fn[i] == "(":
            depth -= 1
            if depth == 0:
                cut = i
                break
    return fn[:cut].strip() if cut < len(fn) else fn.strip()


def stack_signature(stderr: str, frames: int = 3) -> str:
    """The top `frames` meaningful function names of an LLVM stack dump ('' if none)."""
    names = []
    for line in stderr.splitlines():
        m = _FRAME_RE.match(line)
        if not m:
            continue
        name = m.group(1).strip()
        if not name or name.startswith("(/") or _SKIP_FRAMES.search(name):
            continue
        names.append(strip_args(name)[:100])
        if len(names) == frames:
            break
    return " <- ".join(names)


def normalise_message(line: str) -> str:
    """An error line without its location, value names and numbers, for deduplication."""
    line = re.sub(r"^.*?(error|warning|note):\s*", "", line.strip())
    line = re.sub(r"%[\w#.$-]+", "%V", line)
    line = re.sub(r"@[\w$.-]+", "@F", line)
    line = re.sub(r"\d+", "N", line)
    return line[:200]


def first_error(stderr: str) -> str:
    for line in stderr.splitlines():
        if "error:" in line:
            return line.strip()
    return stderr.strip().splitlines()[0] if stderr.strip() else ""


def is_crash(rc: int | None, stderr: str) -> bool:
    return (rc is not None and rc < 0) or "Stack dump:" in stderr or \
        "PLEASE submit a bug report" in stderr or "LLVM ERROR:" in stderr or \
        "Assertion `" in stderr or (rc is not None and rc >= 128)


def crash_signature(setup: str, rc: int | None, stderr: str) -> str:
    fatal = re.search(r"LLVM ERROR: (.*)", stderr) or re.search(r"Assertion `(.*)' failed", stderr)
    frames = stack_signature(stderr)
    head = normalise_message(fatal.group(1)) if fatal else (f"signal {-rc}" if rc and rc < 0 else "")
    return " | ".join(p for p in (head, frames or setup) if p)


def classify_stage(relax_opt: str, input_path: str, args: list[str], timeout: float,
                   stdin: str | None = None) -> tuple[Outcome, str]:
    """Run one relax-opt stage (input_path, or '-' with stdin) and classify it.

    Returns (outcome, printed IR). The pass runs with --verify-each=false and
    its output is fed back to relax-opt without a pass: a pass that reports
    success must print IR that parses and verifies. Without a pass this checks
    that what relax-opt prints (custom or generic form) parses back.
    """
    name = stage_name(args)
    cmd = [relax_opt, input_path, *args, "--verify-each=false"]
    rc, out, err = run_tool(cmd, timeout, stdin=stdin)
    if rc is None:
        return Outcome("hang", f"hang | {name} | " + stack_signature(err, 4), err), out
    if is_crash(rc, err):
        return Outcome("crash", crash_signature(name, rc, err), err), out
    if rc != 0:
        if "error:" in err:
            return Outcome("rejected", stderr=err), out
        return Outcome("no-diagnostic", f"no-diagnostic | {name} | rc={rc} | "
                       + normalise_message(err.strip().splitlines()[0] if err.strip() else ""), err), out
    rc2, _, err2 = run_tool([relax_opt, "-"], timeout, stdin=out)
    if rc2 is None:
        return Outcome("hang", f"hang (re-parse) | {name} | " + stack_signature(err2, 4), err, out, err2), out
    if is_crash(rc2, err2):
        return Outcome("crash", "re-parse | " + crash_signature(name, rc2, err2), err, out, err2), out
    if rc2 != 0:
        return Outcome("invalid-ir", f"{name} | " + normalise_message(first_error(err2)),
                       err, out, err2), out
    return Outcome("accepted", stderr=err), out


def classify(relax_opt: str, input_path: str, stages: list[list[str]], timeout: float) -> Outcome:
    """Run the stages one after the other (each on the last one's output) and classify."""
    text = None
    for i, args in enumerate(stages):
        outcome, out = classify_stage(relax_opt, input_path if i == 0 else "-", args, timeout, text)
        if outcome.cls != "accepted" or i == len(stages) - 1:
            outcome.stage, outcome.stage_input = i, text
            return outcome
        text = out
    raise AssertionError("no stages")


# ----------------------------------------------------------------------------
# Findings
# ----------------------------------------------------------------------------

class FindingStore:
    """Saves one folder per (class, signature), keeping the smallest input."""

    def __init__(self, out_dir: Path):
        self.out_dir = out_dir
        self.lock = threading.Lock()
        self.seen: dict[str, dict] = {}   # folder name -> record

    @staticmethod
    def folder_name(cls: str, signature: str) -> str:
        return f"{cls}-{hashlib.sha1(signature.encode()).hexdigest()[:8]}"

    def add(self, outcome: Outcome, text: str, stages: list[list[str]], setup: str,
            seed_label: str, mutations: list[str]) -> bool:
        """Record a finding; return True when its signature is new in this run.

        The saved input is what the failing relax-opt run read: the mutant, or
        for a later stage of a pass chain, the IR the stage before printed.
        """
        name = self.folder_name(outcome.cls, outcome.signature)
        failing = outcome.stage_input if outcome.stage_input is not None else text
        args = stages[outcome.stage]
        with self.lock:
            rec = self.seen.get(name)
            new = rec is None
            if new:
                rec = self.seen[name] = {"class": outcome.cls, "signature": outcome.signature,
                                         "count": 0, "size": None}
            rec["count"] += 1
            folder = self.out_dir / name
            old_size = rec["size"]
            if old_size is None and (folder / "input.mlir").exists():
                old_size = len((folder / "input.mlir").read_text())
            if old_size is not None and old_size <= len(failing):
                rec["size"] = old_size
                self._write_meta(folder, rec)
                return new
            rec["size"] = len(failing)
            rec["args"] = args
            folder.mkdir(parents=True, exist_ok=True)
            (folder / "input.mlir").write_text(failing)
            args_q = " ".join(shlex.quote(a) for a in args)
            chain = " | ".join("relax-opt " + ("-" if i else "original.mlir") + " "
                               + " ".join(shlex.quote(a) for a in st) for i, st in enumerate(stages))
            (folder / "command.sh").write_text(
                "#!/bin/sh\n# " + outcome.cls + ": " + outcome.signature + "\n"
                f"# seed {seed_label}, mutations {' '.join(mutations) or '-'}, setup {setup}"
                + (f" (stage {outcome.stage + 1} of: {chain})" if outcome.stage_input is not None else "")
                + "\n"
                f"relax-opt \"$(dirname \"$0\")/input.mlir\" {args_q} --verify-each=false"
                + (" | relax-opt -" if outcome.cls == "invalid-ir" else "") + "\n")
            if outcome.stage_input is not None:
                (folder / "original.mlir").write_text(text)
            (folder / "stderr.txt").write_text(outcome.stderr)
            if outcome.output and outcome.cls == "invalid-ir":
                (folder / "output.mlir").write_text(outcome.output)
                (folder / "reparse-stderr.txt").write_text(outcome.reparse_stderr)
            self._write_meta(folder, rec)
            return new

    @staticmethod
    def _write_meta(folder: Path, rec: dict) -> None:
        folder.mkdir(parents=True, exist_ok=True)
        (folder / "finding.json").write_text(json.dumps(rec, indent=2) + "\n")


# ----------------------------------------------------------------------------
# The fuzzing loop
# ----------------------------------------------------------------------------

@dataclasses.dataclass
class Stats:
    counts: dict[str, int] = dataclasses.field(default_factory=lambda: {c: 0 for c in ALL_CLASSES})
    per_setup: dict[str, dict[str, int]] = dataclasses.field(default_factory=dict)
    runs: int = 0


def one_run(index: int, args: argparse.Namespace, seeds: list[tuple[str, str]], workdir: Path,
            store: FindingStore) -> tuple[str, str, bool, str]:
    """Generate mutant `index`, run it, record it; return (class, setup, new finding, signature)."""
    rng = random.Random(f"{args.seed}:{index}")
    label, text, mutations = mutate(rng, seeds)
    setup, stages = choose_setup(rng, text)
    path = workdir / f"mutant-{index}.mlir"
    path.write_text(text)
    try:
        outcome = classify(args.relax_opt, str(path), stages, args.timeout)
    finally:
        path.unlink(missing_ok=True)
    if args.log:
        with store.lock, open(args.log, "a") as log:
            log.write(json.dumps({"index": index, "seed": label, "mutations": mutations,
                                  "setup": setup, "stages": stages, "class": outcome.cls,
                                  "error": first_error(outcome.stderr)}) + "\n")
    new = False
    if outcome.cls in FINDING_CLASSES:
        new = store.add(outcome, text, stages, setup, label, mutations)
    return outcome.cls, setup, new, outcome.signature


def fuzz(args: argparse.Namespace) -> int:
    seeds = load_seeds(args.corpus)
    if not seeds:
        print(f"no seeds under {args.corpus}", file=sys.stderr)
        return 2
    store = FindingStore(args.out)
    stats = Stats()
    start = time.monotonic()
    deadline = start + args.duration if args.duration else None

    def indices() -> Iterator[int]:
        i = 0
        while (args.runs is None or i < args.runs) and (deadline is None or time.monotonic() < deadline):
            yield i
            i += 1

    print(f"relax_fuzz: {len(seeds)} seeds, seed={args.seed}, jobs={args.jobs}, "
          f"timeout={args.timeout}s, findings -> {args.out}", flush=True)
    with tempfile.TemporaryDirectory(prefix="relax-fuzz-") as tmp, \
            concurrent.futures.ThreadPoolExecutor(args.jobs) as pool:
        pending: set[concurrent.futures.Future] = set()
        it = indices()
        exhausted = False
        last_report = start
        while True:
            while not exhausted and len(pending) < 2 * args.jobs:
                try:
                    i = next(it)
                except StopIteration:
                    exhausted = True
                    break
                pending.add(pool.submit(one_run, i, args, seeds, Path(tmp), store))
            if not pending:
                break
            done, pending = concurrent.futures.wait(pending, return_when=concurrent.futures.FIRST_COMPLETED)
            for fut in done:
                cls, setup, new, sig = fut.result()
                stats.runs += 1
                stats.counts[cls] += 1
                stats.per_setup.setdefault(setup, {c: 0 for c in ALL_CLASSES})[cls] += 1
                if new:
                    print(f"  new {cls}: {sig}", flush=True)
            now = time.monotonic()
            if args.verbose and now - last_report > 30:
                last_report = now
                print(f"  {stats.runs} runs, {stats.runs / (now - start):.1f} runs/s", flush=True)
    elapsed = time.monotonic() - start
    print_summary(stats, store, elapsed)
    if args.json:
        args.json.write_text(json.dumps({
            "runs": stats.runs, "seconds": round(elapsed, 2), "counts": stats.counts,
            "per_setup": stats.per_setup, "findings": list(store.seen.values())}, indent=2) + "\n")
    return 1 if any(stats.counts[c] for c in FINDING_CLASSES) else 0


def print_summary(stats: Stats, store: FindingStore, elapsed: float) -> None:
    cols = list(ALL_CLASSES)
    width = max([len("setup")] + [len(s) for s in stats.per_setup]) + 2
    print()
    print("setup".ljust(width) + "".join(c.rjust(14) for c in cols))
    for setup in sorted(stats.per_setup):
        row = stats.per_setup[setup]
        print(setup.ljust(width) + "".join(str(row[c]).rjust(14) for c in cols))
    print("total".ljust(width) + "".join(str(stats.counts[c]).rjust(14) for c in cols))
    print(f"\n{stats.runs} runs in {elapsed:.1f} s: {stats.runs / max(elapsed, 1e-9):.1f} runs/s")
    if store.seen:
        print(f"\n{len(store.seen)} distinct findings in {store.out_dir}:")
        for name, rec in sorted(store.seen.items()):
            print(f"  {name}  x{rec['count']}  {rec['signature']}")
    else:
        print("no findings")


# ----------------------------------------------------------------------------
# Reducing a saved finding
# ----------------------------------------------------------------------------

def reduce_finding(args: argparse.Namespace) -> int:
    """Greedy line-based reduction of DIR/input.mlir that keeps its class and signature."""
    folder = args.reduce
    rec = json.loads((folder / "finding.json").read_text())
    pass_args = rec.get("args", [])
    lines = (folder / "input.mlir").read_text().splitlines()

    def same(candidate: list[str]) -> bool:
        with tempfile.NamedTemporaryFile("w", suffix=".mlir", delete=False) as f:
            f.write("\n".join(candidate) + "\n")
        try:
            o = classify(args.relax_opt, f.name, [pass_args], args.timeout)
        finally:
            os.unlink(f.name)
        return o.cls == rec["class"] and o.signature == rec["signature"]

    if not same(lines):
        print("the saved input does not reproduce its signature", file=sys.stderr)
        return 1
    chunk = max(1, len(lines) // 2)
    while chunk >= 1:
        i = 0
        while i < len(lines):
            candidate = lines[:i] + lines[i + chunk:]
            if candidate and same(candidate):
                lines = candidate
            else:
                i += chunk
        chunk //= 2
    (folder / "reduced.mlir").write_text("\n".join(lines) + "\n")
    print("\n".join(lines))
    return 0


# ----------------------------------------------------------------------------

def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--relax-opt", default=str(ROOT / "build/bin/relax-opt"))
    p.add_argument("--corpus", type=Path, default=ROOT / "test")
    p.add_argument("--out", type=Path, default=ROOT / "build/fuzz-findings")
    p.add_argument("--duration", type=float, help="total seconds (default 60 without --runs)")
    p.add_argument("--runs", type=int, help="number of runs")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--jobs", type=int, default=2)
    p.add_argument("--timeout", type=float, default=10.0, help="seconds per relax-opt run")
    p.add_argument("--mem-limit-mb", type=int, default=8192,
                   help="address-space limit of each relax-opt run (0: none)")
    p.add_argument("--reduce", type=Path, metavar="DIR", help="reduce a saved finding and exit")
    p.add_argument("--json", type=Path, help="write the summary (counts, findings) to this file")
    p.add_argument("--log", type=Path, help="append one JSON line per run to this file")
    p.add_argument("-v", "--verbose", action="store_true")
    args = p.parse_args(argv)
    if args.duration is None and args.runs is None:
        args.duration = 60.0
    if not os.access(args.relax_opt, os.X_OK):
        print(f"relax-opt not found at {args.relax_opt} (build first)", file=sys.stderr)
        return 2
    # Inherited by every relax-opt: no core files, bounded memory.
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
    if args.mem_limit_mb:
        limit = args.mem_limit_mb * 2**20
        resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
    if args.reduce:
        return reduce_finding(args)
    return fuzz(args)


if __name__ == "__main__":
    sys.exit(main())
