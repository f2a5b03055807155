//===- Outline.cpp - functions split out of functions ---------------------===//
//
// relax-outline-segments (a large function split into functions of bounded
// size), relax-share-kernels (each loop nest a function, equal ones shared),
// relax-outline-tensor-kernels and relax-inline-tensor-kernels (the same on
// tensors, around the CPU schedule)
// and relax-optimize-none-glue (what is left, loop-free, unoptimized): see
// Passes.td.
//
//===----------------------------------------------------------------------===//

#include "relax-mlir/CodeGen/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/IR/Dominance.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Interfaces/ViewLikeInterface.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Transforms/RegionUtils.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/ADT/StringMap.h"

#include <limits>

namespace mlir::relax {
#define GEN_PASS_DEF_OUTLINESEGMENTSPASS
#define GEN_PASS_DEF_SHAREKERNELSPASS
#define GEN_PASS_DEF_OUTLINETENSORKERNELSPASS
#define GEN_PASS_DEF_INLINETENSORKERNELSPASS
#define GEN_PASS_DEF_OPTIMIZENONEGLUEPASS
#define GEN_PASS_DEF_KEEPVECTORLOOPSROLLEDPASS
#include "relax-mlir/CodeGen/Passes.h.inc"
} // namespace mlir::relax

using namespace mlir;

