//===- Debug.cpp - relax_mlir.debug.print's runtime entry point -----------===//
//
// Compiled code calls `relaxDebug(spec, index, data)` for each value a
// relax.debug_print reads (index >= 0, data the address of a contiguous copy)
// and once more with index -1 to print them. It forwards to the printer the
// loading process installs (`relaxSetDebugHook`: relax_mlir's Python printer,
// which reads the JSON at `spec` and formats the values); with none installed
// the format object is written to stderr. Linked into the Python extension
// (for the JIT) and into every exported library (each has its own hook).
//
//===----------------------------------------------------------------------===//

#include <cstdint>
#include <cstdio>

#define RELAX_DEBUG_EXPORT extern "C" __attribute__((visibility("default")))

namespace {
using Hook = void (*)(uint64_t spec, int64_t index, uint64_t data);
Hook hook = nullptr;
} // namespace

RELAX_DEBUG_EXPORT void relaxSetDebugHook(Hook printer) { hook = printer; }

RELAX_DEBUG_EXPORT void relaxDebug(uint64_t spec, int64_t index, uint64_t data) {
  if (hook) {
    hook(spec, index, data);
    return;
  }
  if (index < 0)
    std::fprintf(stderr, "relax_mlir.debug.print (no printer installed): %s\n",
                 reinterpret_cast<const char *>(spec));
}
