//===- Shape.cpp - relax shape ops to tensor and linalg ops ---------------===//

#include "LoweringUtils.h"

#include "mlir/Dialect/SCF/IR/SCF.h"

#include <array>

using namespace mlir;
using namespace mlir::relax;
using namespace mlir::relax::lowering;

namespace {

/// relax.reshape through collapse_shape/expand_shape.
struct ReshapeLowering : OpConversionPattern<ReshapeOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(ReshapeOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    rewriter.replaceOp(op, reshapeTensor(rewriter, op.getLoc(), adaptor.getX(), op.getType()));
    return success();
  }
};

/// relax.permute_dims to linalg.transpose.
struct PermuteDimsLowering : OpConversionPattern<PermuteDimsOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(PermuteDimsOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    Value init = emptyTensor(rewriter, op.getLoc(), op.getType());
    auto t = linalg::TransposeOp::create(rewriter, op.getLoc(), adaptor.getX(), init,
                                         op.getPermutation());
    rewriter.replaceOp(op, t->getResults());
    return success();
  }
};

/// Ops that only regroup elements in row-major order (expand_dims, squeeze,
/// flatten) lower as reshapes.
template <typename Op>
struct RegroupLowering : OpConversionPattern<Op> {
  using OpConversionPattern<Op>::OpConversionPattern;
  LogicalResult matchAndRewrite(Op op, typename Op::Adaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    rewriter.replaceOp(op, reshapeTensor(rewriter, op.getLoc(), adaptor.getX(),
                                         cast<RankedTensorType>(op.getType())));
    return success();
  }
};

/// relax.concat: each operand inserted at its offset into one empty tensor.
struct ConcatLowering : OpConversionPattern<ConcatOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(ConcatOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    RankedTensorType type = op.getType();
    int64_t axis = op.getNormalizedAxis(), rank = type.getRank(), offset = 0;
    Value result = emptyTensor(rewriter, loc, type);
    for (Value v : adaptor.getTensors()) {
      auto t = cast<RankedTensorType>(v.getType());
      if (t.getNumElements() == 0) {
        offset += t.getDimSize(axis);
        continue; // an empty part writes nothing (and its offset may lie past the end)
      }
      SmallVector<int64_t> offsets(rank, 0), strides(rank, 1);
      offsets[axis] = offset;
      result = tensor::InsertSliceOp::create(rewriter, loc, v, result, ValueRange{}, ValueRange{},
                                             ValueRange{}, offsets, t.getShape(), strides);
      offset += t.getDimSize(axis);
    }
    rewriter.replaceOp(op, result);
    return success();
  }
};

/// relax.strided_slice: a tensor.extract_slice with positive strides (a
/// negative-stride axis reads the same elements from the lowest up), then,
/// when some stride was negative, one generic reversing those axes.
struct StridedSliceLowering : OpConversionPattern<StridedSliceOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(StridedSliceOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    MLIRContext *ctx = op.getContext();
    RankedTensorType type = op.getType();
    SmallVector<int64_t> offsets, sizes, strides;
    SmallVector<AffineExpr> exprs;
    bool reversed = false;
    for (auto [d, slice] : llvm::enumerate(op.getAxisSlices())) {
      AffineExpr i = getAffineDimExpr(d, ctx);
      if (slice.stride < 0 && slice.count > 1) {
        offsets.push_back(slice.start + slice.stride * (slice.count - 1));
        strides.push_back(-slice.stride);
        exprs.push_back(slice.count - 1 - i);
        reversed = true;
      } else {
        offsets.push_back(slice.count > 0 ? slice.start : 0);
        strides.push_back(std::abs(slice.stride));
        exprs.push_back(i);
      }
      sizes.push_back(slice.count);
    }
    Value v = tensor::ExtractSliceOp::create(rewriter, loc, type, adaptor.getX(), ValueRange{},
                                             ValueRange{}, ValueRange{}, offsets, sizes, strides);
    if (reversed)
      v = buildGather(rewriter, loc, v, type, AffineMap::get(type.getRank(), 0, exprs, ctx));
    rewriter.replaceOp(op, v);
    return success();
  }
};