namespace {
using relax::kKeptKernelAttrName;
using relax::kTensorKernelAttrName;

/// A constant (no operands, no regions): re-created where it is read.
bool isConstant(Operation *op) {
  return op->getNumOperands() == 0 && op->getNumRegions() == 0 &&
         op->hasTrait<OpTrait::ConstantLike>();
}

/// Whether `v` is (a view of) a stack buffer: it must not leave the function
/// whose frame holds it.
bool isStackBuffer(Value v) {
  while (Operation *def = v.getDefiningOp()) {
    if (isa<memref::AllocaOp>(def))
      return true;
    auto view = dyn_cast<ViewLikeOpInterface>(def);
    if (!view)
      return false;
    v = view.getViewSource();
  }
  return false;
}

/// Moves the ops [first, last] (consecutive, at the top of `parent`'s body)
/// into a new private function `<parent><suffix>` inserted into `symbols`,
/// and calls that in their place; returns it (and the call, in `made`).
/// Nothing happens (null) when a value they define that later ops use is a
/// stack buffer.
func::FuncOp outline(Operation *first, Operation *last, func::FuncOp parent,
                     const Twine &suffix, SymbolTable &symbols, func::CallOp *made = nullptr) {
  MLIRContext *ctx = first->getContext();
  SmallVector<Operation *> ops;
  for (Operation *op = first;; op = op->getNextNode()) {
    ops.push_back(op);
    if (op == last)
      break;
  }
  llvm::SmallPtrSet<Operation *, 16> inside(ops.begin(), ops.end());
  auto isInside = [&](Operation *op) {
    Operation *top = parent.getBody().front().findAncestorOpInBlock(*op);
    return top && inside.contains(top);
  };
  // What the ops read from before them: constants are re-created inside,
  // the rest are arguments. What later ops read of theirs: results.
  llvm::SetVector<Value> captured, produced;
  for (Operation *op : ops) {
    llvm::SetVector<Value> read(op->getOperands().begin(), op->getOperands().end());
    getUsedValuesDefinedAbove(op->getRegions(), read);
    for (Value v : read)
      if (!v.getDefiningOp() || !inside.contains(v.getDefiningOp()))
        captured.insert(v);
    for (Value result : op->getResults())
      if (llvm::any_of(result.getUsers(), [&](Operation *user) { return !isInside(user); }))
        produced.insert(result);
  }
  if (llvm::any_of(produced, isStackBuffer))
    return nullptr;
  SmallVector<Value> arguments;
  SmallVector<Operation *> constants;
  for (Value v : captured) {
    Operation *def = v.getDefiningOp();
    if (def && isConstant(def))
      constants.push_back(def);
    else
      arguments.push_back(v);
  }
  OpBuilder b(ctx);
  SmallVector<Value> results(produced.begin(), produced.end());
  auto type = FunctionType::get(ctx, ValueRange(arguments).getTypes(),
                                ValueRange(results).getTypes());
  auto callee =
      func::FuncOp::create(b, first->getLoc(), (parent.getSymName() + suffix).str(), type);
  callee.setPrivate();
  callee->setAttr("passthrough", b.getArrayAttr({b.getStringAttr("noinline")}));
  symbols.insert(callee, std::next(Block::iterator(parent)));
  Block *body = callee.addEntryBlock();
  b.setInsertionPointToStart(body);
  IRMapping mapping;
  for (auto [value, argument] : llvm::zip(arguments, body->getArguments()))
    mapping.map(value, argument);
  for (Operation *constant : constants)
    mapping.map(constant->getResult(0), b.clone(*constant)->getResult(0));
  // The call first, then the ops move in and read the new function's values.
  OpBuilder at(first);
  auto call = func::CallOp::create(at, first->getLoc(), callee, arguments);
  if (made)
    *made = call;
  for (auto [result, replacement] : llvm::zip(results, call.getResults()))
    result.replaceUsesWithIf(replacement, [&](OpOperand &use) { return !isInside(use.getOwner()); });
  for (Operation *op : ops)
    op->moveBefore(body, body->end());
  for (Value v : captured)
    replaceAllUsesInRegionWith(v, mapping.lookup(v), callee.getBody());
  b.setInsertionPointToEnd(body);
  func::ReturnOp::create(b, first->getLoc(), results);
  return callee;
}

int64_t countOps(Operation *op) {
  int64_t n = 0;
  op->walk([&](Operation *) { ++n; });
  return n;
}

/// `fn` in MLIR's generic form under a fixed name, its values numbered from
/// its own start: equal for functions that differ only in their names.
std::string structure(func::FuncOp fn) {
  StringAttr name = fn.getSymNameAttr();
  fn.setSymName("kernel");
  std::string text;
  llvm::raw_string_ostream os(text);
  fn->print(os, OpPrintingFlags().printGenericOpForm().useLocalScope());
  fn.setSymNameAttr(name);
  return text;
}

struct OutlineSegmentsPass
    : relax::impl::OutlineSegmentsPassBase<OutlineSegmentsPass> {
  using OutlineSegmentsPassBase::OutlineSegmentsPassBase;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    SymbolTable symbols(module);
    SmallVector<func::FuncOp> large;
    for (auto fn : module.getOps<func::FuncOp>())
      if (!fn.isExternal() && fn.getBody().hasOneBlock() && countOps(fn) >= minOps)
        large.push_back(fn);
    for (func::FuncOp fn : large) {
      // Constants stay at the top, where every segment that reads one
      // re-creates it.
      Block &entry = fn.getBody().front();
      Operation *afterConstants = &entry.front();
      for (Operation &op : llvm::make_early_inc_range(entry))
        if (isConstant(&op)) {
          if (&op == afterConstants)
            afterConstants = op.getNextNode();
          else
            op.moveBefore(afterConstants);
        }
      // Consecutive ops of about segmentOps operations each, the terminator
      // staying.
      SmallVector<std::pair<Operation *, Operation *>> segments;
      Operation *first = nullptr;
      int64_t count = 0;
      for (Operation &op : llvm::make_range(Block::iterator(afterConstants), entry.end())) {
        if (op.hasTrait<OpTrait::IsTerminator>())
          break;
        if (!first)
          first = &op;
        count += countOps(&op);
        if (count >= segmentOps) {
          segments.push_back({first, &op});
          first = nullptr;
          count = 0;
        }
      }
      if (first)
        segments.push_back({first, fn.getBody().front().getTerminator()->getPrevNode()});
      if (segments.size() < 2)
        continue;
      int64_t part = 0;
      for (auto [begin, end] : segments)
        outline(begin, end, fn, "_part" + Twine(part++), symbols);
    }
  }
};

/// Whether `op` becomes loops: an op with regions, but not a linalg op of
/// rank 0 (one scalar computation, no loop: left in the glue).
bool isLoopNest(Operation *op) {
  if (op->getNumRegions() == 0)
    return false;
  auto linalgOp = dyn_cast<linalg::LinalgOp>(op);
  return !linalgOp || linalgOp.getNumLoops() > 0;
}

