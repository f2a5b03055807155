//===- GradientPass.cpp - reverse-mode AD of one relax function -----------===//
//
// Clones the function into `@<func>_adjoint`, gathers its bindings into its one
// dataflow block, seeds the target with ones and walks the bindings backwards,
// asking each op for its vector-Jacobian product through GradientOpInterface.
// The pass knows no op by name; the adjoint algebra lives in GradientUtils.
//
//===----------------------------------------------------------------------===//

#include "relax-mlir/Dialect/Relax/IR/GradientUtils.h"
#include "relax-mlir/Transforms/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Interfaces/CallInterfaces.h"
#include "mlir/Transforms/InliningUtils.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"
#include "mlir/Transforms/RegionUtils.h"
#include "mlir/IR/IRMapping.h"
#include "llvm/ADT/MapVector.h"
#include "llvm/ADT/SetVector.h"

namespace mlir::relax {
#define GEN_PASS_DEF_GRADIENTPASS
#include "relax-mlir/Transforms/Passes.h.inc"
} // namespace mlir::relax

using namespace mlir;
using namespace mlir::relax;

namespace {

/// What the function's body looks like once checked.
struct BodyShape {
  DataflowOp dataflow;
  func::ReturnOp ret;
};

/// Float tensors, and tuples holding one somewhere (their integer fields get
/// zero adjoints): the values through which gradients flow.
static bool carriesGradient(Type type) {
  if (auto tuple = dyn_cast<TupleType>(type))
    return llvm::any_of(tuple.getTypes(), carriesGradient);
  return isDifferentiableType(type);
}

/// Ops allowed in the function body outside its dataflow block: constants and
/// the tuple glue that builds or reads the returned value.
static bool isGlueOp(Operation *op) {
  return op->hasTrait<OpTrait::ConstantLike>() || isa<TupleOp, TupleGetItemOp>(op);
}

/// Checks the body of `func`; diagnostics name the function as `name`.
static FailureOr<BodyShape> checkBody(func::FuncOp func, StringRef name) {
  if (!func.getBody().hasOneBlock())
    return func.emitError("cannot differentiate '@")
           << name << "': its body has more than one block";
  Block &body = func.getBody().front();
  if (body.getOps<DataflowOp>().empty() &&
      llvm::any_of(body.without_terminator(), [](Operation &op) { return !isGlueOp(&op); }))
    return func.emitError("cannot differentiate '@")
           << name
           << "': its bindings are not in a relax.dataflow block; gather them into one "
              "with the relax-convert-to-dataflow pass first (relax_mlir.gradient does)";
  BodyShape shape;
  bool ok = true;
  for (Operation &op : body) {
    if (auto df = dyn_cast<DataflowOp>(op)) {
      if (shape.dataflow) {
        op.emitError("a second relax.dataflow block in '@")
            << name
            << "': the gradient pass differentiates exactly one dataflow block";
        ok = false;
      }
      shape.dataflow = df;
    } else if (auto ret = dyn_cast<func::ReturnOp>(op)) {
      shape.ret = ret;
    } else if (!isGlueOp(&op)) {
      op.emitError("binding outside the relax.dataflow block of '@")
          << name
          << "': the gradient pass needs every binding in one dataflow block";
      ok = false;
    }
  }
  if (!ok)
    return failure();
  if (!shape.dataflow) {
    // No bindings at all: the result is a parameter or a constant (perhaps in
    // a tuple built by glue ops). Differentiate an empty block: the glue is
    // gathered into it and the adjoint is the seed itself (ones for a returned
    // parameter, zeros for the others).
    OpBuilder b(shape.ret);
    shape.dataflow = DataflowOp::create(b, shape.ret.getLoc(), TypeRange{});
    b.createBlock(&shape.dataflow.getBody());
    OutputOp::create(b, shape.ret.getLoc(), ValueRange{});
  }
  return shape;
}

/// Inlines every call in `func` to a function of the module that has a body
/// (and the calls those bodies bring in), so that a function calling another's
/// adjoint (a Hessian-vector product) can be differentiated; the callee's
/// dataflow block lands nested in the caller's and is spliced in later. Calls
/// to declarations stay (and are reported if they are on the path).
static LogicalResult inlineCalls(func::FuncOp func, StringRef name) {
  auto module = func->getParentOfType<ModuleOp>();
  InlinerInterface interface(func.getContext());
  auto cloneCallback = [](OpBuilder &, Region *src, Block *inlineBlock, Block *postInsertBlock,
                          IRMapping &mapper, bool shouldClone) {
    Region *into = inlineBlock->getParent();
    if (shouldClone)
      src->cloneInto(into, postInsertBlock->getIterator(), mapper);
    else
      into->getBlocks().splice(postInsertBlock->getIterator(), src->getBlocks(), src->begin(),
                               src->end());
  };
  constexpr int kMaxDepth = 64;
  for (int depth = 0;; ++depth) {
    SmallVector<std::pair<func::CallOp, func::FuncOp>> calls;
    func.walk([&](func::CallOp call) {
      auto callee = module.lookupSymbol<func::FuncOp>(call.getCallee());
      if (callee && !callee.isExternal())
        calls.push_back({call, callee});
    });
    if (calls.empty())
      return success();
    for (auto [call, callee] : calls) {
      if (callee.getSymName() == name || depth == kMaxDepth)
        return call.emitError("cannot differentiate '@")
               << name << "': the call to '@" << callee.getSymName()
               << "' is recursive (calls are inlined before differentiating)";
      if (failed(inlineCall(interface, cloneCallback, call, callee, &callee.getBody())))
        return call.emitError("cannot inline the call to '@")
               << callee.getSymName() << "' before differentiating '@" << name << "'";
      call.erase();
    }
  }
}

/// Moves the glue ops around the dataflow block into it (keeping their order)
/// and inlines dataflow blocks nested in it, so that one block holds every
/// binding; returns the returned value as seen inside the block.
static Value gatherBindings(BodyShape &shape) {
  DataflowOp df = shape.dataflow;
  Block &body = df.getBody().front();
  OutputOp out = df.getOutput();
  Block *parent = df->getBlock();
  Operation *firstBinding = &body.front();
  for (Operation &op : llvm::make_early_inc_range(*parent)) {
    if (&op == df.getOperation() || &op == shape.ret.getOperation())
      continue;
    op.moveBefore(op.isBeforeInBlock(df) ? firstBinding : out.getOperation());
  }
  for (auto [res, yielded] : llvm::zip(df.getResults(), out.getOperands()))
    res.replaceUsesWithIf(yielded, [&](OpOperand &use) { return df->isAncestor(use.getOwner()); });
  // A nested dataflow block only groups bindings: splice them in its place.
  inlineNestedDataflows(df);
  Value ret = shape.ret.getOperand(0);
  if (auto res = dyn_cast<OpResult>(ret); res && res.getOwner() == df)
    ret = out.getOperand(res.getResultNumber());
  return ret;
}

/// True when an op nested in `op`'s regions reads one of `active` from above.
static bool capturesActiveValue(Operation *op, const DenseSet<Value> &active) {
  if (op->getNumRegions() == 0)
    return false;
  llvm::SetVector<Value> captured;
  getUsedValuesDefinedAbove(op->getRegions(), captured);
  return llvm::any_of(captured, [&](Value v) { return active.contains(v); });
}

/// Checkpointed segments (Chen et al. 2016). Bindings computed from a
/// `relax.start_checkpoint` value, up to the `relax.end_checkpoint` values, are
/// not kept for the backward pass: the first time a gradient rule of a segment
/// runs, the whole segment is recomputed at that point from the kept values,
/// and the rules of its bindings read the recomputed copies.
class CheckpointPlan {
public:
  explicit CheckpointPlan(ArrayRef<Operation *> bindings) {
    // Nesting depth of each value: start markers open a level, end markers
    // close one. A binding at depth > 0 belongs to a segment; the start of the
    // outermost level (its input) and the end back to depth 0 (its output) are
    // kept. An inner pair of markers stays inside the outer segment.
    DenseMap<Value, int64_t> depth;
    DenseMap<Operation *, unsigned> segmentOf;
    for (Operation *op : bindings) {
      int64_t in = 0;
      for (Value v : op->getOperands())
        in = std::max(in, depth.lookup(v));
      int64_t outDepth = in;
      bool inSegment = in > 0;
      if (isa<StartCheckpointOp>(op)) {
        outDepth = in + 1;
      } else if (isa<EndCheckpointOp>(op)) {
        outDepth = std::max<int64_t>(in - 1, 0);
        inSegment = outDepth > 0;
      }
      for (Value r : op->getResults())
        depth[r] = outDepth;
      if (!inSegment)
        continue;
      SmallVector<unsigned> joined;
      for (Value v : op->getOperands()) {
        auto it = segmentOf.find(v.getDefiningOp());
        if (it != segmentOf.end())
          joined.push_back(find(it->second));
      }
      unsigned seg = joined.empty() ? makeSegment() : joined.front();
      for (unsigned other : joined)
        parent[find(other)] = find(seg);
      segmentOf[op] = seg;
    }
    for (Operation *op : bindings) {
      auto it = segmentOf.find(op);
      if (it != segmentOf.end())
        segments[find(it->second)].push_back(op);
    }
    for (auto &[seg, ops] : segments)
      for (Operation *op : ops)
        segmentOfOp[op] = seg;
  }

