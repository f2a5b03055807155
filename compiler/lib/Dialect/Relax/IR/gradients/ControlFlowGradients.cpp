//===- ControlFlowGradients.cpp - derivatives of loops and conditionals ---===//
//
// Reverse mode of a scan: the scan is replaced by one that also stacks the
// carry entering each iteration, and a scan in the opposite direction runs
// the body's adjoint, recomputing the body from the stored carry (the body's
// intermediates are never stored across iterations). With checkpoint_every =
// k, the scan is first nested into chunks of k iterations (recursively, so
// that each level stores at most about k carries) and the nest is
// differentiated. A while with max_iterations is differentiated as a scan of
// guarded steps. A conditional's adjoint is the conditional of its branches'
// adjoints. Forward mode runs the loop or branch over primal and tangent
// values together.
//
//===----------------------------------------------------------------------===//

#include "relax-mlir/Dialect/Relax/IR/GradientUtils.h"
#include "relax-mlir/Dialect/Relax/IR/RelaxOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"

using namespace mlir;
using namespace mlir::relax;

/// `type` with a leading axis of size `n`.
static RankedTensorType stackedType(Type type, int64_t n) {
  auto t = cast<RankedTensorType>(type);
  SmallVector<int64_t> shape{n};
  llvm::append_range(shape, t.getShape());
  return RankedTensorType::get(shape, t.getElementType());
}

/// `type` without its leading axis.
static RankedTensorType sliceType(Type type) {
  auto t = cast<RankedTensorType>(type);
  return RankedTensorType::get(t.getShape().drop_front(), t.getElementType());
}

static bool isFloat(Value v) { return isDifferentiableType(v.getType()); }

/// The indices i < n for which `pred(i)` holds, in order.
static SmallVector<unsigned> indicesWhere(unsigned n, function_ref<bool(unsigned)> pred) {
  SmallVector<unsigned> out;
  for (unsigned i = 0; i < n; ++i)
    if (pred(i))
      out.push_back(i);
  return out;
}

/// A scan with the given operands, its body block created (arguments of the
/// matching types) but empty.
static ScanOp createScan(OpBuilder &b, Location loc, ValueRange consts, ValueRange init,
                         ValueRange xs, TypeRange ysTypes, int64_t length, bool reverse,
                         std::optional<int64_t> every) {
  auto scan = ScanOp::create(b, loc, consts, init, xs, ysTypes, length, reverse, every);
  SmallVector<Type> args(consts.getTypes());
  llvm::append_range(args, init.getTypes());
  for (Value x : xs)
    args.push_back(sliceType(x.getType()));
  OpBuilder::InsertionGuard guard(b);
  b.createBlock(&scan.getBody(), {}, args, SmallVector<Location>(args.size(), loc));
  return scan;
}

/// A 0-d i1 constant.
static Value boolConstant(OpBuilder &b, Location loc, bool value) {
  auto type = RankedTensorType::get({}, b.getI1Type());
  return arith::ConstantOp::create(b, loc, DenseElementsAttr::get(type, value));
}

/// Ends the block at `b` with relax.yield of what `body` computes from
/// `args` (through `pushforwards`, with `tangents`), then the tangents of
/// its results `withTangent` (zeros where a result has none).
static LogicalResult yieldPushforward(OpBuilder &b, Location loc,
                                      PushforwardBuilder &pushforwards, Block &body,
                                      ValueRange args, ValueRange tangents,
                                      ArrayRef<unsigned> withTangent) {
  SmallVector<Value> results, resultDots;
  if (failed(pushforwards.pushforward(b, body, args, tangents, results, resultDots)))
    return failure();
  SmallVector<Value> yielded(results);
  for (unsigned i : withTangent)
    yielded.push_back(tangentOrZeros(b, loc, resultDots[i], results[i]));
  YieldOp::create(b, loc, yielded);
  return success();
}

//===----------------------------------------------------------------------===//
// ScanOp
//===----------------------------------------------------------------------===//

/// Rows [begin, end) of `v` along its leading axis.
static Value leadingRows(OpBuilder &b, Location loc, Value v, int64_t begin, int64_t end) {
  auto type = cast<RankedTensorType>(v.getType());
  if (begin == 0 && end == type.getDimSize(0))
    return v;
  return StridedSliceOp::create(b, loc, v, b.getDenseI64ArrayAttr({0}),
                                b.getDenseI64ArrayAttr({begin}), b.getDenseI64ArrayAttr({end}),
                                b.getDenseI64ArrayAttr({1}));
}

