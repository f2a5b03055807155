//===- StructureBatching.cpp - batching rule of calls with rules ----------===//
//
// A relax.call_with_rules under vmap stays one, so that a gradient or jvp of
// the batched function still uses the given rules (JAX's custom_vjp and
// custom_jvp under vmap): it calls the callee batched, the jvp batched (a
// tangent is batched with its operand) and a vjp that calls the given vjp
// batched, then sums the gradient of each shared operand over the batch (the
// batched call reads one value of it for the whole batch).
//
//===----------------------------------------------------------------------===//

#include "relax-mlir/Dialect/Relax/IR/BatchingUtils.h"
#include "relax-mlir/Dialect/Relax/IR/GradientUtils.h"
#include "relax-mlir/Dialect/Relax/IR/RelaxOps.h"

#include "mlir/IR/SymbolTable.h"

using namespace mlir;
using namespace mlir::relax;

/// `type` without its batch (a tuple: each field's).
static Type unbatchedType(Type type) {
  if (auto tuple = dyn_cast<TupleType>(type))
    return TupleType::get(type.getContext(), llvm::map_to_vector(tuple.getTypes(), unbatchedType));
  auto t = cast<RankedTensorType>(type);
  return t.clone(t.getShape().drop_front());
}

/// The sum of batched `v` over its batch (a tuple: each field's).
static Value sumOverBatch(OpBuilder &b, Location loc, Value v) {
  SmallVector<Value> leaves;
  vjp::tupleLeaves(b, loc, v, leaves);
  for (Value &leaf : leaves)
    leaf = vjp::sumOver(b, loc, leaf, {0}, /*keepdims=*/false);
  unsigned pos = 0;
  return vjp::fromTupleLeaves(b, loc, unbatchedType(v.getType()), leaves, pos);
}

/// `batchedVjp` (the vjp batched over every operand that `batched` marks and
/// the cotangent) followed by a sum over the batch of the gradients of the
/// shared float operands: a function added after it. `batchedVjp` itself when
/// every float operand is batched.
static FailureOr<func::FuncOp> sumSharedGradients(Location loc, func::FuncOp batchedVjp,
                                                  ValueRange operands, ArrayRef<bool> batched,
                                                  RegionBatcher &functions) {
  SmallVector<std::pair<unsigned, bool>> grads; // (gradient index, operand batched)
  for (auto [v, isBatched] : llvm::zip(operands, batched))
    if (isDifferentiableType(v.getType()))
      grads.push_back({static_cast<unsigned>(grads.size()), isBatched});
  if (llvm::all_of(grads, [](auto g) { return g.second; }))
    return batchedVjp;
  MLIRContext *ctx = loc.getContext();
  auto batchedGrads = cast<TupleType>(batchedVjp.getFunctionType().getResult(0));
  SmallVector<Type> gradTypes;
  for (auto [i, isBatched] : grads)
    gradTypes.push_back(isBatched ? batchedGrads.getType(i)
                                  : unbatchedType(batchedGrads.getType(i)));
  Type resultType = TupleType::get(ctx, gradTypes);
  OpBuilder b(ctx);
  auto fn = func::FuncOp::create(
      b, loc, (batchedVjp.getSymName() + "_shared").str(),
      FunctionType::get(ctx, batchedVjp.getArgumentTypes(), {resultType}));
  fn.setVisibility(batchedVjp.getVisibility());
  SymbolTable(batchedVjp->getParentOfType<ModuleOp>())
      .insert(fn, std::next(batchedVjp->getIterator()));
  functions.addedFunction(fn);
  Block *entry = fn.addEntryBlock();
  b.setInsertionPointToStart(entry);
  auto df = DataflowOp::create(b, loc, TypeRange{resultType});
  b.createBlock(&df.getBody());
  Value all = func::CallOp::create(b, loc, batchedVjp, entry->getArguments()).getResult(0);
  SmallVector<Value> out;
  for (auto [i, isBatched] : grads) {
    Value g = b.createOrFold<TupleGetItemOp>(loc, all, i);
    out.push_back(isBatched ? g : sumOverBatch(b, loc, g));
  }
  OutputOp::create(b, loc, ValueRange{TupleOp::create(b, loc, out).getResult()});
  b.setInsertionPointToEnd(entry);
  func::ReturnOp::create(b, loc, df.getResult(0));
  return fn;
}

LogicalResult CallWithRulesOp::buildBatched(OpBuilder &b, int64_t n, ValueRange operands,
                                            ArrayRef<bool> batched,
                                            MutableArrayRef<Value> results,
                                            RegionBatcher &functions) {
  Location loc = getLoc();
  SmallVector<bool> jvpFlags(batched), vjpFlags(batched);
  for (auto [v, isBatched] : llvm::zip(getOperands(), batched))
    if (isDifferentiableType(v.getType()))
      jvpFlags.push_back(isBatched);
  auto fields = dyn_cast<TupleType>(getType());
  vjpFlags.append(fields ? fields.size() : 1, true);
  FailureOr<func::FuncOp> callee = functions.batchFunction(loc, getCallee(), batched);
  if (failed(callee))
    return failure();
  FailureOr<func::FuncOp> jvp = functions.batchFunction(loc, getJvp(), jvpFlags);
  if (failed(jvp))
    return failure();
  FailureOr<func::FuncOp> vjp = functions.batchFunction(loc, getVjp(), vjpFlags);
  if (failed(vjp))
    return failure();
  FailureOr<func::FuncOp> summed =
      sumSharedGradients(loc, *vjp, getOperands(), batched, functions);
  if (failed(summed))
    return failure();
  results[0] = CallWithRulesOp::create(b, loc, batchedType(getType(), n), callee->getSymName(),
                                       jvp->getSymName(), summed->getSymName(), operands,
                                       getArgAttrsAttr(), getResAttrsAttr())
                   .getResult();
  return success();
}