/// relax.tile: result index i reads x at i mod size (leading new axes dropped).
struct TileLowering : OpConversionPattern<TileOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(TileOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    MLIRContext *ctx = op.getContext();
    auto type = cast<RankedTensorType>(op.getType());
    RankedTensorType xType = op.getX().getType();
    int64_t lead = type.getRank() - xType.getRank();
    SmallVector<AffineExpr> exprs;
    for (int64_t d = 0; d < xType.getRank(); ++d) {
      int64_t size = xType.getDimSize(d);
      AffineExpr i = getAffineDimExpr(d + lead, ctx);
      exprs.push_back(size == type.getDimSize(d + lead) || size == 0 ? i : i % size);
    }
    rewriter.replaceOp(op, buildGather(rewriter, op.getLoc(), adaptor.getX(), type,
                                       AffineMap::get(type.getRank(), 0, exprs, ctx)));
    return success();
  }
};

/// relax.pad: a fill with the pad value and x inserted at the before-widths.
struct PadLowering : OpConversionPattern<PadOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(PadOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto type = cast<RankedTensorType>(op.getType());
    Type elt = type.getElementType();
    double padValue = op.getPadValue().convertToDouble();
    Value fillValue;
    if (elt.isInteger(1))
      fillValue = arith::ConstantOp::create(rewriter, loc, rewriter.getBoolAttr(padValue != 0.0));
    else
      fillValue = scalar(rewriter, loc, elt, padValue);
    SmallVector<int64_t> low, high;
    for (int64_t d = 0; d < type.getRank(); ++d) {
      low.push_back(op.getPadWidth()[2 * d]);
      high.push_back(op.getPadWidth()[2 * d + 1]);
    }
    rewriter.replaceOp(op, padTensor(rewriter, loc, adaptor.getX(), low, high, fillValue));
    return success();
  }
};

/// The position an index `i` (an integer of the indices' type) of take and
/// scatter_add selects along an axis of size `n`: negative counts from the
/// end, then clamped into [0, n).
static Value axisIndex(OpBuilder &b, Location l, Value i, int64_t n) {
  Type elt = i.getType();
  Value size = scalar(b, l, elt, static_cast<double>(n));
  Value negative =
      arith::CmpIOp::create(b, l, arith::CmpIPredicate::slt, i, scalar(b, l, elt, 0.0));
  i = arith::SelectOp::create(b, l, negative, arith::AddIOp::create(b, l, i, size), i);
  i = arith::MaxSIOp::create(b, l, i, scalar(b, l, elt, 0.0));
  i = arith::MinSIOp::create(b, l, i, scalar(b, l, elt, static_cast<double>(n - 1)));
  return arith::IndexCastOp::create(b, l, b.getIndexType(), i);
}

/// relax.take: a generic over the result reading the index at the result's
/// index dims, normalizing it (negative from the end, then clamped) and
/// extracting x there.
struct TakeLowering : OpConversionPattern<TakeOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(TakeOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    MLIRContext *ctx = op.getContext();
    auto type = cast<RankedTensorType>(op.getType());
    Value x = adaptor.getX();
    auto xType = cast<RankedTensorType>(x.getType());
    int64_t axis = 0;
    if (auto a = op.getAxis()) {
      axis = static_cast<int64_t>(*a);
      if (axis < 0)
        axis += xType.getRank();
    } else {
      xType = RankedTensorType::get({xType.getNumElements()}, xType.getElementType());
      x = reshapeTensor(rewriter, loc, x, xType);
    }
    auto idxType = cast<RankedTensorType>(op.getIndices().getType());
    int64_t q = idxType.getRank(), n = xType.getDimSize(axis);
    SmallVector<AffineExpr> idxExprs;
    for (int64_t j = 0; j < q; ++j)
      idxExprs.push_back(getAffineDimExpr(axis + j, ctx));
    SmallVector<AffineMap> maps = {AffineMap::get(type.getRank(), 0, idxExprs, ctx),
                                   AffineMap::getMultiDimIdentityMap(type.getRank(), ctx)};
    SmallVector<utils::IteratorType> iterators(type.getRank(), utils::IteratorType::parallel);
    auto generic = linalg::GenericOp::create(
        rewriter, loc, TypeRange{type}, ValueRange{adaptor.getIndices()},
        ValueRange{emptyTensor(rewriter, loc, type)}, maps, iterators,
        [&](OpBuilder &b, Location l, ValueRange args) {
          Value i = axisIndex(b, l, args[0], n);
          SmallVector<Value> at;
          for (int64_t d = 0; d < axis; ++d)
            at.push_back(linalg::IndexOp::create(b, l, d));
          at.push_back(i);
          for (int64_t d = axis + 1; d < xType.getRank(); ++d)
            at.push_back(linalg::IndexOp::create(b, l, d - 1 + q));
          linalg::YieldOp::create(b, l, tensor::ExtractOp::create(b, l, x, at).getResult());
        });
    rewriter.replaceOp(op, generic.getResult(0));
    return success();
  }
};

