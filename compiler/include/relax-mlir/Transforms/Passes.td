//===- Passes.td - relax transformation passes -------------*- tablegen -*-===//

#ifndef RELAX_TRANSFORMS_PASSES_TD
#define RELAX_TRANSFORMS_PASSES_TD

include "mlir/Pass/PassBase.td"

def GradientPass : Pass<"gradient", "::mlir::ModuleOp"> {
  let summary = "Reverse-mode automatic differentiation of functions";
  let description = [{
    Adds `@<func>_adjoint`, with the same parameters as `@<func>`, whose one
    `relax.dataflow` holds the original bindings and the gradient bindings and
    returns `tuple<original_result, tuple<grad...>>`. The target is the result
    (or result field `target-index` of a tuple result); it must be a 0-d float
    tensor. Gradients come in `require-grads` order (every float parameter when
    omitted: integer parameters never get gradients). A parameter that does not
    reach the target gets zeros. Each op on the path states its
    vector-Jacobian product through `GradientOpInterface`. Calls to functions
    of the module with a body are inlined first (so a function calling another's
    adjoint can be differentiated: second order). `func` may list several
    functions; if one fails, no adjoint is added.

    ```mlir
    func.func @main(%x: tensor<3xf32>) -> tensor<f32> {
      %r = relax.dataflow -> (tensor<f32>) {
        %s = relax.sum %x : tensor<3xf32> -> tensor<f32>
        relax.output %s : tensor<f32>
      }
      return %r : tensor<f32>
    }
    ```
    ==> `relax-opt --gradient="func=main"` adds
    ```mlir
    func.func @main_adjoint(%x: tensor<3xf32>) -> tuple<tensor<f32>, tuple<tensor<3xf32>>> {
      %r = relax.dataflow -> (tuple<tensor<f32>, tuple<tensor<3xf32>>>) {
        %s = relax.sum %x : tensor<3xf32> -> tensor<f32>
        %one = relax.ones : tensor<f32>
        %g = relax.broadcast_to ... // reshape + broadcast of %one
        ...
      }
      return %r : ...
    }
    ```
    A function may carry its own `relax.require_grads = array<i64: ...>`
    and `relax.target_index = N`: they apply when the run leaves the option
    out (an option given applies to every function), so one run checks a
    file of functions with different targets. The adjoint does not carry
    them.

    With `mode=vjp` the adjoint comes in two halves, so that a caller runs the
    forward once and pulls back any number of cotangents later (JAX's `vjp`):
    `@<func>_fwd(params...) -> tuple<result, tuple<residuals...>>` computes
    the result and the values the backward half reads (the residuals: primal
    values and parameters; a checkpointed segment's values are recomputed in
    the backward half, not kept), and `@<func>_bwd(residuals..., cotangent)
    -> tuple<grad...>` takes them and a cotangent of the result's type (any
    result, not only a scalar: `target-index` does not apply) and returns the
    gradients in `require-grads` order.

    With `data-parallel=mean` (or `sum`), every process of an MPI job runs
    the derived function on its own shard of the data and the gradients are
    averaged (summed) over the processes inside it: the gradient leaves are
    packed into one flat buffer per element type (plus the target in adjoint
    mode, and a 1 whose sum counts the processes for the mean), each reduced
    by one `relax.all_reduce`, then unpacked. In vjp mode the gradients of
    `@<func>_bwd` are reduced.

    Errors (unknown function, bad target, bad `require-grads`, no or several
    binding blocks, ops without a gradient rule) are diagnostics at the
    offending op or function; the pass then fails and adds nothing.
  }];
  let options = [
    ListOption<"funcNames", "func", "std::string",
               "Names of the functions to differentiate (default: main); each "
               "gets its own adjoint, with the same require-grads and "
               "target-index (or its own relax.require_grads / "
               "relax.target_index). A spaced list goes in braces: "
               "func={a, b}">,
    ListOption<"requireGrads", "require-grads", "int64_t",
               "Indices of the parameters to differentiate with respect to, in "
               "output order (default: every float parameter)">,
    Option<"targetIndex", "target-index", "int64_t", /*default=*/"0",
           "Field of a tuple result to differentiate (0 for a tensor result)">,
    Option<"mode", "mode", "std::string", /*default=*/"\"adjoint\"",
           "adjoint: add @<func>_adjoint; vjp: add @<func>_fwd (the result and "
           "the residuals) and @<func>_bwd (residuals and a cotangent of the "
           "result to gradients)">,
    Option<"dataParallel", "data-parallel", "std::string", /*default=*/"\"none\"",
           "none; sum or mean: every process of an MPI job runs the adjoint on its "
           "own data, and the gradients (and, in adjoint mode, the target) are "
           "summed or averaged over the processes by relax.all_reduce, packed "
           "into one buffer per element type">,
  ];
  let dependentDialects = ["::mlir::relax::RelaxDialect", "::mlir::arith::ArithDialect"];
}

