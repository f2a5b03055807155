//===- Streams.cpp - panels, prefetches and streaming stores of tiles -----===//
//
// Memory layouts and hints for the loops that relax-cpu-tile and
// relax-cpu-vectorize make, applied after bufferization (where the addresses
// are memref indices), each a pass of its own:
//
//  - relax-cpu-pack-panels: the rows that several register tiles' reduction loops read one per
//    step, far apart (the rhs of x @ w), are copied once into a contiguous
//    local panel on the stack, which those loops then read instead.
//  - relax-cpu-prefetch: a register tile's reduction loop (an scf.for carrying vectors) that
//    still reads rows far apart, one per step (rows of 4 KiB, each on a page
//    of its own), gets software prefetches of the rows `distance` steps ahead. The
//    hardware prefetchers follow a stream within a page; these rows are each
//    on a page of their own, and the cache sets they map to are too few to
//    keep the panel in L1, so every step waited for L2 or memory.
//  - relax-cpu-stream-stores: a register tile stored into a large result buffer that the function
//    never reads back is stored non-temporally: no read of each line before
//    it is overwritten (the gradients of a deep MLP are 32 MiB per step, more
//    than the caches keep); whole vectors where the row's address, checked
//    at run time, allows.
//
//===----------------------------------------------------------------------===//

#include "relax-mlir/CodeGen/Passes.h"
#include "TilePlan.h"
#include "../Common/Buffers.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/IR/Dominance.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/SmallBitVector.h"

namespace mlir::relax {
#define GEN_PASS_DEF_CPUPACKPANELSPASS
#define GEN_PASS_DEF_CPUPREFETCHPASS
#define GEN_PASS_DEF_CPUSTREAMSTORESPASS
#include "relax-mlir/CodeGen/Passes.h.inc"
} // namespace mlir::relax

using namespace mlir;
using namespace mlir::relax;
using namespace mlir::relax::cpu;

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

/// A row index `iv + base` of a loop with induction variable `iv`: `base` is
/// `map` applied to `operands`, every one defined outside the loop (the slot
/// of `iv`, which `map` does not use, holds null).
struct RowBase {
  AffineMap map;
  SmallVector<Value> operands;
  bool operator==(const RowBase &o) const { return map == o.map && operands == o.operands; }
};

/// `index` as `iv + base` in `loop`, if it is that.
static std::optional<RowBase> rowBase(Value index, scf::ForOp loop) {
  MLIRContext *ctx = loop.getContext();
  Value iv = loop.getInductionVar();
  if (index == iv)
    return RowBase{AffineMap::get(0, 0, getAffineConstantExpr(0, ctx)), {}};
  if (auto add = index.getDefiningOp<arith::AddIOp>()) {
    for (auto [a, b] : {std::pair{add.getLhs(), add.getRhs()}, {add.getRhs(), add.getLhs()}})
      if (a == iv && loop.isDefinedOutsideOfLoop(b))
        return RowBase{AffineMap::get(0, 1, getAffineSymbolExpr(0, ctx)), {b}};
    return std::nullopt;
  }
  auto apply = index.getDefiningOp<affine::AffineApplyOp>();
  if (!apply)
    return std::nullopt;
  AffineMap map = apply.getAffineMap();
  RowBase base;
  std::optional<AffineExpr> ivExpr;
  for (auto [i, operand] : llvm::enumerate(apply.getMapOperands())) {
    if (operand == iv) {
      if (ivExpr)
        return std::nullopt;
      ivExpr = i < map.getNumDims()
                   ? getAffineDimExpr(i, ctx)
                   : getAffineSymbolExpr(i - map.getNumDims(), ctx);
      base.operands.push_back(nullptr);
    } else if (loop.isDefinedOutsideOfLoop(operand)) {
      base.operands.push_back(operand);
    } else {
      return std::nullopt;
    }
  }
  if (!ivExpr)
    return std::nullopt;
  AffineExpr row = map.getResult(0);
  AffineExpr rest = row.replace(*ivExpr, getAffineConstantExpr(0, ctx));
  if (simplifyAffineExpr(row - rest, map.getNumDims(), map.getNumSymbols()) != *ivExpr)
    return std::nullopt;
  base.map = AffineMap::get(map.getNumDims(), map.getNumSymbols(), rest);
  return base;
}

