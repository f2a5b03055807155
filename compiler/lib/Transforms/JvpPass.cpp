//===- JvpPass.cpp - forward-mode AD of relax functions -------------------===//
//
// Adds `@<func>_jvp(primals..., tangents...)`: the clone's bindings gathered
// into one dataflow block (Differentiation.h), one tangent parameter per
// differentiated parameter, and a forward sweep that asks each op depending
// on them for its Jacobian-vector product through GradientOpInterface,
// building each tangent right after the op it differentiates. The pass knows
// no op by name.
//
//===----------------------------------------------------------------------===//

#include "Differentiation.h"

#include "relax-mlir/Dialect/Relax/IR/GradientUtils.h"
#include "relax-mlir/Transforms/Passes.h"

namespace mlir::relax {
#define GEN_PASS_DEF_JVPPASS
#include "relax-mlir/Transforms/Passes.h.inc"
} // namespace mlir::relax

using namespace mlir;
using namespace mlir::relax;

namespace {

constexpr DerivedKind kJvp{"jvp", "_jvp", "JVP function"};
constexpr DerivedKind kPrimal{"jvp", "_primal", "primal function"};

/// What the sweep lends the rules of loops and branches: the JVP of a body,
/// by a sweep of its own.
class Pushforwards final : public PushforwardBuilder {
public:
  LogicalResult pushforward(OpBuilder &b, Block &body, ValueRange args, ValueRange argTangents,
                            SmallVectorImpl<Value> &results,
                            SmallVectorImpl<Value> &resultTangents) override;
};

/// The forward sweep: a tangent per active value, first binding first.
class ForwardSweep {
public:
  explicit ForwardSweep(const Activity &activity) : activity(activity) {}

  void seed(Value v, Value tangent) { tangents[v] = tangent; }
  /// Runs the rule of every op that reads a tangent; diagnoses every op that
  /// has none.
  LogicalResult run(ArrayRef<Operation *> bindings);
  /// The tangent of `v` (zeros of its type when it has none), built at `b`.
  Value tangentOf(OpBuilder &b, Location loc, Value v) {
    return tangentOrZeros(b, loc, lookup(v), v);
  }
  /// The tangent of `v`, null when it is zero.
  Value lookup(Value v) {
    Value t = tangents.lookup(v);
    return t && !isKnownZero(t) && !isEmptyTensor(v) ? t : Value();
  }

private:
  LogicalResult visit(Operation *op);

