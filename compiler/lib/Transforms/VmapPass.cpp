//===- VmapPass.cpp - batching (vmap) of relax functions ------------------===//
//
// Adds `@<func>_vmap`: the function over a batch of examples, the batched
// parameters (`batched`) with a new leading dimension of `batch-size`. The
// clone's bindings are gathered into one dataflow block (Differentiation.h:
// calls inlined); a forward walk asks each op that reads a batched value for
// its batching rule through BatchingOpInterface, and leaves the others as
// they are (computed once for the whole batch). The pass knows no op by name.
//
//===----------------------------------------------------------------------===//

#include "Differentiation.h"

#include "relax-mlir/Dialect/Relax/IR/BatchingUtils.h"
#include "relax-mlir/Transforms/Passes.h"

#include "mlir/IR/IRMapping.h"
#include "mlir/IR/SymbolTable.h"

#include <map>

namespace mlir::relax {
#define GEN_PASS_DEF_VMAPPASS
#include "relax-mlir/Transforms/Passes.h.inc"
} // namespace mlir::relax

using namespace mlir;
using namespace mlir::relax;

namespace {

constexpr DerivedKind kVmap{"vmap", "_vmap", "batched function"};

/// The functions batched for the rules of calls (call_with_rules), shared by
/// a run's Batchers: each callee once per batched parameters, kept in the
/// pass's list of added functions (removed if the run fails).
struct BatchedFunctions {
  ModuleOp module;
  SmallVectorImpl<Operation *> &added;
  std::map<std::pair<std::string, std::string>, func::FuncOp> cache;
};

/// The batched function: `derived` (a clone of `original`) over batches; for
/// the rules of loops and branches, the batched form of a body.
class Batcher : public RegionBatcher {
public:
  Batcher(int64_t n, BatchedFunctions &functions) : n(n), functions(functions) {}

  LogicalResult run(func::FuncOp original, func::FuncOp derived, ArrayRef<int64_t> params);

  /// The body's ops cloned at `b` (a batched argument's per-example
  /// stand-in, an unrealized cast of its batch, is what the clones read),
  /// then batched by a Batcher of their own; the replaced clones and the
  /// stand-ins go once that is done.
  FailureOr<SmallVector<std::pair<Value, bool>>>
  batch(OpBuilder &b, Block &body, ValueRange args, ArrayRef<bool> flags) override;
  /// A clone of `@callee` placed after it, batched by a Batcher of its own
  /// (the same for the same callee and flags within a run).
  FailureOr<func::FuncOp> batchFunction(Location loc, StringRef callee,
                                        ArrayRef<bool> flags) override;
  void addedFunction(func::FuncOp fn) override { functions.added.push_back(fn); }

private:
  /// Builds the batched form of `op` (before it) when it reads a batched
  /// value; diagnoses an op that has no rule (reported, then the walk goes
  /// on). The op itself stays, with its per-example types, for the rules to
  /// read, until the walk is over.
  LogicalResult visit(Operation *op);
  /// The value of `v` in the batched program.
  Value lookup(Value v) const {
    Value m = batched.lookup(v);
    return m ? m : v;
  }

