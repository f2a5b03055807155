//===- RelaxInterfaces.td - Gradient and batching op interfaces -*- tablegen -*-===//
//
// The interfaces through which each op states its derivative in both modes
// (its vector-Jacobian product, reverse, and Jacobian-vector product,
// forward) and its batching rule (vmap).
//
//===----------------------------------------------------------------------===//

#ifndef RELAX_INTERFACES_TD
#define RELAX_INTERFACES_TD

include "mlir/IR/OpBase.td"

def Relax_GradientOpInterface : OpInterface<"GradientOpInterface"> {
  let cppNamespace = "::mlir::relax";
  let description = [{
    An op that implements this interface knows its derivative in both modes:
    its vector-Jacobian product (VJP: given the adjoints of its results, the
    adjoints of its operands) and its Jacobian-vector product (JVP: given the
    tangents of its operands, the tangents of its results), each built with
    relax ops. The `gradient` pass walks the bindings backwards calling the
    first, the `jvp` pass walks them forwards calling the second; neither knows
    an op by name. Because the rules build relax ops, what they produce can be
    differentiated again, in either mode.

    Every op with a VJP has a JVP: an op lists the interface either through
    `Relax_Differentiable` (it defines both methods) or through
    `Relax_LinearDifferentiable` (it defines the VJP; being linear in its
    float operands, its JVP is the op itself applied to the tangents, the
    default below, which refuses to compile for an op without the
    `Relax_Linear` trait).
  }];
  let methods = [
    InterfaceMethod<[{
        Builds the VJP at the builder's insertion point. `resultGrads` holds one
        adjoint per result, a null value where the result received no
        contribution (at least one is non-null). `needsGrad[i]` is true when
        operand `i` needs an adjoint; for those operands the rule sets
        `operandGrads[i]` (pre-sized to the number of operands, all null) to a
        value of the operand's type, or leaves it null for a zero contribution.
        Returns failure (after emitting a diagnostic) when no rule applies.
      }],
      "::llvm::LogicalResult", "buildVectorJacobianProduct",
      (ins "::mlir::OpBuilder &":$builder, "::mlir::ValueRange":$resultGrads,
           "::llvm::ArrayRef<bool>":$needsGrad,
           "::llvm::MutableArrayRef<::mlir::Value>":$operandGrads)>,
    InterfaceMethod<[{
        Builds the JVP at the builder's insertion point (after the op).
        `operandTangents` holds one tangent per operand, a null value where the
        operand's tangent is zero (at least one is non-null; operands of types
        that carry no gradient, integer indices for instance, are always null).
        The rule sets `resultTangents[i]` (pre-sized to the number of results,
        all null) to a value of result `i`'s type, or leaves it null for a zero
        tangent. Returns failure (after emitting a diagnostic) when no rule
        applies.
      }],
      "::llvm::LogicalResult", "buildJacobianVectorProduct",
      (ins "::mlir::OpBuilder &":$builder, "::mlir::ValueRange":$operandTangents,
           "::llvm::MutableArrayRef<::mlir::Value>":$resultTangents),
      /*methodBody=*/"", /*defaultImplementation=*/[{
        static_assert(ConcreteOp::template hasTrait<::mlir::OpTrait::relax::Linear>(),
                      "an op that is not Relax_Linear defines buildJacobianVectorProduct "
                      "(list it with Relax_Differentiable)");
        return ::mlir::relax::buildLinearTangent($_op, builder, operandTangents,
                                                 resultTangents);
      }]>
  ];
}

