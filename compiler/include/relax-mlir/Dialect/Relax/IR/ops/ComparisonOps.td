//===- ComparisonOps.td - relax comparison ops -------------*- tablegen -*-===//
//
// Included by RelaxOps.td; see there for the shared definitions.
//
//===----------------------------------------------------------------------===//

#ifndef RELAX_OPS_COMPARISON_OPS_TD
#define RELAX_OPS_COMPARISON_OPS_TD

//===----------------------------------------------------------------------===//
// Comparisons (i1 results, no gradient)
//===----------------------------------------------------------------------===//

class Relax_CompareOp<string mnemonic, string formula>
    : Relax_Op<mnemonic, [Pure, InferTypeOpAdaptor, Relax_Batchable]> {
  let summary = "Elementwise comparison " # formula # " with numpy broadcasting";
  let description = "Computes `" # formula # "` elementwise into an i1 tensor of the "
    "broadcast shape (i1 operands compare as 0 < 1). Comparisons have no "
    "gradient: their result is not a float.\n\n"
    "```mlir\n%m = relax." # mnemonic # " %a, %b : tensor<4x3xf32>, tensor<f32> "
    "-> tensor<4x3xi1>\n```";
  let arguments = (ins Relax_Tensor:$lhs, Relax_Tensor:$rhs);
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

def Relax_EqualOp : Relax_CompareOp<"equal", "a == b">;
def Relax_NotEqualOp : Relax_CompareOp<"not_equal", "a != b">;
def Relax_GreaterOp : Relax_CompareOp<"greater", "a > b">;
def Relax_GreaterEqualOp : Relax_CompareOp<"greater_equal", "a >= b">;
def Relax_LessOp : Relax_CompareOp<"less", "a < b">;
def Relax_LessEqualOp : Relax_CompareOp<"less_equal", "a <= b">;

#endif // RELAX_OPS_COMPARISON_OPS_TD
