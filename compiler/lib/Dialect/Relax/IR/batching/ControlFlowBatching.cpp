//===- ControlFlowBatching.cpp - batching rules of loops and branches ----===//
//
// relax.scan over a batch is one scan over the batched body (RegionBatcher):
// the carries that some example changes differently are batched (found by
// batching the body until that set stops growing), the batched xs are read
// along their second axis (the loop runs over the first), and the stacked
// outputs have the batch moved back in front. relax.if and relax.switch with
// an unbatched predicate or index are one branch op over the batched
// branches; with a batched one, every branch runs on the whole batch and each
// example takes its own branch's results (JAX's select). relax.while with a
// shared predicate is one while over the batched regions; with a batched one
// it runs while any example's predicate holds, each example's carries kept
// once its own predicate fails (JAX's batched while_loop).
//
//===----------------------------------------------------------------------===//

#include "relax-mlir/Dialect/Relax/IR/BatchingUtils.h"
#include "relax-mlir/Dialect/Relax/IR/GradientUtils.h"
#include "relax-mlir/Dialect/Relax/IR/RelaxOps.h"

using namespace mlir;
using namespace mlir::relax;

namespace {
/// A block (not yet in a region) with arguments of `types`, deleted unless
/// released.
struct DetachedBlock {
  DetachedBlock(TypeRange types, Location loc) : block(new Block()) {
    for (Type t : types)
      block->addArgument(t, loc);
  }
  ~DetachedBlock() {
    if (block) {
      block->dropAllDefinedValueUses();
      delete block;
    }
  }
  Block *release() { return std::exchange(block, nullptr); }
  Block *block;
};
} // namespace

/// `type` without its leading dimension.
static Type sliceOf(Type type) {
  auto t = cast<RankedTensorType>(type);
  return t.clone(t.getShape().drop_front());
}

/// `type` with a leading dimension of `n`.
static Type stackedOf(Type type, int64_t n) {
  auto t = cast<RankedTensorType>(type);
  SmallVector<int64_t> shape{n};
  llvm::append_range(shape, t.getShape());
  return t.clone(shape);
}

/// `v` batched when `want` is: broadcast over the batch unless it already is.
static Value batchedIf(OpBuilder &b, Location loc, Value v, bool isBatched, bool want,
                       int64_t n) {
  return want && !isBatched ? broadcastBatch(b, loc, v, n) : v;
}

/// Marks batched the carries a batched body yields batched (the first
/// `carries.size()` of `out`); whether any was not yet.
static bool widenCarries(ArrayRef<std::pair<Value, bool>> out, MutableArrayRef<bool> carries) {
  bool grew = false;
  for (auto [k, carry] : llvm::enumerate(carries))
    if (out[k].second && !carry)
      carry = grew = true;
  return grew;
}

/// Per example, `a` where its `mask` element (shape (n)) holds, else `b`.
static Value selectExamples(OpBuilder &b, Location loc, Value mask, Value a, Value other) {
  auto type = cast<RankedTensorType>(a.getType());
  SmallVector<int64_t> shape(type.getRank(), 1);
  shape[0] = type.getDimSize(0);
  return vjp::where(b, loc, vjp::reshapeTo(b, loc, mask, shape), a, other);
}

LogicalResult ScanOp::buildBatched(OpBuilder &b, int64_t n, ValueRange operands,
                                   ArrayRef<bool> batched, MutableArrayRef<Value> results,
                                   RegionBatcher &regions) {
  Location loc = getLoc();
  int64_t nc = getNumConsts(), nk = getNumCarries();
  int64_t nx = static_cast<int64_t>(operands.size()) - nc - nk;
  int64_t ny = static_cast<int64_t>(getNumResults()) - nk;
  SmallVector<Value> consts(operands.take_front(nc));
  SmallVector<Value> xs;
  for (int64_t i = 0; i < nx; ++i) {
    Value x = operands[nc + nk + i];
    // (n, length, ...) -> (length, n, ...): the loop reads a batch of slices.
    xs.push_back(batched[nc + nk + i] ? moveAxis(b, loc, x, 0, 1) : x);
  }
  SmallVector<bool> carries(batched.begin() + nc, batched.begin() + nc + nk);
  // At most one more attempt per carry: each adds at least one.
  for (int64_t attempt = 0; attempt <= nk; ++attempt) {
    SmallVector<Value> init;
    for (int64_t k = 0; k < nk; ++k)
      init.push_back(batchedIf(b, loc, operands[nc + k], batched[nc + k], carries[k], n));
    SmallVector<Type> argTypes(ValueRange(consts).getTypes());
    llvm::append_range(argTypes, ValueRange(init).getTypes());
    for (Value x : xs)
      argTypes.push_back(sliceOf(x.getType()));
    SmallVector<bool> argBatched(batched.begin(), batched.begin() + nc);
    llvm::append_range(argBatched, carries);
    argBatched.append(batched.begin() + nc + nk, batched.end());
    DetachedBlock body(argTypes, loc);
    OpBuilder inner(b.getContext());  // (a detached block has no region to ask)
    inner.setInsertionPointToEnd(body.block);
    auto out = regions.batch(inner, getBody().front(), body.block->getArguments(), argBatched);
    if (failed(out))
      return failure();
    if (widenCarries(*out, carries))
      continue;
    SmallVector<Value> yields;
    SmallVector<Type> ysTypes;
    for (int64_t k = 0; k < nk; ++k)
      yields.push_back(batchedIf(inner, loc, (*out)[k].first, (*out)[k].second, carries[k], n));
    for (int64_t j = 0; j < ny; ++j) {
      yields.push_back((*out)[nk + j].first);
      ysTypes.push_back(stackedOf((*out)[nk + j].first.getType(), getLength()));
    }
    YieldOp::create(inner, loc, yields);
    auto scan =
        ScanOp::create(b, loc, consts, init, xs, ysTypes, getLength(), getReverse(),
                       getCheckpointEvery());
    scan.getBody().push_back(body.release());
    for (int64_t k = 0; k < nk; ++k)
      results[k] = batchedIf(b, loc, scan.getResult(k), carries[k], true, n);
    for (int64_t j = 0; j < ny; ++j) {
      Value y = scan.getResult(nk + j);
      // (length, n, ...) -> (n, length, ...).
      results[nk + j] = (*out)[nk + j].second ? moveAxis(b, loc, y, 1, 0)
                                              : broadcastBatch(b, loc, y, n);
    }
    return success();
  }
  return emitOpError("vmap: the batched carries did not settle");
}

