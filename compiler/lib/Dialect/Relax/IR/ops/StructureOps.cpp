//===- StructureOps.cpp - relax ops: dataflow block and tuples ------------===//

#include "relax-mlir/Dialect/Relax/IR/RelaxOps.h"

using namespace mlir;
using namespace mlir::relax;

//===----------------------------------------------------------------------===//
// DataflowOp
//===----------------------------------------------------------------------===//

OutputOp DataflowOp::getOutput() { return cast<OutputOp>(getBody().front().getTerminator()); }

LogicalResult DataflowOp::verify() {
  Block &block = getBody().front();
  if (block.empty() || !isa<OutputOp>(block.back()))
    return emitOpError("body must end with 'relax.output'");
  OutputOp output = getOutput();
  if (output.getOperandTypes() != getResultTypes())
    return emitOpError("has result types (")
           << getResultTypes() << ") but its 'relax.output' yields ("
           << output.getOperandTypes() << ")";
  return success();
}

//===----------------------------------------------------------------------===//
// Tuples
//===----------------------------------------------------------------------===//

LogicalResult TupleOp::inferReturnTypes(MLIRContext *ctx, std::optional<Location>,
                                        Adaptor adaptor, SmallVectorImpl<Type> &results) {
  results.push_back(TupleType::get(ctx, adaptor.getFields().getTypes()));
  return success();
}

LogicalResult TupleGetItemOp::inferReturnTypes(MLIRContext *, std::optional<Location> loc,
                                               Adaptor adaptor, SmallVectorImpl<Type> &results) {
  auto tuple = dyn_cast<TupleType>(adaptor.getTuple().getType());
  if (!tuple)
    return emitOptionalError(loc, "operand must be a tuple");
  int64_t index = adaptor.getIndex();
  if (index < 0 || index >= static_cast<int64_t>(tuple.size()))
    return emitOptionalError(loc, "index ", index, " is out of range for a tuple of ",
                             tuple.size(), " fields");
  results.push_back(tuple.getType(index));
  return success();
}
