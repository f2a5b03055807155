//===- CPUDialect.cpp - the relax_cpu dialect and its attribute -----------===//
//
// `#relax_cpu.tiles`, verified on its own (TilesAttr::verify) and against the
// op that carries it (verifyOperationAttribute).
//
//===----------------------------------------------------------------------===//

#include "relax-mlir/CodeGen/CPUDialect.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/IR/Builders.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace mlir::relax::cpu;

#include "relax-mlir/CodeGen/CPUDialect.cpp.inc"
#include "relax-mlir/CodeGen/CPUEnums.cpp.inc"
#define GET_ATTRDEF_CLASSES
#include "relax-mlir/CodeGen/CPUAttrs.cpp.inc"

void RelaxCPUDialect::initialize() {
  addAttributes<
#define GET_ATTRDEF_LIST
#include "relax-mlir/CodeGen/CPUAttrs.cpp.inc"
      >();
}

static bool isIm2col(Packing pack) {
  return pack == Packing::im2col_image || pack == Packing::im2col_batch;
}

LogicalResult TilesAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                                ArrayRef<int64_t> outer, ArrayRef<int64_t> inner,
                                ArrayRef<int64_t> cacheBlock, bool contraction, int64_t splitK,
                                Packing pack, int64_t panelCols) {
  for (auto [name, sizes] : {std::pair{"outer", outer}, {"inner", inner},
                             {"cache_block", cacheBlock}}) {
    if (llvm::any_of(sizes, [](int64_t s) { return s < 0; }))
      return emitError() << "'" << name << "' has a negative tile size";
    if (!sizes.empty() && sizes.size() != outer.size())
      return emitError() << "'" << name << "' has " << sizes.size()
                         << " sizes where 'outer' has " << outer.size();
  }
  if (splitK < 0 || panelCols < 0)
    return emitError() << "'split_k' and 'panel_cols' must not be negative";
  if (splitK > 0 && !contraction)
    return emitError() << "'split_k' applies to a contraction only";
  if ((pack == Packing::panels) != (panelCols > 0))
    return emitError() << "'panel_cols' goes with pack = panels, and only with it";
  if (isIm2col(pack) && (!outer.empty() || contraction))
    return emitError() << "a convolution packed as im2col has no tiles of its own "
                          "(its product gets them)";
  if (!isIm2col(pack) && pack != Packing::none && !contraction)
    return emitError() << "pack = " << stringifyPacking(pack) << " applies to a contraction only";
  return success();
}

/// `tiles` against the op that carries it (and on its own: an attribute
/// built in C++ rather than parsed has not been verified yet).
static LogicalResult verifyTilesOn(Operation *op, TilesAttr tiles) {
  if (failed(TilesAttr::verify([&] { return op->emitOpError(); }, tiles.getOuter(),
                               tiles.getInner(), tiles.getCacheBlock(), tiles.getContraction(),
                               tiles.getSplitK(), tiles.getPack(), tiles.getPanelCols())))
    return failure();
  auto linalgOp = dyn_cast<linalg::LinalgOp>(op);
  if (!linalgOp)
    return op->emitOpError() << "carries '" << RelaxCPUDialect::kTilesAttrName
                             << "' but is not a linalg op";
  if (isIm2col(tiles.getPack())) {
    if (!isa<linalg::Conv2DNchwFchwOp>(op))
      return op->emitOpError() << "pack = " << stringifyPacking(tiles.getPack())
                               << " applies to linalg.conv_2d_nchw_fchw only";
    return success();
  }
  unsigned loops = linalgOp.getNumLoops();
  if (!tiles.getOuter().empty() && tiles.getOuter().size() != loops)
    return op->emitOpError() << "has " << loops << " loops but its tiles give "
                             << tiles.getOuter().size() << " sizes";
  SmallVector<utils::IteratorType> iterators = linalgOp.getIteratorTypesArray();
  for (auto [name, sizes] : {std::pair{"inner", tiles.getInner()},
                             {"cache_block", tiles.getCacheBlock()}})
    for (auto [d, size] : llvm::enumerate(sizes))
      if (size != 0 && iterators[d] != utils::IteratorType::reduction)
        return op->emitOpError() << "tiles its parallel loop " << d << " in '" << name
                                 << "' (a contraction's reduction loops only)";
  if (tiles.getContraction() && linalgOp.getNumReductionLoops() == 0)
    return op->emitOpError() << "is tiled as a contraction but has no reduction loop";
  if (tiles.getSplitK() > 0 && linalgOp.getNumReductionLoops() != 1)
    return op->emitOpError() << "needs exactly one reduction loop for split_k";
  return success();
}

LogicalResult RelaxCPUDialect::verifyOperationAttribute(Operation *op, NamedAttribute attribute) {
  if (attribute.getName() != kTilesAttrName)
    return op->emitOpError() << "has unknown attribute '" << attribute.getName().getValue()
                             << "' of the relax_cpu dialect";
  auto tiles = dyn_cast<TilesAttr>(attribute.getValue());
  if (!tiles)
    return op->emitOpError() << "'" << kTilesAttrName << "' must be a #relax_cpu.tiles";
  return verifyTilesOn(op, tiles);
}
