//===- RelaxDialect.cpp - relax dialect registration and inlining ---------===//

#include "relax-mlir/Dialect/Relax/IR/RelaxDialect.h"
#include "relax-mlir/Dialect/Relax/IR/RelaxOps.h"
#include "mlir/Transforms/InliningUtils.h"

using namespace mlir;
using namespace mlir::relax;

#include "relax-mlir/Dialect/Relax/IR/RelaxOpsDialect.cpp.inc"

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
