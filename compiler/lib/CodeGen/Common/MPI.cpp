//===- MPI.cpp - upstream's mpi dialect to LLVM calls ---------------------===//
//
// relax.all_reduce's calls (`@__relax_mpi_allreduce_sum_<type>`, kept as
// calls through buffer deallocation) become upstream's `mpi.allreduce` on
// `mpi.comm_world`. MLIR 22 lowers the mpi dialect only through
// `convert-to-llvm`'s interface; this pass runs the same patterns as a step
// of the CPU pipeline (which converts dialect by dialect), names the MPI
// library in the module's DLTI entry, and fixes the OpenMPI reduction
// handles MLIR 22.1 misnames.
//
//===----------------------------------------------------------------------===//

#include "relax-mlir/CodeGen/Passes.h"
#include "relax-mlir/Conversion/Passes.h"

#include "mlir/Conversion/LLVMCommon/TypeConverter.h"
#include "mlir/Conversion/MPIToLLVM/MPIToLLVM.h"
#include "mlir/Dialect/MPI/IR/MPI.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Transforms/DialectConversion.h"

namespace mlir::relax {
#define GEN_PASS_DEF_MPITOLLVMPASS
#include "relax-mlir/CodeGen/Passes.h.inc"
} // namespace mlir::relax

using namespace mlir;

namespace {

constexpr StringLiteral kImplementationKey = "MPI:Implementation";

/// OpenMPI 4.1's predefined reduction handles are `ompi_mpi_op_<op>`; MLIR
/// 22.1's lowering declares `ompi_mpi_<op>` (the datatypes' and
/// communicators' names are right).
constexpr StringLiteral kOpenMPIOps[] = {"sum", "max", "min", "prod", "land", "band", "lor",
                                         "bor", "lxor", "bxor", "minloc", "maxloc", "replace"};

/// Each call of a relax.all_reduce declaration becomes mpi.allreduce on
/// the world communicator; the declarations go.
void expandAllReduceCalls(ModuleOp module) {
  SmallVector<func::FuncOp> declarations;
  for (auto fn : module.getOps<func::FuncOp>())
    if (fn.isExternal() && fn.getSymName().starts_with(relax::kAllReducePrefix))
      declarations.push_back(fn);
  if (declarations.empty())
    return;
  module.walk([&](func::CallOp call) {
    if (!call.getCallee().starts_with(relax::kAllReducePrefix))
      return;
    OpBuilder b(call);
    Value comm = mpi::CommWorldOp::create(b, call.getLoc(), mpi::CommType::get(b.getContext()));
    mpi::AllReduceOp::create(b, call.getLoc(), Type(), call.getOperand(0), call.getOperand(1),
                             mpi::MPI_ReductionOpEnum::MPI_SUM, comm);
    call.erase();
  });
  for (func::FuncOp fn : declarations)
    fn.erase();
}

struct MPIToLLVMPass : relax::impl::MPIToLLVMPassBase<MPIToLLVMPass> {
  using MPIToLLVMPassBase::MPIToLLVMPassBase;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    MLIRContext *ctx = &getContext();
    expandAllReduceCalls(module);
    bool hasMPI = module
                      .walk([](Operation *op) {
                        return isa<mpi::MPIDialect>(op->getDialect()) ? WalkResult::interrupt()
                                                                      : WalkResult::advance();
                      })
                      .wasInterrupted();
    if (!hasMPI)
      return;
    if (implementation != "OpenMPI" && implementation != "MPICH") {
      module.emitError() << "relax-mpi-to-llvm: implementation must be OpenMPI or MPICH, got '"
                         << implementation << "'";
      return signalPassFailure();
    }
    if (!module->hasAttr(DLTIDialect::kMapAttrName)) {
      auto entry = DataLayoutEntryAttr::get(StringAttr::get(ctx, kImplementationKey),
                                            StringAttr::get(ctx, implementation));
      module->setAttr(DLTIDialect::kMapAttrName, MapAttr::get(ctx, {entry}));
    }
    LLVMTypeConverter converter(ctx);
    RewritePatternSet patterns(ctx);
    mpi::populateMPIToLLVMConversionPatterns(converter, patterns);
    ConversionTarget target(*ctx);
    target.addIllegalDialect<mpi::MPIDialect>();
    target.markUnknownOpDynamicallyLegal([](Operation *) { return true; });
    if (failed(applyPartialConversion(module, target, std::move(patterns))))
      return signalPassFailure();
    for (StringRef op : kOpenMPIOps) {
      std::string wrong = ("ompi_mpi_" + op).str(), right = ("ompi_mpi_op_" + op).str();
      Operation *global = SymbolTable::lookupSymbolIn(module, wrong);
      if (!global)
        continue;
      if (SymbolTable::lookupSymbolIn(module, right)) {
        module.emitError() << "relax-mpi-to-llvm: both @" << wrong << " and @" << right
                           << " are declared";
        return signalPassFailure();
      }
      if (failed(SymbolTable::replaceAllSymbolUses(global, StringAttr::get(ctx, right), module)))
        return signalPassFailure();
      SymbolTable::setSymbolName(global, right);
    }
  }
};

} // namespace
