"""`jit`, `grad`, `value_and_grad`, `vjp`: compiled transformations of Python
functions written with `relax_mlir.numpy` and `relax_mlir.nn`.

Each call is traced once per signature (the pytree structure, shapes and
dtypes of the array arguments, and the values of static arguments) into relax
IR, differentiated by the gradient pass when asked, compiled, and cached; later
calls with the same signature only run the compiled code. The caches are
bounded (`config.cache_size` signatures per function, `config.eager_cache_size`
for eager calls, least recently used out first): each compiled signature holds
its JIT-compiled code, about 3.5 MB.
"""

from __future__ import annotations

import gc
import inspect
import os
import threading
import weakref
from collections import OrderedDict
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Union

import numpy as np

from . import ir
from ._compile import Executable
from ._compile import compile as _compile
from ._config import config
from ._gradient import gradient
from ._module import functions
from ._stages import LOWERING_STAGES, STAGES, check_stage, run_stages
from ._trace import (
    Trace,
    Tracer,
    Treedef,
    as_leaf_array,
    current_trace,
    is_float,
    tree_flatten,
    tree_leaf_count,
    tree_unflatten,
)

ArgNums = Union[int, Sequence[int]]


@dataclass
class _Bound:
    """One call's arguments: by parameter, in signature order."""

    names: list[str]
    values: list[Any]
    kinds: list[Any]  # inspect.Parameter kinds (None: no signature)

    def call(self, fn: Callable[..., Any], values: Sequence[Any]) -> Any:
        args: list[Any] = []
        kwargs: dict[str, Any] = {}
        for name, value, kind in zip(self.names, values, self.kinds):
            if kind is None or kind == inspect.Parameter.POSITIONAL_ONLY:
                args.append(value)
            elif kind == inspect.Parameter.VAR_POSITIONAL:
                args.extend(value)
            elif kind == inspect.Parameter.VAR_KEYWORD:
                kwargs.update(value)
            elif kind == inspect.Parameter.POSITIONAL_OR_KEYWORD and not kwargs \
                    and len(args) == self.names.index(name):
                # Positional while nothing was skipped keeps *args after it valid.
                args.append(value)
            else:
                kwargs[name] = value
        return fn(*args, **kwargs)


def _bind(fn: Callable[..., Any], args: tuple[Any, ...], kwargs: dict[str, Any]) -> _Bound:
    try:
        sig = inspect.signature(fn)
    except (TypeError, ValueError):
        if kwargs:
            raise TypeError(f"{_name(fn)} has no inspectable signature: pass its arguments "
                            f"positionally") from None
        return _Bound([f"arg{i}" for i in range(len(args))], list(args), [None] * len(args))
    try:
        bound = sig.bind(*args, **kwargs)
    except TypeError as e:
        raise TypeError(f"{_name(fn)}{sig}: {e}") from None
    names = list(bound.arguments)
    return _Bound(names, [bound.arguments[n] for n in names],
                  [sig.parameters[n].kind for n in names])


def _name(fn: Callable[..., Any]) -> str:
    return getattr(fn, "__qualname__", None) or getattr(fn, "__name__", None) or repr(fn)


