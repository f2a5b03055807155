//===- ControlFlowOps.td - relax loops and conditionals ----*- tablegen -*-===//
//
// Included by RelaxOps.td; see there for the shared definitions.
//
// Every region op here is isolated from above: what a body reads comes in as
// operands (`consts`, loop-invariant, and the carries or operands), so that
// a body is a function of its block arguments. The differentiation rules,
// the lowering and the Python frontend all rely on it.
//
//===----------------------------------------------------------------------===//

#ifndef RELAX_OPS_CONTROL_FLOW_OPS_TD
#define RELAX_OPS_CONTROL_FLOW_OPS_TD

// The rules of region ops differentiate their bodies through what the passes
// lend them (RelaxInterfaces.td).
defvar Relax_RegionDifferentiable = DeclareOpInterfaceMethods<Relax_RegionGradientOpInterface>;

def Relax_YieldOp : Relax_Op<"yield", [Pure, Terminator, ReturnLike,
    ParentOneOf<["ScanOp", "WhileOp", "IfOp", "SwitchOp"]>]> {
  let summary = "Terminates the body of a loop or a branch";
  let description = [{
    Its operands are what the region produces: the new carries (then the
    per-iteration outputs) of a `relax.scan` body, the new carries of a
    `relax.while` body, a branch's results.

    ```mlir
    relax.yield %h, %y : tensor<4xf32>, tensor<4xf32>
    ```
  }];
  let arguments = (ins Variadic<Relax_Tensor>:$operands);
  let assemblyFormat = "attr-dict ($operands^ `:` type($operands))?";
}

def Relax_ConditionOp : Relax_Op<"condition", [Pure, Terminator, HasParent<"WhileOp">]> {
  let summary = "Terminates the condition of a relax.while";
  let description = [{
    The loop runs its body again while `%p` (a 0-d i1 tensor) is true.

    ```mlir
    relax.condition %p : tensor<i1>
    ```
  }];
  let arguments = (ins Relax_BoolTensor:$condition);
  let assemblyFormat = "$condition attr-dict `:` type($condition)";
  let hasVerifier = 1;
}

def Relax_ScanOp : Relax_Op<"scan", [RecursiveMemoryEffects, IsolatedFromAbove, SingleBlock,
    Relax_RegionDifferentiable, Relax_RegionBatchable]> {
  let summary = "A loop over a carry and the slices of stacked inputs (JAX's lax.scan)";
  let description = [{
    Runs its body `length` times. The body's arguments are the `consts`
    (the same every iteration), the carries (`init` at first, then what the
    previous iteration yielded) and one slice of each of `xs` along its
    leading axis, of size `length`: slice `i` at iteration `i`, or slice
    `length - 1 - i` with `reverse`. It yields the new carries, then one
    slice of each output. The results are the last carries, then the outputs
    stacked along a new leading axis of size `length` (slice `i` where the
    input slice `i` was read).

    Reverse mode stores the carry that enters each iteration and runs a
    reverse scan over the body's adjoint, recomputing the body from the
    stored carry. With `checkpoint_every = k` (k > 1), the loop is first
    nested into chunks of k iterations, recursively while the outer loop is
    longer than k: each level of the nest stores at most about k carries
    and recomputes its iterations once more (k = sqrt(length): two levels,
    about 2 sqrt(length) carries and one more forward sweep; k = 2: about
    2 log2(length) carries and log2(length) more forward sweeps).

    ```mlir
    %r:2 = relax.scan length = 8 consts(%w : tensor<4x4xf32>) init(%h0 : tensor<4xf32>)
        xs(%xs : tensor<8x4xf32>) -> (tensor<4xf32>, tensor<8x4xf32>) {
    ^bb0(%wc: tensor<4x4xf32>, %hc: tensor<4xf32>, %x: tensor<4xf32>):
      %m = relax.matmul %wc, %hc : tensor<4x4xf32>, tensor<4xf32> -> tensor<4xf32>
      %a = relax.add %m, %x : tensor<4xf32>, tensor<4xf32> -> tensor<4xf32>
      %t = relax.tanh %a : tensor<4xf32>
      relax.yield %t, %t : tensor<4xf32>, tensor<4xf32>
    }
    ```
  }];
  let arguments = (ins Variadic<Relax_Tensor>:$args, I64Attr:$num_consts, I64Attr:$num_carries,
                       I64Attr:$length, UnitAttr:$reverse,
                       OptionalAttr<I64Attr>:$checkpoint_every);
  let results = (outs Variadic<Relax_Tensor>:$results);
  let regions = (region SizedRegion<1>:$body);
  // The operands are the consts, the init carries and the xs, in order
  // (num_consts and num_carries say where each group ends); the results are
  // the carries, then the stacked outputs.
  let assemblyFormat = [{
    `length` `=` $length (`reverse` $reverse^)?
    custom<ScanOperands>($args, type($args), $num_consts, $num_carries)
    `->` `(` type($results) `)` $body attr-dict
  }];
  let hasVerifier = 1;
  let hasRegionVerifier = 1;
  let skipDefaultBuilders = 1;
  let builders = [OpBuilder<(ins "::mlir::ValueRange":$consts, "::mlir::ValueRange":$init,
      "::mlir::ValueRange":$xs, "::mlir::TypeRange":$ysTypes, "int64_t":$length,
      "bool":$reverse, "std::optional<int64_t>":$checkpointEvery)>];
  let extraClassDeclaration = [{
    ::mlir::OperandRange getConsts() { return getArgs().take_front(getNumConsts()); }
    ::mlir::OperandRange getInit() { return getArgs().slice(getNumConsts(), getNumCarries()); }
    ::mlir::OperandRange getXs() { return getArgs().drop_front(getNumConsts() + getNumCarries()); }
    ::mlir::ResultRange getCarries() { return getResults().take_front(getNumCarries()); }
    ::mlir::ResultRange getYs() { return getResults().drop_front(getNumCarries()); }
  }];
}

