//===- Passes.h - relax conversion passes -----------------------*- C++ -*-===//
#ifndef RELAX_MLIR_CONVERSION_PASSES_H
#define RELAX_MLIR_CONVERSION_PASSES_H

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/Pass.h"
#include "mlir/Transforms/DialectConversion.h"
#include "relax-mlir/Dialect/Relax/IR/RelaxDialect.h"

namespace mlir::relax {
#define GEN_PASS_DECL
#include "relax-mlir/Conversion/Passes.h.inc"

/// Patterns rewriting every relax compute op to linalg/tensor/arith/math.
void populateRelaxToLinalgConversionPatterns(RewritePatternSet &patterns);
/// The unit attribute on the scf ops that relax loops and conditionals
/// become: host control flow to the GPU pipeline (kernels run inside it).
constexpr llvm::StringLiteral kControlFlowAttrName = "relax.control_flow";
/// The ops the conversion rewrites as scf control flow (before the patterns
/// run): the loops, the conditionals and their terminators.
SmallVector<StringRef> getControlFlowOpNames();
/// relax.all_reduce becomes calls of `@<prefix><element type>(send, recv)`
/// (private declarations; 1-D buffers of any size and offset) that the CPU
/// pipeline's relax-mpi-to-llvm replaces by `mpi.allreduce` (MPI_SUM) on the
/// world communicator, after buffer deallocation (which refuses mpi ops).
constexpr llvm::StringLiteral kAllReducePrefix = "__relax_mpi_allreduce_sum_";

#define GEN_PASS_REGISTRATION
#include "relax-mlir/Conversion/Passes.h.inc"
} // namespace mlir::relax

#endif // RELAX_MLIR_CONVERSION_PASSES_H