  const Activity &activity;
  DenseMap<Value, Value> tangents;
};

LogicalResult ForwardSweep::run(ArrayRef<Operation *> bindings) {
  bool ok = true;
  for (Operation *op : bindings)
    ok &= succeeded(visit(op));
  return success(ok);
}

LogicalResult ForwardSweep::visit(Operation *op) {
  SmallVector<Value> operandTangents =
      llvm::map_to_vector(op->getOperands(), [&](Value v) { return lookup(v); });
  bool anyTangent = llvm::any_of(operandTangents, [](Value t) { return static_cast<bool>(t); });
  bool producesTangent = llvm::any_of(op->getResults(), [&](Value r) {
    return activity.isActive(r) && !isEmptyTensor(r);
  });
  if (!producesTangent || (!anyTangent && !activity.capturesActive.contains(op)))
    return success();
  OpBuilder b(op->getContext());
  b.setInsertionPointAfter(op);
  SmallVector<Value> resultTangents(op->getNumResults());
  if (auto regionRule = dyn_cast<RegionGradientOpInterface>(op)) {
    // A loop or a branch: its rule differentiates its bodies through us.
    Pushforwards pushforwards;
    if (failed(regionRule.buildJacobianVectorProduct(b, operandTangents, resultTangents,
                                                     pushforwards)))
      return failure();
  } else {
    FailureOr<GradientOpInterface> rule = ruleOf(op, activity, Mode::Forward);
    if (failed(rule))
      return failure();
    if (failed(rule->buildJacobianVectorProduct(b, operandTangents, resultTangents)))
      return failure();
  }
  bool ok = true;
  for (auto [r, t] : llvm::zip(op->getResults(), resultTangents)) {
    if (!t)
      continue;
    if (t.getType() != r.getType()) {
      op->emitError("internal error: the tangent rule of '")
          << op->getName() << "' produced " << t.getType() << " for a result of type "
          << r.getType();
      ok = false;
      continue;
    }
    tangents[r] = t;
  }
  return success(ok);
}

LogicalResult Pushforwards::pushforward(OpBuilder &b, Block &body, ValueRange args,
                                        ValueRange argTangents, SmallVectorImpl<Value> &results,
                                        SmallVectorImpl<Value> &resultTangents) {
  SmallVector<Operation *> ops;
  SmallVector<Value> outputs = cloneBlockBody(b, body, args, &ops);
  SmallVector<Value> seeds;
  for (auto [v, t] : llvm::zip(args, argTangents))
    if (t)
      seeds.push_back(v);
  Activity activity(ops, seeds);
  ForwardSweep sweep(activity);
  for (auto [v, t] : llvm::zip(args, argTangents))
    if (t)
      sweep.seed(v, t);
  if (failed(sweep.run(ops)))
    return failure();
  for (Value v : outputs) {
    results.push_back(v);
    resultTangents.push_back(sweep.lookup(v));
  }
  return success();
}

struct JvpPass : relax::impl::JvpPassBase<JvpPass> {
  using Base::Base;
  void runOnOperation() final;

private:
  /// The parameters that get tangents, from the option, checked.
  LogicalResult checkOptions(func::FuncOp func, SmallVector<int64_t> &params);
  /// Turns `derived` (a clone of `@func`) into `@func_jvp`, or with
  /// `linearize` into `@func_primal`, adding `@func_linear` to `extra`.
  LogicalResult differentiate(func::FuncOp func, func::FuncOp derived, bool linearize,
                              SmallVectorImpl<Operation *> &extra);
};

LogicalResult JvpPass::checkOptions(func::FuncOp func, SmallVector<int64_t> &params) {
  if (func.getNumResults() == 0)
    return func.emitError("cannot differentiate '@")
           << func.getSymName() << "': it returns nothing";
  SmallVector<int64_t> wanted(wrt.begin(), wrt.end());
  return selectParameters(func, wanted, "wrt", "tangents", params);
}

/// The `relax.name` of a tangent parameter: its primal's name with `_dot`.
static DictionaryAttr tangentArgAttrs(func::FuncOp func, int64_t p) {
  auto name = func.getArgAttrOfType<StringAttr>(p, "relax.name");
  if (!name)
    return DictionaryAttr::get(func.getContext());
  Builder b(func.getContext());
  return b.getDictionaryAttr(
      b.getNamedAttr("relax.name", b.getStringAttr(name.getValue() + "_dot")));
}

/// The linear half of a JVP function: every binding that depends on a tangent
/// (the tangent bindings), reading `tangents` and returning `outputTangents`.
static DerivativeHalf linearHalf(GatheredBody &body, ArrayRef<Value> tangents,
                                 ValueRange outputTangents) {
  DenseSet<Value> dependent(tangents.begin(), tangents.end());
  SmallVector<Operation *> linear;
  for (Operation &op : body.dataflow.getBody().front().without_terminator()) {
    if (llvm::none_of(op.getOperands(), [&](Value v) { return dependent.contains(v); }))
      continue;
    linear.push_back(&op);
    dependent.insert(op.getResults().begin(), op.getResults().end());
  }
  return collectHalf(linear, tangents, outputTangents);
}

LogicalResult JvpPass::differentiate(func::FuncOp func, func::FuncOp derived, bool linearize,
                                     SmallVectorImpl<Operation *> &extra) {
  SmallVector<int64_t> params;
  if (failed(checkOptions(func, params)))
    return failure();
  std::string linearName = (func.getSymName() + "_linear").str();
  auto module = func->getParentOfType<ModuleOp>();
  if (linearize && failed(checkNameIsFree(module, linearName)))
    return failure();
  FailureOr<GatheredBody> body = gatherBody(derived, func.getSymName(), kJvp);
  if (failed(body))
    return failure();
  SmallVector<Value> seeds =
      llvm::map_to_vector(params, [&](int64_t p) -> Value { return derived.getArgument(p); });
  Activity activity(body->bindings, seeds);

  ForwardSweep sweep(activity);
  SmallVector<Value> tangents;
  for (auto [p, seed] : llvm::zip(params, seeds)) {
    FailureOr<BlockArgument> tangent =
        appendParameter(derived, seed.getType(), tangentArgAttrs(derived, p));
    if (failed(tangent))
      return failure();
    sweep.seed(seed, *tangent);
    tangents.push_back(*tangent);
  }
  if (failed(sweep.run(body->bindings)))
    return failure();

  Location loc = body->ret.getLoc();
  OpBuilder b(body->dataflow.getOutput());
  SmallVector<Value> outputTangents =
      llvm::map_to_vector(body->results, [&](Value v) { return sweep.tangentOf(b, loc, v); });
  // One output as itself, several as their tuple.
  bool several = body->results.size() != 1;
  auto pack = [&](ValueRange values) -> Value {
    return several ? TupleOp::create(b, loc, values).getResult() : values.front();
  };
  if (linearize) {
    DerivativeHalf half = linearHalf(*body, tangents, outputTangents);
    extra.push_back(
        buildHalfFunction(derived, linearName, half, tangents, outputTangents, several));
    finishPrimalPart(derived, *body, half, tangents, pack(body->results));
    return success();
  }
  Value outputs = pack(body->results);
  finishBody(derived, *body, TupleOp::create(b, loc, ValueRange{outputs, pack(outputTangents)}),
             /*removeMarkers=*/false);
  return success();
}

void JvpPass::runOnOperation() {
  if (mode != "jvp" && mode != "linearize") {
    getOperation().emitError("jvp: mode must be 'jvp' or 'linearize', got '") << mode << "'";
    return signalPassFailure();
  }
  bool linearize = mode == "linearize";
  SmallVector<std::string> names(funcNames.begin(), funcNames.end());
  auto derive = [&](func::FuncOp func, func::FuncOp derived,
                    SmallVectorImpl<Operation *> &extra) {
    return differentiate(func, derived, linearize, extra);
  };
  if (failed(deriveFunctions(getOperation(), names, linearize ? kPrimal : kJvp, derive)))
    signalPassFailure();
}

} // namespace
