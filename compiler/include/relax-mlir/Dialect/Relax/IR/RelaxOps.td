//===- RelaxOps.td - relax dialect ops ---------------------*- tablegen -*-===//
//
// Every op of the relax dialect, one file per op family under ops/:
// structure (dataflow, tuples, checkpoints), elementwise, comparisons,
// reductions, linear algebra, neural network, shape manipulation, creation,
// control flow (loops and conditionals), and collectives across processes.
//
//===----------------------------------------------------------------------===//

#ifndef RELAX_OPS_TD
#define RELAX_OPS_TD

include "relax-mlir/Dialect/Relax/IR/RelaxDialect.td"
include "relax-mlir/Dialect/Relax/IR/RelaxInterfaces.td"
include "mlir/Interfaces/SideEffectInterfaces.td"
include "mlir/Interfaces/InferTypeOpInterface.td"
include "mlir/Interfaces/ControlFlowInterfaces.td"
include "mlir/Interfaces/CallInterfaces.td"
include "mlir/IR/SymbolInterfaces.td"

// Ops with a derivative list one of these: Relax_Differentiable defines both
// rules (buildVectorJacobianProduct and buildJacobianVectorProduct);
// Relax_LinearDifferentiable defines the VJP and takes the JVP of a linear op.
defvar Relax_Differentiable =
    DeclareOpInterfaceMethods<Relax_GradientOpInterface, ["buildJacobianVectorProduct"]>;
defvar Relax_LinearDifferentiable =
    TraitList<[DeclareOpInterfaceMethods<Relax_GradientOpInterface>, Relax_Linear]>;

// Ops with a batching rule (vmap) list this (rules in batching/*.cpp).
defvar Relax_Batchable = DeclareOpInterfaceMethods<Relax_BatchingOpInterface>;
defvar Relax_RegionBatchable = DeclareOpInterfaceMethods<Relax_RegionBatchingOpInterface>;

include "relax-mlir/Dialect/Relax/IR/ops/StructureOps.td"
include "relax-mlir/Dialect/Relax/IR/ops/ElementwiseOps.td"
include "relax-mlir/Dialect/Relax/IR/ops/ComparisonOps.td"
include "relax-mlir/Dialect/Relax/IR/ops/ReductionOps.td"
include "relax-mlir/Dialect/Relax/IR/ops/LinearAlgebraOps.td"
include "relax-mlir/Dialect/Relax/IR/ops/NeuralNetworkOps.td"
include "relax-mlir/Dialect/Relax/IR/ops/ShapeOps.td"
include "relax-mlir/Dialect/Relax/IR/ops/CreationOps.td"
include "relax-mlir/Dialect/Relax/IR/ops/ControlFlowOps.td"
include "relax-mlir/Dialect/Relax/IR/ops/CollectiveOps.td"

#endif // RELAX_OPS_TD
