//===- NeuralNetworkOps.td - relax neural-network ops ------*- tablegen -*-===//
//
// Included by RelaxOps.td; see there for the shared definitions.
//
//===----------------------------------------------------------------------===//

#ifndef RELAX_OPS_NEURAL_NETWORK_OPS_TD
#define RELAX_OPS_NEURAL_NETWORK_OPS_TD

//===----------------------------------------------------------------------===//
// Softmax family
//===----------------------------------------------------------------------===//

class Relax_SoftmaxLikeOp<string mnemonic, string formula>
    : Relax_Op<mnemonic, [Pure, SameOperandsAndResultType, Relax_Differentiable]> {
  let summary = "The " # mnemonic # " along an axis";
  let description = "Computes `" # formula # "` along `axis` (default -1). The "
    "maximum along the axis is subtracted first, so inputs of any finite "
    "magnitude give finite results.\n\n"
    "```mlir\n%y = relax." # mnemonic # " %x {axis = 1 : i64} : tensor<4x3xf32>\n```";
  let arguments = (ins Relax_FloatTensor:$x, DefaultValuedAttr<I64Attr, "-1">:$axis);
  let results = (outs Relax_FloatTensor:$result);
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

def Relax_SoftmaxOp : Relax_SoftmaxLikeOp<"softmax", "exp(x) / sum(exp(x))">;
def Relax_LogSoftmaxOp : Relax_SoftmaxLikeOp<"log_softmax", "x - log(sum(exp(x)))">;

//===----------------------------------------------------------------------===//
// Losses
//===----------------------------------------------------------------------===//

def Relax_CrossEntropyWithLogitsOp : Relax_Op<"cross_entropy_with_logits",
    [Pure, AllTypesMatch<["pred", "labels"]>, InferTypeOpAdaptor, Relax_Differentiable]> {
  let summary = "Cross entropy of log-probabilities and labels";
  let description = [{
    `-sum(pred * labels) / N` with `N = pred.shape[0]` when `pred` has rank 2
    or more and 1 otherwise: `pred` holds log-probabilities (a log_softmax)
    and `labels` probabilities of the same shape. The result is 0-d.

    ```mlir
    %l = relax.cross_entropy_with_logits %p, %y : tensor<8x10xf32> -> tensor<f32>
    ```
  }];
  let arguments = (ins Relax_FloatTensor:$pred, Relax_FloatTensor:$labels);
  let results = (outs Relax_FloatTensor:$result);
  let assemblyFormat = "$pred `,` $labels attr-dict `:` type($pred) `->` type($result)";
  let extraClassDeclaration = [{
    /// N: the batch size that divides the sum.
    int64_t getBatchSize() {
      auto type = getPred().getType();
      return type.getRank() >= 2 ? type.getDimSize(0) : 1;
    }
  }];
}

def Relax_NllLossOp : Relax_Op<"nll_loss", [Pure, InferTypeOpAdaptor, Relax_Differentiable]> {
  let summary = "Negative log-likelihood loss (PyTorch's nll_loss)";
  let description = [{
    `pred` holds log-probabilities of shape (N, C), (C) or (N, C, d1, ..., dk);
    `targets` class indices (i32 or i64) of shape (N), () or (N, d1, ..., dk);
    the optional `weights` (C) weigh each class. Each target element `t` gives
    `-weights[t] * pred[n, t, d...]`, or 0 where `t == ignore_index` (and
    where `t` lies outside [0, C), which PyTorch reports as an error).
    `reduction` "none" returns these per element (the targets' shape); "sum"
    adds them; "mean" (the default) divides the sum by the summed weights of
    the targets that are not ignored.

    ```mlir
    %l = relax.nll_loss %p, %t : tensor<8x10xf32>, tensor<8xi64> -> tensor<f32>
    %m = relax.nll_loss %p, %t, %w {reduction = "sum", ignore_index = 0 : i64}
        : tensor<8x10xf32>, tensor<8xi64>, tensor<10xf32> -> tensor<f32>
    ```
  }];
  let arguments = (ins Relax_FloatTensor:$pred, Relax_TensorOf<[I32, I64]>:$targets,
                       Optional<Relax_FloatTensor>:$weights,
                       DefaultValuedAttr<StrAttr, "\"mean\"">:$reduction,
                       DefaultValuedAttr<I64Attr, "-100">:$ignore_index);
  let results = (outs Relax_FloatTensor:$result);
  let assemblyFormat = "$pred `,` $targets (`,` $weights^)? attr-dict `:` type($pred) `,` "
                       "type($targets) (`,` type($weights)^)? `->` type($result)";
  let extraClassDeclaration = [{
    /// The class axis of `pred`: 0 for a (C) prediction, else 1.
    int64_t getClassAxis() { return getPred().getType().getRank() == 1 ? 0 : 1; }
  }];
}

//===----------------------------------------------------------------------===//
// Normalization
//===----------------------------------------------------------------------===//

def Relax_LayerNormOp : Relax_Op<"layer_norm", [Pure, Relax_Differentiable,
    AllTypesMatch<["x", "result"]>, AllTypesMatch<["gamma", "beta"]>,
    AllElementTypesMatch<["x", "gamma"]>]> {
  let summary = "Layer normalization over axes";
  let description = [{
    `(x - mean) / sqrt(var + epsilon) * gamma + beta`, with the mean and the
    population variance taken over `axes` (negative count from the end).
    `gamma` and `beta` have the shape of `x` at the sorted `axes` and
    broadcast back along them.

    ```mlir
    %y = relax.layer_norm %x, %g, %b {axes = array<i64: -1>}
        : tensor<8x16xf32>, tensor<16xf32>, tensor<16xf32>
    ```
  }];
  let arguments = (ins Relax_FloatTensor:$x, Relax_FloatTensor:$gamma, Relax_FloatTensor:$beta,
                       DenseI64ArrayAttr:$axes,
                       DefaultValuedAttr<F64Attr, "1e-5">:$epsilon);
  let results = (outs Relax_FloatTensor:$result);
  let assemblyFormat = "$x `,` $gamma `,` $beta attr-dict `:` type($x) `,` type($gamma) `,` "
                       "type($beta)";
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    /// The normalized axes, non-negative and sorted.
    ::llvm::SmallVector<int64_t> getNormalizedAxes() {
      return ::mlir::relax::normalizeReductionAxes(getX().getType(), getAxes());
    }
  }];
}

#endif // RELAX_OPS_NEURAL_NETWORK_OPS_TD