/// `scan` rewritten (before it) as chunks of `every` iterations: an outer
/// scan over the chunks (with checkpoint_every = `every`, so that it nests
/// again when it is still long) whose body scans one chunk, then a scan of
/// the iterations left over (the order of the two reversed with `reverse`).
/// Returns the values standing for the scan's results.
static SmallVector<Value> nestScan(OpBuilder &b, ScanOp scan, int64_t every) {
  Location loc = scan.getLoc();
  int64_t length = scan.getLength(), chunks = length / every, head = chunks * every;
  bool reverse = scan.getReverse();
  ValueRange consts = scan.getConsts();
  SmallVector<Type> ysTypes(scan.getYs().getTypes());

  // The nested part: slices [0, head) of xs, reshaped to chunks x every.
  auto nested = [&](ValueRange init) {
    SmallVector<Value> xs;
    for (Value x : scan.getXs()) {
      Value rows = leadingRows(b, loc, x, 0, head);
      auto t = cast<RankedTensorType>(rows.getType());
      SmallVector<int64_t> shape{chunks, every};
      llvm::append_range(shape, t.getShape().drop_front());
      xs.push_back(vjp::reshapeTo(b, loc, rows, shape));
    }
    SmallVector<Type> outerYs = llvm::map_to_vector(
        ysTypes, [&](Type t) -> Type { return stackedType(stackedType(sliceType(t), every), chunks); });
    ScanOp outer = createScan(b, loc, consts, init, xs, outerYs, chunks, reverse, every);
    {
      OpBuilder::InsertionGuard guard(b);
      Block &body = outer.getBody().front();
      b.setInsertionPointToStart(&body);
      unsigned nK = consts.size(), nC = init.size();
      SmallVector<Type> innerYs = llvm::map_to_vector(
          ysTypes, [&](Type t) -> Type { return stackedType(sliceType(t), every); });
      ScanOp inner = createScan(b, loc, body.getArguments().take_front(nK),
                                body.getArguments().slice(nK, nC),
                                body.getArguments().drop_front(nK + nC), innerYs, every, reverse,
                                std::nullopt);
      {
        OpBuilder::InsertionGuard innerGuard(b);
        Block &innerBody = inner.getBody().front();
        b.setInsertionPointToStart(&innerBody);
        SmallVector<Value> yielded =
            cloneBlockBody(b, scan.getBody().front(), innerBody.getArguments());
        YieldOp::create(b, loc, yielded);
      }
      YieldOp::create(b, loc, inner.getResults());
    }
    SmallVector<Value> results(outer.getCarries());
    for (auto [y, t] : llvm::zip(outer.getYs(), ysTypes)) {
      SmallVector<int64_t> shape{head};
      llvm::append_range(shape, sliceType(t).getShape());
      results.push_back(vjp::reshapeTo(b, loc, y, shape));
    }
    return results;
  };
  // The rows left over: slices [head, length).
  auto tail = [&](ValueRange init) {
    SmallVector<Value> xs = llvm::map_to_vector(
        scan.getXs(), [&](Value x) { return leadingRows(b, loc, x, head, length); });
    SmallVector<Type> tailYs = llvm::map_to_vector(
        ysTypes, [&](Type t) -> Type { return stackedType(sliceType(t), length - head); });
    ScanOp rest = createScan(b, loc, consts, init, xs, tailYs, length - head, reverse,
                             std::nullopt);
    OpBuilder::InsertionGuard guard(b);
    Block &body = rest.getBody().front();
    b.setInsertionPointToStart(&body);
    YieldOp::create(b, loc, cloneBlockBody(b, scan.getBody().front(), body.getArguments()));
    return SmallVector<Value>(rest.getResults());
  };
  unsigned nC = scan.getInit().size();
  SmallVector<Value> first, second;
  if (head == length)
    return nested(scan.getInit());
  if (!reverse) {
    first = nested(scan.getInit());
    second = tail(ArrayRef<Value>(first).take_front(nC));
  } else {
    second = tail(scan.getInit());
    first = nested(ArrayRef<Value>(second).take_front(nC));
  }
  // Carries: from the part that ran last; outputs: rows of the nested part,
  // then the tail's.
  SmallVector<Value> results(ArrayRef<Value>(reverse ? first : second).take_front(nC));
  for (unsigned i = 0, e = ysTypes.size(); i < e; ++i) {
    auto concat = ConcatOp::create(b, loc, ysTypes[i],
                                   ValueRange{first[nC + i], second[nC + i]},
                                   b.getI64IntegerAttr(0));
    results.push_back(concat);
  }
  return results;
}

