//===- Reductions.cpp - large reductions as block reductions --------------===//
//
// relax-gpu-block-reductions: a linalg.generic whose reduction is long and
// whose outputs are few becomes a gpu.launch with one block per output
// element; the block's threads fold strided slices of the reduction and
// gpu.all_reduce combines their partial values (see Passes.td).
// relax-gpu-reductions-inside: the other reductions get their parallel loops
// outermost, so that each thread folds its own output elements.
//
//===----------------------------------------------------------------------===//

#include "relax-mlir/CodeGen/Passes.h"
#include "Utils.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/IR/IRMapping.h"
#include "llvm/ADT/TypeSwitch.h"

#include <limits>

namespace mlir::relax {
#define GEN_PASS_DEF_GPUBLOCKREDUCTIONSPASS
#define GEN_PASS_DEF_GPUREDUCTIONSINSIDEPASS
#include "relax-mlir/CodeGen/Passes.h.inc"
} // namespace mlir::relax

using namespace mlir;

namespace {

/// The payload's combiner: `combiner(acc, x)` with `acc` the output argument.
struct Combiner {
  Operation *op;
  gpu::AllReduceOperation kind;
};

/// The all-reduce kind of `op` (a binary arith op), if it has one.
std::optional<gpu::AllReduceOperation> reduceKind(Operation *op) {
  using K = gpu::AllReduceOperation;
  return llvm::TypeSwitch<Operation *, std::optional<K>>(op)
      .Case<arith::AddFOp, arith::AddIOp>([](auto) { return K::ADD; })
      .Case<arith::MulFOp, arith::MulIOp>([](auto) { return K::MUL; })
      .Case<arith::MaximumFOp>([](auto) { return K::MAXIMUMF; })
      .Case<arith::MinimumFOp>([](auto) { return K::MINIMUMF; })
      .Case<arith::MaxNumFOp>([](auto) { return K::MAXNUMF; })
      .Case<arith::MinNumFOp>([](auto) { return K::MINNUMF; })
      .Case<arith::MaxSIOp>([](auto) { return K::MAXSI; })
      .Case<arith::MinSIOp>([](auto) { return K::MINSI; })
      .Default([](Operation *) { return std::nullopt; });
}

/// The identity of `kind` for `type` (f32, f64, i32 or i64).
TypedAttr identity(gpu::AllReduceOperation kind, Type type) {
  using K = gpu::AllReduceOperation;
  if (auto ft = dyn_cast<FloatType>(type)) {
    const llvm::fltSemantics &sem = ft.getFloatSemantics();
    switch (kind) {
    case K::ADD:
      return FloatAttr::get(ft, 0.0);
    case K::MUL:
      return FloatAttr::get(ft, 1.0);
    case K::MAXIMUMF:
    case K::MAXNUMF:
      return FloatAttr::get(ft, llvm::APFloat::getInf(sem, /*Negative=*/true));
    default:
      return FloatAttr::get(ft, llvm::APFloat::getInf(sem, /*Negative=*/false));
    }
  }
  auto it = cast<IntegerType>(type);
  unsigned width = it.getWidth();
  switch (kind) {
  case K::ADD:
    return IntegerAttr::get(it, 0);
  case K::MUL:
    return IntegerAttr::get(it, 1);
  case K::MAXSI:
    return IntegerAttr::get(it, llvm::APInt::getSignedMinValue(width));
  default:
    return IntegerAttr::get(it, llvm::APInt::getSignedMaxValue(width));
  }
}

/// The combiner of `op`'s payload: the yielded value is `c(out, x)` where
/// `out` (the output argument) has no other use, so `x` does not depend on it.
std::optional<Combiner> findCombiner(linalg::GenericOp op) {
  Block *body = op.getBody();
  auto yield = cast<linalg::YieldOp>(body->getTerminator());
  if (yield.getNumOperands() != 1)
    return std::nullopt;
  BlockArgument out = body->getArgument(op.getNumDpsInputs());
  Operation *combiner = yield.getOperand(0).getDefiningOp();
  if (!combiner || combiner->getNumOperands() != 2 || !out.hasOneUse() ||
      (combiner->getOperand(0) != out && combiner->getOperand(1) != out))
    return std::nullopt;
  std::optional<gpu::AllReduceOperation> kind = reduceKind(combiner);
  if (!kind)
    return std::nullopt;
  return Combiner{combiner, *kind};
}

/// Row-major indices of `linear` over `sizes`.
SmallVector<Value> delinearize(OpBuilder &b, Location loc, Value linear,
                               ArrayRef<int64_t> sizes) {
  SmallVector<Value> indices(sizes.size());
  for (size_t i = sizes.size(); i-- > 0;) {
    Value size = arith::ConstantIndexOp::create(b, loc, sizes[i]);
    indices[i] = i == 0 ? linear : arith::RemUIOp::create(b, loc, linear, size).getResult();
    if (i > 0)
      linear = arith::DivUIOp::create(b, loc, linear, size);
  }
  return indices;
}

struct GPUBlockReductionsPass
    : relax::impl::GPUBlockReductionsPassBase<GPUBlockReductionsPass> {
  using Base::Base;

  void runOnOperation() final {
    if (blockSize < 32 || blockSize > 1024 || blockSize % 32 != 0) {
      getOperation().emitError("relax-gpu-block-reductions: block-size must be a multiple "
                               "of 32 in [32, 1024], got ")
          << static_cast<int64_t>(blockSize);
      return signalPassFailure();
    }
    for (linalg::GenericOp op : relax::genericsOutsideKernels(getOperation()))
      rewrite(op);
  }

  void rewrite(linalg::GenericOp op) {
    if (!op.hasPureBufferSemantics() || op.getNumDpsInits() != 1 || op.getNumReductionLoops() == 0)
      return;
    std::optional<Combiner> combiner = findCombiner(op);
    if (!combiner)
      return;
    // The output is indexed by parallel dimensions only (dims, no expressions).
    AffineMap outMap = op.getMatchingIndexingMap(op.getDpsInitOperand(0));
    if (!outMap.isProjectedPermutation() ||
        llvm::any_of(outMap.getResults(), [&](AffineExpr e) {
          auto dim = dyn_cast<AffineDimExpr>(e);
          return !dim || op.getIteratorTypesArray()[dim.getPosition()] !=
                             utils::IteratorType::parallel;
        }))
      return;
    Type element = op.getBody()->getArgument(op.getNumDpsInputs()).getType();
    if (!element.isF32() && !element.isF64() && !element.isInteger(32) &&
        !element.isInteger(64))
      return;
    SmallVector<int64_t> ranges = op.getStaticLoopRanges();
    SmallVector<unsigned> parallelDims, reductionDims;
    SmallVector<int64_t> parallelSizes, reductionSizes;
    int64_t outputs = 1, extent = 1;
    for (auto [dim, type] : llvm::enumerate(op.getIteratorTypesArray())) {
      if (ShapedType::isDynamic(ranges[dim]))
        return;
      if (type == utils::IteratorType::parallel) {
        parallelDims.push_back(dim);
        parallelSizes.push_back(ranges[dim]);
        outputs *= ranges[dim];
      } else {
        reductionDims.push_back(dim);
        reductionSizes.push_back(ranges[dim]);
        extent *= ranges[dim];
      }
    }
    if (extent < minExtent || extent < outputs ||
        outputs > std::numeric_limits<int32_t>::max())
      return;

    // Thread 0 combines the total with the output's value, or with the
    // scalar a fill would have written there (the fill goes).
    linalg::FillOp fill = relax::initializingFill(op.getDpsInits()[0], op);
    Location loc = op.getLoc();
    OpBuilder b(op);
    Value one = arith::ConstantIndexOp::create(b, loc, 1);
    Value grid = arith::ConstantIndexOp::create(b, loc, outputs);
    Value threads = arith::ConstantIndexOp::create(b, loc, blockSize);
    auto launch = gpu::LaunchOp::create(b, loc, grid, one, one, threads, one, one);
    b.setInsertionPointToStart(&launch.getBody().front());
    Value block = launch.getBlockIds().x, thread = launch.getThreadIds().x;

    // This block's output element: its indices over the parallel dimensions.
    SmallVector<Value> iv(ranges.size());
    for (auto [dim, index] : llvm::zip(parallelDims, delinearize(b, loc, block, parallelSizes)))
      iv[dim] = index;

    // Each thread folds iterations thread, thread + blockSize, ... < extent.
    Value init = arith::ConstantOp::create(b, loc, identity(combiner->kind, element));
    Value end = arith::ConstantIndexOp::create(b, loc, extent);
    auto loop = scf::ForOp::create(b, loc, thread, end, threads, ValueRange{init});
    {
      OpBuilder::InsertionGuard guard(b);
      b.setInsertionPointToStart(loop.getBody());
      for (auto [dim, index] : llvm::zip(
               reductionDims, delinearize(b, loc, loop.getInductionVar(), reductionSizes)))
        iv[dim] = index;
      IRMapping mapping;
      Block *payload = op.getBody();
      for (OpOperand *input : op.getDpsInputOperands()) {
        BlockArgument arg = payload->getArgument(input->getOperandNumber());
        Value value = input->get();
        if (!isa<MemRefType>(value.getType())) { // a scalar operand
          mapping.map(arg, value);
          continue;
        }
        AffineMap map = op.getMatchingIndexingMap(input);
        SmallVector<Value> indices;
        SmallVector<OpFoldResult> operands(iv.begin(), iv.end());
        for (unsigned r = 0; r < map.getNumResults(); ++r)
          indices.push_back(getValueOrCreateConstantIndexOp(
              b, loc,
              affine::makeComposedFoldedAffineApply(b, loc, map.getSubMap({r}), operands)));
        mapping.map(arg, memref::LoadOp::create(b, loc, value, indices).getResult());
      }
      mapping.map(payload->getArgument(op.getNumDpsInputs()), loop.getRegionIterArg(0));
      for (Operation &inner : payload->without_terminator()) {
        if (auto index = dyn_cast<linalg::IndexOp>(inner)) {
          mapping.map(index.getResult(), iv[index.getDim()]);
          continue;
        }
        b.clone(inner, mapping);
      }
      scf::YieldOp::create(b, loc, mapping.lookup(combiner->op->getResult(0)));
    }

    // The block's total, then thread 0 combines it into the output.
    Value total = gpu::AllReduceOp::create(
                      b, loc, loop.getResult(0),
                      gpu::AllReduceOperationAttr::get(b.getContext(), combiner->kind),
                      b.getUnitAttr())
                      .getResult();
    Value zero = arith::ConstantIndexOp::create(b, loc, 0);
    Value first = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, thread, zero);
    auto ifFirst = scf::IfOp::create(b, loc, first, /*withElseRegion=*/false);
    {
      OpBuilder::InsertionGuard guard(b);
      b.setInsertionPointToStart(ifFirst.thenBlock());
      OpOperand *init = op.getDpsInitOperand(0);
      AffineMap map = op.getMatchingIndexingMap(init);
      SmallVector<Value> indices;
      for (AffineExpr expr : map.getResults())
        indices.push_back(iv[cast<AffineDimExpr>(expr).getPosition()]);
      Value old = fill ? fill.getInputs()[0]
                       : memref::LoadOp::create(b, loc, init->get(), indices).getResult();
      BlockArgument out = op.getBody()->getArgument(op.getNumDpsInputs());
      Value x = combiner->op->getOperand(0) == out ? combiner->op->getOperand(1)
                                                    : combiner->op->getOperand(0);
      IRMapping mapping;
      mapping.map(out, old);
      mapping.map(x, total);
      Operation *combined = b.clone(*combiner->op, mapping);
      memref::StoreOp::create(b, loc, combined->getResult(0), init->get(), indices);
    }
    gpu::TerminatorOp::create(b, loc);
    op.erase();
    if (fill)
      fill.erase();
  }
};

struct GPUReductionsInsidePass
    : relax::impl::GPUReductionsInsidePassBase<GPUReductionsInsidePass> {
  void runOnOperation() final {
    IRRewriter rewriter(&getContext());
    for (linalg::GenericOp op : relax::genericsOutsideKernels(getOperation())) {
      // The parallel dimensions first, then the reductions, each in their
      // order: every output element still folds its reduction in order.
      SmallVector<unsigned> order;
      SmallVector<utils::IteratorType> iterators = op.getIteratorTypesArray();
      for (auto [dim, type] : llvm::enumerate(iterators))
        if (type == utils::IteratorType::parallel)
          order.push_back(dim);
      for (auto [dim, type] : llvm::enumerate(iterators))
        if (type != utils::IteratorType::parallel)
          order.push_back(dim);
      if (llvm::equal(order, llvm::seq<unsigned>(0, order.size())))
        continue;
      rewriter.setInsertionPoint(op);
      if (failed(linalg::interchangeGenericOp(rewriter, op, order))) {
        op.emitError("relax-gpu-reductions-inside: could not interchange the loops");
        return signalPassFailure();
      }
    }
  }
};
} // namespace
