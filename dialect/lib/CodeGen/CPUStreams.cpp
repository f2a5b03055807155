//===- CPUStreams.cpp - prefetches and streaming stores of register tiles -===//
//
// Two memory hints for the loops that relax-cpu-tile and relax-cpu-vectorize
// make, applied by relax-cpu-lower-vectors after bufferization (where the
// addresses are memref indices):
//
//  - A register tile's reduction loop (an scf.for carrying vectors) that
//    reads rows far apart, one per step (the rhs of x @ w: rows of 4 KiB),
//    gets software prefetches of the rows `distance` steps ahead. The
//    hardware prefetchers follow a stream within a page; these rows are each
//    on a page of their own, and the cache sets they map to are too few to
//    keep the panel in L1, so every step waited for L2 or memory.
//  - A register tile stored into a large result buffer that the function
//    never reads back is stored non-temporally: no read of each line before
//    it is overwritten (the gradients of a deep MLP are 32 MiB per step, more
//    than the caches keep).
//
//===----------------------------------------------------------------------===//

#include "relax-mlir/CodeGen/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "llvm/ADT/DenseSet.h"

using namespace mlir;

/// The register-tile reduction loops of `func`: scf.for loops with constant
/// step 1 carrying a vector.
static SmallVector<scf::ForOp> registerTileLoops(func::FuncOp func) {
  SmallVector<scf::ForOp> loops;
  func.walk([&](scf::ForOp loop) {
    std::optional<int64_t> step = getConstantIntValue(loop.getStep());
    if (step == 1 && llvm::any_of(loop.getInitArgs(),
                                  [](Value v) { return isa<VectorType>(v.getType()); }))
      loops.push_back(loop);
  });
  return loops;
}

/// The ops of `body` that `values` are computed from (in block order), or
/// nothing when one of them is not pure.
static std::optional<SmallVector<Operation *>> pureSlice(ValueRange values, Block *body) {
  SmallVector<Operation *> slice;
  llvm::DenseSet<Operation *> seen;
  SmallVector<Value> work(values.begin(), values.end());
  while (!work.empty()) {
    Operation *def = work.pop_back_val().getDefiningOp();
    if (!def || def->getBlock() != body || !seen.insert(def).second)
      continue;
    if (!isPure(def))
      return std::nullopt;
    slice.push_back(def);
    llvm::append_range(work, def->getOperands());
  }
  llvm::sort(slice, [](Operation *a, Operation *b) { return a->isBeforeInBlock(b); });
  return slice;
}

/// Whether `v` is computed in `body` from its loop's induction variable `iv`.
static bool dependsOn(Value v, Value iv, Block *body) {
  SmallVector<Value> work{v};
  llvm::DenseSet<Value> seen;
  while (!work.empty()) {
    Value x = work.pop_back_val();
    if (x == iv)
      return true;
    Operation *def = x.getDefiningOp();
    if (!seen.insert(x).second || !def || def->getBlock() != body)
      continue;
    llvm::append_range(work, def->getOperands());
  }
  return false;
}

/// `v + by` (`v` when `by` is 0).
static Value offsetIndex(OpBuilder &b, Location loc, Value v, int64_t by) {
  if (by == 0)
    return v;
  return arith::AddIOp::create(b, loc, v, arith::ConstantIndexOp::create(b, loc, by));
}

/// Calls `fn(position, at)` for each row of a vector of `shape` read or
/// written at `indices` (a minor identity map): the row's position in the
/// vector (every dimension but the innermost) and the indices of its first
/// element.
static void forEachRow(OpBuilder &b, Location loc, ValueRange indices, ArrayRef<int64_t> shape,
                       function_ref<void(ArrayRef<int64_t>, ArrayRef<Value>)> fn) {
  int64_t rows = 1;
  for (int64_t d : shape.drop_back())
    rows *= d;
  size_t lead = indices.size() - shape.size();
  SmallVector<int64_t> position(shape.size() - 1);
  for (int64_t r = 0; r < rows; ++r) {
    SmallVector<Value> at(indices);
    for (int64_t d = int64_t(shape.size()) - 2, rest = r; d >= 0; --d) {
      position[d] = rest % shape[d];
      rest /= shape[d];
      at[lead + d] = offsetIndex(b, loc, at[lead + d], position[d]);
    }
    fn(position, at);
  }
}

