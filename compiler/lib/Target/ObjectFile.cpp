//===- ObjectFile.cpp - LLVM-dialect modules to relocatable objects -------===//

#include "relax-mlir/Target/ObjectFile.h"

#include "mlir/ExecutionEngine/OptUtils.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/Target/LLVMIR/Export.h"
#include "llvm/Bitcode/BitcodeReader.h"
#include "llvm/Bitcode/BitcodeWriter.h"
#include "llvm/IR/Constants.h"
#include "llvm/IR/GlobalVariable.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/LegacyPassManager.h"
#include "llvm/IR/Module.h"
#include "llvm/MC/MCSubtargetInfo.h"
#include "llvm/MC/TargetRegistry.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/Target/TargetMachine.h"
#include "llvm/Target/TargetOptions.h"
#include "llvm/TargetParser/Host.h"
#include "llvm/TargetParser/Triple.h"
#include "llvm/Transforms/Utils/SplitModule.h"

#include <thread>

using namespace mlir;

/// The host's features as a target-feature string ("+avx2,-avx512fp16,...").
static std::string hostFeatures() {
  std::string text;
  llvm::StringMap<bool> features = llvm::sys::getHostCPUFeatures();
  // StringMap's order is unspecified: sort, so objects are reproducible.
  std::vector<std::string> names;
  for (const auto &feature : features)
    names.push_back((feature.second ? "+" : "-") + feature.first().str());
  llvm::sort(names);
  for (const std::string &name : names)
    text += (text.empty() ? "" : ",") + name;
  return text;
}

/// `relax_packed_<name>(ptr args)` for each `_mlir_ciface_<name>` whose
/// arguments are all pointers: loads args[i] for argument i and calls it.
static void addPackedEntryPoints(llvm::Module &module) {
  constexpr llvm::StringLiteral prefix = "_mlir_ciface_";
  llvm::IRBuilder<> builder(module.getContext());
  llvm::Type *ptr = builder.getPtrTy();
  llvm::FunctionType *type = llvm::FunctionType::get(builder.getVoidTy(), {ptr}, false);
  std::vector<llvm::Function *> entries;
  for (llvm::Function &fn : module)
    if (!fn.isDeclaration() && fn.getName().starts_with(prefix) &&
        fn.getReturnType()->isVoidTy() &&
        llvm::all_of(fn.args(), [&](llvm::Argument &a) { return a.getType() == ptr; }))
      entries.push_back(&fn);
  for (llvm::Function *fn : entries) {
    llvm::Function *packed =
        llvm::Function::Create(type, llvm::GlobalValue::ExternalLinkage,
                               "relax_packed_" + fn->getName().drop_front(prefix.size()), module);
    builder.SetInsertPoint(llvm::BasicBlock::Create(module.getContext(), "entry", packed));
    llvm::SmallVector<llvm::Value *> args;
    for (unsigned i = 0, e = fn->arg_size(); i < e; ++i)
      args.push_back(builder.CreateLoad(ptr, builder.CreateConstGEP1_64(ptr, packed->getArg(0), i)));
    builder.CreateCall(fn, args);
    builder.CreateRetVoid();
  }
}

/// Writes `module` as an object file to `path` with `machine`.
static LogicalResult emitObject(llvm::Module &module, llvm::TargetMachine &machine, StringRef path,
                                std::string &error) {
  std::error_code ec;
  llvm::raw_fd_ostream out(path, ec, llvm::sys::fs::OF_None);
  if (ec) {
    error = "cannot write " + path.str() + ": " + ec.message();
    return failure();
  }
  llvm::legacy::PassManager passes;
  if (machine.addPassesToEmitFile(passes, out, nullptr, llvm::CodeGenFileType::ObjectFile)) {
    error = "LLVM cannot emit object files for " + module.getTargetTriple().str();
    return failure();
  }
  passes.run(module);
  out.flush();
  if (out.has_error()) {
    error = "cannot write " + path.str() + ": " + out.error().message();
    out.clear_error();
    return failure();
  }
  return success();
}

/// Below this many instructions (after optimization) a module is generated in
/// one piece: the bitcode round trip and the threads would cost more than
/// they save. (The LeNet step's gradient: its object in 1.22 s on one thread,
/// 0.85 s in two parts on two.)
static constexpr size_t kParallelCodegenMinInstructions = 2000;

/// How many parts code generation splits `module` into: `threads` (0: the
/// cores this process may use), at most one per defined function, 1 for a
/// small module.
static unsigned codegenParts(llvm::Module &module, unsigned threads) {
  size_t instructions = 0, functions = 0;
  for (llvm::Function &fn : module) {
    if (fn.isDeclaration())
      continue;
    ++functions;
    instructions += fn.getInstructionCount();
  }
  if (instructions < kParallelCodegenMinInstructions)
    return 1;
  unsigned available = threads ? threads : llvm::hardware_concurrency().compute_thread_count();
  return static_cast<unsigned>(std::min<size_t>(std::max(1u, available), functions));
}

