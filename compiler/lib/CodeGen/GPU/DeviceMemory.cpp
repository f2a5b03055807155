//===- DeviceMemory.cpp - bufferized host functions for the GPU ---------===//
//
// relax-gpu-device-memory: a host function's buffers become device memory.
// relax-gpu-wrap-host-code: memory accesses left at the top of a function go
// into one-iteration parallel loops, so that they run in a kernel.
//
//===----------------------------------------------------------------------===//

#include "relax-mlir/CodeGen/Passes.h"
#include "relax-mlir/Conversion/Passes.h"
#include "Utils.h"
#include "../Common/Buffers.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/IRMapping.h"
#include "llvm/ADT/SetVector.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Interfaces/ViewLikeInterface.h"

namespace mlir::relax {
#define GEN_PASS_DEF_GPUDEVICEMEMORYPASS
#define GEN_PASS_DEF_GPUWRAPHOSTCODEPASS
#include "relax-mlir/CodeGen/Passes.h.inc"
} // namespace mlir::relax

using namespace mlir;

namespace {
/// Host control flow: the relax loops and conditionals at the top of a
/// function or in other host control flow (their regions hold runs of device
/// code of their own, launched from the host), and the conditional
/// deallocations of the buffers loops carry. scf.for keeps the lowering's
/// attribute through bufferization; scf.while, scf.if and scf.index_switch
/// come from nothing else there.
bool isHostControlFlow(Operation *op) {
  if (!isa<scf::WhileOp, scf::IfOp, scf::IndexSwitchOp>(op) &&
      !(isa<scf::ForOp>(op) && op->hasAttr(relax::kControlFlowAttrName)))
    return false;
  Operation *parent = op->getParentOp();
  return isa<func::FuncOp>(parent) || isHostControlFlow(parent);
}

/// Whether `alloc` sits in a loop (not at the top of `func`), has a static
/// shape and is used only inside the top-level op that holds it: that op
/// becomes one kernel (its loops touch memory), so the buffer is private to
/// the thread running it, and a device allocation there is not possible.
bool isThreadPrivate(memref::AllocOp alloc, func::FuncOp func) {
  // The op that becomes a kernel: below the function or a host loop or
  // branch (relax control flow).
  Operation *top = alloc;
  while (top->getParentOp() != func && !isHostControlFlow(top->getParentOp()))
    top = top->getParentOp();
  if (top == alloc || !alloc.getType().hasStaticShape())
    return false;
  return llvm::all_of(alloc->getUsers(),
                      [&](Operation *user) { return top->isAncestor(user); });
}

struct GPUDeviceMemoryPass : relax::impl::GPUDeviceMemoryPassBase<GPUDeviceMemoryPass> {
  void runOnOperation() final {
    func::FuncOp func = getOperation();
    SmallVector<Operation *> ops;
    func.walk([&](Operation *op) {
      if (isa<memref::AllocOp, memref::DeallocOp, memref::CopyOp, memref::GetGlobalOp>(op) &&
          !op->getParentOfType<gpu::LaunchOp>())
        ops.push_back(op);
    });
    for (Operation *op : ops) {
      OpBuilder b(op);
      Location loc = op->getLoc();
      if (auto alloc = dyn_cast<memref::AllocOp>(op); alloc && isThreadPrivate(alloc, func)) {
        // Runs in the kernel the loop around it becomes: private memory.
        auto local = memref::AllocaOp::create(b, loc, alloc.getType(), alloc.getDynamicSizes(),
                                              alloc.getSymbolOperands(),
                                              alloc.getAlignmentAttr());
        alloc.replaceAllUsesWith(local.getResult()); // its dealloc goes below
      } else if (auto alloc = dyn_cast<memref::AllocOp>(op)) {
        auto device = gpu::AllocOp::create(b, loc, alloc.getType(), /*asyncToken=*/Type(),
                                           ValueRange(), alloc.getDynamicSizes(),
                                           alloc.getSymbolOperands());
        alloc.replaceAllUsesWith(device.getMemref());
      } else if (auto dealloc = dyn_cast<memref::DeallocOp>(op)) {
        if (!dealloc.getMemref().getDefiningOp<memref::AllocaOp>())
          gpu::DeallocOp::create(b, loc, /*asyncToken=*/Type(), ValueRange(),
                               dealloc.getMemref());
      } else if (auto copy = dyn_cast<memref::CopyOp>(op)) {
        // A kernel: either side may be a strided view, which gpu.memcpy
        // (contiguous bytes) cannot copy.
        linalg::CopyOp::create(b, loc, copy.getSource(), copy.getTarget());
      } else {
        // A constant lives in host memory: the kernels read a device copy,
        // made where the constant was taken and freed before returning.
        auto global = cast<memref::GetGlobalOp>(op);
        auto type = cast<MemRefType>(global.getType());
        auto device = gpu::AllocOp::create(b, loc, type, Type(), ValueRange(), ValueRange(),
                                           ValueRange());
        Value host = memref::GetGlobalOp::create(b, loc, type, global.getName());
        gpu::MemcpyOp::create(b, loc, Type(), ValueRange(), device.getMemref(), host);
        global.getResult().replaceAllUsesWith(device.getMemref());
        for (Block &block : func.getBody())
          if (auto ret = dyn_cast<func::ReturnOp>(block.getTerminator())) {
            OpBuilder atEnd(ret);
            gpu::DeallocOp::create(atEnd, loc, Type(), ValueRange(), device.getMemref());
          }
      }
      op->erase();
    }
  }
};

/// Whether `op` reads or writes memory (itself or in its regions); unknown
/// effects count.
bool touchesMemory(Operation *op) {
  if (isa<scf::ParallelOp, gpu::LaunchOp>(op))
    return false;
  if (isMemoryEffectFree(op))
    return false;
  auto effects = dyn_cast<MemoryEffectOpInterface>(op);
  if (!effects)
    return true; // loops and other region ops: their bodies decide (recursively)
  return effects.hasEffect<MemoryEffects::Read>() || effects.hasEffect<MemoryEffects::Write>();
}

/// The attribute of a host buffer holding a scalar read back from device
/// memory (a loop's condition, a branch's predicate).
constexpr llvm::StringLiteral kHostScalarAttr = "relax.host_scalar";

/// Ops that end a run: they stay on the host.
bool isHostOnly(Operation *op) {
  // Views (subview, reshapes, casts) only compute a descriptor.
  if (auto load = dyn_cast<memref::LoadOp>(op))
    if (Operation *def = load.getMemRef().getDefiningOp(); def && def->hasAttr(kHostScalarAttr))
      return true;
  return isa<memref::AllocOp, memref::AllocaOp, gpu::AllocOp, gpu::DeallocOp, gpu::MemcpyOp,
             memref::DeallocOp, scf::ParallelOp, gpu::LaunchOp, ViewLikeOpInterface>(op) ||
         isHostControlFlow(op) || op->hasTrait<OpTrait::IsTerminator>() ||
         op->hasTrait<OpTrait::ConstantLike>();
}

/// Whether `v` decides host control flow: it reaches the condition of a host
/// loop, the selector of a host branch or what a host loop carries to its
/// next iteration (the ownership flags of the buffers it carries) in `block`
/// through pure scalar ops. (A value returned to the caller is not: it stays
/// an error.)
bool decidesHostControl(Value v, Block &block) {
  for (Operation *user : v.getUsers()) {
    if (user->getBlock() != &block)
      continue;
    if (isa<scf::ConditionOp, scf::YieldOp>(user) || isHostControlFlow(user))
      return true;
    if (user->getNumRegions() == 0 && isMemoryEffectFree(user) &&
        llvm::any_of(user->getResults(), [&](Value r) { return decidesHostControl(r, block); }))
      return true;
  }
  return false;
}

/// A scalar loaded from device memory at the top of `block` that decides host
/// control flow is read through a host copy (gpu.memcpy of its element into a
/// host buffer): the host cannot read device memory.
void readScalarsOnHost(Block &block) {
  SmallVector<memref::LoadOp> loads;
  for (Operation &op : block)
    if (auto load = dyn_cast<memref::LoadOp>(op); load && !isHostOnly(load) &&
                                                  decidesHostControl(load.getResult(), block))
      loads.push_back(load);
  for (memref::LoadOp load : loads) {
    OpBuilder b(load);
    Location loc = load.getLoc();
    auto type = MemRefType::get({}, load.getType());
    auto host = memref::AllocaOp::create(b, loc, type);
    host->setAttr(kHostScalarAttr, b.getUnitAttr());
    // gpu.memcpy copies contiguous buffers: an element of a larger or
    // strided buffer is first copied (by a kernel: the run it joins) into a
    // device buffer of its own.
    Value element = load.getMemRef();
    Value staged;
    if (!load.getIndices().empty() ||
        !cast<MemRefType>(element.getType()).getLayout().isIdentity()) {
      staged = gpu::AllocOp::create(b, loc, type, Type(), ValueRange(), ValueRange(),
                                    ValueRange())
                   .getMemref();
      Value value = memref::LoadOp::create(b, loc, element, load.getIndices());
      memref::StoreOp::create(b, loc, value, staged, ValueRange{});
      element = staged;
    }
    gpu::MemcpyOp::create(b, loc, Type(), ValueRange(), host, element);
    if (staged)
      gpu::DeallocOp::create(b, loc, Type(), ValueRange(), staged);
    load.getMemrefMutable().assign(host);
    load.getIndicesMutable().clear();
  }
}

/// The op of `block` that holds `op` (or `op` itself).
Operation *topLevel(Operation *op, Block &block) {
  while (op->getBlock() != &block)
    op = op->getParentOp();
  return op;
}

/// Loads at the top of `block`, and the pure ops computed from them: each use
/// gets its own copy, placed right before the op that uses it (in a later
/// loop nest, or later host code), and the top-level op goes; a dealloc of
/// the loaded buffer between the load and its last use moves after that use.
/// A load is moved only when nothing writes its buffer in between. (A scalar
/// read from a 0-d buffer and used by a later kernel would otherwise be a
/// value computed on device memory and used on the host.)
void sinkScalars(Block &block) {
  llvm::SetVector<Operation *> chain;
  for (Operation &op : block) {
    if (isa<memref::LoadOp>(op)) {
      chain.insert(&op);
    } else if (op.getNumRegions() == 0 && isMemoryEffectFree(&op) &&
               !op.hasTrait<OpTrait::ConstantLike>() &&
               llvm::any_of(op.getOperands(), [&](Value v) {
                 return v.getDefiningOp() && chain.contains(v.getDefiningOp());
               })) {
      chain.insert(&op);
    }
  }
  // In reverse order: the chain's own users have moved to their uses already.
  for (Operation *op : llvm::reverse(chain)) {
    if (op->use_empty())
      continue;
    SmallVector<Operation *> deallocs;
    if (auto load = dyn_cast<memref::LoadOp>(op)) {
      Operation *last = op;
      for (Operation *user : op->getUsers()) {
        Operation *top = topLevel(user, block);
        if (last->isBeforeInBlock(top))
          last = top;
      }
      llvm::SmallPtrSet<Value, 8> buffers = relax::bufferAliases(load.getMemRef());
      bool written = false;
      for (Operation *it = op->getNextNode(); !written; it = it->getNextNode()) {
        written = relax::mayWriteBuffers(it, buffers, deallocs);
        if (it == last)
          break;
      }
      if (written)
        continue;
      // After the run of device code that `last` is in: a dealloc there
      // would split the run.
      while (last->getNextNode() && !isHostOnly(last->getNextNode()))
        last = last->getNextNode();
      for (Operation *dealloc : deallocs)
        dealloc->moveAfter(last);
    }
    for (OpOperand &use : llvm::make_early_inc_range(op->getUses())) {
      OpBuilder b(use.getOwner());
      Operation *copy = b.clone(*op);
      use.set(copy->getResult(cast<OpResult>(use.get()).getResultNumber()));
    }
    op->erase();
  }
}

struct GPUWrapHostCodePass : relax::impl::GPUWrapHostCodePassBase<GPUWrapHostCodePass> {
  void runOnOperation() final {
    func::FuncOp func = getOperation();
    // The helper that the lowering of bufferization.dealloc adds (for the
    // buffers a loop carries) compares host pointer lists: host code.
    if (func.isExternal() || func.getSymName().starts_with("dealloc_helper"))
      return;
    for (Block &block : func.getBody())
      if (failed(wrapBlock(block)))
        return signalPassFailure();
  }

