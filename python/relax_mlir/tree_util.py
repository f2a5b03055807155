"""`relax_mlir.tree_util`: pytrees, as `jax.tree_util`.

A pytree is a nest of containers holding arrays: tuples, lists, dicts (keys
in sorted order), None (an empty subtree), namedtuples, dataclasses, and the
types registered here. The transformations (`jit`, `grad`, `vmap`, ...) take
and return them; these functions flatten, rebuild and map them::

    from dataclasses import dataclass
    from relax_mlir import tree_util

    @dataclass
    class Params:
        w: object
        b: object

    leaves, treedef = tree_util.tree_flatten(Params(w=1.0, b=(2.0, None)))
    assert leaves == [1.0, 2.0]
    doubled = tree_util.tree_map(lambda v: 2 * v, Params(w=1.0, b=(2.0, None)))
    assert doubled == Params(w=2.0, b=(4.0, None))

A dataclass needs no registration: each of its fields is a child (JAX
requires `register_dataclass`; here it is needed only to make fields static,
`meta_fields`, which then belong to the structure and take part in jit's
cache key). Pure Python: importing this module loads no MLIR.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterable, Sequence
from typing import Any, TypeVar

from ._pytree import PYTREE_NODES, Treedef
from ._pytree import tree_flatten as _flatten
from ._pytree import tree_leaf_count as _leaf_count
from ._pytree import tree_unflatten as _unflatten

__all__ = ["PyTreeDef", "tree_flatten", "tree_unflatten", "tree_leaves", "tree_structure",
           "tree_map", "register_pytree_node", "register_dataclass"]

T = TypeVar("T")


class PyTreeDef:
    """A pytree's structure (without its leaves): compare, hash, rebuild with
    `unflatten(leaves)`, count with `num_leaves`."""

    __slots__ = ("_treedef",)

    def __init__(self, treedef: Treedef) -> None:
        self._treedef = treedef

    @property
    def num_leaves(self) -> int:
        """How many leaves the structure holds."""
        return _leaf_count(self._treedef)

    def unflatten(self, leaves: Iterable[Any]) -> Any:
        """The pytree of this structure holding `leaves` in order."""
        return tree_unflatten(self, leaves)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, PyTreeDef) and self._treedef == other._treedef

    def __hash__(self) -> int:
        return hash(self._treedef)

    def __repr__(self) -> str:
        return f"PyTreeDef({_describe(self._treedef)})"


def _describe(treedef: Treedef) -> str:
    kind = treedef[0]
    if kind == "leaf":
        return "*"
    if kind == "none":
        return "None"
    if kind == "tuple":
        inner = ", ".join(_describe(t) for t in treedef[1])
        return f"({inner},)" if len(treedef[1]) == 1 else f"({inner})"
    if kind == "list":
        return "[" + ", ".join(_describe(t) for t in treedef[1]) + "]"
    if kind == "dict":
        return "{" + ", ".join(f"{k!r}: {_describe(t)}"
                               for k, t in zip(treedef[1], treedef[2])) + "}"
    if kind == "dataclass":
        return f"{treedef[1].__name__}(" + ", ".join(
            f"{k}={_describe(t)}" for k, t in zip(treedef[2], treedef[3])) + ")"
    name = treedef[1].__name__
    return f"{name}(" + ", ".join(_describe(t) for t in treedef[-1]) + ")"


def tree_flatten(tree: Any, is_leaf: Callable[[Any], bool] | None = None
                 ) -> tuple[list[Any], PyTreeDef]:
    """The leaves of `tree` in order and its structure (`is_leaf(node)` true
    stops at that node)."""
    leaves, _, treedef = _flatten(tree, is_leaf=is_leaf)
    return leaves, PyTreeDef(treedef)


def tree_unflatten(treedef: PyTreeDef, leaves: Iterable[Any]) -> Any:
    """The pytree of structure `treedef` holding `leaves` in order."""
    if not isinstance(treedef, PyTreeDef):
        raise TypeError(f"tree_unflatten takes a PyTreeDef (from tree_flatten or "
                        f"tree_structure), got {type(treedef).__name__}")
    values = list(leaves)
    if len(values) != treedef.num_leaves:
        raise ValueError(f"tree_unflatten: {treedef} holds {treedef.num_leaves} leaves, "
                         f"got {len(values)}")
    return _unflatten(treedef._treedef, iter(values))


def tree_leaves(tree: Any, is_leaf: Callable[[Any], bool] | None = None) -> list[Any]:
    """The leaves of `tree` in order."""
    return _flatten(tree, is_leaf=is_leaf)[0]


def tree_structure(tree: Any, is_leaf: Callable[[Any], bool] | None = None) -> PyTreeDef:
    """The structure of `tree`."""
    return tree_flatten(tree, is_leaf)[1]


def tree_map(f: Callable[..., Any], tree: Any, *rest: Any,
             is_leaf: Callable[[Any], bool] | None = None) -> Any:
    """`tree` with each leaf `x` replaced by `f(x, *ys)`, the `ys` the leaves
    at the same place in each of `rest` (which must have tree's structure)."""
    leaves, treedef = tree_flatten(tree, is_leaf)
    others = []
    for i, other in enumerate(rest):
        other_leaves, other_def = tree_flatten(other, is_leaf)
        if other_def != treedef:
            raise ValueError(f"tree_map: tree {i + 1} of rest has structure {other_def}, "
                             f"the first tree {treedef}")
        others.append(other_leaves)
    return treedef.unflatten(f(*xs) for xs in zip(leaves, *others))


def register_pytree_node(nodetype: type[T], flatten_func: Callable[[T], tuple[Sequence[Any], Any]],
                         unflatten_func: Callable[[Any, Sequence[Any]], T]) -> None:
    """Makes `nodetype` a pytree node, as jax.tree_util.register_pytree_node:
    `flatten_func(x)` returns `(children, aux_data)` and
    `unflatten_func(aux_data, children)` rebuilds x. `aux_data` is part of the
    structure: it must be hashable and comparable (jit's cache key holds it)."""
    if not isinstance(nodetype, type):
        raise TypeError(f"register_pytree_node takes a type, got {nodetype!r}")
    if nodetype in PYTREE_NODES or nodetype in (tuple, list, dict, type(None)):
        raise ValueError(f"{nodetype.__name__} is already a pytree node type")
    if not callable(flatten_func) or not callable(unflatten_func):
        raise TypeError("register_pytree_node takes flatten_func(x) -> (children, aux) and "
                        "unflatten_func(aux, children) -> x")

    def flatten(node: Any) -> tuple[list[Any], Any]:
        children, aux = flatten_func(node)
        return list(children), aux

    PYTREE_NODES[nodetype] = (flatten, unflatten_func)


def register_dataclass(nodetype: type[T], data_fields: Sequence[str] | None = None,
                       meta_fields: Sequence[str] | None = None) -> type[T]:
    """Makes dataclass `nodetype` a pytree node whose `data_fields` are
    children and `meta_fields` static (part of the structure: hashable, and a
    new trace when they change), as jax.tree_util.register_dataclass. Given
    neither, the fields marked `field(metadata={"static": True})` are meta and
    the rest data. Returns the class, so it also works as a decorator."""
    if not dataclasses.is_dataclass(nodetype) or not isinstance(nodetype, type):
        raise TypeError(f"register_dataclass takes a dataclass type, got {nodetype!r}")
    names = [f.name for f in dataclasses.fields(nodetype)]
    if data_fields is None and meta_fields is None:
        meta = [f.name for f in dataclasses.fields(nodetype) if f.metadata.get("static")]
        data = [n for n in names if n not in meta]
    else:
        data = list(data_fields or [])
        meta = list(meta_fields or [])
        if sorted(data + meta) != sorted(names):
            raise ValueError(f"register_dataclass({nodetype.__name__}): data_fields {data} and "
                             f"meta_fields {meta} must name each field once; its fields are "
                             f"{names}")

    def flatten(node: Any) -> tuple[list[Any], tuple[Any, ...]]:
        return [getattr(node, k) for k in data], tuple(getattr(node, k) for k in meta)

    def unflatten(aux: tuple[Any, ...], children: Sequence[Any]) -> Any:
        return nodetype(**dict(zip(data, children)), **dict(zip(meta, aux)))

    register_pytree_node(nodetype, flatten, unflatten)
    return nodetype
