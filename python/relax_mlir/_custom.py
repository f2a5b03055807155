"""`custom_vjp` and `custom_jvp`: functions with derivative rules of their own,
written with `relax_mlir.numpy` and compiled into the same module.

Called while a function is traced, such a function becomes one
`relax.call_with_rules @f(args) jvp @f_jvp vjp @f_vjp`: its body, its forward
rule and its backward rule, each traced into a private function of the traced
module. The compiler's gradient and jvp passes call the rules instead of
differentiating the body (at higher orders they differentiate the rules'
bodies); the inliner lowers the call. Which rule comes from where:

- `defvjp(fwd, bwd)` only: forward mode is the jvp pass over the body (JAX
  refuses: jax-ml/jax#6127); reverse mode is `bwd(fwd(x)[1], g)`.
- `defjvp(rule)` only: forward mode is the rule; reverse mode is the rule's
  tangent map transposed (reverse mode over it in the tangents, which it is
  linear in), as JAX's.
- both: each mode uses its own rule.

The backward rule recomputes the forward rule (`fwd`) for its residuals.
Functions with rules may not close over arrays of an enclosing traced
function (as in JAX): pass them as arguments.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from . import ir
from . import numpy as rnp
from ._gradient import gradient, jacobian_vector_product
from ._module import functions
from ._pytree import Treedef, tree_flatten, tree_unflatten
from ._trace import (
    Trace,
    Tracer,
    TracingError,
    current_trace,
    is_float,
    user_location,
)
from .dialects import relax as relax_d
from .errors import format_location

__all__ = ["custom_jvp", "custom_vjp"]

Spec = tuple[str, tuple[int, ...], Any]


class _WithRules:
    """What custom_vjp and custom_jvp share: the function, its rules, and the
    call that emits relax.call_with_rules."""

    def __init__(self, fun: Callable[..., Any], kind: str) -> None:
        if not callable(fun):
            raise TypeError(f"{kind}: expected a function, got {type(fun).__name__}")
        self.fun = fun
        self.kind = kind
        self.jvp_rule: Callable[..., Any] | None = None
        self.fwd: Callable[..., Any] | None = None
        self.bwd: Callable[..., Any] | None = None
        # Set while the rules are traced: a rule calling the function itself
        # (`f(x)` for the primal output, as JAX's examples do) gets its body.
        self._in_rules = 0
        functools.update_wrapper(self, fun)

    def defjvp(self, jvp: Callable[..., Any]) -> Callable[..., Any]:
        """The forward rule: `jvp(primals, tangents) -> (primal_out,
        tangent_out)` (tuples with one entry per argument). Returns `jvp`, so
        it can be a decorator."""
        if not callable(jvp):
            raise TypeError(f"defjvp: expected a function, got {type(jvp).__name__}")
        self.jvp_rule = jvp
        return jvp

    def defvjp(self, fwd: Callable[..., Any], bwd: Callable[..., Any]) -> None:
        """The reverse rules: `fwd(*args) -> (out, residuals)` and
        `bwd(residuals, cotangent) -> tuple` with one cotangent per argument."""
        if not callable(fwd) or not callable(bwd):
            raise TypeError("defvjp: expected two functions, fwd and bwd")
        self.fwd, self.bwd = fwd, bwd

    def __call__(self, *args: Any) -> Any:
        trace = current_trace()
        if trace is None or self._in_rules:
            return self.fun(*args)
        self._check_rules()

        leaves, _, in_def = tree_flatten(args)
        operands = [rnp.asarray(leaf) for leaf in leaves]
        if not any(is_float(o.dtype) for o in operands):
            return self.fun(*args)  # nothing to differentiate
        self._in_rules += 1
        try:
            return _emit_call(self, trace, operands, in_def)
        finally:
            self._in_rules -= 1

    def _check_rules(self) -> None:
        if self.kind == "custom_vjp" and self.fwd is None:
            raise TypeError(f"{_here()}custom_vjp function {_name(self.fun)} has no rules: call "
                            f"{_name(self.fun)}.defvjp(fwd, bwd) before using it")
        if self.kind == "custom_jvp" and self.jvp_rule is None:
            raise TypeError(f"{_here()}custom_jvp function {_name(self.fun)} has no rule: "
                            f"define it with @{_name(self.fun)}.defjvp")


class custom_vjp(_WithRules):  # noqa: N801 (JAX's name)
    """JAX's `custom_vjp`: `f = custom_vjp(fun)` (or `@custom_vjp`), then
    `f.defvjp(fwd, bwd)` with `fwd(*args) -> (out, residuals)` and
    `bwd(residuals, cotangent) -> tuple` (one entry per argument). Reverse mode
    uses the rules; forward mode differentiates `fun` itself, unless
    `f.defjvp(rule)` gives a forward rule too (JAX refuses `jvp` of a
    `custom_vjp` function). Called on numpy arrays outside a traced function,
    `f` is `fun`."""

    def __init__(self, fun: Callable[..., Any]) -> None:
        super().__init__(fun, "custom_vjp")


class custom_jvp(_WithRules):  # noqa: N801 (JAX's name)
    """JAX's `custom_jvp`: `f = custom_jvp(fun)` (or `@custom_jvp`), then
    `@f.defjvp` on `rule(primals, tangents) -> (primal_out, tangent_out)`.
    Forward mode uses the rule; reverse mode transposes it (reverse mode over
    the rule's tangent map, in which it must be linear, as JAX requires),
    unless `f.defvjp(fwd, bwd)` gives reverse rules too. Called on numpy arrays
    outside a traced function, `f` is `fun`."""

    def __init__(self, fun: Callable[..., Any]) -> None:
        super().__init__(fun, "custom_jvp")


def _here() -> str:
    """The user's `file:line: ` where a rule error is found (the call of the
    function with rules)."""
    return f"{format_location(user_location())}: "


def _name(fn: Any) -> str:
    return getattr(fn, "__qualname__", None) or getattr(fn, "__name__", None) or repr(fn)


# ----------------------------------------------------------------------------
# Tracing the body and the rules
# ----------------------------------------------------------------------------

class _Traced:
    """A traced module with its @main, kept with its context."""

    def __init__(self, trace: Trace) -> None:
        self.module = trace.module
        self.context = trace.context


def _trace(fn: Callable[..., Any], specs: Sequence[Spec], what: str) -> _Traced:
    """`fn(*tracers)` traced into @main of a new module; `fn` returns the one
    ir.Value @main returns, built in the trace it is given."""
    with Trace() as trace:
        tracers = trace.begin("main", list(specs))
        value = fn(trace, *tracers)
        if trace.captures:
            raise TracingError(
                f"{format_location(user_location())}: {what} closes over traced arrays of "
                f"the function it is called in",
                "a function with custom derivative rules (and its rules) must take every "
                "traced array it uses as an argument, as in JAX")
        trace.finish([value])
    return _Traced(trace)


def _pack(trace: Trace, leaves: Sequence[Any], dtypes: Sequence[Any] | None = None) -> ir.Value:
    """One value of `leaves` (arrays of `trace`): the array, or their tuple."""

    values = []
    for i, leaf in enumerate(leaves):
        array = rnp.asarray(leaf)
        if dtypes is not None and array.dtype != dtypes[i]:
            array = rnp.astype(array, dtypes[i])
        values.append(trace.lift(array).value)
    if len(values) == 1:
        return values[0]
    return trace.emit(relax_d.tuple, values, op="tuple")


def _leaf_list(tree: Any, treedef: Treedef, what: str) -> list[Any]:
    leaves, _, got = tree_flatten(tree)
    if str(got) != str(treedef):
        raise TypeError(f"{_here()}{what} must have the structure of the function's output "
                        f"(the same pytree of arrays as the function returns)")
    return leaves


def _emit_call(rules: _WithRules, outer: Trace, operands: list[Tracer], in_def: Treedef) -> Any:
    """relax.call_with_rules in `outer` for `rules` on `operands` (the leaves
    of the arguments, structure `in_def`)."""
    n = len(operands)
    specs: list[Spec] = [(f"x{i}", o.shape, o.dtype) for i, o in enumerate(operands)]
    floats = [i for i, o in enumerate(operands) if is_float(o.dtype)]
    name = _name(rules.fun)
    out_def: list[Treedef] = []
    # (shape, dtype) of each output leaf, as traced (Python scalars included).
    out_leaves: list[tuple[tuple[int, ...], Any]] = []

    def args_of(xs: Sequence[Any]) -> Any:
        return tree_unflatten(in_def, iter(xs))

    def body(trace: Trace, *xs: Tracer) -> ir.Value:
        leaves, _, treedef = tree_flatten(rules.fun(*args_of(xs)))
        arrays = [rnp.asarray(v) for v in leaves]
        out_def.append(treedef)
        out_leaves.extend((a.shape, a.dtype) for a in arrays)
        return _pack(trace, arrays)

    fun = _trace(body, specs, name)
    out_specs = out_def[0]
    out_dtypes = [d for _, d in out_leaves]

    # The forward rule: @(xs..., tangents of the float xs...) -> (out, tangent).
    jvp_rule = rules.jvp_rule
    if jvp_rule is not None:
        def jvp_body(trace: Trace, *xts: Tracer) -> ir.Value:
            xs, ts = list(xts[:n]), iter(xts[n:])
            tangents = [next(ts) if is_float(x.dtype) else rnp.zeros_like(x) for x in xs]
            out, tangent = jvp_rule(tuple(args_of(xs)), tuple(args_of(tangents)))
            leaves = _leaf_list(out, out_specs, f"the primal output of {name}'s jvp rule")
            t_leaves = _leaf_list(tangent, out_specs, f"the tangent output of {name}'s jvp rule")
            return trace.emit(relax_d.tuple, [_pack(trace, leaves, out_dtypes),
                                              _pack(trace, t_leaves, out_dtypes)], op="tuple")

        jvp_module = _trace(jvp_body, specs + [(f"t{i}", operands[i].shape, operands[i].dtype)
                                               for i in floats], f"{name}'s jvp rule")
        jvp_source, jvp_func = jvp_module.module, "main"
    else:
        jvp_source, jvp_func = jacobian_vector_product(fun.module, "main", wrt=floats), "main_jvp"

    # The reverse rule: @(xs..., cotangent leaves...) -> tuple(grads of the float xs).
    ct_specs: list[Spec] = [(f"ct{k}", s, d) for k, (s, d) in enumerate(out_leaves)]
    if rules.fwd is not None:
        assert rules.bwd is not None

        def vjp_body(trace: Trace, *xcs: Tracer) -> ir.Value:
            xs, cts = list(xcs[:n]), list(xcs[n:])
            out, residuals = rules.fwd(*args_of(xs))  # type: ignore[misc]
            grads = rules.bwd(residuals, tree_unflatten(out_specs, iter(cts)))  # type: ignore[misc]
            if not isinstance(grads, (tuple, list)) or len(grads) != len(args_of(xs)):
                raise TypeError(f"{_here()}{name}'s bwd rule must return a tuple with one "
                                f"cotangent per "
                                f"argument ({len(args_of(xs))}), got {type(grads).__name__}")
            leaves, _, g_def = tree_flatten(tuple(grads))
            if str(g_def) != str(tree_flatten(tuple(args_of(xs)))[2]):
                raise TypeError(f"{_here()}{name}'s bwd rule must return cotangents with the "
                                f"structure of the arguments")
            picked = [_pack(trace, [leaves[i]], [xs[i].dtype]) for i in floats]
            return trace.emit(relax_d.tuple, picked, op="tuple")

        vjp_module = _trace(vjp_body, specs + ct_specs, f"{name}'s vjp rules")
        vjp_source = vjp_module.module
    else:
        vjp_source = _transposed(jvp_source, jvp_func, specs, floats, ct_specs, name)

    callee = outer.import_function(fun.module, "main", f"{_symbol(name)}")
    jvp_name = outer.import_function(jvp_source, jvp_func, f"{_symbol(name)}_jvp")
    vjp_name = outer.import_function(vjp_source, "main", f"{_symbol(name)}_vjp")
    result_type = ir.FunctionType(ir.TypeAttr(
        functions(outer.module)[callee].attributes["function_type"]).value).results[0]
    with outer.context:
        refs = [ir.FlatSymbolRefAttr.get(s) for s in (callee, jvp_name, vjp_name)]
    result = outer.emit(relax_d.call_with_rules, result_type, *refs,
                        [o.value for o in operands], op="call_with_rules")
    count = len(ct_specs)
    if count == 1:
        leaves: list[Any] = [Tracer(outer, result)]
    else:
        leaves = [outer.tuple_item(result, i) for i in range(count)]
    return tree_unflatten(out_specs, iter(leaves))


def _transposed(jvp_module: ir.Module, jvp_func: str, specs: list[Spec], floats: list[int],
                ct_specs: list[Spec], name: str) -> ir.Module:
    """The VJP of a custom JVP: reverse mode over its tangent map. With
    L(xs, ts, cts) = sum_k sum(tangent_k(xs, ts) * ct_k), the gradient of L in
    the tangents (at zero tangents; the map is linear in them) is the VJP."""
    n, m = len(specs), len(floats)
    t_specs = [(f"t{i}", specs[i][1], specs[i][2]) for i in floats]
    float_outs = [k for k, (_, _, d) in enumerate(ct_specs) if is_float(d)]

    def loss(trace: Trace, *args: Tracer) -> ir.Value:
        rule = trace.import_function(jvp_module, jvp_func, "rule")
        pair = trace.call(rule, [a.value for a in args[:n + m]])
        tangent = trace.tuple_item(pair, 1)
        cts = args[n + m:]
        fields = [tangent] if len(cts) == 1 else [trace.tuple_item(tangent, k)
                                                   for k in range(len(cts))]
        total = None
        for k in float_outs:
            term = rnp.sum(fields[k] * cts[k])
            total = term if total is None else total + rnp.astype(term, total.dtype)
        if total is None:
            raise TypeError(f"{_here()}{name}: reverse mode of a custom_jvp function needs a "
                            f"float output to pull back (its outputs are integers); give it "
                            f"reverse rules with {name}.defvjp(fwd, bwd), or differentiate "
                            f"only in forward mode")
        return trace.lift(rnp.astype(total, np.float64)).value

    lossed = _trace(loss, specs + t_specs + ct_specs, f"{name}'s jvp rule")
    adjoint = gradient(lossed.module, "main", require_grads=list(range(n, n + m)))

    def vjp(trace: Trace, *args: Tracer) -> ir.Value:
        pullback = trace.import_function(adjoint, "main_adjoint", "pullback")
        zeros = [rnp.zeros(s, d) for _, s, d in t_specs]
        result = trace.call(pullback, [a.value for a in args[:n]] +
                            [trace.lift(z).value for z in zeros] +
                            [a.value for a in args[n:]])
        return trace.tuple_item(result, 1)

    return _trace(vjp, specs + ct_specs, f"{name}'s jvp rule").module


def _symbol(name: str) -> str:
    """A function name as a symbol stem."""
    cleaned = "".join(c if c.isalnum() or c == "_" else "_" for c in name)
    return cleaned.strip("_") or "custom"
