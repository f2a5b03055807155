//===- Differentiation.h - what both differentiation passes share -*- C++ -*-===//
//
// The gradient pass (reverse mode) and the jvp pass (forward mode) work alike
// around their sweeps: each adds a function derived from `@<func>` to the
// module (all or nothing over a run), brings the clone's body into one
// dataflow block of bindings (inlining calls first), finds the values that
// depend on the differentiated parameters (activity analysis), checks each op
// it must differentiate, and finally returns a new value from the block. The
// sweeps themselves (GradientPass.cpp, JvpPass.cpp) only call op rules.
//
//===----------------------------------------------------------------------===//
#ifndef RELAX_MLIR_LIB_TRANSFORMS_DIFFERENTIATION_H
#define RELAX_MLIR_LIB_TRANSFORMS_DIFFERENTIATION_H

#include "relax-mlir/Dialect/Relax/IR/RelaxOps.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/SetVector.h"

#include <string>

namespace mlir::relax {

/// A function body gathered into one dataflow block.
struct GatheredBody {
  DataflowOp dataflow;
  func::ReturnOp ret;
  /// The returned values as seen inside the block.
  SmallVector<Value> results;
  /// The block's ops but its terminator, in order.
  SmallVector<Operation *> bindings;
  /// For each result, the operand of the block's terminator it is (-1 for a
  /// value defined outside the block: a parameter, a constant).
  SmallVector<int64_t> outputIndices;

  /// Reads `results` again from the terminator: a rule may have replaced the
  /// op computing one (a loop that now also stores what its backward pass
  /// reads).
  void refreshResults();
};

/// The gradient pass's function attributes that stand in for its options
/// (they describe the function's own result and parameters, so no derived
/// function carries them).
constexpr llvm::StringLiteral kTargetIndexAttrName = "relax.target_index";
constexpr llvm::StringLiteral kRequireGradsAttrName = "relax.require_grads";

/// What a pass derives, for its diagnostics.
struct DerivedKind {
  StringRef pass;   // "gradient"
  StringRef suffix; // "_adjoint"
  StringRef noun;   // "adjoint"
};

/// Inlines the calls in `func` (a clone of `@name`, named so in diagnostics),
/// checks that its bindings form one dataflow block (glue ops, constants and
/// tuples, may surround it) and gathers everything into that block.
FailureOr<GatheredBody> gatherBody(func::FuncOp func, StringRef name, const DerivedKind &kind);

/// The values that depend on the seeds (the differentiated parameters), and
/// the ops that read one inside their regions (they are on the path too, but
/// no rule differentiates through regions).
struct Activity {
  DenseSet<Value> active;
  DenseSet<Operation *> capturesActive;

  Activity(ArrayRef<Operation *> bindings, ValueRange seeds);
  bool isActive(Value v) const { return active.contains(v); }
};

/// True for a tensor with no elements: it carries no derivative, and rules
/// need not handle it.
bool isEmptyTensor(Value v);

/// Which rule a sweep asks of the ops, for diagnostics.
enum class Mode { Reverse, Forward };

/// The op's rule interface, or a diagnostic at `op` (the mode names what is
/// missing) when `op` is on the path but cannot be differentiated: it reads an
/// active value in its regions, calls a function without a body, or has no
/// rule.
FailureOr<GradientOpInterface> ruleOf(Operation *op, const Activity &activity, Mode mode);

/// Replaces the block's results by the one value `result` (built before its
/// terminator) and retypes the function to return it; optionally drops the
/// checkpoint markers; then folds tuple accesses and additions of zeros and
/// drops bindings nothing uses.
void finishBody(func::FuncOp func, GatheredBody &body, Value result, bool removeMarkers);

/// Builds the derived function in `derived` (a clone of `original`); may add
/// further functions to the module, listed in `extra`.
using DeriveFn = function_ref<LogicalResult(func::FuncOp original, func::FuncOp derived,
                                            SmallVectorImpl<Operation *> &extra)>;

/// Folds tuple accesses and additions of zeros in `func` and drops bindings
/// nothing uses (the relax canonicalization patterns).
void simplify(func::FuncOp func);

/// A derivative computation split from the primal one, to run later (the
/// backward half of a vjp, the linear half of a linearization): its ops, and
/// what they read from the primal part: values kept for it (residuals: primal
/// values and parameters) and operand-less ops (constants, zeros) it rebuilds.
struct DerivativeHalf {
  SmallVector<Operation *> ops;
  DenseSet<Operation *> opSet;
  llvm::SetVector<Value> residuals;
  llvm::SetVector<Operation *> rebuilt;
};

/// The half made of `ops` (in block order), reading its own parameters
/// `inputs` and returning `results`.
DerivativeHalf collectHalf(ArrayRef<Operation *> ops, ValueRange inputs, ValueRange results);

/// `@name(residuals..., inputs...) -> result`, placed after `after`: the
/// half's ops reading its parameters, returning `results` (their tuple with
/// `tuple`, else the one value). Residuals it no longer reads once simplified
/// are dropped (from `half.residuals` too). Checkpoint markers are removed.
func::FuncOp buildHalfFunction(func::FuncOp after, StringRef name, DerivativeHalf &half,
                               ValueRange inputs, ValueRange results, bool tuple);

/// Turns `fn` into the primal part: erases the half's ops and its parameters
/// `inputs` (the half's inputs), and returns `(result, tuple<residuals>)`.
void finishPrimalPart(func::FuncOp fn, GatheredBody &body, DerivativeHalf &half,
                      ValueRange inputs, Value result);

/// Adds, for each of `names` (the pass's `func` option: names may be spaced, as
/// in `func={a, b}`; default main), the function `<name><suffix>` that
/// `derive` builds in a clone of `@<name>` placed after it. A body-less
/// declaration of that name (so that other functions can call it before it
/// exists) is replaced; any other symbol of the name is an error. If one
/// function fails, every function added in the run (extra ones too) is removed
/// again and replaced declarations are put back: the module is left as it was.
LogicalResult deriveFunctions(ModuleOp module, ArrayRef<std::string> names,
                              const DerivedKind &kind, DeriveFn derive);

/// A diagnostic at `module` unless the module has no symbol `name` (a
/// function about to be added).
LogicalResult checkNameIsFree(ModuleOp module, StringRef name);

/// A diagnostic at `func` unless it returns exactly one value.
LogicalResult checkOneResult(func::FuncOp func);

/// Appends a parameter of `type` (with `attrs`) to `fn`; its block argument,
/// or failure after a diagnostic.
FailureOr<BlockArgument> appendParameter(func::FuncOp fn, Type type, DictionaryAttr attrs);

/// The parameters of `func` a pass differentiates: those `wanted` lists (in
/// its order), checked (in range, listed once, float tensors or tuples of
/// them; diagnostics name the pass option `option` and what they lack,
/// `what`: "gradients", "tangents"), or every float parameter when `wanted`
/// is empty (a parameter of a type no relax value has is an error).
LogicalResult selectParameters(func::FuncOp func, ArrayRef<int64_t> wanted, StringRef option,
                               StringRef what, SmallVectorImpl<int64_t> &params);

} // namespace mlir::relax

#endif // RELAX_MLIR_LIB_TRANSFORMS_DIFFERENTIATION_H