/// The normalized axis of take/scatter_add's optional `axis` (0 of the
/// flattened x without one) and x's shape seen as [pre, n, post] around it.
static std::array<int64_t, 3> aroundAxis(RankedTensorType xType, std::optional<int64_t> axisAttr) {
  if (!axisAttr)
    return {1, xType.getNumElements(), 1};
  int64_t axis = *axisAttr < 0 ? *axisAttr + xType.getRank() : *axisAttr;
  int64_t pre = 1, post = 1;
  for (int64_t d = 0; d < axis; ++d)
    pre *= xType.getDimSize(d);
  for (int64_t d = axis + 1; d < xType.getRank(); ++d)
    post *= xType.getDimSize(d);
  return {pre, xType.getDimSize(axis), post};
}

/// relax.scatter_add and relax.scatter: x viewed as [pre, n, post] and
/// updates as [pre, m, post]; an scf.for over the m indices carries the
/// result, combining update slice j (pre x post) into the slice at the
/// normalized index in place (a generic whose output is the extracted slice,
/// so that bufferization updates the carried buffer without a copy).
/// Sequential over the indices: repeated indices accumulate without atomics,
/// and scatter's "set" keeps the last update.
template <typename Op>
struct ScatterLowering : OpConversionPattern<Op> {
  using OpConversionPattern<Op>::OpConversionPattern;
  using OpAdaptor = typename Op::Adaptor;

  /// The update `u` combined with the value `v` there.
  static Value combine(Op op, OpBuilder &b, Location l, Value v, Value u) {
    if constexpr (std::is_same_v<Op, ScatterAddOp>) {
      return buildAdd(b, l, v, u);
    } else {
      StringRef reduction = op.getReduction();
      if (reduction == "multiply")
        return buildMul(b, l, v, u);
      if (reduction == "max")
        return floatOrInt<arith::MaximumFOp, arith::MaxSIOp>(b, l, v, u);
      if (reduction == "min")
        return floatOrInt<arith::MinimumFOp, arith::MinSIOp>(b, l, v, u);
      return u;
    }
  }

  LogicalResult matchAndRewrite(Op op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto type = cast<RankedTensorType>(op.getType());
    Type elt = type.getElementType();
    auto [pre, n, post] = aroundAxis(type, op.getAxis());
    auto idxType = cast<RankedTensorType>(adaptor.getIndices().getType());
    int64_t m = idxType.getNumElements();
    Value x = reshapeTensor(rewriter, loc, adaptor.getX(), RankedTensorType::get({pre, n, post}, elt));
    Value updates = reshapeTensor(rewriter, loc, adaptor.getUpdates(),
                                  RankedTensorType::get({pre, m, post}, elt));
    Value indices = reshapeTensor(rewriter, loc, adaptor.getIndices(),
                                  RankedTensorType::get({m}, idxType.getElementType()));
    auto sliceType = RankedTensorType::get({pre, post}, elt);
    MLIRContext *ctx = op.getContext();
    AffineMap identity = AffineMap::getMultiDimIdentityMap(2, ctx);
    SmallVector<utils::IteratorType> iterators(2, utils::IteratorType::parallel);
    Value zero = arith::ConstantIndexOp::create(rewriter, loc, 0);
    Value one = arith::ConstantIndexOp::create(rewriter, loc, 1);
    Value count = arith::ConstantIndexOp::create(rewriter, loc, m);
    auto loop = scf::ForOp::create(
        rewriter, loc, zero, count, one, ValueRange{x},
        [&](OpBuilder &b, Location l, Value j, ValueRange carried) {
          Value at = axisIndex(b, l, tensor::ExtractOp::create(b, l, indices, ValueRange{j}), n);
          SmallVector<OpFoldResult> sizes = {b.getIndexAttr(pre), b.getIndexAttr(1),
                                             b.getIndexAttr(post)};
          SmallVector<OpFoldResult> strides(3, b.getIndexAttr(1));
          SmallVector<OpFoldResult> dst = {b.getIndexAttr(0), at, b.getIndexAttr(0)};
          SmallVector<OpFoldResult> src = {b.getIndexAttr(0), j, b.getIndexAttr(0)};
          Value row = tensor::ExtractSliceOp::create(b, l, sliceType, carried[0], dst, sizes,
                                                     strides);
          Value update =
              tensor::ExtractSliceOp::create(b, l, sliceType, updates, src, sizes, strides);
          auto sum = linalg::GenericOp::create(
              b, l, TypeRange{sliceType}, ValueRange{update}, ValueRange{row},
              SmallVector<AffineMap>{identity, identity}, iterators,
              [&](OpBuilder &bb, Location ll, ValueRange args) {
                linalg::YieldOp::create(bb, ll, combine(op, bb, ll, args[1], args[0]));
              });
          Value result = tensor::InsertSliceOp::create(b, l, sum.getResult(0), carried[0], dst,
                                                       sizes, strides);
          scf::YieldOp::create(b, l, result);
        });
    rewriter.replaceOp(op, reshapeTensor(rewriter, loc, loop.getResult(0), type));
    return success();
  }
};