/// The scan computing what `scan` does and also stacking the carries that
/// enter each iteration (as outputs after its own, at the rows of the
/// iterations' slices), built before it.
static ScanOp stackCarries(OpBuilder &b, ScanOp scan) {
  SmallVector<Type> ysTypes(scan.getYs().getTypes());
  for (Type t : scan.getInit().getTypes())
    ysTypes.push_back(stackedType(t, scan.getLength()));
  ScanOp aug = createScan(b, scan.getLoc(), scan.getConsts(), scan.getInit(), scan.getXs(),
                          ysTypes, scan.getLength(), scan.getReverse(),
                          scan.getCheckpointEvery());
  Block &body = aug.getBody().front();
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(&body);
  SmallVector<Value> yielded = cloneBlockBody(b, scan.getBody().front(), body.getArguments());
  unsigned nK = scan.getConsts().size(), nC = scan.getInit().size();
  llvm::append_range(yielded, body.getArguments().slice(nK, nC));
  YieldOp::create(b, scan.getLoc(), yielded);
  return aug;
}

LogicalResult ScanOp::buildVectorJacobianProduct(OpBuilder &b, ValueRange resultGrads,
                                                 ArrayRef<bool> needsGrad,
                                                 MutableArrayRef<Value> operandGrads,
                                                 PullbackBuilder &pullbacks) {
  Location loc = getLoc();
  unsigned nK = getConsts().size(), nC = getInit().size(), nX = getXs().size(),
           nY = getYs().size();
  int64_t length = getLength();

  // Chunked: rewrite the scan as a nest (in the primal computation) and
  // differentiate the nest.
  if (std::optional<int64_t> every = getCheckpointEvery(); every && *every > 1 && length > *every) {
    Operation *before = getOperation()->getPrevNode();
    OpBuilder fb(getOperation());
    SmallVector<Value> results = nestScan(fb, *this, *every);
    SmallVector<Operation *> ops;
    for (Operation *op = before ? before->getNextNode() : &getOperation()->getBlock()->front();
         op != getOperation(); op = op->getNextNode())
      ops.push_back(op);
    getOperation()->replaceAllUsesWith(results);
    FailureOr<SmallVector<Value>> grads =
        pullbacks.pullbackOps(b, ops, getOperands(), results, resultGrads, needsGrad);
    if (failed(grads))
      return failure();
    llvm::copy(*grads, operandGrads.begin());
    return success();
  }

  // The forward scan, now also stacking the carries.
  OpBuilder fb(getOperation());
  ScanOp aug = stackCarries(fb, *this);
  getOperation()->replaceAllUsesWith(aug.getResults().take_front(nC + nY));
  ValueRange stacked = aug.getResults().drop_front(nC + nY);

  // The reverse scan: carries are the adjoints of the float carries, then
  // the accumulated adjoints of the float consts that need one; it scans the
  // xs, the stacked carries and the outputs' adjoints (those not zero).
  SmallVector<unsigned> floatCarries =
      indicesWhere(nC, [&](unsigned i) { return isFloat(getInit()[i]); });
  SmallVector<unsigned> gradConsts = indicesWhere(
      nK, [&](unsigned i) { return needsGrad[i] && isFloat(getConsts()[i]); });
  SmallVector<unsigned> gradXs = indicesWhere(
      nX, [&](unsigned i) { return needsGrad[nK + nC + i] && isFloat(getXs()[i]); });
  SmallVector<unsigned> ysWithGrad =
      indicesWhere(nY, [&](unsigned i) { return static_cast<bool>(resultGrads[nC + i]); });

  SmallVector<Value> init, xs(getXs());
  for (unsigned i : floatCarries)
    init.push_back(resultGrads[i] ? resultGrads[i] : buildZeros(b, loc, getInit()[i].getType()));
  for (unsigned i : gradConsts)
    init.push_back(buildZeros(b, loc, getConsts()[i].getType()));
  llvm::append_range(xs, stacked);
  for (unsigned i : ysWithGrad)
    xs.push_back(resultGrads[nC + i]);
  SmallVector<Type> ysTypes =
      llvm::map_to_vector(gradXs, [&](unsigned i) { return getXs()[i].getType(); });
  ScanOp back = createScan(b, loc, getConsts(), init, xs, ysTypes, length, !getReverse(),
                           std::nullopt);
  {
    OpBuilder::InsertionGuard guard(b);
    Block &body = back.getBody().front();
    b.setInsertionPointToStart(&body);
    ValueRange args = body.getArguments();
    ValueRange consts = args.take_front(nK);
    ValueRange carryGrads = args.slice(nK, floatCarries.size());
    ValueRange constAccs = args.slice(nK + floatCarries.size(), gradConsts.size());
    ValueRange rest = args.drop_front(nK + floatCarries.size() + gradConsts.size());
    ValueRange xSlices = rest.take_front(nX), carries = rest.slice(nX, nC),
               yGrads = rest.drop_front(nX + nC);
    // The body applied to (consts, carries, x), seeded with the adjoints of
    // the carries it yields and of its outputs.
    SmallVector<Value> bodyArgs(consts);
    llvm::append_range(bodyArgs, carries);
    llvm::append_range(bodyArgs, xSlices);
    SmallVector<Value> seeds(nC + nY);
    for (auto [k, i] : llvm::enumerate(floatCarries))
      seeds[i] = carryGrads[k];
    for (auto [k, i] : llvm::enumerate(ysWithGrad))
      seeds[nC + i] = yGrads[k];
    SmallVector<bool> wanted(nK + nC + nX, false);
    for (unsigned i : gradConsts)
      wanted[i] = true;
    for (unsigned i : floatCarries)
      wanted[nK + i] = true;
    for (unsigned i : gradXs)
      wanted[nK + nC + i] = true;
    FailureOr<SmallVector<Value>> grads =
        pullbacks.pullback(b, getBody().front(), bodyArgs, seeds, wanted);
    if (failed(grads))
      return failure();
    SmallVector<Value> yielded;
    for (unsigned i : floatCarries)
      yielded.push_back(tangentOrZeros(b, loc, (*grads)[nK + i], carries[i]));
    for (auto [k, i] : llvm::enumerate(gradConsts))
      yielded.push_back((*grads)[i] ? addAdjoints(b, loc, constAccs[k], (*grads)[i])
                                    : Value(constAccs[k]));
    for (unsigned i : gradXs)
      yielded.push_back(tangentOrZeros(b, loc, (*grads)[nK + nC + i], xSlices[i]));
    YieldOp::create(b, loc, yielded);
  }
  for (auto [k, i] : llvm::enumerate(floatCarries))
    if (needsGrad[nK + i])
      operandGrads[nK + i] = back.getCarries()[k];
  for (auto [k, i] : llvm::enumerate(gradConsts))
    operandGrads[i] = back.getCarries()[floatCarries.size() + k];
  for (auto [k, i] : llvm::enumerate(gradXs))
    operandGrads[nK + nC + i] = back.getYs()[k];
  return success();
}

