//===- MemoryReport.cpp - static peak of live tensor bytes ----------------===//

#include "relax-mlir/Transforms/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/Support/MathExtras.h"

namespace mlir::relax {
#define GEN_PASS_DEF_MEMORYREPORTPASS
#include "relax-mlir/Transforms/Passes.h.inc"
} // namespace mlir::relax

using namespace mlir;
using namespace mlir::relax;

/// Bytes of a tensor type, saturated at INT64_MAX (0 for other types).
static int64_t tensorBytes(Type type) {
  auto tensor = dyn_cast<RankedTensorType>(type);
  if (!tensor || !tensor.hasStaticShape())
    return 0;
  return tensorSizeInBytes(type).value_or(std::numeric_limits<int64_t>::max());
}

static int64_t saturatingAdd(int64_t a, int64_t b) {
  int64_t sum;
  return llvm::AddOverflow(a, b, sum) ? std::numeric_limits<int64_t>::max() : sum;
}

/// Ops whose results are views of their operands rather than new tensors.
static bool isAlias(Operation *op) {
  return isa<TupleOp, TupleGetItemOp, DataflowOp, StartCheckpointOp, EndCheckpointOp,
             StopGradientOp>(op);
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
  // Aliases in post-order: a dataflow block's results alias what its body
  // yields, so the body (tuples built there included) is recorded first.
  func.walk<WalkOrder::PostOrder>([&](Operation *op) {
    if (!isAlias(op))
      return;
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
  });
  // An operand of a loop or a branch is read until its last nested op: the
  // body's temporaries are live at the same time.
  DenseMap<Operation *, int64_t> end;
  for (Operation *op : llvm::reverse(order)) {
    int64_t last = index[op];
    if (op->getNumRegions() != 0)
      op->walk([&](Operation *nested) { last = std::max(last, end.lookup(nested)); });
    end[op] = last;
  }
  DenseMap<Value, int64_t> lastUse;
  for (Operation *op : order)
    for (Value v : op->getOperands())
      for (Value root : storageOf(v))
        lastUse[root] = std::max(lastUse.lookup(root), end[op]);
  // Values used by an op nested in a region stay live until that region's op
  // ends; the returned values until the end. Sums are 128-bit (each tensor is
  // below 2^63 bytes, saturated) and the peak saturates at INT64_MAX.
  SmallVector<__int128> live(order.size() + 1, 0);
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
  __int128 running = 0, peak = 0;
  for (__int128 delta : live) {
    running += delta;
    peak = std::max(peak, running);
  }
  return static_cast<int64_t>(
      std::min<__int128>(peak, std::numeric_limits<int64_t>::max()));
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
      InFlightDiagnostic remark = func.emitRemark("peak live tensor bytes: ");
      if (peak == std::numeric_limits<int64_t>::max())
        remark << "at least " << peak << " (saturated: the total does not fit in int64)";
      else
        remark << peak;
      remark.report();
      // What each scan keeps across its iterations: its stacked outputs
      // (in an adjoint, the carries stored for the backward pass).
      func.walk([&](ScanOp scan) {
        int64_t stacked = 0;
        for (Value y : scan.getYs())
          stacked = saturatingAdd(stacked, tensorBytes(y.getType()));
        if (stacked != 0)
          scan.emitRemark("scan of ") << scan.getLength() << " iterations stacks " << stacked
                                      << " bytes";
      });
    }
    if (!found && !funcName.empty()) {
      module.emitError("relax-memory-report: no function named '@") << funcName << "'";
      signalPassFailure();
    }
  }
};
} // namespace
