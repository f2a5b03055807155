//===- Parallelize.cpp - threads for the CPU schedule ---------------------===//
//
// relax-cpu-parallelize: the tile loops relax-cpu-tile marked become
// scf.parallel; relax-cpu-thread-buffers: the loop bodies' stack buffers
// become the OpenMP threads'.
//
//===----------------------------------------------------------------------===//

#include "TilePlan.h"
#include "relax-mlir/CodeGen/Passes.h"

#include "mlir/Dialect/OpenMP/OpenMPDialect.h"

namespace mlir::relax {
#define GEN_PASS_DEF_CPUPARALLELIZEPASS
#define GEN_PASS_DEF_CPUTHREADBUFFERSPASS
#include "relax-mlir/CodeGen/Passes.h.inc"
} // namespace mlir::relax

using namespace mlir;
using namespace mlir::relax;

namespace {
//===----------------------------------------------------------------------===//
// relax-cpu-parallelize
//===----------------------------------------------------------------------===//

struct CPUParallelizePass : relax::impl::CPUParallelizePassBase<CPUParallelizePass> {
  using CPUParallelizePassBase::CPUParallelizePassBase;

  void runOnOperation() override {
    SmallVector<scf::ForOp> marked;
    getOperation().walk([&](scf::ForOp loop) {
      if (loop->hasAttr(relax::kParallelLoopAttr))
        marked.push_back(loop);
    });
    IRRewriter rewriter(&getContext());
    for (scf::ForOp loop : marked) {
      loop->removeAttr(relax::kParallelLoopAttr);
      if (loop.getNumResults() != 0)
        continue;
      rewriter.setInsertionPoint(loop);
      auto parallel = scf::ParallelOp::create(rewriter, loop.getLoc(), loop.getLowerBound(),
                                              loop.getUpperBound(), loop.getStep());
      Block *body = parallel.getBody();
      // The new body ends in scf.reduce; the old one's scf.yield goes.
      rewriter.eraseOp(loop.getBody()->getTerminator());
      rewriter.inlineBlockBefore(loop.getBody(), body->getTerminator(),
                                 {parallel.getInductionVars()[0]});
      rewriter.eraseOp(loop);
    }
  }
};
//===----------------------------------------------------------------------===//
// relax-cpu-thread-buffers
//===----------------------------------------------------------------------===//

struct CPUThreadBuffersPass : relax::impl::CPUThreadBuffersPassBase<CPUThreadBuffersPass> {
  using CPUThreadBuffersPassBase::CPUThreadBuffersPassBase;

  void runOnOperation() override {
    getOperation().walk([](memref::AllocaScopeOp scope) {
      auto nest = dyn_cast<omp::LoopNestOp>(scope->getParentOp());
      auto team = scope->getParentOfType<omp::ParallelOp>();
      if (!nest || !team || !team->isProperAncestor(nest))
        return;
      Block &entry = team.getRegion().front();
      for (auto alloca :
           llvm::make_early_inc_range(scope.getBodyRegion().front().getOps<memref::AllocaOp>()))
        if (alloca->getNumOperands() == 0)
          alloca->moveBefore(&entry, entry.begin());
    });
  }
};
} // namespace
