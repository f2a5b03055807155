//===- StructureOps.td - relax structure ops ---------------*- tablegen -*-===//
//
// Included by RelaxOps.td; see there for the shared definitions.
//
//===----------------------------------------------------------------------===//

#ifndef RELAX_OPS_STRUCTURE_OPS_TD
#define RELAX_OPS_STRUCTURE_OPS_TD

//===----------------------------------------------------------------------===//
// Structure: dataflow block and tuples
//===----------------------------------------------------------------------===//

def Relax_DataflowOp : Relax_Op<"dataflow", [RecursiveMemoryEffects, SingleBlock,
                                             NoRegionArguments]> {
  let summary = "A block of pure bindings (a Relax dataflow block)";
  let description = [{
    Holds the pure computation of a function, in order, terminated by
    `relax.output` whose operands become the op's results. The `gradient` pass
    differentiates the bindings of a function's one dataflow block.

    ```mlir
    %r:2 = relax.dataflow -> (tensor<f32>, tensor<4xf32>) {
      %s = relax.sum %x : tensor<4xf32> -> tensor<f32>
      relax.output %s, %x : tensor<f32>, tensor<4xf32>
    }
    ```
  }];
  let results = (outs Variadic<AnyType>:$results);
  let regions = (region SizedRegion<1>:$body);
  let assemblyFormat = "(`->` `(` type($results)^ `)`)? $body attr-dict";
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    /// The terminator of the body.
    OutputOp getOutput();
  }];
}

def Relax_OutputOp : Relax_Op<"output", [Pure, Terminator, ReturnLike,
                                         HasParent<"DataflowOp">]> {
  let summary = "Terminates a dataflow block and names its results";
  let description = [{
    ```mlir
    relax.output %loss, %logits : tensor<f32>, tensor<8x10xf32>
    ```
  }];
  let arguments = (ins Variadic<AnyType>:$operands);
  let assemblyFormat = "attr-dict ($operands^ `:` type($operands))?";
}

def Relax_TupleOp : Relax_Op<"tuple", [Pure, InferTypeOpAdaptor, Relax_Differentiable,
                                       Relax_Batchable]> {
  let summary = "Builds a tuple from values";
  let description = [{
    The result is a builtin `tuple<...>` of the operand types (nesting allowed).

    ```mlir
    %t = relax.tuple(%a, %b : tensor<2xf32>, tensor<f32>)
    ```
  }];
  let arguments = (ins Variadic<Relax_Value>:$fields);
  let results = (outs Relax_Tuple:$result);
  let assemblyFormat = "`(` ($fields^ `:` type($fields))? `)` attr-dict";
}

def Relax_TupleGetItemOp : Relax_Op<"tuple_get_item", [Pure, InferTypeOpAdaptor, Relax_Batchable,
                                                       Relax_LinearDifferentiable]> {
  let summary = "Reads one field of a tuple";
  let description = [{
    ```mlir
    %b = relax.tuple_get_item %t[1] : tuple<tensor<2xf32>, tensor<f32>>
    ```
  }];
  let arguments = (ins Relax_Tuple:$tuple, I64Attr:$index);
  let results = (outs Relax_Value:$result);
  let assemblyFormat = "$tuple `[` $index `]` attr-dict `:` type($tuple)";
  let hasFolder = 1;
}

//===----------------------------------------------------------------------===//
// Checkpoint markers (Chen et al. 2016, "Training deep nets with sublinear
// memory cost")
//===----------------------------------------------------------------------===//

class Relax_CheckpointMarkerOp<string mnemonic, string role>
    : Relax_Op<mnemonic, [Pure, SameOperandsAndResultType, Relax_LinearDifferentiable,
                          Relax_Batchable]> {
  let summary = "Identity marking the " # role # " of a checkpointed segment";
  let description = "Returns its operand. Bindings computed from a "
    "`relax.start_checkpoint` value, up to the `relax.end_checkpoint` values, form a "
    "segment: the gradient pass keeps only the segment's inputs for the backward "
    "pass and recomputes the segment (as `..._cp` bindings) right where the "
    "backward pass first needs it. The markers do not appear in the adjoint.\n\n"
    "```mlir\n%s = relax." # mnemonic # " %x : tensor<8x16xf32>\n```";
  let arguments = (ins Relax_Value:$x);
  let results = (outs Relax_Value:$result);
  let assemblyFormat = "$x attr-dict `:` type($result)";
}

def Relax_StartCheckpointOp : Relax_CheckpointMarkerOp<"start_checkpoint", "input">;
def Relax_EndCheckpointOp : Relax_CheckpointMarkerOp<"end_checkpoint", "output">;

//===----------------------------------------------------------------------===//
// Calls with derivative rules of their own
//===----------------------------------------------------------------------===//

