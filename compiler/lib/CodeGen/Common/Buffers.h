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
/// The value `v`'s memory comes from: followed up through views and
/// `memref.extract_strided_metadata` to an op result or a block argument.
Value underlyingBuffer(Value v);

/// `buffer`'s root allocation (`underlyingBuffer`) and every view of that root.
llvm::SmallPtrSet<Value, 8> bufferAliases(Value buffer);

/// Whether `op` (or an op nested in it) may write or free one of `buffers`;
/// a top-level dealloc of one of them is collected in `deallocs` instead.
bool mayWriteBuffers(Operation *op, const llvm::SmallPtrSet<Value, 8> &buffers,
                     SmallVectorImpl<Operation *> &deallocs);

} // namespace mlir::relax

#endif // RELAX_MLIR_LIB_CODEGEN_COMMON_BUFFERS_H
