//===- RelaxOps.cpp - shared helpers and the generated op classes -===//

#include "relax-mlir/Dialect/Relax/IR/RelaxOps.h"
#include "relax-mlir/Dialect/Relax/IR/GradientUtils.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/OpImplementation.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallSet.h"

#include <cmath>

using namespace mlir;
using namespace mlir::relax;

#include "relax-mlir/Dialect/Relax/IR/RelaxInterfaces.cpp.inc"

//===----------------------------------------------------------------------===//
// Shared shape helpers
//===----------------------------------------------------------------------===//

std::optional<SmallVector<int64_t>> mlir::relax::broadcastShapes(ArrayRef<int64_t> a,
                                                                 ArrayRef<int64_t> b) {
  size_t rank = std::max(a.size(), b.size());
  SmallVector<int64_t> out(rank);
  for (size_t i = 0; i < rank; ++i) {
    int64_t da = i < rank - a.size() ? 1 : a[i - (rank - a.size())];
    int64_t db = i < rank - b.size() ? 1 : b[i - (rank - b.size())];
    if (da != db && da != 1 && db != 1)
      return std::nullopt;
    out[i] = da == 1 ? db : da;
  }
  return out;
}

std::string mlir::relax::formatShape(ArrayRef<int64_t> shape) {
  std::string s = "(";
  llvm::raw_string_ostream os(s);
  llvm::interleaveComma(shape, os);
  os << ")";
  return s;
}

LogicalResult mlir::relax::inferBroadcastBinaryType(std::optional<Location> loc, Type lhs,
                                                    Type rhs, SmallVectorImpl<Type> &results) {
  auto a = dyn_cast<RankedTensorType>(lhs);
  auto b = dyn_cast<RankedTensorType>(rhs);
  if (!a || !b)
    return emitOptionalError(loc, "operands must be ranked tensors");
  if (a.getElementType() != b.getElementType())
    return emitOptionalError(loc, "operands have different element types ", a.getElementType(),
                             " and ", b.getElementType());
  auto shape = broadcastShapes(a.getShape(), b.getShape());
  if (!shape)
    return emitOptionalError(loc, "operand shapes ", formatShape(a.getShape()), " and ",
                             formatShape(b.getShape()), " are not broadcast-compatible");
  results.push_back(RankedTensorType::get(*shape, a.getElementType()));
  return success();
}

SmallVector<int64_t> mlir::relax::normalizeReductionAxes(Type input,
                                                         std::optional<ArrayRef<int64_t>> axis) {
  int64_t rank = cast<RankedTensorType>(input).getRank();
  SmallVector<int64_t> axes;
  if (!axis)
    return llvm::to_vector(llvm::seq<int64_t>(0, rank));
  for (int64_t a : *axis)
    axes.push_back(a < 0 ? a + rank : a);
  llvm::sort(axes);
  return axes;
}

LogicalResult mlir::relax::inferReductionType(std::optional<Location> loc, Type input,
                                              DenseI64ArrayAttr axis, bool keepdims,
                                              SmallVectorImpl<Type> &results) {
  auto type = dyn_cast<RankedTensorType>(input);
  if (!type)
    return emitOptionalError(loc, "operand must be a ranked tensor");
  int64_t rank = type.getRank();
  llvm::SmallSet<int64_t, 4> seen;
  if (axis) {
    for (int64_t a : axis.asArrayRef()) {
      if (a < -rank || a >= rank)
        return emitOptionalError(loc, "axis ", a, " is out of range for a tensor of rank ", rank);
      if (!seen.insert(a < 0 ? a + rank : a).second)
        return emitOptionalError(loc, "axis ", a, " is repeated");
    }
  }
  SmallVector<int64_t> reduced =
      normalizeReductionAxes(type, axis ? std::optional(axis.asArrayRef()) : std::nullopt);
  SmallVector<int64_t> shape;
  for (int64_t d = 0; d < rank; ++d) {
    if (!llvm::is_contained(reduced, d))
      shape.push_back(type.getDimSize(d));
    else if (keepdims)
      shape.push_back(1);
  }
  results.push_back(RankedTensorType::get(shape, type.getElementType()));
  return success();
}

Value mlir::relax::buildTransposeLastTwo(OpBuilder &b, Location loc, Value v) {
  int64_t rank = cast<RankedTensorType>(v.getType()).getRank();
  if (rank == 2) // the default permutation reverses the axes
    return PermuteDimsOp::create(b, loc, v, DenseI64ArrayAttr());
  SmallVector<int64_t> perm = llvm::to_vector(llvm::seq<int64_t>(0, rank));
  std::swap(perm[rank - 1], perm[rank - 2]);
  return PermuteDimsOp::create(b, loc, v, b.getDenseI64ArrayAttr(perm));
}

#define GET_OP_CLASSES
#include "relax-mlir/Dialect/Relax/IR/RelaxOps.cpp.inc"
