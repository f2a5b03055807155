"""`vmap`: a function of one example run on a batch of them (JAX's vmap).

The function is traced once on one example (`jit`'s trace: the arguments
with their mapped axis removed), and the `vmap` pass batches the relax
function: every op that reads a batched value states its batching rule
(`BatchingOpInterface`), so the result is one relax function over the whole
batch, which compiles, and differentiates, like any other. Inside another
trace (`jit`, `grad`, another `vmap`) the batched function is added to that
trace's module and called, so `vmap(grad(f))` (per-example gradients),
`grad(vmap(f))` and `jit(vmap(f))` are each one program, not a loop.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from . import numpy as rnp
from ._config import config
from ._module import clone_module, run_passes
from ._pytree import tree_flatten, tree_leaf_count, tree_unflatten
from ._trace import (
    Tracer,
    as_leaf_array,
    current_trace,
)
from .errors import CompilationError, call_site

Axes = Any  # int | None | a sequence of them


def _axis_list(value: Axes, count: int, what: str, fn_name: str) -> list[int | None]:
    """`value` (an int, None, or one per item) as one axis per item."""
    if value is None or isinstance(value, (int, np.integer)) and not isinstance(value, bool):
        return [None if value is None else int(value)] * count
    if isinstance(value, (tuple, list)):
        if len(value) != count:
            raise ValueError(f"{call_site()}: "
                             f"vmap of {fn_name}: {what} has {len(value)} entries for {count} "
                             f"{'arguments' if what == 'in_axes' else 'outputs'}; give one per "
                             f"{'positional argument' if what == 'in_axes' else 'output'}, or "
                             f"one int for all")
        out: list[int | None] = []
        for v in value:
            if v is not None and (not isinstance(v, (int, np.integer)) or isinstance(v, bool)):
                raise TypeError(f"{call_site()}: "
                                f"vmap of {fn_name}: each entry of {what} is an int or None, "
                                f"got {v!r}")
            out.append(None if v is None else int(v))
        return out
    raise TypeError(f"{call_site()}: "
                    f"vmap of {fn_name}: {what} must be an int, None or a tuple of them, "
                    f"got {value!r}")


class Batched:
    """`fn` vmapped: call it with batched arguments (see `vmap`)."""

    def __init__(self, fn: Callable[..., Any], in_axes: Axes = 0, out_axes: Axes = 0) -> None:
        if not callable(fn):
            raise TypeError(f"{call_site()}: vmap expects a function, got {type(fn).__name__}; "
                            f"pass the function to map, as vmap(f, in_axes=...)")
        self.fn = fn
        self.in_axes = in_axes
        self.out_axes = out_axes
        self.__name__ = getattr(fn, "__name__", "function")
        self.__doc__ = getattr(fn, "__doc__", None)
        self.__wrapped__ = fn
        # Per (batch size, batched leaves, trace): [module, entry, executable]
        # (the entry kept so that its id is not reused), and jit per argument
        # structure; both least recently used out past config.cache_size.
        self._cache: OrderedDict[Any, list[Any]] = OrderedDict()
        self._jits: OrderedDict[Any, Any] = OrderedDict()

    def __repr__(self) -> str:
        return f"<relax_mlir.vmap of {self.__name__}>"

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        if kwargs:
            raise TypeError(f"{call_site()}: "
                            f"vmap of {self.__name__}: pass the arguments positionally "
                            f"(got keyword arguments {', '.join(sorted(kwargs))}); in_axes "
                            f"names them by position")
        axes = _axis_list(self.in_axes, len(args), "in_axes", self.__name__)
        leaves: list[Any] = []
        leaf_axes: list[int | None] = []
        treedefs = []
        for n, (arg, axis) in enumerate(zip(args, axes)):
            ls, paths, td = tree_flatten(arg, f"arg{n}")
            treedefs.append(td)
            for leaf, path in zip(ls, paths):
                value = leaf if isinstance(leaf, Tracer) else as_leaf_array(leaf, path)
                leaves.append(value)
                leaf_axes.append(None if axis is None else self._check_axis(value, axis, path))
        size = self._batch_size(leaves, leaf_axes, args)
        examples = [self._example(v, a) for v, a in zip(leaves, leaf_axes)]

        entry = self._traced(treedefs).lower(*examples)._entry
        batched = [i for i, a in enumerate(leaf_axes) if a is not None]
        # (The entry is jit's cached trace of this signature: the same object
        # for the same shapes, dtypes and structure; kept alive below, so its
        # id is not reused.)
        key = (size, tuple(batched), id(entry))
        slot = _lookup(self._cache, key) if not entry.captures else None
        if slot is None:
            module = clone_module(entry.relax)
            run_passes(module, f"builtin.module(vmap{{func=main batch-size={size} "
                               f"batched={','.join(map(str, batched))}}})",
                       CompilationError, f"vmap of {self.__name__} failed")
            slot = [module, entry, None]
            if not entry.captures:
                _store(self._cache, key, slot)
        module = slot[0]
        count = tree_leaf_count(entry.out_treedef)
        out_axes = _axis_list(self.out_axes, count, "out_axes", self.__name__)
        if current_trace() is None:
            outs = self._run(slot, leaves, leaf_axes, entry)
            outs = [np.moveaxis(o, 0, a) if a is not None else o[0]
                    for o, a in zip(outs, out_axes)]
        else:
            outs = self._inline(module, leaves, leaf_axes, entry, count)
            outs = [_move(o, 0, a) if a is not None else o[0] for o, a in zip(outs, out_axes)]
        return tree_unflatten(entry.out_treedef, iter(outs))

    def _traced(self, treedefs: list[Any]) -> Any:
        """`jit` of the function of one example's leaves, one per argument
        structure (kept, so that jit's signature cache spares a new trace
        on every call)."""
        key = (tuple(treedefs), tuple(map(str, treedefs)))
        traced = _lookup(self._jits, key)
        if traced is None:
            from ._frontend import jit

            fn = self.fn

            def one(*example_leaves: Any) -> Any:
                it = iter(example_leaves)
                return fn(*(tree_unflatten(td, it) for td in treedefs))

            one.__name__ = self.__name__
            traced = jit(one)
            _store(self._jits, key, traced)
        return traced

    def _check_axis(self, value: Any, axis: int, path: str) -> int:
        ndim = len(value.shape)
        if not -ndim <= axis < ndim:
            raise ValueError(f"{call_site()}: "
                             f"vmap of {self.__name__}: in_axes {axis} is out of range for "
                             f"{path} of shape {tuple(value.shape)}; map an axis it has, or "
                             f"pass None to share it across the batch")
        return axis % ndim

    def _batch_size(self, leaves: Sequence[Any], axes: Sequence[int | None],
                    args: tuple[Any, ...]) -> int:
        sizes = {int(v.shape[a]) for v, a in zip(leaves, axes) if a is not None}
        if not sizes:
            raise ValueError(f"{call_site()}: "
                             f"vmap of {self.__name__}: no argument is mapped (in_axes is None "
                             f"for all); map at least one")
        if len(sizes) > 1:
            found = ", ".join(f"{tuple(v.shape)} along axis {a}" for v, a in zip(leaves, axes)
                              if a is not None)
            raise ValueError(f"{call_site()}: "
                             f"vmap of {self.__name__}: the mapped axes have different sizes "
                             f"({found}); they must all be the batch size")
        return sizes.pop()

    @staticmethod
    def _example(value: Any, axis: int | None) -> Any:
        """Shape and dtype of one example (a zero-strided array: no data)."""
        shape = list(value.shape)
        if axis is not None:
            del shape[axis]
        dtype = value.dtype if not isinstance(value, Tracer) else np.dtype(value.dtype)
        return np.lib.stride_tricks.as_strided(np.zeros((), dtype), shape, [0] * len(shape))

    def _run(self, slot: list[Any], leaves: Sequence[Any], axes: Sequence[int | None],
             entry: Any) -> list[Any]:
        from ._compile import compile as compile_module
        from ._frontend import result_leaves

        exe = slot[2]
        if exe is None:
            exe = slot[2] = compile_module(slot[0], functions=["main_vmap"])
        arrays = [np.moveaxis(v, a, 0) if a is not None else v for v, a in zip(leaves, axes)]
        return result_leaves(exe.main_vmap(*arrays), entry.out_treedef)

    def _inline(self, module: Any, leaves: Sequence[Any], axes: Sequence[int | None],
                entry: Any, count: int) -> list[Any]:
        from ._frontend import traced_leaves

        outer = current_trace()
        assert outer is not None
        values = [_move(rnp.asarray(v), a, 0) if a is not None else rnp.asarray(v)
                  for v, a in zip(leaves, axes)]
        callee = outer.import_function(module, "main_vmap", f"{self.__name__}_vmap")
        result = outer.call(callee, [v.value for v in values] + [c.value for c in entry.captures])
        return traced_leaves(outer, result, count)


def _move(x: Any, source: int, destination: int) -> Any:
    """numpy's moveaxis of a traced array (a transpose)."""
    ndim = len(x.shape)
    source, destination = source % ndim, destination % ndim
    if source == destination:
        return x
    order = [a for a in range(ndim) if a != source]
    order.insert(destination, source)
    return rnp.transpose(x, order)