LogicalResult relax::writeObjectFile(ModuleOp module, StringRef path,
                                     const ObjectFileOptions &options, std::string &error,
                                     std::string *builtCpu, std::string *builtFeatures,
                                     SmallVectorImpl<std::string> *objects) {
  if (options.optLevel > 3) {
    error = "opt level must be 0-3, got " + std::to_string(options.optLevel);
    return failure();
  }
  llvm::InitializeNativeTarget();
  llvm::InitializeNativeTargetAsmPrinter();

  llvm::Triple triple(llvm::sys::getProcessTriple());
  const llvm::Target *target = llvm::TargetRegistry::lookupTarget(triple, error);
  if (!target)
    return failure();
  bool host = options.cpu.empty() || options.cpu == "host";
  std::string cpu = host ? llvm::sys::getHostCPUName().str() : options.cpu;
  std::string features = host ? hostFeatures() : std::string();
  if (!options.features.empty())
    features += (features.empty() ? "" : ",") + options.features;
  auto level = static_cast<llvm::CodeGenOptLevel>(options.optLevel);
  auto makeMachine = [&] {
    return std::unique_ptr<llvm::TargetMachine>(target->createTargetMachine(
        triple, cpu, features, llvm::TargetOptions(), llvm::Reloc::PIC_, std::nullopt, level));
  };
  std::unique_ptr<llvm::TargetMachine> machine = makeMachine();
  if (!machine) {
    error = "cannot create an LLVM target machine for " + triple.str();
    return failure();
  }
  if (!machine->getMCSubtargetInfo()->isCPUStringValid(cpu)) {
    error = "'" + cpu + "' is not a CPU that LLVM knows for " + triple.str() +
            " (for example: host, x86-64, x86-64-v2, x86-64-v3, x86-64-v4, sapphirerapids)";
    return failure();
  }

  llvm::LLVMContext context;
  std::string diagnostics;
  std::unique_ptr<llvm::Module> llvmModule;
  {
    ScopedDiagnosticHandler handler(module.getContext(), [&](Diagnostic &diag) {
      llvm::raw_string_ostream os(diagnostics);
      os << diag.getLocation() << ": " << diag << "\n";
      return success();
    });
    llvmModule = translateModuleToLLVMIR(module, context, "relax");
  }
  if (!llvmModule) {
    error = "the module does not translate to LLVM IR:\n" + diagnostics;
    return failure();
  }
  addPackedEntryPoints(*llvmModule);
  llvmModule->setTargetTriple(triple);
  llvmModule->setDataLayout(machine->createDataLayout());
  if (!options.metadataSymbol.empty()) {
    auto addString = [&](const std::string &name, StringRef value) {
      llvm::Constant *text = llvm::ConstantDataArray::getString(context, value);
      new llvm::GlobalVariable(*llvmModule, text->getType(), /*isConstant=*/true,
                               llvm::GlobalValue::ExternalLinkage, text, name);
    };
    addString(options.metadataSymbol, options.metadataText);
    addString(options.metadataSymbol + "_target", cpu + " " + features);
  }
  if (llvm::Error e =
          makeOptimizingTransformer(options.optLevel, /*sizeLevel=*/0, machine.get())(
              llvmModule.get())) {
    error = "LLVM optimization failed: " + llvm::toString(std::move(e));
    return failure();
  }

  unsigned parts = codegenParts(*llvmModule, options.codegenThreads);
  if (objects)
    objects->clear();
  if (parts <= 1) {
    if (failed(emitObject(*llvmModule, *machine, path, error)))
      return failure();
    if (objects)
      objects->push_back(path.str());
  } else {
    // Each part as bitcode, then read back into a context of its own per
    // thread (an LLVMContext is not thread-safe).
    SmallVector<llvm::SmallString<0>> bitcode;
    llvm::SplitModule(
        *llvmModule, parts,
        [&](std::unique_ptr<llvm::Module> part) {
          llvm::SmallString<0> buffer;
          llvm::raw_svector_ostream os(buffer);
          llvm::WriteBitcodeToFile(*part, os);
          bitcode.push_back(std::move(buffer));
        },
        /*PreserveLocals=*/false, /*RoundRobin=*/true);
    SmallVector<std::string> paths, errors(bitcode.size());
    for (size_t i = 0; i < bitcode.size(); ++i)
      paths.push_back(i == 0 ? path.str() : (path + "." + std::to_string(i)).str());
    std::vector<std::thread> threads;
    for (size_t i = 0; i < bitcode.size(); ++i)
      threads.emplace_back([&, i] {
        llvm::LLVMContext partContext;
        llvm::Expected<std::unique_ptr<llvm::Module>> part = llvm::parseBitcodeFile(
            llvm::MemoryBufferRef(llvm::StringRef(bitcode[i].data(), bitcode[i].size()),
                                  "part"),
            partContext);
        if (!part) {
          errors[i] = "cannot read back a part of the module: " + llvm::toString(part.takeError());
          return;
        }
        std::unique_ptr<llvm::TargetMachine> partMachine = makeMachine();
        (void)emitObject(**part, *partMachine, paths[i], errors[i]);
      });
    for (std::thread &thread : threads)
      thread.join();
    for (const std::string &e : errors)
      if (!e.empty()) {
        error = e;
        return failure();
      }
    if (objects)
      objects->assign(paths.begin(), paths.end());
  }
  if (builtCpu)
    *builtCpu = cpu;
  if (builtFeatures)
    *builtFeatures = features;
  return success();
}
