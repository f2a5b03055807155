//===- Memory.cpp - freeing buffers at their last use ---------------------===//
//
// relax-early-dealloc: the ownership-based deallocation pipeline frees a
// block's buffers at the block's end; this pass moves each unconditional
// dealloc up to the last use of the buffer or of anything derived from it.
//
// relax-results-to-out-params: upstream's buffer-results-to-out-params, the
// callers' out-parameter buffers aligned as bufferization's.
//
// relax-results-in-place: a result returned through reshapes of an
// allocation is computed in the out-parameter, not copied into it.
//
// relax-split-deallocs: the dealloc of a block's buffers is split into one per
// distinct allocation in linear time (upstream's split is quadratic).
//
//===----------------------------------------------------------------------===//

#include "relax-mlir/CodeGen/Passes.h"
#include "Buffers.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Bufferization/Transforms/Passes.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Interfaces/CallInterfaces.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Interfaces/ViewLikeInterface.h"

namespace mlir::relax {
#define GEN_PASS_DEF_EARLYDEALLOCPASS
#define GEN_PASS_DEF_RESULTSINPLACEPASS
#define GEN_PASS_DEF_RESULTSTOOUTPARAMSPASS
#define GEN_PASS_DEF_SPLITDEALLOCSPASS
#include "relax-mlir/CodeGen/Passes.h.inc"
} // namespace mlir::relax

using namespace mlir;

namespace {
/// The values that may hold `buffer`'s memory: `buffer`, every memref result
/// of an op using one of them, the memref block arguments of the regions of
/// such an op, and the memref results of an op whose region yields one.
/// Nothing when the address may leave through something else (an integer
/// pointer, or an op with no memref result that is not known to only read or
/// write through it).
std::optional<SmallVector<Value>> aliases(Value buffer) {
  SmallVector<Value> found{buffer};
  llvm::SmallPtrSet<Value, 16> seen{buffer};
  auto add = [&](Value v) {
    if (isa<BaseMemRefType>(v.getType()) && seen.insert(v).second)
      found.push_back(v);
  };
  for (size_t i = 0; i < found.size(); ++i) {
    for (OpOperand &use : found[i].getUses()) {
      Operation *user = use.getOwner();
      if (isa<memref::DeallocOp>(user))
        continue;
      if (isa<memref::ExtractAlignedPointerAsIndexOp>(user))
        return std::nullopt;
      // A kernel of relax-outline-tensor-kernels kept a function reads and
      // writes its arguments' memory, and keeps no reference to it.
      if (auto call = dyn_cast<func::CallOp>(user)) {
        auto callee = SymbolTable::lookupNearestSymbolFrom<func::FuncOp>(call, call.getCalleeAttr());
        if (callee && callee->hasAttr(relax::kKeptKernelAttrName))
          continue;
      }
      bool memrefResult = false;
      for (Value r : user->getResults())
        if (isa<BaseMemRefType>(r.getType())) {
          add(r);
          memrefResult = true;
        }
      for (Region &region : user->getRegions())
        for (Block &block : region)
          for (BlockArgument arg : block.getArguments())
            add(arg);
      if (user->hasTrait<OpTrait::IsTerminator>()) {
        if (Operation *parent = user->getParentOp())
          for (Value r : parent->getResults())
            add(r);
        // A branch passes it to its successors' arguments.
        for (Block *succ : user->getSuccessors())
          for (BlockArgument arg : succ->getArguments())
            add(arg);
        continue;
      }
      // An op that returns nothing derived from it must only read or write
      // the memory (a copy, a linalg op, a vector transfer, a load/store).
      if (!memrefResult && user->getNumRegions() == 0 && !isa<MemoryEffectOpInterface>(user) &&
          !user->hasTrait<OpTrait::HasRecursiveMemoryEffects>())
        return std::nullopt;
    }
  }
  return found;
}

/// The last op of `block` that uses `buffer` or a value derived from it
/// (see `aliases`), ignoring `except`; null when nothing does. Nothing when
/// that cannot be told: the address may escape, or a use lies outside
/// `block` (a region result seen from the parent).
std::optional<Operation *> lastUseInBlock(
    Value buffer, Block *block, Operation *except,
    function_ref<bool(Operation *, Operation *)> isBefore = nullptr) {
  std::optional<SmallVector<Value>> all = aliases(buffer);
  if (!all)
    return std::nullopt;
  Operation *last = nullptr;
  for (Value v : *all)
    for (Operation *user : v.getUsers()) {
      if (user == except)
        continue;
      Operation *inBlock = block->findAncestorOpInBlock(*user);
      if (!inBlock)
        return std::nullopt;
      if (!last || (isBefore ? isBefore(last, inBlock) : last->isBeforeInBlock(inBlock)))
        last = inBlock;
    }
  return last;
}

struct EarlyDeallocPass : relax::impl::EarlyDeallocPassBase<EarlyDeallocPass> {
  void runOnOperation() final {
    SmallVector<memref::DeallocOp> deallocs;
    getOperation().walk([&](memref::DeallocOp op) { deallocs.push_back(op); });
    // The ops' positions before any dealloc moves. Only deallocs move, so
    // the other ops keep their order; asking MLIR instead, whose order each
    // move invalidates, made the pass O(n^2): 1.9 s of a 1,000-parameter
    // gradient's compile. (A moved dealloc is asked of MLIR.)
    llvm::DenseMap<Operation *, int64_t> position;
    getOperation().walk([&](Block *block) {
      int64_t i = 0;
      for (Operation &op : *block)
        position[&op] = i++;
    });
    llvm::DenseSet<Operation *> moved;
    auto isBefore = [&](Operation *a, Operation *b) {
      if (moved.contains(a) || moved.contains(b))
        return a->isBeforeInBlock(b);
      return position.lookup(a) < position.lookup(b);
    };
    for (memref::DeallocOp dealloc : deallocs) {
      Value buffer = dealloc.getMemref();
      auto alloc = buffer.getDefiningOp<memref::AllocOp>();
      Block *block = dealloc->getBlock();
      if (!alloc || alloc->getBlock() != block)
        continue;
      std::optional<Operation *> last = lastUseInBlock(buffer, block, dealloc, isBefore);
      if (!last)
        continue;
      // A use after the dealloc (already wrong) is left alone.
      if (*last && isBefore(dealloc, *last))
        continue;
      moved.insert(dealloc);
      dealloc->moveAfter(*last ? *last : alloc.getOperation());
    }
  }
};
} // namespace

