//===- CreationOps.td - relax creation ops -----------------*- tablegen -*-===//
//
// Included by RelaxOps.td; see there for the shared definitions.
//
//===----------------------------------------------------------------------===//

#ifndef RELAX_OPS_CREATION_OPS_TD
#define RELAX_OPS_CREATION_OPS_TD

//===----------------------------------------------------------------------===//
// Creation
//===----------------------------------------------------------------------===//

class Relax_FillOp<string mnemonic, string value>
    : Relax_Op<mnemonic, [Pure]> {
  let summary = "A tensor of " # value # "s of the result type";
  let description = "Shape and element type come from the result type.\n\n"
    "```mlir\n%z = relax." # mnemonic # " : tensor<4x3xf32>\n```";
  let results = (outs Relax_Tensor:$result);
  let assemblyFormat = "attr-dict `:` type($result)";
}

def Relax_ZerosOp : Relax_FillOp<"zeros", "zero">;
def Relax_OnesOp : Relax_FillOp<"ones", "one">;

#endif // RELAX_OPS_CREATION_OPS_TD
