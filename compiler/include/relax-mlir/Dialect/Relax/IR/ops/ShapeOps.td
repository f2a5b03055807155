//===- ShapeOps.td - relax shape ops -----------------------*- tablegen -*-===//
//
// Included by RelaxOps.td; see there for the shared definitions.
//
//===----------------------------------------------------------------------===//

#ifndef RELAX_OPS_SHAPE_OPS_TD
#define RELAX_OPS_SHAPE_OPS_TD

//===----------------------------------------------------------------------===//
// Shape manipulation (the result type states the shape)
//===----------------------------------------------------------------------===//

def Relax_PermuteDimsOp : Relax_Op<"permute_dims", [Pure, InferTypeOpAdaptor,
                                                    Relax_LinearDifferentiable,
                                                    Relax_Batchable]> {
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
    : Relax_Op<mnemonic, [Pure, Relax_LinearDifferentiable, Relax_Batchable]> {
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

// A shape op whose result type follows from its operand types and attributes.
// Linear unless `derivative` says otherwise (pad, whose fill value is a constant).
class Relax_InferredShapeOp<string mnemonic, list<Trait> traits = [],
                            Trait derivative = Relax_LinearDifferentiable>
    : Relax_Op<mnemonic, !listconcat([Pure, InferTypeOpAdaptor, derivative, Relax_Batchable],
                                     traits)> {
  let results = (outs Relax_Tensor:$result);
  let assemblyFormat = "$x attr-dict `:` type($x) `->` type($result)";
}

def Relax_ExpandDimsOp : Relax_InferredShapeOp<"expand_dims"> {
  let summary = "Inserts size-1 axes";
  let description = [{
    `axis` lists the positions of the new axes in the result (negative count
    from the result's end), as `np.expand_dims` with a tuple of axes.

    ```mlir
    %y = relax.expand_dims %x {axis = array<i64: 0, -1>} : tensor<3xf32> -> tensor<1x3x1xf32>
    ```
  }];
  let arguments = (ins Relax_Tensor:$x, DenseI64ArrayAttr:$axis);
}

def Relax_SqueezeOp : Relax_InferredShapeOp<"squeeze"> {
  let summary = "Removes size-1 axes";
  let description = [{
    Removes the listed axes, which must have size 1 (all size-1 axes when
    `axis` is absent).

    ```mlir
    %y = relax.squeeze %x {axis = array<i64: 0>} : tensor<1x3x1xf32> -> tensor<3x1xf32>
    ```
  }];
  let arguments = (ins Relax_Tensor:$x, OptionalAttr<DenseI64ArrayAttr>:$axis);
}

def Relax_FlattenOp : Relax_InferredShapeOp<"flatten"> {
  let summary = "Flattens to 1-D in row-major order";
  let description = [{
    ```mlir
    %y = relax.flatten %x : tensor<2x3xf32> -> tensor<6xf32>
    ```
  }];
  let arguments = (ins Relax_Tensor:$x);
}

def Relax_ConcatOp : Relax_Op<"concat", [Pure, InferTypeOpAdaptor, Relax_LinearDifferentiable,
                                         Relax_Batchable]> {
  let summary = "Joins tensors along an axis";
  let description = [{
    All operands have one element type and rank and agree on every axis but
    `axis` (negative counts from the end), as `np.concatenate`.

    ```mlir
    %y = relax.concat %a, %b {axis = 0 : i64} : tensor<2x3xf32>, tensor<4x3xf32> -> tensor<6x3xf32>
    ```
  }];
  let arguments = (ins Variadic<Relax_Tensor>:$tensors, I64Attr:$axis);
  let results = (outs Relax_Tensor:$result);
  let assemblyFormat = "$tensors attr-dict `:` type($tensors) `->` type($result)";
  let extraClassDeclaration = [{
    int64_t getNormalizedAxis() {
      int64_t a = getAxis();
      return a < 0 ? a + getType().getRank() : a;
    }
  }];
}

def Relax_SplitOp : Relax_Op<"split", [Pure, InferTypeOpAdaptor, Relax_LinearDifferentiable,
                                       Relax_Batchable]> {
  let summary = "Splits a tensor along an axis into a tuple";
  let description = [{
    `indices_or_sections` is either an integer n (n equal sections; the axis
    size must be divisible by n) or a list of split points (sorted; points
    beyond the axis give empty parts), as `np.split`. `axis` defaults to 0.

    ```mlir
    %t = relax.split %x {indices_or_sections = 2 : i64, axis = 1 : i64}
        : tensor<4x6xf32> -> tuple<tensor<4x3xf32>, tensor<4x3xf32>>
    ```
  }];
  let arguments = (ins Relax_Tensor:$x, AnyAttrOf<[I64Attr, DenseI64ArrayAttr]>:$indices_or_sections,
                       DefaultValuedAttr<I64Attr, "0">:$axis);
  let results = (outs Relax_Tuple:$result);
  let assemblyFormat = "$x attr-dict `:` type($x) `->` type($result)";
  let extraClassDeclaration = [{
    /// [begin, end) of each part along the (normalized) axis.
    ::llvm::SmallVector<std::pair<int64_t, int64_t>> getBounds();
    int64_t getNormalizedAxis() {
      int64_t a = getAxis();
      return a < 0 ? a + getX().getType().getRank() : a;
    }
  }];
}

def Relax_TakeOp : Relax_Op<"take", [Pure, InferTypeOpAdaptor, Relax_LinearDifferentiable,
                                     Relax_Batchable]> {
  let summary = "Gathers elements along an axis by integer indices";
  let description = [{
    As `np.take(x, indices, axis)`: the result shape is
    `x.shape[:axis] + indices.shape + x.shape[axis+1:]`; without `axis`, x is
    flattened first. Negative indices count from the end; indices still out of
    range are clamped into [0, n) (numpy's `mode="clip"`). The gradient
    accumulates repeated indices.

    ```mlir
    %y = relax.take %x, %i {axis = 0 : i64} : tensor<5x3xf32>, tensor<2xi64> -> tensor<2x3xf32>
    ```
  }];
  let arguments = (ins Relax_Tensor:$x, Relax_TensorOf<[I32, I64]>:$indices,
                       OptionalAttr<I64Attr>:$axis);
  let results = (outs Relax_Tensor:$result);
  let assemblyFormat = "$x `,` $indices attr-dict `:` type($x) `,` type($indices) `->` type($result)";
}

def Relax_ScatterAddOp : Relax_Op<"scatter_add",
    [Pure, InferTypeOpAdaptor, Relax_LinearDifferentiable, Relax_Batchable]> {
  let summary = "Adds slices into a tensor at integer indices along an axis";
  let description = [{
    The adjoint of `take` with the same `indices` and `axis`: the result is x
    with `updates[..., j, ...]` added at index `indices[j]` of the axis, as
    `np.add.at(x, (slice(None),) * axis + (indices,), updates)` (JAX's
    `x.at[..., indices].add(updates)`). `updates` has take's result shape,
    `x.shape[:axis] + indices.shape + x.shape[axis+1:]`; without `axis`, x is
    flattened first and the result has x's shape. Indices are normalized as
    take's (negative from the end, then clamped into [0, n)); repeated
    indices accumulate. The gradient is g for x and `take(g, indices)` for
    updates.

    ```mlir
    %y = relax.scatter_add %x, %i, %u {axis = 0 : i64}
        : tensor<5x3xf32>, tensor<2xi64>, tensor<2x3xf32> -> tensor<5x3xf32>
    ```
  }];
  let arguments = (ins Relax_NumericTensor:$x, Relax_TensorOf<[I32, I64]>:$indices,
                       Relax_NumericTensor:$updates, OptionalAttr<I64Attr>:$axis);
  let results = (outs Relax_NumericTensor:$result);
  let hasVerifier = 1;
  let assemblyFormat = [{
    $x `,` $indices `,` $updates attr-dict `:` type($x) `,` type($indices) `,` type($updates)
    `->` type($result)
  }];
}

def Relax_ScatterOp : Relax_Op<"scatter",
    [Pure, InferTypeOpAdaptor, Relax_Differentiable, Relax_Batchable]> {
  let summary = "Writes slices into a tensor at integer indices along an axis";
  let description = [{
    `scatter_add`'s indexing with another way of combining: the result is x
    with `updates[..., j, ...]` written at index `indices[j]` of the axis, by
    `reduction`: `"set"` (the update replaces the value), `"multiply"`,
    `"min"` or `"max"` (with the value there; NaN propagates). JAX's
    `x.at[..., indices].set/multiply/min/max(updates)`; `add` is
    `scatter_add`. Indices are normalized as take's (negative from the end,
    then clamped into [0, n)). Updates are applied in order of their index in
    `indices`: with repeated indices `"set"` keeps the last.

    Derivatives: for `"set"`, nothing reaches x where it was overwritten and
    only the update written last receives the adjoint; for `"multiply"`, x
    receives g times the product of its updates and each update g times x
    times the product of the other updates at its index (exact with zeros and
    repeats); for `"min"`/`"max"`, the adjoint is split evenly among the
    operands equal to the result (x and every tying update), as JAX's.

    ```mlir
    %y = relax.scatter %x, %i, %u {axis = 0 : i64, reduction = "max"}
        : tensor<5x3xf32>, tensor<2xi64>, tensor<2x3xf32> -> tensor<5x3xf32>
    ```
  }];
  let arguments = (ins Relax_NumericTensor:$x, Relax_TensorOf<[I32, I64]>:$indices,
                       Relax_NumericTensor:$updates, OptionalAttr<I64Attr>:$axis,
                       DefaultValuedAttr<StrAttr, "\"set\"">:$reduction);
  let results = (outs Relax_NumericTensor:$result);
  let hasVerifier = 1;
  let assemblyFormat = [{
    $x `,` $indices `,` $updates attr-dict `:` type($x) `,` type($indices) `,` type($updates)
    `->` type($result)
  }];
}

def Relax_StridedSliceOp : Relax_InferredShapeOp<"strided_slice"> {
  let summary = "Slices with begin, end and stride per axis";
  let description = [{
    For each listed axis, numpy's `x[begin:end:stride]` (negative begin and end
    count from the end and are clamped; strides may be negative, not zero);
    other axes are kept whole. `strides` defaults to 1 for every listed axis.

    ```mlir
    %y = relax.strided_slice %x {axes = array<i64: 0>, begin = array<i64: 4>,
        end = array<i64: -6>, strides = array<i64: -2>} : tensor<5x3xf32> -> tensor<3x3xf32>
    ```
  }];
  let arguments = (ins Relax_Tensor:$x, DenseI64ArrayAttr:$axes, DenseI64ArrayAttr:$begin,
                       DenseI64ArrayAttr:$end, OptionalAttr<DenseI64ArrayAttr>:$strides);
  let hasFolder = 1;
  let extraClassDeclaration = [{
    /// Per axis of x: the first index read, the stride and the count (a
    /// kept axis is {0, 1, size}).
    struct AxisSlice { int64_t start, stride, count; };
    ::llvm::SmallVector<AxisSlice> getAxisSlices();
  }];
}

def Relax_TileOp : Relax_InferredShapeOp<"tile"> {
  let summary = "Repeats a tensor along each axis (np.tile)";
  let description = [{
    `repeats` may be longer than the rank (x gains leading axes) or shorter
    (leading axes are repeated once).

    ```mlir
    %y = relax.tile %x {repeats = array<i64: 2, 1>} : tensor<2x3xf32> -> tensor<4x3xf32>
    ```
  }];
  let arguments = (ins Relax_Tensor:$x, DenseI64ArrayAttr:$repeats);
}

def Relax_PadOp : Relax_InferredShapeOp<"pad", [], Relax_Differentiable> {
  let summary = "Pads with a constant value";
  let description = [{
    `pad_width` holds (before, after) for each axis, 2 * rank non-negative
    integers; new elements are `pad_value` (converted to the element type).

    ```mlir
    %y = relax.pad %x {pad_width = array<i64: 1, 0, 2, 2>} : tensor<2x3xf32> -> tensor<3x7xf32>
    ```
  }];
  let arguments = (ins Relax_Tensor:$x, DenseI64ArrayAttr:$pad_width,
                       DefaultValuedAttr<F64Attr, "0.0">:$pad_value);
  let hasFolder = 1;
}

class Relax_TriangleOp<string mnemonic, string which, string cond>
    : Relax_Op<mnemonic, [Pure, SameOperandsAndResultType, Relax_LinearDifferentiable,
                          Relax_Batchable]> {
  let summary = "The " # which # " triangle of the last two axes";
  let description = "Keeps the elements at row i, column j with `" # cond # "` and "
    "zeroes the rest, on the last two axes (np." # mnemonic # ").\n\n"
    "```mlir\n%y = relax." # mnemonic # " %x {k = 1 : i64} : tensor<4x4xf32>\n```";
  let arguments = (ins Relax_Tensor:$x, DefaultValuedAttr<I64Attr, "0">:$k);
  let results = (outs Relax_Tensor:$result);
  let assemblyFormat = "$x attr-dict `:` type($result)";
  let hasVerifier = 1;
}

def Relax_TriuOp : Relax_TriangleOp<"triu", "upper", "j - i >= k">;
def Relax_TrilOp : Relax_TriangleOp<"tril", "lower", "j - i <= k">;

#endif // RELAX_OPS_SHAPE_OPS_TD