def VmapPass : Pass<"vmap", "::mlir::ModuleOp"> {
  let summary = "Batching (JAX's vmap) of functions";
  let description = [{
    Adds `@<func>_vmap`: `@<func>` over a batch of `batch-size` examples. The
    parameters listed in `batched` get a new leading dimension of that size
    (a tuple parameter: each field); the others are the same for every
    example. Each op that reads a batched value states its batching rule
    through `BatchingOpInterface`; ops that read none stay as they are and
    run once for the whole batch. The result is batched (leading dimension
    `batch-size`; an unbatched one is broadcast); several results become one
    tuple. Calls to functions with a body are inlined first, so the batched
    function of a gradient (`vmap` of `grad`) or the gradient of a batched
    function both work; the result is one relax function that the other
    passes take like any other.

    ```mlir
    func.func @main(%x: tensor<3xf32>, %w: tensor<3x2xf32>) -> tensor<2xf32> {
      %r = relax.dataflow -> (tensor<2xf32>) {
        %y = relax.matmul %x, %w : tensor<3xf32>, tensor<3x2xf32> -> tensor<2xf32>
        relax.output %y : tensor<2xf32>
      }
      return %r : tensor<2xf32>
    }
    ```
    ==> `relax-opt --vmap="func=main batch-size=8 batched=0"` adds
    `@main_vmap(%x: tensor<8x3xf32>, %w: tensor<3x2xf32>) -> tensor<8x2xf32>`,
    one matmul of the batch (a row of it per example).

    Errors (unknown function or parameter, ops without a batching rule, all
    of them reported at the op) are diagnostics; the pass then fails and adds
    nothing.
  }];
  let options = [
    ListOption<"funcNames", "func", "std::string",
               "Names of the functions to batch (default: main); each gets its "
               "own @<name>_vmap">,
    ListOption<"batchedParams", "batched", "int64_t",
               "Indices of the parameters that carry the batch (a leading "
               "dimension); the others are shared by every example">,
    Option<"batchSize", "batch-size", "int64_t", /*default=*/"1",
           "The number of examples (the new leading dimension)">,
  ];
  let dependentDialects = ["::mlir::relax::RelaxDialect", "::mlir::arith::ArithDialect"];
}

