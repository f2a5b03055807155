"""`relax_mlir.lax`: JAX's `lax` functions that are not numpy's.

- `stop_gradient(x)`: `x` (any pytree of arrays), with a zero derivative: the
  `relax.stop_gradient` op, which the gradient and jvp passes treat as a
  constant, at every order.
- Control flow, with JAX's names and signatures: `scan`, `fori_loop`,
  `while_loop`, `cond` and `switch`. Each traces its functions once (into the
  body of a `relax.scan`, `relax.while`, `relax.if` or `relax.switch`), so a
  loop of any length compiles in the time of one iteration. Carries and
  operands are pytrees of arrays. They nest with each other and with `jit`,
  `grad`, `vjp`, `jvp` and `checkpoint`. Called on numpy values outside a
  traced function, each runs as a compiled function of its array arguments.

Reverse mode of `scan` stores the carry entering each iteration (not the
body's intermediates) and recomputes the body in the backward pass;
`checkpoint_every=k` stores fewer (about k per level of a nest of chunks of k
iterations). `while_loop` is reverse-differentiable when given
`max_iterations` (JAX's is not at all): the loop also stops after that many
iterations, and the backward pass stores about k carries for each of the
log_k(max_iterations) levels of its checkpoints (k = `checkpoint_every`,
default 8), and does work in proportion to the iterations the loop ran.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from . import ir
from ._module import functions
from ._pytree import Treedef, tree_flatten, tree_unflatten
from ._trace import (
    Trace,
    Tracer,
    current_trace,
    emit_op,
    innermost_trace,
    primitive,
    tensor_type,
)
from .dialects import func as func_d
from .dialects import relax as _r
from .errors import call_site
from .numpy import asarray

__all__ = ["stop_gradient", "scan", "fori_loop", "while_loop", "cond", "switch"]


def stop_gradient(x: Any) -> Any:
    """`x` unchanged, but constant to differentiation (JAX's
    `lax.stop_gradient`): no gradient flows back through it and no tangent
    forward, in `grad`, `vjp`, `jvp` and their compositions (a Hessian does
    not see through it either). Works on pytrees; outside a traced function
    it returns numpy arrays unchanged."""
    leaves, _, treedef = tree_flatten(x)
    trace = current_trace()
    if trace is None:
        return tree_unflatten(treedef, iter(np.asarray(v) for v in leaves))
    out = []
    for v in leaves:
        array = asarray(v)
        out.append(emit_op(_r.stop_gradient, array) if isinstance(array, Tracer) else array)
    return tree_unflatten(treedef, iter(out))


# ----------------------------------------------------------------------------
# Tracing bodies
# ----------------------------------------------------------------------------

Spec = tuple[str, tuple[int, ...], Any]


def _leaves(tree: Any) -> tuple[list[Tracer], Treedef]:
    """The leaves of a pytree as traced arrays of the innermost trace."""
    leaves, _, treedef = tree_flatten(tree)
    return [asarray(leaf) for leaf in leaves], treedef


def _spec(leaves: Sequence[Tracer], stem: str) -> list[Spec]:
    return [(f"{stem}{i}", tuple(a.shape), a.dtype) for i, a in enumerate(leaves)]


class _Body:
    """A function traced into `@main` of a module of its own: its parameters
    are the given leaves, then the arrays of enclosing traces it reads
    (`captures`, the outer arrays to pass for them)."""

    def __init__(self, fn: Callable[..., Any], specs: Sequence[Spec],
                 unpack: Callable[[list[Tracer]], tuple[Any, ...]], what: str) -> None:
        with Trace() as trace:
            tracers = trace.begin("main", list(specs))
            out = fn(*unpack(tracers))
            leaves, _, self.treedef = tree_flatten(out)
            arrays = [asarray(leaf) for leaf in leaves]
            self.types = [(tuple(a.shape), a.dtype) for a in arrays]
            if not arrays:
                # A body must produce something: a 0-d placeholder.
                arrays = [asarray(np.zeros((), np.int32))]
            trace.finish([trace.lift(a).value for a in arrays])
        self.module = trace.module
        self.context = trace.context
        self.captures: list[Tracer] = [outer for outer, _ in trace.captures]
        self.what = what

    def import_into(self, outer: Trace, stem: str) -> str:
        return outer.import_function(self.module, "main", stem)


def _consts(bodies: Sequence[_Body]) -> list[Tracer]:
    """The captured arrays of `bodies`, each once."""
    seen: dict[int, Tracer] = {}
    for body in bodies:
        for c in body.captures:
            seen.setdefault(id(c), c)
    return list(seen.values())


def _call_body(outer: Trace, callee: str, body: _Body, args: Sequence[ir.Value],
               consts: Sequence[Tracer], const_args: Sequence[ir.Value]) -> list[ir.Value]:
    """Inside a region: `@callee(args..., its captures...)` (the region's
    arguments `const_args` stand for `consts`) and its results' leaves."""
    index = {id(c): i for i, c in enumerate(consts)}
    operands = list(args) + [const_args[index[id(c)]] for c in body.captures]
    result_type = ir.FunctionType(ir.TypeAttr(
        functions(outer.module)[callee].attributes["function_type"]).value)
    call = func_d.CallOp(result_type.results, callee, operands)
    if not body.types:
        return []
    if len(body.types) == 1:
        return [call.results[0]]
    return [_r.tuple_get_item(call.results[0], i) for i in range(len(body.types))]


