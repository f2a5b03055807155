//===- InitAll.cpp - register the relax dialect, passes and pipelines -----===//

#include "relax-mlir/InitAll.h"
#include "relax-mlir/CodeGen/CPUDialect.h"
#include "relax-mlir/CodeGen/Passes.h"
#include "relax-mlir/Conversion/Passes.h"
#include "relax-mlir/Pipelines.h"
#include "relax-mlir/Transforms/Passes.h"

#include "mlir/Dialect/Func/Extensions/InlinerExtension.h"
#include "mlir/Dialect/DLTI/DLTI.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MPI/IR/MPI.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Target/LLVM/NVVM/Target.h"
#include "mlir/Target/LLVMIR/Dialect/All.h"

void mlir::relax::registerAllDialects(DialectRegistry &registry) {
  registry.insert<RelaxDialect, func::FuncDialect, arith::ArithDialect, linalg::LinalgDialect,
                  tensor::TensorDialect, math::MathDialect, cpu::RelaxCPUDialect,
                  mpi::MPIDialect, DLTIDialect>();
  func::registerInlinerExtension(registry);
  // relax-to-nvvm serializes kernels: LLVM IR translation and the NVVM target.
  registerAllToLLVMIRTranslations(registry);
  NVVM::registerNVVMTargetInterfaceExternalModels(registry);
}

void mlir::relax::registerAllPasses() {
  static bool registered = [] {
    registerRelaxTransformsPasses();
    registerRelaxConversionPasses();
    registerRelaxCodeGenPasses();
    registerRelaxPipelines();
    return true;
  }();
  (void)registered;
}
