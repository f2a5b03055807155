//===- Relax.cpp - C API of the relax dialect ------------------------------===//

#include "relax-mlir-c/Relax.h"
#include "relax-mlir/Dialect/Relax/IR/RelaxDialect.h"
#include "relax-mlir/InitAll.h"

#include "mlir/CAPI/IR.h"
#include "mlir/CAPI/Registration.h"

MLIR_DEFINE_CAPI_DIALECT_REGISTRATION(Relax, relax, mlir::relax::RelaxDialect)

void relaxMlirRegisterDialects(MlirDialectRegistry registry) {
  mlir::relax::registerAllDialects(*unwrap(registry));
}

void relaxMlirRegisterPasses(void) { mlir::relax::registerAllPasses(); }
