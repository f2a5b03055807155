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

NB_MODULE(_site_initialize_0, m) {
  m.doc() = "Registers the relax dialect, its passes and pipelines.";
  relaxMlirRegisterPasses();
  m.def(
      "register_dialects",
      [](MlirDialectRegistry registry) { relaxMlirRegisterDialects(registry); },
      nanobind::arg("registry"), "Inserts the relax dialect into `registry`.");
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
}