/// The batched branches of an if/switch with an unbatched selector: one op
/// of the same kind whose branches take the batched inputs and yield every
/// result batched where any branch makes it batched. With a batched
/// selector: each branch's batched results (inlined: all run), then
/// `select` picks per example.
static LogicalResult batchBranches(Operation *op, OpBuilder &b, int64_t n, ValueRange operands,
                                   ArrayRef<bool> batched, MutableArrayRef<Value> results,
                                   RegionBatcher &regions) {
  Location loc = op->getLoc();
  ValueRange inputs = operands.drop_front();
  ArrayRef<bool> inputBatched = batched.drop_front();
  unsigned numResults = op->getNumResults();
  if (batched[0]) {
    // Every branch on the whole batch, then per example the branch chosen.
    SmallVector<SmallVector<Value>> branchResults;
    for (Region &region : op->getRegions()) {
      auto out = regions.batch(b, region.front(), inputs, inputBatched);
      if (failed(out))
        return failure();
      SmallVector<Value> values;
      for (auto [v, isBatched] : *out)
        values.push_back(batchedIf(b, loc, v, isBatched, true, n));
      branchResults.push_back(values);
    }
    Value selector = operands[0];  // (n) i1 or integer
    unsigned numBranches = op->getNumRegions();
    for (unsigned r = 0; r < numResults; ++r) {
      Value picked = branchResults[numBranches - 1][r];
      for (int64_t k = static_cast<int64_t>(numBranches) - 2; k >= 0; --k) {
        Value chosen;
        if (isa<IfOp>(op)) {
          chosen = selector;  // then (region 0) where true
        } else {
          // switch: the index clamped into [0, branches), as lax.switch.
          Value index = ClipOp::create(b, loc, selector, b.getF64FloatAttr(0.0),
                                       b.getF64FloatAttr(numBranches - 1.0));
          chosen = EqualOp::create(b, loc, index, vjp::scalarLike(b, loc, index, k));
        }
        picked = selectExamples(b, loc, chosen, branchResults[k][r], picked);
      }
      results[r] = picked;
    }
    return success();
  }
  // One branch op over batched branches.
  SmallVector<SmallVector<std::pair<Value, bool>>> outs;
  SmallVector<std::unique_ptr<DetachedBlock>> blocks;
  SmallVector<bool> resultBatched(numResults, false);
  for (Region &region : op->getRegions()) {
    blocks.push_back(std::make_unique<DetachedBlock>(inputs.getTypes(), loc));
    OpBuilder inner(b.getContext());
    inner.setInsertionPointToEnd(blocks.back()->block);
    auto out = regions.batch(inner, region.front(), blocks.back()->block->getArguments(),
                             inputBatched);
    if (failed(out))
      return failure();
    for (unsigned r = 0; r < numResults; ++r)
      resultBatched[r] = resultBatched[r] || (*out)[r].second;
    outs.push_back(*out);
  }
  SmallVector<Type> types;
  for (unsigned r = 0; r < numResults; ++r) {
    Type t = op->getResult(r).getType();
    types.push_back(resultBatched[r] ? batchedType(t, n) : t);
  }
  for (auto [block, out] : llvm::zip(blocks, outs)) {
    OpBuilder inner(b.getContext());
    inner.setInsertionPointToEnd(block->block);
    SmallVector<Value> yields;
    for (unsigned r = 0; r < numResults; ++r)
      yields.push_back(batchedIf(inner, loc, out[r].first, out[r].second, resultBatched[r], n));
    YieldOp::create(inner, loc, yields);
  }
  OperationState state(loc, op->getName());
  state.addOperands(operands);
  state.addTypes(types);
  state.addAttributes(op->getAttrs());
  for (auto &block : blocks)
    state.addRegion()->push_back(block->release());
  Operation *copy = b.create(state);
  for (unsigned r = 0; r < numResults; ++r)
    results[r] = batchedIf(b, loc, copy->getResult(r), resultBatched[r], true, n);
  return success();
}

