//===- FlattenTuples.cpp - inline dataflow blocks, flatten tuple signatures ===//

#include "relax-mlir/Dialect/Relax/IR/GradientUtils.h"
#include "relax-mlir/Transforms/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Interfaces/CallInterfaces.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace mlir::relax {
#define GEN_PASS_DEF_FLATTENTUPLESPASS
#include "relax-mlir/Transforms/Passes.h.inc"
} // namespace mlir::relax

using namespace mlir;
using namespace mlir::relax;

static bool containsTuple(TypeRange types) {
  return llvm::any_of(types, [](Type t) { return isa<TupleType>(t); });
}

/// Appends the tensor leaves of `type`, depth-first.
static void flattenType(Type type, SmallVectorImpl<Type> &leaves) {
  if (auto tuple = dyn_cast<TupleType>(type)) {
    for (Type t : tuple.getTypes())
      flattenType(t, leaves);
    return;
  }
  leaves.push_back(type);
}

static void inlineDataflow(DataflowOp df) {
  Block &body = df.getBody().front();
  OutputOp out = df.getOutput();
  df.replaceAllUsesWith(out.getOperands());
  df->getBlock()->getOperations().splice(Block::iterator(df), body.getOperations(), body.begin(),
                                         Block::iterator(out));
  df.erase();
}

static void flattenSignature(func::FuncOp func) {
  OpBuilder b(func.getContext());
  Block &entry = func.front();
  SmallVector<DictionaryAttr> argAttrs;
  func.getAllArgAttrs(argAttrs);
  SmallVector<DictionaryAttr> newArgAttrs;
  for (int64_t i = entry.getNumArguments() - 1; i >= 0; --i) {
    BlockArgument arg = entry.getArgument(i);
    SmallVector<Type> leaves;
    flattenType(arg.getType(), leaves);
    if (!isa<TupleType>(arg.getType())) {
      newArgAttrs.push_back(argAttrs[i]);
      continue;
    }
    SmallVector<Value> leafArgs;
    for (auto [j, t] : llvm::enumerate(leaves))
      leafArgs.push_back(entry.insertArgument(i + 1 + j, t, arg.getLoc()));
    for (size_t j = 0; j < leaves.size(); ++j)
      newArgAttrs.push_back(DictionaryAttr::get(func.getContext()));
    b.setInsertionPointToStart(&entry);
    unsigned pos = 0;
    arg.replaceAllUsesWith(vjp::fromTupleLeaves(b, arg.getLoc(), arg.getType(), leafArgs, pos));
    entry.eraseArgument(i);
  }
  std::reverse(newArgAttrs.begin(), newArgAttrs.end());

  SmallVector<Type> resultTypes;
  func.walk([&](func::ReturnOp ret) {
    b.setInsertionPoint(ret);
    SmallVector<Value> leaves;
    for (Value v : ret.getOperands())
      vjp::tupleLeaves(b, ret.getLoc(), v, leaves);
    ret.getOperandsMutable().assign(leaves);
    resultTypes = llvm::to_vector(ValueRange(leaves).getTypes());
  });
  func.setFunctionType(
      FunctionType::get(func.getContext(), entry.getArgumentTypes(), resultTypes));
  func.setAllArgAttrs(newArgAttrs);
  func.removeResAttrsAttr();
}

void mlir::relax::inlineNestedDataflows(Operation *root) {
  SmallVector<DataflowOp> dataflows;
  root->walk([&](DataflowOp df) {
    if (df.getOperation() != root)
      dataflows.push_back(df);
  });
  // Outer blocks first: inner ones move with their parent's bindings.
  for (DataflowOp df : llvm::reverse(dataflows))
    inlineDataflow(df);
}

void mlir::relax::removeCheckpointMarkers(Operation *root) {
  root->walk([](Operation *op) {
    if (isa<StartCheckpointOp, EndCheckpointOp>(op)) {
      op->getResult(0).replaceAllUsesWith(op->getOperand(0));
      op->erase();
    }
  });
}

void mlir::relax::removeDifferentiationMarkers(Operation *root) {
  root->walk([](Operation *op) {
    if (isa<StartCheckpointOp, EndCheckpointOp, StopGradientOp>(op)) {
      op->getResult(0).replaceAllUsesWith(op->getOperand(0));
      op->erase();
    } else if (auto withRules = dyn_cast<CallWithRulesOp>(op)) {
      // Past differentiation, a call with rules is a call of its callee (the
      // rule functions' signatures may then be flattened like any other).
      OpBuilder b(op);
      auto call = func::CallOp::create(b, op->getLoc(), withRules.getCalleeAttr(),
                                       op->getResultTypes(), withRules.getOperands());
      op->replaceAllUsesWith(call);
      op->erase();
    }
  });
}

LogicalResult mlir::relax::flattenTuples(ModuleOp module) {
  // Checkpoint markers and stop_gradient only matter to differentiation.
  removeDifferentiationMarkers(module);
  inlineNestedDataflows(module);

  WalkResult calls = module.walk([](CallOpInterface call) {
    if (containsTuple(call->getOperandTypes()) || containsTuple(call->getResultTypes())) {
      call->emitError("call with tuple-typed values cannot be flattened; run the 'inline' "
                      "pass first");
      return WalkResult::interrupt();
    }
    return WalkResult::advance();
  });
  if (calls.wasInterrupted())
    return failure();

  for (auto func : module.getOps<func::FuncOp>()) {
    if (func.isExternal()) {
      if (containsTuple(func.getArgumentTypes()) || containsTuple(func.getResultTypes()))
        return func.emitError("cannot flatten the tuple signature of an external function");
      continue;
    }
    if (containsTuple(func.getArgumentTypes()) || containsTuple(func.getResultTypes()))
      flattenSignature(func);
  }

  RewritePatternSet patterns(module.getContext());
  populateRelaxCanonicalizationPatterns(patterns);
  (void)applyPatternsGreedily(module, std::move(patterns));

  WalkResult left = module.walk([](Operation *op) {
    if (isa<TupleOp, TupleGetItemOp>(op)) {
      op->emitError("tuple value left after flattening: tuples may only cross function "
                    "boundaries or be read back with relax.tuple_get_item");
      return WalkResult::interrupt();
    }
    return WalkResult::advance();
  });
  return failure(left.wasInterrupted());
}

namespace {
struct FlattenTuplesPass : relax::impl::FlattenTuplesPassBase<FlattenTuplesPass> {
  void runOnOperation() final {
    if (failed(flattenTuples(getOperation())))
      signalPassFailure();
  }
};
} // namespace