LogicalResult ScanOp::buildJacobianVectorProduct(OpBuilder &b, ValueRange operandTangents,
                                                 MutableArrayRef<Value> resultTangents,
                                                 PushforwardBuilder &pushforwards) {
  Location loc = getLoc();
  unsigned nK = getConsts().size(), nC = getInit().size(), nX = getXs().size(),
           nY = getYs().size();
  // Consts and xs with a tangent get a tangent operand; every float carry
  // gets a tangent carry; every float output a tangent output.
  SmallVector<unsigned> constT =
      indicesWhere(nK, [&](unsigned i) { return static_cast<bool>(operandTangents[i]); });
  SmallVector<unsigned> carryT =
      indicesWhere(nC, [&](unsigned i) { return isFloat(getInit()[i]); });
  SmallVector<unsigned> xsT = indicesWhere(
      nX, [&](unsigned i) { return static_cast<bool>(operandTangents[nK + nC + i]); });
  SmallVector<unsigned> ysT = indicesWhere(nY, [&](unsigned i) { return isFloat(getYs()[i]); });
  SmallVector<Value> consts(getConsts()), init(getInit()), xs(getXs());
  for (unsigned i : constT)
    consts.push_back(operandTangents[i]);
  for (unsigned i : carryT)
    init.push_back(tangentOrZeros(b, loc, operandTangents[nK + i], getInit()[i]));
  for (unsigned i : xsT)
    xs.push_back(operandTangents[nK + nC + i]);
  SmallVector<Type> ysTypes(getYs().getTypes());
  for (unsigned i : ysT)
    ysTypes.push_back(getYs()[i].getType());
  ScanOp jvp = createScan(b, loc, consts, init, xs, ysTypes, getLength(), getReverse(),
                          getCheckpointEvery());
  {
    OpBuilder::InsertionGuard guard(b);
    Block &body = jvp.getBody().front();
    b.setInsertionPointToStart(&body);
    ValueRange args = body.getArguments();
    unsigned at = 0;
    auto take = [&](unsigned n) {
      ValueRange r = args.slice(at, n);
      at += n;
      return r;
    };
    ValueRange k = take(nK), kDot = take(constT.size()), c = take(nC), cDot = take(carryT.size()),
               x = take(nX), xDot = take(xsT.size());
    SmallVector<Value> bodyArgs(k), tangents(nK + nC + nX);
    llvm::append_range(bodyArgs, c);
    llvm::append_range(bodyArgs, x);
    for (auto [j, i] : llvm::enumerate(constT))
      tangents[i] = kDot[j];
    for (auto [j, i] : llvm::enumerate(carryT))
      tangents[nK + i] = cDot[j];
    for (auto [j, i] : llvm::enumerate(xsT))
      tangents[nK + nC + i] = xDot[j];
    SmallVector<Value> results, resultDots;
    if (failed(pushforwards.pushforward(b, getBody().front(), bodyArgs, tangents, results,
                                        resultDots)))
      return failure();
    SmallVector<Value> yielded(ArrayRef<Value>(results).take_front(nC));
    for (unsigned i : carryT)
      yielded.push_back(tangentOrZeros(b, loc, resultDots[i], results[i]));
    llvm::append_range(yielded, ArrayRef<Value>(results).drop_front(nC));
    for (unsigned i : ysT)
      yielded.push_back(tangentOrZeros(b, loc, resultDots[nC + i], results[nC + i]));
    YieldOp::create(b, loc, yielded);
  }
  for (auto [j, i] : llvm::enumerate(carryT))
    resultTangents[i] = jvp.getCarries()[nC + j];
  for (auto [j, i] : llvm::enumerate(ysT))
    resultTangents[nC + i] = jvp.getYs()[nY + j];
  return success();
}