namespace {
/// A read of a register tile's reduction loop that takes one row per step
/// of a buffer whose rows are far apart.
struct StridedRowRead {
  vector::TransferReadOp read;
  scf::ForOp loop;
  unsigned rowIndex;
  RowBase base;
  int64_t lb, ub;
  /// The loop over the reduction's blocks around `loop` when the row is
  /// `block + iv` (a long reduction summed in blocks, see relax-cpu-tile):
  /// the rows are then [lb, ub) of all blocks together.
  scf::ForOp blocks = nullptr;

  /// Whether `other` reads the same rows of the same buffer.
  bool sameRows(StridedRowRead &other) {
    if (read.getBase() != other.read.getBase() || rowIndex != other.rowIndex ||
        !(base == other.base) || lb != other.lb || ub != other.ub ||
        read.getVectorType() != other.read.getVectorType())
      return false;
    for (auto [i, a, b] : llvm::enumerate(read.getIndices(), other.read.getIndices()))
      if (i != rowIndex && a != b)
        return false;
    return true;
  }
};
} // namespace

/// The reads of register-tile loop `loop` that a local panel can take: a
/// vector of one row, at least `minRowBytes` from the next row, chosen by
/// the loop's step (`iv + base`), everything else fixed in the loop.
static void stridedRowReads(scf::ForOp loop, int64_t minRowBytes,
                            SmallVectorImpl<StridedRowRead> &found) {
  std::optional<int64_t> lb = getConstantIntValue(loop.getLowerBound());
  std::optional<int64_t> ub = getConstantIntValue(loop.getUpperBound());
  if (!lb || !ub || *ub <= *lb)
    return;
  for (auto read : loop.getBody()->getOps<vector::TransferReadOp>()) {
    auto type = dyn_cast<MemRefType>(read.getBase().getType());
    VectorType vector = read.getVectorType();
    SmallVector<int64_t> strides;
    int64_t offset;
    if (!type || vector.getRank() != 1 || type.getRank() < 2 || read.hasOutOfBoundsDim() ||
        !read.getPermutationMap().isMinorIdentity() || read.getMask() ||
        !loop.isDefinedOutsideOfLoop(read.getBase()) ||
        !loop.isDefinedOutsideOfLoop(read.getPadding()) ||
        failed(type.getStridesAndOffset(strides, offset)) || strides.back() != 1)
      continue;
    std::optional<unsigned> rowIndex;
    bool fixed = true;
    for (auto [i, index] : llvm::enumerate(read.getIndices())) {
      if (loop.isDefinedOutsideOfLoop(index))
        continue;
      if (rowIndex || i + 1 == read.getIndices().size())
        fixed = false;
      rowIndex = i;
    }
    if (!fixed || !rowIndex || ShapedType::isDynamic(strides[*rowIndex]) ||
        strides[*rowIndex] * type.getElementTypeBitWidth() / 8 < minRowBytes)
      continue;
    std::optional<RowBase> base = rowBase(read.getIndices()[*rowIndex], loop);
    if (!base)
      continue;
    // `block + iv` with `block` the induction variable of the loop right
    // around, which steps by this loop's trip from 0 (equal blocks): the
    // rows of every block, numbered from the blocks' start.
    auto blocks = dyn_cast<scf::ForOp>(loop->getParentOp());
    std::optional<int64_t> blocksLb, blocksUb, blocksStep;
    if (blocks) {
      blocksLb = getConstantIntValue(blocks.getLowerBound());
      blocksUb = getConstantIntValue(blocks.getUpperBound());
      blocksStep = getConstantIntValue(blocks.getStep());
    }
    llvm::SmallBitVector used(base->operands.size());
    for (auto [i, operand] : llvm::enumerate(base->operands))
      used[i] = operand == (blocks ? blocks.getInductionVar() : Value());
    if (blocks && blocksLb && blocksUb && blocksStep && *lb == 0 && *ub == *blocksStep &&
        (*blocksUb - *blocksLb) % *blocksStep == 0 && used.count() == 1 &&
        base->map.getNumResults() == 1) {
      unsigned at = used.find_first();
      MLIRContext *ctx = loop.getContext();
      AffineExpr blockExpr = at < base->map.getNumDims()
                                 ? getAffineDimExpr(at, ctx)
                                 : getAffineSymbolExpr(at - base->map.getNumDims(), ctx);
      if (base->map.getResult(0) == blockExpr) {
        RowBase whole{AffineMap::get(0, 0, getAffineConstantExpr(0, ctx)), {}};
        StridedRowRead r{read, loop, *rowIndex, std::move(whole), *blocksLb, *blocksUb};
        r.blocks = blocks;
        found.push_back(std::move(r));
        continue;
      }
    }
    found.push_back({read, loop, *rowIndex, std::move(*base), *lb, *ub});
  }
}

