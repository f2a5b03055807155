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

def Relax_TupleOp : Relax_Op<"tuple", [Pure, InferTypeOpAdaptor, Relax_Differentiable]> {
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

def Relax_TupleGetItemOp : Relax_Op<"tuple_get_item", [Pure, InferTypeOpAdaptor,
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
    : Relax_Op<mnemonic, [Pure, SameOperandsAndResultType, Relax_LinearDifferentiable]> {
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

#endif // RELAX_OPS_STRUCTURE_OPS_TD
