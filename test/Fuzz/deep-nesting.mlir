// A type nested 30,000 levels deep (`tuple<tuple<...>>`) overflowed the
// parser's stack: relax-opt died with SIGSEGV. Input nested deeper than 1000
// levels is refused with its position, from a file and from standard input.
// RUN: %python -c "print('func.func private @f(%%a: ' + 'tuple<' * 30000 + 'f32' + '>' * 30000 + ')')" > %t.mlir
// RUN: not relax-opt %t.mlir 2>&1 | FileCheck %s --check-prefix=FILE
// RUN: not relax-opt < %t.mlir 2>&1 | FileCheck %s --check-prefix=STDIN
// FILE: deep-nesting.mlir.tmp.mlir:1:6025: error: the input nests deeper than 1000 levels here; relax-opt does not parse IR nested this deep
// STDIN: <stdin>:1:6025: error: the input nests deeper than 1000 levels here
// Brackets in strings and comments, `->` and `>=` do not count; 900 levels parse.
// RUN: %python -c "print('// ' + '(' * 5000 + '\nfunc.func private @g(%%a: ' + 'tuple<' * 900 + 'f32' + '>' * 900 + ') -> i1 attributes {s = \"' + '[' * 5000 + '\"}')" | relax-opt | FileCheck %s --check-prefix=OK
// OK: func.func private @g(tuple<tuple<
