//===- Pipelines.cpp - relax to LLVM lowering pipeline --------------------===//

#include "relax-mlir/Pipelines.h"
#include "relax-mlir/CodeGen/Passes.h"
#include "relax-mlir/Conversion/Passes.h"
#include "relax-mlir/Transforms/Passes.h"

#include "mlir/Conversion/Passes.h"
#include "mlir/Conversion/VectorToSCF/VectorToSCF.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Bufferization/Transforms/Passes.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/Passes.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/Dialect/MemRef/Transforms/Passes.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Transforms/Passes.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/GPU/Transforms/Passes.h"
#include "mlir/Dialect/SCF/Transforms/Passes.h"
#include "llvm/Support/FileSystem.h"

#include <cstdlib>

using namespace mlir;
using namespace mlir::relax;

namespace {
/// The canonicalizer of the CPU pipeline, without region simplification
/// (unreachable blocks erased, identical blocks merged, dead block arguments
/// dropped). Until the conversion to the cf dialect every region is a single
/// block, where it finds nothing; after it (the last canonicalization, on
/// the LLVM dialect) it found nothing in the bench's workloads either, the
/// pipeline's output the same to the byte at opt-level 0 and 3 with one
/// thread (the threaded code's canonicalization keeps it), but took a fifth
/// of the passes' time (LeNet's step: 99 -> 80 ms over all of them).
std::unique_ptr<Pass> createCanonicalizer() {
  GreedyRewriteConfig config;
  config.setRegionSimplificationLevel(GreedySimplifyRegionLevel::Disabled);
  return createCanonicalizerPass(config);
}

/// relax to linalg on tensors, elementwise ops fused.
void addLinalgStage(OpPassManager &pm) {
  pm.addPass(createInlinerPass());
  pm.addPass(createConvertRelaxToLinalgPass());
  // Elementwise arith/math ops on tensors written by hand beside the relax ops
  // (they failed later with "op was not bufferized").
  pm.addPass(createConvertElementwiseToLinalgPass());
  // No CSE here: it would merge the recomputed (checkpointed) bindings of an
  // adjoint with the forward ones and undo the memory saving.
  pm.addPass(createCanonicalizer());
  pm.addPass(createFuseElementwisePass());
  // (After fusion: a comparison fused into its one reader is no tensor.)
  pm.addNestedPass<func::FuncOp>(createWidenBooleansPass());
  pm.addNestedPass<func::FuncOp>(createLoopCarriesInPlacePass());
}

/// The CPU schedule: register tiles, then vector code (still on tensors).
void addVectorStage(OpPassManager &pm, const RelaxToLLVMOptions &options) {
  // Each distinct kernel scheduled once (a deep network's layers repeat them).
  pm.addPass(createOutlineTensorKernelsPass(
      OutlineTensorKernelsPassOptions{options.kernelMinIterations}));
  pm.addNestedPass<func::FuncOp>(createCPUCollapseTransposesPass());
  CPUSelectTilesPassOptions select;
  select.vectorBits = options.vectorBits;
  pm.addNestedPass<func::FuncOp>(createCPUSelectTilesPass(select));
  CPUPackPassOptions pack;
  pack.vectorBits = options.vectorBits;
  pack.numThreads = options.numThreads;
  pm.addNestedPass<func::FuncOp>(createCPUPackPass(pack));
  CPUTilePassOptions tile;
  tile.numThreads = options.numThreads;
  pm.addNestedPass<func::FuncOp>(createCPUTilePass(tile));
  pm.addPass(createCanonicalizer());
  CPUVectorizePassOptions vectorize;
  vectorize.vectorBits = options.vectorBits;
  pm.addNestedPass<func::FuncOp>(createCPUVectorizePass(vectorize));
  pm.addPass(createCanonicalizer());
  pm.addPass(createInlineTensorKernelsPass());
}

/// Bufferization: results as out-parameters, temporaries freed after last use.
void addBufferizedStage(OpPassManager &pm) {
  // After the schedule: its canonicalizations would fold a copy away again.
  pm.addPass(createPrepareEntryPointsPass());

  bufferization::OneShotBufferizePassOptions bufferizeOptions;
  bufferizeOptions.bufferizeFunctionBoundaries = true;
  bufferizeOptions.functionBoundaryTypeConversion =
      bufferization::LayoutMapOption::IdentityLayoutMap;
  // A loop carry computed anew each iteration (relax.scan, relax.while)
  // becomes the next iteration's buffer; the ownership-based deallocation
  // frees the one it replaces.
  bufferizeOptions.allowReturnAllocsFromLoops = true;
  pm.addPass(bufferization::createOneShotBufferizePass(bufferizeOptions));
  // Before any canonicalization reads a gather's row-major positions as
  // memory offsets.
  pm.addNestedPass<func::FuncOp>(createAddressStridedGathersPass());
  // A tiled op's result is an scf.for yielding its in-place buffer: folding
  // those iter_args exposes the alloc itself, which buffer-results-to-out-params
  // then replaces by the caller's buffer instead of copying into it.
  pm.addPass(createCanonicalizer());
  // Results become caller-allocated out-parameters: no buffer crosses the ABI
  // with unclear ownership, and the deallocation pipeline frees every temporary.
  pm.addPass(createResultsToOutParamsPass());
  pm.addNestedPass<func::FuncOp>(createResultsInPlacePass());
  // Upstream's buffer-deallocation-pipeline, with the dealloc of each block
  // split into one per distinct allocation (in linear time) before the
  // simplification, whose own split asks alias analysis about every pair.
  pm.addPass(memref::createExpandReallocPass(memref::ExpandReallocPassOptions{/*emitDeallocs=*/false}));
  pm.addPass(createCanonicalizer());
  pm.addPass(bufferization::createOwnershipBasedBufferDeallocationPass());
  pm.addPass(createCanonicalizer());
  pm.addNestedPass<func::FuncOp>(createSplitDeallocsPass());
  pm.addPass(bufferization::createBufferDeallocationSimplificationPass());
  pm.addPass(bufferization::createLowerDeallocationsPass());
  pm.addPass(createCSEPass());
  pm.addPass(createCanonicalizer());
  pm.addPass(createConvertBufferizationToMemRefPass());
  pm.addPass(createCanonicalizer());
  // Each temporary is freed after its last use, not when the function returns.
  pm.addNestedPass<func::FuncOp>(createEarlyDeallocPass());
}

/// Loops, vectors, memrefs and the rest to the LLVM dialect.
void addLLVMStage(OpPassManager &pm, const RelaxToLLVMOptions &options) {
  bool schedule = options.optLevel > 0;
  bool threads = schedule && options.numThreads > 1;
  // LLVM takes time superlinear in a function's size: large functions are
  // split into functions of bounded size.
  pm.addPass(createOutlineSegmentsPass());
  if (schedule) {
    pm.addNestedPass<func::FuncOp>(createCPUHoistTransfersPass());
    pm.addNestedPass<func::FuncOp>(createCPUPackPanelsPass());
    pm.addNestedPass<func::FuncOp>(createCPUPrefetchPass());
    // Reads how the rest of the function uses each result: before the
    // loop nests leave it.
    pm.addNestedPass<func::FuncOp>(createCPUStreamStoresPass());
    // Each loop nest a function, repeated ones (a deep network's layers)
    // lowered and compiled once; the loop-free glue left is compiled
    // unoptimized below.
    pm.addPass(createShareKernelsPass());
    pm.addNestedPass<func::FuncOp>(createCPULowerVectorsPass());
  }
  if (threads)
    pm.addNestedPass<func::FuncOp>(createCPUParallelizePass());
  pm.addPass(createConvertLinalgToLoopsPass());
  if (schedule) {
    // Fully unrolled: a loop over a vector's rows would allocate a stack
    // buffer in each iteration of the enclosing tile loop.
    pm.addPass(createConvertVectorToSCFPass(VectorTransferToSCFOptions().enableFullUnroll()));
  }
  if (threads) {
    ConvertSCFToOpenMPPassOptions omp;
    omp.numThreads = options.numThreads;
    pm.addPass(createConvertSCFToOpenMPPass(omp));
    // The loop bodies' stack buffers become the threads'; then the
    // memref.alloca_scope around each body, empty of allocations, is inlined
    // (scf-to-cf would otherwise break it).
    pm.addNestedPass<func::FuncOp>(createCPUThreadBuffersPass());
    // (Whole: without region simplification, the threaded loops that
    // convert-scf-to-openmp made came out in another, equivalent form.)
    pm.addPass(createCanonicalizerPass());
  }
  pm.addPass(createLowerAffinePass());
  pm.addPass(createSCFToControlFlowPass());
  pm.addPass(memref::createExpandStridedMetadataPass());
  pm.addPass(createLowerAffinePass());
  // Math first: libm calls for a vector are made per element with vector
  // ops, which the vector conversion then lowers.
  pm.addPass(createConvertMathToLLVMPass());
  pm.addPass(createConvertMathToLibmPass());
  if (schedule) {
    ConvertVectorToLLVMPassOptions toLLVM;
    toLLVM.reassociateFPReductions = true;
    pm.addPass(createConvertVectorToLLVMPass(toLLVM));
  }
  // (Before the memrefs: the MPI calls read their descriptors.)
  pm.addPass(createMPIToLLVMPass(MPIToLLVMPassOptions{options.mpiImplementation}));
  // (Before the functions' conversion, which makes every function external.)
  pm.addPass(createInternalLinkagePass(InternalLinkagePassOptions{options.cInterfaceOnly}));
  // memref, arith, index, ub, func and cf in one conversion.
  pm.addPass(relax::createConvertToLLVMPass(relax::ConvertToLLVMPassOptions{options.pooledAlloc}));
  if (threads)
    pm.addPass(createConvertOpenMPToLLVMPass());
  pm.addPass(createReconcileUnrealizedCastsPass());
  if (options.cInterfaceOnly)
    pm.addPass(createInlineIntoCInterfacesPass());
  pm.addPass(createCanonicalizer());
  pm.addPass(createDropRelaxArgAttrsPass());
  if (schedule) {
    pm.addPass(createOptimizeNoneGluePass());
    pm.addPass(createKeepVectorLoopsRolledPass());
  }
}
} // namespace

