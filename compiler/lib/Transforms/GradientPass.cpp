//===- GradientPass.cpp - reverse-mode AD of one relax function -----------===//
//
// Adds `@<func>_adjoint`: the clone's bindings gathered into one dataflow
// block (Differentiation.h), the target seeded with ones, and a reverse sweep
// over the bindings that asks each op for its vector-Jacobian product through
// GradientOpInterface, recomputing checkpointed segments (CheckpointPlan.h).
// The pass knows no op by name; the adjoint algebra lives in GradientUtils.
//
//===----------------------------------------------------------------------===//

#include "CheckpointPlan.h"
#include "Differentiation.h"

#include "relax-mlir/Dialect/Relax/IR/GradientUtils.h"
#include "relax-mlir/Transforms/Passes.h"
#include "llvm/ADT/MapVector.h"

namespace mlir::relax {
#define GEN_PASS_DEF_GRADIENTPASS
#include "relax-mlir/Transforms/Passes.h.inc"
} // namespace mlir::relax

using namespace mlir;
using namespace mlir::relax;

namespace {

constexpr DerivedKind kAdjoint{"gradient", "_adjoint", "adjoint"};
constexpr DerivedKind kForward{"gradient", "_fwd", "forward function"};

/// What the sweep lends the rules of loops and branches: the VJP of a body,
/// by a sweep of its own.
class Pullbacks final : public PullbackBuilder {
public:
  FailureOr<SmallVector<Value>> pullback(OpBuilder &b, Block &body, ValueRange args,
                                         ValueRange resultGrads,
                                         ArrayRef<bool> needsGrad) override;
  FailureOr<SmallVector<Value>> pullbackOps(OpBuilder &b, ArrayRef<Operation *> ops,
                                            ValueRange inputs, ValueRange outputs,
                                            ValueRange outputGrads,
                                            ArrayRef<bool> needsGrad) override;
};

/// The reverse sweep: adjoints accumulated per value, from the seed back to
/// the parameters, one op rule at a time.
class ReverseSweep {
public:
  ReverseSweep(const Activity &activity, ArrayRef<Operation *> bindings, OpBuilder &b,
               Location loc)
      : activity(activity), bindings(bindings), checkpoints(bindings), b(b), loc(loc) {}

  /// Seeds `result` with ones at field `targetIndex` of a tuple (zeros in the
  /// other fields), or with ones.
  void seed(Value result, Type targetType, int64_t targetIndex);
  /// Seeds `result` with `cotangent` (of its type).
  void seed(Value result, Value cotangent) { accumulate(result, cotangent); }
  /// Runs every rule, last binding first; diagnoses every op that has none.
  LogicalResult run();
  /// The adjoint of `v` (zeros when nothing reached it).
  Value adjointOf(Value v) {
    Value g = adjoints.lookup(v);
    return g ? g : buildZeros(b, loc, v.getType());
  }
  /// The adjoint of `v`, null when nothing reached it.
  Value adjointOrNull(Value v) { return adjoints.lookup(v); }

private:
  void accumulate(Value v, Value g) {
    auto [it, inserted] = adjoints.try_emplace(v, g);
    if (!inserted)
      it->second = addAdjoints(b, loc, it->second, g);
  }
  /// The VJP of `op`; failure after a diagnostic.
  LogicalResult visit(Operation *op);

