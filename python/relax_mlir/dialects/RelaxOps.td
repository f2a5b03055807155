//===- RelaxOps.td - Python bindings of the relax dialect --*- tablegen -*-===//
#ifndef RELAX_MLIR_PYTHON_RELAXOPS_TD
#define RELAX_MLIR_PYTHON_RELAXOPS_TD

include "relax-mlir/Dialect/Relax/IR/RelaxOps.td"

#endif