struct ShareKernelsPass : relax::impl::ShareKernelsPassBase<ShareKernelsPass> {
  using ShareKernelsPassBase::ShareKernelsPassBase;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    SymbolTable symbols(module);
    SmallVector<std::pair<func::FuncOp, SmallVector<Operation *>>> nests;
    for (auto fn : module.getOps<func::FuncOp>()) {
      if (fn.isExternal() || !fn.getBody().hasOneBlock())
        continue;
      SmallVector<Operation *> found;
      for (Operation &op : fn.getBody().front())
        if (isLoopNest(&op) && countOps(&op) >= minOps)
          found.push_back(&op);
      if (!found.empty())
        nests.push_back({fn, std::move(found)});
    }
    SmallVector<std::pair<func::FuncOp, func::CallOp>> kernels;
    for (auto &[fn, ops] : nests) {
      int64_t k = 0;
      for (Operation *op : ops) {
        func::CallOp call;
        if (func::FuncOp kernel = outline(op, op, fn, "_kernel" + Twine(k++), symbols, &call))
          kernels.push_back({kernel, call});
      }
    }
    // Equal kernels become the first of them.
    // Each kernel has its one call (from outline), retargeted directly.
    llvm::StringMap<func::FuncOp> first;
    for (auto [kernel, call] : kernels) {
      auto [it, inserted] = first.try_emplace(structure(kernel), kernel);
      if (inserted)
        continue;
      call.setCalleeAttr(FlatSymbolRefAttr::get(it->second.getSymNameAttr()));
      symbols.erase(kernel);
    }
  }
};

/// Whether `op` iterates more than `minIterations` times (or an unknown
/// number of times; an op with an empty dimension does not iterate).
bool isLarge(linalg::LinalgOp op, int64_t minIterations) {
  int64_t iterations = 1;
  for (int64_t range : op.getStaticLoopRanges()) {
    if (ShapedType::isDynamic(range))
      return true;
    if (range == 0)
      return false;
    iterations = iterations > std::numeric_limits<int64_t>::max() / range
                     ? std::numeric_limits<int64_t>::max()
                     : iterations * range;
  }
  return iterations > minIterations;
}

/// A kernel's own copy, created before `at`, of the init `v` of one of its
/// ops when `v` is made from nothing but a `tensor.empty` without operands:
/// through `linalg.fill` and reshapes (the schedule reads them: a fill fuses
/// into the register tiles). Null otherwise; `created` gets the ops made.
Value cloneInit(Value v, Operation *at, SmallVectorImpl<Operation *> &created) {
  Operation *def = v.getDefiningOp();
  Value source;
  if (auto empty = dyn_cast_or_null<tensor::EmptyOp>(def)) {
    if (empty->getNumOperands() != 0)
      return nullptr;
  } else if (auto fill = dyn_cast_or_null<linalg::FillOp>(def)) {
    if (fill->getNumResults() != 1)
      return nullptr;
    source = fill.getOutputs()[0];
  } else if (isa_and_nonnull<tensor::ExpandShapeOp, tensor::CollapseShapeOp>(def)) {
    source = def->getOperand(0);
  } else {
    return nullptr;
  }
  IRMapping mapping;
  if (source) {
    Value copy = cloneInit(source, at, created);
    if (!copy)
      return nullptr;
    mapping.map(source, copy);
  }
  OpBuilder b(at);
  Operation *copy = b.clone(*def, mapping);
  created.push_back(copy);
  return copy->getResult(0);
}

/// Erases `op` if nothing reads it, and then what made its operands, if
/// nothing else reads those (an init's chain: see cloneInit).
void eraseDeadInit(Operation *op) {
  if (!op || !op->use_empty() ||
      !isa<tensor::EmptyOp, linalg::FillOp, tensor::ExpandShapeOp, tensor::CollapseShapeOp>(op))
    return;
  SmallVector<Value> operands(op->getOperands());
  op->erase();
  for (Value operand : operands)
    eraseDeadInit(operand.getDefiningOp());
}

