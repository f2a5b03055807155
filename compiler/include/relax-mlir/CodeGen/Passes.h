//===- Passes.h - relax code generation passes ------------------*- C++ -*-===//
#ifndef RELAX_MLIR_CODEGEN_PASSES_H
#define RELAX_MLIR_CODEGEN_PASSES_H

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/DLTI/DLTI.h"
#include "mlir/Dialect/MPI/IR/MPI.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/Pass/Pass.h"
#include "relax-mlir/CodeGen/CPUDialect.h"


namespace mlir::relax {
/// On the functions relax-outline-tensor-kernels makes of a function's
/// kernels on tensors, and on those of them that stay functions after the
/// CPU schedule (which relax-early-dealloc and relax-cpu-stream-stores
/// recognize).
constexpr llvm::StringLiteral kTensorKernelAttrName = "relax.kernel";
constexpr llvm::StringLiteral kKeptKernelAttrName = "relax.kept_kernel";

#define GEN_PASS_DECL
#include "relax-mlir/CodeGen/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "relax-mlir/CodeGen/Passes.h.inc"
} // namespace mlir::relax

#endif // RELAX_MLIR_CODEGEN_PASSES_H
