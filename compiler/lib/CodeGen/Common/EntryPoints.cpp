//===- EntryPoints.cpp - the functions a compiled module exposes ----------===//
//
// relax-prepare-entry-points: public functions get read-only arguments and
// a C interface. relax-internal-linkage: what nothing outside the module
// calls is internal. relax-inline-into-c-interfaces: each public function is
// inlined into its C interface. relax-drop-arg-attrs: relax.* argument
// attributes do not reach LLVM IR.
//
//===----------------------------------------------------------------------===//

#include "relax-mlir/CodeGen/Passes.h"

#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/LLVMIR/Transforms/InlinerInterfaceImpl.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Transforms/Inliner.h"
#include "mlir/Transforms/InliningUtils.h"

namespace mlir::relax {
#define GEN_PASS_DEF_PREPAREENTRYPOINTSPASS
#define GEN_PASS_DEF_INTERNALLINKAGEPASS
#define GEN_PASS_DEF_INLINEINTOCINTERFACESPASS
#define GEN_PASS_DEF_DROPRELAXARGATTRSPASS
#include "relax-mlir/CodeGen/Passes.h.inc"
} // namespace mlir::relax

using namespace mlir;

namespace {
constexpr StringLiteral kDonatedResultsAttrName = "relax.donated_results";

/// Fixes the calling convention of public functions before bufferization: their
/// arguments are read-only (relax values are immutable, so callers' buffers are
/// never written) and they get a C interface (`_mlir_ciface_<name>`).
struct PrepareEntryPointsPass : relax::impl::PrepareEntryPointsPassBase<PrepareEntryPointsPass> {
  using PrepareEntryPointsPassBase::PrepareEntryPointsPassBase;
  /// A tensor returned in two result positions (a gradient may fold to a value
  /// the function already returns) gets a copy for each repeat, so that every
  /// result has a buffer of its own (buffer-results-to-out-params needs that).
  static void returnDistinctTensors(func::FuncOp func) {
    func.walk([](func::ReturnOp ret) {
      OpBuilder b(ret);
      llvm::SmallPtrSet<Value, 8> seen;
      for (OpOperand &operand : ret->getOpOperands()) {
        Value v = operand.get();
        auto type = dyn_cast<RankedTensorType>(v.getType());
        if (!type || seen.insert(v).second)
          continue;
        Value init = tensor::EmptyOp::create(b, ret.getLoc(), type.getShape(),
                                             type.getElementType());
        operand.set(linalg::CopyOp::create(b, ret.getLoc(), v, init).getResult(0));
      }
    });
  }

  /// The results listed in `relax.donated_results` (the caller may pass a
  /// parameter's buffer as their out-parameter: jit's donate_argnums) are
  /// copied last, right before the return, so that every read of the
  /// parameters happens before the out-parameter is written. The attribute
  /// is dropped.
  static LogicalResult copyDonatedResultsLast(func::FuncOp func) {
    Attribute attr = func->getAttr(kDonatedResultsAttrName);
    if (!attr)
      return success();
    auto indices = dyn_cast<DenseI64ArrayAttr>(attr);
    if (!indices)
      return func.emitError(kDonatedResultsAttrName)
             << " must be an array of result indices, got " << attr;
    WalkResult walk = func.walk([&](func::ReturnOp ret) {
      OpBuilder b(ret);
      for (int64_t i : indices.asArrayRef()) {
        if (i < 0 || i >= static_cast<int64_t>(ret.getNumOperands()))
          return ret.emitError(kDonatedResultsAttrName)
                     << " names result " << i << " of " << ret.getNumOperands(),
                 WalkResult::interrupt();
        Value v = ret.getOperand(i);
        auto type = dyn_cast<RankedTensorType>(v.getType());
        if (!type)
          continue;
        Value init = tensor::EmptyOp::create(b, ret.getLoc(), type.getShape(),
                                             type.getElementType());
        ret.setOperand(i, linalg::CopyOp::create(b, ret.getLoc(), v, init).getResult(0));
      }
      return WalkResult::advance();
    });
    func->removeAttr(kDonatedResultsAttrName);
    return failure(walk.wasInterrupted());
  }

  void runOnOperation() final {
    OpBuilder b(&getContext());
    for (auto func : getOperation().getOps<func::FuncOp>()) {
      if (func.isExternal())
        continue;
      if (failed(copyDonatedResultsLast(func)))
        return signalPassFailure();
      returnDistinctTensors(func);
      if (!func.isPublic())
        continue;
      func->setAttr(LLVM::LLVMDialect::getEmitCWrapperAttrName(), b.getUnitAttr());
      for (unsigned i = 0, e = func.getNumArguments(); i < e; ++i)
        if (isa<TensorType>(func.getArgument(i).getType()))
          func.setArgAttr(i, bufferization::BufferizationDialect::kWritableAttrName,
                          b.getBoolAttr(false));
    }
  }
};

/// Gives functions that nothing outside the module calls internal LLVM
/// linkage (the func-to-llvm conversion makes every function external,
/// private ones included). External functions are compiled as they stand,
/// with every argument passed by the C calling convention (a function of
/// P memref parameters takes 5P scalars, most of them on the stack), and the
/// JIT adds an argument-packing wrapper around each; internal ones LLVM may
/// inline, specialize or drop. The outlined parts of a 500-parameter gradient
/// took 8.3 s of JIT code generation as external functions, 1.6 s as internal
/// ones. With `cInterfaceOnly`, a public function with a C interface is
/// internal too: its `_mlir_ciface_` wrapper is its only entry point.
struct InternalLinkagePass : relax::impl::InternalLinkagePassBase<InternalLinkagePass> {
  using InternalLinkagePassBase::InternalLinkagePassBase;

