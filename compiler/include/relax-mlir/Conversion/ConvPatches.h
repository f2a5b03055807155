//===- ConvPatches.h - the patches a 2-D convolution reads -------*- C++ -*-===//
//
// One builder shared by the lowering of relax.conv2d_patches and the CPU
// schedule's convolution-as-contraction rewrite (header-only: the two live in
// libraries that do not link each other).
//
//===----------------------------------------------------------------------===//
#ifndef RELAX_MLIR_CONVERSION_CONVPATCHES_H
#define RELAX_MLIR_CONVERSION_CONVPATCHES_H

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

namespace mlir::relax {
/// The patches of `x` (N, C, H, W; already padded) as one linalg.generic:
/// T[n, c, i, j, y, z] = x[n, c, y * strides[0] + i * dilations[0],
/// z * strides[1] + j * dilations[1]] for a (kh, kw) window and an (oh, ow)
/// output. Each row (fixed n, c, i, j, y) reads consecutive elements of x when
/// the width stride is 1, so that it vectorizes as one contiguous load.
/// With `batchInner`, the same values laid out as [C, KH, KW, N, OH, OW]: the
/// batch joins the pixels in one matrix of columns.
inline Value buildConvPatches(OpBuilder &b, Location loc, Value x, int64_t kh, int64_t kw,
                              ArrayRef<int64_t> strides, ArrayRef<int64_t> dilations,
                              int64_t oh, int64_t ow, bool batchInner = false) {
  auto xType = cast<RankedTensorType>(x.getType());
  int64_t n = xType.getDimSize(0), c = xType.getDimSize(1);
  SmallVector<int64_t> shape = batchInner ? SmallVector<int64_t>{c, kh, kw, n, oh, ow}
                                          : SmallVector<int64_t>{n, c, kh, kw, oh, ow};
  // The loop dim of each of (n, c, i, j, y, z).
  SmallVector<int64_t> dimOf = batchInner ? SmallVector<int64_t>{3, 0, 1, 2, 4, 5}
                                          : SmallVector<int64_t>{0, 1, 2, 3, 4, 5};
  Value empty = tensor::EmptyOp::create(b, loc, shape, xType.getElementType());
  AffineMap id6 = AffineMap::getMultiDimIdentityMap(6, b.getContext());
  auto patches = linalg::GenericOp::create(
      b, loc, TypeRange{empty.getType()}, ValueRange{}, ValueRange{empty}, ArrayRef<AffineMap>{id6},
      SmallVector<utils::IteratorType>(6, utils::IteratorType::parallel),
      [&](OpBuilder &nb, Location l, ValueRange) {
        SmallVector<Value> idx;
        for (int64_t d : dimOf)
          idx.push_back(linalg::IndexOp::create(nb, l, d));
        auto at = [&](Value outer, int64_t stride, Value inner, int64_t dilation) {
          Value a = arith::MulIOp::create(nb, l, outer, arith::ConstantIndexOp::create(nb, l, stride));
          Value d =
              arith::MulIOp::create(nb, l, inner, arith::ConstantIndexOp::create(nb, l, dilation));
          return arith::AddIOp::create(nb, l, a, d).getResult();
        };
        Value row = at(idx[4], strides[0], idx[2], dilations[0]);
        Value col = at(idx[5], strides[1], idx[3], dilations[1]);
        Value v = tensor::ExtractOp::create(nb, l, x, ValueRange{idx[0], idx[1], row, col});
        linalg::YieldOp::create(nb, l, v);
      });
  return patches.getResult(0);
}
} // namespace mlir::relax

#endif // RELAX_MLIR_CONVERSION_CONVPATCHES_H
