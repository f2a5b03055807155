//===- RelaxDialect.h - The relax dialect -----------------------*- C++ -*-===//
#ifndef RELAX_MLIR_DIALECT_RELAX_IR_RELAXDIALECT_H
#define RELAX_MLIR_DIALECT_RELAX_IR_RELAXDIALECT_H

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Dialect.h"

#include "relax-mlir/Dialect/Relax/IR/RelaxOpsDialect.h.inc"

namespace mlir::relax {
/// True for a static tensor type whose element count and size in bytes (at
/// least one byte per element) fit in int64.
bool hasRepresentableSize(Type type);
/// True for the float element types of relax: f16, bf16, f32, f64.
bool isRelaxFloatType(Type elementType);
/// True for the types relax values have: static tensors of f16, bf16, f32,
/// f64, i1, i32 or i64 of representable size, and tuples of such types.
bool isRelaxValueType(Type type);
/// The size in bytes of a static tensor type (at least one byte per element),
/// or std::nullopt when it does not fit in int64.
std::optional<int64_t> tensorSizeInBytes(Type type);
} // namespace mlir::relax

#endif // RELAX_MLIR_DIALECT_RELAX_IR_RELAXDIALECT_H
