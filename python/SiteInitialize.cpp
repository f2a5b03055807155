//===- SiteInitialize.cpp - registers relax in every relax_mlir Context ---===//
//
// `_mlir_libs/__init__.py` imports `_site_initialize_0` and calls its
// `register_dialects` for every new `ir.Context`, so users never register the
// relax dialect or its passes by hand.
//
//===----------------------------------------------------------------------===//

#include "relax-mlir-c/Relax.h"

#include "mlir/Bindings/Python/Nanobind.h"
#include "mlir/Bindings/Python/NanobindAdaptors.h"

#include <stdexcept>
#include <string>
#include <utility>

NB_MODULE(_site_initialize_0, m) {
  m.doc() = "Registers the relax dialect, its passes and pipelines.";
  relaxMlirRegisterPasses();
  m.def(
      "register_dialects",
      [](MlirDialectRegistry registry) { relaxMlirRegisterDialects(registry); },
      nanobind::arg("registry"), "Inserts the relax dialect into `registry`.");
  m.def(
      "excessive_nesting",
      [](const std::string &text) -> nanobind::object {
        unsigned line = 0, column = 0, limit = 0;
        if (!relaxMlirFindExcessiveNesting(mlirStringRefCreate(text.data(), text.size()), &line,
                                           &column, &limit))
          return nanobind::none();
        return nanobind::make_tuple(line, column, limit);
      },
      nanobind::arg("text"),
      "(line, column, limit) where `text` first nests brackets deeper than the parser "
      "takes, or None.");
  m.def(
      "relax_ops",
      [](MlirContext context) {
        nanobind::list ops;
        relaxMlirForEachOp(
            context,
            [](MlirStringRef name, bool hasGradient, bool hasLowering, void *userData) {
              static_cast<nanobind::list *>(userData)->append(nanobind::make_tuple(
                  std::string(name.data, name.length), hasGradient, hasLowering));
            },
            &ops);
        return ops;
      },
      nanobind::arg("context"),
      "(name, has gradient rule, has a relax-to-linalg lowering) for each relax op.");
  m.def(
      "write_object_file",
      [](MlirModule module, const std::string &path, unsigned optLevel, const std::string &cpu,
         const std::string &features, const std::string &metadataSymbol,
         const std::string &metadataText) {
        std::pair<std::string, std::string> out;
        MlirLogicalResult result = relaxMlirWriteObjectFile(
            module, mlirStringRefCreate(path.data(), path.size()), optLevel,
            mlirStringRefCreate(cpu.data(), cpu.size()),
            mlirStringRefCreate(features.data(), features.size()),
            mlirStringRefCreate(metadataSymbol.data(), metadataSymbol.size()),
            mlirStringRefCreate(metadataText.data(), metadataText.size()),
            [](MlirStringRef text, void *userData) {
              static_cast<std::pair<std::string, std::string> *>(userData)->first =
                  std::string(text.data, text.length);
            },
            [](MlirStringRef text, void *userData) {
              static_cast<std::pair<std::string, std::string> *>(userData)->second =
                  std::string(text.data, text.length);
            },
            &out);
        if (mlirLogicalResultIsFailure(result))
          throw std::runtime_error(out.second);
        return out.first;
      },
      nanobind::arg("module"), nanobind::arg("path"), nanobind::arg("opt_level"),
      nanobind::arg("cpu"), nanobind::arg("features"), nanobind::arg("metadata_symbol"),
      nanobind::arg("metadata_text"),
      "Writes `module` (LLVM dialect) as a PIC object file; returns \"<cpu> <features>\" it "
      "was built for, raises RuntimeError with the reason otherwise.");
}
