//===- LoopCarries.cpp - loop carries updated in place --------------------===//

#include "relax-mlir/CodeGen/Passes.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

namespace mlir::relax {
#define GEN_PASS_DEF_LOOPCARRIESINPLACEPASS
#include "relax-mlir/CodeGen/Passes.h.inc"
} // namespace mlir::relax

using namespace mlir;

namespace {

/// The input of `generic` that reads `carry` when the generic may write its
/// result into `carry`'s tensor instead: all parallel, one result written
/// with the identity map into a fresh tensor that the body does not read,
/// `carry` read with the identity map. Null otherwise.
OpOperand *carryInput(linalg::GenericOp generic, Value carry) {
  if (generic.getNumDpsInits() != 1 || generic.getNumParallelLoops() != generic.getNumLoops())
    return nullptr;
  OpOperand *init = generic.getDpsInitOperand(0);
  if (!init->get().getDefiningOp<tensor::EmptyOp>() || generic.payloadUsesValueFromOperand(init) ||
      !generic.getMatchingIndexingMap(init).isIdentity() ||
      init->get().getType() != carry.getType())
    return nullptr;
  for (OpOperand *in : generic.getDpsInputOperands())
    if (in->get() == carry && generic.getMatchingIndexingMap(in).isIdentity())
      return in;
  return nullptr;
}

/// `generic` rewritten to read `input`'s value through its init, which
/// becomes `input`'s tensor: a read-modify-write of the same elements, which
/// bufferizes in place (also once tiled and vectorized).
void readThroughInit(linalg::GenericOp generic, OpOperand *input) {
  OpBuilder b(generic);
  unsigned index = input->getOperandNumber();
  SmallVector<Value> inputs;
  SmallVector<AffineMap> maps;
  for (OpOperand *in : generic.getDpsInputOperands())
    if (in != input) {
      inputs.push_back(in->get());
      maps.push_back(generic.getMatchingIndexingMap(in));
    }
  maps.push_back(generic.getMatchingIndexingMap(generic.getDpsInitOperand(0)));
  auto rewritten = linalg::GenericOp::create(b, generic.getLoc(), generic.getResultTypes(),
                                             inputs, ValueRange{input->get()}, maps,
                                             generic.getIteratorTypesArray());
  rewritten->setDiscardableAttrs(generic->getDiscardableAttrDictionary());
  Region &body = rewritten.getRegion();
  body.takeBody(generic.getRegion());
  Block &block = body.front();
  block.getArgument(index).replaceAllUsesWith(block.getArguments().back());
  block.eraseArgument(index);
  generic->replaceAllUsesWith(rewritten);
  generic.erase();
}

struct LoopCarriesInPlacePass
    : relax::impl::LoopCarriesInPlacePassBase<LoopCarriesInPlacePass> {
  void runOnOperation() final {
    getOperation().walk([](scf::ForOp loop) {
      auto yield = cast<scf::YieldOp>(loop.getBody()->getTerminator());
      for (auto [carry, next] : llvm::zip(loop.getRegionIterArgs(), yield.getOperands())) {
        auto generic = next.getDefiningOp<linalg::GenericOp>();
        if (!generic || generic->getBlock() != loop.getBody())
          continue;
        if (OpOperand *input = carryInput(generic, carry))
          readThroughInit(generic, input);
      }
    });
  }
};
} // namespace
