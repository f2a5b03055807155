// The project's IR-rewriting passes under valgrind's memcheck, on their own
// lit tests' inputs: a pass that reads IR after a utility erased it (e.g. an
// op's context after scf::tileParallelLoop or replaceOp) fails here, though
// the read happens inside libMLIR, which the ASan build does not instrument.
// `make test-memcheck` runs the whole suite this way.
// REQUIRES: valgrind
// UNSUPPORTED: memcheck, asan
// RUN: %memcheck relax-opt %S/../CodeGen/GPU/map-loops.mlir --split-input-file --relax-gpu-map-loops -o /dev/null
// RUN: %memcheck relax-opt %S/../CodeGen/GPU/shared-contractions.mlir --split-input-file --pass-pipeline="builtin.module(func.func(relax-gpu-shared-contractions))" -o /dev/null
// RUN: %memcheck relax-opt %S/../CodeGen/GPU/block-reductions.mlir --split-input-file --pass-pipeline="builtin.module(func.func(relax-gpu-block-reductions))" -o /dev/null
// RUN: %memcheck relax-opt %S/../CodeGen/CPU/tile.mlir --relax-cpu-select-tiles=vector-bits=512 --relax-cpu-pack=vector-bits=512 --relax-cpu-tile -o /dev/null
// RUN: %memcheck relax-opt %S/../CodeGen/CPU/tile.mlir --relax-cpu-select-tiles=vector-bits=512 --relax-cpu-pack=vector-bits=512 --relax-cpu-tile=num-threads=2 -o /dev/null
// The elementwise fusion (its op-order listener, the repeated-loop rewrite),
// the segment outlining and the strided-gather addressing (issue 32).
// RUN: %memcheck relax-opt %S/../CodeGen/Common/fuse-elementwise.mlir --convert-relax-to-linalg --canonicalize --relax-fuse-elementwise -o /dev/null
// RUN: %memcheck relax-opt %S/../CodeGen/Common/outline-segments.mlir "--relax-outline-segments=min-ops=6 segment-ops=4" -o /dev/null
// RUN: %memcheck relax-opt %S/../CodeGen/CPU/gather-strides.mlir --relax-address-strided-gathers -o /dev/null
// The linear dealloc split and the linkage and C-interface inlining at the
// end of relax-to-llvm (issue 32).
// RUN: %memcheck relax-opt %S/../CodeGen/Common/split-deallocs.mlir --relax-split-deallocs -o /dev/null
// RUN: %memcheck relax-opt %S/../Pipelines/relax-to-llvm-linkage.mlir "--relax-to-llvm=from-stage=bufferized c-interface-only=true" -o /dev/null
