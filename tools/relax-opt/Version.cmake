# Writes RelaxVersion.h (OUTPUT) with the project's version (from
# pyproject.toml) and the source tree's commit (`git describe --always
# --dirty`, "unknown" outside a git checkout); the file is rewritten only
# when that changes, so that a build recompiles relax-opt.cpp only then.
file(STRINGS "${SOURCE_DIR}/pyproject.toml" version_line REGEX "^version = ")
string(REGEX REPLACE "^version = \"([^\"]*)\".*" "\\1" version "${version_line}")
execute_process(COMMAND git -C "${SOURCE_DIR}" describe --always --dirty
                OUTPUT_VARIABLE commit OUTPUT_STRIP_TRAILING_WHITESPACE
                ERROR_QUIET RESULT_VARIABLE status)
if(NOT status EQUAL 0 OR commit STREQUAL "")
  set(commit "unknown")
endif()
set(content "#define RELAX_MLIR_VERSION \"${version}\"\n#define RELAX_MLIR_COMMIT \"${commit}\"\n")
if(EXISTS "${OUTPUT}")
  file(READ "${OUTPUT}" old)
endif()
if(NOT "${old}" STREQUAL "${content}")
  file(WRITE "${OUTPUT}" "${content}")
endif()
