//===- ReductionOps.td - relax reduction ops ---------------*- tablegen -*-===//
//
// Included by RelaxOps.td; see there for the shared definitions.
//
//===----------------------------------------------------------------------===//

#ifndef RELAX_OPS_REDUCTION_OPS_TD
#define RELAX_OPS_REDUCTION_OPS_TD

//===----------------------------------------------------------------------===//
// Reductions
//===----------------------------------------------------------------------===//

class Relax_ReductionOp<string mnemonic, Type type, string what,
                        Trait derivative = Relax_Differentiable>
    : Relax_Op<mnemonic, [Pure, InferTypeOpAdaptor, derivative, Relax_Batchable]> {
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
    /// How many operand elements each result element reduces (the mean's
    /// divisor); 1 for a reduction over no axes.
    int64_t getReducedElementCount() {
      int64_t count = 1;
      for (int64_t a : getReducedAxes())
        count *= getX().getType().getDimSize(a);
      return count;
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

def Relax_SumOp : Relax_ReductionOp<"sum", Relax_NumericTensor, "the sum",
                                   Relax_LinearDifferentiable>;
def Relax_MeanOp : Relax_ReductionOp<"mean", Relax_FloatTensor, "the mean",
                                    Relax_LinearDifferentiable>;
def Relax_VarianceOp : Relax_ReductionOp<"variance", Relax_FloatTensor,
                                         "the population variance (ddof 0)">;
// max and min have no identity: reducing an axis of size 0 is an error, as in numpy.
def Relax_MaxOp : Relax_ReductionOp<"max", Relax_NumericTensor, "the maximum (NaN propagates)"> {
  let hasVerifier = 1;
}
def Relax_MinOp : Relax_ReductionOp<"min", Relax_NumericTensor, "the minimum (NaN propagates)"> {
  let hasVerifier = 1;
}
def Relax_ProdOp : Relax_ReductionOp<"prod", Relax_NumericTensor, "the product">;

def Relax_CumsumOp : Relax_Op<"cumsum", [Pure, SameOperandsAndResultType, Relax_Batchable,
                                         Relax_LinearDifferentiable]> {
  let summary = "Inclusive cumulative sum along an axis";
  let description = [{
    `result[..., i, ...] = sum(x[..., :i+1, ...])` along `axis` (negative counts
    from the end). Floats accumulate as the reductions do (f16/bf16 in f32, f32
    in f64).

    ```mlir
    %c = relax.cumsum %x {axis = 1 : i64} : tensor<4x3xf32>
    ```
  }];
  let arguments = (ins Relax_NumericTensor:$x, I64Attr:$axis);
  let results = (outs Relax_NumericTensor:$result);
  let assemblyFormat = "$x attr-dict `:` type($result)";
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    /// The axis, non-negative.
    int64_t getNormalizedAxis() {
      int64_t a = getAxis();
      return a < 0 ? a + getX().getType().getRank() : a;
    }
  }];
}

// argmax/argmin: integer results, no derivative (nothing flows through an
// index), so the gradient interface is left out.
class Relax_ArgExtremumOp<string mnemonic, string what>
    : Relax_Op<mnemonic, [Pure, InferTypeOpAdaptor, Relax_Batchable]> {
  let summary = "The index of " # what # " along an axis";
  let description = "The index (i64) of " # what # " of `x` along `axis`, as "
    "`np." # mnemonic # "` and `jnp." # mnemonic # "`: without `axis`, of the "
    "flattened x; the first such index on ties; a NaN counts as " # what # " "
    "(its first index wins). With `keepdims` the axis stays as size 1. An axis "
    "of size 0 is an error (there is no index).\n\n```mlir\n%i = relax." # mnemonic #
    " %x {axis = 1 : i64} : tensor<4x3xf32> -> tensor<4xi64>\n```";
  let arguments = (ins Relax_NumericTensor:$x, OptionalAttr<I64Attr>:$axis,
                       DefaultValuedAttr<BoolAttr, "false">:$keepdims);
  let results = (outs Relax_TensorOf<[I64]>:$result);
  let assemblyFormat = "$x attr-dict `:` type($x) `->` type($result)";
  let extraClassDeclaration = [{
    /// The reduced axes: `axis` made non-negative, or every axis without one.
    ::llvm::SmallVector<int64_t> getReducedAxes() {
      std::optional<int64_t> a = getAxis();
      ::llvm::SmallVector<int64_t> axes;
      if (a)
        axes.push_back(static_cast<int64_t>(*a));
      return ::mlir::relax::normalizeReductionAxes(
          getX().getType(), a ? std::optional<::llvm::ArrayRef<int64_t>>(axes) : std::nullopt);
    }
  }];
  let extraClassDefinition = [{
    ::llvm::LogicalResult $cppClass::inferReturnTypes(
        ::mlir::MLIRContext *context, std::optional<::mlir::Location> loc,
        Adaptor adaptor, ::llvm::SmallVectorImpl<::mlir::Type> &results) {
      return ::mlir::relax::inferArgExtremumType(loc, adaptor.getX().getType(),
                                                 adaptor.getAxisAttr(),
                                                 adaptor.getKeepdimsAttr() &&
                                                     adaptor.getKeepdimsAttr().getValue(),
                                                 results);
    }
  }];
}

def Relax_ArgmaxOp : Relax_ArgExtremumOp<"argmax", "the maximum">;
def Relax_ArgminOp : Relax_ArgExtremumOp<"argmin", "the minimum">;

#endif // RELAX_OPS_REDUCTION_OPS_TD
