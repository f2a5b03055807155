//===- RelaxDialect.h - The relax dialect -----------------------*- C++ -*-===//
#ifndef RELAX_MLIR_DIALECT_RELAX_IR_RELAXDIALECT_H
#define RELAX_MLIR_DIALECT_RELAX_IR_RELAXDIALECT_H

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Dialect.h"

#include "relax-mlir/Dialect/Relax/IR/RelaxOpsDialect.h.inc"

#endif // RELAX_MLIR_DIALECT_RELAX_IR_RELAXDIALECT_H