/// Calls `fn(indices)` with the indices of the first element of each cache
/// line that a read of `type` at `indices` (a minor identity map) touches.
static void forEachLine(OpBuilder &b, Location loc, ValueRange indices, VectorType type,
                        function_ref<void(ArrayRef<Value>)> fn) {
  constexpr int64_t lineBits = 512;
  int64_t perLine = std::max<int64_t>(1, lineBits / type.getElementTypeBitWidth());
  forEachRow(b, loc, indices, type.getShape(), [&](ArrayRef<int64_t>, ArrayRef<Value> row) {
    SmallVector<Value> at(row);
    for (int64_t e = 0; e < type.getShape().back(); e += perLine) {
      at.back() = offsetIndex(b, loc, row.back(), e);
      fn(at);
    }
  });
}

void mlir::relax::prefetchStridedReads(func::FuncOp func, int64_t distance) {
  if (distance <= 0)
    return;
  for (scf::ForOp loop : registerTileLoops(func)) {
    Value iv = loop.getInductionVar();
    Block *body = loop.getBody();
    SmallVector<vector::TransferReadOp> reads;
    for (auto read : body->getOps<vector::TransferReadOp>()) {
      auto type = dyn_cast<MemRefType>(read.getBase().getType());
      ValueRange indices = read.getIndices();
      if (!type || indices.size() < 2 || read.getVectorType().getRank() == 0 ||
          !loop.isDefinedOutsideOfLoop(read.getBase()) ||
          read.hasOutOfBoundsDim() || !read.getPermutationMap().isMinorIdentity())
        continue;
      // Rows chosen by the step: the read jumps from row to row.
      if (!llvm::any_of(indices.drop_back(), [&](Value v) { return dependsOn(v, iv, body); }))
        continue;
      // ... unless the rows follow each other in memory (a packed panel:
      // one stream, which the hardware prefetches).
      SmallVector<int64_t> strides;
      int64_t offset;
      VectorType vector = read.getVectorType();
      if (succeeded(type.getStridesAndOffset(strides, offset)) && vector.getRank() == 1 &&
          strides.back() == 1 && strides[strides.size() - 2] == vector.getShape().back() &&
          !dependsOn(indices.back(), iv, body) &&
          llvm::none_of(indices.drop_back(2), [&](Value v) { return dependsOn(v, iv, body); }))
        continue;
      reads.push_back(read);
    }
    if (reads.empty())
      continue;
    // The step `distance` ahead, or the last one (every step's indices are
    // in bounds; those past the loop need not be).
    OpBuilder start = OpBuilder::atBlockBegin(body);
    Location loopLoc = loop.getLoc();
    Value last = arith::SubIOp::create(start, loopLoc, loop.getUpperBound(),
                                       arith::ConstantIndexOp::create(start, loopLoc, 1));
    Value ahead = arith::MinSIOp::create(
        start, loopLoc, offsetIndex(start, loopLoc, iv, distance), last);
    for (vector::TransferReadOp read : reads) {
      std::optional<SmallVector<Operation *>> slice = pureSlice(read.getIndices(), body);
      if (!slice)
        continue;
      OpBuilder b(read);
      Location loc = read.getLoc();
      IRMapping map;
      map.map(iv, ahead);
      for (Operation *op : *slice)
        b.clone(*op, map);
      SmallVector<Value> indices;
      for (Value v : read.getIndices())
        indices.push_back(map.lookupOrDefault(v));
      forEachLine(b, loc, indices, read.getVectorType(), [&](ArrayRef<Value> at) {
        memref::PrefetchOp::create(b, loc, read.getBase(), at, /*isWrite=*/false,
                                   /*localityHint=*/3, /*isDataCache=*/true);
      });
    }
  }
}

