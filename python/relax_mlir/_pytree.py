"""Pytrees, in pure Python (no MLIR): the nested containers of arrays that
the transformations take and return, flattened to leaves and a structure
(`Treedef`) and rebuilt. `relax_mlir.tree_util` is their public face.
"""

from __future__ import annotations

import collections
import dataclasses
from collections.abc import Callable, Iterator
from typing import Any

# ----------------------------------------------------------------------------
# Pytrees: tuples, lists, dicts (keys sorted, as JAX), None, namedtuples,
# dataclasses and the node types registered with
# relax_mlir.tree_util.register_pytree_node; anything else is a leaf.
# ----------------------------------------------------------------------------

# Nested tuples: ("leaf",), ("none",), ("tuple" | "list", children),
# ("namedtuple", type, children), ("dict", keys, children),
# ("dataclass", type, field names, children), ("node", type, aux, children).
Treedef = Any
_LEAF: Treedef = ("leaf",)

# Registered node types: type -> (flatten(x) -> (children, aux),
# unflatten(aux, children) -> x), as jax.tree_util's.
PYTREE_NODES: dict[type, tuple[Callable[[Any], tuple[Any, Any]],
                               Callable[[Any, Any], Any]]] = {}


def _data_fields(node: Any) -> list[str]:
    return [f.name for f in dataclasses.fields(node)]


def tree_flatten(tree: Any, path: str = "",
                 is_leaf: Callable[[Any], bool] | None = None
                 ) -> tuple[list[Any], list[str], Treedef]:
    """Leaves in order, their paths (`params['w']`, `x[0]`, `p.w`) and the
    structure; `is_leaf(node)` true makes a node a leaf."""
    leaves: list[Any] = []
    paths: list[str] = []

    def walk(node: Any, where: str) -> Treedef:
        if is_leaf is not None and is_leaf(node):
            leaves.append(node)
            paths.append(where)
            return _LEAF
        if node is None:
            return ("none",)
        registered = PYTREE_NODES.get(type(node))
        if registered is not None:
            children, aux = registered[0](node)
            kids = tuple(walk(v, f"{where}[{i}]") for i, v in enumerate(children))
            return ("node", type(node), aux, kids)
        if isinstance(node, (tuple, list)) and not hasattr(node, "_fields"):
            kids = tuple(walk(v, f"{where}[{i}]") for i, v in enumerate(node))
            return ("tuple" if isinstance(node, tuple) else "list", kids)
        if isinstance(node, tuple):  # a namedtuple
            fields = node._fields  # type: ignore[attr-defined]
            kids = tuple(walk(v, f"{where}.{k}") for k, v in zip(fields, node))
            return ("namedtuple", type(node), kids)
        if isinstance(node, dict):
            try:
                keys = tuple(sorted(node))
            except TypeError:
                raise TypeError(f"dict keys of {where or 'an argument'} must be sortable "
                                f"(all strings, say), got {list(node)}") from None
            kids = tuple(walk(node[k], f"{where}[{k!r}]") for k in keys)
            return ("dict", keys, kids)
        if dataclasses.is_dataclass(node) and not isinstance(node, type):
            # An unregistered dataclass: every field is a child
            # (register_dataclass names fields that are static instead).
            names = tuple(_data_fields(node))
            kids = tuple(walk(getattr(node, k), f"{where}.{k}") for k in names)
            return ("dataclass", type(node), names, kids)
        leaves.append(node)
        paths.append(where)
        return _LEAF

    treedef = walk(tree, path)
    return leaves, paths, treedef


def tree_unflatten(treedef: Treedef, leaves: Iterator[Any]) -> Any:
    kind = treedef[0]
    if kind == "leaf":
        return next(leaves)
    if kind == "none":
        return None
    if kind == "tuple":
        return tuple(tree_unflatten(t, leaves) for t in treedef[1])
    if kind == "list":
        return [tree_unflatten(t, leaves) for t in treedef[1]]
    if kind == "namedtuple":
        return treedef[1](*(tree_unflatten(t, leaves) for t in treedef[2]))
    if kind == "dataclass":
        cls, names = treedef[1], treedef[2]
        values = {k: tree_unflatten(t, leaves) for k, t in zip(names, treedef[3])}
        init = {f.name for f in dataclasses.fields(cls) if f.init}
        node = cls(**{k: v for k, v in values.items() if k in init})
        for k, v in values.items():
            if k not in init:
                object.__setattr__(node, k, v)
        return node
    if kind == "node":
        children = [tree_unflatten(t, leaves) for t in treedef[3]]
        return PYTREE_NODES[treedef[1]][1](treedef[2], children)
    return {k: tree_unflatten(t, leaves) for k, t in zip(treedef[1], treedef[2])}


def tree_leaf_count(treedef: Treedef) -> int:
    kind = treedef[0]
    if kind == "leaf":
        return 1
    if kind == "none":
        return 0
    return sum(tree_leaf_count(t) for t in treedef[-1])


# ----------------------------------------------------------------------------
# Structures an exported library records (JSON) and its loader rebuilds
# ----------------------------------------------------------------------------

