//===- Passes.td - relax code generation passes ------------*- tablegen -*-===//
//
// The CPU schedule of the optimizing pipeline (relax-to-llvm{opt-level>=1}):
// tile on tensors, vectorize, bufferize, then lower the vector ops. Each
// step is a pass of its own so that lit tests can look between them.
//
//===----------------------------------------------------------------------===//

#ifndef RELAX_CODEGEN_PASSES_TD
#define RELAX_CODEGEN_PASSES_TD

include "mlir/Pass/PassBase.td"

def FuseElementwisePass : Pass<"relax-fuse-elementwise"> {
  let summary = "Fuse elementwise linalg ops into their consumers without duplicating work";
  let description = [{
    Upstream's `linalg-fuse-elementwise-ops` (a producer with one use is
    inlined into the linalg.generic consuming it; reshapes move out of the
    way), except that a producer is only fused into a consumer that reads each
    of its elements once (the operand's indexing map is a permutation of the
    consumer's loops). Upstream would also fuse, say, a bias add and tanh into
    the matmul that reads them, recomputing them for every output column.
  }];
  let dependentDialects = ["::mlir::linalg::LinalgDialect", "::mlir::tensor::TensorDialect",
                           "::mlir::affine::AffineDialect"];
}

def WidenBooleansPass : Pass<"relax-widen-booleans", "::mlir::func::FuncOp"> {
  let summary = "Hold boolean tensors passed between linalg.generics as bytes (i8)";
  let description = [{
    A linalg.generic on tensors whose result is an i1 tensor, computed into a
    `tensor.empty` it does not read and used only as an input of other
    linalg.generics (a comparison feeding a `where`, a causal mask read by the
    forward and the backward pass), computes it as i8 (`arith.extui` of the
    bit) instead; each reader truncates the element back to i1
    (`arith.trunci`) in its body. Memory is the same (a buffer of i1 holds a
    byte per element), but the ops no longer have i1 operands, which the CPU
    schedule leaves scalar (LLVM loads and stores vectors of i1 as packed
    bits): they are vectorized like the others. Other i1 tensors (function
    arguments and results, reduction inits) are left as they are.
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect", "::mlir::tensor::TensorDialect"];
}

def LoopCarriesInPlacePass : Pass<"relax-loop-carries-in-place", "::mlir::func::FuncOp"> {
  let summary = "Compute elementwise loop carries into the buffer of the carry they replace";
  let description = [{
    In an `scf.for` (a relax.scan, the accumulated gradients of a reverse
    scan), a carry that the next iteration computes elementwise from itself
    (`acc + g`) gets the carry as its linalg.generic's init instead of a new
    tensor, so that bufferization updates it in place: no buffer per
    iteration, no copy. Only when the generic is all parallel, reads the carry
    with the identity map and writes with it, and its body does not read the
    init; bufferization still copies where the old value is read later.
  }];
  let dependentDialects = ["::mlir::linalg::LinalgDialect"];
}

def CPUCollapseTransposesPass : Pass<"relax-cpu-collapse-transposes", "::mlir::func::FuncOp"> {
  let summary = "Copy transposed over one loop per run of loops every operand reads in order";
  let description = [{
    A transposing copy (a linalg op on statically shaped tensors, all loops
    parallel, one output, every operand read through a permutation, some
    input's innermost loop not the output's) whose operands all read some run
    of loops one after the other in the same order is rewritten over one loop
    per such run (upstream's `collapseOpIterationDims`: collapse_shape of the
    operands, expand_shape of the result). A filter gradient's
    `[64,3,3,128] -> [128,64,3,3]` becomes the 2-D transpose
    `[576,128] -> [128,576]`, which relax-cpu-select-tiles copies in square
    tiles transposed in registers, instead of rows of 128 elements scattered
    one element at a time 576 elements apart (slow to run, and 40 ms of
    LLVM's instruction selection for that one kernel).
  }];
  let dependentDialects = ["::mlir::linalg::LinalgDialect", "::mlir::tensor::TensorDialect"];
}

def CPUSelectTilesPass : Pass<"relax-cpu-select-tiles", "::mlir::func::FuncOp"> {
  let summary = "Choose each linalg op's tiles, packing and split-K (the CPU schedule's strategy)";
  let description = [{
    The strategy of the CPU schedule, and the only place that knows the
    target: every statically shaped linalg op that the vectorizer accepts
    gets `relax_cpu.tiles = #relax_cpu.tiles<...>` (see the relax_cpu
    dialect), which relax-cpu-pack, relax-cpu-tile and relax-cpu-vectorize
    read. An op that already has one keeps it.

    - contractions (matmul with either operand transposed through its
      indexing map, batch matmul, and any generic that is a sum of products;
      loops from upstream's `inferContractionDims`): the output is tiled
      `rows x cols` (`outer`), with `cols` along the output's contiguous
      dimension (up to four vectors) and `rows` as many as the accumulator
      registers allow (24 of 32 with AVX-512, 12 of 16 below); the reduction
      loops are then tiled by 1 (`inner`: each step one rank-1 update of the
      register tile), in cache blocks of 256 (`cache_block`) when longer than
      512 and a multiple of 256.
    - `a @ b^T` (both inputs contiguous along the reduction, the output's
      columns strided in `b`): `split_k` partial dot products per output (a
      vector of them), summed at the end of the tile.
    - copies first (`pack`): the strided input of `a @ b^T` with 1024 or more
      rows or no more elements than the output, or of another contraction
      with 8 or more rows (`columns`); a
      transposed lhs whose reduction steps are 2 KiB or more apart in at
      most 8 L1 sets, read by 4 or more column tiles (`rows`); an rhs whose
      rows are 2 KiB or longer, reused by 512 or more output rows
      (`panels`); a float convolution as the product of its filter and its
      patches (`im2col_image`, or `im2col_batch` below 256 output pixels per
      image).
    - a transposing copy: square tiles of a vector's lanes (at most 16).
    - everything else (elementwise chains, broadcasts, reductions): one row
      at a time, the innermost dimension of the largest operand kept whole
      up to eight vectors (longer ones in chunks).

    Ops that cannot be vectorized (gathers, convolutions of integers,
    pooling) get nothing and are lowered to loops later.
  }];
  let options = [
    Option<"vectorBits", "vector-bits", "int64_t", /*default=*/"0",
           "Width of a vector register in bits (0: the host CPU's; 512 with "
           "AVX-512, 256 with AVX2, 128 otherwise)">,
  ];
  let dependentDialects = ["::mlir::relax::cpu::RelaxCPUDialect"];
}

def CPUPackPass : Pass<"relax-cpu-pack", "::mlir::func::FuncOp"> {
  let summary = "Make the copies that the selected tiles ask for (the CPU schedule's second step)";
  let description = [{
    Reads `pack` of each op's `#relax_cpu.tiles`:

    - `im2col_image` / `im2col_batch`: a float convolution becomes one gather
      of its patches (each row a read of consecutive elements of x when the
      width stride is 1) and the product of the filter with them, per image
      or for the whole batch (other convolutions: upstream's im2col). When
      the patches of the whole batch would exceed 512 KiB, the gather and
      the product run in a loop over chunks of images whose patches stay
      in the L2 cache (the largest divisor of the batch that fits); not
      for code that runs on several threads (`num-threads` above 1), whose
      tiles split one product of the whole batch.
    - `columns`: the input read with strided columns is copied transposed.
    - `rows`: the lhs is copied with the reduction innermost.
    - `panels`: the rhs `[.., K, N]` is copied into `[N / panel_cols, .., K,
      panel_cols]` and the op gets one more parallel loop, the panel index;
      an elementwise consumer reached through the reshape back is rewritten
      over the panelled shape, so that it can still take the tile.

    An op a copy rewrites gets the tiles selected for what it became (a
    transposed lhs may then want panels: at most three copies), and every op
    made here gets its own, by the same strategy as relax-cpu-select-tiles.
    A copy that cannot be made leaves the op with the tiles selected
    without copies.
  }];
  let options = [
    Option<"vectorBits", "vector-bits", "int64_t", /*default=*/"0",
           "Width of a vector register in bits, as relax-cpu-select-tiles's">,
    Option<"numThreads", "num-threads", "int64_t", /*default=*/"1",
           "Threads the code will run on (relax-cpu-tile's): above 1, convolutions "
           "are not split into chunks of images">,
  ];
  let dependentDialects = ["::mlir::relax::cpu::RelaxCPUDialect", "::mlir::tensor::TensorDialect",
                           "::mlir::arith::ArithDialect", "::mlir::linalg::LinalgDialect",
                           "::mlir::affine::AffineDialect", "::mlir::scf::SCFDialect"];
}

def CPUTilePass : Pass<"relax-cpu-tile", "::mlir::func::FuncOp"> {
  let summary = "Tile linalg ops on tensors as their #relax_cpu.tiles say (the CPU schedule's third step)";
  let description = [{
    Tiles every linalg op that has a `#relax_cpu.tiles` (and no `pack` left:
    an error names relax-cpu-pack otherwise) with the sizes it gives. What is
    left to this pass: numerics (a float reduction longer than 256 steps is
    summed in blocks of at most 256), fusing an elementwise consumer (at most
    one transcendental function: more spill) and the parallel loops
    (`num-threads`). Copies of a tiled op (its tiles, peeled remainders) keep
    the attribute and are not tiled again.

    - a contraction: cache blocks of the reduction (`cache_block`), then the
      register tile of the output (`outer`, columns outside rows), the fill
      that initializes the output fused into it, and an elementwise
      consumer as the root of the tile loops with the contraction fused;
      then the reduction steps (`inner`).
    - `split_k`: upstream's split reduction (the new loop innermost and
      parallel), its body one fma; the sum over the partial products is the
      root of the tile (`outer`), the partial products fused into it, one
      reduction step per iteration.
    - the others: tiled by `outer`.

    A tile loop whose step does not divide its trip is peeled, so that every
    tile has a static shape.
  }];
  let options = [
    Option<"numThreads", "num-threads", "int64_t", /*default=*/"1",
           "Threads the code will run on: above 1, the outermost tile loop "
           "with at least that many iterations of each op with at least "
           "`parallel-min-work` iterations is marked `relax.parallel` (for "
           "relax-cpu-parallelize)">,
    Option<"parallelMinWork", "parallel-min-work", "int64_t", /*default=*/"262144",
           "Smallest iteration space (product of loop sizes) worth a parallel loop">,
  ];
  let dependentDialects = ["::mlir::scf::SCFDialect", "::mlir::affine::AffineDialect",
                           "::mlir::tensor::TensorDialect", "::mlir::arith::ArithDialect",
                           "::mlir::linalg::LinalgDialect", "::mlir::math::MathDialect"];
}

def CPUVectorizePass : Pass<"relax-cpu-vectorize", "::mlir::func::FuncOp"> {
  let summary = "Vectorize tiled linalg ops and hoist their accumulators out of loops";
  let description = [{
    Rewrites each statically shaped linalg op of at most `max-elements`
    iterations (the tiles made by `relax-cpu-tile`) into vector transfers and
    vector arithmetic (`vector.contract` for contractions,
    `vector.multi_reduction` for reductions), folds tensor slices into the
    transfers, and hoists loop-invariant tensor subsets (the register tile of
    a contraction) out of the reduction loop, so that the accumulator lives in
    registers across it. An op whose result's innermost dimension is longer
    than one vector and not a power of two (a peeled remainder: 56 floats at
    16 lanes) is first split there (`linalg::splitOp`) into pieces of
    power-of-two lengths (32 + 16 + 8): LLVM takes a vector<6x56xf32> apart
    element by element.
  }];
  let options = [
    Option<"maxElements", "max-elements", "int64_t", /*default=*/"4096",
           "Largest iteration space (product of loop sizes) to vectorize">,
    Option<"vectorBits", "vector-bits", "int64_t", /*default=*/"0",
           "Vector register width in bits, for the lanes of a vector (0: the "
           "host's, as relax-cpu-select-tiles)">,
  ];
  let dependentDialects = ["::mlir::vector::VectorDialect", "::mlir::tensor::TensorDialect",
                           "::mlir::arith::ArithDialect"];
}

def CPUHoistTransfersPass : Pass<"relax-cpu-hoist-transfers", "::mlir::func::FuncOp"> {
  let summary = "Copies as linalg.copy, redundant vector transfers hoisted out of loops";
  let description = [{
    Runs after bufferization, first of the CPU schedule's memref passes:
    turns `memref.copy` into `linalg.copy` (inline loops rather than the
    runtime's element-by-element `memrefCopy` of strided views) and hoists
    vector.transfer_read/write pairs of the same buffer out of loops.
  }];
  let dependentDialects = ["::mlir::linalg::LinalgDialect", "::mlir::vector::VectorDialect"];
}

def CPUPackPanelsPass : Pass<"relax-cpu-pack-panels", "::mlir::func::FuncOp"> {
  let summary = "Copy rows that register tiles read far apart into a local panel";
  let description = [{
    The rows that several register tiles' reduction loops (scf.for carrying
    vectors) read one per step, 2 KiB or more apart (the rhs rows of x @ w),
    are copied once into a contiguous stack panel, made where every tile that
    reads the same rows can use it, when at least 4 tile loops read it.
  }];
  let options = [
    Option<"panelBytes", "panel-bytes", "int64_t", /*default=*/"131072",
           "Largest panel in bytes; 0: no panels">,
  ];
  let dependentDialects = ["::mlir::memref::MemRefDialect", "::mlir::vector::VectorDialect",
                           "::mlir::scf::SCFDialect", "::mlir::arith::ArithDialect",
                           "::mlir::affine::AffineDialect"];
}

def CPUPrefetchPass : Pass<"relax-cpu-prefetch", "::mlir::func::FuncOp"> {
  let summary = "Prefetch the rows register tiles read far apart";
  let description = [{
    A register tile's reduction loop that reads rows one per step, far apart
    and not one contiguous stream (the rhs rows of x @ w, a page apart), gets
    software prefetches of the rows `prefetch-distance` steps ahead.
  }];
  let options = [
    Option<"prefetchDistance", "prefetch-distance", "int64_t", /*default=*/"4",
           "Steps ahead to prefetch; 0: no prefetches">,
  ];
  let dependentDialects = ["::mlir::memref::MemRefDialect", "::mlir::arith::ArithDialect",
                           "::mlir::affine::AffineDialect"];
}

def CPUStreamStoresPass : Pass<"relax-cpu-stream-stores", "::mlir::func::FuncOp"> {
  let summary = "Store register tiles of large write-only results non-temporally";
  let description = [{
    Result buffers (function arguments the function only writes) of at least
    `streaming-store-bytes` get their register tiles stored non-temporally
    (whole vectors where the row's address, checked at run time, allows),
    followed by a fence after each such loop nest. Not in a kernel that
    relax-outline-tensor-kernels kept a function (`relax.kept_kernel`): its
    out-parameters are temporaries, read again soon.
  }];
  let options = [
    Option<"streamingStoreBytes", "streaming-store-bytes", "int64_t",
           /*default=*/"1048576", "Smallest result buffer in bytes; 0: never">,
  ];
  let dependentDialects = ["::mlir::LLVM::LLVMDialect", "::mlir::vector::VectorDialect",
                           "::mlir::arith::ArithDialect", "::mlir::scf::SCFDialect"];
}

def CPULowerVectorsPass : Pass<"relax-cpu-lower-vectors", "::mlir::func::FuncOp"> {
  let summary = "Lower vector ops to 1-D fma form";
  let description = [{
    Runs after bufferization and the other CPU memref passes: lowers
    `vector.contract` to outer products
    and those to `vector.fma`, `vector.multi_reduction` to 1-D reductions,
    and transfers, transposes, shape casts and broadcasts to rank 1, in
    separate pattern groups (one combined group explodes in memory). Finally
    `tanh`, `erf`, `exp` and `expm1` of f32 (and f16, through f32) become
    MLIR's polynomial approximations, which vectorize, instead of one libm
    call per lane (within 4 ulp of the exact value; `exp` flushes results below 2^-126
    to 0).
  }];
  let dependentDialects = ["::mlir::vector::VectorDialect", "::mlir::memref::MemRefDialect",
                           "::mlir::math::MathDialect", "::mlir::arith::ArithDialect",
                           "::mlir::linalg::LinalgDialect", "::mlir::LLVM::LLVMDialect",
                           "::mlir::affine::AffineDialect", "::mlir::scf::SCFDialect"];
}

def CPUParallelizePass : Pass<"relax-cpu-parallelize", "::mlir::func::FuncOp"> {
  let summary = "Turn the tile loops marked relax.parallel into scf.parallel";
  let description = [{
    Runs after bufferization. A `scf.for` marked `relax.parallel` by
    `relax-cpu-tile` whose iterations write disjoint tiles of a buffer (it
    carries no values) becomes an `scf.parallel`, which `convert-scf-to-openmp`
    then runs on a thread team. A marked loop that still carries values stays
    sequential.
  }];
  let dependentDialects = ["::mlir::scf::SCFDialect"];
}

def CPUThreadBuffersPass : Pass<"relax-cpu-thread-buffers", "::mlir::func::FuncOp"> {
  let summary = "Allocate the stack buffers of a parallel loop body once per thread";
  let description = [{
    Runs right after `convert-scf-to-openmp`, which wraps the body of each
    parallel loop in a `memref.alloca_scope` (its stack is released at the end
    of every iteration). A fixed-size `memref.alloca` at the top of such a
    body (the local panels of `relax-cpu-lower-vectors`) moves to the entry
    of the enclosing `omp.parallel` region, which each thread of the team runs
    once: every thread has its own buffer, and the iterations it runs, one
    after the other, reuse it. The scope is then empty of allocations and
    canonicalization inlines it (`scf-to-cf` would otherwise give it several
    blocks, which `memref.alloca_scope` does not allow). An alloca's contents
    are undefined when it is made, so the buffer that the thread's previous
    iteration left behind serves as well as a fresh one.
  }];
  let dependentDialects = ["::mlir::omp::OpenMPDialect", "::mlir::memref::MemRefDialect"];
}

def ShareKernelsPass : Pass<"relax-share-kernels", "::mlir::ModuleOp"> {
  let summary = "Each loop nest in a function of its own, equal nests sharing one";
  let description = [{
    LLVM's code generation is most of the compile time and grows with the
    code it is given; a deep network repeats the same kernels once per layer
    (each layer's matmul, activation and their gradients, of equal shapes):
    a 32-layer MLP's gradient gave LLVM 32 copies of each. Each top-level op
    with regions of at least `min-ops` operations (a loop nest: a tiled loop,
    or a linalg op with at least one loop) moves into a private function
    (`<name>_kernel<k>`, `noinline`; the values it reads from before it
    become arguments, constants are re-created), and kernels equal in MLIR's
    generic form but for their names are merged (other functions never are:
    public ones are entry points). What stays in the functions is the glue
    between kernels (allocations, calls, frees), without loops, which
    relax-optimize-none-glue then leaves unoptimized. Runs on buffers, after
    the CPU schedule's passes that read a whole function (relax-cpu-tile to
    relax-cpu-stream-stores, which looks at every use of a result) and before
    the vectors are lowered: what follows (the vector lowering, linalg and
    vectors to loops, and LLVM) runs once per distinct kernel, not once per
    layer.
  }];
  let options = [
    Option<"minOps", "min-ops", "int64_t", /*default=*/"1",
           "Loop nests with fewer operations than this stay where they are">,
  ];
  let dependentDialects = ["::mlir::func::FuncDialect"];
}

def OutlineTensorKernelsPass : Pass<"relax-outline-tensor-kernels", "::mlir::ModuleOp"> {
  let summary = "Each kernel on tensors in a function of its own, equal kernels sharing one";
  let description = [{
    The CPU schedule (relax-cpu-select-tiles to relax-cpu-vectorize and the
    canonicalizations between them) takes time per op it schedules; a deep
    network repeats the same ops once per layer, of equal shapes. Runs on
    tensors, before the schedule: each kernel of a function's entry block
    moves into a private function marked `relax.kernel`
    (`<name>_tensor_kernel<k>`; the values it reads become arguments,
    constants are re-created), and kernels equal in MLIR's generic form but
    for their names are merged, so the schedule's function passes run once
    per distinct kernel. A kernel is a linalg op with at least one loop (not
    a fill) together with what the schedule reads beside it: the
    `tensor.empty` and `linalg.fill` that make its inits (cloned for it), and,
    for an op with reduction loops, the elementwise `linalg.generic` that
    alone consumes its result (its epilogue, which relax-cpu-tile fuses into
    the register tiles). Ops nested in loops stay where they are.
    A kernel called more than once stays a function after the schedule
    (`relax.kept_kernel`, `noinline`), so that bufferization and what
    follows also run once for it, when that gives the same code as inlined:
    it computes
    only into buffers of its own (no init is an argument), and at each call
    its arguments are whole buffers (function arguments, results of such
    kernels or of linalg ops computing into fresh tensors, reshapes of them:
    no copy to an identity layout at the call) and its results are only read
    (by calls and linalg inputs: a result of the function is computed in its
    out-parameter and may be streamed there; an inserted one in place).
    relax-inline-tensor-kernels puts the other kernels back. Ops of at
    most `min-iterations` iterations stay: the schedule makes them a few
    whole vectors, which canonicalization forwards from op to op within a
    function (not across functions), and scheduling them costs little.
  }];
  let options = [
    Option<"minIterations", "min-iterations", "int64_t", /*default=*/"4096",
           "Ops with at most this many iterations (the product of their static "
           "loop ranges) stay where they are">,
  ];
  let dependentDialects = ["::mlir::func::FuncDialect"];
}

def InlineTensorKernelsPass : Pass<"relax-inline-tensor-kernels", "::mlir::ModuleOp"> {
  let summary = "Inline the kernels of relax-outline-tensor-kernels and erase them";
  let description = [{
    Every call to a function marked `relax.kernel` (by
    relax-outline-tensor-kernels) but not `relax.kept_kernel` is replaced by
    a copy of its body, and those kernels are erased: after the schedule,
    each call site holds the scheduled code.
  }];
  let dependentDialects = ["::mlir::func::FuncDialect"];
}

def OptimizeNoneGluePass : Pass<"relax-optimize-none-glue", "::mlir::ModuleOp"> {
  let summary = "Compile functions without loops unoptimized (optnone)";
  let description = [{
    Once relax-share-kernels has moved every loop nest into a kernel
    function, the functions left without a loop are glue: buffer
    allocations, memref descriptors passed to kernel calls, frees. They run
    once per call, but they were most of what LLVM compiled: of a 32-layer
    MLP gradient's 11,000 lines of LLVM IR, 10,000 were glue, and the
    instruction selection and scheduling of their long single blocks took
    most of the 3.8 s of code generation. Each defined `llvm.func` whose
    control flow has no cycle gets `optimize_none` and `no_inline` (LLVM
    requires both), so LLVM selects its instructions quickly and skips its
    optimizations. Runs on the LLVM dialect, last.
  }];
}

def KeepVectorLoopsRolledPass : Pass<"relax-keep-vector-loops-rolled", "::mlir::ModuleOp"> {
  let summary = "Tell LLVM not to unroll the loops of vectorized kernels";
  let description = [{
    The CPU schedule has already tiled, vectorized and unrolled each kernel
    (its register tile is straight-line vector code); LLVM's unroller then
    unrolled the loops around the tiles again, fully where the trip count was
    small. Measured on the LeNet, CNN, ResNet-block and attention steps
    (AMD EPYC znver4): the optimized LLVM IR grew 2.5x and code generation
    took 2-3x as long (LeNet 1.7 of 2.9 s of compilation), and the steps ran
    no faster. Each back edge of an `llvm.func` that holds vector values
    gets `loop_annotation<unroll = <disable = true>>` (LLVM's
    `llvm.loop.unroll.disable`). Functions without vectors keep LLVM's
    unrolling: there it earns its time (the scalar pooling windows and i1
    loops MLIR leaves: a CNN step ran 10-30% slower without it). Runs on the
    LLVM dialect, last.
  }];
}

def OutlineSegmentsPass : Pass<"relax-outline-segments", "::mlir::ModuleOp"> {
  let summary = "Split a large function into functions of bounded size";
  let description = [{
    LLVM's code generation takes time superlinear in a function's size (its
    DAG combiner is quadratic in a basic block's stores): the JIT of a
    4,000-op elementwise chain (one function) took 5.5 s and of a 20,000-op
    chain 300 s, the gradient of a sum over 300 parameters 32 s (JAX
    compiles each fusion as a function of its own). A function of at least `min-ops` operations is cut
    into segments of consecutive top-level ops of about `segment-ops`
    operations each (an op is never split: a loop nest stays whole); each
    segment moves into a private function (`<name>_part<k>`, `noinline`, so
    that LLVM does not merge them back), called where it was. The values a
    segment reads from before it become arguments, except constants, which
    it re-creates; the values later ops read of it become results. A segment
    whose results would include a stack buffer (memref.alloca) stays. Runs
    on buffers, before the lowering to loops and LLVM.
  }];
  let options = [
    Option<"minOps", "min-ops", "int64_t", /*default=*/"2000",
           "Functions with fewer operations than this are left whole">,
    Option<"segmentOps", "segment-ops", "int64_t", /*default=*/"250",
           "Operations per segment (at least; a segment ends after the op that reaches it)">,
  ];
  let dependentDialects = ["::mlir::func::FuncDialect"];
}

def VerifyCombiningKindsPass : Pass<"relax-verify-combining-kinds", "::mlir::ModuleOp"> {
  let summary = "Reject vector.multi_reduction ops whose combining kind does not apply to "
                "their element type";
  let description = [{
    Upstream's verifiers accept `vector.multi_reduction <maximumf>` over
    integers (and integer kinds over floats), and the LLVM lowering turns
    them into invalid IR. The lowering pipelines run this first, so such an
    input gets a diagnostic at the op.
  }];
}

def PrepareEntryPointsPass : Pass<"relax-prepare-entry-points", "::mlir::ModuleOp"> {
  let summary = "Read-only arguments and a C interface for public functions";
  let description = [{
    Runs before bufferization. The tensor arguments of a public function are
    not writable (relax values are immutable, so a caller's buffers are never
    written), and the function gets a C interface (`_mlir_ciface_<name>`,
    what the JIT and exported libraries call). A tensor returned in two
    result positions gets a copy for each repeat, so that every result has a
    buffer of its own (buffer-results-to-out-params needs that). The results
    a function lists in `relax.donated_results = array<i64: ...>` (jit's
    `donate_argnums`: the caller passes a parameter's buffer as their
    out-parameter) are copied last, right before the return, so that every
    read of the parameters comes before that buffer is written; the
    attribute is then dropped.
  }];
  let dependentDialects = ["::mlir::linalg::LinalgDialect", "::mlir::tensor::TensorDialect",
                           "::mlir::bufferization::BufferizationDialect",
                           "::mlir::LLVM::LLVMDialect"];
}

def InternalLinkagePass : Pass<"relax-internal-linkage", "::mlir::ModuleOp"> {
  let summary = "Internal LLVM linkage for the functions nothing outside the module calls";
  let description = [{
    Runs before the functions are converted to LLVM (relax-convert-to-llvm or
    convert-func-to-llvm), which makes every function external,
    private ones included. External functions are compiled as they stand,
    with every argument passed by the C calling convention (a function of P
    memref parameters takes 5P scalars, most on the stack), and the JIT adds
    an argument-packing wrapper around each; internal ones LLVM may inline,
    specialize or drop. The outlined parts of a 500-parameter gradient took
    8.3 s of JIT code generation as external functions, 1.6 s as internal
    ones. Private `func.func` definitions get `llvm.linkage = internal`; with
    `c-interface-only`, so do the public functions that have a C interface
    (`llvm.emit_c_interface`): their wrapper is their only entry point.
  }];
  let options = [
    Option<"cInterfaceOnly", "c-interface-only", "bool", /*default=*/"false",
           "Public functions with llvm.emit_c_interface become internal too">,
  ];
  let dependentDialects = ["::mlir::LLVM::LLVMDialect"];
}

def ConvertToLLVMPass : Pass<"relax-convert-to-llvm", "::mlir::ModuleOp"> {
  let summary = "memref, arith, index, ub, func and cf to the LLVM dialect in one conversion";
  let description = [{
    Upstream's conversion patterns of the six dialects (those of
    finalize-memref-to-llvm, convert-arith-to-llvm, convert-index-to-llvm,
    convert-ub-to-llvm, convert-func-to-llvm and convert-cf-to-llvm, with
    one type converter that reads the module's data layout) applied by one
    partial conversion, instead of six passes that each walk the whole
    module and check every op's legality. The six passes took 145 ms of the
    LeNet step's 750 ms pipeline (`--mlir-timing`). What the patterns leave
    for another conversion (math, vector, mpi ops) stays as it is; run
    reconcile-unrealized-casts after. `use-generic-functions` is
    finalize-memref-to-llvm's option of that name (allocations call
    `_mlir_memref_to_llvm_alloc` and friends, which the runtime's pool
    defines).
  }];
  let options = [
    Option<"useGenericFunctions", "use-generic-functions", "bool", /*default=*/"false",
           "Allocate and free through _mlir_memref_to_llvm_alloc/_aligned_alloc/_free">,
  ];
  let dependentDialects = ["::mlir::LLVM::LLVMDialect"];
}

def MPIToLLVMPass : Pass<"relax-mpi-to-llvm", "::mlir::ModuleOp"> {
  let summary = "Upstream's mpi dialect to LLVM calls of the MPI library";
  let description = [{
    First replaces the calls relax.all_reduce lowered to
    (`@__relax_mpi_allreduce_sum_<type>(send, recv)`, kept as calls through
    buffer deallocation, which refuses mpi ops) by `mpi.allreduce` (MPI_SUM)
    on `mpi.comm_world`. Then runs upstream's MPI-to-LLVM patterns (MLIR 22
    has no pass of its own for them) on a module with mpi ops, before the
    memref conversion: a memref
    operand is cast to its descriptor, which that conversion then builds. The
    MPI library is named by the module's DLTI entry "MPI:Implementation",
    set from `implementation` where the module has none. OpenMPI's reduction
    handles are `ompi_mpi_op_<op>` (OpenMPI 4.1's libmpi), which MLIR 22.1's
    lowering declares as `ompi_mpi_<op>`: the declarations are renamed, or the
    link fails. A module without mpi ops is left as it is.
  }];
  let options = [
    Option<"implementation", "implementation", "std::string", /*default=*/"\"OpenMPI\"",
           "The MPI library: OpenMPI or MPICH">,
  ];
  let dependentDialects = ["::mlir::LLVM::LLVMDialect", "::mlir::DLTIDialect",
                           "::mlir::mpi::MPIDialect"];
}

def InlineIntoCInterfacesPass : Pass<"relax-inline-into-c-interfaces", "::mlir::ModuleOp"> {
  let summary = "Inline internal functions into the C interfaces that are their only callers";
  let description = [{
    Runs after convert-func-to-llvm, on the LLVM dialect. A C interface
    (`_mlir_ciface_<name>`) calls its function with every memref descriptor
    field as a scalar argument: 5,003 arguments for a gradient of 1,000
    parameters, and LLVM's CalledValuePropagation, which revisits a call for
    each of its arguments that changes, spent 8.2 s of 10 s of -O3 on that
    one call (LLVM's inliner runs only later). An internal function whose
    only use is the call in its C interface is inlined there and erased.
  }];
  let dependentDialects = ["::mlir::LLVM::LLVMDialect"];
}

def DropRelaxArgAttrsPass : Pass<"relax-drop-arg-attrs", "::mlir::ModuleOp"> {
  let summary = "Drop relax.* attributes of LLVM functions and of their arguments and results";
  let description = [{
    LLVM IR has no place for them: the translation warns about each one,
    printing the whole function into the diagnostic, so a function of P
    parameters cost O(P) prints of itself (the JIT of a 500-parameter
    function spent 88% of its engine setup there). The functions' own
    (`relax.kernel`, `relax.kept_kernel`) go too.
  }];
}

def AddressStridedGathersPass : Pass<"relax-address-strided-gathers", "::mlir::func::FuncOp"> {
  let summary = "Address gathers from strided views through the views' strides";
  let description = [{
    Runs right after bufferization. The linalg vectorizer builds a
    `vector.gather` from a tensor with each lane's position in the tensor's
    row-major order; once the tensor is a strided memref (a subview), that
    position means nothing in memory: upstream's LLVM lowering adds it to
    the base address as if the rows were contiguous (`W[:, :3][tokens]` read
    the wrong columns; a 1-wide convolution of a sliced image the wrong
    pixels), refuses an innermost stride other than 1, and the
    canonicalizer folds a gather of consecutive positions into a contiguous
    `vector.load` (a column of a row-strided slice read a run of the rows
    instead). Each such gather becomes one from a 1-D unit-stride view of the
    whole buffer, the positions delinearized by the view's sizes and
    recombined with its strides and offset.
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect", "::mlir::memref::MemRefDialect",
                           "::mlir::vector::VectorDialect"];
}

def SplitDeallocsPass : Pass<"relax-split-deallocs", "::mlir::func::FuncOp"> {
  let summary = "Free distinct allocations with deallocs of their own, in linear time";
  let description = [{
    Runs between `ownership-based-buffer-deallocation`, which frees all the
    buffers a block owns with one `bufferization.dealloc` at its end, and
    `buffer-deallocation-simplification`, which splits that op into one
    dealloc per buffer where alias analysis proves the buffers distinct.
    Upstream's split asks alias analysis about every pair of the op's N
    memrefs: O(N^2) queries, 5.4 s of a 2,000-parameter gradient's 20 s of
    MLIR passes (N is about 3 per parameter).

    This pass does the same split in one linear sweep for the common case:
    a memref whose underlying buffer (found through views and
    `memref.extract_strided_metadata`) is the result of an allocation
    (`memref.alloc`/`alloca`) that no other memref or retained value of
    the op comes from gets a `bufferization.dealloc` of its own, without
    retained values: it cannot alias any of them, so the op's results
    (the retained values' ownership) are unchanged. The rest stay for
    upstream's simplification.
  }];
  let dependentDialects = ["::mlir::bufferization::BufferizationDialect"];
}

def EarlyDeallocPass : Pass<"relax-early-dealloc", "::mlir::func::FuncOp"> {
  let summary = "Free each buffer right after its last use";
  let description = [{
    Runs after the buffer deallocation pipeline, which puts every
    `memref.dealloc` just before the terminator of the block that allocated
    the buffer: every temporary of a function body then lives until it
    returns, and a training step holds all its activations and adjoints at
    once (recomputation of checkpointed segments saves nothing).

    An unconditional `memref.dealloc %b` of a `memref.alloc` of the same block
    moves to just after the last op of that block that uses `%b` or a value
    derived from it (views, casts, loop-carried values, results of ops
    taking it, uses in nested regions). A buffer whose address leaves as an
    integer (`memref.extract_aligned_pointer_as_index`) or through an op
    whose effect on it is unknown keeps its place; a call to a kernel that
    relax-outline-tensor-kernels kept a function (`relax.kept_kernel`, which
    keeps no reference to its arguments) is a use like any other.
  }];
  let dependentDialects = ["::mlir::memref::MemRefDialect"];
}

def ResultsToOutParamsPass : Pass<"relax-results-to-out-params", "::mlir::ModuleOp"> {
  let summary = "Memref results as out-parameters, the callers' buffers 64-byte aligned";
  let description = [{
    Upstream's `buffer-results-to-out-params` (`hoist-static-allocs`,
    `modify-public-functions`: a returned allocation becomes the
    out-parameter itself), whose calls then allocate the out-parameters with
    one-shot bufferization's alignment (64 bytes) instead of none: the
    kernels that relax-outline-tensor-kernels keeps as functions store
    vectors into them, and the buffer pool sizes an aligned request as the
    rest of the function's.
  }];
  let dependentDialects = ["::mlir::memref::MemRefDialect"];
}

def ResultsInPlacePass : Pass<"relax-results-in-place", "::mlir::func::FuncOp"> {
  let summary = "Compute a reshaped result in its out-parameter instead of copying it there";
  let description = [{
    Runs after `buffer-results-to-out-params`, which computes a result in
    the caller's buffer when the returned value is an allocation, and copies
    it otherwise. A result that is a reshape (`memref.collapse_shape` or
    `memref.expand_shape`, possibly several) of an allocation of the entry
    block is copied too; this pass makes the allocation the out-parameter
    itself, reshaped the other way, and drops the copy. (The CPU schedule
    computes a contraction with column panels into the result viewed as
    `[M, N / cols, cols]`: the deep MLP copied each weight gradient.)
  }];
  let dependentDialects = ["::mlir::memref::MemRefDialect"];
}

def GPUDeviceMemoryPass : Pass<"relax-gpu-device-memory", "::mlir::func::FuncOp"> {
  let summary = "Put a host function's buffers in device memory";
  let description = [{
    For the GPU pipeline, after bufferization: every buffer a kernel may
    touch must be device memory. Each `memref.alloc` of the function becomes a
    `gpu.alloc` and each `memref.dealloc` a `gpu.dealloc`; a `memref.copy`
    becomes a `linalg.copy` (a kernel: either side may be a strided view); a
    constant (`memref.get_global`, host memory) is copied into a device
    buffer where it is taken, freed before the function returns. A static
    buffer allocated inside a loop and used only in the top-level op holding
    it becomes a `memref.alloca` (that op becomes one kernel: the buffer is
    private to its thread). The
    function's own memref arguments are device memory by contract (the caller
    copies or passes device arrays).
  }];
  let dependentDialects = ["::mlir::gpu::GPUDialect", "::mlir::linalg::LinalgDialect"];
}

def GPUWrapHostCodePass : Pass<"relax-gpu-wrap-host-code", "::mlir::func::FuncOp"> {
  let summary = "Move host code that reads or writes buffers into one-thread loops";
  let description = [{
    After linalg ops became loops (`convert-linalg-to-parallel-loops`), ops
    at the top of a function that read or write memory outside an
    `scf.parallel` (the loops of a full reduction, the scalar code of 0-d
    results) would run on the host, on device memory. Each maximal run of
    such ops (with the pure ops between them) moves into an `scf.parallel`
    of one iteration, which the GPU mapping then turns into a one-thread
    kernel. Allocation, deallocation, views and other `scf.parallel` ops end
    a run. First, each top-level `memref.load` (and the pure ops computed
    from it) is copied to right before each of its uses, in a later loop or
    run, when nothing writes the buffer in between (a dealloc of it there
    moves after the run of the last use): a scalar read from one kernel's
    result is then read where it is needed. A run whose values are still
    used after it is left in place with an error.

    Relax loops and conditionals (scf.while, scf.if, scf.index_switch, and
    scf.for marked `relax.control_flow`) are host control flow: the runs in
    their blocks become kernels of their own, launched from the host loop,
    and a scalar loaded from device memory that decides them (a loop's
    condition, a branch's predicate or index) is read through a copy
    (`gpu.memcpy`) into a host buffer.
  }];
  let dependentDialects = ["::mlir::scf::SCFDialect", "::mlir::arith::ArithDialect",
                           "::mlir::gpu::GPUDialect", "::mlir::memref::MemRefDialect"];
}

def GPUSharedContractionsPass : Pass<"relax-gpu-shared-contractions", "::mlir::func::FuncOp"> {
  let summary = "Matmul-like contractions tiled through shared memory";
  let description = [{
    For the GPU pipeline, after bufferization: a `linalg.generic` with two
    inputs and one output, all indexed by projected permutations, one
    reduction dimension k (in both inputs), one parallel dimension m in the
    first input and the output, one n in the second input and the output, and
    any batch dimensions in all three (so: matmul with either operand
    transposed, batch matmul), with at least `min-outputs` outputs per batch
    and k >= 16, becomes a `gpu.launch`: a block of 16x16 threads per 64x64
    output tile when there are at least `wide-tile-min-blocks` such tiles,
    else per 32x32 tile (blockIdx.z over the batch), each thread 4x4 (or
    2x2) outputs 16 apart. For each 16-wide step of k, the block copies the
    64x16 (32x16) tile of the first input and the 16x64 (16x32) tile of the
    second into shared memory
    (zeros outside the bounds), synchronizes, and every thread folds the
    payload over the step's k in order (a partial last step stops at k),
    then synchronizes again. Accumulators start from the output's values and
    each output's k order is the sequential loop's, so any payload (f32 or
    f64 accumulator) gives the same results. When the output is a fresh
    allocation that a `linalg.fill` sets just before, nothing else touching
    it in between, the accumulators start from the fill's scalar instead and
    the fill is erased (one kernel and one pass over the output fewer).
    The kernel also computes the contraction's epilogue: each next
    all-parallel `linalg.generic` over the output's space that reads an
    element the kernel holds (the output's, or an earlier epilogue op's) at
    that element and writes a fresh allocation at the same indices, e.g. a
    bias add, an activation, an activation's gradient mask. Its other
    inputs are loaded per element; nothing between the contraction and it may
    write what it reads or touch what it writes (it runs at the
    contraction's place), and the chain ends at the first reader that does
    not qualify. A buffer the kernel writes that nothing else reads is
    neither stored nor allocated.
    Static shapes only.
  }];
  let options = [
    Option<"minOutputs", "min-outputs", "int64_t", /*default=*/"1024",
           "Fewest outputs (m x n) of a contraction to tile">,
    Option<"wideTileMinBlocks", "wide-tile-min-blocks", "int64_t", /*default=*/"264",
           "Fewest 64x64 output tiles (blocks) for which they are used instead "
           "of 32x32 ones (264: two per SM of an H100)">
  ];
  let dependentDialects = ["::mlir::gpu::GPUDialect", "::mlir::scf::SCFDialect",
                           "::mlir::memref::MemRefDialect", "::mlir::arith::ArithDialect"];
}

def GPUMapLoopsPass : Pass<"relax-gpu-map-loops", "::mlir::func::FuncOp"> {
  let summary = "Tile loop nests into blocks of threads, innermost dimension on x";
  let description = [{
    For the GPU pipeline, after `convert-linalg-to-parallel-loops` and before
    `convert-parallel-loops-to-gpu`: each top-level `scf.parallel` without
    reductions or nested parallel loops is tiled (`scf::tileParallelLoop`,
    constant inner bounds and a guard) into blocks of at most
    `block-threads` threads, and mapped: its innermost dimension, contiguous
    in memory for row-major buffers, on `x`, the next on `y`, the one before
    on `z`, so that the 32 threads of a warp read and write neighbouring
    elements (coalesced). A block's threads go first along the innermost
    dimension, as many as it has iterations (rounded up to a power of two,
    up to `block-threads`), then along the next one: a 1-D loop gets
    `block-threads` threads in a row, a 64x10 loop blocks of 16x16. A loop of
    more than three dimensions first has its leading dimensions combined into
    one, which goes on `z`. A `y` or `z` dimension with more than 65535
    blocks (a grid's limit), or an unknown number, runs sequentially in each
    block. Loops left unmapped are mapped by `gpu-map-parallel-loops`.
  }];
  let options = [
    Option<"blockThreads", "block-threads", "int64_t", /*default=*/"256",
           "Threads per block (a power of two, at most 1024)">
  ];
  let dependentDialects = ["::mlir::gpu::GPUDialect", "::mlir::scf::SCFDialect",
                           "::mlir::affine::AffineDialect", "::mlir::arith::ArithDialect"];
}

def GPUBlockReductionsPass : Pass<"relax-gpu-block-reductions", "::mlir::func::FuncOp"> {
  let summary = "Large reductions as one thread block per output element";
  let description = [{
    For the GPU pipeline, after bufferization and before
    `convert-linalg-to-parallel-loops` (which runs each output element's
    reduction loop in one thread): a `linalg.generic` with one output whose
    reduction extent R (the product of its reduction dimensions) is at least
    `min-extent` and at least the number of output elements P becomes a
    `gpu.launch` of P blocks of `block-size` threads. Each thread folds the
    payload over the iterations t, t + block-size, ... of its block's
    output element, starting from the combiner's identity; `gpu.all_reduce`
    combines the block's partial values (shuffles and shared memory, in
    `convert-gpu-to-nvvm`), and thread 0 combines the total into the output
    (with the scalar of a `linalg.fill` that sets the output just before, as
    for `relax-gpu-shared-contractions`, the fill then erased).
    The payload must combine the output argument with a value computed
    without it, by one of `arith.addf/addi/mulf/muli/maximumf/minimumf/
    maxnumf/minnumf/maxsi/minsi`; other reductions (several outputs, argmax)
    keep the one-thread loop. Static shapes only.
  }];
  let options = [
    Option<"minExtent", "min-extent", "int64_t", /*default=*/"1024",
           "Smallest reduction extent turned into a block reduction">,
    Option<"blockSize", "block-size", "int64_t", /*default=*/"256",
           "Threads per block (a multiple of 32, at most 1024)">
  ];
  let dependentDialects = ["::mlir::gpu::GPUDialect", "::mlir::scf::SCFDialect",
                           "::mlir::affine::AffineDialect", "::mlir::memref::MemRefDialect",
                           "::mlir::arith::ArithDialect"];
}

def GPUReductionsInsidePass : Pass<"relax-gpu-reductions-inside", "::mlir::func::FuncOp"> {
  let summary = "Put a reduction's parallel loops outside its reduction loops";
  let description = [{
    For the GPU pipeline, after `relax-gpu-block-reductions` and before
    `convert-linalg-to-parallel-loops`: a `linalg.generic` whose reduction
    dimensions do not all come after its parallel ones (a bias gradient: the
    sum over rows of each column) has its loops interchanged, parallel
    dimensions first, each group in its order. The conversion then gives an
    `scf.parallel` over the output elements with each one's reduction loop
    inside, so a thread folds its own elements (in the same order as
    before), instead of an outer sequential loop around the parallel one,
    which the GPU mapping can only run in one thread.
  }];
  let dependentDialects = ["::mlir::linalg::LinalgDialect"];
}

def GPUEmulatePass : Pass<"relax-gpu-emulate", "::mlir::func::FuncOp"> {
  let summary = "Run a host function's GPU kernels on the CPU, one thread at a time";
  let description = [{
    For testing the GPU pipeline without a GPU (`relax-to-gpu-emulator`):
    each `gpu.launch` (before outlining) becomes host loops that give the
    kernel's results as a GPU would. Blocks run one after the other (they
    cannot synchronize with each other). Within a block, the code between
    two synchronization points (a `gpu.barrier`, a `gpu.all_reduce`, or a
    loop or branch holding one) runs for every thread in turn before the
    next part starts: a thread's values that a later part uses are kept in
    per-thread buffers, and shared memory (workgroup attributions) is one
    buffer per block. A loop holding barriers runs its iterations in
    order; the part after its last barrier and the part before its first
    one in the next iteration run together, thread by thread, as on a GPU
    (a missing barrier at the end of the body shows up as wrong results). A
    `gpu.all_reduce` folds the threads' values in thread order. Such a loop
    or branch needs bounds and a condition that are the same in every thread
    (an error otherwise). With `reverse`, blocks and threads run last to
    first: a kernel whose result depends on that order has a race.
    `gpu.alloc`/`dealloc`/`memcpy`/`memset` become their `memref` forms.
  }];
  let options = [
    Option<"reverse", "reverse", "bool", /*default=*/"false",
           "Run blocks and threads in reverse order (to expose order dependence)">
  ];
  let dependentDialects = ["::mlir::scf::SCFDialect", "::mlir::memref::MemRefDialect",
                           "::mlir::arith::ArithDialect", "::mlir::linalg::LinalgDialect"];
}

#endif // RELAX_CODEGEN_PASSES_TD
