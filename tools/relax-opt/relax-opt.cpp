//===- relax-opt.cpp - the relax-mlir optimizer driver --------------------===//

#include "RelaxVersion.h"
#include "relax-mlir/InitAll.h"
#include "relax-mlir/Nesting.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/InitAllDialects.h"
#include "mlir/InitAllExtensions.h"
#include "mlir/InitAllPasses.h"
#include "mlir/Support/FileUtilities.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/ToolOutputFile.h"
#include "llvm/Support/raw_ostream.h"

int main(int argc, char **argv) {
  mlir::DialectRegistry registry;
  mlir::registerAllDialects(registry);
  mlir::registerAllExtensions(registry);
  mlir::relax::registerAllDialects(registry);
  mlir::registerAllPasses();
  mlir::relax::registerAllPasses();
  llvm::cl::AddExtraVersionPrinter([](llvm::raw_ostream &os) {
    os << "relax-mlir version " RELAX_MLIR_VERSION " (commit " RELAX_MLIR_COMMIT ")\n";
  });
  auto [inputFilename, outputFilename] = mlir::registerAndParseCLIOptions(
      argc, argv, "relax-opt: the relax-mlir optimizer and lowering driver\n", registry);

  // Input nested deeper than the parser's recursion can take is refused
  // before parsing (see Nesting.h), with its position.
  std::string error;
  std::unique_ptr<llvm::MemoryBuffer> input = mlir::openInputFile(inputFilename, &error);
  if (!input) {
    llvm::errs() << error << "\n";
    return 1;
  }
  if (std::optional<mlir::relax::NestingPosition> at =
          mlir::relax::findExcessiveNesting(input->getBuffer())) {
    llvm::errs() << input->getBufferIdentifier() << ":" << at->line << ":" << at->column
                 << ": error: the input nests deeper than " << mlir::relax::kMaxNestingDepth
                 << " levels here; relax-opt does not parse IR nested this deep\n";
    return 1;
  }
  if (inputFilename != "-") // (read again by the driver, with all its options)
    return mlir::asMainReturnCode(
        mlir::MlirOptMain(argc, argv, inputFilename, outputFilename, registry));
  // Standard input, already read: the driver's core on the buffer.
  std::unique_ptr<llvm::ToolOutputFile> output = mlir::openOutputFile(outputFilename, &error);
  if (!output) {
    llvm::errs() << error << "\n";
    return 1;
  }
  if (mlir::failed(mlir::MlirOptMain(output->os(), std::move(input), registry,
                                     mlir::MlirOptMainConfig::createFromCLOptions())))
    return 1;
  output->keep();
  return 0;
}
