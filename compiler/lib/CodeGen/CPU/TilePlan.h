//===- TilePlan.h - the CPU schedule's target and tile plans ----*- C++ -*-===//
//
// Internal to the CPU passes: what the target is (`CPUTarget`), the tile
// plan of one linalg op (`planCPUTiles`, the one place that knows the
// target), and the predicates and constants the passes share.
//
//===----------------------------------------------------------------------===//
#ifndef RELAX_MLIR_LIB_CODEGEN_CPU_TILEPLAN_H
#define RELAX_MLIR_LIB_CODEGEN_CPU_TILEPLAN_H

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

/// The register tile's row loop of contraction `op` whose output's contiguous
/// loop is `colDim`: the innermost other loop of the output that the inputs
/// reading `colDim` do not read (`m` of `(m, n)`, also when the output is
/// split into column panels `(m, nb, n)`).
std::optional<unsigned> outputRowDim(linalg::LinalgOp op, unsigned colDim);

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