//===----------------------------------------------------------------------===//
// WhileOp
//===----------------------------------------------------------------------===//

/// The default fan-out of the nested checkpoints of a while loop's reverse
/// mode: about 8 * log_8(max_iterations) carries stored.
static constexpr int64_t kWhileCheckpointEvery = 8;

int64_t WhileOp::getCheckpointFanOut() {
  return getCheckpointEvery().value_or(kWhileCheckpointEvery);
}

/// A 0-d i64 constant.
static Value indexConstant(OpBuilder &b, Location loc, int64_t value) {
  auto type = RankedTensorType::get({}, b.getI64Type());
  return arith::ConstantOp::create(b, loc, type, DenseElementsAttr::get(type, value));
}

namespace {
/// The while loop rewritten as nested scans over the state (done, count,
/// carries...): `done` is set by the first iteration that does not run (its
/// condition fails, or `count` reached max_iterations), and a whole chunk is
/// skipped once it is set, so that the work (forward and backward) follows
/// the trip count, not max_iterations. Each scan stores the states entering
/// its iterations when differentiated: `fanOut` per level.
struct GuardedWhile {
  WhileOp loop;
  int64_t fanOut;
  Location loc;
  unsigned nK;

  /// One guarded iteration applied to `state` (with the consts `consts`).
  SmallVector<Value> step(OpBuilder &b, ValueRange consts, ValueRange state) {
    Value done = state[0], count = state[1];
    SmallVector<Value> loopArgs(consts);
    llvm::append_range(loopArgs, state.drop_front(2));
    Value holds = cloneBlockBody(b, loop.getCond().front(), loopArgs).front();
    Value inRange = vjp::less(b, loc, count, indexConstant(b, loc, *loop.getMaxIterations()));
    Value runs = vjp::where(b, loc, done, boolConstant(b, loc, false),
                            vjp::where(b, loc, inRange, holds, boolConstant(b, loc, false)));
    auto guarded = IfOp::create(b, loc, loop.getInit().getTypes(), runs, loopArgs);
    SmallVector<Type> argTypes(ValueRange(loopArgs).getTypes());
    SmallVector<Location> locs(argTypes.size(), loc);
    {
      OpBuilder::InsertionGuard g(b);
      Block *thenBlock = b.createBlock(&guarded.getThenRegion(), {}, argTypes, locs);
      YieldOp::create(b, loc, cloneBlockBody(b, loop.getBody().front(), thenBlock->getArguments()));
      Block *elseBlock = b.createBlock(&guarded.getElseRegion(), {}, argTypes, locs);
      YieldOp::create(b, loc, elseBlock->getArguments().drop_front(nK));
    }
    SmallVector<Value> next{
        vjp::where(b, loc, runs, boolConstant(b, loc, false), boolConstant(b, loc, true)),
        vjp::add(b, loc, count, indexConstant(b, loc, 1))};
    llvm::append_range(next, guarded.getResults());
    return next;
  }