/// The function argument that `buffer` is a view of, if any.
static BlockArgument viewedArgument(Value buffer, func::FuncOp func) {
  while (Operation *def = buffer.getDefiningOp()) {
    if (!isa<memref::SubViewOp, memref::ExpandShapeOp, memref::CollapseShapeOp>(def))
      return nullptr;
    buffer = def->getOperand(0);
  }
  auto arg = dyn_cast<BlockArgument>(buffer);
  return arg && arg.getOwner() == &func.getBody().front() ? arg : nullptr;
}

/// Whether `arg` is only written, through views, by vector.transfer_write.
static bool onlyWritten(BlockArgument arg) {
  SmallVector<Value> work{arg};
  while (!work.empty()) {
    Value v = work.pop_back_val();
    for (Operation *user : v.getUsers()) {
      if (isa<memref::SubViewOp, memref::ExpandShapeOp, memref::CollapseShapeOp>(user)) {
        work.push_back(user->getResult(0));
        continue;
      }
      auto write = dyn_cast<vector::TransferWriteOp>(user);
      if (!write || write.getBase() != v)
        return false;
    }
  }
  return true;
}

void mlir::relax::streamLargeResults(func::FuncOp func, int64_t minBytes) {
  if (minBytes <= 0)
    return;
  SmallVector<scf::ForOp> tileLoops = registerTileLoops(func);
  SmallVector<vector::TransferWriteOp> writes;
  func.walk([&](vector::TransferWriteOp write) {
    auto loop = write.getValueToStore().getDefiningOp<scf::ForOp>();
    if (!loop || !llvm::is_contained(tileLoops, loop))
      return;
    // (vector.store needs the innermost dimension contiguous.)
    SmallVector<int64_t> strides;
    int64_t offset;
    if (failed(cast<MemRefType>(write.getBase().getType()).getStridesAndOffset(strides, offset)) ||
        strides.empty() || strides.back() != 1)
      return;
    BlockArgument arg = viewedArgument(write.getBase(), func);
    auto type = arg ? dyn_cast<MemRefType>(arg.getType()) : nullptr;
    VectorType vector = write.getVectorType();
    int64_t width = vector.getElementTypeBitWidth();
    // (movnti stores 32 or 64 bits: other widths would not stream.)
    if (!type || !type.hasStaticShape() || vector.getRank() == 0 || (width != 32 && width != 64) ||
        type.getNumElements() * width / 8 < minBytes || write.hasOutOfBoundsDim() ||
        !write.getPermutationMap().isMinorIdentity() || !onlyWritten(arg))
      return;
    writes.push_back(write);
  });
  llvm::DenseSet<Operation *> fenced;
  for (vector::TransferWriteOp write : writes) {
    OpBuilder b(write);
    Location loc = write.getLoc();
    // One non-temporal vector.store per row of the tile.
    forEachRow(b, loc, write.getIndices(), write.getVectorType().getShape(),
               [&](ArrayRef<int64_t> position, ArrayRef<Value> at) {
                 Value row = vector::ExtractOp::create(b, loc, write.getValueToStore(), position);
                 vector::StoreOp::create(b, loc, row, write.getBase(), at, /*nontemporal=*/true);
               });
    // Non-temporal stores are not ordered with later stores: a fence after
    // the loop nest, so that whoever reads the result next sees it. (When
    // the nest runs in parallel, the fence is the calling thread's, after
    // the join; each worker's stores are ordered by the locked instructions
    // of the barrier it ends with. A fence inside the parallel body, an op
    // of unknown effects, would keep its alloca scope from being inlined.)
    Operation *nest = write;
    while (auto parent = nest->getParentOfType<scf::ForOp>())
      nest = parent;
    if (nest != write && fenced.insert(nest).second) {
      OpBuilder after(nest->getContext());
      after.setInsertionPointAfter(nest);
      LLVM::FenceOp::create(after, loc, LLVM::AtomicOrdering::seq_cst);
    }
    write.erase();
  }
}
