/*===- Relax.h - C API of the relax dialect -----------------------*- C -*-===*/
#ifndef RELAX_MLIR_C_RELAX_H
#define RELAX_MLIR_C_RELAX_H

#include "mlir-c/IR.h"
#include "mlir-c/Support.h"

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
/// rule (implements GradientOpInterface), whether convert-relax-to-linalg
/// has a lowering pattern rooted at it, and whether it has a batching rule
/// (implements BatchingOpInterface, for vmap).
MLIR_CAPI_EXPORTED void relaxMlirForEachOp(MlirContext context,
                                           void (*callback)(MlirStringRef name,
                                                            bool hasGradient,
                                                            bool hasLowering,
                                                            bool hasBatching,
                                                            void *userData),
                                           void *userData);

/// Translates `module` (LLVM dialect, `gpu.binary` ops allowed) to LLVM IR,
/// optimizes it at `optLevel` (0-3) and writes a position-independent object
/// file to `path` for `cpu` ("host" or an LLVM CPU name) with the extra target
/// `features`. A non-empty `metadataSymbol` adds an exported constant C string
/// of that name holding `metadataText`, and `<metadataSymbol>_target` holding
/// "<cpu> <features>". Code generation runs on `codegenThreads` threads (0:
/// the cores this process may use); a large module is then split into parts,
/// each an object of its own. On success `onTarget` receives
/// "<cpu> <features>" (what the code was built for) and `onObject` each
/// object file written (`path`, then `path.1`, ...: link them all); on
/// failure `onError` receives the reason.
MLIR_CAPI_EXPORTED MlirLogicalResult relaxMlirWriteObjectFile(
    MlirModule module, MlirStringRef path, unsigned optLevel, MlirStringRef cpu,
    MlirStringRef features, MlirStringRef metadataSymbol, MlirStringRef metadataText,
    unsigned codegenThreads, MlirStringCallback onTarget, MlirStringCallback onObject,
    MlirStringCallback onError, void *userData);

/// Whether `text` nests brackets deeper than the parser takes (see
/// relax-mlir/Nesting.h): true, with the 1-based line and column where it
/// first does and the limit, when it does.
MLIR_CAPI_EXPORTED bool relaxMlirFindExcessiveNesting(MlirStringRef text, unsigned *line,
                                                      unsigned *column, unsigned *limit);

#ifdef __cplusplus
}
#endif

#endif /* RELAX_MLIR_C_RELAX_H */