/// Gives `op` its own inits (see cloneInit), created just before it; the
/// originals left without users are erased. Returns the first op created,
/// or `op` when none was.
Operation *takeInits(linalg::LinalgOp op) {
  SmallVector<Operation *> created;
  for (OpOperand &init : op.getDpsInitsMutable()) {
    Value old = init.get();
    Value own = cloneInit(old, op, created);
    if (!own)
      continue;
    init.set(own);
    eraseDeadInit(old.getDefiningOp());
  }
  // (Every copy is created right before `op`, in order.)
  return created.empty() ? op.getOperation() : created.front();
}

/// The elementwise op that alone consumes `op`'s result in its block, if
/// `op` reduces (a contraction's epilogue): a superset of what relax-cpu-tile
/// fuses into the register tiles (its epilogueOf), which must find it in the
/// same function.
linalg::GenericOp epilogue(linalg::LinalgOp op) {
  if (op.getNumReductionLoops() == 0 || op->getNumResults() != 1 ||
      !op->getResult(0).hasOneUse())
    return nullptr;
  auto consumer = dyn_cast<linalg::GenericOp>(*op->getResult(0).getUsers().begin());
  if (!consumer || consumer->getBlock() != op->getBlock() || !consumer.hasPureTensorSemantics() ||
      consumer.getNumParallelLoops() != consumer.getNumLoops())
    return nullptr;
  return consumer;
}

/// Whether a linalg op of `kernel` computes into one of its arguments (an
/// init that is not made inside it).
bool writesArgument(func::FuncOp kernel) {
  return kernel
      .walk([](linalg::LinalgOp op) {
        return llvm::any_of(op.getDpsInits(), [](Value v) { return isa<BlockArgument>(v); })
                   ? WalkResult::interrupt()
                   : WalkResult::advance();
      })
      .wasInterrupted();
}

/// The kernels (relax.kernel) of `module` that compute only into buffers of
/// their own.
llvm::DenseSet<StringAttr> kernelsWithOwnBuffers(ModuleOp module) {
  llvm::DenseSet<StringAttr> found;
  for (auto fn : module.getOps<func::FuncOp>())
    if (fn->hasAttr(kTensorKernelAttrName) && !writesArgument(fn))
      found.insert(fn.getSymNameAttr());
  return found;
}

/// Whether `v`, bufferized, is a whole buffer of identity layout (an
/// argument of the function, the result of a kernel computing into buffers
/// of its own (`ownBuffers`) or of a linalg op computing into such a buffer,
/// a reshape of one): a kernel reading it needs no copy at its boundary.
bool isWholeBuffer(Value v, Block *entry, const llvm::DenseSet<StringAttr> &ownBuffers) {
  if (auto arg = dyn_cast<BlockArgument>(v))
    return arg.getOwner() == entry;
  Operation *def = v.getDefiningOp();
  if (auto call = dyn_cast<func::CallOp>(def))
    return ownBuffers.contains(call.getCalleeAttr().getAttr());
  if (isa<tensor::ExpandShapeOp, tensor::CollapseShapeOp>(def))
    return isWholeBuffer(def->getOperand(0), entry, ownBuffers);
  if (auto linalgOp = dyn_cast<linalg::LinalgOp>(def))
    return isWholeBuffer(linalgOp.getDpsInits()[cast<OpResult>(v).getResultNumber()], entry,
                         ownBuffers);
  return isa<tensor::EmptyOp>(def);
}

/// Whether what reads `v` only reads it: calls and linalg ops (as an input),
/// through reshapes. (Not a result of the function, which may be computed in
/// its out-parameter and streamed there; not an insert, done in place.)
bool onlyRead(Value v) {
  for (OpOperand &use : v.getUses()) {
    Operation *user = use.getOwner();
    if (isa<func::CallOp>(user))
      continue;
    if (isa<tensor::ExpandShapeOp, tensor::CollapseShapeOp>(user) && onlyRead(user->getResult(0)))
      continue;
    auto linalgOp = dyn_cast<linalg::LinalgOp>(user);
    if (!linalgOp || !linalgOp.isDpsInput(&use))
      return false;
  }
  return true;
}

