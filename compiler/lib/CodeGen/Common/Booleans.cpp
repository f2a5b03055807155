//===- Booleans.cpp - boolean tensors between linalg ops held as bytes ----===//
//
// relax-widen-booleans: a linalg.generic computing an i1 tensor that only
// other linalg.generics read (a comparison feeding a `where`, a causal mask
// used forward and backward) computes it as i8 instead, and its readers
// truncate each element back to i1 in their bodies. In memory nothing
// changes (a buffer of i1 holds one byte per element), but the ops no longer
// have i1 operands, which the CPU schedule leaves scalar (LLVM loads and
// stores a vector of i1 as packed bits), so they are vectorized like the
// rest.
//
//===----------------------------------------------------------------------===//

#include "relax-mlir/CodeGen/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

namespace mlir::relax {
#define GEN_PASS_DEF_WIDENBOOLEANSPASS
#include "relax-mlir/CodeGen/Passes.h.inc"
} // namespace mlir::relax

using namespace mlir;

namespace {
/// Whether `type` is a ranked tensor of i1.
bool isBooleanTensor(Type type) {
  auto tensor = dyn_cast<RankedTensorType>(type);
  return tensor && tensor.getElementType().isInteger(1);
}

/// Whether result `index` of `op` may be computed as i8: its init is a
/// tensor.empty that the body does not read, and every use of the result is
/// an input of a linalg.generic on tensors.
bool widenable(linalg::GenericOp op, unsigned index) {
  if (!isBooleanTensor(op->getResult(index).getType()))
    return false;
  OpOperand *init = op.getDpsInitOperand(index);
  if (!init->get().getDefiningOp<tensor::EmptyOp>() || op.payloadUsesValueFromOperand(init))
    return false;
  return llvm::all_of(op->getResult(index).getUses(), [](OpOperand &use) {
    auto reader = dyn_cast<linalg::GenericOp>(use.getOwner());
    return reader && reader.hasPureTensorSemantics() && reader.isDpsInput(&use);
  });
}

/// Makes result `index` of `op` an i8 tensor (1 for true) and has every reader
/// truncate its element back to i1.
void widen(OpBuilder &b, linalg::GenericOp op, unsigned index) {
  MLIRContext *ctx = op.getContext();
  Type i8 = IntegerType::get(ctx, 8);
  Value result = op->getResult(index);
  auto type = cast<RankedTensorType>(result.getType());
  auto wide = RankedTensorType::get(type.getShape(), i8, type.getEncoding());

  OpOperand *init = op.getDpsInitOperand(index);
  auto empty = init->get().getDefiningOp<tensor::EmptyOp>();
  b.setInsertionPoint(op);
  init->set(tensor::EmptyOp::create(b, empty.getLoc(), wide, empty.getDynamicSizes()));
  op.getMatchingBlockArgument(init).setType(i8);
  Operation *yield = op.getBody()->getTerminator();
  b.setInsertionPoint(yield);
  Value bit = yield->getOperand(index);
  yield->setOperand(index, arith::ExtUIOp::create(b, bit.getLoc(), i8, bit));
  result.setType(wide);

  for (OpOperand &use : result.getUses()) {
    auto reader = cast<linalg::GenericOp>(use.getOwner());
    BlockArgument arg = reader.getMatchingBlockArgument(&use);
    arg.setType(i8);
    if (arg.use_empty())
      continue;
    b.setInsertionPointToStart(reader.getBody());
    Value narrow = arith::TruncIOp::create(b, reader.getLoc(), b.getI1Type(), arg);
    arg.replaceAllUsesExcept(narrow, narrow.getDefiningOp());
  }
}

struct WidenBooleansPass : relax::impl::WidenBooleansPassBase<WidenBooleansPass> {
  void runOnOperation() override {
    SmallVector<std::pair<linalg::GenericOp, unsigned>> results;
    getOperation().walk([&](linalg::GenericOp op) {
      if (!op.hasPureTensorSemantics())
        return;
      for (unsigned i = 0, e = op->getNumResults(); i < e; ++i)
        if (widenable(op, i))
          results.push_back({op, i});
    });
    OpBuilder b(&getContext());
    for (auto [op, index] : results)
      widen(b, op, index);
  }
};
} // namespace