LogicalResult IfOp::buildBatched(OpBuilder &b, int64_t n, ValueRange operands,
                                 ArrayRef<bool> batched, MutableArrayRef<Value> results,
                                 RegionBatcher &regions) {
  return batchBranches(*this, b, n, operands, batched, results, regions);
}

LogicalResult SwitchOp::buildBatched(OpBuilder &b, int64_t n, ValueRange operands,
                                     ArrayRef<bool> batched, MutableArrayRef<Value> results,
                                     RegionBatcher &regions) {
  return batchBranches(*this, b, n, operands, batched, results, regions);
}

LogicalResult WhileOp::buildBatched(OpBuilder &b, int64_t n, ValueRange operands,
                                    ArrayRef<bool> batched, MutableArrayRef<Value> results,
                                    RegionBatcher &regions) {
  Location loc = getLoc();
  int64_t nc = getNumConsts();
  int64_t nk = static_cast<int64_t>(operands.size()) - nc;
  SmallVector<Value> consts(operands.take_front(nc));
  SmallVector<bool> carries(batched.begin() + nc, batched.end());
  Block &cond = getCond().front(), &body = getBody().front();
  for (int64_t attempt = 0; attempt <= nk + 1; ++attempt) {
    SmallVector<Value> init;
    for (int64_t k = 0; k < nk; ++k)
      init.push_back(batchedIf(b, loc, operands[nc + k], batched[nc + k], carries[k], n));
    SmallVector<Type> argTypes(ValueRange(consts).getTypes());
    llvm::append_range(argTypes, ValueRange(init).getTypes());
    SmallVector<bool> argBatched(batched.begin(), batched.begin() + nc);
    llvm::append_range(argBatched, carries);
    // The predicate and the new carries, to see what is batched.
    DetachedBlock condBlock(argTypes, loc), bodyBlock(argTypes, loc);
    OpBuilder cb(b.getContext()), bb(b.getContext());
    cb.setInsertionPointToEnd(condBlock.block);
    bb.setInsertionPointToEnd(bodyBlock.block);
    auto pred = regions.batch(cb, cond, condBlock.block->getArguments(), argBatched);
    if (failed(pred))
      return failure();
    bool perExample = (*pred)[0].second;
    if (perExample) {
      // Each example stops on its own: every carry is batched (and kept
      // where the example's predicate failed).
      if (!llvm::all_of(carries, [](bool c) { return c; })) {
        carries.assign(nk, true);
        continue;
      }
      // The body first asks each example's predicate again.
      auto again = regions.batch(bb, cond, bodyBlock.block->getArguments(), argBatched);
      if (failed(again))
        return failure();
      auto next = regions.batch(bb, body, bodyBlock.block->getArguments(), argBatched);
      if (failed(next))
        return failure();
      Value running = (*again)[0].first;  // (n) i1
      SmallVector<Value> yields;
      for (int64_t k = 0; k < nk; ++k) {
        auto [v, isBatched] = (*next)[k];
        yields.push_back(selectExamples(bb, loc, running, batchedIf(bb, loc, v, isBatched, true, n),
                                        bodyBlock.block->getArgument(nc + k)));
      }
      YieldOp::create(bb, loc, yields);
      // Go on while any example's predicate holds.
      Value count = vjp::sumOver(cb, loc, vjp::astype(cb, loc, (*pred)[0].first,
                                                      cb.getI64Type()), {0}, false);
      ConditionOp::create(cb, loc,
                          vjp::greater(cb, loc, count, vjp::scalarLike(cb, loc, count, 0.0)));
    } else {
      auto next = regions.batch(bb, body, bodyBlock.block->getArguments(), argBatched);
      if (failed(next))
        return failure();
      if (widenCarries(*next, carries))
        continue;
      SmallVector<Value> yields;
      for (int64_t k = 0; k < nk; ++k)
        yields.push_back(batchedIf(bb, loc, (*next)[k].first, (*next)[k].second, carries[k], n));
      YieldOp::create(bb, loc, yields);
      ConditionOp::create(cb, loc, (*pred)[0].first);
    }
    auto loop = WhileOp::create(b, loc, consts, init, getMaxIterationsAttr(),
                                getCheckpointEveryAttr());
    loop.getCond().push_back(condBlock.release());
    loop.getBody().push_back(bodyBlock.release());
    for (int64_t k = 0; k < nk; ++k)
      results[k] = batchedIf(b, loc, loop.getResult(k), carries[k], true, n);
    return success();
  }
  return emitOpError("vmap: the batched carries did not settle");
}