namespace {
/// The alignment of one-shot bufferization's allocations (its default).
constexpr int64_t kBufferAlignment = 64;

struct ResultsToOutParamsPass
    : relax::impl::ResultsToOutParamsPassBase<ResultsToOutParamsPass> {
  void runOnOperation() final {
    bufferization::BufferResultsToOutParamsOpts options;
    options.hoistStaticAllocs = true;
    options.modifyPublicFunctions = true;
    options.allocationFn = [](OpBuilder &b, Location loc, MemRefType type,
                              ValueRange dynamicSizes) -> FailureOr<Value> {
      return memref::AllocOp::create(b, loc, type, dynamicSizes,
                                     b.getI64IntegerAttr(kBufferAlignment))
          .getResult();
    };
    if (failed(bufferization::promoteBufferResultsToOutParams(getOperation(), options)))
      signalPassFailure();
  }
};
} // namespace

namespace {
struct ResultsInPlacePass : relax::impl::ResultsInPlacePassBase<ResultsInPlacePass> {
  void runOnOperation() final {
    func::FuncOp func = getOperation();
    if (func.isExternal())
      return;
    Block &entry = func.getBody().front();
    SmallVector<memref::CopyOp> copies;
    for (memref::CopyOp copy : entry.getOps<memref::CopyOp>())
      copies.push_back(copy);
    for (memref::CopyOp copy : copies) {
      auto out = dyn_cast<BlockArgument>(copy.getTarget());
      if (!out || out.getOwner() != &entry || !out.hasOneUse())
        continue;
      // The reshapes from an allocation to the copied value.
      SmallVector<Operation *> chain;
      Value source = copy.getSource();
      while (Operation *def = source.getDefiningOp()) {
        if (!isa<memref::CollapseShapeOp, memref::ExpandShapeOp>(def))
          break;
        chain.push_back(def);
        source = def->getOperand(0);
      }
      auto alloc = source.getDefiningOp<memref::AllocOp>();
      if (chain.empty() || !alloc || alloc->getBlock() != &entry ||
          !alloc.getType().getLayout().isIdentity() || !alloc.getType().hasStaticShape() ||
          !cast<MemRefType>(out.getType()).getLayout().isIdentity())
        continue;
      // Nothing may use the allocation (or anything derived from it) after
      // the copy.
      std::optional<Operation *> last = lastUseInBlock(alloc, &entry, copy);
      if (!last || (*last && copy->isBeforeInBlock(*last)))
        continue;
      // The out-parameter seen in the allocation's shape: each reshape undone,
      // last first.
      OpBuilder b(alloc);
      Value view = out;
      for (Operation *reshape : chain) {
        auto sourceType = cast<MemRefType>(reshape->getOperand(0).getType());
        if (auto collapse = dyn_cast<memref::CollapseShapeOp>(reshape))
          view = memref::ExpandShapeOp::create(b, alloc.getLoc(), sourceType, view,
                                               collapse.getReassociationIndices());
        else
          view = memref::CollapseShapeOp::create(
              b, alloc.getLoc(), sourceType, view,
              cast<memref::ExpandShapeOp>(reshape).getReassociationIndices());
      }
      if (view.getType() != alloc.getType())
        continue;
      copy->erase();
      alloc.getResult().replaceAllUsesWith(view);
      alloc->erase();
      for (Operation *reshape : chain)
        if (reshape->use_empty())
          reshape->erase();
    }
  }
};
} // namespace

