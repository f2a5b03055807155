//===- ControlFlow.cpp - relax loops and conditionals to scf on tensors ---===//
//
// relax.scan becomes scf.for over the iteration index, carrying the carries
// and the stacked outputs (each iteration inserts its slice in place);
// relax.while becomes scf.while (with an iteration counter when it has
// max_iterations); relax.if scf.if and relax.switch scf.index_switch. The
// bodies move into the scf ops as they are: the relax ops in them are lowered
// with every other relax op afterwards.
//
//===----------------------------------------------------------------------===//

#include "LoweringUtils.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/PatternMatch.h"

using namespace mlir;
using namespace mlir::relax;
using namespace mlir::relax::lowering;

/// The scalar in a 0-d tensor.
static Value extractScalar(OpBuilder &b, Location loc, Value v) {
  return tensor::ExtractOp::create(b, loc, v, ValueRange{});
}

/// Offsets, sizes and strides selecting row `row` of a tensor of `type`.
static void rowSlice(OpBuilder &b, RankedTensorType type, Value row,
                     SmallVectorImpl<OpFoldResult> &offsets, SmallVectorImpl<OpFoldResult> &sizes,
                     SmallVectorImpl<OpFoldResult> &strides) {
  offsets.push_back(row);
  sizes.push_back(b.getIndexAttr(1));
  for (int64_t d : type.getShape().drop_front()) {
    offsets.push_back(b.getIndexAttr(0));
    sizes.push_back(b.getIndexAttr(d));
  }
  strides.assign(type.getRank(), b.getIndexAttr(1));
}

/// Moves `from`'s block (its arguments replaced by `args`) to the end of
/// `into`; returns the moved terminator.
static Operation *moveBody(RewriterBase &rewriter, Region &from, Block *into, ValueRange args) {
  Block *block = &from.front();
  Operation *term = block->getTerminator();
  rewriter.inlineBlockBefore(block, into, into->end(), args);
  return term;
}

static void lowerScan(RewriterBase &rewriter, ScanOp scan) {
  Location loc = scan.getLoc();
  rewriter.setInsertionPoint(scan);
  unsigned nC = scan.getInit().size();
  SmallVector<Value> iterInit(scan.getInit());
  for (Value y : scan.getYs())
    iterInit.push_back(emptyTensor(rewriter, loc, cast<RankedTensorType>(y.getType())));
  Value lb = arith::ConstantIndexOp::create(rewriter, loc, 0);
  Value ub = arith::ConstantIndexOp::create(rewriter, loc, scan.getLength());
  Value step = arith::ConstantIndexOp::create(rewriter, loc, 1);
  Value last = arith::ConstantIndexOp::create(rewriter, loc, scan.getLength() - 1);
  bool reverse = scan.getReverse();
  SmallVector<Value> slices;
  Value row;
  auto loop = scf::ForOp::create(
      rewriter, loc, lb, ub, step, iterInit,
      [&](OpBuilder &b, Location l, Value i, ValueRange) {
        row = reverse ? arith::SubIOp::create(b, l, last, i).getResult() : i;
        for (Value x : scan.getXs()) {
          auto type = cast<RankedTensorType>(x.getType());
          auto sliceType = RankedTensorType::get(type.getShape().drop_front(),
                                                 type.getElementType());
          // A slice without elements reads nothing (and no offset into a
          // size-0 dim is in bounds).
          if (sliceType.getNumElements() == 0) {
            slices.push_back(emptyTensor(b, l, sliceType));
            continue;
          }
          SmallVector<OpFoldResult> offsets, sizes, strides;
          rowSlice(b, type, row, offsets, sizes, strides);
          slices.push_back(tensor::ExtractSliceOp::create(b, l, sliceType, x, offsets, sizes,
                                                          strides));
        }
      });
  Block *body = loop.getBody();
  SmallVector<Value> args(scan.getConsts());
  llvm::append_range(args, loop.getRegionIterArgs().take_front(nC));
  llvm::append_range(args, slices);
  auto yield = cast<YieldOp>(moveBody(rewriter, scan.getBody(), body, args));
  rewriter.setInsertionPoint(yield);
  SmallVector<Value> next(yield.getOperands().take_front(nC));
  for (auto [y, acc] : llvm::zip(yield.getOperands().drop_front(nC),
                                 loop.getRegionIterArgs().drop_front(nC))) {
    auto type = cast<RankedTensorType>(acc.getType());
    if (type.getNumElements() == 0) {
      next.push_back(acc);
      continue;
    }
    SmallVector<OpFoldResult> offsets, sizes, strides;
    rowSlice(rewriter, type, row, offsets, sizes, strides);
    next.push_back(tensor::InsertSliceOp::create(rewriter, loc, y, acc, offsets, sizes, strides));
  }
  rewriter.replaceOpWithNewOp<scf::YieldOp>(yield, next);
  loop->setAttr(kControlFlowAttrName, rewriter.getUnitAttr());
  rewriter.replaceOp(scan, loop.getResults());
}