  /// A scan of `length` iterations over `state`, each a chunk of `level`
  /// levels below (level 0: one guarded iteration; above, a chunk that is
  /// skipped when `done` is set on entry).
  ScanOp scan(OpBuilder &b, ValueRange consts, ValueRange state, int64_t length, int level) {
    ScanOp s = createScan(b, loc, consts, state, {}, {}, length, /*reverse=*/false, std::nullopt);
    OpBuilder::InsertionGuard guard(b);
    Block &body = s.getBody().front();
    b.setInsertionPointToStart(&body);
    ValueRange innerConsts = body.getArguments().take_front(nK);
    ValueRange innerState = body.getArguments().drop_front(nK);
    if (level == 0) {
      YieldOp::create(b, loc, step(b, innerConsts, innerState));
      return s;
    }
    SmallVector<Value> args(innerConsts);
    llvm::append_range(args, innerState);
    auto chunk = IfOp::create(b, loc, innerState.getTypes(), innerState[0], args);
    SmallVector<Type> argTypes(ValueRange(args).getTypes());
    SmallVector<Location> locs(argTypes.size(), loc);
    {
      OpBuilder::InsertionGuard g(b);
      Block *skip = b.createBlock(&chunk.getThenRegion(), {}, argTypes, locs);
      YieldOp::create(b, loc, skip->getArguments().drop_front(nK));
      Block *run = b.createBlock(&chunk.getElseRegion(), {}, argTypes, locs);
      ScanOp inner = scan(b, run->getArguments().take_front(nK),
                          run->getArguments().drop_front(nK), fanOut, level - 1);
      YieldOp::create(b, loc, inner.getCarries());
    }
    YieldOp::create(b, loc, chunk.getResults());
    return s;
  }

  /// The outermost scan: levels of `fanOut` iterations below a top level
  /// covering max_iterations (the counter stops the iterations past it).
  ScanOp build(OpBuilder &b) {
    int64_t max = *loop.getMaxIterations();
    int levels = 0;
    int64_t below = 1; // iterations in a chunk of the top level
    while (below * fanOut < max) {
      below *= fanOut;
      ++levels;
    }
    SmallVector<Value> state{boolConstant(b, loc, false), indexConstant(b, loc, 0)};
    llvm::append_range(state, loop.getInit());
    return scan(b, loop.getConsts(), state, (max + below - 1) / below, levels);
  }
};
} // namespace