def Relax_WhileOp : Relax_Op<"while", [RecursiveMemoryEffects, IsolatedFromAbove,
    Relax_RegionDifferentiable, Relax_RegionBatchable]> {
  let summary = "A loop while a condition holds (JAX's lax.while_loop)";
  let description = [{
    Both regions take the `consts` and the carries (`init` at first). The
    loop evaluates `cond` (ending in `relax.condition`) and, while it is
    true, runs `body` (ending in `relax.yield` of the new carries). The
    results are the last carries.

    With `max_iterations = n`, the loop also stops after `n` iterations of
    its body (as Equinox's `while_loop(max_steps=n)`). Reverse mode needs
    it, to bound what the backward pass stores: it differentiates the loop
    as nested `relax.scan`s of guarded steps, k = `checkpoint_every`
    (default 8) per level below the top, ceil(log_k(n)) levels (a step
    after the loop ended, or past n, only passes the carries on; a chunk
    entered after it ended is skipped whole, so the work follows the trip
    count the loop records at run time, not `n`). Multi-level checkpointing:
    about k per level, k * ceil(log_k(n)) carries in all, are stored, and
    each step is recomputed at most once per level.

    ```mlir
    %r = relax.while max_iterations = 50 consts(%a : tensor<f32>) init(%x0 : tensor<f32>)
        -> (tensor<f32>) cond {
    ^bb0(%ac: tensor<f32>, %x: tensor<f32>):
      %p = relax.greater %x, %ac : tensor<f32>, tensor<f32> -> tensor<i1>
      relax.condition %p : tensor<i1>
    } do {
    ^bb0(%ac: tensor<f32>, %x: tensor<f32>):
      %h = relax.multiply %x, %half : tensor<f32>, tensor<f32> -> tensor<f32>
      relax.yield %h : tensor<f32>
    }
    ```
  }];
  let arguments = (ins Variadic<Relax_Tensor>:$args, I64Attr:$num_consts,
                       OptionalAttr<I64Attr>:$max_iterations,
                       OptionalAttr<I64Attr>:$checkpoint_every);
  let results = (outs Variadic<Relax_Tensor>:$results);
  let regions = (region SizedRegion<1>:$cond, SizedRegion<1>:$body);
  // The operands are the consts, then the init carries.
  let assemblyFormat = [{
    (`max_iterations` `=` $max_iterations^)?
    custom<WhileOperands>($args, type($args), $num_consts)
    `->` `(` type($results) `)` `cond` $cond `do` $body attr-dict
  }];
  let hasVerifier = 1;
  let hasRegionVerifier = 1;
  let skipDefaultBuilders = 1;
  let builders = [OpBuilder<(ins "::mlir::ValueRange":$consts, "::mlir::ValueRange":$init,
      "::mlir::IntegerAttr":$maxIterations, "::mlir::IntegerAttr":$checkpointEvery)>];
  let extraClassDeclaration = [{
    ::mlir::OperandRange getConsts() { return getArgs().take_front(getNumConsts()); }
    ::mlir::OperandRange getInit() { return getArgs().drop_front(getNumConsts()); }
    /// The fan-out of the nested checkpoints of its reverse mode.
    int64_t getCheckpointFanOut();
  }];
}

// A conditional: operand 0 picks one of the regions, which all take the
// other operands and yield the results. Both modes differentiate the region
// taken (ControlFlowGradients.cpp).
class Relax_BranchOp<string mnemonic> : Relax_Op<mnemonic, [RecursiveMemoryEffects,
    IsolatedFromAbove, Relax_RegionDifferentiable, Relax_RegionBatchable]> {
  let extraClassDefinition = [{
    ::llvm::LogicalResult $cppClass::buildVectorJacobianProduct(
        ::mlir::OpBuilder &b, ::mlir::ValueRange resultGrads, ::llvm::ArrayRef<bool> needsGrad,
        ::llvm::MutableArrayRef<::mlir::Value> operandGrads,
        ::mlir::relax::PullbackBuilder &pullbacks) {
      return ::mlir::relax::buildBranchesVectorJacobianProduct(*this, b, resultGrads, needsGrad,
                                                               operandGrads, pullbacks);
    }
    ::llvm::LogicalResult $cppClass::buildJacobianVectorProduct(
        ::mlir::OpBuilder &b, ::mlir::ValueRange operandTangents,
        ::llvm::MutableArrayRef<::mlir::Value> resultTangents,
        ::mlir::relax::PushforwardBuilder &pushforwards) {
      return ::mlir::relax::buildBranchesJacobianVectorProduct(*this, b, operandTangents,
                                                               resultTangents, pushforwards);
    }
  }];
}

def Relax_IfOp : Relax_BranchOp<"if"> {
  let summary = "One of two regions, chosen by a predicate (JAX's lax.cond)";
  let description = [{
    Runs `then` when `pred` (a 0-d i1 tensor) is true, else `else`; both
    take the `inputs` and yield values of the result types. Both
    differentiation modes differentiate the branch taken.

    ```mlir
    %r = relax.if %p : tensor<i1> (%x : tensor<3xf32>) -> (tensor<3xf32>) {
    ^bb0(%a: tensor<3xf32>):
      %e = relax.exp %a : tensor<3xf32>
      relax.yield %e : tensor<3xf32>
    } else {
    ^bb0(%a: tensor<3xf32>):
      relax.yield %a : tensor<3xf32>
    }
    ```
  }];
  let arguments = (ins Relax_BoolTensor:$pred, Variadic<Relax_Tensor>:$inputs);
  let results = (outs Variadic<Relax_Tensor>:$results);
  let regions = (region SizedRegion<1>:$then_region, SizedRegion<1>:$else_region);
  let assemblyFormat = [{
    $pred `:` type($pred) ` ` `(` ($inputs^ `:` type($inputs))? `)` `->` `(` type($results) `)`
    $then_region `else` $else_region attr-dict
  }];
  let hasVerifier = 1;
  let hasRegionVerifier = 1;
}

def Relax_SwitchOp : Relax_BranchOp<"switch"> {
  let summary = "One of several regions, chosen by an index (JAX's lax.switch)";
  let description = [{
    Runs region `index` (a 0-d i32 or i64 tensor, clamped to the regions'
    range as JAX's `lax.switch` does); each region takes the `inputs` and
    yields values of the result types.

    ```mlir
    %r = relax.switch %i : tensor<i32> (%x : tensor<f32>) -> (tensor<f32>) [{
    ^bb0(%a: tensor<f32>):
      relax.yield %a : tensor<f32>
    }, {
    ^bb0(%a: tensor<f32>):
      %n = relax.negative %a : tensor<f32>
      relax.yield %n : tensor<f32>
    } ]
    ```
  }];
  let arguments = (ins Relax_TensorOf<[I32, I64]>:$index, Variadic<Relax_Tensor>:$inputs);
  let results = (outs Variadic<Relax_Tensor>:$results);
  let regions = (region VariadicRegion<SizedRegion<1>>:$branches);
  let assemblyFormat = [{
    $index `:` type($index) ` ` `(` ($inputs^ `:` type($inputs))? `)` `->` `(` type($results) `)`
    `[` $branches `]` attr-dict
  }];
  let hasVerifier = 1;
  let hasRegionVerifier = 1;
}

#endif // RELAX_OPS_CONTROL_FLOW_OPS_TD
