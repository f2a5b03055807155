//===- Utils.h - helpers shared by the GPU code-generation passes ---------===//
//
// Internal to RelaxMLIRCodeGen: not installed, not part of the public API.
//
//===----------------------------------------------------------------------===//

#ifndef RELAX_MLIR_LIB_CODEGEN_GPU_UTILS_H
#define RELAX_MLIR_LIB_CODEGEN_GPU_UTILS_H

#include "mlir/Dialect/Linalg/IR/Linalg.h"

namespace mlir::relax {
/// The linalg.generic ops under `root` that no gpu.launch holds yet, in
/// walk order: what a GPU pass may still turn into kernels. Collected before
/// any is rewritten, so a pass may erase or replace them as it goes.
SmallVector<linalg::GenericOp> genericsOutsideKernels(Operation *root);

/// Whether `v` is a fresh allocation's buffer (no alias but its uses).
bool isAllocation(Value v);

/// Whether every use of `buffer` other than `op` and `except` comes after
/// `op` in its block (directly or nested in a later op): nothing reads or
/// writes it before `op` runs, so `op` may be moved earlier or fused with
/// what defines `buffer`'s values.
bool usedOnlyAfter(Value buffer, Operation *op, Operation *except = nullptr);

/// The linalg.fill that gives `buffer` the values `user` starts from: the
/// fill writes all of `buffer`, a fresh allocation, with a scalar of its
/// element type, before `user` in the same block, and no other op touches
/// `buffer` until `user` (every other use comes after it, and an allocation
/// has no aliases but its uses). A kernel replacing `user` may then start
/// from the fill's scalar and the fill may go: one launch and one pass over
/// the buffer fewer. Null when there is no such fill.
linalg::FillOp initializingFill(Value buffer, Operation *user);
} // namespace mlir::relax

#endif // RELAX_MLIR_LIB_CODEGEN_GPU_UTILS_H
