"""Text nested deeper than MLIR's recursive parser can take (issue 32, item 8).

A 300,000-deep `tuple<...>` type killed `relax_mlir.compile` (and relax-opt)
with a stack overflow in the parser. Text nested past 1000 levels is now a
RelaxMLIRError naming the line and column, before anything is parsed.
"""

from __future__ import annotations

import subprocess
import sys
import textwrap

import pytest
from relax_mlir._module import as_module


def deep_text(depth: int) -> str:
    return "func.func private @f(%a: " + "tuple<" * depth + "f32" + ">" * depth + ")\n"


def test_deeply_nested_text_is_an_error_not_a_crash() -> None:
    # In a child process: the old code died with SIGSEGV.
    code = textwrap.dedent("""
        import relax_mlir
        text = "func.func private @f(%a: " + "tuple<" * 300000 + "f32" + ">" * 300000 + ")"
        for fn in (relax_mlir.compile, relax_mlir.gradient):
            try:
                fn(text)
            except relax_mlir.RelaxMLIRError as e:
                print(type(e).__name__, str(e).splitlines()[-1])
    """)
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr[-2000:]
    lines = proc.stdout.splitlines()
    assert len(lines) == 2
    for line in lines:
        assert line.startswith("RelaxMLIRError line 1, column 6025: the text nests deeper than "
                               "1000 levels"), line


def test_nesting_within_the_limit_parses() -> None:
    module = as_module(deep_text(900) + "// " + "(" * 5000)
    assert "tuple<tuple<" in str(module)


@pytest.mark.parametrize("text", ['func.func private @f() attributes {s = "' + "<" * 2000 + '"}',
                                  "// " + "[" * 2000 + "\nfunc.func private @f()",
                                  "func.func private @f() -> i1 attributes {a = " + "[" * 900 +
                                  "1" + "]" * 900 + ", s = affine_set<(d0) : (d0 >= 0)>}"])
def test_brackets_in_strings_and_comments_do_not_count(text: str) -> None:
    as_module(text)