def Relax_CallWithRulesOp : Relax_Op<"call_with_rules", [
    CallOpInterface, DeclareOpInterfaceMethods<SymbolUserOpInterface>, Relax_Differentiable,
    Relax_RegionBatchable]> {
  let summary = "A call whose derivatives are given functions";
  let description = [{
    Calls `@callee` (one result), whose derivatives in both modes are the given
    functions rather than its body's: `@jvp(operands..., tangents...) ->
    tuple<result, result_tangent>` (one tangent per float operand, in order;
    the jvp pass's signature) and `@vjp(operands..., cotangent) ->
    tuple<grad...>` (one gradient per float operand, in order; a tuple
    cotangent is passed as its fields). The Python
    frontend's `custom_vjp` and `custom_jvp` emit it, with the functions they
    trace or derive: a custom VJP (its forward and backward composed), a
    custom JVP, the jvp pass's JVP of the callee (a `custom_vjp` function in
    forward mode), or the reverse mode of the custom JVP's tangent map (a
    `custom_jvp` function in reverse mode: the VJP is the transpose of the JVP,
    as JAX's). The differentiation passes do not inline it (they inline plain
    calls); MLIR's inliner does, when lowering. Under vmap it stays a
    call_with_rules, of the batched callee and rules (a shared operand's
    gradient summed over the batch), so a later gradient still uses the rule.

    ```mlir
    %y = relax.call_with_rules @f(%x) jvp @f_jvp vjp @f_vjp : (tensor<3xf32>) -> tensor<3xf32>
    ```
  }];
  let arguments = (ins FlatSymbolRefAttr:$callee, FlatSymbolRefAttr:$jvp, FlatSymbolRefAttr:$vjp,
                       Variadic<Relax_Value>:$operands,
                       OptionalAttr<DictArrayAttr>:$arg_attrs,
                       OptionalAttr<DictArrayAttr>:$res_attrs);
  let results = (outs Relax_Value:$result);
  let assemblyFormat = [{
    $callee `(` $operands `)` `jvp` $jvp `vjp` $vjp attr-dict `:`
    functional-type($operands, $result)
  }];
  let extraClassDeclaration = [{
    operand_range getArgOperands() { return getOperands(); }
    ::mlir::MutableOperandRange getArgOperandsMutable() { return getOperandsMutable(); }
    ::mlir::CallInterfaceCallable getCallableForCallee() { return getCalleeAttr(); }
    void setCalleeFromCallable(::mlir::CallInterfaceCallable callee) {
      (*this)->setAttr("callee", ::llvm::cast<::mlir::SymbolRefAttr>(callee));
    }
  }];
}

//===----------------------------------------------------------------------===//
// Derivative barrier
//===----------------------------------------------------------------------===//

def Relax_StopGradientOp : Relax_Op<"stop_gradient",
    [Pure, SameOperandsAndResultType, Relax_StopsDerivatives, Relax_Batchable]> {
  let summary = "Identity whose derivative is zero";
  let description = [{
    Returns its operand; the gradient and jvp passes treat the result as a
    constant (no adjoint flows back through it, no tangent forward), at every
    order: it stays in the functions they produce, so a second derivative
    does not see through it either. JAX's `lax.stop_gradient`. Removed when
    lowering.

    ```mlir
    %s = relax.stop_gradient %x : tensor<8x16xf32>
    ```
  }];
  let arguments = (ins Relax_Value:$x);
  let results = (outs Relax_Value:$result);
  let assemblyFormat = "$x attr-dict `:` type($result)";
}

def Relax_DebugPrintOp : Relax_Op<"debug_print", [MemoryEffects<[MemWrite]>, Relax_Batchable]> {
  let summary = "Prints values each time the compiled code runs";
  let description = [{
    `relax_mlir.debug.print`'s op (JAX's `jax.debug.print`): when the code
    runs, the values are read back and printed by the process's printer, in
    program order. `format` is a JSON object the printer reads: `"format"` (a
    Python format string) and `"args"`/`"kwargs"` (the pytree structure the
    values fill, as an exported library records it). It has no result; it
    writes to the output, so no pass removes it. The gradient and jvp passes
    keep it with the forward computation (it prints when the derived function
    runs); vmap prints each example in turn, as JAX does. Lowered to a call of
    the runtime's `relaxDebug` per value (a contiguous copy's address) and one
    to print; CPU only.

    ```mlir
    relax.debug_print "{\"format\": \"x = {}\", \"args\": {\"tuple\": [\"*\"]}, \"kwargs\": {\"dict\": []}}" %x : tensor<3xf32>
    ```
  }];
  let arguments = (ins StrAttr:$format, Variadic<Relax_Tensor>:$values);
  let assemblyFormat = "$format ($values^ `:` type($values))? attr-dict";
}

#endif // RELAX_OPS_STRUCTURE_OPS_TD
