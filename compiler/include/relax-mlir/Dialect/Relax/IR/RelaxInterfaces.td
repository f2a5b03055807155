//===- RelaxInterfaces.td - Gradient op interface ----------*- tablegen -*-===//
//
// The interface through which each op states its vector-Jacobian product.
//
//===----------------------------------------------------------------------===//

#ifndef RELAX_INTERFACES_TD
#define RELAX_INTERFACES_TD

include "mlir/IR/OpBase.td"

def Relax_GradientOpInterface : OpInterface<"GradientOpInterface"> {
  let cppNamespace = "::mlir::relax";
  let description = [{
    An op that implements this interface knows its vector-Jacobian product (VJP):
    given the adjoints of its results it builds, with relax ops, the adjoints of
    its operands. The `gradient` pass walks the bindings backwards and calls this
    interface; it knows no op by name. Because the rules build relax ops, the
    adjoint function is itself differentiable.
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
           "::llvm::MutableArrayRef<::mlir::Value>":$operandGrads)>
  ];
}

#endif // RELAX_INTERFACES_TD
