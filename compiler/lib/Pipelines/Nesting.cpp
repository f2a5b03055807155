//===- Nesting.cpp - bound the nesting depth of IR text before parsing ----===//
//
// See Nesting.h.
//
//===----------------------------------------------------------------------===//

#include "relax-mlir/Nesting.h"

using namespace mlir::relax;

std::optional<NestingPosition> mlir::relax::findExcessiveNesting(llvm::StringRef text,
                                                                 unsigned limit) {
  unsigned depth = 0, line = 1, column = 0;
  for (size_t i = 0, e = text.size(); i < e; ++i) {
    char c = text[i];
    ++column;
    if (c == '\n') {
      ++line;
      column = 0;
      continue;
    }
    if (c == '"') { // a string literal, escapes included
      for (++i; i < e && text[i] != '"'; ++i) {
        if (text[i] == '\\')
          ++i;
        else if (text[i] == '\n')
          ++line, column = 0;
        ++column;
      }
      ++column;
      continue;
    }
    if (c == '/' && i + 1 < e && text[i + 1] == '/') { // a comment, to the line's end
      while (i + 1 < e && text[i + 1] != '\n')
        ++i;
      continue;
    }
    bool opens = c == '(' || c == '[' || c == '{' || (c == '<' && !(i + 1 < e && text[i + 1] == '='));
    bool closes = c == ')' || c == ']' || c == '}' ||
                  (c == '>' && !(i > 0 && text[i - 1] == '-') && !(i + 1 < e && text[i + 1] == '='));
    if (opens && ++depth > limit)
      return NestingPosition{line, column};
    if (closes && depth > 0)
      --depth;
  }
  return std::nullopt;
}
