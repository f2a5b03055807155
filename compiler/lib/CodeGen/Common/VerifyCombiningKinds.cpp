//===- VerifyCombiningKinds.cpp - reductions upstream lowers wrong ------===//
//
// relax-verify-combining-kinds: the input of a lowering pipeline.
//
//===----------------------------------------------------------------------===//

#include "relax-mlir/CodeGen/Passes.h"


namespace mlir::relax {
#define GEN_PASS_DEF_VERIFYCOMBININGKINDSPASS
#include "relax-mlir/CodeGen/Passes.h.inc"
} // namespace mlir::relax

using namespace mlir;

namespace {
/// Rejects vector multi-reductions whose combining kind does not apply to
/// their element type (`vector.multi_reduction <maximumf>` over i32),
/// which upstream's verifiers accept and the LLVM lowering turns into invalid
/// IR: the input of a lowering pipeline gets a diagnostic at the op instead.
struct VerifyCombiningKindsPass : relax::impl::VerifyCombiningKindsPassBase<VerifyCombiningKindsPass> {
  using VerifyCombiningKindsPassBase::VerifyCombiningKindsPassBase;

  static LogicalResult check(Operation *op, vector::CombiningKind kind, Type type) {
    Type element = getElementTypeOrSelf(type);
    using K = vector::CombiningKind;
    bool isFloatKind = kind == K::MAXIMUMF || kind == K::MINIMUMF || kind == K::MAXNUMF ||
                       kind == K::MINNUMF;
    bool isIntKind = kind == K::MINUI || kind == K::MINSI || kind == K::MAXUI ||
                     kind == K::MAXSI || kind == K::AND || kind == K::OR || kind == K::XOR;
    if (isFloatKind && !isa<FloatType>(element))
      return op->emitOpError() << "combining kind '" << vector::stringifyCombiningKind(kind)
                               << "' needs a floating-point element type, got " << element;
    if (isIntKind && !element.isIntOrIndex())
      return op->emitOpError() << "combining kind '" << vector::stringifyCombiningKind(kind)
                               << "' needs an integer element type, got " << element;
    return success();
  }

  void runOnOperation() final {
    WalkResult result = getOperation().walk([](Operation *op) {
      LogicalResult checked = success();
      // (vector.reduction and vector.contract verify this themselves.)
      if (auto reduction = dyn_cast<vector::MultiDimReductionOp>(op))
        checked = check(op, reduction.getKind(), reduction.getSourceVectorType());
      return failed(checked) ? WalkResult::interrupt() : WalkResult::advance();
    });
    if (result.wasInterrupted())
      signalPassFailure();
  }
};
} // namespace
