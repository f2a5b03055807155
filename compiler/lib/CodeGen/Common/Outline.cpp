//===- Outline.cpp - a large function split into functions of bounded size -===//
//
// relax-outline-segments: see Passes.td.
//
//===----------------------------------------------------------------------===//

#include "relax-mlir/CodeGen/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Interfaces/ViewLikeInterface.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Transforms/RegionUtils.h"
#include "llvm/ADT/SetVector.h"

namespace mlir::relax {
#define GEN_PASS_DEF_OUTLINESEGMENTSPASS
#include "relax-mlir/CodeGen/Passes.h.inc"
} // namespace mlir::relax

using namespace mlir;

namespace {
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
/// into a new private function inserted into `symbols`, and calls that in
/// their place. Nothing happens when a value they define that later ops use
/// is a stack buffer.
void outline(Operation *first, Operation *last, func::FuncOp parent, int64_t part,
             SymbolTable &symbols) {
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
    return;
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
  auto callee = func::FuncOp::create(b, first->getLoc(),
                                     (parent.getSymName() + "_part" + Twine(part)).str(), type);
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
  for (auto [result, replacement] : llvm::zip(results, call.getResults()))
    result.replaceUsesWithIf(replacement, [&](OpOperand &use) { return !isInside(use.getOwner()); });
  for (Operation *op : ops)
    op->moveBefore(body, body->end());
  for (Value v : captured)
    replaceAllUsesInRegionWith(v, mapping.lookup(v), callee.getBody());
  b.setInsertionPointToEnd(body);
  func::ReturnOp::create(b, first->getLoc(), results);
}

struct OutlineSegmentsPass
    : relax::impl::OutlineSegmentsPassBase<OutlineSegmentsPass> {
  using OutlineSegmentsPassBase::OutlineSegmentsPassBase;

  static int64_t countOps(Operation *op) {
    int64_t n = 0;
    op->walk([&](Operation *) { ++n; });
    return n;
  }

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
        outline(begin, end, fn, part++, symbols);
    }
  }
};
} // namespace