  int64_t n;
  BatchedFunctions &functions;
  /// Per-example value -> its batch.
  DenseMap<Value, Value> batched;
  /// The ops replaced by their batched form, in order.
  SmallVector<Operation *> replaced;
  /// Results of ops that could not be batched: the ops reading them are
  /// still checked for a rule (every missing one is reported), not batched.
  DenseSet<Value> unbatchable;
};

LogicalResult Batcher::run(func::FuncOp original, func::FuncOp derived,
                           ArrayRef<int64_t> params) {
  StringRef name = original.getSymName();
  SmallVector<int64_t> sorted(params);
  llvm::sort(sorted);
  sorted.erase(std::unique(sorted.begin(), sorted.end()), sorted.end());
  for (int64_t p : sorted) {
    if (p < 0 || p >= static_cast<int64_t>(derived.getNumArguments()))
      return original.emitError() << "vmap: parameter " << p << " of '@" << name
                                  << "' does not exist (it has " << derived.getNumArguments()
                                  << ")";
    if (!isa<RankedTensorType, TupleType>(derived.getArgument(p).getType()))
      return original.emitError() << "vmap: parameter " << p << " of '@" << name
                                  << "' is not a tensor or a tuple";
  }
  // Calls inlined with the per-example types, then each batched parameter
  // gets its batch as a new argument right after it (the per-example one
  // goes once the walk is over: the ops read their own types meanwhile).
  FailureOr<GatheredBody> body = gatherBody(derived, name, kVmap);
  if (failed(body))
    return failure();
  for (int64_t p : llvm::reverse(sorted)) {
    BlockArgument arg = derived.getArgument(p);
    if (failed(derived.insertArgument(p + 1, batchedType(arg.getType(), n),
                                      derived.getArgAttrDict(p), arg.getLoc())))
      return failure();
    batched[derived.getArgument(p)] = derived.getArgument(p + 1);
  }
  bool ok = true;
  for (Operation *op : body->bindings)
    ok &= succeeded(visit(op));
  if (!ok)
    return derived.emitError() << "vmap: '@" << name
                               << "' has ops without a batching rule (each reported above)";
  // Every result batched (an unbatched one is the same for each example).
  OpBuilder b(body->dataflow.getOutput());
  SmallVector<Value> results;
  for (Value r : body->results)
    results.push_back(batched.count(r) ? batched[r] : broadcastBatch(b, r.getLoc(), r, n));
  Value result = results.size() == 1 ? results.front()
                                     : TupleOp::create(b, derived.getLoc(), results).getResult();
  body->dataflow.getOutput()->setOperands(result);
  body->ret->setOperands(body->dataflow.getResults());
  for (Operation *op : llvm::reverse(replaced)) {
    op->dropAllUses();
    op->erase();
  }
  for (int64_t p : sorted) {
    // (The earlier per-example parameters are gone already: this one is at
    // its own index, its batch right after it.)
    derived.getArgument(p).replaceAllUsesWith(derived.getArgument(p + 1));
    if (failed(derived.eraseArgument(p)))
      return failure();
  }
  finishBody(derived, *body, result, /*removeMarkers=*/false);
  return success();
}

LogicalResult Batcher::visit(Operation *op) {
  SmallVector<bool> flags =
      llvm::map_to_vector(op->getOperands(), [&](Value v) { return batched.count(v) != 0; });
  bool readsUnbatchable =
      llvm::any_of(op->getOperands(), [&](Value v) { return unbatchable.contains(v); });
  bool regionReadsBatched = false;
  op->walk([&](Operation *inner) {
    if (inner != op)
      for (Value v : inner->getOperands())
        regionReadsBatched |= batched.count(v) != 0 || unbatchable.contains(v);
  });
  if (!llvm::is_contained(flags, true) && !regionReadsBatched && !readsUnbatchable)
    return success();
  auto rule = dyn_cast<BatchingOpInterface>(op);
  auto regionRule = dyn_cast<RegionBatchingOpInterface>(op);
  if ((!rule && !regionRule) || regionReadsBatched || readsUnbatchable) {
    for (Value r : op->getResults())
      unbatchable.insert(r);
    if ((rule || regionRule) && !regionReadsBatched)
      return success(); // (what it reads was reported)
    return op->emitOpError() << "has no batching rule (vmap): keep its operands unbatched "
                                "(in_axes=None), or map this part with a Python loop";
  }
  OpBuilder b(op);
  SmallVector<Value> operands =
      llvm::map_to_vector(op->getOperands(), [&](Value v) { return lookup(v); });
  SmallVector<Value> results(op->getNumResults());
  auto fail = [&]() {
    for (Value r : op->getResults())
      unbatchable.insert(r);
    return failure();
  };
  if (failed(regionRule ? regionRule.buildBatched(b, n, operands, flags, results, *this)
                        : rule.buildBatched(b, n, operands, flags, results)))
    return fail();
  for (auto [old, replacement] : llvm::zip(op->getResults(), results))
    if (!replacement || replacement.getType() != batchedType(old.getType(), n)) {
      op->emitOpError() << "batching rule built "
                        << (replacement ? "a value of the wrong type" : "no value");
      return fail();
    }
  for (auto [old, replacement] : llvm::zip(op->getResults(), results))
    batched[old] = replacement;
  replaced.push_back(op);
  return success();
}

FailureOr<SmallVector<std::pair<Value, bool>>>
Batcher::batch(OpBuilder &b, Block &body, ValueRange args, ArrayRef<bool> flags) {
  Batcher inner(n, functions);
  IRMapping map;
  SmallVector<Operation *> standIns;
  for (auto [arg, value, isBatched] : llvm::zip(body.getArguments(), args, flags)) {
    if (!isBatched) {
      map.map(arg, value);
      continue;
    }
    auto standIn = UnrealizedConversionCastOp::create(b, arg.getLoc(), arg.getType(), value);
    standIns.push_back(standIn);
    inner.batched[standIn.getResult(0)] = value;
    map.map(arg, standIn.getResult(0));
  }
  SmallVector<Operation *> clones;
  for (Operation &op : body.without_terminator())
    clones.push_back(b.clone(op, map));
  bool ok = true;
  for (Operation *op : clones)
    ok &= succeeded(inner.visit(op));
  SmallVector<std::pair<Value, bool>> out;
  for (Value v : body.getTerminator()->getOperands()) {
    Value mapped = map.lookupOrDefault(v);
    auto it = inner.batched.find(mapped);
    out.push_back(it != inner.batched.end() ? std::make_pair(it->second, true)
                                            : std::make_pair(mapped, false));
  }
  for (Operation *op : llvm::reverse(inner.replaced)) {
    op->dropAllUses();
    op->erase();
  }
  for (Operation *standIn : llvm::reverse(standIns)) {
    standIn->dropAllUses();
    standIn->erase();
  }
  if (!ok)
    return failure();
  return out;
}

FailureOr<func::FuncOp> Batcher::batchFunction(Location loc, StringRef callee,
                                               ArrayRef<bool> flags) {
  std::string mask;
  for (bool f : flags)
    mask.push_back(f ? '1' : '0');
  auto key = std::make_pair(callee.str(), mask);
  if (auto it = functions.cache.find(key); it != functions.cache.end())
    return it->second;
  auto original = functions.module.lookupSymbol<func::FuncOp>(callee);
  if (!original || original.isExternal())
    return emitError(loc) << "vmap: '@" << callee << "' has no body to batch";
  SmallVector<int64_t> params;
  for (auto [i, f] : llvm::enumerate(flags))
    if (f)
      params.push_back(static_cast<int64_t>(i));
  func::FuncOp clone = original.clone();
  clone.setSymName((callee + kVmap.suffix).str());
  SymbolTable(functions.module).insert(clone, std::next(original->getIterator()));
  functions.added.push_back(clone);
  if (failed(Batcher(n, functions).run(original, clone, params)))
    return failure();
  functions.cache[key] = clone;
  return clone;
}

struct VmapPass : relax::impl::VmapPassBase<VmapPass> {
  using VmapPassBase::VmapPassBase;

  void runOnOperation() override {
    if (batchSize < 0) {
      getOperation().emitError() << "vmap: batch-size must be 0 or more, got " << batchSize;
      return signalPassFailure();
    }
    SmallVector<std::string> names(funcNames.begin(), funcNames.end());
    SmallVector<int64_t> params(batchedParams.begin(), batchedParams.end());
    auto derive = [&](func::FuncOp func, func::FuncOp derived,
                      SmallVectorImpl<Operation *> &extra) {
      BatchedFunctions functions{getOperation(), extra, {}};
      return Batcher(batchSize, functions).run(func, derived, params);
    };
    if (failed(deriveFunctions(getOperation(), names, kVmap, derive)))
      signalPassFailure();
  }
};

} // namespace