/// Whether `kernel` is worth keeping a function through bufferization and
/// can be, with the code it has inlined: it is called more than once (else
/// bufferizing it once saves nothing, and the ResNet block's step ran 2-3 %
/// slower with its single-use kernels kept), computes only into buffers of
/// its own, and at each call (in a function's entry block) its arguments are
/// whole buffers and its results are only read.
bool keepsKernel(func::FuncOp kernel, ArrayRef<func::CallOp> calls,
                 const llvm::DenseSet<StringAttr> &ownBuffers) {
  return calls.size() > 1 && ownBuffers.contains(kernel.getSymNameAttr()) &&
         llvm::all_of(calls, [&](func::CallOp call) {
           Block *entry = &call->getParentOfType<func::FuncOp>().getBody().front();
           return call->getBlock() == entry &&
                  llvm::all_of(call.getOperands(),
                               [&](Value v) { return isWholeBuffer(v, entry, ownBuffers); }) &&
                  llvm::all_of(call.getResults(), onlyRead);
         });
}

struct OutlineTensorKernelsPass
    : relax::impl::OutlineTensorKernelsPassBase<OutlineTensorKernelsPass> {
  using OutlineTensorKernelsPassBase::OutlineTensorKernelsPassBase;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    SymbolTable symbols(module);
    SmallVector<func::FuncOp> fns;
    for (auto fn : module.getOps<func::FuncOp>())
      if (!fn.isExternal() && !fn->hasAttr(kTensorKernelAttrName))
        fns.push_back(fn);
    llvm::StringMap<func::FuncOp> first;
    for (func::FuncOp fn : fns) {
      // (Listed first: making a kernel erases inits and moves its root.)
      SmallVector<linalg::LinalgOp> roots;
      for (Operation &op : fn.getBody().front()) {
        auto root = dyn_cast<linalg::LinalgOp>(&op);
        if (root && !isa<linalg::FillOp>(&op) && root.getNumLoops() > 0 &&
            root.hasPureTensorSemantics() && isLarge(root, minIterations))
          roots.push_back(root);
      }
      // Each kernel's ops, made consecutive: its root (and the root's inits)
      // moved down to just before its epilogue, whose operands all exist
      // there.
      SmallVector<std::pair<Operation *, Operation *>> kernels;
      llvm::SmallPtrSet<Operation *, 16> taken;
      for (linalg::LinalgOp root : roots) {
        if (taken.contains(root))
          continue;
        // (An epilogue may consume two contractions: it goes with the first.)
        linalg::GenericOp tail = epilogue(root);
        if (tail && taken.contains(tail))
          tail = nullptr;
        if (tail) {
          root->moveBefore(tail);
          taken.insert(tail);
        }
        // [the root's inits, root, the epilogue's inits, epilogue]
        Operation *firstOp = takeInits(root);
        if (tail)
          takeInits(tail);
        kernels.push_back({firstOp, tail ? tail.getOperation() : root.getOperation()});
      }
      int64_t k = 0;
      for (auto [begin, end] : kernels) {
        func::CallOp call;
        func::FuncOp kernel = outline(begin, end, fn, "_tensor_kernel" + Twine(k++), symbols, &call);
        if (!kernel)
          continue;
        kernel->removeAttr("passthrough");
        kernel->setAttr(kTensorKernelAttrName, UnitAttr::get(&getContext()));
        auto [it, inserted] = first.try_emplace(structure(kernel), kernel);
        if (inserted)
          continue;
        call.setCalleeAttr(FlatSymbolRefAttr::get(it->second.getSymNameAttr()));
        symbols.erase(kernel);
      }
    }
    // The kernels that can stay functions after the schedule do (noinline,
    // as relax-share-kernels's): bufferization and what follows then also
    // run once per distinct kernel.
    llvm::DenseMap<StringAttr, SmallVector<func::CallOp>> calls;
    module.walk([&](func::CallOp call) { calls[call.getCalleeAttr().getAttr()].push_back(call); });
    Builder b(&getContext());
    llvm::DenseSet<StringAttr> ownBuffers = kernelsWithOwnBuffers(module);
    for (auto &entry : first) {
      func::FuncOp kernel = entry.second;
      if (!keepsKernel(kernel, calls[kernel.getSymNameAttr()], ownBuffers))
        continue;
      kernel->setAttr(kKeptKernelAttrName, b.getUnitAttr());
      kernel->setAttr("passthrough", b.getArrayAttr({b.getStringAttr("noinline")}));
    }
  }
};

