//===- CPUAttrs.td - the CPU schedule's strategy attribute -*- tablegen -*-===//
//
// The `relax_cpu` dialect holds no ops: only the attribute in which the CPU
// schedule's strategy (relax-cpu-select-tiles) tells its transformations
// (relax-cpu-pack, relax-cpu-tile, relax-cpu-vectorize) what to do with each
// linalg op, as IREE's lowering_config does.
//
//===----------------------------------------------------------------------===//

#ifndef RELAX_CODEGEN_CPUATTRS_TD
#define RELAX_CODEGEN_CPUATTRS_TD

include "mlir/IR/AttrTypeBase.td"
include "mlir/IR/DialectBase.td"
include "mlir/IR/EnumAttr.td"

def RelaxCPU_Dialect : Dialect {
  let name = "relax_cpu";
  let summary = "The CPU schedule's per-op strategy (tile sizes, packing, split-K)";
  let description = [{
    `relax-cpu-select-tiles` puts `relax_cpu.tiles = #relax_cpu.tiles<...>`
    on every linalg op the schedule transforms; the transformations read it
    and make no choice of their own. The attribute is verified on its own
    (sizes, fields that go together) and against the op it is on (one tile
    size per loop, the ops each packing applies to).
  }];
  let cppNamespace = "::mlir::relax::cpu";
  let useDefaultAttributePrinterParser = 1;
  let hasOperationAttrVerify = 1;
  let extraClassDeclaration = [{
    /// The name of the discardable attribute that holds an op's TilesAttr.
    static constexpr ::llvm::StringLiteral kTilesAttrName = "relax_cpu.tiles";
  }];
}

def RelaxCPU_Packing : I32EnumAttr<"Packing", "a copy made before tiling", [
    I32EnumAttrCase<"none", 0>,
    // The input read with strided columns, copied transposed.
    I32EnumAttrCase<"columns", 1>,
    // The lhs whose reduction steps are far apart, copied with the reduction
    // innermost.
    I32EnumAttrCase<"rows", 2>,
    // The rhs copied into panels of `panel_cols` columns.
    I32EnumAttrCase<"panels", 3>,
    // A convolution as the filter times its patches: one product per image,
    // or one for the whole batch.
    I32EnumAttrCase<"im2col_image", 4>,
    I32EnumAttrCase<"im2col_batch", 5>]> {
  let cppNamespace = "::mlir::relax::cpu";
  let genSpecializedAttr = 0;
}

def RelaxCPU_PackingParameter : EnumParameter<RelaxCPU_Packing> {
  let defaultValue = "::mlir::relax::cpu::Packing::none";
}

// A list of sizes written `[a, b, c]`; empty (and not printed) by default.
class RelaxCPU_Sizes<string desc> : OptionalArrayRefParameter<"int64_t", desc> {
  let parser = [{ [&]() -> ::mlir::FailureOr<::llvm::SmallVector<int64_t>> {
    ::llvm::SmallVector<int64_t> sizes;
    if ($_parser.parseCommaSeparatedList(::mlir::AsmParser::Delimiter::Square, [&] {
          return $_parser.parseInteger(sizes.emplace_back());
        }))
      return ::mlir::failure();
    return sizes;
  }() }];
  let printer = [{
    $_printer << '[';
    ::llvm::interleaveComma($_self, $_printer);
    $_printer << ']';
  }];
}

def RelaxCPU_TilesAttr : AttrDef<RelaxCPU_Dialect, "Tiles"> {
  let mnemonic = "tiles";
  let summary = "How the CPU schedule tiles, packs and vectorizes one linalg op";
  let description = [{
    One size per loop of the op in each list (0: that loop is not tiled at
    that level):

    - `outer`: the first level, the register tile (the parallel loops of a
      contraction; every loop of other ops).
    - `inner`: applied to the register tile: a contraction's reduction loops
      (1: one rank-1 update per step).
    - `cache_block`: before both: blocks of a contraction's reduction loops
      whose rhs panel stays in cache.
    - `contraction`: the op is a sum of products whose output fill (and
      elementwise consumer) goes into its register tile.
    - `split_k`: `a @ b^T` as this many partial dot products per output
      (upstream's split reduction with the new loop innermost and parallel),
      summed at the end of the tile; `outer` then gives the sum's tile.
    - `pack`: a copy that relax-cpu-pack makes first (the op gets the
      selection of what it became); `panel_cols` with `panels`.

    Example: `#relax_cpu.tiles<outer = [8, 64, 0], inner = [0, 0, 1],
    contraction = true>` is an 8x64 register tile of a matmul, one step of
    the reduction at a time.
  }];
  let parameters = (ins
    RelaxCPU_Sizes<"first-level tile sizes">:$outer,
    RelaxCPU_Sizes<"second-level tile sizes (a contraction's reduction)">:$inner,
    RelaxCPU_Sizes<"cache blocks of a contraction's reduction">:$cache_block,
    DefaultValuedParameter<"bool", "false">:$contraction,
    DefaultValuedParameter<"int64_t", "0">:$split_k,
    RelaxCPU_PackingParameter:$pack,
    DefaultValuedParameter<"int64_t", "0">:$panel_cols
  );
  let assemblyFormat = "`<` struct(params) `>`";
  let genVerifyDecl = 1;
}

#endif // RELAX_CODEGEN_CPUATTRS_TD
