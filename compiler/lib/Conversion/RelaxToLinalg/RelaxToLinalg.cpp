//===- RelaxToLinalg.cpp - lower relax ops to linalg on tensors -----------===//
//
// Elementwise ops and broadcasts become linalg.generic with broadcasting
// indexing maps; reductions, collapse_sum_to and matmul become linalg.generic
// reductions into a zero-filled init; permute_dims becomes linalg.transpose;
// reshapes go through tensor.collapse_shape/expand_shape; loops and
// conditionals become scf ops on tensors first (ControlFlow.cpp).
//
// One file per op family (Elementwise, Reductions, LinearAlgebra, Shape,
// Creation, ControlFlow); shared builders in LoweringUtils.
//
//===----------------------------------------------------------------------===//

#include "LoweringUtils.h"
#include "relax-mlir/Conversion/Passes.h"
#include "relax-mlir/Dialect/Relax/IR/RelaxOps.h"
#include "relax-mlir/Transforms/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/AffineMap.h"

namespace mlir::relax {
#define GEN_PASS_DEF_CONVERTRELAXTOLINALGPASS
#include "relax-mlir/Conversion/Passes.h.inc"
} // namespace mlir::relax

using namespace mlir;
using namespace mlir::relax;
using namespace mlir::relax::lowering;

namespace {
struct ConvertRelaxToLinalgPass
    : relax::impl::ConvertRelaxToLinalgPassBase<ConvertRelaxToLinalgPass> {
  void runOnOperation() final {
    ModuleOp module = getOperation();
    expandSplits(module);
    if (failed(flattenTuples(module)))
      return signalPassFailure();
    lowerControlFlow(module);
    MLIRContext *ctx = &getContext();
    ConversionTarget target(*ctx);
    target.addIllegalDialect<RelaxDialect>();
    target.markUnknownOpDynamicallyLegal([](Operation *) { return true; });
    RewritePatternSet patterns(ctx);
    populateRelaxToLinalgConversionPatterns(patterns);
    if (failed(applyPartialConversion(module, target, std::move(patterns))))
      return signalPassFailure();
    splatConstantsToFills(module);
  }
};

/// Any relax op whose one result is a tensor with no elements is an empty
/// tensor: nothing is computed, and the slices and inserts the op's own
/// lowering would build on zero-size dims need no valid offsets.
struct EmptyResultLowering : ConversionPattern {
  EmptyResultLowering(MLIRContext *ctx)
      : ConversionPattern(MatchAnyOpTypeTag(), /*benefit=*/10, ctx) {}
  LogicalResult matchAndRewrite(Operation *op, ArrayRef<Value>,
                                ConversionPatternRewriter &rewriter) const override {
    if (!isa<RelaxDialect>(op->getDialect()) || op->getNumResults() != 1 ||
        op->getNumRegions() != 0)
      return failure();
    auto type = dyn_cast<RankedTensorType>(op->getResult(0).getType());
    if (!type || !type.hasStaticShape() || type.getNumElements() != 0)
      return failure();
    rewriter.replaceOp(op, emptyTensor(rewriter, op->getLoc(), type));
    return success();
  }
};

} // namespace

void mlir::relax::populateRelaxToLinalgConversionPatterns(RewritePatternSet &patterns) {
  patterns.add<EmptyResultLowering>(patterns.getContext());
  populateElementwiseLoweringPatterns(patterns);
  populateReductionLoweringPatterns(patterns);
  populateLinearAlgebraLoweringPatterns(patterns);
  populateNeuralNetworkLoweringPatterns(patterns);
  populateShapeLoweringPatterns(patterns);
  populateCreationLoweringPatterns(patterns);
  populateDebugLoweringPatterns(patterns);
  populateCollectiveLoweringPatterns(patterns);
}
