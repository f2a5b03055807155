"""Pytrees: dataclasses and registered node types through the
transformations, `relax_mlir.tree_util` (JAX's names and semantics), and the
structure an exported library records and its loader rebuilds.
"""

from __future__ import annotations

import collections
import dataclasses
import os
import subprocess
import sys
from typing import Any

import numpy as np
import pytest
import relax_mlir
import relax_mlir.numpy as rnp
from relax_mlir import runtime, tree_util

RNG = np.random.default_rng(3)


@dataclasses.dataclass
class Linear:
    w: Any
    b: Any


def linear_loss(p: Linear, x: Any) -> Any:
    return rnp.sum(rnp.tanh(x @ p.w + p.b) ** 2)


def linear_loss_np(p: Linear, x: np.ndarray) -> float:
    return float(np.sum(np.tanh(x @ p.w + p.b) ** 2))


def test_a_dataclass_is_a_pytree_for_grad_jit_and_vmap() -> None:
    p = Linear(RNG.normal(size=(3, 2)), RNG.normal(size=2))
    x = RNG.normal(size=(4, 3))
    g = relax_mlir.grad(linear_loss)(p, x)
    assert isinstance(g, Linear)
    eps = 1e-6
    for name in ("w", "b"):
        leaf = getattr(p, name)
        want = np.zeros_like(leaf)
        for i in np.ndindex(leaf.shape):
            plus, minus = leaf.copy(), leaf.copy()
            plus[i] += eps
            minus[i] -= eps
            want[i] = (linear_loss_np(dataclasses.replace(p, **{name: plus}), x)
                       - linear_loss_np(dataclasses.replace(p, **{name: minus}), x)) / (2 * eps)
        np.testing.assert_allclose(getattr(g, name), want, rtol=1e-6, atol=1e-8)
    # An SGD step written with tree_map, returned as a dataclass by jit.
    step = relax_mlir.jit(lambda p, x: tree_util.tree_map(
        lambda a, b: a - 0.1 * b, p, relax_mlir.grad(linear_loss)(p, x)))
    new = step(p, x)
    assert isinstance(new, Linear)
    np.testing.assert_allclose(new.w, p.w - 0.1 * g.w)
    # Per-example gradients: a batch of dataclasses.
    per = relax_mlir.vmap(relax_mlir.grad(linear_loss), in_axes=(None, 0))(p, x[:, None, :])
    assert isinstance(per, Linear) and per.w.shape == (4, 3, 2)
    np.testing.assert_allclose(per.w.sum(0), g.w, rtol=1e-10)


class Point:
    """A class registered as a node: children x, y; the name is aux data."""

    def __init__(self, x: Any, y: Any, name: str) -> None:
        self.x, self.y, self.name = x, y, name


tree_util.register_pytree_node(Point, lambda p: ((p.x, p.y), p.name),
                               lambda name, xy: Point(xy[0], xy[1], name))


def test_a_registered_node_keeps_its_aux_data_and_is_rebuilt() -> None:
    f = relax_mlir.jit(lambda p: Point(p.x * 2, rnp.sum(p.y), p.name + "!"))
    out = f(Point(np.ones(2), np.arange(3.0), "a"))
    assert isinstance(out, Point) and out.name == "a!"
    np.testing.assert_array_equal(out.x, [2.0, 2.0])
    assert out.y == 3.0
    g = relax_mlir.grad(lambda p: rnp.sum(p.x * p.y))(Point(np.full(2, 3.0), np.full(2, 5.0),
                                                            "b"))
    assert isinstance(g, Point) and g.name == "b"
    np.testing.assert_array_equal(g.x, [5.0, 5.0])


@tree_util.register_dataclass
@dataclasses.dataclass
class Scaled:
    w: Any
    times: int = dataclasses.field(default=1, metadata={"static": True})


def test_register_dataclass_meta_fields_are_static_and_part_of_the_signature() -> None:
    traces = []

    def f(s: Scaled) -> Any:
        traces.append(s.times)
        return s.w * s.times

    jf = relax_mlir.jit(f)
    np.testing.assert_array_equal(jf(Scaled(np.ones(2), 3)), [3.0, 3.0])
    np.testing.assert_array_equal(jf(Scaled(np.ones(2), 3)), [3.0, 3.0])
    np.testing.assert_array_equal(jf(Scaled(np.ones(2), 4)), [4.0, 4.0])
    assert traces == [3, 4]          # a Python int field, never a traced array
    leaves, treedef = tree_util.tree_flatten(Scaled(np.ones(2), 5))
    assert len(leaves) == 1 and treedef.unflatten([7]).times == 5

    @dataclasses.dataclass
    class Two:
        a: Any
        b: Any

    tree_util.register_dataclass(Two, data_fields=["b"], meta_fields=["a"])
    assert tree_util.tree_leaves(Two(1, 2)) == [2]
    with pytest.raises(ValueError, match="must name each field once"):
        tree_util.register_dataclass(Linear, data_fields=["w"], meta_fields=[])
    with pytest.raises(TypeError, match="dataclass type"):
        tree_util.register_dataclass(Point)


