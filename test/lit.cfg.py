# lit configuration: FileCheck tests of the relax dialect, its passes and lowerings.
import os
import shutil
import sys

import lit.formats
from lit.llvm import llvm_config

config.name = "relax-mlir"
# lit 23 refuses execute_external=True; the internal shell is enough here.
config.test_format = lit.formats.ShTest(execute_external=False)
config.suffixes = [".mlir"]
config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = os.path.join(config.relax_obj_root, "test")
config.excludes = ["CMakeLists.txt", "lit.cfg.py", "lit.site.cfg.py.in", "python"]

# The runners' support libraries, for `mlir-runner -shared-libs=...`.
for name in ("mlir_runner_utils", "mlir_c_runner_utils", "omp"):
    config.substitutions.append((f"%lib{name}" if name == "omp" else f"%{name}",
                                 os.path.join(config.llvm_lib_dir, f"lib{name}.so")))
config.substitutions.append(("%llvm_lib_dir", config.llvm_lib_dir))
config.substitutions.append(("%shlibext", ".so"))
config.substitutions.append(("%relax_obj_root", config.relax_obj_root))
config.substitutions.append(("%python", sys.executable))

llvm_config.with_system_environment(["HOME", "TMP", "TEMP"])
llvm_config.use_default_substitutions()
tools = ["relax-opt", "mlir-runner", "mlir-opt", "mlir-translate", "FileCheck", "not", "count"]
llvm_config.add_tool_substitutions(tools, [config.relax_tools_dir, config.llvm_tools_dir])


# The GPU lowering's tests that need CUDA's toolkit: libdevice (math functions
# in PTX) and ptxas/fatbinary (format=bin|fatbin). The pipeline looks in
# $CUDA_ROOT, $CUDA_HOME, $CUDA_PATH, else /usr/local/cuda.
def _cuda_toolkit():
    for name in ("CUDA_ROOT", "CUDA_HOME", "CUDA_PATH"):
        if os.environ.get(name):
            return os.environ[name]
    return "/usr/local/cuda" if os.path.isdir("/usr/local/cuda") else None


_toolkit = _cuda_toolkit()
if _toolkit:
    llvm_config.with_environment("CUDA_ROOT", _toolkit)
    if os.path.exists(os.path.join(_toolkit, "nvvm", "libdevice", "libdevice.10.bc")):
        config.available_features.add("libdevice")
    if os.path.exists(os.path.join(_toolkit, "bin", "ptxas")) and \
            os.path.exists(os.path.join(_toolkit, "bin", "fatbinary")):
        config.available_features.add("ptxas")



# `%memcheck COMMAND`: COMMAND under valgrind's memcheck, failing on any error.
# It sees what the ASan build cannot: a pass reading IR that libMLIR freed,
# when the read itself happens inside libMLIR (which is not instrumented),
# e.g. an op's context after a utility erased the op. valgrind cannot run a
# binary built with ASan (the build-asan tree): lit feature `asan`.
MEMCHECK = "valgrind --quiet --error-exitcode=99"
config.substitutions.append(("%memcheck", MEMCHECK))
if getattr(config, "relax_sanitize", "OFF").upper() in ("ON", "TRUE", "1"):
    config.available_features.add("asan")
if shutil.which("valgrind"):
    config.available_features.add("valgrind")
# `lit -Dmemcheck=1` (make test-memcheck): every relax-opt runs so.
if lit_config.params.get("memcheck"):
    config.available_features.add("memcheck")
    config.substitutions = [
        (pattern, f"{MEMCHECK} {replacement}")
        if isinstance(replacement, str) and replacement.endswith(os.sep + "relax-opt")
        else (pattern, replacement)
        for pattern, replacement in config.substitutions]
