//===- SharedContractions.cpp - contractions tiled through shared memory ---===//
//
// relax-gpu-shared-contractions: a (batch) matmul-like linalg.generic becomes
// a gpu.launch whose blocks compute 32x32 output tiles, staging 32x16 tiles
// of both operands in shared memory (see Passes.td).
//
//===----------------------------------------------------------------------===//

#include "relax-mlir/CodeGen/Passes.h"
#include "Utils.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "llvm/ADT/DenseSet.h"

namespace mlir::relax {
#define GEN_PASS_DEF_GPUSHAREDCONTRACTIONSPASS
#include "relax-mlir/CodeGen/Passes.h.inc"
} // namespace mlir::relax

using namespace mlir;

namespace {

// Threads per block (x along N, y along M) and the k-tile; each thread
// computes regM x regN outputs, kThreadsY and kThreadsX apart, so a block's
// output tile is (16 regM) x (16 regN).
constexpr int64_t kTileK = 16;
constexpr int64_t kThreadsX = 16, kThreadsY = 16;
constexpr int64_t kThreads = kThreadsX * kThreadsY;
// Outputs per thread along each side: 4 (64x64 tiles: twice the FMAs per
// shared-memory load) when that leaves enough blocks, else 2 (32x32).
constexpr int64_t kWideReg = 4, kNarrowReg = 2;

/// The roles of a contraction's loop dimensions.
struct Roles {
  SmallVector<unsigned> batch; // in both inputs and the output
  unsigned m, n, k;            // m: lhs and output; n: rhs and output; k: both inputs
};

/// Whether `map` uses dimension `dim`.
bool uses(AffineMap map, unsigned dim) { return map.isFunctionOfDim(dim); }

std::optional<Roles> contractionRoles(linalg::GenericOp op) {
  if (op.getNumDpsInputs() != 2 || op.getNumDpsInits() != 1 || op.getNumReductionLoops() != 1 ||
      !op.hasPureBufferSemantics())
    return std::nullopt;
  SmallVector<AffineMap> maps = op.getIndexingMapsArray();
  for (AffineMap map : maps)
    if (!map.isProjectedPermutation())
      return std::nullopt;
  for (OpOperand &operand : op->getOpOperands())
    if (!isa<MemRefType>(operand.get().getType()))
      return std::nullopt;
  AffineMap lhs = maps[0], rhs = maps[1], out = maps[2];
  Roles roles;
  std::optional<unsigned> m, n, k;
  for (auto [dim, type] : llvm::enumerate(op.getIteratorTypesArray())) {
    bool inL = uses(lhs, dim), inR = uses(rhs, dim), inO = uses(out, dim);
    if (type == utils::IteratorType::reduction) {
      if (!inL || !inR || inO)
        return std::nullopt;
      k = dim;
    } else if (!inO) {
      return std::nullopt;
    } else if (inL && inR) {
      roles.batch.push_back(dim);
    } else if (inL && !m) {
      m = dim;
    } else if (inR && !n) {
      n = dim;
    } else {
      return std::nullopt; // a second M or N dimension, or one in the output only
    }
  }
  if (!m || !n || !k)
    return std::nullopt;
  roles.m = *m;
  roles.n = *n;
  roles.k = *k;
  return roles;
}

/// `map`'s results evaluated at `iv` (a projected permutation: dims only).
SmallVector<Value> indicesOf(AffineMap map, ArrayRef<Value> iv) {
  SmallVector<Value> indices;
  for (AffineExpr expr : map.getResults())
    indices.push_back(iv[cast<AffineDimExpr>(expr).getPosition()]);
  return indices;
}

/// Whether `v` is available at `point` (defined before it, in its block or
/// around it).
bool definedBefore(Value v, Operation *point) {
  Operation *def = v.getDefiningOp();
  if (!def)
    return cast<BlockArgument>(v).getOwner()->getParentOp()->isAncestor(point);
  Operation *inBlock = point->getBlock()->findAncestorOpInBlock(*def);
  if (!inBlock) // defined in a region around `point`'s block
    return def->getBlock()->findAncestorOpInBlock(*point) != nullptr;
  return inBlock->isBeforeInBlock(point);
}

/// Whether everything `op` (with its regions) writes is a fresh allocation
/// outside `guarded`, or memory private to a kernel; and what it frees,
/// outside `guarded` or in `held` (read from registers, not memory).
bool writesOnlyElsewhere(Operation *op, const llvm::DenseSet<Value> &guarded,
                         const llvm::DenseSet<Value> &held) {
  std::optional<SmallVector<MemoryEffects::EffectInstance>> effects =
      getEffectsRecursively(op);
  if (!effects)
    return false;
  for (const MemoryEffects::EffectInstance &effect : *effects) {
    bool frees = isa<MemoryEffects::Free>(effect.getEffect());
    if (!frees && !isa<MemoryEffects::Write>(effect.getEffect()))
      continue;
    Value v = effect.getValue();
    if (v && frees && held.contains(v))
      continue;
    if (!v || guarded.contains(v))
      return false;
    if (op->isAncestor(v.getParentRegion()->getParentOp()) || relax::isAllocation(v) ||
        isa_and_nonnull<memref::AllocaOp>(v.getDefiningOp()))
      continue;
    return false;
  }
  return true;
}

/// The elementwise ops a contraction's kernel also computes (its epilogue):
/// each next linalg.generic that reads what the kernel holds for an output
/// element (the contraction's output, or an earlier epilogue op's) at that
/// element, over the same space, writing a fresh allocation at the same
/// indices (a bias add, an activation, the activation's gradient mask). It
/// runs at the contraction's place, so nothing between may write what it
/// reads, nor touch what it writes. The chain stops at the first reader that
/// does not qualify.
struct Epilogue {
  SmallVector<linalg::GenericOp> ops;
  /// The buffers the kernel writes (the output, then each op's), and whether
  /// anything but the kernel's own ops and deallocations reads them.
  SmallVector<Value> buffers;
  SmallVector<bool> needed;
};

Epilogue epilogueOf(linalg::GenericOp contraction, Value out, Operation *fill) {
  Epilogue epilogue;
  auto outType = cast<MemRefType>(out.getType());
  if (!outType.hasStaticShape() || !outType.getLayout().isIdentity())
    return epilogue;
  llvm::DenseSet<Operation *> fused{contraction};
  if (fill)
    fused.insert(fill); // it goes too
  llvm::DenseSet<Value> held{out};
  for (Operation *next = contraction->getNextNode(); next; next = next->getNextNode()) {
    if (llvm::none_of(next->getOperands(), [&](Value v) { return held.contains(v); }) ||
        isa<memref::DeallocOp, gpu::DeallocOp>(next)) // the kernel holds its elements
      continue;
    auto op = dyn_cast<linalg::GenericOp>(next);
    if (!op || !op.hasPureBufferSemantics() || op.getNumDpsInits() != 1 ||
        op.getNumLoops() != op.getNumParallelLoops() ||
        !op.getBody()->getOps<linalg::IndexOp>().empty() ||
        op.getStaticLoopRanges() != SmallVector<int64_t>(outType.getShape()))
      break;
    Value result = op.getDpsInits()[0];
    auto resultType = dyn_cast<MemRefType>(result.getType());
    if (!resultType || !resultType.getLayout().isIdentity() || !relax::isAllocation(result) ||
        held.contains(result) ||
        !op.getMatchingIndexingMap(op.getDpsInitOperand(0)).isIdentity() ||
        !op.getBody()->getArgument(op.getNumDpsInputs()).use_empty() ||
        result.getDefiningOp()->getNumOperands() != 0)
      break;
    llvm::DenseSet<Value> guarded(held.begin(), held.end());
    guarded.insert(result);
    bool ok = true;
    for (OpOperand *input : op.getDpsInputOperands()) {
      Value v = input->get();
      AffineMap map = op.getMatchingIndexingMap(input);
      if (v == result || (held.contains(v) && !map.isIdentity()) ||
          !map.isProjectedPermutation() ||
          (!held.contains(v) && !definedBefore(v, contraction) &&
           !matchPattern(v, m_Constant())))
        ok = false;
      if (isa<MemRefType>(v.getType()))
        guarded.insert(v);
    }
    // Values the payload uses from outside it: available at the kernel.
    op.getBody()->walk([&](Operation *inner) {
      for (Value v : inner->getOperands())
        if (!op->isAncestor(v.getParentRegion()->getParentOp()) &&
            !definedBefore(v, contraction) && !matchPattern(v, m_Constant()))
          ok = false;
    });
    // Every other use of the result comes after `op` (its allocation moves
    // before the kernel).
    if (!relax::usedOnlyAfter(result, op))
      ok = false;
    for (Operation *between = contraction->getNextNode(); ok && between != op;
         between = between->getNextNode())
      if (!fused.contains(between) && !writesOnlyElsewhere(between, guarded, held))
        ok = false;
    if (!ok)
      break;
    epilogue.ops.push_back(op);
    fused.insert(op);
    held.insert(result);
  }
  // What the kernel writes, and whether any other op reads it.
  epilogue.buffers.push_back(out);
  for (linalg::GenericOp op : epilogue.ops)
    epilogue.buffers.push_back(op.getDpsInits()[0]);
  for (Value buffer : epilogue.buffers)
    epilogue.needed.push_back(
        !relax::isAllocation(buffer) || llvm::any_of(buffer.getUsers(), [&](Operation *user) {
          return !fused.contains(user) && !isa<memref::DeallocOp, gpu::DeallocOp>(user);
        }));
  return epilogue;
}

struct GPUSharedContractionsPass
    : relax::impl::GPUSharedContractionsPassBase<GPUSharedContractionsPass> {
  using Base::Base;

  void runOnOperation() final {
    for (linalg::GenericOp op : relax::genericsOutsideKernels(getOperation()))
      if (!erased.contains(op))
        rewrite(op);
  }

  /// Epilogue ops computed in an earlier contraction's kernel.
  llvm::DenseSet<Operation *> erased;

  void rewrite(linalg::GenericOp op) {
    std::optional<Roles> roles = contractionRoles(op);
    if (!roles)
      return;
    Block *payload = op.getBody();
    if (!payload->getOps<linalg::IndexOp>().empty())
      return;
    Type element = payload->getArgument(2).getType();
    if (!element.isF32() && !element.isF64())
      return;
    Type lhsElement = payload->getArgument(0).getType(),
         rhsElement = payload->getArgument(1).getType();
    SmallVector<int64_t> ranges = op.getStaticLoopRanges();
    if (llvm::any_of(ranges, ShapedType::isDynamic))
      return;
    int64_t M = ranges[roles->m], N = ranges[roles->n], K = ranges[roles->k], batch = 1;
    for (unsigned dim : roles->batch)
      batch *= ranges[dim];
    int64_t wideBlocks = llvm::divideCeil(M, kWideReg * kThreadsY) *
                         llvm::divideCeil(N, kWideReg * kThreadsX) * batch;
    const int64_t regM = wideBlocks >= wideTileMinBlocks ? kWideReg : kNarrowReg,
                  regN = regM, tileM = regM * kThreadsY, tileN = regN * kThreadsX;
    // Grid y (row tiles) and z (batch) are at most 65535 blocks.
    if (M * N < minOutputs || K < kTileK || batch > 65535 ||
        llvm::divideCeil(M, tileM) > 65535)
      return;

    Location loc = op.getLoc();
    MLIRContext *ctx = op.getContext();
    OpBuilder b(op);
    auto index = [&](int64_t v) { return arith::ConstantIndexOp::create(b, loc, v).getResult(); };
    Value one = index(1);
    Value gridX = index(llvm::divideCeil(N, tileN)), gridY = index(llvm::divideCeil(M, tileM));
    auto workgroup = gpu::AddressSpaceAttr::get(ctx, gpu::AddressSpace::Workgroup);
    auto lhsTile = MemRefType::get({tileM, kTileK}, lhsElement, MemRefLayoutAttrInterface(),
                                   workgroup);
    auto rhsTile = MemRefType::get({kTileK, tileN}, rhsElement, MemRefLayoutAttrInterface(),
                                   workgroup);
    auto launch = gpu::LaunchOp::create(b, loc, gridX, gridY, index(batch), index(kThreadsX),
                                        index(kThreadsY), one, /*dynamicSharedMemorySize=*/nullptr,
                                        /*asyncTokenType=*/nullptr, ValueRange(),
                                        TypeRange{lhsTile, rhsTile});
    Value sharedL = launch.getWorkgroupAttributions()[0];
    Value sharedR = launch.getWorkgroupAttributions()[1];
    b.setInsertionPointToStart(&launch.getBody().front());
    Value tx = launch.getThreadIds().x, ty = launch.getThreadIds().y;
    Value m0 = arith::MulIOp::create(b, loc, launch.getBlockIds().y, index(tileM));
    Value n0 = arith::MulIOp::create(b, loc, launch.getBlockIds().x, index(tileN));
    Value thread = arith::AddIOp::create(b, loc, arith::MulIOp::create(b, loc, ty, index(kThreadsX)),
                                         tx);
    // Batch indices from blockIdx.z (row-major over the batch dimensions).
    SmallVector<Value> iv(ranges.size());
    {
      Value linear = launch.getBlockIds().z;
      for (size_t i = roles->batch.size(); i-- > 0;) {
        unsigned dim = roles->batch[i];
        Value size = index(ranges[dim]);
        iv[dim] = i == 0 ? linear : arith::RemUIOp::create(b, loc, linear, size).getResult();
        if (i > 0)
          linear = arith::DivUIOp::create(b, loc, linear, size);
      }
    }
    Value mSize = index(M), nSize = index(N), kSize = index(K);
    auto lessThan = [&](Value a, Value bound) {
      return arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, a, bound).getResult();
    };
    auto zeroOf = [&](Type type) {
      return arith::ConstantOp::create(b, loc, b.getZeroAttr(type)).getResult();
    };
    AffineMap lhsMap = op.getIndexingMapsArray()[0], rhsMap = op.getIndexingMapsArray()[1],
              outMap = op.getIndexingMapsArray()[2];
    Value lhs = op.getDpsInputs()[0], rhs = op.getDpsInputs()[1], out = op.getDpsInits()[0];

    // This thread's outputs: rows m0 + ty + 16 i, columns n0 + tx + 16 j.
    SmallVector<Value> rows, cols;
    for (int64_t i = 0; i < regM; ++i)
      rows.push_back(arith::AddIOp::create(
          b, loc, m0, arith::AddIOp::create(b, loc, ty, index(i * kThreadsY))));
    for (int64_t j = 0; j < regN; ++j)
      cols.push_back(arith::AddIOp::create(
          b, loc, n0, arith::AddIOp::create(b, loc, tx, index(j * kThreadsX))));
    // Guarded load: `value` if `inBounds`, else a zero (never read as data:
    // out-of-range outputs are not stored, out-of-range k is not iterated).
    auto guardedLoad = [&](Value inBounds, Value memref, ArrayRef<Value> indices,
                           Type type) -> Value {
      auto ifOp = scf::IfOp::create(b, loc, TypeRange{type}, inBounds, /*withElse=*/true);
      {
        OpBuilder::InsertionGuard guard(b);
        b.setInsertionPointToStart(ifOp.thenBlock());
        Value v = memref::LoadOp::create(b, loc, memref, indices);
        scf::YieldOp::create(b, loc, v);
        b.setInsertionPointToStart(ifOp.elseBlock());
        scf::YieldOp::create(b, loc, zeroOf(type));
      }
      return ifOp.getResult(0);
    };
    // Accumulators start from the output's values (the generic's semantics),
    // or from the scalar a fill would have written there (the fill goes).
    linalg::FillOp fill = relax::initializingFill(out, op);
    Epilogue epilogue = epilogueOf(op, out, fill);
    for (linalg::GenericOp fused : epilogue.ops) {
      // Its result is allocated before the kernel, and the constants it uses
      // that are made after the contraction are made before it instead (once,
      // not per element; kernel outlining sinks them into the kernel).
      fused.getDpsInits()[0].getDefiningOp()->moveBefore(launch);
      fused->walk([&](Operation *inner) {
        for (Value v : inner->getOperands())
          if (Operation *def = v.getDefiningOp(); def && !fused->isAncestor(def) &&
                                                  matchPattern(v, m_Constant()) &&
                                                  !definedBefore(v, launch))
            def->moveBefore(launch);
      });
    }
    SmallVector<Value> inits;
    for (int64_t i = 0; i < regM; ++i)
      for (int64_t j = 0; j < regN; ++j) {
        if (fill) {
          inits.push_back(fill.getInputs()[0]);
          continue;
        }
        iv[roles->m] = rows[i];
        iv[roles->n] = cols[j];
        Value inside = arith::AndIOp::create(b, loc, lessThan(rows[i], mSize),
                                             lessThan(cols[j], nSize));
        inits.push_back(guardedLoad(inside, out, indicesOf(outMap, iv), element));
      }

    auto kLoop = scf::ForOp::create(b, loc, index(0), kSize, index(kTileK), inits);
    {
      OpBuilder::InsertionGuard guard(b);
      b.setInsertionPointToStart(kLoop.getBody());
      Value k0 = kLoop.getInductionVar();
      // Stage the operands' tiles: each thread copies every kThreads-th element.
      auto stage = [&](Value shared, Value source, AffineMap map, int64_t rowsTile,
                       int64_t colsTile, bool lhsSide, Type type) {
        for (int64_t e = 0; e < rowsTile * colsTile / kThreads; ++e) {
          Value linear = arith::AddIOp::create(b, loc, thread, index(e * kThreads));
          Value r = arith::DivUIOp::create(b, loc, linear, index(colsTile));
          Value c = arith::RemUIOp::create(b, loc, linear, index(colsTile));
          Value global0, global1, bound0, bound1;
          if (lhsSide) { // (m, k)
            global0 = arith::AddIOp::create(b, loc, m0, r);
            global1 = arith::AddIOp::create(b, loc, k0, c);
            bound0 = mSize;
            bound1 = kSize;
            iv[roles->m] = global0;
            iv[roles->k] = global1;
          } else { // (k, n)
            global0 = arith::AddIOp::create(b, loc, k0, r);
            global1 = arith::AddIOp::create(b, loc, n0, c);
            bound0 = kSize;
            bound1 = nSize;
            iv[roles->k] = global0;
            iv[roles->n] = global1;
          }
          Value inside = arith::AndIOp::create(b, loc, lessThan(global0, bound0),
                                               lessThan(global1, bound1));
          Value v = guardedLoad(inside, source, indicesOf(map, iv), type);
          memref::StoreOp::create(b, loc, v, shared, ValueRange{r, c});
        }
      };
      stage(sharedL, lhs, lhsMap, tileM, kTileK, /*lhsSide=*/true, lhsElement);
      stage(sharedR, rhs, rhsMap, kTileK, tileN, /*lhsSide=*/false, rhsElement);
      gpu::BarrierOp::create(b, loc);
      // The k's of this tile in order (the last tile may be partial): the
      // payload folds each output exactly as the sequential loop does.
      Value kEnd = arith::MinSIOp::create(b, loc, index(kTileK),
                                          arith::SubIOp::create(b, loc, kSize, k0));
      auto inner = scf::ForOp::create(b, loc, index(0), kEnd, one, kLoop.getRegionIterArgs());
      {
        OpBuilder::InsertionGuard innerGuard(b);
        b.setInsertionPointToStart(inner.getBody());
        Value kk = inner.getInductionVar();
        SmallVector<Value> as, bs, next;
        for (int64_t i = 0; i < regM; ++i)
          as.push_back(memref::LoadOp::create(
              b, loc, sharedL, ValueRange{arith::AddIOp::create(b, loc, ty, index(i * kThreadsY)),
                                          kk}));
        for (int64_t j = 0; j < regN; ++j)
          bs.push_back(memref::LoadOp::create(
              b, loc, sharedR, ValueRange{kk, arith::AddIOp::create(b, loc, tx,
                                                                    index(j * kThreadsX))}));
        for (int64_t i = 0; i < regM; ++i)
          for (int64_t j = 0; j < regN; ++j) {
            IRMapping mapping;
            mapping.map(payload->getArgument(0), as[i]);
            mapping.map(payload->getArgument(1), bs[j]);
            mapping.map(payload->getArgument(2), inner.getRegionIterArgs()[i * regN + j]);
            for (Operation &inner : payload->without_terminator())
              b.clone(inner, mapping);
            next.push_back(mapping.lookupOrDefault(
                cast<linalg::YieldOp>(payload->getTerminator()).getOperand(0)));
          }
        scf::YieldOp::create(b, loc, next);
      }
      // Every thread is done reading the tiles before the next are staged.
      gpu::BarrierOp::create(b, loc);
      scf::YieldOp::create(b, loc, inner.getResults());
    }
    for (int64_t i = 0; i < regM; ++i)
      for (int64_t j = 0; j < regN; ++j) {
        iv[roles->m] = rows[i];
        iv[roles->n] = cols[j];
        Value inside = arith::AndIOp::create(b, loc, lessThan(rows[i], mSize),
                                             lessThan(cols[j], nSize));
        auto ifOp = scf::IfOp::create(b, loc, inside, /*withElse=*/false);
        OpBuilder::InsertionGuard guard(b);
        b.setInsertionPointToStart(ifOp.thenBlock());
        // The output element, then each epilogue op's from what the kernel
        // holds (at the output's indices, in the output's dimension order).
        SmallVector<Value> at = indicesOf(outMap, iv);
        DenseMap<Value, Value> held{{out, kLoop.getResult(i * regN + j)}};
        for (auto [k, buffer] : llvm::enumerate(epilogue.buffers)) {
          if (k > 0)
            held[buffer] = computeElement(b, epilogue.ops[k - 1], held, at);
          if (epilogue.needed[k])
            memref::StoreOp::create(b, loc, held[buffer], buffer, at);
        }
      }
    gpu::TerminatorOp::create(b, loc);
    op.erase();
    if (fill)
      fill.erase();
    for (linalg::GenericOp fused : epilogue.ops) {
      erased.insert(fused);
      fused.erase();
    }
    // Buffers no one reads any more: their allocation and deallocation go.
    for (auto [buffer, needed] : llvm::zip(epilogue.buffers, epilogue.needed)) {
      if (needed)
        continue;
      for (Operation *user : llvm::make_early_inc_range(buffer.getUsers()))
        user->erase(); // the deallocations
      buffer.getDefiningOp()->erase();
    }
  }

  /// The element of `op` (an epilogue op) at indices `at` of its space: its
  /// payload on the values the kernel holds and on loads of its other inputs.
  Value computeElement(OpBuilder &b, linalg::GenericOp op, const DenseMap<Value, Value> &held,
                       ArrayRef<Value> at) {
    Location loc = op.getLoc();
    Block *payload = op.getBody();
    IRMapping mapping;
    for (OpOperand *input : op.getDpsInputOperands()) {
      BlockArgument arg = payload->getArgument(input->getOperandNumber());
      Value v = input->get();
      if (auto it = held.find(v); it != held.end()) {
        mapping.map(arg, it->second);
      } else if (isa<MemRefType>(v.getType())) {
        AffineMap map = op.getMatchingIndexingMap(input);
        mapping.map(arg, memref::LoadOp::create(b, loc, v, indicesOf(map, at)).getResult());
      } else { // a scalar defined before the kernel (constants were moved there)
        mapping.map(arg, v);
      }
    }
    for (Operation &inner : payload->without_terminator())
      b.clone(inner, mapping);
    return mapping.lookupOrDefault(cast<linalg::YieldOp>(payload->getTerminator()).getOperand(0));
  }
};
} // namespace