  /// Wraps the runs of device code in `block`, and in the blocks of the host
  /// loops and conditionals in it (a kernel per run, launched from the host
  /// loop).
  LogicalResult wrapBlock(Block &block) {
    sinkScalars(block);
    readScalarsOnHost(block);
    SmallVector<SmallVector<Operation *>> runs(1);
    // Pure ops computed only from values outside the current run (a host
    // loop's counter test) stay on the host: they move before the run.
    SmallVector<SmallVector<Operation *>> hoisted(1);
    llvm::SmallPtrSet<Operation *, 16> inRun;
    for (Operation &op : llvm::make_early_inc_range(block)) {
      if (isHostControlFlow(&op))
        for (Region &region : op.getRegions())
          for (Block &nested : region)
            if (failed(wrapBlock(nested)))
              return failure();
      if (isHostOnly(&op)) {
        if (!runs.back().empty() || !hoisted.back().empty()) {
          runs.emplace_back();
          hoisted.emplace_back();
        }
        continue;
      }
      if (op.getNumRegions() == 0 && isMemoryEffectFree(&op) &&
          llvm::none_of(op.getOperands(), [&](Value v) {
            Operation *def = v.getDefiningOp();
            return def && inRun.contains(def);
          })) {
        hoisted.back().push_back(&op);
        continue;
      }
      runs.back().push_back(&op);
      inRun.insert(&op);
    }
    for (auto [run, hoist] : llvm::zip(runs, hoisted)) {
      if (!llvm::any_of(run, touchesMemory))
        continue;
      for (Operation *op : hoist)
        op->moveBefore(run.front());
      if (failed(wrap(run)))
        return failure();
    }
    return success();
  }

  /// Moves `run` into `scf.parallel (%i) = (0) to (1) step (1)`.
  LogicalResult wrap(ArrayRef<Operation *> run) {
    llvm::SmallPtrSet<Operation *, 16> inRun(run.begin(), run.end());
    for (Operation *op : run)
      for (Operation *user : op->getUsers()) {
        Operation *top = user;
        while (top && !inRun.contains(top) && top->getBlock() != op->getBlock())
          top = top->getParentOp();
        if (!top || !inRun.contains(top))
          return op->emitError("a value computed on device memory is used on the host; the "
                               "GPU pipeline cannot place this op in a kernel");
      }
    OpBuilder b(run.front());
    Location loc = run.front()->getLoc();
    Value zero = arith::ConstantIndexOp::create(b, loc, 0);
    Value one = arith::ConstantIndexOp::create(b, loc, 1);
    auto loop = scf::ParallelOp::create(b, loc, ValueRange{zero}, ValueRange{one},
                                        ValueRange{one});
    Block *body = loop.getBody();
    for (Operation *op : run)
      op->moveBefore(body->getTerminator());
    return success();
  }
};
} // namespace