def vmap(fn: Callable[..., Any], in_axes: Axes = 0, out_axes: Axes = 0) -> Batched:
    """`fn` of one example, mapped over a batch (JAX's `jax.vmap`).

    `in_axes`: for each positional argument, the axis that holds the batch
    (every leaf of a pytree argument the same), or None to share the argument
    across the batch; one int for all. `out_axes`: where the batch goes in the
    outputs (one int, or one per output of a tuple). The batched function is
    one relax program (each op batched by its rule; ops that read no batched
    value run once), and nests with `jit`, `grad`, `jvp`, `vjp` and `vmap`:
    `vmap(grad(loss), in_axes=(None, 0, 0))(params, x, y)` gives per-example
    gradients in one call. Every relax op has a batching rule
    (`relax_mlir.ops()` lists them); a `custom_vjp`/`custom_jvp` function
    keeps its rules under vmap, so `grad` of the batched function uses them
    (a shared argument's gradient summed over the batch)."""
    return Batched(fn, in_axes, out_axes)


def _lookup(cache: OrderedDict[Any, Any], key: Any) -> Any:
    """`cache[key]` (now the most recently used), or None."""
    value = cache.get(key)
    if value is not None:
        cache.move_to_end(key)
    return value


def _store(cache: OrderedDict[Any, Any], key: Any, value: Any) -> None:
    """`cache[key] = value`, the least recently used dropped past
    `config.cache_size`."""
    cache[key] = value
    limit = config.cache_size
    while limit is not None and len(cache) > limit:
        cache.popitem(last=False)