def _emit_region_op(outer: Trace, build: Callable[[], Any], what: str) -> list[Tracer]:
    """Builds a region op in `outer` at the user's line, verified; its
    results as traced arrays."""
    return [Tracer(outer, r) for r in outer.emit(build, op=what).results]


def _block(region: Any, types: Sequence[ir.Type]) -> Any:
    return region.blocks.append(*types)


def _tensor_type(shape: Sequence[int], dtype: Any) -> ir.Type:
    return tensor_type(list(shape), dtype)


def _check_int(fn: str, name: str, value: Any, minimum: int) -> None:
    """A ValueError unless `value` is None or an int >= `minimum`."""
    if value is not None and (isinstance(value, bool) or not isinstance(value, (int, np.integer))
                              or value < minimum):
        raise ValueError(f"{call_site()}: {fn}: {name} must be an int >= {minimum}, got "
                         f"{value!r}; write {name}={max(minimum, 2)}, say, or leave it out")


def _type_name(shape: tuple[int, ...], dtype: Any) -> str:
    return f"{np.dtype(dtype).name}{list(shape)}"


def _check_same(what: str, expected: Treedef, expected_types: Sequence[Any], got: Treedef,
                got_types: Sequence[Any], fix: str) -> None:
    if str(expected) != str(got):
        raise TypeError(f"{call_site()}: {what} must have the same structure: {expected} and "
                        f"{got}; return the same tuples/lists/dicts of arrays")
    for i, (a, b) in enumerate(zip(expected_types, got_types)):
        if a[0] != b[0] or np.dtype(a[1]) != np.dtype(b[1]):
            raise TypeError(f"{call_site()}: {what} must have the same types, but leaf {i} is "
                            f"{_type_name(*a)} and {_type_name(*b)}; {fix}")


# ----------------------------------------------------------------------------
# scan and fori_loop
# ----------------------------------------------------------------------------