  /// The op whose operands and results the rule of `op` must read: `op`, or its
  /// recomputed copy (built at `b`'s insertion point on first need).
  Operation *forRule(OpBuilder &b, Operation *op) {
    auto it = segmentOfOp.find(op);
    if (it == segmentOfOp.end() || isa<StartCheckpointOp, EndCheckpointOp>(op))
      return op;
    materialize(b, it->second);
    return copies.lookup(op);
  }

private:
  unsigned makeSegment() {
    parent.push_back(parent.size());
    return parent.size() - 1;
  }
  unsigned find(unsigned s) {
    while (parent[s] != s)
      s = parent[s] = parent[parent[s]];
    return s;
  }

  /// The value a recomputed binding reads in place of `v`.
  Value recomputed(OpBuilder &b, Value v) {
    Operation *def = v.getDefiningOp();
    auto it = def ? segmentOfOp.find(def) : segmentOfOp.end();
    // A segment input reads the kept value; a marker inside a segment is an
    // identity on the recomputed value.
    if (isa_and_nonnull<StartCheckpointOp>(def) ||
        (it != segmentOfOp.end() && isa<EndCheckpointOp>(def)))
      return recomputed(b, def->getOperand(0));
    if (it == segmentOfOp.end())
      return v;
    materialize(b, it->second);
    return copies.lookup(def)->getResult(cast<OpResult>(v).getResultNumber());
  }