void mlir::relax::buildRelaxToLLVMPipeline(OpPassManager &pm,
                                           const RelaxToLLVMOptions &options) {
  LoweringStage from = options.fromStage, to = options.toStage;
  pm.addPass(createVerifyCombiningKindsPass());
  // Whether the passes that produce `stage` run.
  auto runs = [&](LoweringStage stage) { return from < stage && stage <= to; };
  if (runs(LoweringStage::Linalg))
    addLinalgStage(pm);
  if (runs(LoweringStage::Vector) && options.optLevel > 0)
    addVectorStage(pm, options);
  if (runs(LoweringStage::Bufferized))
    addBufferizedStage(pm);
  if (runs(LoweringStage::LLVM))
    addLLVMStage(pm, options);
}

namespace {
/// The CUDA toolkit directory: the option, else the environment, else
/// /usr/local/cuda when it exists (empty: none; PTX then cannot call libdevice).
std::string cudaToolkit(StringRef option) {
  if (!option.empty())
    return option.str();
  for (const char *name : {"CUDA_ROOT", "CUDA_HOME", "CUDA_PATH"})
    if (const char *value = std::getenv(name); value && *value)
      return value;
  if (llvm::sys::fs::is_directory("/usr/local/cuda"))
    return "/usr/local/cuda";
  return "";
}
} // namespace

