//===- RelaxOps.cpp - relax op verifiers, type inference and folders ------===//

#include "relax-mlir/Dialect/Relax/IR/RelaxOps.h"
#include "relax-mlir/Dialect/Relax/IR/GradientUtils.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/OpImplementation.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallSet.h"

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

static std::string shapeStr(ArrayRef<int64_t> shape) {
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
    return emitOptionalError(loc, "operand shapes ", shapeStr(a.getShape()), " and ",
                             shapeStr(b.getShape()), " are not broadcast-compatible");
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

void mlir::relax::populateRelaxCanonicalizationPatterns(RewritePatternSet &patterns) {
  MLIRContext *ctx = patterns.getContext();
  for (RegisteredOperationName name : ctx->getRegisteredOperations())
    if (name.getDialectNamespace() == RelaxDialect::getDialectNamespace())
      name.getCanonicalizationPatterns(patterns, ctx);
}

//===----------------------------------------------------------------------===//
// DataflowOp
//===----------------------------------------------------------------------===//

OutputOp DataflowOp::getOutput() { return cast<OutputOp>(getBody().front().getTerminator()); }

LogicalResult DataflowOp::verify() {
  Block &block = getBody().front();
  if (block.empty() || !isa<OutputOp>(block.back()))
    return emitOpError("body must end with 'relax.output'");
  OutputOp output = getOutput();
  if (output.getOperandTypes() != getResultTypes())
    return emitOpError("has result types (")
           << getResultTypes() << ") but its 'relax.output' yields ("
           << output.getOperandTypes() << ")";
  return success();
}

//===----------------------------------------------------------------------===//
// Tuples
//===----------------------------------------------------------------------===//

LogicalResult TupleOp::inferReturnTypes(MLIRContext *ctx, std::optional<Location>,
                                        Adaptor adaptor, SmallVectorImpl<Type> &results) {
  results.push_back(TupleType::get(ctx, adaptor.getFields().getTypes()));
  return success();
}

LogicalResult TupleGetItemOp::inferReturnTypes(MLIRContext *, std::optional<Location> loc,
                                               Adaptor adaptor, SmallVectorImpl<Type> &results) {
  auto tuple = dyn_cast<TupleType>(adaptor.getTuple().getType());
  if (!tuple)
    return emitOptionalError(loc, "operand must be a tuple");
  int64_t index = adaptor.getIndex();
  if (index < 0 || index >= static_cast<int64_t>(tuple.size()))
    return emitOptionalError(loc, "index ", index, " is out of range for a tuple of ",
                             tuple.size(), " fields");
  results.push_back(tuple.getType(index));
  return success();
}

OpFoldResult TupleGetItemOp::fold(FoldAdaptor) {
  if (auto tuple = getTuple().getDefiningOp<TupleOp>())
    return tuple.getFields()[getIndex()];
  return {};
}

//===----------------------------------------------------------------------===//
// Elementwise
//===----------------------------------------------------------------------===//

/// For `x op identity` (either order): the other operand, when it already has
/// the result type (a broadcasting identity must stay).
static OpFoldResult foldIdentityOperand(Value lhs, Value rhs, Type result,
                                        bool (*isIdentity)(Value)) {
  if (isIdentity(lhs) && rhs.getType() == result)
    return rhs;
  if (isIdentity(rhs) && lhs.getType() == result)
    return lhs;
  return {};
}

OpFoldResult AddOp::fold(FoldAdaptor) {
  return foldIdentityOperand(getLhs(), getRhs(), getType(), isKnownZero);
}

LogicalResult WhereOp::inferReturnTypes(MLIRContext *, std::optional<Location> loc,
                                        Adaptor adaptor, SmallVectorImpl<Type> &results) {
  auto c = dyn_cast<RankedTensorType>(adaptor.getCond().getType());
  auto a = dyn_cast<RankedTensorType>(adaptor.getLhs().getType());
  auto b = dyn_cast<RankedTensorType>(adaptor.getRhs().getType());
  if (!c || !a || !b)
    return emitOptionalError(loc, "operands must be ranked tensors");
  if (failed(inferBroadcastBinaryType(loc, a, b, results)))
    return failure();
  auto shape = broadcastShapes(c.getShape(), cast<RankedTensorType>(results[0]).getShape());
  if (!shape)
    return emitOptionalError(loc, "condition shape ", shapeStr(c.getShape()),
                             " is not broadcast-compatible with the operands");
  results[0] = RankedTensorType::get(*shape, a.getElementType());
  return success();
}

OpFoldResult SubtractOp::fold(FoldAdaptor) {
  if (isKnownZero(getRhs()) && getLhs().getType() == getType())
    return getLhs();
  return {};
}

OpFoldResult MultiplyOp::fold(FoldAdaptor) {
  return foldIdentityOperand(getLhs(), getRhs(), getType(), isKnownOne);
}

//===----------------------------------------------------------------------===//
// Matmul
//===----------------------------------------------------------------------===//

LogicalResult MatmulOp::inferReturnTypes(MLIRContext *, std::optional<Location> loc,
                                         Adaptor adaptor, SmallVectorImpl<Type> &results) {
  auto a = dyn_cast<RankedTensorType>(adaptor.getLhs().getType());
  auto b = dyn_cast<RankedTensorType>(adaptor.getRhs().getType());
  if (!a || !b)
    return emitOptionalError(loc, "operands must be ranked tensors");
  if (a.getElementType() != b.getElementType())
    return emitOptionalError(loc, "operands have different element types ", a.getElementType(),
                             " and ", b.getElementType());
  if (a.getRank() == 0 || b.getRank() == 0)
    return emitOptionalError(loc, "operands must have rank >= 1 (got ranks ", a.getRank(), " and ",
                             b.getRank(), ")");
  ArrayRef<int64_t> as = a.getShape(), bs = b.getShape();
  int64_t k1 = as.back();
  int64_t k2 = b.getRank() == 1 ? bs[0] : bs[bs.size() - 2];
  if (k1 != k2)
    return emitOptionalError(loc, "contracted dims differ: lhs ", shapeStr(as), " has ", k1,
                             ", rhs ", shapeStr(bs), " has ", k2);
  ArrayRef<int64_t> aBatch = a.getRank() > 2 ? as.drop_back(2) : ArrayRef<int64_t>{};
  ArrayRef<int64_t> bBatch = b.getRank() > 2 ? bs.drop_back(2) : ArrayRef<int64_t>{};
  auto batch = broadcastShapes(aBatch, bBatch);
  if (!batch)
    return emitOptionalError(loc, "batch dims ", shapeStr(aBatch), " and ", shapeStr(bBatch),
                             " are not broadcast-compatible");
  SmallVector<int64_t> shape = *batch;
  if (a.getRank() >= 2)
    shape.push_back(as[as.size() - 2]);
  if (b.getRank() >= 2)
    shape.push_back(bs.back());
  results.push_back(RankedTensorType::get(shape, a.getElementType()));
  return success();
}

//===----------------------------------------------------------------------===//
// Shape manipulation
//===----------------------------------------------------------------------===//

SmallVector<int64_t> PermuteDimsOp::getPermutation() {
  int64_t rank = getX().getType().getRank();
  if (!getAxes())
    return llvm::to_vector(llvm::reverse(llvm::seq<int64_t>(0, rank)));
  return llvm::map_to_vector(*getAxes(), [&](int64_t a) { return a < 0 ? a + rank : a; });
}

LogicalResult PermuteDimsOp::inferReturnTypes(MLIRContext *, std::optional<Location> loc,
                                              Adaptor adaptor, SmallVectorImpl<Type> &results) {
  auto type = dyn_cast<RankedTensorType>(adaptor.getX().getType());
  if (!type)
    return emitOptionalError(loc, "operand must be a ranked tensor");
  int64_t rank = type.getRank();
  SmallVector<int64_t> perm;
  if (auto axes = adaptor.getAxes()) {
    if (static_cast<int64_t>(axes->size()) != rank)
      return emitOptionalError(loc, "axes has ", axes->size(), " entries for a tensor of rank ",
                               rank);
    SmallVector<bool> seen(rank, false);
    for (int64_t a : *axes) {
      if (a < -rank || a >= rank)
        return emitOptionalError(loc, "axis ", a, " is out of range for a tensor of rank ", rank);
      int64_t n = a < 0 ? a + rank : a;
      if (seen[n])
        return emitOptionalError(loc, "axes is not a permutation: axis ", a, " is repeated");
      seen[n] = true;
      perm.push_back(n);
    }
  } else {
    perm = llvm::to_vector(llvm::reverse(llvm::seq<int64_t>(0, rank)));
  }
  SmallVector<int64_t> shape =
      llvm::map_to_vector(perm, [&](int64_t a) { return type.getDimSize(a); });
  results.push_back(RankedTensorType::get(shape, type.getElementType()));
  return success();
}

OpFoldResult PermuteDimsOp::fold(FoldAdaptor) {
  SmallVector<int64_t> perm = getPermutation();
  if (llvm::equal(perm, llvm::seq<int64_t>(0, perm.size())))
    return getX();
  // permute_dims(permute_dims(x, p), q) is x when the two permutations cancel.
  if (auto inner = getX().getDefiningOp<PermuteDimsOp>()) {
    SmallVector<int64_t> innerPerm = inner.getPermutation();
    bool identity = true;
    for (auto [i, p] : llvm::enumerate(perm))
      identity &= innerPerm[p] == static_cast<int64_t>(i);
    if (identity)
      return inner.getX();
  }
  return {};
}

/// True when `op` swaps the two innermost axes and keeps the others.
static bool swapsLastTwo(PermuteDimsOp op) {
  SmallVector<int64_t> perm = op.getPermutation();
  int64_t rank = perm.size();
  if (rank < 2)
    return false;
  for (int64_t i = 0; i < rank - 2; ++i)
    if (perm[i] != i)
      return false;
  return perm[rank - 2] == rank - 1 && perm[rank - 1] == rank - 2;
}

static Value swapLastTwo(PatternRewriter &rewriter, Location loc, Value v) {
  int64_t rank = cast<RankedTensorType>(v.getType()).getRank();
  if (rank == 2) // the default permutation reverses the axes
    return rewriter.createOrFold<PermuteDimsOp>(loc, v, DenseI64ArrayAttr());
  SmallVector<int64_t> perm = llvm::to_vector(llvm::seq<int64_t>(0, rank));
  std::swap(perm[rank - 1], perm[rank - 2]);
  return rewriter.createOrFold<PermuteDimsOp>(loc, v, rewriter.getDenseI64ArrayAttr(perm));
}

namespace {
/// (a b)^T = b^T a^T, applied when an operand is itself a transpose so that the
/// transposes cancel: permute_dims(matmul(a, permute_dims(c))) becomes
/// matmul(c, permute_dims(a)).
struct TransposeOfMatmul : OpRewritePattern<PermuteDimsOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(PermuteDimsOp op, PatternRewriter &rewriter) const override {
    auto matmul = op.getX().getDefiningOp<MatmulOp>();
    if (!matmul || !swapsLastTwo(op))
      return failure();
    Value a = matmul.getLhs(), b = matmul.getRhs();
    if (cast<RankedTensorType>(a.getType()).getRank() < 2 ||
        cast<RankedTensorType>(b.getType()).getRank() < 2)
      return failure();
    auto isTranspose = [](Value v) {
      auto t = v.getDefiningOp<PermuteDimsOp>();
      return t && swapsLastTwo(t);
    };
    if (!isTranspose(a) && !isTranspose(b))
      return failure();
    Location loc = op.getLoc();
    rewriter.replaceOpWithNewOp<MatmulOp>(op, swapLastTwo(rewriter, loc, b),
                                          swapLastTwo(rewriter, loc, a));
    return success();
  }
};
} // namespace

