//===- ConvertToLLVM.cpp - Six dialects to LLVM in one conversion ---------===//
//
// relax-convert-to-llvm: upstream's memref, arith, index, ub, func and cf
// conversion patterns in one partial conversion (see Passes.td).
//
//===----------------------------------------------------------------------===//

#include "relax-mlir/CodeGen/Passes.h"

#include "mlir/Analysis/DataLayoutAnalysis.h"
#include "mlir/Conversion/ArithToLLVM/ArithToLLVM.h"
#include "mlir/Conversion/ControlFlowToLLVM/ControlFlowToLLVM.h"
#include "mlir/Conversion/FuncToLLVM/ConvertFuncToLLVM.h"
#include "mlir/Conversion/IndexToLLVM/IndexToLLVM.h"
#include "mlir/Conversion/LLVMCommon/ConversionTarget.h"
#include "mlir/Conversion/LLVMCommon/TypeConverter.h"
#include "mlir/Conversion/MemRefToLLVM/MemRefToLLVM.h"
#include "mlir/Conversion/UBToLLVM/UBToLLVM.h"
#include "mlir/Dialect/Arith/Transforms/Passes.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Transforms/DialectConversion.h"

namespace mlir::relax {
#define GEN_PASS_DEF_CONVERTTOLLVMPASS
#include "relax-mlir/CodeGen/Passes.h.inc"
} // namespace mlir::relax

using namespace mlir;

namespace {
struct ConvertToLLVMPass : relax::impl::ConvertToLLVMPassBase<ConvertToLLVMPass> {
  using ConvertToLLVMPassBase::ConvertToLLVMPassBase;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    MLIRContext *ctx = &getContext();
    const auto &dataLayout = getAnalysis<DataLayoutAnalysis>();
    LowerToLLVMOptions options(ctx, dataLayout.getAtOrAbove(module));
    options.useGenericFunctions = useGenericFunctions;
    LLVMTypeConverter converter(ctx, options, &dataLayout);

    RewritePatternSet patterns(ctx);
    // The memref, func and assert patterns declare the functions they call
    // (malloc, free, abort, ...) in the module: one symbol table for all.
    SymbolTableCollection symbolTables;
    populateFinalizeMemRefToLLVMConversionPatterns(converter, patterns, &symbolTables);
    arith::populateCeilFloorDivExpandOpsPatterns(patterns);
    arith::populateArithToLLVMConversionPatterns(converter, patterns);
    index::populateIndexToLLVMConversionPatterns(converter, patterns);
    ub::populateUBToLLVMConversionPatterns(converter, patterns);
    populateFuncToLLVMConversionPatterns(converter, patterns, &symbolTables);
    cf::populateControlFlowToLLVMConversionPatterns(converter, patterns);
    cf::populateAssertToLLVMConversionPattern(converter, patterns, /*abortOnFailure=*/true,
                                              &symbolTables);

    LLVMConversionTarget target(*ctx);
    if (failed(applyPartialConversion(module, target, std::move(patterns))))
      signalPassFailure();
  }
};
} // namespace