  const Activity &activity;
  ArrayRef<Operation *> bindings;
  CheckpointPlan checkpoints;
  OpBuilder &b;
  Location loc;
  DenseMap<Value, Value> adjoints;
};

void ReverseSweep::seed(Value result, Type targetType, int64_t targetIndex) {
  Value ones = OnesOp::create(b, loc, targetType);
  auto tuple = dyn_cast<TupleType>(result.getType());
  if (!tuple) {
    accumulate(result, ones);
    return;
  }
  SmallVector<Value> fields;
  for (int64_t i = 0, e = tuple.size(); i < e; ++i)
    fields.push_back(i == targetIndex ? ones : buildZeros(b, loc, tuple.getType(i)));
  accumulate(result, TupleOp::create(b, loc, fields));
}

LogicalResult ReverseSweep::run() {
  bool ok = true;
  for (Operation *op : llvm::reverse(bindings))
    ok &= succeeded(visit(op));
  return success(ok);
}

LogicalResult ReverseSweep::visit(Operation *op) {
  // A tensor with no elements carries nothing: its adjoint is zero, and an
  // operand with no elements needs none (rules need not handle empty
  // operands, e.g. a convolution whose input has a size-0 dim).
  SmallVector<Value> resultGrads;
  bool anyGrad = false;
  for (Value r : op->getResults()) {
    Value g = adjoints.lookup(r);
    if (g && (isKnownZero(g) || isEmptyTensor(r)))
      g = Value();
    resultGrads.push_back(g);
    anyGrad |= static_cast<bool>(g);
  }
  SmallVector<bool> needsGrad = llvm::map_to_vector(
      op->getOperands(), [&](Value v) { return activity.isActive(v) && !isEmptyTensor(v); });
  if (!anyGrad ||
      (!llvm::is_contained(needsGrad, true) && !activity.capturesActive.contains(op)))
    return success();
  SmallVector<Value> operandGrads(op->getNumOperands());
  if (isa<RegionGradientOpInterface>(op)) {
    // A loop or a branch: its rule differentiates its bodies through us.
    Pullbacks pullbacks;
    auto rule = cast<RegionGradientOpInterface>(checkpoints.forRule(b, op));
    if (failed(rule.buildVectorJacobianProduct(b, resultGrads, needsGrad, operandGrads,
                                               pullbacks)))
      return failure();
  } else {
    FailureOr<GradientOpInterface> rule = ruleOf(op, activity, Mode::Reverse);
    if (failed(rule))
      return failure();
    rule = cast<GradientOpInterface>(checkpoints.forRule(b, op));
    if (failed(rule->buildVectorJacobianProduct(b, resultGrads, needsGrad, operandGrads)))
      return failure();
  }
  bool ok = true;
  for (auto [operand, g, needed] : llvm::zip(op->getOperands(), operandGrads, needsGrad)) {
    if (!needed || !g)
      continue;
    if (g.getType() != operand.getType()) {
      op->emitError("internal error: the gradient rule of '")
          << op->getName() << "' produced " << g.getType() << " for an operand of type "
          << operand.getType();
      ok = false;
      continue;
    }
    accumulate(operand, g);
  }
  return success(ok);
}

FailureOr<SmallVector<Value>> Pullbacks::pullback(OpBuilder &b, Block &body, ValueRange args,
                                                  ValueRange resultGrads,
                                                  ArrayRef<bool> needsGrad) {
  SmallVector<Operation *> ops;
  SmallVector<Value> outputs = cloneBlockBody(b, body, args, &ops);
  return pullbackOps(b, ops, args, outputs, resultGrads, needsGrad);
}

FailureOr<SmallVector<Value>> Pullbacks::pullbackOps(OpBuilder &b, ArrayRef<Operation *> ops,
                                                     ValueRange inputs, ValueRange outputs,
                                                     ValueRange outputGrads,
                                                     ArrayRef<bool> needsGrad) {
  SmallVector<Value> seeds;
  for (auto [v, needed] : llvm::zip(inputs, needsGrad))
    if (needed)
      seeds.push_back(v);
  Activity activity(ops, seeds);
  Location loc = ops.empty() ? b.getUnknownLoc() : ops.back()->getLoc();
  ReverseSweep sweep(activity, ops, b, loc);
  for (auto [v, g] : llvm::zip(outputs, outputGrads))
    if (g && !isKnownZero(g))
      sweep.seed(v, g);
  if (failed(sweep.run()))
    return failure();
  // A value passed for several inputs gets its adjoint once (the caller adds
  // up what it returns per input).
  SmallVector<Value> grads(inputs.size());
  DenseSet<Value> given;
  for (auto [i, v] : llvm::enumerate(inputs))
    if (needsGrad[i] && given.insert(v).second)
      grads[i] = sweep.adjointOrNull(v);
  return grads;
}

/// The adjoints of `fn`'s parameters `params` (built before `body`'s
/// terminator, zeros for those nothing reached) by the reverse sweep over
/// `body` that `seed` seeds; failure after a diagnostic per op without a rule.
/// `body.results` are read again afterwards (a rule may have replaced the op
/// computing one).
static FailureOr<SmallVector<Value>> sweepBack(func::FuncOp fn, GatheredBody &body,
                                               ArrayRef<int64_t> params,
                                               function_ref<void(ReverseSweep &)> seed) {
  SmallVector<Value> seeds =
      llvm::map_to_vector(params, [&](int64_t p) -> Value { return fn.getArgument(p); });
  Activity activity(body.bindings, seeds);
  OpBuilder b(body.dataflow.getOutput());
  ReverseSweep sweep(activity, body.bindings, b, body.ret.getLoc());
  seed(sweep);
  if (failed(sweep.run()))
    return failure();
  body.refreshResults();
  return llvm::map_to_vector(seeds, [&](Value p) { return sweep.adjointOf(p); });
}

/// `values` (tensors or tuples of them) summed over the processes of the
/// job, or averaged (`mean`): the data-parallel option. The float tensors
/// are packed into one flat buffer per element type (f16 and bf16 in an f32
/// one), each all-reduced by one relax.all_reduce (few large collective
/// calls, as Horovod's tensor fusion and DDP's buckets do); for the mean,
/// each buffer carries a 1 more, whose sum is the number of processes.
static SmallVector<Value> allReduceValues(OpBuilder &b, Location loc, ValueRange values,
                                          bool mean) {
  SmallVector<Value> leaves;
  for (Value v : values)
    vjp::tupleLeaves(b, loc, v, leaves);
  llvm::MapVector<Type, SmallVector<unsigned>> groups;
  auto bufferType = [&](Type element) -> Type {
    return element.isF16() || element.isBF16() ? b.getF32Type() : element;
  };
  for (auto [i, leaf] : llvm::enumerate(leaves)) {
    auto type = cast<RankedTensorType>(leaf.getType());
    groups[bufferType(type.getElementType())].push_back(i);
  }
  SmallVector<Value> reduced(leaves);
  for (auto &[element, members] : groups) {
    SmallVector<Value> pieces;
    int64_t total = 0;
    for (unsigned i : members) {
      auto type = cast<RankedTensorType>(leaves[i].getType());
      Value flat = vjp::reshapeTo(b, loc, leaves[i], {type.getNumElements()});
      pieces.push_back(vjp::astype(b, loc, flat, element));
      total += type.getNumElements();
    }
    if (mean) {
      pieces.push_back(OnesOp::create(b, loc, RankedTensorType::get({1}, element)));
      ++total;
    }
    auto bufferTy = RankedTensorType::get({total}, element);
    Value buffer = pieces.size() == 1 ? pieces.front()
                                      : ConcatOp::create(b, loc, bufferTy, pieces,
                                                         b.getI64IntegerAttr(0))
                                            .getResult();
    Value sum = AllReduceOp::create(b, loc, buffer);
    auto slice = [&](int64_t begin, int64_t end) -> Value {
      return StridedSliceOp::create(b, loc, sum, b.getDenseI64ArrayAttr({0}),
                                    b.getDenseI64ArrayAttr({begin}),
                                    b.getDenseI64ArrayAttr({end}), b.getDenseI64ArrayAttr({1}));
    };
    Value scale;
    if (mean)
      scale = vjp::div(b, loc, vjp::scalarLike(b, loc, sum, 1.0),
                       vjp::reshapeTo(b, loc, slice(total - 1, total), {}));
    int64_t offset = 0;
    for (unsigned i : members) {
      auto type = cast<RankedTensorType>(leaves[i].getType());
      int64_t n = type.getNumElements();
      Value piece = slice(offset, offset + n);
      offset += n;
      if (scale)
        piece = vjp::mul(b, loc, piece, scale);
      reduced[i] = vjp::reshapeTo(b, loc, vjp::astype(b, loc, piece, type.getElementType()),
                                  type.getShape());
    }
  }
  unsigned pos = 0;
  return llvm::map_to_vector(
      values, [&](Value v) { return vjp::fromTupleLeaves(b, loc, v.getType(), reduced, pos); });
}

struct GradientPass : relax::impl::GradientPassBase<GradientPass> {
  using Base::Base;
  void runOnOperation() final;

private:
  /// The parameters to differentiate, from the option or the function's
  /// attribute.
  LogicalResult checkParams(func::FuncOp func, SmallVector<int64_t> &params);
  /// The target (its type and field index), from the option or the
  /// function's attribute.
  LogicalResult checkTarget(func::FuncOp func, Type &targetType, int64_t &targetIndex);
  /// Turns `adjoint` (a clone of `@func`) into the adjoint.
  LogicalResult differentiate(func::FuncOp func, func::FuncOp adjoint);
  /// Turns `fwd` (a clone of `@func`) into `@func_fwd` and adds `@func_bwd`
  /// (to `extra`).
  LogicalResult split(func::FuncOp func, func::FuncOp fwd, SmallVectorImpl<Operation *> &extra);
};

// The function's `relax.target_index` and `relax.require_grads` stand in for
// the options a run leaves out (one run over a file of cases). (The option
// object itself would stream as a character.)
LogicalResult GradientPass::checkTarget(func::FuncOp func, Type &targetType,
                                        int64_t &targetIndex) {
  targetIndex = this->targetIndex;
  if (Attribute attr = func->getAttr(kTargetIndexAttrName); attr && !this->targetIndex.hasValue()) {
    auto index = dyn_cast<IntegerAttr>(attr);
    if (!index)
      return func.emitError(kTargetIndexAttrName)
             << " must be an integer attribute (`relax.target_index = 1`), got " << attr;
    targetIndex = index.getInt();
  }
  if (failed(checkOneResult(func)))
    return failure();
  Type result = func.getResultTypes().front();
  if (auto tuple = dyn_cast<TupleType>(result)) {
    if (targetIndex < 0 || targetIndex >= static_cast<int64_t>(tuple.size()))
      return func.emitError("target-index ")
             << targetIndex << " is out of range: '@" << func.getSymName() << "' returns a tuple of "
             << tuple.size() << " fields";
    targetType = tuple.getType(targetIndex);
    if (isa<TupleType>(targetType))
      return func.emitError("target-index ")
             << targetIndex << " points at a tuple " << targetType
             << "; the target must be a 0-d float tensor";
  } else {
    if (targetIndex != 0)
      return func.emitError("target-index ")
             << targetIndex << " given, but '@" << func.getSymName()
             << "' returns a single value; target-index must be 0";
    targetType = result;
  }
  auto target = dyn_cast<RankedTensorType>(targetType);
  if (!target || target.getRank() != 0 || !isRelaxFloatType(target.getElementType()))
    return func.emitError("the target must be a 0-d float tensor (a scalar loss), got ")
           << targetType;
  return success();
}

LogicalResult GradientPass::checkParams(func::FuncOp func, SmallVector<int64_t> &params) {
  SmallVector<int64_t> required(requireGrads.begin(), requireGrads.end());
  if (Attribute attr = func->getAttr(kRequireGradsAttrName);
      attr && !requireGrads.hasValue()) {
    auto indices = dyn_cast<DenseI64ArrayAttr>(attr);
    if (!indices || indices.empty())
      return func.emitError(kRequireGradsAttrName)
             << " must be a non-empty array of parameter indices "
                "(`relax.require_grads = array<i64: 0, 2>`), got "
             << attr;
    required.assign(indices.asArrayRef().begin(), indices.asArrayRef().end());
  }
  return selectParameters(func, required, "require-grads", "gradients", params);
}

LogicalResult GradientPass::differentiate(func::FuncOp func, func::FuncOp adjoint) {
  Type targetType;
  int64_t targetIndex = 0;
  SmallVector<int64_t> params;
  if (failed(checkTarget(func, targetType, targetIndex)) || failed(checkParams(func, params)))
    return failure();
  FailureOr<GatheredBody> body = gatherBody(adjoint, func.getSymName(), kAdjoint);
  if (failed(body))
    return failure();
  Value ret = body->results.front();
  FailureOr<SmallVector<Value>> grads = sweepBack(
      adjoint, *body, params, [&](ReverseSweep &s) { s.seed(ret, targetType, targetIndex); });
  if (failed(grads))
    return failure();
  ret = body->results.front();

  // Result: (original result, (grad...)), in require-grads order; with
  // data-parallel, the target and the gradients reduced over the processes.
  Location loc = body->ret.getLoc();
  OpBuilder b(body->dataflow.getOutput());
  if (dataParallel != "none") {
    SmallVector<Value> reduced(*grads);
    auto tuple = dyn_cast<TupleType>(ret.getType());
    Value target = tuple ? b.createOrFold<TupleGetItemOp>(loc, ret, targetIndex) : ret;
    reduced.push_back(target);
    reduced = allReduceValues(b, loc, reduced, dataParallel == "mean");
    target = reduced.pop_back_val();
    *grads = reduced;
    if (tuple) {
      SmallVector<Value> fields;
      for (int64_t i = 0, e = tuple.size(); i < e; ++i)
        fields.push_back(i == targetIndex ? target : b.createOrFold<TupleGetItemOp>(loc, ret, i));
      ret = TupleOp::create(b, loc, fields);
    } else {
      ret = target;
    }
  }
  Value gradTuple = TupleOp::create(b, loc, *grads);
  finishBody(adjoint, *body, TupleOp::create(b, loc, ValueRange{ret, gradTuple}),
             /*removeMarkers=*/true);
  return success();
}

LogicalResult GradientPass::split(func::FuncOp func, func::FuncOp fwd,
                                  SmallVectorImpl<Operation *> &extra) {
  StringRef name = func.getSymName();
  std::string bwdName = (name + "_bwd").str();
  auto module = func->getParentOfType<ModuleOp>();
  if (failed(checkNameIsFree(module, bwdName)))
    return failure();
  if (failed(checkOneResult(func)))
    return failure();
  Type result = func.getResultTypes().front();
  if (!carriesGradient(result))
    return func.emitError("cannot differentiate '@")
           << name << "' in vjp mode: its result " << result
           << " holds no float tensor to pull a cotangent back from";
  SmallVector<int64_t> params;
  if (failed(checkParams(func, params)))
    return failure();
  FailureOr<GatheredBody> body = gatherBody(fwd, name, kForward);
  if (failed(body))
    return failure();
  Value ret = body->results.front();
  // The combined function reads the cotangent as an extra parameter, which
  // becomes @bwd's last.
  FailureOr<BlockArgument> cotangent =
      appendParameter(fwd, result, DictionaryAttr::get(fwd.getContext()));
  if (failed(cotangent))
    return failure();
  FailureOr<SmallVector<Value>> grads =
      sweepBack(fwd, *body, params, [&](ReverseSweep &s) { s.seed(ret, *cotangent); });
  if (failed(grads))
    return failure();
  ret = body->results.front();
  if (dataParallel != "none") {
    OpBuilder b(body->dataflow.getOutput());
    *grads = allReduceValues(b, body->ret.getLoc(), *grads, dataParallel == "mean");
  }

  // The backward half: the ops after the last forward binding.
  Block &block = body->dataflow.getBody().front();
  SmallVector<Operation *> backward;
  for (Operation *op = body->bindings.empty() ? &block.front()
                                              : body->bindings.back()->getNextNode();
       op != block.getTerminator(); op = op->getNextNode())
    backward.push_back(op);
  DerivativeHalf half = collectHalf(backward, {*cotangent}, *grads);
  extra.push_back(buildHalfFunction(fwd, bwdName, half, {*cotangent}, *grads, /*tuple=*/true));
  finishPrimalPart(fwd, *body, half, {*cotangent}, ret);
  return success();
}

void GradientPass::runOnOperation() {
  if (mode != "adjoint" && mode != "vjp") {
    getOperation().emitError("gradient: mode must be 'adjoint' or 'vjp', got '") << mode << "'";
    return signalPassFailure();
  }
  if (dataParallel != "none" && dataParallel != "mean" && dataParallel != "sum") {
    getOperation().emitError("gradient: data-parallel must be 'none', 'mean' or 'sum', got '")
        << dataParallel << "'";
    return signalPassFailure();
  }
  bool vjp = mode == "vjp";
  auto derive = [&](func::FuncOp func, func::FuncOp derived,
                    SmallVectorImpl<Operation *> &extra) {
    return vjp ? split(func, derived, extra) : differentiate(func, derived);
  };
  SmallVector<std::string> names(funcNames.begin(), funcNames.end());
  if (failed(deriveFunctions(getOperation(), names, vjp ? kForward : kAdjoint, derive)))
    signalPassFailure();
}

} // namespace
