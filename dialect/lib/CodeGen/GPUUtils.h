//===- GPUUtils.h - helpers shared by the GPU code-generation passes ------===//
//
// Internal to RelaxMLIRCodeGen: not installed, not part of the public API.
//
//===----------------------------------------------------------------------===//

#ifndef RELAX_MLIR_LIB_CODEGEN_GPUUTILS_H
#define RELAX_MLIR_LIB_CODEGEN_GPUUTILS_H

#include "mlir/Dialect/Linalg/IR/Linalg.h"

namespace mlir::relax {
/// The linalg.generic ops under `root` that no gpu.launch holds yet, in
/// walk order: what a GPU pass may still turn into kernels. Collected before
/// any is rewritten, so a pass may erase or replace them as it goes.
SmallVector<linalg::GenericOp> genericsOutsideKernels(Operation *root);
} // namespace mlir::relax

#endif // RELAX_MLIR_LIB_CODEGEN_GPUUTILS_H
