//===- Pipelines.h - relax lowering pipelines -------------------*- C++ -*-===//
#ifndef RELAX_MLIR_PIPELINES_H
#define RELAX_MLIR_PIPELINES_H

#include "mlir/Pass/PassManager.h"

namespace mlir::relax {
/// relax (on tensors) to the LLVM dialect: inline, flatten tuples, lower to
/// linalg, one-shot bufferize, results to out-parameters, deallocation, loops,
/// LLVM; public functions get a C interface (`_mlir_ciface_<name>`).
void buildRelaxToLLVMPipeline(OpPassManager &pm);
void registerRelaxPipelines();
} // namespace mlir::relax

#endif // RELAX_MLIR_PIPELINES_H