def _scan(f: Callable[..., Any], init: Any, xs: Any = None, length: int | None = None,
          reverse: bool = False, unroll: int | bool = 1, *,
          checkpoint_every: int | None = None) -> Any:
    if not callable(f):
        raise TypeError(f"{call_site()}: scan: f must be a function f(carry, x) -> (carry, y), "
                        f"got {type(f).__name__}; write lax.scan(f, init, xs)")
    if not isinstance(unroll, (bool, int, np.integer)) or (
            not isinstance(unroll, bool) and unroll < 1):
        raise ValueError(f"{call_site()}: scan: unroll must be a positive int or a bool, got "
                         f"{unroll!r}; leave it out (the loop stays rolled)")
    _check_int("scan", "checkpoint_every", checkpoint_every, 1)
    outer = innermost_trace()
    carries, carry_def = _leaves(init)
    x_leaves, x_def = _leaves(xs)
    lengths = {int(x.shape[0]) for x in x_leaves if x.ndim > 0}
    if any(x.ndim == 0 for x in x_leaves):
        raise ValueError(f"{call_site()}: scan: every leaf of xs needs a leading axis to scan "
                         f"over; got a 0-d array: stack the per-iteration values along axis 0, "
                         f"or let f close over a value that does not change")
    if length is not None:
        if not isinstance(length, (int, np.integer)) or length < 0:
            raise ValueError(f"{call_site()}: scan: length must be a non-negative int, got "
                             f"{length!r}; write length=<number of iterations>")
        lengths.add(int(length))
    if len(lengths) > 1:
        raise ValueError(f"{call_site()}: scan: the leaves of xs have different leading axes "
                         f"{sorted(lengths)}" + (" (and length)" if length is not None else "")
                         + "; they must all equal the number of iterations")
    if not lengths:
        raise ValueError(f"{call_site()}: scan: with no xs, give the number of iterations as "
                         f"length=")
    n = lengths.pop()
    nc = len(carries)
    specs = _spec(carries, "carry") + [(f"x{i}", tuple(x.shape[1:]), x.dtype)
                                       for i, x in enumerate(x_leaves)]
    slice_types = [_tensor_type(x.shape[1:], x.dtype) for x in x_leaves]

    def unpack(ts: list[Tracer]) -> tuple[Any, ...]:
        return (tree_unflatten(carry_def, iter(ts[:nc])), tree_unflatten(x_def, iter(ts[nc:])))

    out_defs: list[Treedef] = []

    def body_fn(carry: Any, x: Any) -> Any:
        out = f(carry, x)
        if not isinstance(out, (tuple, list)) or len(out) != 2:
            raise TypeError(f"{call_site()}: scan: f must return a pair (carry, y), got "
                            f"{type(out).__name__}; return (new_carry, None) when there are "
                            f"no per-iteration outputs")
        new_carry, y = out
        c_leaves, c_def = _leaves(new_carry)
        _check_same("scan: the carry f returns and the carry it takes", carry_def,
                    [(tuple(c.shape), c.dtype) for c in carries], c_def,
                    [(tuple(c.shape), c.dtype) for c in c_leaves],
                    "convert it (.astype) so that the carry keeps its type")
        y_leaves, y_def = _leaves(y)
        out_defs.append(y_def)
        return tuple(c_leaves) + tuple(y_leaves)

    body = _Body(body_fn, specs, unpack, "scan body")
    y_types = body.types[nc:]
    consts = _consts([body])
    callee = body.import_into(outer, "scan_body")

    def build() -> Any:
        result_types = [c.value.type for c in carries] + [
            _tensor_type((n, *s), d) for s, d in y_types]
        args = [outer.operand(c) for c in consts] + [c.value for c in carries] + \
            [x.value for x in x_leaves]
        op = _r.ScanOp(result_types, args, len(consts), nc, n, reverse=bool(reverse) or None,
                       checkpoint_every=checkpoint_every)
        block = _block(op.regions[0], [c.value.type for c in consts] +
                       [c.value.type for c in carries] + slice_types)
        with ir.InsertionPoint(block):
            k = len(consts)
            outs = _call_body(outer, callee, body, list(block.arguments)[k:], consts,
                              list(block.arguments)[:k])
            _r.YieldOp(outs[:nc + len(y_types)])
        return op

    results = _emit_region_op(outer, build, "scan")
    return (tree_unflatten(carry_def, iter(results[:nc])),
            tree_unflatten(out_defs[0], iter(results[nc:])))


scan = primitive(_scan, name="scan", doc="""JAX's `lax.scan`: `f(carry, x) -> (carry, y)` over
the leading axis of `xs` (a pytree of arrays; None with `length=`), from
`init`; returns `(final carry, ys)` with the ys stacked along a new leading
axis. `reverse=True` scans from the last slice to the first (ys keep their
positions). The carry must keep its structure, shapes and dtypes. `unroll` is
accepted for JAX's signature and does not change the result (the loop stays
rolled).

`checkpoint_every=k` (relax only) bounds what reverse mode stores: instead
of the carry entering every iteration, the carries entering chunks of k
iterations, nested recursively (memory about k * log_k(length) carries; each
extra level recomputes the forward once more): k near sqrt(length) stores
about 2 sqrt(length) carries for one extra forward sweep.""")


def _fori_loop(lower: Any, upper: Any, body_fun: Callable[..., Any], init_val: Any) -> Any:
    if not callable(body_fun):
        raise TypeError(f"{call_site()}: fori_loop: body_fun must be a function body_fun(i, val) "
                        f"-> val, got {type(body_fun).__name__}; write "
                        f"lax.fori_loop(lower, upper, body_fun, init_val)")
    if isinstance(lower, Tracer) or isinstance(upper, Tracer):
        # Bounds known only at run time: a while loop (forward mode only in
        # reverse-differentiated code, as in JAX).
        def cond_fun(state: Any) -> Any:
            i, hi, _ = state
            return i < hi

        def body(state: Any) -> Any:
            i, hi, val = state
            return (i + 1, hi, body_fun(i, val))

        lo = asarray(lower, np.int32)
        hi = asarray(upper, np.int32)
        return while_loop(cond_fun, body, (lo, hi, init_val))[2]
    for name, v in (("lower", lower), ("upper", upper)):
        if not isinstance(v, (int, np.integer)):
            raise TypeError(f"{call_site()}: fori_loop: {name} must be an int (or a traced integer "
                            f"array), got {type(v).__name__}; convert it with int(...)")
    lower, upper = int(lower), int(upper)
    if upper <= lower:
        return init_val
    indices = np.arange(lower, upper, dtype=np.int32)
    return scan(lambda val, i: (body_fun(i, val), None), init_val, indices)[0]


