//===- CPUDialect.h - the CPU schedule's strategy attribute -----*- C++ -*-===//
//
// The `relax_cpu` dialect and its `#relax_cpu.tiles` attribute (CPUAttrs.td):
// what relax-cpu-select-tiles chose for a linalg op.
//
//===----------------------------------------------------------------------===//
#ifndef RELAX_MLIR_CODEGEN_CPUDIALECT_H
#define RELAX_MLIR_CODEGEN_CPUDIALECT_H

#include "mlir/IR/Attributes.h"
#include "mlir/IR/Dialect.h"
#include "mlir/IR/DialectImplementation.h"

#include "relax-mlir/CodeGen/CPUDialect.h.inc"
#include "relax-mlir/CodeGen/CPUEnums.h.inc"

#define GET_ATTRDEF_CLASSES
#include "relax-mlir/CodeGen/CPUAttrs.h.inc"

namespace mlir::relax::cpu {
/// The strategy `op` carries, or null.
inline TilesAttr getTiles(Operation *op) {
  return op->getAttrOfType<TilesAttr>(RelaxCPUDialect::kTilesAttrName);
}
} // namespace mlir::relax::cpu

#endif // RELAX_MLIR_CODEGEN_CPUDIALECT_H