namespace {
/// relax to host functions holding gpu.launch ops (not yet outlined), for
/// the GPU and for its emulation.
void addGPUKernelStage(OpPassManager &pm) {
  pm.addPass(createVerifyCombiningKindsPass());
  addLinalgStage(pm);
  addBufferizedStage(pm);
  pm.addNestedPass<func::FuncOp>(createGPUDeviceMemoryPass());
  // Contractions: 32x32 tiles per block through shared memory; long
  // reductions with few outputs: a block of threads per output element.
  pm.addNestedPass<func::FuncOp>(createGPUSharedContractionsPass());
  pm.addNestedPass<func::FuncOp>(createGPUBlockReductionsPass());
  // Other reductions: each thread folds its own output elements.
  pm.addNestedPass<func::FuncOp>(createGPUReductionsInsidePass());
  pm.addNestedPass<func::FuncOp>(createConvertLinalgToParallelLoopsPass());
  // Sibling loop nests over the same space become one kernel (a fill and
  // the reduction that accumulates into it; elementwise ops whose producer
  // had other users), when each reads what the other writes only at the
  // same indices.
  pm.addNestedPass<func::FuncOp>(createParallelLoopFusionPass());
  pm.addNestedPass<func::FuncOp>(createGPUWrapHostCodePass());
  // Blocks of up to 256 threads, innermost dimension on x (coalesced), with
  // constant bounds and a guard (the conversion needs constant thread
  // counts); no canonicalization between tiling and conversion: it would fold
  // the one-iteration loops the conversion expects.
  pm.addNestedPass<func::FuncOp>(createGPUMapLoopsPass());
  pm.addNestedPass<func::FuncOp>(createGpuMapParallelLoopsPass());
  pm.addNestedPass<func::FuncOp>(createConvertParallelLoopToGpuPass());
  // Constant launch sizes (the tiling's bound arithmetic folded), so that
  // outlining records each kernel's block size (`known_block_size`, PTX
  // `.maxntid`): ptxas then allocates registers for the actual block, and the
  // thread ids get their ranges.
  pm.addNestedPass<func::FuncOp>(createCanonicalizerPass());
  pm.addPass(createLowerAffinePass());
}
} // namespace

