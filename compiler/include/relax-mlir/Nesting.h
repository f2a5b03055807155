//===- Nesting.h - bound the nesting depth of IR text before parsing ------===//
//
// MLIR's parser, verifier and printer recurse once per nesting level of a
// type, attribute or region, so a file nested 30,000 levels deep (a
// `tuple<tuple<...>>` type) overflows the stack and kills the process. Text
// is checked before it reaches the parser: nesting past a limit real IR never
// comes near is an error at the place it happens.
//
//===----------------------------------------------------------------------===//

#ifndef RELAX_MLIR_NESTING_H
#define RELAX_MLIR_NESTING_H

#include "llvm/ADT/StringRef.h"

#include <cstdint>
#include <optional>

namespace mlir::relax {

/// Nesting levels accepted: (, [, { and < (outside string literals and `//`
/// comments; the `>` of `->` and `>=` closes nothing). The parser crashed
/// between 10,000 and 30,000 levels on an 8 MiB stack.
constexpr unsigned kMaxNestingDepth = 1000;

/// Where `text` first nests deeper than `limit`: 1-based line and column.
struct NestingPosition {
  unsigned line, column;
};
std::optional<NestingPosition> findExcessiveNesting(llvm::StringRef text,
                                                    unsigned limit = kMaxNestingDepth);

} // namespace mlir::relax

#endif // RELAX_MLIR_NESTING_H
