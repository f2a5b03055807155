//===- Differentiation.cpp - what both differentiation passes share -------===//

#include "Differentiation.h"

#include "relax-mlir/Dialect/Relax/IR/GradientUtils.h"
#include "relax-mlir/Transforms/Passes.h"

#include "mlir/IR/IRMapping.h"
#include "mlir/Interfaces/CallInterfaces.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "llvm/ADT/BitVector.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"
#include "mlir/Transforms/InliningUtils.h"
#include "mlir/Transforms/RegionUtils.h"
#include "llvm/ADT/SetVector.h"

using namespace mlir;
using namespace mlir::relax;

//===----------------------------------------------------------------------===//
// Gathering the body
//===----------------------------------------------------------------------===//

/// Ops allowed in the function body outside its dataflow block: constants and
/// the tuple glue that builds or reads the returned value.
static bool isGlueOp(Operation *op) {
  return op->hasTrait<OpTrait::ConstantLike>() || isa<TupleOp, TupleGetItemOp>(op);
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

/// The dataflow block and return of `func`, checked; diagnostics name the
/// function as `name`. A body without bindings gets an empty block.
static LogicalResult findBlock(func::FuncOp func, StringRef name, const DerivedKind &kind,
                               GatheredBody &found) {
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
  bool ok = true;
  for (Operation &op : body) {
    if (auto df = dyn_cast<DataflowOp>(op)) {
      if (found.dataflow) {
        op.emitError("a second relax.dataflow block in '@")
            << name << "': the " << kind.pass << " pass differentiates exactly one dataflow block";
        ok = false;
      }
      found.dataflow = df;
    } else if (auto ret = dyn_cast<func::ReturnOp>(op)) {
      found.ret = ret;
    } else if (!isGlueOp(&op)) {
      op.emitError("binding outside the relax.dataflow block of '@")
          << name << "': the " << kind.pass << " pass needs every binding in one dataflow block";
      ok = false;
    }
  }
  if (!ok)
    return failure();
  if (!found.dataflow) {
    // No bindings at all: the result is a parameter or a constant (perhaps in
    // a tuple built by glue ops). Differentiate an empty block: the glue is
    // gathered into it.
    OpBuilder b(found.ret);
    found.dataflow = DataflowOp::create(b, found.ret.getLoc(), TypeRange{});
    b.createBlock(&found.dataflow.getBody());
    OutputOp::create(b, found.ret.getLoc(), ValueRange{});
  }
  return success();
}

FailureOr<GatheredBody> mlir::relax::gatherBody(func::FuncOp func, StringRef name,
                                                const DerivedKind &kind) {
  if (failed(inlineCalls(func, name)))
    return failure();
  GatheredBody gathered;
  if (failed(findBlock(func, name, kind, gathered)))
    return failure();
  // Move the glue ops around the dataflow block into it (keeping their order)
  // and inline dataflow blocks nested in it, so that one block holds every
  // binding.
  DataflowOp df = gathered.dataflow;
  Block &body = df.getBody().front();
  OutputOp out = df.getOutput();
  Block *parent = df->getBlock();
  Operation *firstBinding = &body.front();
  for (Operation &op : llvm::make_early_inc_range(*parent)) {
    if (&op == df.getOperation() || &op == gathered.ret.getOperation())
      continue;
    op.moveBefore(op.isBeforeInBlock(df) ? firstBinding : out.getOperation());
  }
  for (auto [res, yielded] : llvm::zip(df.getResults(), out.getOperands()))
    res.replaceUsesWithIf(yielded, [&](OpOperand &use) { return df->isAncestor(use.getOwner()); });
  // A nested dataflow block only groups bindings: splice them in its place.
  inlineNestedDataflows(df);
  // Each result is read through the terminator, which keeps it up to date
  // when an op is replaced.
  for (Value ret : gathered.ret.getOperands()) {
    int64_t index = -1;
    if (auto res = dyn_cast<OpResult>(ret); res && res.getOwner() == df) {
      index = res.getResultNumber();
      ret = out.getOperand(index);
    }
    gathered.outputIndices.push_back(index);
    gathered.results.push_back(ret);
  }
  for (Operation &op : body.without_terminator())
    gathered.bindings.push_back(&op);
  return gathered;
}

void GatheredBody::refreshResults() {
  OutputOp out = dataflow.getOutput();
  for (auto [i, index] : llvm::enumerate(outputIndices))
    if (index >= 0)
      results[i] = out.getOperand(index);
}

//===----------------------------------------------------------------------===//
// Activity
//===----------------------------------------------------------------------===//

/// True when an op nested in `op`'s regions reads one of `active` from above.
static bool capturesActiveValue(Operation *op, const DenseSet<Value> &active) {
  if (op->getNumRegions() == 0)
    return false;
  llvm::SetVector<Value> captured;
  getUsedValuesDefinedAbove(op->getRegions(), captured);
  return llvm::any_of(captured, [&](Value v) { return active.contains(v); });
}

Activity::Activity(ArrayRef<Operation *> bindings, ValueRange seeds) {
  active.insert(seeds.begin(), seeds.end());
  // Values read inside an op's regions count like operands: an op computing
  // its result from a captured active value is on the path too.
  for (Operation *op : bindings) {
    if (op->hasTrait<OpTrait::relax::StopsDerivatives>())
      continue;
    bool reads = llvm::any_of(op->getOperands(), [&](Value v) { return active.contains(v); });
    if (capturesActiveValue(op, active)) {
      capturesActive.insert(op);
      reads = true;
    }
    if (reads)
      for (Value r : op->getResults())
        if (carriesGradient(r.getType()))
          active.insert(r);
  }
}

bool mlir::relax::isEmptyTensor(Value v) {
  auto t = dyn_cast<RankedTensorType>(v.getType());
  return t && t.hasStaticShape() && t.getNumElements() == 0;
}

FailureOr<GradientOpInterface> mlir::relax::ruleOf(Operation *op, const Activity &activity,
                                                   Mode mode) {
  bool reverse = mode == Mode::Reverse;
  StringRef onPath =
      reverse ? "is on the path to the target" : "depends on a differentiated parameter";
  if (activity.capturesActive.contains(op))
    return op->emitError("'") << op->getName() << "' " << onPath
                              << " through values its regions read; the "
                              << (reverse ? "gradient" : "jvp")
                              << " pass does not differentiate through regions";
  auto rule = dyn_cast<GradientOpInterface>(op);
  if (!rule && isa<CallOpInterface>(op))
    return op->emitError(reverse ? "call on the path to the target"
                                 : "call depending on a differentiated parameter")
           << ": the callee has no body to inline and differentiate";
  if (!rule)
    return op->emitError("'") << op->getName() << "' " << onPath << " but has no "
                              << (reverse ? "gradient" : "tangent") << " rule";
  return rule;
}

//===----------------------------------------------------------------------===//
// Finishing
//===----------------------------------------------------------------------===//

void mlir::relax::finishBody(func::FuncOp func, GatheredBody &body, Value result,
                             bool removeMarkers) {
  DataflowOp df = body.dataflow;
  OutputOp out = df.getOutput();
  OpBuilder b(df);
  auto newDf = DataflowOp::create(b, df.getLoc(), TypeRange{result.getType()});
  newDf.getBody().takeBody(df.getBody());
  out.getOperandsMutable().assign(result);
  body.ret.getOperandsMutable().assign(newDf.getResult(0));
  df.erase();
  body.dataflow = newDf;
  if (removeMarkers)
    removeCheckpointMarkers(newDf);
  func.setFunctionType(
      FunctionType::get(func.getContext(), func.getArgumentTypes(), {result.getType()}));
  func.removeResAttrsAttr();
  simplify(func);
}

void mlir::relax::simplify(func::FuncOp func) {
  RewritePatternSet patterns(func.getContext());
  populateRelaxCanonicalizationPatterns(patterns);
  (void)applyPatternsGreedily(func, std::move(patterns),
                              GreedyRewriteConfig().enableConstantCSE(false));
}

//===----------------------------------------------------------------------===//
// Splitting a derivative from the primal computation
//===----------------------------------------------------------------------===//

DerivativeHalf mlir::relax::collectHalf(ArrayRef<Operation *> ops, ValueRange inputs,
                                        ValueRange results) {
  DerivativeHalf half;
  half.ops.assign(ops.begin(), ops.end());
  half.opSet.insert(ops.begin(), ops.end());
  DenseSet<Value> own(inputs.begin(), inputs.end());
  auto read = [&](Value v) {
    if (own.contains(v))
      return;
    Operation *def = v.getDefiningOp();
    if (def && half.opSet.contains(def))
      return;
    if (def && def->getNumOperands() == 0 && def->getNumRegions() == 0 && isPure(def))
      half.rebuilt.insert(def);
    else
      half.residuals.insert(v);
  };
  for (Operation *op : half.ops)
    for (Value v : op->getOperands())
      read(v);
  for (Value r : results)
    read(r);
  return half;
}

func::FuncOp mlir::relax::buildHalfFunction(func::FuncOp after, StringRef name,
                                            DerivativeHalf &half, ValueRange inputs,
                                            ValueRange results, bool tuple) {
  MLIRContext *ctx = after.getContext();
  Location loc = after.getLoc();
  SmallVector<Type> types = llvm::map_to_vector(half.residuals, [](Value v) { return v.getType(); });
  llvm::append_range(types, inputs.getTypes());
  Type resultType = tuple ? TupleType::get(ctx, llvm::to_vector(results.getTypes()))
                          : results.front().getType();
  OpBuilder b(ctx);
  b.setInsertionPointAfter(after);
  auto fn = func::FuncOp::create(b, loc, name, FunctionType::get(ctx, types, {resultType}));
  fn.setVisibility(after.getVisibility());
  Block *entry = fn.addEntryBlock();
  IRMapping map;
  unsigned numResiduals = half.residuals.size();
  for (auto [v, arg] : llvm::zip(half.residuals, entry->getArguments()))
    map.map(v, arg);
  for (auto [v, arg] : llvm::zip(inputs, entry->getArguments().drop_front(numResiduals)))
    map.map(v, arg);
  b.setInsertionPointToStart(entry);
  auto df = DataflowOp::create(b, loc, TypeRange{resultType});
  b.createBlock(&df.getBody());
  for (Operation *op : half.rebuilt)
    b.clone(*op, map);
  for (Operation *op : half.ops)
    b.clone(*op, map);
  SmallVector<Value> mapped =
      llvm::map_to_vector(results, [&](Value r) { return map.lookupOrDefault(r); });
  Value out = tuple ? TupleOp::create(b, loc, mapped).getResult() : mapped.front();
  OutputOp::create(b, loc, ValueRange{out});
  b.setInsertionPointToEnd(entry);
  func::ReturnOp::create(b, loc, df.getResult(0));
  removeCheckpointMarkers(df);
  simplify(fn);

  llvm::BitVector unused(fn.getNumArguments());
  SmallVector<Value> kept;
  for (auto [i, v] : llvm::enumerate(half.residuals)) {
    if (fn.getArgument(i).use_empty())
      unused.set(i);
    else
      kept.push_back(v);
  }
  (void)fn.eraseArguments(unused);
  half.residuals = llvm::SetVector<Value>(kept.begin(), kept.end());
  return fn;
}

void mlir::relax::finishPrimalPart(func::FuncOp fn, GatheredBody &body, DerivativeHalf &half,
                                   ValueRange inputs, Value result) {
  for (Operation *op : llvm::reverse(half.ops))
    op->erase();
  llvm::BitVector erased(fn.getNumArguments());
  for (Value v : inputs)
    erased.set(cast<BlockArgument>(v).getArgNumber());
  (void)fn.eraseArguments(erased);
  Location loc = body.ret.getLoc();
  OpBuilder b(body.dataflow.getOutput());
  Value residuals = TupleOp::create(b, loc, half.residuals.getArrayRef());
  finishBody(fn, body, TupleOp::create(b, loc, ValueRange{result, residuals}),
             /*removeMarkers=*/true);
}

//===----------------------------------------------------------------------===//
// Adding the derived functions
//===----------------------------------------------------------------------===//

/// Adds `<funcName><suffix>`; on failure leaves the module as it was. A
/// declaration it replaces is unlinked into `replaced` (with the op it
/// followed) so that a later failure can put it back.
LogicalResult mlir::relax::selectParameters(func::FuncOp func, ArrayRef<int64_t> wanted,
                                            StringRef option, StringRef what,
                                            SmallVectorImpl<int64_t> &params) {
  int64_t numArgs = func.getNumArguments();
  if (wanted.empty()) {
    for (int64_t i = 0; i < numArgs; ++i) {
      Type type = func.getArgument(i).getType();
      // Integer parameters are skipped; a type no relax value has is an error
      // (its zero derivative could not even be built).
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
  for (int64_t p : wanted) {
    if (p < 0 || p >= numArgs)
      return func.emitError(option) << " index " << p << " is out of range: '@"
                                    << func.getSymName() << "' has " << numArgs << " parameters";
    if (llvm::is_contained(params, p))
      return func.emitError(option) << " lists parameter " << p << " twice";
    Type type = func.getArgument(p).getType();
    if (!isDifferentiableType(type))
      return func.emitError(option) << ": parameter " << p << " has type " << type
                                    << "; only float tensors (and tuples of them) have "
                                    << what;
    params.push_back(p);
  }
  return success();
}

LogicalResult mlir::relax::checkOneResult(func::FuncOp func) {
  if (func.getNumResults() != 1)
    return func.emitError("cannot differentiate '@")
           << func.getSymName() << "': it must return exactly one value, not "
           << func.getNumResults();
  return success();
}

FailureOr<BlockArgument> mlir::relax::appendParameter(func::FuncOp fn, Type type,
                                                      DictionaryAttr attrs) {
  unsigned index = fn.getNumArguments();
  if (failed(fn.insertArgument(index, type, attrs, fn.getLoc())))
    return fn.emitError("internal error: cannot add a parameter of type ") << type;
  return fn.getArgument(index);
}

LogicalResult mlir::relax::checkNameIsFree(ModuleOp module, StringRef name) {
  if (Operation *existing = module.lookupSymbol(name))
    return existing->emitError("cannot create '@")
           << name << "': the module already has a symbol of that name";
  return success();
}

static FailureOr<func::FuncOp>
deriveFunction(ModuleOp module, StringRef funcName, const DerivedKind &kind, DeriveFn derive,
               SmallVectorImpl<std::pair<Operation *, Operation *>> &replaced,
               SmallVectorImpl<Operation *> &extra) {
  auto func = module.lookupSymbol<func::FuncOp>(funcName);
  if (!func)
    return module.emitError(kind.pass) << ": no function named '@" << funcName
                                       << "' in the module";
  if (func.isExternal())
    return func.emitError("cannot differentiate '@") << funcName << "': it has no body";
  std::string derivedName = (funcName + kind.suffix).str();
  Operation *existing = module.lookupSymbol(derivedName);
  auto declaration = dyn_cast_or_null<func::FuncOp>(existing);
  if (existing && !(declaration && declaration.isExternal()))
    return existing->emitError("cannot create '@")
           << derivedName << "': the module already has a symbol of that name";

  // Work on a clone; nothing is left behind if differentiation fails.
  auto derived = cast<func::FuncOp>(func->clone());
  derived.setSymName(derivedName);
  derived->removeAttr(kTargetIndexAttrName);
  derived->removeAttr(kRequireGradsAttrName);
  module.getBody()->getOperations().insertAfter(Block::iterator(func), derived);
  size_t extraBefore = extra.size();
  if (failed(derive(func, derived, extra))) {
    for (Operation *op : llvm::drop_begin(extra, extraBefore))
      op->erase();
    extra.truncate(extraBefore);
    derived.erase();
    return failure();
  }
  if (declaration) {
    if (declaration.getFunctionType() != derived.getFunctionType()) {
      declaration.emitError("declaration of '@")
          << derivedName << "' has type " << declaration.getFunctionType() << " but the "
          << kind.noun << " has type " << derived.getFunctionType();
      derived.erase();
      return failure();
    }
    derived.setVisibility(declaration.getVisibility());
    replaced.push_back({declaration, declaration->getPrevNode()});
    declaration->remove();
  }
  return derived;
}

LogicalResult mlir::relax::deriveFunctions(ModuleOp module, ArrayRef<std::string> names,
                                           const DerivedKind &kind, DeriveFn derive) {
  SmallVector<std::string> trimmed;
  for (const std::string &name : names)
    trimmed.push_back(StringRef(name).trim().str());
  if (trimmed.empty())
    trimmed.push_back("main");
  SmallVector<std::string> done;
  SmallVector<Operation *> added;
  SmallVector<std::pair<Operation *, Operation *>> replaced; // (declaration, op before it)
  for (const std::string &name : trimmed) {
    if (llvm::is_contained(done, name)) {
      module.emitError(kind.pass) << ": function '@" << name << "' is listed twice";
    } else if (FailureOr<func::FuncOp> derived =
                   deriveFunction(module, name, kind, derive, replaced, added);
               succeeded(derived)) {
      done.push_back(name);
      added.push_back(*derived);
      continue;
    }
    // Put replaced declarations back where they were (in reverse, so that a
    // declaration that followed another finds it in place), then remove the
    // functions added: the op a declaration followed may be one of them.
    Block *body = module.getBody();
    for (auto [decl, before] : llvm::reverse(replaced))
      body->getOperations().insert(before ? std::next(Block::iterator(before)) : body->begin(),
                                   decl);
    for (Operation *op : added)
      op->erase();
    return failure();
  }
  for (auto [decl, before] : replaced)
    decl->destroy();
  return success();
}
