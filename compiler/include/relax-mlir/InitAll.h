//===- InitAll.h - Register every relax dialect, pass and pipeline -*- C++ -*-===//
#ifndef RELAX_MLIR_INITALL_H
#define RELAX_MLIR_INITALL_H

#include "mlir/IR/DialectRegistry.h"

namespace mlir::relax {
/// The relax dialect and the upstream extensions its passes rely on.
void registerAllDialects(DialectRegistry &registry);
/// Every relax pass and the `relax-to-llvm` pipeline (idempotent).
void registerAllPasses();
} // namespace mlir::relax

#endif // RELAX_MLIR_INITALL_H
