//===- Buffers.h - which values may hold a buffer's memory ------*- C++ -*-===//
//
// Internal to the code-generation passes (implemented in Memory.cpp).
//
//===----------------------------------------------------------------------===//
#ifndef RELAX_MLIR_LIB_CODEGEN_COMMON_BUFFERS_H
#define RELAX_MLIR_LIB_CODEGEN_COMMON_BUFFERS_H

#include "mlir/IR/Operation.h"
#include "llvm/ADT/SmallPtrSet.h"

namespace mlir::relax {
/// `buffer`'s root allocation (through views) and every view of that root.
llvm::SmallPtrSet<Value, 8> bufferAliases(Value buffer);

/// Whether `op` (or an op nested in it) may write or free one of `buffers`;
/// a top-level dealloc of one of them is collected in `deallocs` instead.
bool mayWriteBuffers(Operation *op, const llvm::SmallPtrSet<Value, 8> &buffers,
                     SmallVectorImpl<Operation *> &deallocs);

} // namespace mlir::relax

#endif // RELAX_MLIR_LIB_CODEGEN_COMMON_BUFFERS_H
