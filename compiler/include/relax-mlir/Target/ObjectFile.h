//===- ObjectFile.h - LLVM-dialect modules to relocatable objects -*- C++ -*-===//
//
// `Executable.export` writes shared libraries: the lowered module (LLVM
// dialect, with `gpu.binary` ops for the GPU target) is translated to LLVM
// IR, optimized as the JIT does, and emitted as position-independent object
// files (a large module in parts, one per code-generation thread) that the
// system linker links with the project's runtime.
//
//===----------------------------------------------------------------------===//

#ifndef RELAX_MLIR_TARGET_OBJECTFILE_H
#define RELAX_MLIR_TARGET_OBJECTFILE_H

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Support/LLVM.h"

#include <string>

namespace mlir::relax {

struct ObjectFileOptions {
  /// LLVM optimization level, 0-3 (as the JIT's `opt_level`).
  unsigned optLevel = 3;
  /// Target CPU: "host" (this machine's CPU and features, as the JIT) or an
  /// LLVM CPU name ("x86-64", "x86-64-v3", "sapphirerapids", ...).
  std::string cpu = "host";
  /// Extra LLVM target features ("+avx2,-avx512f"); with cpu="host" they are
  /// added to the host's.
  std::string features;
  /// When not empty, a null-terminated constant `char[]` of this name holding
  /// `metadataText` is added (exported) to the object, and one named
  /// `<metadataSymbol>_target` holding "<cpu> <features>" (what the code needs).
  std::string metadataSymbol;
  std::string metadataText;
  /// Threads generating code (0: the cores this process may use). A large
  /// module is split into that many parts (llvm::SplitModule), each compiled
  /// on its own thread into an object of its own.
  unsigned codegenThreads = 0;
};

/// Writes `module` (LLVM dialect and what translates to LLVM IR) to the
/// object file `path`. Each C interface `_mlir_ciface_<name>` (pointer
/// arguments only) gets a packed entry point `relax_packed_<name>(void
/// **args)` calling it with `args[i]` as its i-th argument: one signature for
/// any number of arguments, which the export runtime's `relaxCall` calls
/// (catching allocation failures). On failure returns failure and sets `error`.
/// On success, `cpu` and `features` (when given) receive the CPU and target
/// features the code was built for, and `objects` every object file written:
/// `path`, and when code generation ran in parallel parts `path.1`,
/// `path.2`, ... (link them all).
LogicalResult writeObjectFile(ModuleOp module, StringRef path, const ObjectFileOptions &options,
                              std::string &error, std::string *cpu = nullptr,
                              std::string *features = nullptr,
                              SmallVectorImpl<std::string> *objects = nullptr);

} // namespace mlir::relax

#endif // RELAX_MLIR_TARGET_OBJECTFILE_H
