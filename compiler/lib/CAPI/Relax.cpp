//===- Relax.cpp - C API of the relax dialect ------------------------------===//

#include "relax-mlir-c/Relax.h"
#include "relax-mlir/Conversion/Passes.h"
#include "relax-mlir/Dialect/Relax/IR/RelaxDialect.h"
#include "relax-mlir/Dialect/Relax/IR/RelaxOps.h"
#include "relax-mlir/InitAll.h"
#include "relax-mlir/Nesting.h"
#include "relax-mlir/Target/ObjectFile.h"

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

bool relaxMlirFindExcessiveNesting(MlirStringRef text, unsigned *line, unsigned *column,
                                   unsigned *limit) {
  *limit = mlir::relax::kMaxNestingDepth;
  std::optional<mlir::relax::NestingPosition> at =
      mlir::relax::findExcessiveNesting(llvm::StringRef(text.data, text.length));
  if (!at)
    return false;
  *line = at->line;
  *column = at->column;
  return true;
}

void relaxMlirForEachOp(MlirContext context,
                        void (*callback)(MlirStringRef, bool, bool, bool, void *),
                        void *userData) {
  mlir::MLIRContext *ctx = unwrap(context);
  auto *dialect = ctx->getOrLoadDialect<mlir::relax::RelaxDialect>();
  mlir::RewritePatternSet patterns(ctx);
  mlir::relax::populateRelaxToLinalgConversionPatterns(patterns);
  llvm::StringSet<> lowered;
  for (const std::unique_ptr<mlir::RewritePattern> &pattern : patterns.getNativePatterns())
    if (std::optional<mlir::OperationName> root = pattern->getRootKind())
      lowered.insert(root->getStringRef());
  for (llvm::StringRef name : mlir::relax::getControlFlowOpNames())
    lowered.insert(name);
  for (mlir::RegisteredOperationName op : ctx->getRegisteredOperations()) {
    if (&op.getDialect() != dialect)
      continue;
    bool gradient = op.hasInterface<mlir::relax::GradientOpInterface>() ||
                    op.hasInterface<mlir::relax::RegionGradientOpInterface>();
    callback(wrap(op.getStringRef()), gradient, lowered.contains(op.getStringRef()),
             op.hasInterface<mlir::relax::BatchingOpInterface>() ||
                 op.hasInterface<mlir::relax::RegionBatchingOpInterface>(),
             userData);
  }
}

MlirLogicalResult relaxMlirWriteObjectFile(MlirModule module, MlirStringRef path,
                                           unsigned optLevel, MlirStringRef cpu,
                                           MlirStringRef features, MlirStringRef metadataSymbol,
                                           MlirStringRef metadataText,
                                           unsigned codegenThreads,
                                           MlirStringCallback onTarget,
                                           MlirStringCallback onObject,
                                           MlirStringCallback onError, void *userData) {
  mlir::relax::ObjectFileOptions options;
  options.optLevel = optLevel;
  options.cpu = unwrap(cpu).str();
  options.features = unwrap(features).str();
  options.metadataSymbol = unwrap(metadataSymbol).str();
  options.metadataText = unwrap(metadataText).str();
  options.codegenThreads = codegenThreads;
  std::string error, builtCpu, builtFeatures;
  llvm::SmallVector<std::string> objects;
  if (mlir::failed(mlir::relax::writeObjectFile(unwrap(module), unwrap(path), options, error,
                                                &builtCpu, &builtFeatures, &objects))) {
    onError(mlirStringRefCreate(error.data(), error.size()), userData);
    return mlirLogicalResultFailure();
  }
  std::string target = builtCpu + " " + builtFeatures;
  onTarget(mlirStringRefCreate(target.data(), target.size()), userData);
  for (const std::string &object : objects)
    onObject(mlirStringRefCreate(object.data(), object.size()), userData);
  return mlirLogicalResultSuccess();
}
