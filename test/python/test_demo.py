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
