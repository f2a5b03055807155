"""Test support for relax_mlir (not shipped in the wheel): what the tests in
test/python, tools/soak.py, tools/gpu_check.py and the relax-opt fuzzer share.

- `ops`: the op table, one entry per relax op (reference, element types,
  domain needs, kinks, test cases); everything else learns ops from it.
- `references`: the numpy float64 reference of every op, written once.
- `cases`: op test configurations (`OpCase`) and their family helpers.
- `programs`: seeded random relax programs, their float64 interpreter and the
  checker (gradients against finite differences), with worker subprocesses.
- `harness`: IR text of one-op functions, compiling, sampling, differences.

On the path as `test/lib` (test/python/conftest.py puts it there).
"""
