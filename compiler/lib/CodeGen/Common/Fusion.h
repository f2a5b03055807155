//===- Fusion.h - when relax-fuse-elementwise fuses -------------*- C++ -*-===//
//
// Internal to the code-generation passes: the fusion predicates.
//
//===----------------------------------------------------------------------===//
#ifndef RELAX_MLIR_LIB_CODEGEN_COMMON_FUSION_H
#define RELAX_MLIR_LIB_CODEGEN_COMMON_FUSION_H

#include "mlir/IR/Operation.h"
#include "llvm/ADT/STLFunctionalExtras.h"

namespace mlir::relax {
/// The producer of `fused` has one use and its consumer reads each element
/// once: fusing it recomputes nothing.
bool fusionDuplicatesNoWork(OpOperand *fused);

/// The most operations a fused elementwise op's body may hold. Each fusion
/// copies the producer's body into the consumer's, so without a bound a
/// chain of N elementwise ops fused into one costs O(N^2) (a 20,000-op chain
/// took 585 s to compile); with it each fusion costs O(1). A longer chain is
/// several loops, each over its own block of the chain (past a few dozen ops
/// a loop body gains nothing from being longer).
constexpr int64_t kMaxFusedBodyOps = 64;

/// The bodies of `fused`'s producer and consumer together hold at most
/// kMaxFusedBodyOps operations.
bool fusionKeepsBodySmall(OpOperand *fused);

/// Fusing the producer of `fused` into its consumer computes it at the
/// consumer, so the producer's operands live until there. True when that
/// holds no more bytes than the producer's result did, or when no op between
/// the two computes a tensor (nothing is held longer than before).
/// `isBefore(a, b)` orders two ops of one block (Operation::isBeforeInBlock
/// when not given; see FuseElementwisePass for a cheaper one).
bool fusionKeepsPeakMemory(
    OpOperand *fused, llvm::function_ref<bool(Operation *, Operation *)> isBefore = nullptr);

} // namespace mlir::relax

#endif // RELAX_MLIR_LIB_CODEGEN_COMMON_FUSION_H