LogicalResult WhileOp::buildVectorJacobianProduct(OpBuilder &b, ValueRange resultGrads,
                                                  ArrayRef<bool> needsGrad,
                                                  MutableArrayRef<Value> operandGrads,
                                                  PullbackBuilder &pullbacks) {
  std::optional<int64_t> max = getMaxIterations();
  if (!max)
    return emitError("'relax.while' is on the path to the target but has no max_iterations: "
                     "reverse mode needs a bound on the iterations to bound what it stores "
                     "(Python: while_loop(..., max_iterations=n), or fori_loop when the trip "
                     "count is known)");
  unsigned nK = getConsts().size(), nC = getInit().size();
  OpBuilder fb(getOperation());
  ScanOp scan = GuardedWhile{*this, std::max<int64_t>(getCheckpointFanOut(), 2), getLoc(), nK}
                    .build(fb);
  getOperation()->replaceAllUsesWith(scan.getCarries().drop_front(2));
  SmallVector<Value> seeds{Value(), Value()};
  llvm::append_range(seeds, resultGrads);
  SmallVector<bool> wanted(needsGrad.take_front(nK));
  wanted.append({false, false});
  llvm::append_range(wanted, needsGrad.drop_front(nK));
  SmallVector<Value> grads(nK + 2 + nC);
  if (failed(cast<RegionGradientOpInterface>(scan.getOperation())
                 .buildVectorJacobianProduct(b, seeds, wanted, grads, pullbacks)))
    return failure();
  for (unsigned i = 0; i < nK; ++i)
    operandGrads[i] = grads[i];
  for (unsigned i = 0; i < nC; ++i)
    operandGrads[nK + i] = grads[nK + 2 + i];
  return success();
}

LogicalResult WhileOp::buildJacobianVectorProduct(OpBuilder &b, ValueRange operandTangents,
                                                  MutableArrayRef<Value> resultTangents,
                                                  PushforwardBuilder &pushforwards) {
  Location loc = getLoc();
  unsigned nK = getConsts().size(), nC = getInit().size();
  SmallVector<unsigned> constT =
      indicesWhere(nK, [&](unsigned i) { return static_cast<bool>(operandTangents[i]); });
  SmallVector<unsigned> carryT =
      indicesWhere(nC, [&](unsigned i) { return isFloat(getInit()[i]); });
  SmallVector<Value> consts(getConsts()), init(getInit());
  for (unsigned i : constT)
    consts.push_back(operandTangents[i]);
  for (unsigned i : carryT)
    init.push_back(tangentOrZeros(b, loc, operandTangents[nK + i], getInit()[i]));
  auto loop = WhileOp::create(b, loc, consts, init, getMaxIterationsAttr(),
                              getCheckpointEveryAttr());
  SmallVector<Type> argTypes(ValueRange(consts).getTypes());
  llvm::append_range(argTypes, ValueRange(init).getTypes());
  SmallVector<Location> locs(argTypes.size(), loc);
  OpBuilder::InsertionGuard guard(b);
  // The condition reads the primal values only.
  Block *cond = b.createBlock(&loop.getCond(), {}, argTypes, locs);
  SmallVector<Value> primal(cond->getArguments().take_front(nK));
  llvm::append_range(primal, cond->getArguments().slice(consts.size(), nC));
  ConditionOp::create(b, loc, cloneBlockBody(b, getCond().front(), primal).front());

  Block *body = b.createBlock(&loop.getBody(), {}, argTypes, locs);
  ValueRange args = body->getArguments();
  SmallVector<Value> bodyArgs(args.take_front(nK)), tangents(nK + nC);
  llvm::append_range(bodyArgs, args.slice(consts.size(), nC));
  for (auto [j, i] : llvm::enumerate(constT))
    tangents[i] = args[nK + j];
  for (auto [j, i] : llvm::enumerate(carryT))
    tangents[nK + i] = args[consts.size() + nC + j];
  if (failed(yieldPushforward(b, loc, pushforwards, getBody().front(), bodyArgs, tangents,
                              carryT)))
    return failure();
  for (auto [j, i] : llvm::enumerate(carryT))
    resultTangents[i] = loop.getResults()[nC + j];
  return success();
}

//===----------------------------------------------------------------------===//
// IfOp and SwitchOp: one region of several, picked by operand 0
//===----------------------------------------------------------------------===//

/// An op of `op`'s kind (and selector, operand 0) on `inputs` with results
/// `types`, one empty block per region taking `inputs`.
static Operation *createBranches(OpBuilder &b, Operation *op, ValueRange inputs,
                                 TypeRange types) {
  OperationState state(op->getLoc(), op->getName());
  state.addOperands(op->getOperand(0));
  state.addOperands(inputs);
  state.addTypes(types);
  state.addAttributes(op->getAttrs());
  for (unsigned i = 0, e = op->getNumRegions(); i < e; ++i)
    state.addRegion();
  Operation *created = b.create(state);
  SmallVector<Type> argTypes(inputs.getTypes());
  SmallVector<Location> locs(argTypes.size(), op->getLoc());
  OpBuilder::InsertionGuard guard(b);
  for (Region &region : created->getRegions())
    b.createBlock(&region, {}, argTypes, locs);
  return created;
}