struct InlineTensorKernelsPass
    : relax::impl::InlineTensorKernelsPassBase<InlineTensorKernelsPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    llvm::DenseMap<StringAttr, func::FuncOp> kernels;
    for (auto fn : module.getOps<func::FuncOp>())
      if (fn->hasAttr(kTensorKernelAttrName) && !fn->hasAttr(kKeptKernelAttrName))
        kernels[fn.getSymNameAttr()] = fn;
    if (kernels.empty())
      return;
    SmallVector<func::CallOp> calls;
    module.walk([&](func::CallOp call) {
      if (kernels.count(call.getCalleeAttr().getAttr()))
        calls.push_back(call);
    });
    for (func::CallOp call : calls) {
      func::FuncOp kernel = kernels.lookup(call.getCalleeAttr().getAttr());
      Block &body = kernel.getBody().front();
      IRMapping mapping;
      mapping.map(body.getArguments(), call.getOperands());
      OpBuilder b(call);
      for (Operation &op : body.without_terminator())
        b.clone(op, mapping);
      for (auto [result, value] :
           llvm::zip(call.getResults(), body.getTerminator()->getOperands()))
        result.replaceAllUsesWith(mapping.lookupOrDefault(value));
      call.erase();
    }
    for (auto &[name, kernel] : kernels)
      kernel.erase();
  }
};

/// The blocks of `fn` that end in a back edge (a branch to a block that
/// dominates them): one per loop latch.
SmallVector<Block *> latches(LLVM::LLVMFuncOp fn) {
  SmallVector<Block *> result;
  DominanceInfo dominance(fn);
  for (Block &block : fn.getBody())
    if (llvm::any_of(block.getSuccessors(),
                     [&](Block *next) { return dominance.dominates(next, &block); }))
      result.push_back(&block);
  return result;
}

struct OptimizeNoneGluePass : relax::impl::OptimizeNoneGluePassBase<OptimizeNoneGluePass> {
  void runOnOperation() override {
    getOperation().walk([](LLVM::LLVMFuncOp fn) {
      if (fn.isExternal() || fn.getBody().empty() || !latches(fn).empty())
        return;
      UnitAttr unit = UnitAttr::get(fn.getContext());
      fn.setOptimizeNoneAttr(unit);
      fn.setNoInlineAttr(unit);
    });
  }
};

struct KeepVectorLoopsRolledPass
    : relax::impl::KeepVectorLoopsRolledPassBase<KeepVectorLoopsRolledPass> {
  void runOnOperation() override {
    MLIRContext *ctx = &getContext();
    auto unroll = LLVM::LoopUnrollAttr::get(ctx, /*disable=*/BoolAttr::get(ctx, true), {}, {}, {},
                                            {}, {}, {});
    auto rolled = LLVM::LoopAnnotationAttr::get(ctx, {}, {}, {}, unroll, {}, {}, {}, {}, {}, {}, {},
                                                {}, {}, {}, {});
    getOperation().walk([&](LLVM::LLVMFuncOp fn) {
      if (fn.isExternal() || fn.getBody().empty())
        return;
      WalkResult vectors = fn.walk([](Operation *op) {
        return llvm::any_of(op->getResultTypes(), [](Type t) { return isa<VectorType>(t); })
                   ? WalkResult::interrupt()
                   : WalkResult::advance();
      });
      if (!vectors.wasInterrupted())
        return;
      for (Block *latch : latches(fn)) {
        Operation *branch = latch->getTerminator();
        if (auto br = dyn_cast<LLVM::BrOp>(branch))
          br.setLoopAnnotationAttr(rolled);
        else if (auto condBr = dyn_cast<LLVM::CondBrOp>(branch))
          condBr.setLoopAnnotationAttr(rolled);
      }
    });
  }
};
} // namespace