/// Rows of at least this many bytes apart are far apart: a stream of them
/// crosses a page every one or two rows (the hardware prefetchers stop at
/// pages) and maps to few L1 sets.
static constexpr int64_t kFarRowBytes = 2048;

/// Where a panel of `r`'s rows is made: before the outermost loop around
/// the tile loop that does not define anything the read's rows depend on.
static Operation *panelPoint(StridedRowRead &r) {
  Operation *point = r.loop;
  SmallVector<Value> fixed;
  for (auto [i, index] : llvm::enumerate(r.read.getIndices()))
    if (i != r.rowIndex)
      fixed.push_back(index);
  for (Value v : r.base.operands)
    if (v)
      fixed.push_back(v);
  fixed.push_back(r.read.getBase());
  while (auto parent = dyn_cast<scf::ForOp>(point->getParentOp())) {
    if (!llvm::all_of(fixed, [&](Value v) { return parent.isDefinedOutsideOfLoop(v); }))
      break;
    point = parent;
  }
  return point;
}

/// How many times `r`'s tile loop runs per panel made at `point`: the trips
/// of the loops between them.
static int64_t tileRuns(StridedRowRead &r, Operation *point) {
  int64_t n = 1;
  Operation *loop = r.blocks ? r.blocks.getOperation() : r.loop.getOperation();
  for (Operation *op = loop->getParentOp(); op && op != point->getParentOp();
       op = op->getParentOp())
    if (auto outer = dyn_cast<scf::ForOp>(op))
      if (std::optional<APInt> trips = outer.getStaticTripCount())
        n *= trips->getSExtValue();
  return n;
}

namespace {
/// A panel to make: which reads it serves, from where to where.
struct Panel {
  SmallVector<size_t> group;
  Operation *first, *last;
  Block *scope;
  MemRefType type;
  int64_t bytes;
  size_t slot = 0;
};

/// A stack buffer that panels whose spans do not overlap share.
struct Slot {
  Block *scope;
  int64_t bytes = 0;
  SmallVector<std::pair<Operation *, Operation *>> spans;
  Value buffer;
};
} // namespace

