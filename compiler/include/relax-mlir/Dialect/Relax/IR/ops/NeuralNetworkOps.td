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
    : Relax_Op<mnemonic, [Pure, SameOperandsAndResultType, Relax_Differentiable,
                          Relax_Batchable]> {
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
    [Pure, AllTypesMatch<["pred", "labels"]>, InferTypeOpAdaptor, Relax_Differentiable,
     Relax_Batchable]> {
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

def Relax_NllLossOp : Relax_Op<"nll_loss", [Pure, InferTypeOpAdaptor, Relax_Differentiable,
                                             Relax_Batchable]> {
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

def Relax_LayerNormOp : Relax_Op<"layer_norm", [Pure, Relax_Differentiable, Relax_Batchable,
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

//===----------------------------------------------------------------------===//
// Convolution and pooling (NCHW)
//===----------------------------------------------------------------------===//

def Relax_Conv2dOp : Relax_Op<"conv2d", [Pure, InferTypeOpAdaptor, Relax_Differentiable,
                                         Relax_Batchable,
                                         AllElementTypesMatch<["x", "w"]>]> {
  let summary = "2-D convolution (cross-correlation), NCHW input and OIHW weights";
  let description = [{
    `result[n, o, i, j] = sum over c, kh, kw of x_padded[n, g * C/groups + c,
    i * strides[0] + kh * dilation[0], j * strides[1] + kw * dilation[1]] *
    w[o, c, kh, kw]`, where `g = o / (O / groups)`: `x` is (N, C, H, W), `w`
    is (O, C / groups, KH, KW) and both C and O are multiples of `groups`.
    `padding` is (top, left, bottom, right) zeros. The output size is
    `(H + top + bottom - dilation * (KH - 1) - 1) / stride + 1` (rounded down),
    and likewise for W. Lowers to `linalg.conv_2d_nchw_fchw` (grouped:
    `linalg.conv_2d_ngchw_gfchw`); its gradients are convolutions too.

    ```mlir
    %y = relax.conv2d %x, %w {strides = array<i64: 2, 2>, padding = array<i64: 1, 1, 1, 1>}
        : tensor<8x3x32x32xf32>, tensor<16x3x3x3xf32> -> tensor<8x16x16x16xf32>
    ```
  }];
  let arguments = (ins Relax_FloatTensor:$x, Relax_FloatTensor:$w,
                       DefaultValuedAttr<DenseI64ArrayAttr, "{1, 1}">:$strides,
                       DefaultValuedAttr<DenseI64ArrayAttr, "{0, 0, 0, 0}">:$padding,
                       DefaultValuedAttr<DenseI64ArrayAttr, "{1, 1}">:$dilation,
                       DefaultValuedAttr<I64Attr, "1">:$groups);
  let results = (outs Relax_FloatTensor:$result);
  let assemblyFormat = "$x `,` $w attr-dict `:` type($x) `,` type($w) `->` type($result)";
  let extraClassDeclaration = [{
    /// The height and width geometry (assumes a verified op).
    ::llvm::SmallVector<::mlir::relax::WindowAxis, 2> getWindowAxes();
  }];
}

def Relax_Conv2dPatchesOp : Relax_Op<"conv2d_patches",
    [Pure, InferTypeOpAdaptor, Relax_LinearDifferentiable, Relax_Batchable]> {
  let summary = "The patches a 2-D convolution reads (im2col), NCHW";
  let description = [{
    `result[n, (c * KH + kh) * KW + kw, i, j] = x_padded[n, c, i * strides[0]
    + kh * dilation[0], j * strides[1] + kw * dilation[1]]` for `kernel_size`
    (KH, KW): x is (N, C, H, W) and the result (N, C * KH * KW, OH, OW), with
    conv2d's output size and zero `padding` (top, left, bottom, right). As
    JAX's `lax.conv_general_dilated_patches`: conv2d(x, w) is the contraction
    of these patches with w viewed as (O, C * KH * KW). The gradient of a
    convolution's filter is built on it (a matrix product of the patches and
    the output's adjoint); its own gradient is the transposed convolution that
    adds each patch element back where it was read.

    ```mlir
    %p = relax.conv2d_patches %x {kernel_size = array<i64: 3, 3>, padding = array<i64: 1, 1, 1, 1>}
        : tensor<8x3x32x32xf32> -> tensor<8x27x32x32xf32>
    ```
  }];
  let arguments = (ins Relax_FloatTensor:$x, DenseI64ArrayAttr:$kernel_size,
                       DefaultValuedAttr<DenseI64ArrayAttr, "{1, 1}">:$strides,
                       DefaultValuedAttr<DenseI64ArrayAttr, "{0, 0, 0, 0}">:$padding,
                       DefaultValuedAttr<DenseI64ArrayAttr, "{1, 1}">:$dilation);
  let results = (outs Relax_FloatTensor:$result);
  let assemblyFormat = "$x attr-dict `:` type($x) `->` type($result)";
  let extraClassDeclaration = [{
    /// The height and width geometry (assumes a verified op).
    ::llvm::SmallVector<::mlir::relax::WindowAxis, 2> getWindowAxes();
  }];
}

class Relax_Pool2dOp<string mnemonic, string what, Trait derivative, dag extraArgs = (ins),
                     code extraDecls = [{}]>
    : Relax_Op<mnemonic, [Pure, InferTypeOpAdaptor, derivative, Relax_Batchable]> {
  let summary = "2-D " # what # " pooling, NCHW";
  let arguments = !con((ins Relax_FloatTensor:$x, DenseI64ArrayAttr:$pool_size,
                            OptionalAttr<DenseI64ArrayAttr>:$strides,
                            DefaultValuedAttr<DenseI64ArrayAttr, "{0, 0, 0, 0}">:$padding,
                            DefaultValuedAttr<DenseI64ArrayAttr, "{1, 1}">:$dilation,
                            DefaultValuedAttr<BoolAttr, "false">:$ceil_mode), extraArgs);
  let results = (outs Relax_FloatTensor:$result);
  let assemblyFormat = "$x attr-dict `:` type($x) `->` type($result)";
  let extraClassDeclaration = [{
    /// The strides (pool_size when absent).
    ::llvm::SmallVector<int64_t> getStrideValues() {
      if (auto s = getStrides())
        return ::llvm::to_vector(*s);
      return ::llvm::to_vector(getPoolSize());
    }
    /// The height and width geometry (assumes a verified op).
    ::llvm::SmallVector<::mlir::relax::WindowAxis, 2> getWindowAxes();
  }] # extraDecls;
}

def Relax_MaxPool2dOp : Relax_Pool2dOp<"max_pool2d", "max", Relax_Differentiable> {
  let description = [{
    The maximum over each `pool_size` window (of elements `dilation` apart),
    windows `strides` apart (default: `pool_size`); `padding` (top, left,
    bottom, right, each at most half the window) never wins. With `ceil_mode`
    the output size rounds up, as in PyTorch, as long as the last window
    starts inside the input or its top/left padding. The gradient goes to the
    first maximum of each window.

    ```mlir
    %y = relax.max_pool2d %x {pool_size = array<i64: 2, 2>} : tensor<8x16x32x32xf32> -> tensor<8x16x16x16xf32>
    ```
  }];
}

def Relax_AvgPool2dOp : Relax_Pool2dOp<"avg_pool2d", "average", Relax_LinearDifferentiable,
    (ins DefaultValuedAttr<BoolAttr, "false">:$count_include_pad), [{
    /// Each output position's divisor as an (out height, out width) constant of
    /// element type `elt` (the lowering divides by it; so does the gradient).
    ::mlir::DenseElementsAttr getDivisorAttr(::mlir::Type elt);
  }]> {
  let description = [{
    The mean over each window, with the windows of `max_pool2d`. The divisor
    counts the window's elements inside the input, or with
    `count_include_pad` also those in the padding (not those beyond it that
    `ceil_mode` adds), as in PyTorch.

    ```mlir
    %y = relax.avg_pool2d %x {pool_size = array<i64: 3, 3>, strides = array<i64: 1, 1>,
        padding = array<i64: 1, 1, 1, 1>} : tensor<8x16x32x32xf32> -> tensor<8x16x32x32xf32>
    ```
  }];
}

#endif // RELAX_OPS_NEURAL_NETWORK_OPS_TD
