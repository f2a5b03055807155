//===- RelaxOps.td - relax dialect ops ---------------------*- tablegen -*-===//
//
// Every op of the relax dialect: structure (dataflow, tuples), elementwise,
// reductions, linear algebra, shape manipulation and creation.
//
//===----------------------------------------------------------------------===//

#ifndef RELAX_OPS_TD
#define RELAX_OPS_TD

include "relax-mlir/Dialect/Relax/IR/RelaxDialect.td"
include "relax-mlir/Dialect/Relax/IR/RelaxInterfaces.td"
include "mlir/Interfaces/SideEffectInterfaces.td"
include "mlir/Interfaces/InferTypeOpInterface.td"
include "mlir/Interfaces/ControlFlowInterfaces.td"

defvar Relax_Differentiable = DeclareOpInterfaceMethods<Relax_GradientOpInterface>;

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
                                                       Relax_Differentiable]> {
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
    : Relax_Op<mnemonic, [Pure, SameOperandsAndResultType, Relax_Differentiable]> {
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
// Elementwise unary ops (result type = operand type)
//===----------------------------------------------------------------------===//

class Relax_UnaryOp<string mnemonic, Type type, string formula>
    : Relax_Op<mnemonic, [Pure, SameOperandsAndResultType, Relax_Differentiable]> {
  let summary = "Elementwise " # formula;
  let description = "Computes `" # formula # "` for each element.\n\n"
    "```mlir\n%y = relax." # mnemonic # " %x : tensor<4x3xf32>\n```";
  let arguments = (ins type:$x);
  let results = (outs type:$result);
  let assemblyFormat = "$x attr-dict `:` type($result)";
}

def Relax_NegativeOp : Relax_UnaryOp<"negative", Relax_NumericTensor, "-x">;
def Relax_ExpOp : Relax_UnaryOp<"exp", Relax_FloatTensor, "exp(x)">;
def Relax_LogOp : Relax_UnaryOp<"log", Relax_FloatTensor, "log(x)">;
def Relax_TanhOp : Relax_UnaryOp<"tanh", Relax_FloatTensor, "tanh(x)">;
def Relax_SigmoidOp : Relax_UnaryOp<"sigmoid", Relax_FloatTensor, "1 / (1 + exp(-x))">;
def Relax_ReluOp : Relax_UnaryOp<"relu", Relax_NumericTensor, "max(x, 0)">;

//===----------------------------------------------------------------------===//
// Elementwise binary ops with numpy broadcasting
//===----------------------------------------------------------------------===//

class Relax_BroadcastBinaryOp<string mnemonic, string formula>
    : Relax_Op<mnemonic, [Pure, InferTypeOpAdaptor, Relax_Differentiable]> {
  let summary = "Elementwise " # formula # " with numpy broadcasting";
  let description = "Computes `" # formula # "` elementwise. Both operands have one "
    "element type; the result shape is their numpy broadcast shape.\n\n"
    "```mlir\n%c = relax." # mnemonic # " %a, %b : tensor<4x3xf32>, tensor<3xf32> "
    "-> tensor<4x3xf32>\n```";
  let arguments = (ins Relax_NumericTensor:$lhs, Relax_NumericTensor:$rhs);
  let results = (outs Relax_NumericTensor:$result);
  let assemblyFormat =
      "$lhs `,` $rhs attr-dict `:` type($lhs) `,` type($rhs) `->` type($result)";
  let extraClassDefinition = [{
    ::llvm::LogicalResult $cppClass::inferReturnTypes(
        ::mlir::MLIRContext *, std::optional<::mlir::Location> loc,
        Adaptor adaptor, ::llvm::SmallVectorImpl<::mlir::Type> &results) {
      return ::mlir::relax::inferBroadcastBinaryType(loc, adaptor.getLhs().getType(),
                                                     adaptor.getRhs().getType(), results);
    }
  }];
}

def Relax_AddOp : Relax_BroadcastBinaryOp<"add", "a + b"> { let hasFolder = 1; }
def Relax_SubtractOp : Relax_BroadcastBinaryOp<"subtract", "a - b"> { let hasFolder = 1; }
def Relax_MultiplyOp : Relax_BroadcastBinaryOp<"multiply", "a * b"> { let hasFolder = 1; }
def Relax_DivideOp : Relax_BroadcastBinaryOp<"divide", "a / b">;

class Relax_CompareOp<string mnemonic, string formula>
    : Relax_Op<mnemonic, [Pure, InferTypeOpAdaptor]> {
  let summary = "Elementwise comparison " # formula # " with numpy broadcasting";
  let description = "Computes `" # formula # "` elementwise into an i1 tensor of the "
    "broadcast shape. Comparisons have no gradient: their result is not a float.\n\n"
    "```mlir\n%m = relax." # mnemonic # " %a, %b : tensor<4x3xf32>, tensor<f32> "
    "-> tensor<4x3xi1>\n```";
  let arguments = (ins Relax_NumericTensor:$lhs, Relax_NumericTensor:$rhs);
  let results = (outs Relax_BoolTensor:$result);
  let assemblyFormat =
      "$lhs `,` $rhs attr-dict `:` type($lhs) `,` type($rhs) `->` type($result)";
  let extraClassDefinition = [{
    ::llvm::LogicalResult $cppClass::inferReturnTypes(
        ::mlir::MLIRContext *ctx, std::optional<::mlir::Location> loc,
        Adaptor adaptor, ::llvm::SmallVectorImpl<::mlir::Type> &results) {
      if (::mlir::failed(::mlir::relax::inferBroadcastBinaryType(
              loc, adaptor.getLhs().getType(), adaptor.getRhs().getType(), results)))
        return ::mlir::failure();
      results[0] = ::llvm::cast<::mlir::RankedTensorType>(results[0])
                       .clone(::mlir::IntegerType::get(ctx, 1));
      return ::mlir::success();
    }
  }];
}

def Relax_GreaterOp : Relax_CompareOp<"greater", "a > b">;

def Relax_WhereOp : Relax_Op<"where", [Pure, InferTypeOpAdaptor, Relax_Differentiable]> {
  let summary = "Elementwise select with numpy broadcasting";
  let description = [{
    Picks `a` where `cond` is true and `b` elsewhere; all three broadcast.

    ```mlir
    %y = relax.where %m, %x, %z : tensor<4x3xi1>, tensor<4x3xf32>, tensor<f32> -> tensor<4x3xf32>
    ```
  }];
  let arguments = (ins Relax_BoolTensor:$cond, Relax_Tensor:$lhs, Relax_Tensor:$rhs);
  let results = (outs Relax_Tensor:$result);
  let assemblyFormat = "$cond `,` $lhs `,` $rhs attr-dict `:` type($cond) `,` type($lhs) `,` "
                       "type($rhs) `->` type($result)";
}

//===----------------------------------------------------------------------===//
// Reductions
//===----------------------------------------------------------------------===//

class Relax_ReductionOp<string mnemonic, Type type, string what>
    : Relax_Op<mnemonic, [Pure, InferTypeOpAdaptor, Relax_Differentiable]> {
  let summary = what # " over axes";
  let description = "Reduces `x` by " # what # " over `axis` (all axes when absent; "
    "negative axes count from the end). With `keepdims` the reduced axes stay as "
    "size 1.\n\n```mlir\n%s = relax." # mnemonic # " %x {axis = array<i64: 1>, "
    "keepdims = true} : tensor<4x3xf32> -> tensor<4x1xf32>\n```";
  let arguments = (ins type:$x, OptionalAttr<DenseI64ArrayAttr>:$axis,
                       DefaultValuedAttr<BoolAttr, "false">:$keepdims);
  let results = (outs type:$result);
  let assemblyFormat = "$x attr-dict `:` type($x) `->` type($result)";
  let extraClassDeclaration = [{
    /// The reduced axes, non-negative and sorted (all axes when `axis` is absent).
    ::llvm::SmallVector<int64_t> getReducedAxes() {
      return ::mlir::relax::normalizeReductionAxes(getX().getType(), getAxis());
    }
  }];
  let extraClassDefinition = [{
    ::llvm::LogicalResult $cppClass::inferReturnTypes(
        ::mlir::MLIRContext *, std::optional<::mlir::Location> loc,
        Adaptor adaptor, ::llvm::SmallVectorImpl<::mlir::Type> &results) {
      return ::mlir::relax::inferReductionType(loc, adaptor.getX().getType(),
                                               adaptor.getAxisAttr(),
                                               adaptor.getKeepdimsAttr() &&
                                                   adaptor.getKeepdimsAttr().getValue(),
                                               results);
    }
  }];
}

def Relax_SumOp : Relax_ReductionOp<"sum", Relax_NumericTensor, "the sum">;
def Relax_MeanOp : Relax_ReductionOp<"mean", Relax_FloatTensor, "the mean">;

//===----------------------------------------------------------------------===//
// Linear algebra
//===----------------------------------------------------------------------===//

def Relax_MatmulOp : Relax_Op<"matmul", [Pure, InferTypeOpAdaptor, Relax_Differentiable]> {
  let summary = "Matrix product with np.matmul semantics";
  let description = [{
    `a` is (..., n, k) and `b` is (..., k, m); the batch dims broadcast. A 1-D
    `a` is promoted to (1, k) and a 1-D `b` to (k, 1), and the promoted dim is
    dropped from the result.

    ```mlir
    %c = relax.matmul %a, %b : tensor<8x64xf32>, tensor<64x10xf32> -> tensor<8x10xf32>
    ```
  }];
  let arguments = (ins Relax_NumericTensor:$lhs, Relax_NumericTensor:$rhs);
  let results = (outs Relax_NumericTensor:$result);
  let assemblyFormat =
      "$lhs `,` $rhs attr-dict `:` type($lhs) `,` type($rhs) `->` type($result)";
}

//===----------------------------------------------------------------------===//
// Shape manipulation (the result type states the shape)
//===----------------------------------------------------------------------===//

def Relax_PermuteDimsOp : Relax_Op<"permute_dims", [Pure, InferTypeOpAdaptor,
                                                    Relax_Differentiable]> {
  let summary = "Permutes the axes of a tensor";
  let description = [{
    Result axis `i` is operand axis `axes[i]`; without `axes` the axes are
    reversed (a transpose).

    ```mlir
    %t = relax.permute_dims %x {axes = array<i64: 1, 0, 2>} : tensor<2x3x4xf32> -> tensor<3x2x4xf32>
    ```
  }];
  let arguments = (ins Relax_Tensor:$x, OptionalAttr<DenseI64ArrayAttr>:$axes);
  let results = (outs Relax_Tensor:$result);
  let assemblyFormat = "$x attr-dict `:` type($x) `->` type($result)";
  let hasFolder = 1;
  let hasCanonicalizer = 1;
  let extraClassDeclaration = [{
    /// The permutation, non-negative (the reversal when `axes` is absent).
    ::llvm::SmallVector<int64_t> getPermutation();
  }];
}

class Relax_ShapeOp<string mnemonic, string what, string example>
    : Relax_Op<mnemonic, [Pure, Relax_Differentiable]> {
  let summary = what;
  let arguments = (ins Relax_Tensor:$x);
  let results = (outs Relax_Tensor:$result);
  let assemblyFormat = "$x attr-dict `:` type($x) `->` type($result)";
  let hasVerifier = 1;
  let hasFolder = 1;
  let description = what # ".\n\n```mlir\n" # example # "\n```";
}

def Relax_ReshapeOp : Relax_ShapeOp<"reshape",
    "Reshapes to the result type's shape (row-major, element count kept)",
    "%y = relax.reshape %x : tensor<2x6xf32> -> tensor<3x4xf32>">;
def Relax_BroadcastToOp : Relax_ShapeOp<"broadcast_to",
    "Broadcasts to the result type's shape by numpy broadcasting",
    "%y = relax.broadcast_to %x : tensor<3xf32> -> tensor<4x3xf32>">;
def Relax_CollapseSumToOp : Relax_ShapeOp<"collapse_sum_to",
    "Sums down to the result type's shape, the reverse of broadcasting",
    "%y = relax.collapse_sum_to %x : tensor<4x3xf32> -> tensor<1x3xf32>">;

//===----------------------------------------------------------------------===//
// Creation
//===----------------------------------------------------------------------===//

class Relax_FillOp<string mnemonic, string value>
    : Relax_Op<mnemonic, [Pure]> {
  let summary = "A tensor of " # value # "s of the result type";
  let description = "Shape and element type come from the result type.\n\n"
    "```mlir\n%z = relax." # mnemonic # " : tensor<4x3xf32>\n```";
  let results = (outs Relax_Tensor:$result);
  let assemblyFormat = "attr-dict `:` type($result)";
}

def Relax_ZerosOp : Relax_FillOp<"zeros", "zero">;
def Relax_OnesOp : Relax_FillOp<"ones", "one">;

#endif // RELAX_OPS_TD