/// The panel of reads[i]'s rows that serves it and the later reads of the
/// same rows made in the same block (marked `done`), or nothing: fewer than
/// `minUses` tile runs, more than `maxBytes`, a row index not yet defined
/// where the copy goes, or a write to the rows before the last read.
static std::optional<Panel> panelFor(func::FuncOp func, MutableArrayRef<StridedRowRead> reads,
                                     size_t i, DominanceInfo &dominance, int64_t maxBytes,
                                     int64_t minUses, llvm::DenseSet<Operation *> &done) {
  Operation *first = panelPoint(reads[i]);
  Operation *last = first;
  SmallVector<size_t> group;
  int64_t uses = 0;
  for (size_t j = i; j < reads.size(); ++j) {
    if (done.contains(reads[j].read) || !reads[i].sameRows(reads[j]))
      continue;
    Operation *point = panelPoint(reads[j]);
    if (point->getBlock() != first->getBlock())
      continue;
    if (point->isBeforeInBlock(first))
      first = point;
    if (last->isBeforeInBlock(point))
      last = point;
    group.push_back(j);
    uses += tileRuns(reads[j], point);
  }
  // (Every value the rows depend on must be there before the first.)
  StridedRowRead &r = reads[i];
  SmallVector<Value> needed(r.read.getIndices());
  needed.erase(needed.begin() + r.rowIndex);
  for (Value v : r.base.operands)
    if (v)
      needed.push_back(v);
  VectorType vector = r.read.getVectorType();
  int64_t rows = r.ub - r.lb;
  int64_t bytes = rows * vector.getNumElements() * vector.getElementTypeBitWidth() / 8;
  if (uses < minUses || bytes > maxBytes ||
      !llvm::all_of(needed, [&](Value v) { return dominance.properlyDominates(v, first); }))
    return std::nullopt;
  // Nothing from the copy to the last read may write the rows (an
  // elementwise op computed in place into the buffer between two
  // contractions that read it).
  llvm::SmallPtrSet<Value, 8> rowBuffers = bufferAliases(r.read.getBase());
  SmallVector<Operation *> frees;
  if (llvm::any_of(llvm::make_range(first->getIterator(), std::next(last->getIterator())),
                   [&](Operation &op) { return mayWriteBuffers(&op, rowBuffers, frees); }) ||
      !frees.empty())
    return std::nullopt;
  for (size_t j : group)
    done.insert(reads[j].read);
  // On the stack of the thread that runs the block: the body of the
  // enclosing parallel loop, else the function's entry.
  Block *scope = &func.getBody().front();
  for (Operation *op = first->getParentOp(); op != func; op = op->getParentOp())
    if (op->hasAttr(kParallelLoopAttr)) {
      scope = &op->getRegion(0).front();
      break;
    }
  return Panel{std::move(group), first, last, scope,
               MemRefType::get({rows, vector.getNumElements()}, vector.getElementType()), bytes};
}

/// Stack buffers for `panels` (each panel's `slot`): panels share one unless
/// the ops of their scope that hold them overlap: a step of a deep MLP has a
/// panel per contraction, and one buffer for each would sum to megabytes on
/// one frame.
static SmallVector<Slot> assignSlots(func::FuncOp func, MutableArrayRef<Panel> panels) {
  SmallVector<Slot> slots;
  auto topLevel = [](Operation *op, Block *scope) {
    while (op->getBlock() != scope)
      op = op->getParentOp();
    return op;
  };
  for (Panel &panel : panels) {
    Operation *from = topLevel(panel.first, panel.scope);
    Operation *to = topLevel(panel.last, panel.scope);
    auto disjoint = [&](std::pair<Operation *, Operation *> span) {
      return to->isBeforeInBlock(span.first) || span.second->isBeforeInBlock(from);
    };
    panel.slot = llvm::find_if(slots, [&](Slot &slot) {
                   return slot.scope == panel.scope && llvm::all_of(slot.spans, disjoint);
                 }) - slots.begin();
    if (panel.slot == slots.size())
      slots.push_back({panel.scope});
    Slot &slot = slots[panel.slot];
    slot.bytes = std::max(slot.bytes, panel.bytes);
    slot.spans.push_back({from, to});
  }
  for (Slot &slot : slots) {
    OpBuilder b = OpBuilder::atBlockBegin(slot.scope);
    auto type = MemRefType::get({slot.bytes}, b.getI8Type());
    slot.buffer = memref::AllocaOp::create(b, func.getLoc(), type, ValueRange{},
                                           b.getI64IntegerAttr(64));
  }
  return slots;
}

