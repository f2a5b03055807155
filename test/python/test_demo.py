"""The demo trains a classifier well above chance with the compiled adjoint."""

from relax_mlir import demo


def test_demo_learns_digits() -> None:
    accuracy = demo.main(["--epochs", "4"])
    assert accuracy > 0.8, f"test accuracy {accuracy} is not clearly above chance (0.1)"
