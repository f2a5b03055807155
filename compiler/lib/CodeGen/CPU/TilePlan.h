//===- TilePlan.h - the CPU schedule's target and tile plans ----*- C++ -*-===//
//
// Internal to the CPU passes: what the target is (`CPUTarget`), the strategy
// for one linalg op (`selectCPUTiles`, the one place that knows the target
// and chooses), and the predicates and constants the passes share.
//
//===----------------------------------------------------------------------===//
#ifndef RELAX_MLIR_LIB_CODEGEN_CPU_TILEPLAN_H
#define RELAX_MLIR_LIB_CODEGEN_CPU_TILEPLAN_H

#include "relax-mlir/CodeGen/CPUDialect.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"

#include <optional>

namespace mlir::relax {
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

/// The CPU schedule's strategy for `op` on `target`: its #relax_cpu.tiles
/// (tile sizes, packing, split-K; see CPUAttrs.td), or null when the op is
/// not transformed (dynamic shapes, not vectorizable, nothing to gain).
/// Without `allowPacking`, a selection that would copy an input first (or
/// rewrite a convolution) is not made.
cpu::TilesAttr selectCPUTiles(linalg::LinalgOp op, const CPUTarget &target,
                              bool allowPacking = true);

/// Puts selectCPUTiles's attribute on every linalg op under `root` that has
/// none (relax-cpu-select-tiles, and relax-cpu-pack for the ops it makes).
void selectAllCPUTiles(Operation *root, const CPUTarget &target);

/// The attribute that relax-cpu-tile puts on the tile loops whose iterations
/// may run on separate threads (relax-cpu-parallelize makes them scf.parallel).
inline constexpr llvm::StringLiteral kParallelLoopAttr = "relax.parallel";

namespace cpu {
/// Reduction steps a float contraction's register tile sums from zero before
/// adding the block's sum to its output: each output is then a sum of blocks
/// of at most this many products, so the rounding error grows with the block
/// length plus the number of blocks, not with the whole reduction (f32
/// (2 x 1e6) @ (1e6 x 2) of uniform [0, 1) values: 1.6e-4 relative error summed
/// in one run, as OpenBLAS's K blocks about 1e-6). One vector add per block.
inline constexpr int64_t kAccumulateBlock = 256;

/// Transcendental functions (math ops) that an elementwise epilogue of a
/// contraction's register tile may evaluate (see epilogueOf).
inline constexpr int64_t kEpilogueMaxTranscendental = 1;

/// Rhs rows read one per step, far apart, that the whole-matrix panels above
/// leave alone go to a local panel (relax::packStridedPanels) when at least
/// this many register tiles read it: one copy per panel, then contiguous
/// rows. Measured on the bench steps: deep MLP and transformer block 1-2%
/// faster at one and two threads, the others within noise.
inline constexpr int64_t kPanelMinUses = 4;

/// Whether `op` reads or writes i1 tensors. Those stay scalar: LLVM stores a
/// vector of i1 as packed bits, while a buffer of i1 holds one byte per element.
bool hasBooleanOperand(linalg::LinalgOp op);

/// Whether the vectorizer may take `op` (the memory ABI included).
bool isVectorizable(linalg::LinalgOp op);

/// Whether `op` is a contraction the schedule tiles for registers: a sum of
/// products into an output of rank >= 1 whose every reduction loop indexes
/// both inputs (a loop that indexes one only is a plain reduction of it, and
/// upstream's multiply-reduce-to-contract rewrite builds invalid IR for it).
bool isRegisterContraction(linalg::LinalgOp op);

/// The loop dimension of the last result of `map`, if it is a plain dim.
std::optional<unsigned> innermostDim(AffineMap map);

/// The size of an iteration space (the product of its loop ranges).
int64_t iterations(ArrayRef<int64_t> ranges);

/// The loops a contraction's register tile is built on (see
/// contractionLoops).
struct ContractionLoops {
  /// The output's contiguous loop: the tile's columns.
  unsigned col = 0;
  /// The innermost output loop of the other operand: the tile's rows.
  std::optional<unsigned> row;
  /// The reduction loop, when there is one only.
  std::optional<unsigned> k;
};

/// The loops of contraction `op`, from upstream's inferContractionDims:
/// `col` is the output's contiguous loop, `row` the innermost output loop
/// among the m loops when `col` is an n loop (and the other way round).
std::optional<ContractionLoops> contractionLoops(linalg::LinalgOp op);

/// The input of contraction `op` that a column panel copy would take: the
/// only one reading the output's contiguous loop `colDim`, read contiguously
/// along it through plain loop dimensions, in an op whose body does not use
/// loop indices.
OpOperand *panelOperand(linalg::LinalgOp op, unsigned colDim);

/// The single reduction loop of `op`, if it has exactly one.
std::optional<unsigned> reductionDim(linalg::LinalgOp op);

/// The lhs of contraction `op` (the input not reading the output's
/// contiguous loop `colDim`) when it is read with its rows (`rowDim`)
/// contiguous and its reduction steps kPanelRowBytes or more apart, at
/// addresses that fall into at most kLhsCopyMaxSets L1 sets: `x^T` in
/// `x^T @ g` with rows of 1024 floats (one set: the 128 steps of a tile
/// evict each other from L1 before the next row tile reads them again).
OpOperand *stridedLhs(linalg::LinalgOp op, unsigned colDim, unsigned rowDim);
} // namespace cpu
} // namespace mlir::relax

#endif // RELAX_MLIR_LIB_CODEGEN_CPU_TILEPLAN_H