/// Panel `p` in `buffer`: the copy, row by row, before the first loop that
/// reads it; then each read takes its row from the panel.
static void makePanel(const Panel &p, MutableArrayRef<StridedRowRead> reads, Value buffer) {
  StridedRowRead &r = reads[p.group.front()];
  VectorType vector = r.read.getVectorType();
  int64_t rows = p.type.getDimSize(0);
  Location loc = r.read.getLoc();
  OpBuilder b(p.first);
  Value zero = arith::ConstantIndexOp::create(b, loc, 0);
  Value panel = memref::ViewOp::create(b, loc, p.type, buffer, zero, ValueRange{});
  SmallVector<Value> baseOperands;
  for (Value v : r.base.operands)
    baseOperands.push_back(v ? v : zero);
  Value base = affine::AffineApplyOp::create(b, loc, r.base.map, baseOperands);
  auto copy = scf::ForOp::create(b, loc, zero, arith::ConstantIndexOp::create(b, loc, rows),
                                 arith::ConstantIndexOp::create(b, loc, 1));
  {
    OpBuilder in = OpBuilder::atBlockBegin(copy.getBody());
    Value k = copy.getInductionVar();
    SmallVector<Value> from(r.read.getIndices());
    from[r.rowIndex] = offsetIndex(in, loc, arith::AddIOp::create(in, loc, base, k), r.lb);
    Value row = vector::TransferReadOp::create(in, loc, vector, r.read.getBase(), from,
                                               r.read.getPadding(), ArrayRef<bool>{true});
    vector::TransferWriteOp::create(in, loc, row, panel, ValueRange{k, zero},
                                    ArrayRef<bool>{true});
  }
  for (size_t j : p.group) {
    StridedRowRead &use = reads[j];
    OpBuilder at(use.read);
    Value k = use.loop.getInductionVar();
    if (use.blocks)
      k = arith::AddIOp::create(at, loc, use.blocks.getInductionVar(), k);
    if (use.lb != 0)
      k = arith::SubIOp::create(at, loc, k, arith::ConstantIndexOp::create(at, loc, use.lb));
    Value pzero = arith::ConstantIndexOp::create(at, loc, 0);
    Value row = vector::TransferReadOp::create(at, loc, vector, panel, ValueRange{k, pzero},
                                               use.read.getPadding(), ArrayRef<bool>{true});
    use.read.replaceAllUsesWith(row);
    use.read.erase();
  }
}

static void packStridedPanels(func::FuncOp func, int64_t maxBytes, int64_t minUses) {
  if (maxBytes <= 0)
    return;
  SmallVector<StridedRowRead> reads;
  for (scf::ForOp loop : registerTileLoops(func))
    stridedRowReads(loop, kFarRowBytes, reads);
  DominanceInfo dominance(func);
  SmallVector<Panel> panels;
  llvm::DenseSet<Operation *> done;
  for (size_t i = 0; i < reads.size(); ++i)
    if (!done.contains(reads[i].read))
      if (std::optional<Panel> panel =
              panelFor(func, reads, i, dominance, maxBytes, minUses, done))
        panels.push_back(std::move(*panel));
  SmallVector<Slot> slots = assignSlots(func, panels);
  for (Panel &p : panels)
    makePanel(p, reads, slots[p.slot].buffer);
}