fori_loop = primitive(_fori_loop, name="fori_loop", doc="""JAX's `lax.fori_loop`:
`body_fun(i, val) -> val` for i from `lower` to `upper` - 1 (an int32 array
in the body). With int bounds it is a `scan` (differentiable in both modes);
with traced bounds, a `while_loop` (reverse mode then needs the bound:
write it with int bounds or `while_loop(..., max_iterations=)`).""")


# ----------------------------------------------------------------------------
# while_loop
# ----------------------------------------------------------------------------

def _while_loop(cond_fun: Callable[..., Any], body_fun: Callable[..., Any], init_val: Any,
                max_iterations: int | None = None, *,
                checkpoint_every: int | None = None) -> Any:
    for name, fn in (("cond_fun", cond_fun), ("body_fun", body_fun)):
        if not callable(fn):
            raise TypeError(f"{call_site()}: while_loop: {name} must be a function, got "
                            f"{type(fn).__name__}; write lax.while_loop(cond_fun, body_fun, "
                            f"init_val)")
    _check_int("while_loop", "max_iterations", max_iterations, 0)
    _check_int("while_loop", "checkpoint_every", checkpoint_every, 2)
    outer = innermost_trace()
    carries, carry_def = _leaves(init_val)
    specs = _spec(carries, "carry")
    types = [(tuple(c.shape), c.dtype) for c in carries]

    def unpack(ts: list[Tracer]) -> tuple[Any, ...]:
        return (tree_unflatten(carry_def, iter(ts)),)

    def cond_body(val: Any) -> Any:
        p = asarray(cond_fun(val))
        if p.shape != () or p.dtype != np.bool_:
            raise TypeError(f"{call_site()}: while_loop: cond_fun must return a scalar boolean, "
                            f"got {_type_name(tuple(p.shape), p.dtype)}; return one comparison, "
                            f"e.g. rnp.sum(v * v) > 1e-6")
        return p

    def body_body(val: Any) -> Any:
        leaves, treedef = _leaves(body_fun(val))
        _check_same("while_loop: the value body_fun returns and the one it takes", carry_def,
                    types, treedef, [(tuple(c.shape), c.dtype) for c in leaves],
                    "convert it (.astype) so that the loop value keeps its type")
        return tuple(leaves)

    cond_traced = _Body(cond_body, specs, unpack, "while_loop cond")
    body_traced = _Body(body_body, specs, unpack, "while_loop body")
    consts = _consts([cond_traced, body_traced])
    cond_name = cond_traced.import_into(outer, "while_cond")
    body_name = body_traced.import_into(outer, "while_body")

    def build() -> Any:
        arg_types = [c.value.type for c in consts] + [c.value.type for c in carries]
        args = [outer.operand(c) for c in consts] + [c.value for c in carries]
        op = _r.WhileOp([c.value.type for c in carries], args, len(consts),
                        max_iterations=max_iterations, checkpoint_every=checkpoint_every)
        k = len(consts)
        block = _block(op.regions[0], arg_types)
        with ir.InsertionPoint(block):
            outs = _call_body(outer, cond_name, cond_traced, list(block.arguments)[k:], consts,
                              list(block.arguments)[:k])
            _r.ConditionOp(outs[0])
        block = _block(op.regions[1], arg_types)
        with ir.InsertionPoint(block):
            outs = _call_body(outer, body_name, body_traced, list(block.arguments)[k:], consts,
                              list(block.arguments)[:k])
            _r.YieldOp(outs)
        return op

    results = _emit_region_op(outer, build, "while_loop")
    return tree_unflatten(carry_def, iter(results))


while_loop = primitive(_while_loop, name="while_loop", doc="""JAX's `lax.while_loop`:
`body_fun(val) -> val` while `cond_fun(val)` (a scalar boolean) holds,
from `init_val`. Forward mode (`jvp`) always works. Reverse mode (`grad`,
`vjp`) needs `max_iterations=n` (relax only; JAX cannot reverse-differentiate
a while loop): the loop then also stops after n iterations, and the backward
pass stores about k * log_k(n) loop values (`checkpoint_every=k`, default 8),
recomputing each iteration at most once per level; the work, forward and
backward, follows the iterations the loop ran, not n.""")


