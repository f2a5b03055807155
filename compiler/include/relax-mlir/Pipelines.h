//===- Pipelines.h - relax lowering pipelines -------------------*- C++ -*-===//
#ifndef RELAX_MLIR_PIPELINES_H
#define RELAX_MLIR_PIPELINES_H

#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassOptions.h"

namespace mlir::relax {
/// The points of the `relax-to-llvm` pipeline where the IR can be taken out
/// (`to-stage`) or put back in (`from-stage`), in pipeline order.
enum class LoweringStage {
  Relax,      ///< relax ops on tensors (the input)
  Linalg,     ///< linalg/tensor/arith/math on tensors, elementwise ops fused
  Vector,     ///< the CPU schedule applied: tiles of vector ops (on tensors)
  Bufferized, ///< memrefs: results as out-parameters, temporaries freed early
  LLVM,       ///< the LLVM dialect (the end)
};

/// The values of the `from-stage`/`to-stage` options.
inline auto loweringStageValues() {
  return llvm::cl::values(
      clEnumValN(LoweringStage::Relax, "relax", "relax ops on tensors"),
      clEnumValN(LoweringStage::Linalg, "linalg", "linalg on tensors, elementwise ops fused"),
      clEnumValN(LoweringStage::Vector, "vector",
                 "the CPU schedule: tiles of vector ops on tensors (as linalg at "
                 "opt-level=0)"),
      clEnumValN(LoweringStage::Bufferized, "bufferized",
                 "memrefs, out-parameter results, deallocations"),
      clEnumValN(LoweringStage::LLVM, "llvm", "the LLVM dialect"));
}

/// Options of the `relax-to-llvm` pipeline.
struct RelaxToLLVMOptions : public PassPipelineOptions<RelaxToLLVMOptions> {
  PassOptions::Option<int64_t> optLevel{
      *this, "opt-level",
      llvm::cl::desc("0: every linalg op becomes plain scalar loops (the reference, for "
                     "debugging); 1-3: the CPU schedule (register tiles, vector code)"),
      llvm::cl::init(3)};
  PassOptions::Option<int64_t> vectorBits{
      *this, "vector-bits",
      llvm::cl::desc("Vector register width the schedule targets (0: the host CPU's)"),
      llvm::cl::init(0)};
  PassOptions::Option<int64_t> numThreads{
      *this, "num-threads",
      llvm::cl::desc("Threads (OpenMP) for the outer tile loops of large ops (opt-level >= "
                     "1); 1: none. Running the result needs libomp"),
      llvm::cl::init(1)};
  PassOptions::Option<int64_t> kernelMinIterations{
      *this, "kernel-min-iterations",
      llvm::cl::desc("relax-outline-tensor-kernels's min-iterations: ops of at most this "
                     "many iterations stay in their function through the CPU schedule "
                     "(0: every op with a loop is scheduled as a kernel of its own, which "
                     "the tests use to run every op through the kernels)"),
      llvm::cl::init(4096)};
  PassOptions::Option<bool> pooledAlloc{
      *this, "pooled-alloc",
      llvm::cl::desc("Allocate temporaries with _mlir_memref_to_llvm_{alloc,aligned_alloc,"
                     "free} instead of malloc/free (relax_mlir.compile provides a caching "
                     "pool)"),
      llvm::cl::init(false)};
  PassOptions::Option<std::string> mpiImplementation{
      *this, "mpi-implementation",
      llvm::cl::desc("The MPI library relax.all_reduce's calls are compiled for: OpenMPI or "
                     "MPICH (their handles differ)"),
      llvm::cl::init("OpenMPI")};
  PassOptions::Option<bool> cInterfaceOnly{
      *this, "c-interface-only",
      llvm::cl::desc("Only the C interfaces (_mlir_ciface_<name>) stay callable from outside "
                     "the module: the public functions they wrap get internal linkage, so "
                     "LLVM inlines each into its wrapper (what relax_mlir's JIT and exported "
                     "libraries call; an mlir-runner entry point needs the default, false)"),
      llvm::cl::init(false)};
  PassOptions::Option<LoweringStage> fromStage{
      *this, "from-stage",
      llvm::cl::desc("The stage the input is at (its passes and the earlier ones are "
                     "skipped)"),
      llvm::cl::init(LoweringStage::Relax), loweringStageValues()};
  PassOptions::Option<LoweringStage> toStage{
      *this, "to-stage",
      llvm::cl::desc("Stop after this stage (to see or keep the IR there)"),
      llvm::cl::init(LoweringStage::LLVM), loweringStageValues()};
};

/// What `relax-to-nvvm` puts in each gpu.binary.
enum class GPUBinaryFormat { Isa, Bin, Fatbin };

/// Options of the `relax-to-nvvm` pipeline.
struct RelaxToNVVMOptions : public PassPipelineOptions<RelaxToNVVMOptions> {
  PassOptions::Option<std::string> chip{
      *this, "chip", llvm::cl::desc("The GPU to compile the kernels for (sm_XY)"),
      llvm::cl::init("sm_90")};
  PassOptions::Option<std::string> features{
      *this, "features",
      llvm::cl::desc("PTX features (the PTX ISA version: +ptx80 is the lowest that sm_90 "
                     "accepts; LLVM aborts on sm_90 with its default +ptx60)"),
      llvm::cl::init("+ptx80")};
  PassOptions::Option<GPUBinaryFormat> format{
      *this, "format",
      llvm::cl::desc("What the gpu.binary holds"), llvm::cl::init(GPUBinaryFormat::Fatbin),
      llvm::cl::values(
          clEnumValN(GPUBinaryFormat::Isa, "isa", "PTX text (no CUDA toolkit needed)"),
          clEnumValN(GPUBinaryFormat::Bin, "bin", "a cubin for the chip (from ptxas)"),
          clEnumValN(GPUBinaryFormat::Fatbin, "fatbin",
                     "the cubin and the PTX, which a newer driver can JIT (ptxas, "
                     "fatbinary)"))};
  PassOptions::Option<std::string> toolkit{
      *this, "toolkit",
      llvm::cl::desc("The CUDA toolkit (libdevice for math functions, ptxas, fatbinary); "
                     "empty: $CUDA_ROOT, $CUDA_HOME, $CUDA_PATH, else /usr/local/cuda"),
      llvm::cl::init("")};
  PassOptions::Option<int64_t> optLevel{
      *this, "opt-level", llvm::cl::desc("LLVM optimization level of the kernels"),
      llvm::cl::init(3)};
};

/// Options of the `relax-to-gpu-emulator` pipeline.
struct RelaxToGPUEmulatorOptions : public PassPipelineOptions<RelaxToGPUEmulatorOptions> {
  PassOptions::Option<bool> reverse{
      *this, "reverse",
      llvm::cl::desc("Run each kernel's blocks and threads last to first (a result that "
                     "changes has a race)"),
      llvm::cl::init(false)};
  PassOptions::Option<bool> pooledAlloc{
      *this, "pooled-alloc",
      llvm::cl::desc("As relax-to-llvm's pooled-alloc"), llvm::cl::init(false)};
  PassOptions::Option<bool> checkBounds{
      *this, "check-bounds",
      llvm::cl::desc("Check every memory access of the emulated code at run time "
                     "(generate-runtime-verification): an out-of-bounds index aborts "
                     "with the op's location"),
      llvm::cl::init(false)};
};

/// relax (on tensors) to host functions whose kernels are `gpu.launch` ops
/// (the stages of `relax-to-nvvm` before outlining).
void buildRelaxToGPUKernelsPipeline(OpPassManager &pm);

/// relax (on tensors) to the LLVM dialect for the host, with the kernels of
/// `relax-to-nvvm` emulated: each gpu.launch run thread by thread between
/// its barriers (relax-gpu-emulate). For testing the GPU lowering on a CPU.
void buildRelaxToGPUEmulatorPipeline(OpPassManager &pm,
                                     const RelaxToGPUEmulatorOptions &options = {});

/// relax (on tensors) to host code in the LLVM dialect that launches NVVM
/// kernels held in a gpu.binary: the linalg stage, bufferization (as for the
/// CPU), buffers in device memory, linalg to parallel loops mapped to blocks
/// and threads, kernels outlined, NVVM, serialized for the chip.
void buildRelaxToNVVMPipeline(OpPassManager &pm, const RelaxToNVVMOptions &options);

/// relax (on tensors) to the LLVM dialect: inline, flatten tuples, lower to
/// linalg, fuse elementwise ops, (opt-level >= 1) tile and vectorize, one-shot
/// bufferize, results to out-parameters, deallocation, loops, LLVM; public
/// functions get a C interface (`_mlir_ciface_<name>`).
void buildRelaxToLLVMPipeline(OpPassManager &pm,
                              const RelaxToLLVMOptions &options = RelaxToLLVMOptions());
void registerRelaxPipelines();
} // namespace mlir::relax

#endif // RELAX_MLIR_PIPELINES_H