Value mlir::relax::underlyingBuffer(Value v) {
  while (Operation *def = v.getDefiningOp()) {
    if (auto metadata = dyn_cast<memref::ExtractStridedMetadataOp>(def)) {
      v = metadata.getSource();
      continue;
    }
    auto view = dyn_cast<ViewLikeOpInterface>(def);
    if (!view || view.getViewDest() != v)
      break;
    v = view.getViewSource();
  }
  return v;
}


llvm::SmallPtrSet<Value, 8> mlir::relax::bufferAliases(Value buffer) {
  buffer = underlyingBuffer(buffer);
  llvm::SmallPtrSet<Value, 8> found{buffer};
  SmallVector<Value> pending{buffer};
  while (!pending.empty()) {
    Value value = pending.pop_back_val();
    for (Operation *user : value.getUsers())
      if (auto view = dyn_cast<ViewLikeOpInterface>(user))
        if (view.getViewSource() == value && found.insert(view->getResult(0)).second)
          pending.push_back(view->getResult(0));
  }
  return found;
}

bool mlir::relax::mayWriteBuffers(Operation *op, const llvm::SmallPtrSet<Value, 8> &buffers,
                                  SmallVectorImpl<Operation *> &deallocs) {
  if (isa<gpu::DeallocOp, memref::DeallocOp>(op) && buffers.contains(op->getOperand(0))) {
    deallocs.push_back(op);
    return false;
  }
  WalkResult result = op->walk([&](Operation *nested) {
    auto effects = dyn_cast<MemoryEffectOpInterface>(nested);
    if (!effects) {
      // Region ops (loops, ifs) are decided by their bodies.
      return nested->getNumRegions() > 0 || isMemoryEffectFree(nested) ? WalkResult::advance()
                                                                       : WalkResult::interrupt();
    }
    SmallVector<MemoryEffects::EffectInstance> instances;
    effects.getEffects(instances);
    for (const MemoryEffects::EffectInstance &effect : instances) {
      if (!isa<MemoryEffects::Write, MemoryEffects::Free>(effect.getEffect()))
        continue;
      Value target = effect.getValue();
      if (!target || buffers.contains(target))
        return WalkResult::interrupt(); // unknown target, or one of ours
    }
    return WalkResult::advance();
  });
  return result.wasInterrupted();
}

namespace {
/// Whether `v` is the result of an op that allocates it.
bool isAllocation(Value v) {
  auto effects = v.getDefiningOp<MemoryEffectOpInterface>();
  return effects && effects.getEffectOnValue<MemoryEffects::Allocate>(v).has_value();
}

struct SplitDeallocsPass : relax::impl::SplitDeallocsPassBase<SplitDeallocsPass> {
  void runOnOperation() final {
    SmallVector<bufferization::DeallocOp> deallocs;
    getOperation().walk([&](bufferization::DeallocOp op) { deallocs.push_back(op); });
    for (bufferization::DeallocOp op : deallocs)
      split(op);
  }

  /// Whether `root` may be, at run time, any buffer of the function: a
  /// value that a loop carries or a branch or select picks (block arguments
  /// of regions, results of region ops and selects), or a callee's result.
  static bool mayBeAnyBuffer(Value root) {
    if (auto arg = dyn_cast<BlockArgument>(root))
      return !isa<FunctionOpInterface>(arg.getOwner()->getParentOp());
    Operation *def = root.getDefiningOp();
    return def->getNumRegions() != 0 || isa<arith::SelectOp, CallOpInterface>(def);
  }

  static void split(bufferization::DeallocOp op) {
    if (op.getMemrefs().size() < 2 && op.getRetained().empty())
      return;
    llvm::DenseMap<Value, unsigned> uses;
    SmallVector<Value> roots;
    for (Value m : op.getMemrefs())
      ++uses[roots.emplace_back(relax::underlyingBuffer(m))];
    SmallVector<Value> retainedRoots;
    for (Value r : op.getRetained())
      ++uses[retainedRoots.emplace_back(relax::underlyingBuffer(r))];
    // A memref or retained value that may be any buffer may be one of the
    // allocations at run time (a loop carry that is the buffer allocated in
    // the iteration before): only upstream's analysis of the whole op can
    // tell which ownership moves where.
    if (llvm::any_of(roots, mayBeAnyBuffer) || llvm::any_of(retainedRoots, mayBeAnyBuffer))
      return;
    SmallVector<Value> keptMemrefs, keptConditions;
    OpBuilder b(op);
    bool changed = false;
    for (auto [m, condition, root] : llvm::zip(op.getMemrefs(), op.getConditions(), roots)) {
      if (uses[root] != 1 || !isAllocation(root)) {
        keptMemrefs.push_back(m);
        keptConditions.push_back(condition);
        continue;
      }
      bufferization::DeallocOp::create(b, op.getLoc(), ValueRange{m}, ValueRange{condition},
                                       ValueRange{});
      changed = true;
    }
    if (!changed)
      return;
    op.getMemrefsMutable().assign(keptMemrefs);
    op.getConditionsMutable().assign(keptConditions);
  }
};
} // namespace
