//===- SelectTiles.cpp - relax-cpu-select-tiles ---------------------------===//
//
// relax-cpu-select-tiles: the CPU schedule's strategy written into the IR, a
// #relax_cpu.tiles on each linalg op (selectCPUTiles, TilePlan.cpp).
//
//===----------------------------------------------------------------------===//

#include "TilePlan.h"
#include "relax-mlir/CodeGen/Passes.h"

namespace mlir::relax {
#define GEN_PASS_DEF_CPUSELECTTILESPASS
#include "relax-mlir/CodeGen/Passes.h.inc"
} // namespace mlir::relax

using namespace mlir;
using namespace mlir::relax;

namespace {
struct CPUSelectTilesPass : relax::impl::CPUSelectTilesPassBase<CPUSelectTilesPass> {
  using CPUSelectTilesPassBase::CPUSelectTilesPassBase;

  void runOnOperation() override {
    selectAllCPUTiles(getOperation(), CPUTarget::host(vectorBits));
  }
};
} // namespace