static void prefetchStridedReads(func::FuncOp func, int64_t distance) {
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

/// The alignment up to which non-temporal row stores are whole vectors
/// (movntps needs its address aligned to the vector). A row found
/// misaligned at run time is stored plainly.
static constexpr int64_t kStreamAlignment = 64;

/// Whether the address of element `at` of the buffer described by `layout`
/// (whose aligned pointer is `pointer`, elements of `bytes` bytes) is a
/// multiple of `align`.
static Value addressAligned(OpBuilder &b, Location loc, Value pointer,
                            memref::ExtractStridedMetadataOp layout, ArrayRef<Value> at,
                            int64_t bytes, int64_t align) {
  Value linear = layout.getOffset();
  for (auto [index, stride] : llvm::zip_equal(at, layout.getStrides()))
    linear = arith::AddIOp::create(b, loc, linear, arith::MulIOp::create(b, loc, index, stride));
  Value address = arith::AddIOp::create(
      b, loc, pointer,
      arith::MulIOp::create(b, loc, linear, arith::ConstantIndexOp::create(b, loc, bytes)));
  Value low = arith::AndIOp::create(b, loc, address,
                                    arith::ConstantIndexOp::create(b, loc, align - 1));
  return arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, low,
                               arith::ConstantIndexOp::create(b, loc, 0));
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

static void streamLargeResults(func::FuncOp func, int64_t minBytes) {
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
    VectorType vector = write.getVectorType();
    int64_t rowBytes = vector.getShape().back() * vector.getElementTypeBitWidth() / 8;
    int64_t align = std::min<int64_t>(kStreamAlignment, rowBytes & -rowBytes);
    Value base = write.getBase();
    memref::ExtractStridedMetadataOp layout;
    Value pointer;
    if (align >= 16) {
      layout = memref::ExtractStridedMetadataOp::create(b, loc, base);
      pointer = memref::ExtractAlignedPointerAsIndexOp::create(b, loc, base);
    }
    forEachRow(b, loc, write.getIndices(), vector.getShape(),
               [&](ArrayRef<int64_t> position, ArrayRef<Value> at) {
                 Value row = vector::ExtractOp::create(b, loc, write.getValueToStore(), position);
                 if (!layout) {
                   vector::StoreOp::create(b, loc, row, base, at, /*nontemporal=*/true);
                   return;
                 }
                 Value aligned = addressAligned(b, loc, pointer, layout, at,
                                                vector.getElementTypeBitWidth() / 8, align);
                 scf::IfOp::create(
                     b, loc, aligned,
                     [&](OpBuilder &then, Location at0) {
                       vector::StoreOp::create(then, at0, row, base, at, /*nontemporal=*/true,
                                               llvm::MaybeAlign(align));
                       scf::YieldOp::create(then, at0);
                     },
                     [&](OpBuilder &other, Location at0) {
                       // A plain store: a non-temporal one of unknown
                       // alignment is movnti, 4 or 8 bytes at a time, whose
                       // instruction selection took 40 ms a kernel.
                       vector::StoreOp::create(other, at0, row, base, at);
                       scf::YieldOp::create(other, at0);
                     });
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

namespace {
struct CPUPackPanelsPass : relax::impl::CPUPackPanelsPassBase<CPUPackPanelsPass> {
  using CPUPackPanelsPassBase::CPUPackPanelsPassBase;
  void runOnOperation() override { packStridedPanels(getOperation(), panelBytes, kPanelMinUses); }
};

struct CPUPrefetchPass : relax::impl::CPUPrefetchPassBase<CPUPrefetchPass> {
  using CPUPrefetchPassBase::CPUPrefetchPassBase;
  void runOnOperation() override { prefetchStridedReads(getOperation(), prefetchDistance); }
};

struct CPUStreamStoresPass : relax::impl::CPUStreamStoresPassBase<CPUStreamStoresPass> {
  using CPUStreamStoresPassBase::CPUStreamStoresPassBase;
  void runOnOperation() override {
    // A kernel kept a function since the tensors (relax-outline-tensor-kernels)
    // computes temporaries only: its out-parameters are read again soon.
    if (getOperation()->hasAttr(kKeptKernelAttrName))
      return;
    streamLargeResults(getOperation(), streamingStoreBytes);
  }
};
} // namespace
