//===- Utils.cpp - helpers shared by the GPU code-generation passes -------===//

#include "Utils.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"

using namespace mlir;

SmallVector<linalg::GenericOp> relax::genericsOutsideKernels(Operation *root) {
  SmallVector<linalg::GenericOp> generics;
  root->walk([&](linalg::GenericOp op) {
    if (!op->getParentOfType<gpu::LaunchOp>())
      generics.push_back(op);
  });
  return generics;
}

bool relax::isAllocation(Value v) {
  return isa_and_nonnull<memref::AllocOp, gpu::AllocOp>(v.getDefiningOp());
}

bool relax::usedOnlyAfter(Value buffer, Operation *op, Operation *except) {
  Block *block = op->getBlock();
  return llvm::all_of(buffer.getUsers(), [&](Operation *user) {
    if (user == op || user == except)
      return true;
    Operation *inBlock = block->findAncestorOpInBlock(*user);
    return inBlock && inBlock != op && op->isBeforeInBlock(inBlock);
  });
}

linalg::FillOp relax::initializingFill(Value buffer, Operation *user) {
  if (!isAllocation(buffer))
    return nullptr;
  linalg::FillOp fill;
  for (Operation *other : buffer.getUsers()) {
    auto candidate = dyn_cast<linalg::FillOp>(other);
    if (candidate && candidate->getBlock() == user->getBlock() &&
        candidate->isBeforeInBlock(user) && candidate.getOutputs()[0] == buffer) {
      fill = candidate;
      break;
    }
  }
  // A second fill, or any other use, before `user` disqualifies it.
  if (!fill || !usedOnlyAfter(buffer, user, fill) || !fill.hasPureBufferSemantics() ||
      fill.getInputs()[0].getType() != getElementTypeOrSelf(buffer.getType()))
    return nullptr;
  return fill;
}
