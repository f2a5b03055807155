//===- RelaxOps.h - relax dialect ops ---------------------------*- C++ -*-===//
#ifndef RELAX_MLIR_DIALECT_RELAX_IR_RELAXOPS_H
#define RELAX_MLIR_DIALECT_RELAX_IR_RELAXOPS_H

#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Interfaces/CallInterfaces.h"
#include "mlir/Interfaces/ControlFlowInterfaces.h"
#include "mlir/Interfaces/InferTypeOpInterface.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "relax-mlir/Dialect/Relax/IR/RelaxDialect.h"

namespace mlir::relax {
/// Result type of a numpy-broadcasting binary op, or a diagnostic at `loc`.
LogicalResult inferBroadcastBinaryType(std::optional<Location> loc, Type lhs, Type rhs,
                                       SmallVectorImpl<Type> &results);
/// Result type of a reduction over `axis` (all axes when null).
LogicalResult inferReductionType(std::optional<Location> loc, Type input,
                                 DenseI64ArrayAttr axis, bool keepdims,
                                 SmallVectorImpl<Type> &results);
/// Result type of argmax/argmin over `axis` (the flattened input when null):
/// i64, the reduction's shape; an axis of size 0 is an error.
LogicalResult inferArgExtremumType(std::optional<Location> loc, Type input, IntegerAttr axis,
                                   bool keepdims, SmallVectorImpl<Type> &results);
/// The reduced axes of `input`, non-negative and sorted; assumes a verified op.
SmallVector<int64_t> normalizeReductionAxes(Type input, std::optional<ArrayRef<int64_t>> axis);
/// One spatial axis of a convolution or pooling window.
struct WindowAxis {
  int64_t size;      // input size
  int64_t padBefore; // padding before (top / left)
  int64_t padAfter;  // padding after as given (bottom / right)
  int64_t kernel, stride, dilation;
  int64_t out;       // output size
  /// The span of one window: dilation * (kernel - 1) + 1.
  int64_t extent() const { return dilation * (kernel - 1) + 1; }
  /// How far past the input the windows read: the padding after that matters
  /// (less than padAfter when the last rows are never read, more when
  /// ceil_mode adds a partial window). May be negative.
  int64_t readPadAfter() const { return (out - 1) * stride + extent() - size - padBefore; }
};
/// The two spatial axes of an NCHW window op on `shape`, or a diagnostic at
/// `loc`: kernel, strides and dilation positive, padding (top, left, bottom,
/// right) non-negative, the output at least 1. With `ceilMode` (pooling), the
/// output rounds up while the last window starts inside the input or its
/// padding before. `poolPadding` checks PyTorch's rule that pooling padding is
/// at most half the window.
FailureOr<SmallVector<WindowAxis, 2>>
computeWindowAxes(std::optional<Location> loc, ArrayRef<int64_t> shape, ArrayRef<int64_t> kernel,
                  ArrayRef<int64_t> strides, ArrayRef<int64_t> padding,
                  ArrayRef<int64_t> dilation, bool ceilMode, bool poolPadding);

/// Checks an I64 `axis` attribute against `rank` (negative counts from the end).
LogicalResult verifyAxis(Operation *op, int64_t axis, int64_t rank);
/// The canonicalization patterns of every relax op (folders apply too when the
/// greedy driver runs them).
void populateRelaxCanonicalizationPatterns(RewritePatternSet &patterns);
/// A shape as "(2, 3)" for diagnostics.
std::string formatShape(ArrayRef<int64_t> shape);
/// The numpy broadcast of two shapes, or std::nullopt when incompatible.
std::optional<SmallVector<int64_t>> broadcastShapes(ArrayRef<int64_t> a, ArrayRef<int64_t> b);
/// The JVP of an op linear in its float operands (the Relax_Linear trait): a
/// clone of `op` reading each float operand's tangent (zeros where it is null)
/// and its other operands as they are; its results are the result tangents
/// (null for results that carry no gradient).
LogicalResult buildLinearTangent(Operation *op, OpBuilder &b, ValueRange operandTangents,
                                 MutableArrayRef<Value> resultTangents);
} // namespace mlir::relax

namespace mlir::OpTrait::relax {
/// See Relax_Linear in RelaxInterfaces.td.
template <typename ConcreteType>
class Linear : public TraitBase<ConcreteType, Linear> {};
/// See Relax_StopsDerivatives in RelaxInterfaces.td.
template <typename ConcreteType>
class StopsDerivatives : public TraitBase<ConcreteType, StopsDerivatives> {};
} // namespace mlir::OpTrait::relax

namespace mlir::relax {
class PullbackBuilder;
class PushforwardBuilder;
class RegionBatcher;

/// The custom directives of the loops' operand groups
/// (`consts(...) init(...) xs(...)`; ControlFlowOps.cpp).
ParseResult parseScanOperands(OpAsmParser &p,
                              SmallVectorImpl<OpAsmParser::UnresolvedOperand> &args,
                              SmallVectorImpl<Type> &types, IntegerAttr &numConsts,
                              IntegerAttr &numCarries);
void printScanOperands(OpAsmPrinter &p, Operation *op, OperandRange args, TypeRange types,
                       IntegerAttr numConsts, IntegerAttr numCarries);
ParseResult parseWhileOperands(OpAsmParser &p,
                               SmallVectorImpl<OpAsmParser::UnresolvedOperand> &args,
                               SmallVectorImpl<Type> &types, IntegerAttr &numConsts);
void printWhileOperands(OpAsmPrinter &p, Operation *op, OperandRange args, TypeRange types,
                        IntegerAttr numConsts);
} // namespace mlir::relax

#include "relax-mlir/Dialect/Relax/IR/RelaxInterfaces.h.inc"

#define GET_OP_CLASSES
#include "relax-mlir/Dialect/Relax/IR/RelaxOps.h.inc"

namespace mlir::relax {
/// `v` with its two innermost axes swapped (a relax.permute_dims).
Value buildTransposeLastTwo(OpBuilder &b, Location loc, Value v);
} // namespace mlir::relax

#endif // RELAX_MLIR_DIALECT_RELAX_IR_RELAXOPS_H
