//===- RelaxToLinalg.cpp - lower relax ops to linalg on tensors -----------===//
//
// Elementwise ops and broadcasts become linalg.generic with broadcasting
// indexing maps; reductions, collapse_sum_to and matmul become linalg.generic
// reductions into a zero-filled init; permute_dims becomes linalg.transpose;
// reshapes go through tensor.collapse_shape/expand_shape.
//
// One file per op family (Elementwise, Reductions, LinearAlgebra, Shape,
// Creation); shared builders in LoweringUtils.
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

} // namespace

void mlir::relax::populateRelaxToLinalgConversionPatterns(RewritePatternSet &patterns) {
  populateElementwiseLoweringPatterns(patterns);
  populateReductionLoweringPatterns(patterns);
  populateLinearAlgebraLoweringPatterns(patterns);
  populateNeuralNetworkLoweringPatterns(patterns);
  populateShapeLoweringPatterns(patterns);
  populateCreationLoweringPatterns(patterns);
}