LogicalResult mlir::relax::buildBranchesVectorJacobianProduct(
    Operation *op, OpBuilder &b, ValueRange resultGrads, ArrayRef<bool> needsGrad,
    MutableArrayRef<Value> operandGrads, PullbackBuilder &pullbacks) {
  Location loc = op->getLoc();
  ValueRange inputs = op->getOperands().drop_front();
  unsigned nI = inputs.size();
  SmallVector<unsigned> withGrad = indicesWhere(
      resultGrads.size(), [&](unsigned i) { return static_cast<bool>(resultGrads[i]); });
  SmallVector<unsigned> wantedInputs =
      indicesWhere(nI, [&](unsigned i) { return needsGrad[1 + i] && isFloat(inputs[i]); });
  SmallVector<Value> operands(inputs);
  for (unsigned i : withGrad)
    operands.push_back(resultGrads[i]);
  SmallVector<Type> types =
      llvm::map_to_vector(wantedInputs, [&](unsigned i) { return inputs[i].getType(); });
  Operation *adjoint = createBranches(b, op, operands, types);
  SmallVector<bool> wanted(nI, false);
  for (unsigned i : wantedInputs)
    wanted[i] = true;
  for (auto [region, original] : llvm::zip(adjoint->getRegions(), op->getRegions())) {
    OpBuilder::InsertionGuard guard(b);
    Block &block = region.front();
    b.setInsertionPointToStart(&block);
    SmallVector<Value> seeds(op->getNumResults());
    for (auto [j, i] : llvm::enumerate(withGrad))
      seeds[i] = block.getArgument(nI + j);
    FailureOr<SmallVector<Value>> grads = pullbacks.pullback(
        b, original.front(), block.getArguments().take_front(nI), seeds, wanted);
    if (failed(grads))
      return failure();
    SmallVector<Value> yielded = llvm::map_to_vector(wantedInputs, [&](unsigned i) {
      return tangentOrZeros(b, loc, (*grads)[i], block.getArgument(i));
    });
    YieldOp::create(b, loc, yielded);
  }
  for (auto [j, i] : llvm::enumerate(wantedInputs))
    operandGrads[1 + i] = adjoint->getResult(j);
  return success();
}

LogicalResult mlir::relax::buildBranchesJacobianVectorProduct(
    Operation *op, OpBuilder &b, ValueRange operandTangents,
    MutableArrayRef<Value> resultTangents, PushforwardBuilder &pushforwards) {
  Location loc = op->getLoc();
  ValueRange inputs = op->getOperands().drop_front();
  unsigned nI = inputs.size(), nR = op->getNumResults();
  SmallVector<unsigned> withTangent =
      indicesWhere(nI, [&](unsigned i) { return static_cast<bool>(operandTangents[1 + i]); });
  SmallVector<unsigned> floatResults =
      indicesWhere(nR, [&](unsigned i) { return isFloat(op->getResult(i)); });
  SmallVector<Value> operands(inputs);
  for (unsigned i : withTangent)
    operands.push_back(operandTangents[1 + i]);
  SmallVector<Type> types(op->getResultTypes());
  for (unsigned i : floatResults)
    types.push_back(op->getResult(i).getType());
  Operation *jvp = createBranches(b, op, operands, types);
  for (auto [region, original] : llvm::zip(jvp->getRegions(), op->getRegions())) {
    OpBuilder::InsertionGuard guard(b);
    Block &block = region.front();
    b.setInsertionPointToStart(&block);
    SmallVector<Value> tangents(nI);
    for (auto [j, i] : llvm::enumerate(withTangent))
      tangents[i] = block.getArgument(nI + j);
    if (failed(yieldPushforward(b, loc, pushforwards, original.front(),
                                block.getArguments().take_front(nI), tangents, floatResults)))
      return failure();
  }
  for (auto [j, i] : llvm::enumerate(floatResults))
    resultTangents[i] = jvp->getResult(nR + j);
  return success();
}
