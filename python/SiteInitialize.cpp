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
#include <nanobind/stl/pair.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include <stdexcept>
#include <string>
#include <vector>
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
            [](MlirStringRef name, bool hasGradient, bool hasLowering, bool hasBatching,
               void *userData) {
              static_cast<nanobind::list *>(userData)->append(nanobind::make_tuple(
                  std::string(name.data, name.length), hasGradient, hasLowering, hasBatching));
            },
            &ops);
        return ops;
      },
      nanobind::arg("context"),
      "(name, has gradient rule, has a relax-to-linalg lowering, has a batching rule) for "
      "each relax op.");
  m.def(
      "write_object_file",
      [](MlirModule module, const std::string &path, unsigned optLevel, const std::string &cpu,
         const std::string &features, const std::string &metadataSymbol,
         const std::string &metadataText, unsigned codegenThreads) {
        struct Out {
          std::string target, error;
          std::vector<std::string> objects;
        } out;
        MlirLogicalResult result = relaxMlirWriteObjectFile(
            module, mlirStringRefCreate(path.data(), path.size()), optLevel,
            mlirStringRefCreate(cpu.data(), cpu.size()),
            mlirStringRefCreate(features.data(), features.size()),
            mlirStringRefCreate(metadataSymbol.data(), metadataSymbol.size()),
            mlirStringRefCreate(metadataText.data(), metadataText.size()), codegenThreads,
            [](MlirStringRef text, void *userData) {
              static_cast<Out *>(userData)->target = std::string(text.data, text.length);
            },
            [](MlirStringRef text, void *userData) {
              static_cast<Out *>(userData)->objects.emplace_back(text.data, text.length);
            },
            [](MlirStringRef text, void *userData) {
              static_cast<Out *>(userData)->error = std::string(text.data, text.length);
            },
            &out);
        if (mlirLogicalResultIsFailure(result))
          throw std::runtime_error(out.error);
        return std::make_pair(out.target, out.objects);
      },
      nanobind::arg("module"), nanobind::arg("path"), nanobind::arg("opt_level"),
      nanobind::arg("cpu"), nanobind::arg("features"), nanobind::arg("metadata_symbol"),
      nanobind::arg("metadata_text"), nanobind::arg("codegen_threads") = 0,
      "Writes `module` (LLVM dialect) as PIC object files, code generation on "
      "`codegen_threads` threads (0: every core this process may use); returns "
      "(\"<cpu> <features>\" it was built for, [the object files to link]: `path`, then "
      "`path.1`, ... when the module was split), raises RuntimeError with the reason "
      "otherwise.");
}
