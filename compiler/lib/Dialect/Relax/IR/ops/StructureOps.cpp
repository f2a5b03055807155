//===- StructureOps.cpp - relax ops: dataflow block and tuples ------------===//

#include "relax-mlir/Dialect/Relax/IR/GradientUtils.h"
#include "relax-mlir/Dialect/Relax/IR/RelaxOps.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"

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

//===----------------------------------------------------------------------===//
// CallWithRulesOp
//===----------------------------------------------------------------------===//

/// Checks that `name` is a func.func of type `inputs -> results`.
static LogicalResult verifyRuleFunction(Operation *op, SymbolTableCollection &symbols,
                                        FlatSymbolRefAttr name, StringRef role,
                                        TypeRange inputs, TypeRange results) {
  auto fn = symbols.lookupNearestSymbolFrom<func::FuncOp>(op, name);
  if (!fn)
    return op->emitOpError("names '") << name << "' as its " << role
                                      << ", which is not a function of the module";
  auto expected = FunctionType::get(op->getContext(), inputs, results);
  if (fn.getFunctionType() != expected)
    return op->emitOpError("expects its ")
           << role << " '" << name << "' to have type " << expected << ", not "
           << fn.getFunctionType();
  return success();
}

LogicalResult CallWithRulesOp::verifySymbolUses(SymbolTableCollection &symbols) {
  Type result = getType();
  SmallVector<Type> operands(getOperands().getTypes());
  if (failed(verifyRuleFunction(*this, symbols, getCalleeAttr(), "callee", operands, {result})))
    return failure();
  SmallVector<Type> jvpInputs(operands), grads;
  for (Type t : operands)
    if (isDifferentiableType(t)) {
      jvpInputs.push_back(t);
      grads.push_back(t);
    }
  TupleType pair = TupleType::get(getContext(), {result, result});
  if (failed(verifyRuleFunction(*this, symbols, getJvpAttr(), "jvp", jvpInputs, {pair})))
    return failure();
  SmallVector<Type> vjpInputs(operands);
  if (auto fields = dyn_cast<TupleType>(result))
    llvm::append_range(vjpInputs, fields.getTypes());
  else
    vjpInputs.push_back(result);
  return verifyRuleFunction(*this, symbols, getVjpAttr(), "vjp", vjpInputs,
                            {TupleType::get(getContext(), grads)});
}