def treedef_to_json(treedef: Treedef, where: str) -> Any:
    """`treedef` as JSON data: "*" a leaf, null None, {"tuple": [...]},
    {"list": [...]}, {"dict": [[key, child], ...]}, {"namedtuple": name,
    "fields": [...], "children": [...]}. A dataclass or registered node has no
    JSON form (a loader without its class could not rebuild it): a
    ValueError naming `where`."""
    kind = treedef[0]
    if kind == "leaf":
        return "*"
    if kind == "none":
        return None
    if kind in ("tuple", "list"):
        return {kind: [treedef_to_json(t, f"{where}[{i}]") for i, t in enumerate(treedef[1])]}
    if kind == "dict":
        for k in treedef[1]:
            if not isinstance(k, (str, int, float, bool)):
                raise ValueError(f"{where} has a dict key {k!r}: an exported library records "
                                 f"str, int, float or bool keys")
        return {"dict": [[k, treedef_to_json(t, f"{where}[{k!r}]")]
                         for k, t in zip(treedef[1], treedef[2])]}
    if kind == "namedtuple":
        cls = treedef[1]
        return {"namedtuple": cls.__name__, "fields": list(cls._fields),
                "children": [treedef_to_json(t, f"{where}.{f}")
                             for f, t in zip(cls._fields, treedef[2])]}
    what = "a dataclass" if kind == "dataclass" else "a registered pytree node"
    raise ValueError(f"{where} is a {treedef[1].__name__} ({what}): an exported library "
                     f"rebuilds tuples, lists, dicts, namedtuples and None only (a loader "
                     f"need not have the class); use a dict (dataclasses.asdict) there, or "
                     f"export the flat function with relax_mlir.export")


_NAMEDTUPLES: dict[tuple[str, tuple[str, ...]], type] = {}


def _describe_json(spec: Any) -> str:
    if spec == "*":
        return "an array"
    if spec is None:
        return "None"
    if "dict" in spec:
        return f"a dict with keys {[k for k, _ in spec['dict']]}"
    if "namedtuple" in spec:
        return f"a {spec['namedtuple']} of {len(spec['children'])}"
    kind = "tuple" if "tuple" in spec else "list"
    return f"a {kind} of {len(spec[kind])}"


class ExportedStructure:
    """The pytree structure of an exported function's arguments and result:
    `params` [(name, JSON treedef)], `result` (JSON treedef) and
    `result_leaves` (which of the function's result leaves, in order, fill
    it)."""

    def __init__(self, data: dict[str, Any]) -> None:
        self.params: list[tuple[str, Any]] = [(str(n), s) for n, s in data["params"]]
        self.result: Any = data["result"]
        self.result_leaves: list[int] = [int(i) for i in data["result_leaves"]]

    def to_json(self) -> dict[str, Any]:
        return {"params": [[n, s] for n, s in self.params], "result": self.result,
                "result_leaves": self.result_leaves}

    def flatten_arguments(self, fname: str, args: tuple[Any, ...],
                          kwargs: dict[str, Any]) -> list[Any]:
        """The leaves of a call's arguments, bound by position or name."""
        names = [n for n, _ in self.params]
        signature = f"{fname}({', '.join(names)})"
        if len(args) > len(names):
            raise TypeError(f"{signature} takes {len(names)} arguments, got {len(args)}")
        values: dict[str, Any] = dict(zip(names, args))
        for k, v in kwargs.items():
            if k not in names:
                raise TypeError(f"{signature} has no parameter '{k}'")
            if k in values:
                raise TypeError(f"{signature} got parameter '{k}' twice")
            values[k] = v
        missing = [n for n in names if n not in values]
        if missing:
            raise TypeError(f"{signature} is missing {', '.join(repr(m) for m in missing)}")
        leaves: list[Any] = []
        for name, spec in self.params:
            self._flatten(fname, name, spec, values[name], leaves)
        return leaves

    def _flatten(self, fname: str, where: str, spec: Any, value: Any, out: list[Any]) -> None:
        def wrong() -> TypeError:
            return TypeError(f"argument '{where}' of {fname}: expected {_describe_json(spec)}, "
                             f"got {type(value).__name__}"
                             + (f" of {len(value)}" if isinstance(value, (tuple, list)) else "")
                             + (f" with keys {sorted(value, key=str)}"
                                if isinstance(value, dict) else ""))
        if spec == "*":
            out.append(value)
        elif spec is None:
            if value is not None:
                raise wrong()
        elif "dict" in spec:
            if not isinstance(value, dict) or set(value) != {k for k, _ in spec["dict"]}:
                raise wrong()
            for k, child in spec["dict"]:
                self._flatten(fname, f"{where}[{k!r}]", child, value[k], out)
        else:
            children = spec.get("children") if "namedtuple" in spec else \
                spec.get("tuple", spec.get("list"))
            if not isinstance(value, (tuple, list)) or len(value) != len(children):
                raise wrong()
            for i, (child, v) in enumerate(zip(children, value)):
                self._flatten(fname, f"{where}[{i}]", child, v, out)

    def rebuild_result(self, leaves: list[Any]) -> Any:
        picked = iter([leaves[i] for i in self.result_leaves])
        return rebuild_json(self.result, picked)


def rebuild_json(spec: Any, leaves: Iterator[Any]) -> Any:
    """The pytree of JSON structure `spec` (treedef_to_json's) holding `leaves`."""
    if spec == "*":
        return next(leaves)
    if spec is None:
        return None
    if "tuple" in spec:
        return tuple(rebuild_json(s, leaves) for s in spec["tuple"])
    if "list" in spec:
        return [rebuild_json(s, leaves) for s in spec["list"]]
    if "dict" in spec:
        return {k: rebuild_json(s, leaves) for k, s in spec["dict"]}
    key = (spec["namedtuple"], tuple(spec["fields"]))
    cls = _NAMEDTUPLES.get(key)
    if cls is None:
        cls = _NAMEDTUPLES[key] = collections.namedtuple(key[0], key[1])
    return cls(*(rebuild_json(s, leaves) for s in spec["children"]))