def test_tree_util_functions_follow_jax() -> None:
    tree = {"b": [1, (2, None)], "a": Linear(3, 4)}
    leaves, treedef = tree_util.tree_flatten(tree)
    assert leaves == [3, 4, 1, 2]               # dict keys sorted, None holds nothing
    assert treedef.num_leaves == 4
    assert tree_util.tree_unflatten(treedef, [5, 6, 7, 8]) == {"a": Linear(5, 6),
                                                               "b": [7, (8, None)]}
    assert tree_util.tree_structure(tree) == treedef
    assert hash(tree_util.tree_structure(tree)) == hash(treedef)
    assert repr(treedef) == "PyTreeDef({'a': Linear(w=*, b=*), 'b': [*, (*, None)]})"
    assert tree_util.tree_map(lambda x, y: x + y, tree, tree) == {"a": Linear(6, 8),
                                                                  "b": [2, (4, None)]}
    assert tree_util.tree_leaves([1, [2, 3]], is_leaf=lambda n: n == [2, 3]) == [1, [2, 3]]
    with pytest.raises(ValueError, match="holds 4 leaves, got 3"):
        tree_util.tree_unflatten(treedef, [1, 2, 3])
    with pytest.raises(ValueError, match="structure"):
        tree_util.tree_map(lambda x, y: x, [1, 2], [1, (2, 3)])
    with pytest.raises(ValueError, match="already a pytree node"):
        tree_util.register_pytree_node(Point, lambda p: ((), None), lambda a, c: None)


# ----------------------------------------------------------------------------
# Exported libraries keep the structure
# ----------------------------------------------------------------------------

Pair = collections.namedtuple("Pair", ["first", "second"])


def model(params: dict, batch: tuple) -> Any:
    x, y = batch
    pred = rnp.tanh(x @ params["layers"][0]["w"]) @ params["layers"][1]["w"]
    loss = rnp.mean((pred - y) ** 2)
    return loss, {"pred": pred, "extra": [None, Pair(loss * 2, rnp.sum(pred))]}


PARAMS = {"layers": [{"w": RNG.normal(size=(3, 4)).astype(np.float32)},
                     {"w": RNG.normal(size=(4, 2)).astype(np.float32)}]}
BATCH = (RNG.normal(size=(5, 3)).astype(np.float32), RNG.normal(size=(5, 2)).astype(np.float32))


def assert_trees_close(got: Any, want: Any) -> None:
    got_leaves, got_def = tree_util.tree_flatten(got)
    want_leaves, want_def = tree_util.tree_flatten(want)
    assert repr(got_def) == repr(want_def), (got_def, want_def)
    for a, b in zip(got_leaves, want_leaves):
        np.testing.assert_allclose(a, b, rtol=1e-6)


@pytest.mark.parametrize("transform", ["jit", "grad-has-aux", "value_and_grad-has-aux"])
def test_an_exported_library_takes_and_returns_the_pytrees(tmp_path, transform: str) -> None:
    fn = {"jit": relax_mlir.jit(model),
          "grad-has-aux": relax_mlir.grad(model, has_aux=True),
          "value_and_grad-has-aux": relax_mlir.value_and_grad(model, has_aux=True)}[transform]
    want = fn(PARAMS, BATCH)
    path = fn.lower(PARAMS, BATCH).export(tmp_path / "model.so")
    lib = runtime.load(path)
    (name,) = lib.function_names
    got = lib[name](PARAMS, BATCH)
    assert_trees_close(got, want)
    # namedtuples come back as namedtuples of the recorded name and fields.
    aux = got[1] if transform != "value_and_grad-has-aux" else got[0][1]
    assert type(aux["extra"][1]).__name__ == "Pair" and aux["extra"][1]._fields == (
        "first", "second")
    assert_trees_close(lib[name](batch=BATCH, params=PARAMS), want)   # by keyword
    with pytest.raises(TypeError, match=r"argument 'params\['layers'\]' of .*expected a list "
                                        r"of 2, got list of 1"):
        lib[name]({"layers": PARAMS["layers"][:1]}, BATCH)
    with pytest.raises(TypeError, match="missing 'batch'"):
        lib[name](PARAMS)


def test_exporting_a_dataclass_structure_says_what_to_use_instead(tmp_path) -> None:
    f = relax_mlir.jit(lambda p, x: Linear(p.w * 2, x))
    lowered = f.lower(Linear(np.ones(2), np.ones(2)), np.ones(3))
    with pytest.raises(ValueError, match=r"p is a Linear \(a dataclass\).*dataclasses.asdict"):
        lowered.export(tmp_path / "f.so")
    assert not os.listdir(tmp_path)


def test_the_copied_loader_rebuilds_structures_without_mlir(tmp_path) -> None:
    fn = relax_mlir.jit(lambda d: {"sum": rnp.sum(d["x"]), "both": (d["x"] * 2, None)})
    path = fn.lower({"x": np.arange(3.0)}).export(tmp_path / "f.so")
    loader = tmp_path / "loader"
    runtime.copy_loader(loader)
    code = ("import numpy as np, sys\n"
            "from relax_mlir import runtime\n"
            "assert 'relax_mlir._mlir_libs' not in sys.modules\n"
            f"out = runtime.load({str(path)!r}).main({{'x': np.arange(3.0)}})\n"
            "assert out['both'][1] is None and float(out['sum']) == 3.0, out\n"
            "print(sorted(out), out['both'][0].tolist())\n")
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    run = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, env={
        **env, "PYTHONPATH": str(loader)}, capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stderr
    assert run.stdout.strip() == "['both', 'sum'] [0.0, 2.0, 4.0]"