static void lowerWhile(RewriterBase &rewriter, WhileOp op) {
  Location loc = op.getLoc();
  rewriter.setInsertionPoint(op);
  std::optional<int64_t> max = op.getMaxIterations();
  SmallVector<Value> init;
  if (max)
    init.push_back(arith::ConstantIndexOp::create(rewriter, loc, 0));
  llvm::append_range(init, op.getInit());
  SmallVector<Type> types(ValueRange(init).getTypes());
  SmallVector<Location> locs(types.size(), loc);
  auto loop = scf::WhileOp::create(rewriter, loc, types, init);
  unsigned skip = max ? 1 : 0;
  auto withConsts = [&](Block *block) {
    SmallVector<Value> args(op.getConsts());
    llvm::append_range(args, block->getArguments().drop_front(skip));
    return args;
  };

  Block *before = rewriter.createBlock(&loop.getBefore(), {}, types, locs);
  auto cond = cast<ConditionOp>(moveBody(rewriter, op.getCond(), before, withConsts(before)));
  rewriter.setInsertionPoint(cond);
  Value go = extractScalar(rewriter, loc, cond.getCondition());
  if (max) {
    Value bound = arith::ConstantIndexOp::create(rewriter, loc, *max);
    Value below = arith::CmpIOp::create(rewriter, loc, arith::CmpIPredicate::slt,
                                        before->getArgument(0), bound);
    go = arith::AndIOp::create(rewriter, loc, go, below);
  }
  rewriter.replaceOpWithNewOp<scf::ConditionOp>(cond, go, before->getArguments());

  Block *after = rewriter.createBlock(&loop.getAfter(), {}, types, locs);
  auto yield = cast<YieldOp>(moveBody(rewriter, op.getBody(), after, withConsts(after)));
  rewriter.setInsertionPoint(yield);
  SmallVector<Value> next;
  if (max)
    next.push_back(arith::AddIOp::create(rewriter, loc, after->getArgument(0),
                                         arith::ConstantIndexOp::create(rewriter, loc, 1)));
  llvm::append_range(next, yield.getOperands());
  rewriter.replaceOpWithNewOp<scf::YieldOp>(yield, next);
  loop->setAttr(kControlFlowAttrName, rewriter.getUnitAttr());
  rewriter.replaceOp(op, loop.getResults().drop_front(skip));
}

/// Moves `from` into `into` (a region with no block), its arguments being
/// `inputs`, its relax.yield becoming scf.yield.
static void moveBranch(RewriterBase &rewriter, Region &from, Region &into, ValueRange inputs) {
  Block *block = rewriter.createBlock(&into);
  auto yield = cast<YieldOp>(moveBody(rewriter, from, block, inputs));
  rewriter.setInsertionPoint(yield);
  rewriter.replaceOpWithNewOp<scf::YieldOp>(yield, yield.getOperands());
}

static void lowerIf(RewriterBase &rewriter, IfOp op) {
  Location loc = op.getLoc();
  rewriter.setInsertionPoint(op);
  Value pred = extractScalar(rewriter, loc, op.getPred());
  auto branch = scf::IfOp::create(rewriter, loc, op.getResultTypes(), pred,
                                  /*addThenBlock=*/false, /*addElseBlock=*/false);
  moveBranch(rewriter, op.getThenRegion(), branch.getThenRegion(), op.getInputs());
  moveBranch(rewriter, op.getElseRegion(), branch.getElseRegion(), op.getInputs());
  branch->setAttr(kControlFlowAttrName, rewriter.getUnitAttr());
  rewriter.replaceOp(op, branch.getResults());
}

static void lowerSwitch(RewriterBase &rewriter, SwitchOp op) {
  Location loc = op.getLoc();
  rewriter.setInsertionPoint(op);
  unsigned n = op.getBranches().size();
  // JAX's clamping: an index below 0 runs the first branch, one past the
  // end the last.
  Value index = extractScalar(rewriter, loc, op.getIndex());
  Type type = index.getType();
  Value lo = arith::ConstantOp::create(rewriter, loc, rewriter.getIntegerAttr(type, 0));
  Value hi = arith::ConstantOp::create(rewriter, loc, rewriter.getIntegerAttr(type, n - 1));
  index = arith::MinSIOp::create(rewriter, loc, arith::MaxSIOp::create(rewriter, loc, index, lo),
                                 hi);
  index = arith::IndexCastOp::create(rewriter, loc, rewriter.getIndexType(), index);
  SmallVector<int64_t> cases = llvm::to_vector(llvm::seq<int64_t>(0, n - 1));
  auto select = scf::IndexSwitchOp::create(rewriter, loc, op.getResultTypes(), index, cases,
                                           cases.size());
  for (unsigned i = 0; i + 1 < n; ++i)
    moveBranch(rewriter, op.getBranches()[i], select.getCaseRegions()[i], op.getInputs());
  moveBranch(rewriter, op.getBranches()[n - 1], select.getDefaultRegion(), op.getInputs());
  select->setAttr(kControlFlowAttrName, rewriter.getUnitAttr());
  rewriter.replaceOp(op, select.getResults());
}

void mlir::relax::lowering::lowerControlFlow(ModuleOp module) {
  SmallVector<Operation *> ops;
  module.walk([&](Operation *op) {
    if (isa<ScanOp, WhileOp, IfOp, SwitchOp>(op))
      ops.push_back(op);
  });
  IRRewriter rewriter(module.getContext());
  for (Operation *op : ops) {
    if (auto scan = dyn_cast<ScanOp>(op))
      lowerScan(rewriter, scan);
    else if (auto loop = dyn_cast<WhileOp>(op))
      lowerWhile(rewriter, loop);
    else if (auto branch = dyn_cast<IfOp>(op))
      lowerIf(rewriter, branch);
    else
      lowerSwitch(rewriter, cast<SwitchOp>(op));
  }
}

SmallVector<StringRef> mlir::relax::getControlFlowOpNames() {
  return {ScanOp::getOperationName(),  WhileOp::getOperationName(),
          IfOp::getOperationName(),    SwitchOp::getOperationName(),
          YieldOp::getOperationName(), ConditionOp::getOperationName()};
}