# ----------------------------------------------------------------------------
# cond and switch
# ----------------------------------------------------------------------------

def _branches(what: str, selector: Tracer, branches: Sequence[Callable[..., Any]],
              operands: tuple[Any, ...], build_op: Callable[..., Any]) -> Any:
    outer = innermost_trace()
    leaves, in_def = _leaves(operands)
    specs = _spec(leaves, "x")

    def unpack(ts: list[Tracer]) -> tuple[Any, ...]:
        return tuple(tree_unflatten(in_def, iter(ts)))

    traced: list[_Body] = []
    for i, fn in enumerate(branches):
        if not callable(fn):
            raise TypeError(f"{call_site()}: {what}: branch {i} must be a function, got "
                            f"{type(fn).__name__}; pass functions of the operands (a lambda "
                            f"for a constant result)")
        traced.append(_Body(fn, specs, unpack, f"{what} branch {i}"))
    first = traced[0]
    for i, body in enumerate(traced[1:], 1):
        _check_same(f"{what}: the outputs of branch 0 and branch {i}", first.treedef,
                    first.types, body.treedef, body.types,
                    "every branch must return the same structure of arrays, with the same "
                    "shapes and dtypes")
    consts = _consts(traced)
    names = [body.import_into(outer, f"{what}_branch{i}") for i, body in enumerate(traced)]
    out_types = [_tensor_type(s, d) for s, d in first.types]

    def build() -> Any:
        inputs = [outer.operand(c) for c in consts] + [v.value for v in leaves]
        op = build_op(out_types, selector.value, inputs)
        k = len(consts)
        for region, name, body in zip(op.regions, names, traced):
            block = _block(region, [v.type for v in inputs])
            with ir.InsertionPoint(block):
                outs = _call_body(outer, name, body, list(block.arguments)[k:], consts,
                                  list(block.arguments)[:k])
                _r.YieldOp(outs[:len(first.types)])
        return op

    results = _emit_region_op(outer, build, what)
    return tree_unflatten(first.treedef, iter(results))


def _cond(pred: Any, true_fun: Callable[..., Any], false_fun: Callable[..., Any],
          *operands: Any) -> Any:
    p = asarray(pred)
    if p.shape != ():
        raise TypeError(f"{call_site()}: cond: pred must be a scalar, got shape {tuple(p.shape)}; "
                        f"reduce it to one value, e.g. rnp.sum(p) > 0")
    if p.dtype != np.bool_:
        if p.dtype.kind not in "iuf":
            raise TypeError(f"{call_site()}: cond: pred must be a boolean or a number, got "
                            f"{p.dtype}; compare it, e.g. x > 0")
        p = asarray(p != 0)
    return _branches("cond", p, [true_fun, false_fun], operands,
                     lambda types, sel, inputs: _r.IfOp(types, sel, inputs))


cond = primitive(_cond, name="cond", doc="""JAX's `lax.cond`: `true_fun(*operands)` if
`pred` (a scalar boolean, or a number compared with 0) else
`false_fun(*operands)`. Both are traced; they must return the same structure
of arrays (shapes and dtypes). Both differentiation modes differentiate the
branch taken.""")


def _switch(index: Any, branches: Sequence[Callable[..., Any]], *operands: Any) -> Any:
    if not isinstance(branches, (list, tuple)) or not branches:
        raise TypeError(f"{call_site()}: switch: branches must be a non-empty list of functions, "
                        f"got {type(branches).__name__}; write "
                        f"lax.switch(index, [f0, f1], *operands)")
    i = asarray(index)
    if i.shape != () or i.dtype.kind not in "iu":
        raise TypeError(f"{call_site()}: switch: index must be a scalar integer, got "
                        f"{_type_name(tuple(i.shape), i.dtype)}; convert it with "
                        f".astype(np.int32)")
    if i.dtype not in (np.int32, np.int64):
        i = asarray(i, np.int32)
    if len(branches) == 1:
        return branches[0](*operands)
    return _branches("switch", i, list(branches), operands,
                     lambda types, sel, inputs: _r.SwitchOp(types, sel, inputs, len(branches)))


switch = primitive(_switch, name="switch", doc="""JAX's `lax.switch`:
`branches[index](*operands)`, the index clamped to the branches' range (as
JAX's). Every branch is traced and must return the same structure of arrays;
both differentiation modes differentiate the branch taken.""")