void mlir::relax::buildRelaxToNVVMPipeline(OpPassManager &pm,
                                           const RelaxToNVVMOptions &options) {
  addGPUKernelStage(pm);
  pm.addNestedPass<func::FuncOp>(createGpuLaunchSinkIndexComputationsPass());
  pm.addPass(createGpuKernelOutliningPass());
  // Allocations, copies and launches as asynchronous ops on one stream (the
  // GPU-to-LLVM lowering only knows them so), waited for before returning.
  pm.addNestedPass<func::FuncOp>(createGpuAsyncRegionPass());

  // Kernels and host code to the LLVM dialect (the order of MLIR's
  // gpu-lower-to-nvvm-pipeline, with the toolkit given to the serializer).
  pm.addPass(createSCFToControlFlowPass());
  pm.addPass(createConvertNVVMToLLVMPass());
  pm.addPass(createConvertFuncToLLVMPass());
  pm.addPass(memref::createExpandStridedMetadataPass());
  GpuNVVMAttachTargetOptions target;
  target.chip = options.chip;
  target.features = options.features;
  target.optLevel = options.optLevel;
  pm.addPass(createGpuNVVMAttachTarget(target));
  pm.addPass(createLowerAffinePass());
  pm.addPass(createArithToLLVMConversionPass());
  pm.addPass(createConvertIndexToLLVMPass());
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());
  pm.addNestedPass<gpu::GPUModuleOp>(createStripDebugInfoPass());
  pm.addNestedPass<gpu::GPUModuleOp>(createConvertGpuOpsToNVVMOps());
  pm.addNestedPass<gpu::GPUModuleOp>(createCanonicalizerPass());
  pm.addNestedPass<gpu::GPUModuleOp>(createCSEPass());
  pm.addNestedPass<gpu::GPUModuleOp>(createReconcileUnrealizedCastsPass());
  pm.addPass(createGpuToLLVMConversionPass());
  GpuModuleToBinaryPassOptions binary;
  switch (options.format) {
  case GPUBinaryFormat::Isa:
    binary.compilationTarget = "isa";
    break;
  case GPUBinaryFormat::Bin:
    binary.compilationTarget = "bin";
    break;
  case GPUBinaryFormat::Fatbin:
    binary.compilationTarget = "fatbin";
    break;
  }
  binary.toolkitPath = cudaToolkit(options.toolkit);
  pm.addPass(createGpuModuleToBinaryPass(binary));
  pm.addPass(createConvertMathToLLVMPass());
  pm.addPass(createFinalizeMemRefToLLVMConversionPass());
  pm.addPass(createConvertFuncToLLVMPass());
  pm.addPass(createConvertControlFlowToLLVMPass());
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createReconcileUnrealizedCastsPass());
  pm.addPass(createDropRelaxArgAttrsPass());
}

