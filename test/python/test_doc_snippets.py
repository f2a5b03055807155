"""Every Python snippet of the README and docs/ runs as written.

A file's ```python blocks run in order in one namespace, in a fresh working
directory. Markers in the Markdown (HTML comments on the line before a
block): `<!-- file: NAME -->` before any block writes it to NAME first (the
IR that a snippet reads); `<!-- not run: REASON -->` before a Python block
leaves it out (an excerpt of source, not a program). A block that shows the
error it raises (a comment line `# relax_mlir.SomeError: message`) must raise
that error with that message.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
import relax_mlir

ROOT = Path(__file__).resolve().parents[2]
DOCS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
BLOCK = re.compile(r"(?:<!-- (?P<marker>[a-z ]+): (?P<value>[^>]*?) -->\n)?"
                   r"```(?P<lang>[\w-]*)\n(?P<body>.*?)^```", re.S | re.M)
RAISES = re.compile(r"^# relax_mlir\.(\w+): (?:\S+:\d+:\d+: )?(.*)$", re.M)


def blocks(path: Path) -> list[re.Match[str]]:
    return list(BLOCK.finditer(path.read_text()))


def has_python(path: Path) -> bool:
    return any(b["lang"] == "python" for b in blocks(path))


@pytest.fixture
def restored_config():
    """The settings restored after a snippet; the snippets run with the
    defaults a user has (float64 canonicalized: enable_x64 off)."""
    names = ("log_compiles", "enable_compilation_cache", "enable_x64")
    saved = {n: getattr(relax_mlir.config, n) for n in names}
    relax_mlir.config.update("enable_x64", False)
    yield
    for name, value in saved.items():
        relax_mlir.config.update(name, value)


@pytest.mark.parametrize("path", [p for p in DOCS if has_python(p)],
                         ids=lambda p: str(p.relative_to(ROOT)))
def test_snippets_run_as_written(path, tmp_path, monkeypatch, restored_config, capsys) -> None:
    monkeypatch.chdir(tmp_path)
    namespace: dict[str, object] = {"__name__": "__snippet__"}
    ran = 0
    for i, block in enumerate(blocks(path)):
        if block["marker"] == "file":
            (tmp_path / block["value"]).write_text(block["body"])
        if block["lang"] != "python" or block["marker"] == "not run":
            continue
        where = f"{path.relative_to(ROOT)} block {i + 1}"
        code = compile(block["body"], where, "exec")
        expected = RAISES.search(block["body"])
        if expected is None:
            exec(code, namespace)
        else:
            error = getattr(relax_mlir, expected[1])
            with pytest.raises(error) as raised:
                exec(code, namespace)
            assert expected[2] in str(raised.value), (where, str(raised.value))
        ran += 1
    assert ran > 0 or "not run" in path.read_text()


def test_markers_name_what_they_mean() -> None:
    """A marker the runner does not know would silently do nothing."""
    for path in DOCS:
        for marker in re.findall(r"<!-- ([a-z ]+): ", path.read_text()):
            assert marker in ("file", "not run"), (path, marker)
