// RUN: relax-opt %s --verify-diagnostics \
// RUN:   --pass-pipeline="builtin.module(func.func(relax-gpu-block-reductions{block-size=100}))"

// expected-error @below {{relax-gpu-block-reductions: block-size must be a multiple of 32 in [32, 1024], got 100}}
func.func @f() {
  return
}