def _positional_names(fn: Callable[..., Any]) -> list[str] | None:
    try:
        return [p.name for p in inspect.signature(fn).parameters.values()
                if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    except (TypeError, ValueError):
        return None


def _as_tuple(nums: None | int | Sequence[int], what: str) -> tuple[int, ...]:
    if nums is None:
        return ()
    if isinstance(nums, (int, np.integer)) and not isinstance(nums, bool):
        return (int(nums),)
    try:
        out = tuple(int(n) for n in nums)  # type: ignore[union-attr]
    except TypeError:
        raise TypeError(f"{what} must be an int or a sequence of ints, got {nums!r}") from None
    return out


def _key_of(value: Any) -> Any:
    """A hashable stand-in for a static argument's value."""
    try:
        hash(value)
        return value
    except TypeError:
        if isinstance(value, (list, tuple)):
            return (type(value).__name__,) + tuple(_key_of(v) for v in value)
        if isinstance(value, dict):
            return ("dict",) + tuple((k, _key_of(v)) for k, v in sorted(value.items()))
        raise TypeError(f"static argument {value!r} is not hashable; static arguments are "
                        f"part of the cache key") from None


# ----------------------------------------------------------------------------
# Bounded compile caches
# ----------------------------------------------------------------------------



class _CompileCache:
    """Traced (and compiled) signatures by key, at most `config.<setting>` of
    them: a lookup makes an entry the most recently used, an insertion past
    the bound drops the least recently used (its compiled code is freed
    once no call still runs it)."""

    def __init__(self, setting: str) -> None:
        self._setting = setting
        self._entries: OrderedDict[Any, Any] = OrderedDict()
        self._lock = threading.Lock()
        _CACHES.add(self)

    def get(self, key: Any) -> Any:
        with self._lock:
            entry = self._entries.get(key)
            if entry is not None:
                self._entries.move_to_end(key)
            return entry

    def put(self, key: Any, entry: Any) -> None:
        limit = getattr(config, self._setting)
        with self._lock:
            self._entries[key] = entry
            self._entries.move_to_end(key)
            while limit is not None and len(self._entries) > limit:
                self._entries.popitem(last=False)

    def clear(self) -> None:
        with self._lock:
            self._entries.clear()

    def __len__(self) -> int:
        return len(self._entries)


_CACHES: weakref.WeakSet[_CompileCache] = weakref.WeakSet()


def clear_caches() -> None:
    """Drops every compiled signature: of all `jit`, `grad`,
    `value_and_grad` and `vjp` functions and of eager `relax_mlir.numpy`/`nn`
    calls (as `jax.clear_caches()`); their JIT-compiled code is freed, except
    what a `Lowered` or a call still running holds. Later calls trace and
    compile again. `fn.clear_cache()` clears one function's; the caches'
    bounds are settings of `relax_mlir.config`."""
    with _EAGER_LOCK:
        _EAGER.clear()
    _VJP_CACHE.clear()
    for cache in list(_CACHES):
        cache.clear()
    gc.collect()


# ----------------------------------------------------------------------------
# One compiled signature
# ----------------------------------------------------------------------------

@dataclass
class _Entry:
    """A traced signature: its modules and, once compiled, its function."""

    relax: ir.Module  # @main as traced
    adjoint: ir.Module | None  # @main_adjoint only (grad modes)
    out_treedef: Treedef  # of the function's output (loss, or (loss, aux))
    grad_treedefs: list[Treedef] | None  # one per argnum
    function: Any = None
    trace_context: Any = None

    def module(self) -> ir.Module:
        return self.adjoint if self.adjoint is not None else self.relax


class Transformed:
    """A Python function compiled by `jit` (or differentiated by `grad`,
    `value_and_grad`); call it like the function. `lower(*args)` shows its IR.
    It keeps the last `relax_mlir.config.cache_size` signatures compiled
    (least recently used out first); `clear_cache()` drops them."""

    def __init__(self, fn: Callable[..., Any], mode: str, *, argnums: ArgNums = 0,
                 has_aux: bool = False, static_argnums: ArgNums = (),
                 static_argnames: str | Sequence[str] = (), opt_level: int = 3,
                 num_threads: int = 1) -> None:
        if not callable(fn):
            raise TypeError(f"expected a function to transform, got {type(fn).__name__}")
        self.fn = fn
        self.mode = mode
        self.has_aux = bool(has_aux)
        self._argnums_int = isinstance(argnums, (int, np.integer))
        self.argnums = _as_tuple(argnums, "argnums") if mode != "jit" else ()
        if mode != "jit" and not self.argnums:
            raise ValueError("argnums is empty: name at least one argument to differentiate")
        static_nums = _as_tuple(static_argnums, "static_argnums")
        names = _positional_names(fn)
        self.static_names = set([static_argnames] if isinstance(static_argnames, str)
                                else static_argnames)
        for n in static_nums:
            if names is None or not 0 <= n < len(names):
                raise ValueError(f"static_argnums {n} does not name a positional parameter of "
                                 f"{_name(fn)}")
            self.static_names.add(names[n])
        self.grad_names: list[str] = []
        for n in self.argnums:
            if names is None or not -len(names) <= n < len(names):
                raise ValueError(f"argnums {n} is out of range: {_name(fn)} has "
                                 f"{len(names or [])} positional parameters")
            self.grad_names.append(names[n])
        if set(self.grad_names) & self.static_names:
            raise ValueError("an argument cannot be both differentiated and static")
        self.opt_level = opt_level
        self.num_threads = num_threads
        self._cache = _CompileCache("cache_size")
        # Set on eager functions, which share one cache (keys prefixed).
        self._cache_prefix: Any = None
        self._lock = threading.Lock()
        self.__wrapped__ = fn
        self.__name__ = getattr(fn, "__name__", "function")
        self.__doc__ = getattr(fn, "__doc__", None)

    def __repr__(self) -> str:
        return f"<relax_mlir.{self.mode} of {_name(self.fn)}>"

    @property
    def cache_size(self) -> int:
        """How many signatures are cached (at most `config.cache_size`).

        Each is traced, and compiled once called."""
        return len(self._cache)

    def clear_cache(self) -> None:
        """Drops this function's compiled signatures (JAX's `fn.clear_cache()`).

        Their JIT-compiled code is freed; the next call traces and compiles
        again."""
        self._cache.clear()

    # Calls -----------------------------------------------------------------

    def _split(self, args: tuple[Any, ...], kwargs: dict[str, Any]) -> tuple[
            _Bound, list[Any], list[str], list[Treedef], Any]:
        bound = _bind(self.fn, args, kwargs)
        leaves: list[Any] = []
        paths: list[str] = []
        treedefs: list[Treedef] = []
        statics = []
        for name, value in zip(bound.names, bound.values):
            if name in self.static_names:
                statics.append((name, _key_of(value)))
                treedefs.append(None)
                continue
            ls, ps, td = tree_flatten(value, name)
            leaves.extend(ls)
            paths.extend(ps)
            treedefs.append(td)
        for name in self.grad_names:
            if name not in bound.names:
                raise TypeError(f"{_name(self.fn)}: argument '{name}' (argnums) was not given")
        return bound, leaves, paths, treedefs, tuple(statics)

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        if current_trace() is not None:
            return self._inline(args, kwargs)
        entry, arrays = self._entry_for(args, kwargs)
        if entry.function is None:
            with self._lock:
                if entry.function is None:
                    exe: Executable = _compile(entry.module(), opt_level=self.opt_level,
                                               num_threads=self.num_threads)
                    entry.function = exe["main_adjoint" if entry.adjoint is not None else "main"]
        try:
            result = entry.function(*arrays)
        except MemoryError as e:
            raise MemoryError(f"{_name(self.fn)}: {e}") from None
        return self._unpack(entry, result)

    def _entry_for(self, args: tuple[Any, ...], kwargs: dict[str, Any]
                   ) -> tuple[_Entry, list[np.ndarray]]:
        """The traced signature of a call with numpy values, and its arrays."""
        bound, leaves, paths, treedefs, statics = self._split(args, kwargs)
        arrays = [as_leaf_array(v, p) for v, p in zip(leaves, paths)]
        return self._entry(bound, arrays, paths, treedefs, statics), arrays

    def _entry(self, bound: _Bound, arrays: list[np.ndarray], paths: list[str],
               treedefs: list[Treedef], statics: Any) -> _Entry:
        """The cached trace for this signature (structure, shapes, dtypes,
        static values), traced on a miss."""
        # The treedefs themselves: they compare namedtuple classes by identity
        # (two classes of one name, made in a loop or a re-run notebook cell,
        # are different structures: each gets its gradients back in its own
        # class). Their text as well, which tells dict keys 1, 1.0 and True
        # apart (equal as Python values).
        key = (tuple(bound.names), tuple(treedefs), tuple(map(str, treedefs)), statics,
               tuple((a.shape, a.dtype.str) for a in arrays))
        cache_key = key if self._cache_prefix is None else (self._cache_prefix, key)
        entry = self._cache.get(cache_key)
        if entry is None:
            with self._lock:
                entry = self._cache.get(cache_key)
                if entry is None:
                    entry = self._trace(bound, arrays, paths, treedefs)
                    self._cache.put(cache_key, entry)
        return entry

    def _unpack(self, entry: _Entry, result: Any) -> Any:
        if entry.adjoint is None:
            return tree_unflatten(entry.out_treedef, iter(_flat(result, entry.out_treedef)))
        value, grads = result
        return self._package(entry, _flat(value, entry.out_treedef), grads)

    def _package(self, entry: _Entry, value_leaves: Sequence[Any],
                 grad_leaves: Sequence[Any]) -> Any:
        """What `grad`/`value_and_grad` return, from the leaves of the value
        and of the gradients (arrays, or traced values when inlined)."""
        value = tree_unflatten(entry.out_treedef, iter(value_leaves))
        flat = iter(grad_leaves)
        assert entry.grad_treedefs is not None
        per_arg = [tree_unflatten(td, flat) for td in entry.grad_treedefs]
        g = per_arg[0] if self._argnums_int else tuple(per_arg)
        if self.mode == "grad":
            return (g, value[1]) if self.has_aux else g
        return (value, g)

    # Tracing ---------------------------------------------------------------

    def _trace(self, bound: _Bound, arrays: list[np.ndarray], paths: list[str],
               treedefs: list[Treedef]) -> _Entry:
        # Leaves of each parameter: where they start and how many.
        ranges: dict[str, range] = {}
        index = 0
        for name, td in zip(bound.names, treedefs):
            count = 0 if td is None else tree_leaf_count(td)
            ranges[name] = range(index, index + count)
            index += count
        grad_leaves = [i for name in self.grad_names for i in ranges[name]]
        for i in grad_leaves:
            if not is_float(arrays[i].dtype):
                raise TypeError(f"{self.mode}: argument {paths[i]} has dtype {arrays[i].dtype}; "
                                f"only float arrays have gradients (leave it out of argnums or "
                                f"convert it with .astype(np.float32))")
        with Trace() as trace:
            tracers = trace.begin("main", [(p, a.shape, a.dtype) for p, a in zip(paths, arrays)])
            it = iter(tracers)
            values = [value if td is None else tree_unflatten(td, it)
                      for value, td in zip(bound.values, treedefs)]
            out = bound.call(self.fn, values)
            results, out_treedef = self._results(trace, out)
            trace.finish(results)
        entry = _Entry(trace.module, None, out_treedef, None, trace_context=trace.context)
        if self.mode == "jit":
            return entry
        if not grad_leaves:
            raise TypeError(f"{self.mode}: the arguments in argnums hold no arrays")
        adjoint = gradient(trace.module, "main", require_grads=grad_leaves, target_index=0)
        # The adjoint holds the forward bindings itself: @main need not be compiled.
        functions(adjoint)["main"].operation.erase()
        entry.adjoint = adjoint
        by_name = dict(zip(bound.names, treedefs))
        entry.grad_treedefs = [by_name[name] for name in self.grad_names]
        return entry

    def _results(self, trace: Trace, out: Any) -> tuple[list[ir.Value], Treedef]:
        if self.mode != "jit":
            if self.has_aux:
                if not isinstance(out, (tuple, list)) or len(out) != 2:
                    raise TypeError(f"{self.mode} with has_aux=True: the function must return "
                                    f"a pair (loss, aux), got {_describe(out)}")
                loss = out[0]
            else:
                loss = out
            if not _is_float_scalar(loss):
                raise TypeError(f"{self.mode} needs a function returning a scalar (0-d float "
                                f"array){' and aux' if self.has_aux else ''}; got "
                                f"{_describe(loss)}. Reduce it with .sum() or .mean(), or use "
                                f"relax_mlir.vjp for non-scalar outputs")
        leaves, paths, treedef = tree_flatten(out, "result")
        values = []
        for leaf, path in zip(leaves, paths):
            if isinstance(leaf, Tracer):
                if leaf._trace is not trace:
                    raise TypeError(f"{path} is a traced array of another function")
                values.append(leaf.value)
            else:
                try:
                    values.append(trace.constant(as_leaf_array(leaf, path)).value)
                except TypeError as e:
                    raise TypeError(f"the function returned {_describe(leaf)} at {path}; "
                                    f"results must be arrays or tuples/lists/dicts of them "
                                    f"({e})") from None
        if not values:
            raise TypeError("the function returned no arrays")
        return values, treedef

    def _inline(self, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
        """Called inside another trace: `jit` traces through (its ops join the
        outer function); `grad`/`value_and_grad` add their adjoint to the outer
        module as a private function and call it, so the outer function can be
        compiled, or differentiated again (the gradient pass inlines calls:
        Hessian-vector products, grad of grad)."""
        if self.mode == "jit":
            return self.fn(*args, **kwargs)
        outer = current_trace()
        assert outer is not None
        bound, leaves, paths, treedefs, statics = self._split(args, kwargs)
        from . import numpy as rnp
        values = [rnp.asarray(leaf) if isinstance(leaf, Tracer)
                  else rnp.asarray(as_leaf_array(leaf, path))
                  for leaf, path in zip(leaves, paths)]
        # Shapes and dtypes only: zero-strided views allocate nothing.
        abstract = [np.lib.stride_tricks.as_strided(np.zeros((), v.dtype), v.shape,
                                                    [0] * len(v.shape)) for v in values]
        entry = self._entry(bound, abstract, paths, treedefs, statics)
        assert entry.adjoint is not None and entry.grad_treedefs is not None
        callee = outer.import_function(entry.adjoint, "main_adjoint",
                                       f"{self.__name__}_adjoint")
        result = outer.call(callee, [v.value for v in values])
        value_part, grads_part = (outer.tuple_item(result, i) for i in (0, 1))
        count = tree_leaf_count(entry.out_treedef)
        value_leaves = [value_part] if count == 1 else \
            [outer.tuple_item(value_part, i) for i in range(count)]
        grad_count = sum(tree_leaf_count(td) for td in entry.grad_treedefs)
        return self._package(entry, value_leaves,
                             [outer.tuple_item(grads_part, i) for i in range(grad_count)])

    # Inspection ------------------------------------------------------------

    def lower(self, *args: Any, **kwargs: Any) -> Lowered:
        """Traces (and differentiates) for these arguments without running:
        `.as_text(stage)` shows the IR at each stage."""
        return Lowered(self, self._entry_for(args, kwargs)[0])


def _flat(value: Any, treedef: Treedef) -> list[Any]:
    """The compiled function's result as the list of leaves: one array, or the
    tuple of the output's leaves."""
    if tree_leaf_count(treedef) == 1:
        return [value]
    return list(value)


def _is_float_scalar(value: Any) -> bool:
    """Whether `value` can be differentiated as a loss: a 0-d float traced
    array, or a float constant (a Python float, a numpy float scalar or 0-d
    array: its gradient is zero, as JAX's)."""
    if isinstance(value, Tracer):
        return value.shape == () and is_float(value.dtype)
    if isinstance(value, float):
        return True
    return isinstance(value, (np.ndarray, np.floating)) and np.shape(value) == () and \
        is_float(value.dtype)


def _describe(value: Any) -> str:
    if isinstance(value, Tracer):
        return f"an array of shape {value.shape} and dtype {value.dtype}"
    if isinstance(value, (tuple, list)):
        return f"a {type(value).__name__} of {len(value)}"
    return f"a {type(value).__name__}"


class Lowered:
    """A traced signature: its IR at every stage (`as_text`, `module`)."""

    def __init__(self, owner: Transformed, entry: _Entry) -> None:
        self._owner = owner
        self._entry = entry

    @property
    def stages(self) -> tuple[str, ...]:
        """The stages `as_text` shows (`adjoint` only for gradients)."""
        return STAGES if self._entry.adjoint is not None else \
            tuple(s for s in STAGES if s != "adjoint")

    def module(self, stage: str = "relax") -> ir.Module:
        """The module at `stage` (a copy at the lowering stages)."""
        check_stage(stage, self.stages)
        if stage == "relax":
            return self._entry.relax
        if stage == "adjoint":
            assert self._entry.adjoint is not None
            return self._entry.adjoint
        assert stage in LOWERING_STAGES
        return run_stages(self._entry.module(), self._owner.opt_level, self._owner.num_threads,
                          to_stage=stage)

    def export(self, path: str | os.PathLike[str], *, target: str = "cpu", chip: str = "sm_90",
               cpu: str = "host") -> str:
        """Writes this signature's compiled function (the adjoint for
        `grad`/`value_and_grad`) as a shared library for
        `relax_mlir.runtime.load` (see `relax_mlir.export`). The library's
        `main` (`main_adjoint`) takes the arguments' leaves in order and
        returns tensors or nested tuples, as `compile()`'s functions do: the
        Python pytree structure stays here."""
        from ._compile import export

        return export(self._entry.module(), path, target=target, chip=chip,
                      opt_level=self._owner.opt_level, cpu=cpu)

    def as_text(self, stage: str = "relax", debug_info: bool = False) -> str:
        """The IR at `stage` as text; `debug_info` adds each op's location (the
        Python `file:line` it was traced from)."""
        return self.module(stage).operation.get_asm(enable_debug_info=debug_info)


# ----------------------------------------------------------------------------
# Public transformations
# ----------------------------------------------------------------------------

def jit(fn: Callable[..., Any] | None = None, *, static_argnums: ArgNums = (),
        static_argnames: str | Sequence[str] = (), opt_level: int = 3,
        num_threads: int = 1) -> Any:
    """`fn` compiled: traced once per signature into relax IR, lowered and
    JIT-compiled, cached. Arguments and results are numpy arrays, Python
    scalars, or tuples/lists/dicts of them; `static_argnums`/`static_argnames`
    are passed to `fn` as Python values (part of the cache key).
    `opt_level`/`num_threads` are `compile`'s. Usable as `@jit` or
    `@jit(static_argnums=1)`."""
    if fn is None:
        return lambda f: jit(f, static_argnums=static_argnums, static_argnames=static_argnames,
                             opt_level=opt_level, num_threads=num_threads)
    if isinstance(fn, Transformed):
        return fn  # already compiled
    return Transformed(fn, "jit", static_argnums=static_argnums,
                       static_argnames=static_argnames, opt_level=opt_level,
                       num_threads=num_threads)


def grad(fn: Callable[..., Any], argnums: ArgNums = 0, has_aux: bool = False, *,
         static_argnums: ArgNums = (), static_argnames: str | Sequence[str] = (),
         opt_level: int = 3, num_threads: int = 1) -> Transformed:
    """The gradient of scalar-valued `fn` with respect to argument `argnums`
    (an int: that argument's gradient, of its structure; a tuple: a tuple of
    them), compiled through the gradient pass. With `has_aux`, `fn` returns
    `(loss, aux)` and the result is `(gradient, aux)`."""
    return Transformed(fn, "grad", argnums=argnums, has_aux=has_aux,
                       static_argnums=static_argnums, static_argnames=static_argnames,
                       opt_level=opt_level, num_threads=num_threads)


def value_and_grad(fn: Callable[..., Any], argnums: ArgNums = 0, has_aux: bool = False, *,
                   static_argnums: ArgNums = (), static_argnames: str | Sequence[str] = (),
                   opt_level: int = 3, num_threads: int = 1) -> Transformed:
    """As `grad`, returning `(value, gradient)` (`((loss, aux), gradient)` with
    `has_aux`) from one compiled call."""
    return Transformed(fn, "value_and_grad", argnums=argnums, has_aux=has_aux,
                       static_argnums=static_argnums, static_argnames=static_argnames,
                       opt_level=opt_level, num_threads=num_threads)


_VJP_CACHE: weakref.WeakKeyDictionary[Any, tuple[Transformed, Transformed]] = \
    weakref.WeakKeyDictionary()


def vjp(fn: Callable[..., Any], *primals: Any) -> tuple[Any, Callable[[Any], tuple[Any, ...]]]:
    """`(fn(*primals), vjp_fn)`: `vjp_fn(cotangent)` returns, for each primal,
    the cotangent pulled back through `fn` (the gradient of
    `sum(fn(*primals) * cotangent)`), for outputs of any shape and structure.
    Integer outputs take no part (their cotangents are ignored)."""
    if not callable(fn):
        raise TypeError(f"vjp: expected a function, got {type(fn).__name__}")
    try:
        forward, backward = _VJP_CACHE[fn]
    except (KeyError, TypeError):
        forward, backward = jit(fn), grad(_pull_back(fn), argnums=0)
        try:
            _VJP_CACHE[fn] = (forward, backward)
        except TypeError:  # not weak-referenceable: not cached
            pass
    out = forward(*primals)

    def vjp_fn(cotangent: Any) -> tuple[Any, ...]:
        _, _, out_def = tree_flatten(out)
        leaves, _, ct_def = tree_flatten(cotangent)
        if str(ct_def) != str(out_def):
            raise TypeError(f"vjp_fn: the cotangent must have the structure of the output "
                            f"({_structure(out)}), got {_structure(cotangent)}")
        out_leaves = tree_flatten(out)[0]
        cotangent = tree_unflatten(ct_def, iter(
            np.asarray(c, o.dtype) for c, o in zip(leaves, out_leaves)))
        return tuple(backward(tuple(primals), cotangent))

    return out, vjp_fn


def _pull_back(fn: Callable[..., Any]) -> Callable[..., Any]:
    """`(primals, cotangent) -> sum over float outputs of sum(out * cotangent)`:
    its gradient with respect to the primals is the vector-Jacobian product."""
    from . import numpy as rnp

    def pulled_back(primals: tuple[Any, ...], cotangent: Any) -> Any:
        out_leaves, _, _ = tree_flatten(fn(*primals))
        ct_leaves, _, _ = tree_flatten(cotangent)
        total = None
        for o, c in zip(out_leaves, ct_leaves):
            if isinstance(o, Tracer) and is_float(o.dtype):
                if c.shape != o.shape:
                    raise ValueError(f"vjp: a cotangent of shape {c.shape} was given for an "
                                     f"output of shape {o.shape}")
                term = rnp.sum(o * rnp.astype(c, o.dtype))
                total = term if total is None else total + rnp.astype(term, total.dtype)
        if total is None:
            raise TypeError("vjp: the function has no float output to pull back")
        return total

    return pulled_back


def _structure(tree: Any) -> str:
    leaves, paths, _ = tree_flatten(tree, "out")
    return ", ".join(f"{p or 'out'}: {np.shape(v)}" for p, v in zip(paths, leaves))


# ----------------------------------------------------------------------------
# Eager calls of relax_mlir.numpy / nn functions
# ----------------------------------------------------------------------------

# One jit function per eager function and static arguments (least recently
# used out past `config.eager_cache_size`), their signatures all in one cache.
_EAGER: OrderedDict[Any, Transformed] = OrderedDict()
_EAGER_LOCK = threading.Lock()
_EAGER_ENTRIES = _CompileCache("eager_cache_size")


def _holds_arrays(value: Any) -> bool:
    """Whether `value` is a numpy array or a tuple/list/dict of them."""
    leaves = tree_flatten(value)[0]
    return bool(leaves) and all(isinstance(v, (np.ndarray, np.generic)) for v in leaves)


def eager_call(fn: Callable[..., Any], args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
    """Runs a `relax_mlir.numpy`/`nn` function on numpy values: arrays are
    traced arguments, everything else is static; compiled once per signature."""
    kinds = tuple(_holds_arrays(a) for a in args)
    arrays = [a for a, k in zip(args, kinds) if k]
    statics = tuple(_key_of(a) for a, k in zip(args, kinds) if not k)
    static_kwargs = tuple(sorted((k, _key_of(v)) for k, v in kwargs.items()))
    key = (fn, kinds, statics, static_kwargs)
    with _EAGER_LOCK:
        compiled = _EAGER.get(key)
        if compiled is not None:
            _EAGER.move_to_end(key)
        else:
            plain = [a for a, k in zip(args, kinds) if not k]

            def one_op(*xs: Any) -> Any:
                it, rest = iter(xs), iter(plain)
                return fn(*(next(it) if k else next(rest) for k in kinds), **kwargs)

            one_op.__qualname__ = f"{getattr(fn, '__module__', '')}.{_name(fn)}"
            compiled = Transformed(one_op, "jit")
            compiled._cache = _EAGER_ENTRIES
            compiled._cache_prefix = key
            _EAGER[key] = compiled
            limit = config.eager_cache_size
            while limit is not None and len(_EAGER) > limit:
                _EAGER.popitem(last=False)
    return compiled(*arrays)
