//===- MemoryReport.cpp - static peak of live tensor bytes ----------------===//

#include "relax-mlir/Transforms/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "llvm/ADT/SetVector.h"

namespace mlir::relax {
#define GEN_PASS_DEF_MEMORYREPORTPASS
#include "relax-mlir/Transforms/Passes.h.inc"
} // namespace mlir::relax

using namespace mlir;
using namespace mlir::relax;

static int64_t tensorBytes(Type type) {
  auto tensor = dyn_cast<RankedTensorType>(type);
  if (!tensor || !tensor.hasStaticShape())
    return 0;
  int64_t bits = tensor.getElementTypeBitWidth();
  return tensor.getNumElements() * std::max<int64_t>(1, bits / 8);
}

/// Ops whose results are views of their operands rather than new tensors.
static bool isAlias(Operation *op) {
  return isa<TupleOp, TupleGetItemOp, DataflowOp, StartCheckpointOp, EndCheckpointOp>(op);
}

int64_t mlir::relax::staticPeakLiveBytes(func::FuncOp func) {
  // Program order of every op (nested ones included) and, for each value, the
  // tensors that hold its storage.
  SmallVector<Operation *> order;
  DenseMap<Operation *, int64_t> index;
  func.walk<WalkOrder::PreOrder>([&](Operation *op) {
    if (op == func.getOperation())
      return;
    index[op] = order.size();
    order.push_back(op);
  });
  DenseMap<Value, llvm::SmallSetVector<Value, 2>> storage;
  auto storageOf = [&](Value v) -> llvm::SmallSetVector<Value, 2> {
    auto it = storage.find(v);
    if (it != storage.end())
      return it->second;
    llvm::SmallSetVector<Value, 2> self;
    self.insert(v);
    return self;
  };
  DenseMap<Value, int64_t> lastUse;
  for (Operation *op : order) {
    if (isAlias(op)) {
      for (OpResult r : op->getResults()) {
        llvm::SmallSetVector<Value, 2> roots;
        if (auto df = dyn_cast<DataflowOp>(op)) {
          roots = storageOf(df.getOutput().getOperand(r.getResultNumber()));
        } else {
          for (Value v : op->getOperands())
            for (Value root : storageOf(v))
              roots.insert(root);
        }
        storage[r] = roots;
      }
    }
    for (Value v : op->getOperands())
      for (Value root : storageOf(v))
        lastUse[root] = std::max(lastUse.lookup(root), index[op]);
  }
  // Values used by an op nested in a region stay live until that region's op
  // ends; the returned values until the end.
  int64_t peak = 0;
  SmallVector<int64_t> live(order.size() + 1, 0);
  for (Operation *op : order) {
    if (isAlias(op))
      continue;
    for (Value r : op->getResults()) {
      int64_t bytes = tensorBytes(r.getType());
      int64_t begin = index[op], end = std::max(begin, lastUse.lookup(r));
      live[begin] += bytes;
      live[end + 1] -= bytes;
    }
  }
  int64_t running = 0;
  for (int64_t delta : live) {
    running += delta;
    peak = std::max(peak, running);
  }
  return peak;
}

namespace {
struct MemoryReportPass : relax::impl::MemoryReportPassBase<MemoryReportPass> {
  using Base::Base;
  void runOnOperation() final {
    ModuleOp module = getOperation();
    bool found = false;
    for (auto func : module.getOps<func::FuncOp>()) {
      if (func.isExternal() || (!funcName.empty() && func.getSymName() != funcName))
        continue;
      found = true;
      int64_t peak = staticPeakLiveBytes(func);
      func->setAttr("relax.peak_live_bytes", IntegerAttr::get(IntegerType::get(&getContext(), 64), peak));
      func.emitRemark("peak live tensor bytes: ") << peak;
    }
    if (!found && !funcName.empty()) {
      module.emitError("relax-memory-report: no function named '@") << funcName << "'";
      signalPassFailure();
    }
  }
};
} // namespace
