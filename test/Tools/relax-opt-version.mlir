// `relax-opt --version` names the project's version (pyproject.toml's) and
// the commit it was built from, after LLVM's.
// RUN: relax-opt --version | FileCheck %s
// CHECK: LLVM version
// CHECK: relax-mlir version {{[0-9]+\.[0-9]+\.[0-9]+}} (commit {{[0-9A-Za-z._-]+}})
