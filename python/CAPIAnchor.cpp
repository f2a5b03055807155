//===- CAPIAnchor.cpp - gives the Python C API library a source file -------===//
//
// The library is made of whole C API archives; CMake needs one source of its own.
namespace relax_mlir_python_capi {
int anchor() { return 0; }
} // namespace relax_mlir_python_capi
