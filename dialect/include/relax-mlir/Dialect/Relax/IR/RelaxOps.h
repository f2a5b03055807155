//===- RelaxOps.h - relax dialect ops ---------------------------*- C++ -*-===//
#ifndef RELAX_MLIR_DIALECT_RELAX_IR_RELAXOPS_H
#define RELAX_MLIR_DIALECT_RELAX_IR_RELAXOPS_H

#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Interfaces/ControlFlowInterfaces.h"
#include "mlir/Interfaces/InferTypeOpInterface.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "relax-mlir/Dialect/Relax/IR/RelaxDialect.h"

namespace mlir::relax {
/// Result type of a numpy-broadcasting binary op, or a diagnostic at `loc`.
LogicalResult inferBroadcastBinaryType(std::optional<Location> loc, Type lhs, Type rhs,
                                       SmallVectorImpl<Type> &results);
/// Result type of a reduction over `axis` (all axes when null).
LogicalResult inferReductionType(std::optional<Location> loc, Type input,
                                 DenseI64ArrayAttr axis, bool keepdims,
                                 SmallVectorImpl<Type> &results);
/// The reduced axes of `input`, non-negative and sorted; assumes a verified op.
SmallVector<int64_t> normalizeReductionAxes(Type input, std::optional<ArrayRef<int64_t>> axis);
/// Checks an I64 `axis` attribute against `rank` (negative counts from the end).
LogicalResult verifyAxis(Operation *op, int64_t axis, int64_t rank);
/// The canonicalization patterns of every relax op (folders apply too when the
/// greedy driver runs them).
void populateRelaxCanonicalizationPatterns(RewritePatternSet &patterns);
/// A shape as "(2, 3)" for diagnostics.
std::string formatShape(ArrayRef<int64_t> shape);
/// The numpy broadcast of two shapes, or std::nullopt when incompatible.
std::optional<SmallVector<int64_t>> broadcastShapes(ArrayRef<int64_t> a, ArrayRef<int64_t> b);
} // namespace mlir::relax

#include "relax-mlir/Dialect/Relax/IR/RelaxInterfaces.h.inc"

#define GET_OP_CLASSES
#include "relax-mlir/Dialect/Relax/IR/RelaxOps.h.inc"

namespace mlir::relax {
/// `v` with its two innermost axes swapped (a relax.permute_dims).
Value buildTransposeLastTwo(OpBuilder &b, Location loc, Value v);
} // namespace mlir::relax

#endif // RELAX_MLIR_DIALECT_RELAX_IR_RELAXOPS_H
