//===- Passes.h - relax code generation passes ------------------*- C++ -*-===//
#ifndef RELAX_MLIR_CODEGEN_PASSES_H
#define RELAX_MLIR_CODEGEN_PASSES_H

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/Pass/Pass.h"

#include <optional>

namespace mlir::relax {
#define GEN_PASS_DECL
#include "relax-mlir/CodeGen/Passes.h.inc"

/// What the tiling heuristics need to know about the target.
struct CPUTarget {
  int64_t vectorBits = 512;
  /// Vector registers the accumulator tile of a contraction may occupy.
  int64_t accumulatorRegisters = 24;

  /// The host's width (AVX-512: 512 bits; AVX2: 256; otherwise 128), or
  /// `vectorBits` when > 0; 24 accumulator registers (of 32) at 512 bits, 12
  /// (of 16) below.
  static CPUTarget host(int64_t vectorBits = 0);
  /// Lanes of a vector of `elementType`.
  int64_t lanes(Type elementType) const;
};

/// Tile sizes for one linalg op (one entry per loop; 0 = not tiled).
struct TilePlan {
  /// First level: parallel loops (and, for non-contractions, reductions).
  SmallVector<int64_t> outer;
  /// Second level, applied to the tile: the reduction loops of a contraction.
  SmallVector<int64_t> inner;
  /// Before both (empty or all 0: none): cache blocks of a contraction's
  /// reduction loops.
  SmallVector<int64_t> cacheBlock;
  /// Whether the op is a contraction whose output fill is fused into its tile.
  bool contraction = false;
  /// A contraction whose output's contiguous loop is strided in its input
  /// while both inputs are contiguous along the reduction (`a @ b^T`): it is
  /// computed as `splitK`-wide partial dot products instead (see
  /// relax-cpu-tile); 0 when not.
  int64_t splitK = 0;
  /// The same form with many output rows: the strided input is copied
  /// transposed first, then the op is tiled as an ordinary contraction.
  bool packColumns = false;
  /// A contraction whose lhs is read with its rows contiguous and its
  /// reduction steps far apart (`x^T @ g`): the lhs is copied with the
  /// reduction innermost first, then the op planned again.
  bool packRows = false;
  /// A contraction whose rhs rows (the output's contiguous loop) are long:
  /// the rhs is copied into panels of this many columns, each panel one
  /// contiguous (reduction x columns) block, and the op planned again; 0 when
  /// not.
  int64_t panelCols = 0;
};

/// The register-level tile plan of `op` for `target`, or nothing when the op
/// is not tiled (dynamic shapes, not vectorizable, nothing to gain). Without
/// `allowPacking`, a plan that would copy an input first is not made.
std::optional<TilePlan> planCPUTiles(linalg::LinalgOp op, const CPUTarget &target,
                                     bool allowPacking = true);

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

/// `buffer`'s root allocation (through views) and every view of that root.
llvm::SmallPtrSet<Value, 8> bufferAliases(Value buffer);

/// Whether `op` (or an op nested in it) may write or free one of `buffers`;
/// a top-level dealloc of one of them is collected in `deallocs` instead.
bool mayWriteBuffers(Operation *op, const llvm::SmallPtrSet<Value, 8> &buffers,
                     SmallVectorImpl<Operation *> &deallocs);

/// The attribute that relax-cpu-tile puts on the tile loops whose iterations
/// may run on separate threads (relax-cpu-parallelize makes them scf.parallel).
inline constexpr llvm::StringLiteral kParallelLoopAttr = "relax.parallel";

/// Copies of the rows that register-tile reduction loops read one per step,
/// far apart (the rhs of x @ w: rows a page apart), into a contiguous local
/// panel, made once where every tile that reads the same rows can use it, when
/// the panel takes at most `maxBytes` and at least `minUses` tile loops read
/// it. Nothing when `maxBytes` <= 0.
void packStridedPanels(func::FuncOp func, int64_t maxBytes, int64_t minUses);

/// Software prefetches, `distance` steps ahead, of the rows that register-tile
/// reduction loops (scf.for carrying vectors) read one per step, far apart
/// (not one contiguous stream). Nothing when `distance` <= 0.
void prefetchStridedReads(func::FuncOp func, int64_t distance);

/// Non-temporal stores for register tiles written into a result buffer (a
/// function argument) of at least `minBytes` that the function only writes,
/// with a fence after each such loop nest. Nothing when `minBytes` <= 0.
void streamLargeResults(func::FuncOp func, int64_t minBytes);

#define GEN_PASS_REGISTRATION
#include "relax-mlir/CodeGen/Passes.h.inc"
} // namespace mlir::relax

#endif // RELAX_MLIR_CODEGEN_PASSES_H