void mlir::relax::buildRelaxToGPUKernelsPipeline(OpPassManager &pm) { addGPUKernelStage(pm); }

void mlir::relax::buildRelaxToGPUEmulatorPipeline(OpPassManager &pm,
                                                  const RelaxToGPUEmulatorOptions &options) {
  addGPUKernelStage(pm);
  GPUEmulatePassOptions emulate;
  emulate.reverse = options.reverse;
  pm.addNestedPass<func::FuncOp>(createGPUEmulatePass(emulate));
  pm.addPass(createCanonicalizerPass());
  if (options.checkBounds)
    pm.addPass(createGenerateRuntimeVerificationPass());
  // The host's plain lowering (no CPU schedule: the kernels' loops as they are).
  RelaxToLLVMOptions llvm;
  llvm.optLevel = 0;
  llvm.pooledAlloc = options.pooledAlloc;
  addLLVMStage(pm, llvm);
}

void mlir::relax::registerRelaxPipelines() {
  PassPipelineRegistration<RelaxToNVVMOptions>(
      "relax-to-nvvm",
      "Lower relax functions to host code (LLVM dialect) launching NVVM kernels held in a "
      "gpu.binary: relax to linalg, elementwise fusion, bufferization, device memory, "
      "parallel loops mapped to blocks and threads, kernel outlining, NVVM, serialization "
      "for the chip (isa: PTX; bin: cubin; fatbin: cubin and PTX)",
      [](OpPassManager &pm, const RelaxToNVVMOptions &options) {
        buildRelaxToNVVMPipeline(pm, options);
      });
  PassPipelineRegistration<>(
      "relax-to-gpu-kernels",
      "Lower relax functions as relax-to-nvvm does up to its kernels: each a gpu.launch "
      "with its grid and block sizes, before outlining and NVVM (for inspecting the "
      "kernels)",
      [](OpPassManager &pm) { buildRelaxToGPUKernelsPipeline(pm); });
  PassPipelineRegistration<RelaxToGPUEmulatorOptions>(
      "relax-to-gpu-emulator",
      "Lower relax functions as relax-to-nvvm does up to its kernels (gpu.launch), then run "
      "those on the host, one thread at a time between barriers (relax-gpu-emulate), and "
      "lower the whole to the LLVM dialect for the CPU: tests the GPU pipeline's kernels "
      "without a GPU (slow; not for production)",
      [](OpPassManager &pm, const RelaxToGPUEmulatorOptions &options) {
        buildRelaxToGPUEmulatorPipeline(pm, options);
      });
  PassPipelineRegistration<RelaxToLLVMOptions>(
      "relax-to-llvm",
      "Lower relax functions to the LLVM dialect (relax and elementwise arith/math on "
      "tensors to linalg, elementwise fusion, at opt-level >= 1 the CPU schedule "
      "(relax-cpu-select-tiles, relax-cpu-pack, relax-cpu-tile, relax-cpu-vectorize, "
      "relax-cpu-lower-vectors), one-shot "
      "bufferization, out-parameter results, deallocation, loops, C interface for "
      "public functions)",
      [](OpPassManager &pm, const RelaxToLLVMOptions &options) {
        buildRelaxToLLVMPipeline(pm, options);
      });
}
