//===- RelaxDialect.td - The relax dialect definition ------*- tablegen -*-===//
//
// The dialect, its base op class and the type constraints shared by its ops.
//
//===----------------------------------------------------------------------===//

#ifndef RELAX_DIALECT_TD
#define RELAX_DIALECT_TD

include "mlir/IR/OpBase.td"
include "mlir/IR/BuiltinTypes.td"
include "mlir/IR/CommonTypeConstraints.td"

def Relax_Dialect : Dialect {
  let name = "relax";
  let summary = "A Relax-like tensor dialect with reverse-mode automatic differentiation";
  let description = [{
    Pure tensor computation on statically shaped builtin tensors and builtin tuples,
    following numpy (and TVM Relax) semantics. A function's computation sits in one
    `relax.dataflow` op; the `gradient` pass differentiates it through the
    `GradientOpInterface` that every differentiable op implements.
  }];
  let cppNamespace = "::mlir::relax";
  let dependentDialects = ["::mlir::arith::ArithDialect", "::mlir::func::FuncDialect"];
  // Inherent attributes print in the plain attribute dictionary, so the generic
  // form reads `"relax.sum"(%x) {axis = array<i64: 1>, keepdims = true}` as the
  // interchange contract writes it.
  let usePropertiesForAttributes = 0;
}

class Relax_Op<string mnemonic, list<Trait> traits = []>
    : Op<Relax_Dialect, mnemonic, traits>;

// Element types the contract allows: floats get gradients, integers and i1 carry
// masks, labels and indices.
defvar Relax_FloatTypes = [F16, BF16, F32, F64];
defvar Relax_NumericTypes = [F16, BF16, F32, F64, I32, I64];

// A static tensor whose element count and byte size fit in int64: every size
// computation (verifiers, lowering, memory report) can then use plain int64.
class Relax_TensorOf<list<Type> types>
    : ConfinedType<StaticShapeTensorOf<types>,
                   [CPred<"::mlir::relax::hasRepresentableSize($_self)">],
                   StaticShapeTensorOf<types>.summary # " of fewer than 2^63 bytes",
                   "::mlir::RankedTensorType">;

def Relax_Tensor : Relax_TensorOf<[F16, BF16, F32, F64, I1, I32, I64]>;
def Relax_FloatTensor : Relax_TensorOf<Relax_FloatTypes>;
def Relax_NumericTensor : Relax_TensorOf<Relax_NumericTypes>;
def Relax_BoolTensor : Relax_TensorOf<[I1]>;
def Relax_Tuple : Type<CPred<"::llvm::isa<::mlir::TupleType>($_self)">, "tuple",
                       "::mlir::TupleType">;
def Relax_Value : AnyTypeOf<[Relax_Tensor, Relax_Tuple]>;

#endif // RELAX_DIALECT_TD
