//===- Relax.cpp - C API of the relax dialect ------------------------------===//

#include "relax-mlir-c/Relax.h"
#include "relax-mlir/Conversion/Passes.h"
#include "relax-mlir/Dialect/Relax/IR/RelaxDialect.h"
#include "relax-mlir/Dialect/Relax/IR/RelaxOps.h"
#include "relax-mlir/InitAll.h"

#include "mlir/CAPI/IR.h"
#include "mlir/CAPI/Registration.h"
#include "mlir/CAPI/Support.h"
#include "mlir/IR/PatternMatch.h"
#include "llvm/ADT/StringSet.h"

MLIR_DEFINE_CAPI_DIALECT_REGISTRATION(Relax, relax, mlir::relax::RelaxDialect)

void relaxMlirRegisterDialects(MlirDialectRegistry registry) {
  mlir::relax::registerAllDialects(*unwrap(registry));
}

void relaxMlirRegisterPasses(void) { mlir::relax::registerAllPasses(); }

void relaxMlirForEachOp(MlirContext context,
                        void (*callback)(MlirStringRef, bool, bool, void *),
                        void *userData) {
  mlir::MLIRContext *ctx = unwrap(context);
  auto *dialect = ctx->getOrLoadDialect<mlir::relax::RelaxDialect>();
  mlir::RewritePatternSet patterns(ctx);
  mlir::relax::populateRelaxToLinalgConversionPatterns(patterns);
  llvm::StringSet<> lowered;
  for (const std::unique_ptr<mlir::RewritePattern> &pattern : patterns.getNativePatterns())
    if (std::optional<mlir::OperationName> root = pattern->getRootKind())
      lowered.insert(root->getStringRef());
  for (mlir::RegisteredOperationName op : ctx->getRegisteredOperations()) {
    if (&op.getDialect() != dialect)
      continue;
    callback(wrap(op.getStringRef()), op.hasInterface<mlir::relax::GradientOpInterface>(),
             lowered.contains(op.getStringRef()), userData);
  }
}
