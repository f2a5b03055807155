//===- Passes.h - relax transformation passes -------------------*- C++ -*-===//
#ifndef RELAX_MLIR_TRANSFORMS_PASSES_H
#define RELAX_MLIR_TRANSFORMS_PASSES_H

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/Pass.h"
#include "relax-mlir/Dialect/Relax/IR/RelaxOps.h"

namespace mlir::relax {
#define GEN_PASS_DECL
#include "relax-mlir/Transforms/Passes.h.inc"

/// Replaces every checkpoint marker under `root` by its operand.
void removeCheckpointMarkers(Operation *root);
/// Replaces every checkpoint marker and stop_gradient under `root` by its
/// operand, and every relax.call_with_rules by a func.call of its callee:
/// what only differentiation reads (before lowering).
void removeDifferentiationMarkers(Operation *root);
/// Inlines every relax.dataflow nested in `root` (not `root` itself): its
/// bindings take its place and its results become what it yields.
void inlineNestedDataflows(Operation *root);

/// Inlines dataflow blocks, flattens tuple function boundaries and folds tuple
/// accesses in `module` (the body of `relax-flatten-tuples`).
LogicalResult flattenTuples(ModuleOp module);

/// The static peak of live tensor bytes of `func` (see relax-memory-report).
int64_t staticPeakLiveBytes(func::FuncOp func);

#define GEN_PASS_REGISTRATION
#include "relax-mlir/Transforms/Passes.h.inc"
} // namespace mlir::relax

#endif // RELAX_MLIR_TRANSFORMS_PASSES_H
