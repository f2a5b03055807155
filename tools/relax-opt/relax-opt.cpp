//===- relax-opt.cpp - the relax-mlir optimizer driver --------------------===//

#include "relax-mlir/InitAll.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/InitAllDialects.h"
#include "mlir/InitAllExtensions.h"
#include "mlir/InitAllPasses.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"

int main(int argc, char **argv) {
  mlir::DialectRegistry registry;
  mlir::registerAllDialects(registry);
  mlir::registerAllExtensions(registry);
  mlir::relax::registerAllDialects(registry);
  mlir::registerAllPasses();
  mlir::relax::registerAllPasses();
  return mlir::asMainReturnCode(mlir::MlirOptMain(
      argc, argv, "relax-opt: the relax-mlir optimizer and lowering driver\n", registry));
}
