"""The demo trains both models well above chance with the frontend, passes its
own gradient check and writes its plot."""

import os

from relax_mlir import demo


def test_demo_learns_digits(tmp_path, capsys) -> None:
    plot = str(tmp_path / "plot.png")
    accuracy = demo.main(["--epochs", "3", "--plot", plot])
    out = capsys.readouterr().out
    assert accuracy["mlp"] > 0.85, f"MLP test accuracy {accuracy['mlp']} (chance: 0.1)"
    assert accuracy["cnn"] > 0.6, f"CNN test accuracy {accuracy['cnn']} (chance: 0.1)"
    assert out.count("gradient check") == 2 and "MISMATCH" not in out
    assert "us/step" in out and f"plot: {plot}" in out
    with open(plot, "rb") as f:
        assert f.read(8) == b"\x89PNG\r\n\x1a\n"
    assert os.path.getsize(plot) > 10_000


def test_demo_names_its_extra_when_a_dependency_is_missing(monkeypatch) -> None:
    import pytest

    monkeypatch.setattr(demo, "missing_packages", lambda: ["matplotlib"])
    with pytest.raises(SystemExit) as stopped:
        demo.main(["--epochs", "1"])
    message = str(stopped.value.code)
    assert "matplotlib" in message and "pip install 'relax-mlir[demo]'" in message


def test_demo_finds_its_missing_packages(monkeypatch) -> None:
    import importlib.util

    real = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec",
                        lambda name, *a: None if name == "sklearn" else real(name, *a))
    assert demo.missing_packages() == ["scikit-learn"]


def test_demo_plot_does_not_depend_on_the_working_directory(tmp_path, monkeypatch) -> None:
    """`make demo` writes build/demo/training.png of the repository, wherever
    it runs from (it used to write ./build/demo/ in the working directory)."""
    from pathlib import Path

    root = Path(demo.__file__).resolve().parents[2]
    monkeypatch.chdir(tmp_path)
    assert demo.default_plot() == str(root / "build" / "demo" / "training.png")
    monkeypatch.setattr(demo, "__file__", str(tmp_path / "site-packages" / "relax_mlir" / "demo.py"))
    assert demo.default_plot() == str(Path.home() / "relax-mlir-demo" / "training.png")