  void runOnOperation() final {
    auto internal = LLVM::LinkageAttr::get(&getContext(), LLVM::Linkage::Internal);
    for (auto func : getOperation().getOps<func::FuncOp>()) {
      if (func.isExternal() || func->hasAttr("llvm.linkage"))
        continue;
      bool wrapped = func->hasAttr(LLVM::LLVMDialect::getEmitCWrapperAttrName());
      if (func.isPrivate() || (cInterfaceOnly && func.isPublic() && wrapped))
        func->setAttr("llvm.linkage", internal);
    }
  }
};

/// Inlines each public function into its C interface (`_mlir_ciface_<name>`,
/// its only caller once `InternalLinkagePass` ran with c-interface-only).
/// The wrapper otherwise calls the function with every memref descriptor
/// field as a scalar argument: 5,003 arguments for a gradient of 1,000
/// parameters, and LLVM's CalledValuePropagation, which revisits a call for
/// each of its arguments that changes, spent 8.2 s of 10 s of -O3 on that one
/// call (its inliner runs only later).
struct InlineIntoCInterfacesPass : relax::impl::InlineIntoCInterfacesPassBase<InlineIntoCInterfacesPass> {
  using InlineIntoCInterfacesPassBase::InlineIntoCInterfacesPassBase;
  void getDependentDialects(DialectRegistry &registry) const final {
    InlineIntoCInterfacesPassBase::getDependentDialects(registry);
    LLVM::registerInlinerInterface(registry);
  }
  void runOnOperation() final {
    ModuleOp module = getOperation();
    SymbolTableCollection tables;
    SymbolUserMap users(tables, module);
    InlinerInterface interface(&getContext());
    InlinerConfig config;
    for (auto wrapper : llvm::make_early_inc_range(module.getOps<LLVM::LLVMFuncOp>())) {
      StringRef name = wrapper.getName();
      if (!name.consume_front("_mlir_ciface_") || wrapper.isExternal())
        continue;
      auto callee = module.lookupSymbol<LLVM::LLVMFuncOp>(name);
      if (!callee || callee.isExternal() || callee.getLinkage() != LLVM::Linkage::Internal)
        continue;
      ArrayRef<Operation *> uses = users.getUsers(callee);
      auto call = uses.size() == 1 ? dyn_cast<LLVM::CallOp>(uses.front()) : nullptr;
      if (!call || call->getParentOfType<LLVM::LLVMFuncOp>() != wrapper)
        continue;
      if (failed(inlineCall(interface, config.getCloneCallback(), call,
                            cast<CallableOpInterface>(callee.getOperation()),
                            &callee.getBody(), /*shouldCloneInlinedRegion=*/false)))
        continue;
      call.erase();
      callee.erase();
    }
  }
};

/// Drops the relax dialect's argument and result attributes (`relax.name`)
/// from LLVM functions. LLVM IR has no place for them: the translation warns
/// about each one, printing the whole function into the diagnostic, so a
/// function of P parameters cost O(P) prints of itself (the JIT of a 500-
/// parameter function spent 88% of its engine setup there).
struct DropRelaxArgAttrsPass : relax::impl::DropRelaxArgAttrsPassBase<DropRelaxArgAttrsPass> {
  using DropRelaxArgAttrsPassBase::DropRelaxArgAttrsPassBase;
  void runOnOperation() final {
    getOperation().walk([](LLVM::LLVMFuncOp fn) {
      auto strip = [](DictionaryAttr attrs) -> DictionaryAttr {
        if (!attrs)
          return attrs;
        SmallVector<NamedAttribute> kept;
        for (NamedAttribute attr : attrs)
          if (!attr.getName().strref().starts_with("relax."))
            kept.push_back(attr);
        return DictionaryAttr::get(attrs.getContext(), kept);
      };
      for (unsigned i = 0, e = fn.getNumArguments(); i < e; ++i)
        fn.setArgAttrs(i, strip(fn.getArgAttrDict(i)));
      for (unsigned i = 0, e = fn.getNumResults(); i < e; ++i)
        fn.setResultAttrs(i, strip(fn.getResultAttrDict(i)));
      // The function's own (relax.kernel, relax.kept_kernel: markers for
      // the passes before the LLVM dialect).
      SmallVector<StringAttr> names;
      for (NamedAttribute attr : fn->getAttrs())
        if (attr.getName().strref().starts_with("relax."))
          names.push_back(attr.getName());
      for (StringAttr name : names)
        fn->removeAttr(name);
    });
  }
};
} // namespace