def JvpPass : Pass<"jvp", "::mlir::ModuleOp"> {
  let summary = "Forward-mode automatic differentiation of functions";
  let description = [{
    Adds `@<func>_jvp`, which takes the parameters of `@<func>` followed by one
    tangent per differentiated parameter (`wrt`, every float parameter when
    omitted; a tangent has its parameter's type) and returns
    `tuple<outputs, output_tangents>`: for a function with one result, the
    result and its tangent (of the result's type; integer tensors, and
    integer fields of tuples, get zero tangents); for several, a tuple of the
    results and a tuple of their tangents. Each op depending on a
    differentiated parameter states its Jacobian-vector product through
    `GradientOpInterface`; the tangent bindings follow the op they
    differentiate in the one `relax.dataflow` block, so `@<func>_jvp` can be
    differentiated again (in either mode). Calls to functions of the module
    with a body are inlined first (the JVP of an adjoint is a
    forward-over-reverse Hessian-vector product). Checkpoint markers stay, and
    mark the tangent of a marked value too, so that a later gradient
    recomputes the segment with its tangents. `func` may list several
    functions; if one fails, no function is added.

    ```mlir
    func.func @main(%x: tensor<3xf32>) -> tensor<3xf32> {
      %r = relax.dataflow -> (tensor<3xf32>) {
        %y = relax.exp %x : tensor<3xf32>
        relax.output %y : tensor<3xf32>
      }
      return %r : tensor<3xf32>
    }
    ```
    ==> `relax-opt --jvp="func=main"` adds
    ```mlir
    func.func @main_jvp(%x: tensor<3xf32>, %tx: tensor<3xf32>)
        -> tuple<tensor<3xf32>, tensor<3xf32>> {
      %r = relax.dataflow -> (tuple<tensor<3xf32>, tensor<3xf32>>) {
        %y = relax.exp %x : tensor<3xf32>
        %ty = relax.multiply %tx, %y : ...
        %t = relax.tuple(%y, %ty : tensor<3xf32>, tensor<3xf32>)
        relax.output %t : tuple<tensor<3xf32>, tensor<3xf32>>
      }
      return %r : tuple<tensor<3xf32>, tensor<3xf32>>
    }
    ```
    With `mode=linearize` the JVP function comes in two halves (JAX's
    `linearize`): `@<func>_primal(params...) -> tuple<outputs, tuple<residuals...>>`
    computes the outputs and the primal values the tangents need, and
    `@<func>_linear(residuals..., tangents...) -> output_tangents` is the
    linear map alone (the tangent bindings, which depend on the tangents), so
    that it runs for many tangents without the primal computation.

    Errors (unknown function, bad `wrt`, no or several binding blocks, ops
    without a tangent rule, all of them reported) are diagnostics at the
    offending op or function; the pass then fails and adds nothing.
  }];
  let options = [
    ListOption<"funcNames", "func", "std::string",
               "Names of the functions to differentiate (default: main); each "
               "gets its own @<name>_jvp with the same wrt. A spaced list goes "
               "in braces: func={a, b}">,
    ListOption<"wrt", "wrt", "int64_t",
               "Indices of the parameters that get tangents, in the order of "
               "the tangent parameters (default: every float parameter)">,
    Option<"mode", "mode", "std::string", /*default=*/"\"jvp\"",
           "jvp: add @<func>_jvp; linearize: add @<func>_primal (the outputs "
           "and the residuals) and @<func>_linear (residuals and tangents to "
           "the output tangents)">,
  ];
  let dependentDialects = ["::mlir::relax::RelaxDialect", "::mlir::arith::ArithDialect"];
}

def FlattenTuplesPass : Pass<"relax-flatten-tuples", "::mlir::ModuleOp"> {
  let summary = "Inline dataflow blocks and flatten tuple parameters and results";
  let description = [{
    Prepares relax functions for lowering: every `relax.dataflow` is inlined
    into its parent, each tuple-typed parameter or result of a function is
    replaced by its tensor leaves (depth-first, left to right), and
    `relax.tuple_get_item` of `relax.tuple` folds away. Calls to functions
    whose signatures change are rejected: run `inline` first.

    ```mlir
    func.func @f(%t: tuple<tensor<2xf32>, tensor<f32>>) -> tensor<f32>
    ```
    ==>
    ```mlir
    func.func @f(%a: tensor<2xf32>, %b: tensor<f32>) -> tensor<f32>
    ```
  }];
  let dependentDialects = ["::mlir::relax::RelaxDialect"];
}

def ConvertToDataflowPass : Pass<"relax-convert-to-dataflow", "::mlir::func::FuncOp"> {
  let summary = "Gather a function's pure relax bindings into one relax.dataflow";
  let description = [{
    For a function without a `relax.dataflow`, moves its relax ops, the
    constants they use and its `func.call`s (a call of a relax function is a
    binding, which the gradient pass inlines) into one new `relax.dataflow`
    placed where the first of them was; values used after the block become its
    results. An op that depends on another kind of op stays outside. Functions
    that already have a dataflow block are left alone.

    ```mlir
    func.func @f(%x: tensor<3xf32>) -> tensor<f32> {
      %0 = relax.exp %x : tensor<3xf32>
      %1 = relax.sum %0 : tensor<3xf32> -> tensor<f32>
      return %1 : tensor<f32>
    }
    ```
    ==>
    ```mlir
    func.func @f(%x: tensor<3xf32>) -> tensor<f32> {
      %r = relax.dataflow -> (tensor<f32>) {
        %0 = relax.exp %x : tensor<3xf32>
        %1 = relax.sum %0 : tensor<3xf32> -> tensor<f32>
        relax.output %1 : tensor<f32>
      }
      return %r : tensor<f32>
    }
    ```
  }];
  let dependentDialects = ["::mlir::relax::RelaxDialect"];
}

def MemoryReportPass : Pass<"relax-memory-report", "::mlir::ModuleOp"> {
  let summary = "Report each function's static peak of live tensor bytes";
  let description = [{
    Walks each function's bindings in program order and sums the bytes of the
    tensors live at each binding (from definition to last use; tuples, dataflow
    results and checkpoint markers alias what they hold, and the parameters,
    owned by the caller, are not counted). The peak is attached to the function
    as `relax.peak_live_bytes` (i64) and reported as a remark. This is what
    checkpointing buys: with about sqrt(n) segments on an n-layer chain the
    adjoint's peak grows like sqrt(n) instead of n.

    ```mlir
    func.func @main_adjoint(...) attributes {relax.peak_live_bytes = 4096 : i64}
    ```
  }];
  let options = [
    Option<"funcName", "func", "std::string", /*default=*/"\"\"",
           "Only report this function (default: every function with a body)">,
  ];
}

#endif // RELAX_TRANSFORMS_PASSES_TD
