//===- RelaxDialect.cpp - relax dialect registration and inlining ---------===//

#include "relax-mlir/Dialect/Relax/IR/RelaxDialect.h"
#include "relax-mlir/Dialect/Relax/IR/RelaxOps.h"
#include "mlir/Transforms/InliningUtils.h"
#include "llvm/Support/MathExtras.h"

using namespace mlir;
using namespace mlir::relax;

#include "relax-mlir/Dialect/Relax/IR/RelaxOpsDialect.cpp.inc"

std::optional<int64_t> mlir::relax::tensorSizeInBytes(Type type) {
  auto tensor = dyn_cast<RankedTensorType>(type);
  if (!tensor || !tensor.hasStaticShape())
    return std::nullopt;
  int64_t bytes = 1;
  unsigned bits = tensor.getElementType().isIntOrIndexOrFloat()
                      ? tensor.getElementType().getIntOrFloatBitWidth()
                      : 8;
  if (llvm::MulOverflow<int64_t>(bytes, std::max<int64_t>(1, (bits + 7) / 8), bytes))
    return std::nullopt;
  for (int64_t d : tensor.getShape())
    if (llvm::MulOverflow<int64_t>(bytes, d, bytes))
      return std::nullopt;
  return bytes;
}

bool mlir::relax::hasRepresentableSize(Type type) {
  return tensorSizeInBytes(type).has_value();
}

bool mlir::relax::isRelaxFloatType(Type elementType) {
  return isa<Float16Type, BFloat16Type, Float32Type, Float64Type>(elementType);
}

bool mlir::relax::isRelaxValueType(Type type) {
  if (auto tuple = dyn_cast<TupleType>(type))
    return llvm::all_of(tuple.getTypes(), isRelaxValueType);
  auto tensor = dyn_cast<RankedTensorType>(type);
  if (!tensor || !hasRepresentableSize(tensor))
    return false;
  Type elt = tensor.getElementType();
  return isRelaxFloatType(elt) || elt.isInteger(1) || elt.isInteger(32) || elt.isInteger(64);
}

namespace {
/// Every relax op is pure, so calls into relax functions may always be inlined
/// (the lowering pipeline inlines before flattening tuples).
struct RelaxInlinerInterface : public DialectInlinerInterface {
  using DialectInlinerInterface::DialectInlinerInterface;
  bool isLegalToInline(Operation *, Operation *, bool) const final { return true; }
  bool isLegalToInline(Region *, Region *, bool, IRMapping &) const final { return true; }
  bool isLegalToInline(Operation *, Region *, bool, IRMapping &) const final { return true; }
};
} // namespace

void RelaxDialect::initialize() {
  addOperations<
#define GET_OP_LIST
#include "relax-mlir/Dialect/Relax/IR/RelaxOps.cpp.inc"
      >();
  addInterfaces<RelaxInlinerInterface>();
}