void PermuteDimsOp::getCanonicalizationPatterns(RewritePatternSet &patterns,
                                                MLIRContext *context) {
  patterns.add<TransposeOfMatmul>(context);
}

OpFoldResult ReshapeOp::fold(FoldAdaptor) {
  if (getX().getType() == getType())
    return getX();
  // reshape(reshape(y)) reads y directly.
  if (auto inner = getX().getDefiningOp<ReshapeOp>()) {
    getXMutable().assign(inner.getX());
    return getResult();
  }
  return {};
}

OpFoldResult BroadcastToOp::fold(FoldAdaptor) {
  return getX().getType() == getType() ? getX() : OpFoldResult();
}

OpFoldResult CollapseSumToOp::fold(FoldAdaptor) {
  return getX().getType() == getType() ? getX() : OpFoldResult();
}

static LogicalResult verifySameElementType(Operation *op, RankedTensorType in,
                                           RankedTensorType out) {
  if (in.getElementType() != out.getElementType())
    return op->emitOpError("result element type ")
           << out.getElementType() << " differs from the operand's " << in.getElementType();
  return success();
}

LogicalResult ReshapeOp::verify() {
  if (failed(verifySameElementType(*this, getX().getType(), getType())))
    return failure();
  if (getX().getType().getNumElements() != getType().getNumElements())
    return emitOpError("cannot reshape ")
           << getX().getType() << " (" << getX().getType().getNumElements() << " elements) to "
           << getType() << " (" << getType().getNumElements() << " elements)";
  return success();
}

/// True when `from` broadcasts to exactly `to` under numpy rules.
static bool broadcastsTo(ArrayRef<int64_t> from, ArrayRef<int64_t> to) {
  if (from.size() > to.size())
    return false;
  auto shape = broadcastShapes(from, to);
  return shape && llvm::equal(*shape, to);
}

LogicalResult BroadcastToOp::verify() {
  if (failed(verifySameElementType(*this, getX().getType(), getType())))
    return failure();
  if (!broadcastsTo(getX().getType().getShape(), getType().getShape()))
    return emitOpError("cannot broadcast ") << getX().getType() << " to " << getType();
  return success();
}

LogicalResult CollapseSumToOp::verify() {
  if (failed(verifySameElementType(*this, getX().getType(), getType())))
    return failure();
  if (!broadcastsTo(getType().getShape(), getX().getType().getShape()))
    return emitOpError("cannot collapse-sum ")
           << getX().getType() << " to " << getType()
           << ": the result shape must broadcast to the operand shape";
  return success();
}

#define GET_OP_CLASSES
#include "relax-mlir/Dialect/Relax/IR/RelaxOps.cpp.inc"
