/*===- Relax.h - C API of the relax dialect -----------------------*- C -*-===*/
#ifndef RELAX_MLIR_C_RELAX_H
#define RELAX_MLIR_C_RELAX_H

#include "mlir-c/IR.h"

#ifdef __cplusplus
extern "C" {
#endif

MLIR_DECLARE_CAPI_DIALECT_REGISTRATION(Relax, relax);

/// Inserts the relax dialect and the upstream pieces its passes need.
MLIR_CAPI_EXPORTED void relaxMlirRegisterDialects(MlirDialectRegistry registry);

/// Registers every relax pass and pipeline globally (idempotent).
MLIR_CAPI_EXPORTED void relaxMlirRegisterPasses(void);

/// Calls `callback` once for each op of the relax dialect (loaded into
/// `context` if it is not yet), in name order, with whether it has a gradient
/// rule (implements GradientOpInterface) and whether convert-relax-to-linalg
/// has a lowering pattern rooted at it.
MLIR_CAPI_EXPORTED void relaxMlirForEachOp(MlirContext context,
                                           void (*callback)(MlirStringRef name,
                                                            bool hasGradient,
                                                            bool hasLowering,
                                                            void *userData),
                                           void *userData);

#ifdef __cplusplus
}
#endif

#endif /* RELAX_MLIR_C_RELAX_H */