def Relax_RegionGradientOpInterface : OpInterface<"RegionGradientOpInterface"> {
  let cppNamespace = "::mlir::relax";
  let description = [{
    The derivatives of an op with regions (loops, conditionals): like
    GradientOpInterface's rules, with the differentiation of a body lent by
    the pass that calls them (`PullbackBuilder` in reverse mode,
    `PushforwardBuilder` in forward mode, GradientUtils.h), so that a rule
    can build a loop or a branch over the derivative of its body. A reverse
    rule may also replace its op by one that computes more (the carries its
    backward pass stores), built before it, through `replacePrimal`.
  }];
  let methods = [
    InterfaceMethod<[{
        As GradientOpInterface::buildVectorJacobianProduct, with `pullbacks`
        to differentiate bodies.
      }],
      "::llvm::LogicalResult", "buildVectorJacobianProduct",
      (ins "::mlir::OpBuilder &":$builder, "::mlir::ValueRange":$resultGrads,
           "::llvm::ArrayRef<bool>":$needsGrad,
           "::llvm::MutableArrayRef<::mlir::Value>":$operandGrads,
           "::mlir::relax::PullbackBuilder &":$pullbacks)>,
    InterfaceMethod<[{
        As GradientOpInterface::buildJacobianVectorProduct, with
        `pushforwards` to differentiate bodies.
      }],
      "::llvm::LogicalResult", "buildJacobianVectorProduct",
      (ins "::mlir::OpBuilder &":$builder, "::mlir::ValueRange":$operandTangents,
           "::llvm::MutableArrayRef<::mlir::Value>":$resultTangents,
           "::mlir::relax::PushforwardBuilder &":$pushforwards)>
  ];
}

def Relax_BatchingOpInterface : OpInterface<"BatchingOpInterface"> {
  let cppNamespace = "::mlir::relax";
  let description = [{
    An op that implements this interface knows its batching rule (JAX's
    `vmap`): how to compute a batch of its per-example results at once. The
    `vmap` pass calls it for every op that reads a batched value; it knows no
    op by name. A batched value carries the batch as a new leading dimension
    of `batchSize`; an unbatched value is the same for every example.
  }];
  let methods = [
    InterfaceMethod<[{
        Builds the batched op(s) at the builder's insertion point.
        `operands` are the op's operands in the batched program: those with
        `batched[i]` set have the leading batch dimension (at least one is),
        the others are as in the op. The rule sets every `results[i]`
        (pre-sized to the number of results) to a value of result `i`'s type
        with a leading dimension of `batchSize` (a tuple: each element so).
        Returns failure (after emitting a diagnostic) when no rule applies.
      }],
      "::llvm::LogicalResult", "buildBatched",
      (ins "::mlir::OpBuilder &":$builder, "int64_t":$batchSize,
           "::mlir::ValueRange":$operands, "::llvm::ArrayRef<bool>":$batched,
           "::llvm::MutableArrayRef<::mlir::Value>":$results)>
  ];
}

def Relax_RegionBatchingOpInterface : OpInterface<"RegionBatchingOpInterface"> {
  let cppNamespace = "::mlir::relax";
  let description = [{
    The batching rule of an op with regions (loops, conditionals) or one that
    calls functions (call_with_rules): like BatchingOpInterface's, with the
    batching of a body or a function lent by the vmap pass (`RegionBatcher`,
    BatchingUtils.h), so that a rule can build a loop or a branch over the
    batched body, or a call of the batched function.
  }];
  let methods = [
    InterfaceMethod<[{
        As BatchingOpInterface::buildBatched, with `regions` to batch bodies.
      }],
      "::llvm::LogicalResult", "buildBatched",
      (ins "::mlir::OpBuilder &":$builder, "int64_t":$batchSize,
           "::mlir::ValueRange":$operands, "::llvm::ArrayRef<bool>":$batched,
           "::llvm::MutableArrayRef<::mlir::Value>":$results,
           "::mlir::relax::RegionBatcher &":$regions)>
  ];
}

// Linear in its float operands jointly (its other operands, integer indices
// for instance, are held fixed): its JVP is the op applied to the tangents.
def Relax_Linear : NativeOpTrait<"relax::Linear">;

// Its results are constants to both differentiation passes (stop_gradient):
// activity analysis never marks them, whatever the operands.
def Relax_StopsDerivatives : NativeOpTrait<"relax::StopsDerivatives">;

#endif // RELAX_INTERFACES_TD
