"""Helpers shared by the API: accepting modules or text, finding functions, types."""

from __future__ import annotations

from typing import Union

from . import ir, passmanager
from ._boundary import TensorSpec, TupleSpec, TypeSpec
from ._mlir_libs import _site_initialize_0
from .dialects import func as func_d
from .errors import InvalidIRError, RelaxMLIRError, format_mlir_error, is_verifier_error

ModuleLike = Union[ir.Module, str]

def as_module(module: ModuleLike) -> ir.Module:
    """Parses text into a module (in a fresh context unless one is active)."""
    if isinstance(module, ir.Module):
        return module
    if not isinstance(module, str):
        raise TypeError(f"expected an ir.Module or MLIR text, got {type(module).__name__}")
    too_deep = _site_initialize_0.excessive_nesting(module)
    if too_deep is not None:
        line, column, limit = too_deep
        raise RelaxMLIRError("could not parse the MLIR text",
                             f"line {line}, column {column}: the text nests deeper than {limit} "
                             f"levels (brackets of types, attributes or regions); MLIR's parser "
                             f"recurses once per level and would overflow the stack")
    context = _current_context() or ir.Context()
    try:
        return ir.Module.parse(module, context=context)
    except ir.MLIRError as e:
        if is_verifier_error(e):
            raise InvalidIRError("the MLIR text is invalid IR", format_mlir_error(e)) from None
        raise RelaxMLIRError("could not parse the MLIR text", format_mlir_error(e)) from None


def run_passes(module: ir.Module, pipeline: str, error: type[RelaxMLIRError],
               what: str) -> None:
    """Runs the pass pipeline text on `module` in place; a failure raises
    `error(what, MLIR's diagnostics)`."""
    try:
        passmanager.PassManager.parse(pipeline, context=module.context).run(module.operation)
    except ir.MLIRError as e:
        raise error(what, format_mlir_error(e)) from None


def _current_context() -> ir.Context | None:
    try:
        return ir.Context.current
    except ValueError:
        return None


def clone_module(module: ir.Module) -> ir.Module:
    """A deep copy of `module` (with locations) in the same context."""
    text = module.operation.get_asm(enable_debug_info=True, print_generic_op_form=True)
    return ir.Module.parse(text, context=module.context)


def functions(module: ir.Module) -> dict[str, func_d.FuncOp]:
    """The module's func.func ops by name."""
    found = {}
    for op in module.body.operations:
        if op.operation.name == "func.func":
            found[ir.StringAttr(op.attributes["sym_name"]).value] = op
    return found


def require_function(module: ir.Module, name: str) -> func_d.FuncOp:
    """The func.func named `name`, or a ValueError listing the module's functions."""
    fns = functions(module)
    if name not in fns:
        raise ValueError(f"no function named '{name}' in the module; it has: "
                         f"{', '.join(sorted(fns)) or 'none'}")
    return fns[name]


def parameter_names(fn: func_d.FuncOp) -> list[str]:
    """Each parameter's `relax.name` argument attribute, or `arg<i>`."""
    ftype = ir.FunctionType(ir.TypeAttr(fn.attributes["function_type"]).value)
    names = [f"arg{i}" for i in range(len(ftype.inputs))]
    if "arg_attrs" in fn.attributes:
        for i, attrs in enumerate(ir.ArrayAttr(fn.attributes["arg_attrs"])):
            attrs = ir.DictAttr(attrs)
            if "relax.name" in attrs:
                names[i] = ir.StringAttr(attrs["relax.name"]).value
    return names


def type_spec(t: ir.Type) -> TypeSpec:
    """Converts a relax value type (static tensor or tuple) to a spec."""
    t = t.maybe_downcast()
    if isinstance(t, ir.TupleType):
        return TupleSpec(tuple(type_spec(t.get_type(i)) for i in range(t.num_types)))
    if isinstance(t, ir.RankedTensorType):
        rt = t
        if not rt.has_static_shape:
            raise TypeError(f"type {t} has a dynamic shape; relax tensors are static")
        return TensorSpec(tuple(rt.shape), str(rt.element_type))
    raise TypeError(f"type {t} is neither a static tensor nor a tuple")