  void materialize(OpBuilder &b, unsigned seg) {
    if (!materialized.insert(seg).second)
      return;
    for (Operation *op : segments[seg]) {
      if (isa<StartCheckpointOp, EndCheckpointOp>(op))
        continue;
      IRMapping mapping;
      for (Value v : op->getOperands())
        mapping.map(v, recomputed(b, v));
      Operation *copy = b.clone(*op, mapping);
      copy->setAttr("relax.recomputed", b.getUnitAttr());
      copies[op] = copy;
    }
  }

  SmallVector<unsigned> parent;
  llvm::MapVector<unsigned, SmallVector<Operation *>> segments;
  DenseMap<Operation *, unsigned> segmentOfOp;
  DenseMap<Operation *, Operation *> copies;
  DenseSet<unsigned> materialized;
};

/// The function attributes that stand in for the options.
constexpr llvm::StringLiteral kTargetIndexAttrName = "relax.target_index";
constexpr llvm::StringLiteral kRequireGradsAttrName = "relax.require_grads";

struct GradientPass : relax::impl::GradientPassBase<GradientPass> {
  using Base::Base;
  void runOnOperation() final;

private:
  /// Adds `<funcName>_adjoint`; on failure leaves the module as it was. A
  /// declaration the adjoint replaces is unlinked into `replaced` (with the
  /// op it followed) so that a later failure can put it back.
  LogicalResult differentiateFunction(ModuleOp module, StringRef funcName,
                                      SmallVectorImpl<std::pair<Operation *, Operation *>> &replaced);
  /// The target (its type and field index) and the parameters to
  /// differentiate, from the options or the function's attributes.
  LogicalResult checkOptions(func::FuncOp func, Type &targetType, int64_t &targetIndex,
                             SmallVector<int64_t> &params);
  LogicalResult differentiate(func::FuncOp adjoint, Type targetType, int64_t targetIndex,
                              ArrayRef<int64_t> params);
};

LogicalResult GradientPass::checkOptions(func::FuncOp func, Type &targetType,
                                         int64_t &targetIndex, SmallVector<int64_t> &params) {
  // The function's `relax.target_index` and `relax.require_grads` stand in
  // for the options a run leaves out (one run over a file of cases).
  // (The option object itself would stream as a character.)
  targetIndex = this->targetIndex;
  if (Attribute attr = func->getAttr(kTargetIndexAttrName); attr && !this->targetIndex.hasValue()) {
    auto index = dyn_cast<IntegerAttr>(attr);
    if (!index)
      return func.emitError(kTargetIndexAttrName)
             << " must be an integer attribute (`relax.target_index = 1`), got " << attr;
    targetIndex = index.getInt();
  }
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
  ArrayRef<Type> results = func.getFunctionType().getResults();
  if (results.size() != 1)
    return func.emitError("cannot differentiate '@")
           << func.getSymName() << "': it must return exactly one value, not " << results.size();
  if (auto tuple = dyn_cast<TupleType>(results[0])) {
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
    targetType = results[0];
  }
  auto target = dyn_cast<RankedTensorType>(targetType);
  if (!target || target.getRank() != 0 || !isRelaxFloatType(target.getElementType()))
    return func.emitError("the target must be a 0-d float tensor (a scalar loss), got ")
           << targetType;

  int64_t numArgs = func.getNumArguments();
  if (required.empty()) {
    for (int64_t i = 0; i < numArgs; ++i) {
      Type type = func.getArgument(i).getType();
      // Integer parameters are skipped; a type no relax value has is an error
      // (its zero gradient could not even be built).
      if (!isRelaxValueType(type))
        return func.emitError("cannot differentiate '@")
               << func.getSymName() << "': parameter " << i << " has type " << type
               << ", which is no relax value type (static-shape tensors of f16, bf16, f32, "
                  "f64, i1, i32 or i64, and tuples of them)";
      if (isDifferentiableType(type))
        params.push_back(i);
    }
    return success();
  }
  for (int64_t p : required) {
    if (p < 0 || p >= numArgs)
      return func.emitError("require-grads index ")
             << p << " is out of range: '@" << func.getSymName() << "' has " << numArgs
             << " parameters";
    if (llvm::is_contained(params, p))
      return func.emitError("require-grads lists parameter ") << p << " twice";
    Type type = func.getArgument(p).getType();
    if (!isDifferentiableType(type))
      return func.emitError("require-grads: parameter ")
             << p << " has type " << type
             << "; only float tensors (and tuples of them) have gradients";
    params.push_back(p);
  }
  return success();
}

LogicalResult GradientPass::differentiate(func::FuncOp adjoint, Type targetType,
                                          int64_t targetIndex, ArrayRef<int64_t> params) {
  StringRef original = adjoint.getSymName().drop_back(StringRef("_adjoint").size());
  if (failed(inlineCalls(adjoint, original)))
    return failure();
  FailureOr<BodyShape> shape = checkBody(adjoint, original);
  if (failed(shape))
    return failure();
  Value ret = gatherBindings(*shape);
  DataflowOp df = shape->dataflow;
  Block &body = df.getBody().front();
  OutputOp out = df.getOutput();
  Location loc = shape->ret.getLoc();

  // Values that depend on a required parameter: only they need adjoints.
  DenseSet<Value> active;
  for (int64_t p : params)
    active.insert(adjoint.getArgument(p));
  // Values read inside an op's regions count like operands: an op computing
  // its result from a captured active value is on the path too.
  SmallVector<Operation *> bindings;
  DenseSet<Operation *> capturesActive;
  for (Operation &op : body.without_terminator()) {
    bindings.push_back(&op);
    bool reads = llvm::any_of(op.getOperands(), [&](Value v) { return active.contains(v); });
    if (capturesActiveValue(&op, active)) {
      capturesActive.insert(&op);
      reads = true;
    }
    if (reads)
      for (Value r : op.getResults())
        if (carriesGradient(r.getType()))
          active.insert(r);
  }

  OpBuilder b(out);
  DenseMap<Value, Value> adjoints;
  auto accumulate = [&](Value v, Value g) {
    auto [it, inserted] = adjoints.try_emplace(v, g);
    if (!inserted)
      it->second = addAdjoints(b, loc, it->second, g);
  };

  // Seed: ones for the target, zeros for the other fields of a tuple result.
  Value ones = OnesOp::create(b, loc, targetType);
  if (auto tuple = dyn_cast<TupleType>(ret.getType())) {
    SmallVector<Value> fields;
    for (int64_t i = 0, e = tuple.size(); i < e; ++i)
      fields.push_back(i == targetIndex ? ones : buildZeros(b, loc, tuple.getType(i)));
    accumulate(ret, TupleOp::create(b, loc, fields));
  } else {
    accumulate(ret, ones);
  }

  CheckpointPlan checkpoints(bindings);
  bool ok = true;
  for (Operation *op : llvm::reverse(bindings)) {
    SmallVector<Value> resultGrads;
    bool anyGrad = false;
    // A tensor with no elements carries nothing: its adjoint is zero, and an
    // operand with no elements needs none (rules need not handle empty
    // operands, e.g. a convolution whose input has a size-0 dim).
    auto isEmptyTensor = [](Value v) {
      auto t = dyn_cast<RankedTensorType>(v.getType());
      return t && t.hasStaticShape() && t.getNumElements() == 0;
    };
    for (Value r : op->getResults()) {
      Value g = adjoints.lookup(r);
      if (g && (isKnownZero(g) || isEmptyTensor(r)))
        g = Value();
      resultGrads.push_back(g);
      anyGrad |= static_cast<bool>(g);
    }
    SmallVector<bool> needsGrad = llvm::map_to_vector(
        op->getOperands(), [&](Value v) { return active.contains(v) && !isEmptyTensor(v); });
    bool captures = capturesActive.contains(op);
    if (!anyGrad || (!llvm::is_contained(needsGrad, true) && !captures))
      continue;
    if (captures) {
      op->emitError("'") << op->getName()
                         << "' is on the path to the target through values its regions "
                            "read; the gradient pass does not differentiate through regions";
      ok = false;
      continue;
    }
    if (auto call = dyn_cast<CallOpInterface>(op)) {
      op->emitError("call on the path to the target: the callee has no body to inline "
                    "and differentiate");
      ok = false;
      continue;
    }
    auto rule = dyn_cast<GradientOpInterface>(op);
    if (!rule) {
      op->emitError("'") << op->getName()
                         << "' is on the path to the target but has no gradient rule";
      ok = false;
      continue;
    }
    SmallVector<Value> operandGrads(op->getNumOperands());
    b.setInsertionPoint(out);
    rule = cast<GradientOpInterface>(checkpoints.forRule(b, op));
    if (failed(rule.buildVectorJacobianProduct(b, resultGrads, needsGrad, operandGrads))) {
      ok = false;
      continue;
    }
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
  }
  if (!ok)
    return failure();

  // Result: (original result, (grad...)), in require-grads order.
  b.setInsertionPoint(out);
  SmallVector<Value> grads;
  for (int64_t p : params) {
    BlockArgument arg = adjoint.getArgument(p);
    Value g = adjoints.lookup(arg);
    grads.push_back(g ? g : buildZeros(b, loc, arg.getType()));
  }
  Value gradTuple = TupleOp::create(b, loc, grads);
  Value result = TupleOp::create(b, loc, ValueRange{ret, gradTuple});

  b.setInsertionPoint(df);
  auto newDf = DataflowOp::create(b, df.getLoc(), TypeRange{result.getType()});
  newDf.getBody().takeBody(df.getBody());
  out.getOperandsMutable().assign(result);
  shape->ret.getOperandsMutable().assign(newDf.getResult(0));
  df.erase();
  removeCheckpointMarkers(newDf);
  adjoint.setFunctionType(
      FunctionType::get(adjoint.getContext(), adjoint.getArgumentTypes(), {result.getType()}));
  adjoint.removeResAttrsAttr();

  // Fold tuple accesses and additions of zeros; drop bindings nothing uses.
  RewritePatternSet patterns(adjoint.getContext());
  populateRelaxCanonicalizationPatterns(patterns);
  (void)applyPatternsGreedily(adjoint, std::move(patterns),
                              GreedyRewriteConfig().enableConstantCSE(false));
  return success();
}

void GradientPass::runOnOperation() {
  ModuleOp module = getOperation();
  // Names may be spaced (`func={a, b}`, a list continued over lines).
  SmallVector<std::string> names;
  for (const std::string &name : funcNames)
    names.push_back(StringRef(name).trim().str());
  if (names.empty())
    names.push_back("main");
  // Differentiate each function in turn; if one fails, the adjoints already
  // added in this run are removed again, so the module is left as it was.
  SmallVector<std::string> added;
  SmallVector<std::pair<Operation *, Operation *>> replaced; // (declaration, op before it)
  for (const std::string &name : names) {
    if (llvm::is_contained(added, name + "_adjoint")) {
      module.emitError("gradient: function '@") << name << "' is listed twice";
    } else if (succeeded(differentiateFunction(module, name, replaced))) {
      added.push_back(name + "_adjoint");
      continue;
    }
    for (const std::string &adjoint : added)
      if (Operation *op = module.lookupSymbol(adjoint))
        op->erase();
    // Put replaced declarations back where they were (in reverse, so that a
    // declaration that followed another finds it in place).
    Block *body = module.getBody();
    for (auto [decl, before] : llvm::reverse(replaced))
      body->getOperations().insert(before ? std::next(Block::iterator(before)) : body->begin(),
                                   decl);
    return signalPassFailure();
  }
  for (auto [decl, before] : replaced)
    decl->destroy();
}

LogicalResult GradientPass::differentiateFunction(
    ModuleOp module, StringRef funcName,
    SmallVectorImpl<std::pair<Operation *, Operation *>> &replaced) {
  auto func = module.lookupSymbol<func::FuncOp>(funcName);
  if (!func)
    return module.emitError("gradient: no function named '@") << funcName << "' in the module";
  if (func.isExternal())
    return func.emitError("cannot differentiate '@") << funcName << "': it has no body";
  std::string adjointName = (funcName + "_adjoint").str();
  // A body-less declaration of the adjoint (so that other functions can call it
  // before it exists) is replaced; any other symbol of that name is an error.
  Operation *existing = module.lookupSymbol(adjointName);
  auto declaration = dyn_cast_or_null<func::FuncOp>(existing);
  if (existing && !(declaration && declaration.isExternal()))
    return existing->emitError("cannot create '@")
           << adjointName << "': the module already has a symbol of that name";
  Type targetType;
  int64_t targetIndex = 0;
  SmallVector<int64_t> params;
  if (failed(checkOptions(func, targetType, targetIndex, params)))
    return failure();

  // Work on a clone; nothing is left behind if differentiation fails.
  auto adjoint = cast<func::FuncOp>(func->clone());
  adjoint.setSymName(adjointName);
  adjoint->removeAttr(kTargetIndexAttrName);
  adjoint->removeAttr(kRequireGradsAttrName);
  module.getBody()->getOperations().insertAfter(Block::iterator(func), adjoint);
  if (failed(differentiate(adjoint, targetType, targetIndex, params))) {
    adjoint.erase();
    return failure();
  }
  if (declaration) {
    if (declaration.getFunctionType() != adjoint.getFunctionType()) {
      declaration.emitError("declaration of '@")
          << adjointName << "' has type " << declaration.getFunctionType()
          << " but the adjoint has type " << adjoint.getFunctionType();
      adjoint.erase();
      return failure();
    }
    adjoint.setVisibility(declaration.getVisibility());
    replaced.push_back({declaration, declaration->getPrevNode()});
    declaration->remove();
  }
  return success();
}

} // namespace
