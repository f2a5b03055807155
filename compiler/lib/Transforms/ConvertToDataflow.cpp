//===- ConvertToDataflow.cpp - gather relax bindings into a dataflow block ===//

#include "relax-mlir/Transforms/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "llvm/ADT/SetVector.h"

namespace mlir::relax {
#define GEN_PASS_DEF_CONVERTTODATAFLOWPASS
#include "relax-mlir/Transforms/Passes.h.inc"
} // namespace mlir::relax

using namespace mlir;
using namespace mlir::relax;

namespace {
struct ConvertToDataflowPass
    : relax::impl::ConvertToDataflowPassBase<ConvertToDataflowPass> {
  void runOnOperation() final {
    func::FuncOp func = getOperation();
    if (func.isExternal() || !func.getBody().hasOneBlock())
      return;
    Block &block = func.getBody().front();
    if (!block.getOps<DataflowOp>().empty())
      return;

    // Relax ops (loops and branches too: their bodies are isolated from
    // above), constants and calls (a call of a relax function is a binding:
    // the gradient pass inlines it) whose operands are all available
    // where the first of them stands: block arguments, ops before it, or
    // moved ops.
    llvm::SetVector<Operation *> moved;
    Operation *first = nullptr;
    for (Operation &op : block.without_terminator()) {
      bool candidate = op.getDialect() && isa<RelaxDialect>(op.getDialect());
      candidate |= op.hasTrait<OpTrait::ConstantLike>() || isa<func::CallOp>(op);
      if (!candidate || isa<DataflowOp>(op))
        continue;
      bool available = llvm::all_of(op.getOperands(), [&](Value v) {
        Operation *def = v.getDefiningOp();
        return !def || moved.contains(def) || (first && def->isBeforeInBlock(first)) || !first;
      });
      if (!available)
        continue;
      if (!first)
        first = &op;
      moved.insert(&op);
    }
    // Constants alone are not worth a block.
    if (llvm::all_of(moved, [](Operation *op) { return op->hasTrait<OpTrait::ConstantLike>(); }))
      return;

    SmallVector<Value> yielded;
    for (Operation *op : moved)
      for (Value r : op->getResults())
        if (llvm::any_of(r.getUsers(), [&](Operation *u) { return !moved.contains(u); }))
          yielded.push_back(r);

    OpBuilder b(first);
    auto df = DataflowOp::create(b, first->getLoc(), ValueRange(yielded).getTypes());
    Block *body = b.createBlock(&df.getBody());
    for (Operation *op : moved)
      op->moveBefore(body, body->end());
    b.setInsertionPointToEnd(body);
    OutputOp::create(b, df.getLoc(), yielded);
    for (auto [v, r] : llvm::zip(yielded, df.getResults()))
      v.replaceUsesWithIf(r, [&](OpOperand &use) { return !df->isAncestor(use.getOwner()); });
  }
};
} // namespace