/// relax.triu / relax.tril: x where (j - i >= k) / (j - i <= k) on the last
/// two axes, else 0.
template <typename Op, bool Upper>
struct TriangleLowering : OpConversionPattern<Op> {
  using OpConversionPattern<Op>::OpConversionPattern;
  LogicalResult matchAndRewrite(Op op, typename Op::Adaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    auto type = cast<RankedTensorType>(op.getType());
    int64_t rank = type.getRank(), k = static_cast<int64_t>(op.getK());
    Type elt = type.getElementType();
    rewriter.replaceOp(
        op, buildElementwise(rewriter, op.getLoc(), type, adaptor.getX(),
                             [&](OpBuilder &b, Location l, ValueRange x) -> Value {
                               Value i = linalg::IndexOp::create(b, l, rank - 2);
                               Value j = linalg::IndexOp::create(b, l, rank - 1);
                               Value diff = arith::SubIOp::create(b, l, j, i);
                               Value kv = arith::ConstantIndexOp::create(b, l, k);
                               Value keep = arith::CmpIOp::create(
                                   b, l, Upper ? arith::CmpIPredicate::sge
                                               : arith::CmpIPredicate::sle,
                                   diff, kv);
                               Value zero = elt.isInteger(1)
                                                ? Value(arith::ConstantOp::create(
                                                      b, l, b.getBoolAttr(false)))
                                                : scalar(b, l, elt, 0.0);
                               return arith::SelectOp::create(b, l, keep, x[0], zero);
                             }));
    return success();
  }
};

} // namespace

/// relax.split becomes a tuple of strided_slices before tuples are flattened.
void mlir::relax::lowering::expandSplits(ModuleOp module) {
  module.walk([](SplitOp op) {
    OpBuilder b(op);
    int64_t axis = op.getNormalizedAxis();
    SmallVector<Value> parts;
    for (auto [begin, end] : op.getBounds())
      parts.push_back(StridedSliceOp::create(b, op.getLoc(), op.getX(),
                                             b.getDenseI64ArrayAttr({axis}),
                                             b.getDenseI64ArrayAttr({begin}),
                                             b.getDenseI64ArrayAttr({end}), DenseI64ArrayAttr()));
    op.replaceAllUsesWith(TupleOp::create(b, op.getLoc(), parts).getResult());
    op.erase();
  });
}

void mlir::relax::lowering::populateShapeLoweringPatterns(RewritePatternSet &patterns) {
  patterns.add<ReshapeLowering, PermuteDimsLowering, RegroupLowering<ExpandDimsOp>,
               RegroupLowering<SqueezeOp>, RegroupLowering<FlattenOp>, ConcatLowering,
               StridedSliceLowering, TileLowering, PadLowering, TakeLowering, ScatterLowering<ScatterAddOp>,
               ScatterLowering<ScatterOp>,
               TriangleLowering<TriuOp, true>, TriangleLowering<TrilOp, false>>(
      patterns.getContext());
}
