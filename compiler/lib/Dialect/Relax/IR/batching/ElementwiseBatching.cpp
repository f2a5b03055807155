//===- ElementwiseBatching.cpp - batching rules of elementwise ops --------===//
//
// Elementwise ops (unary, broadcasting binary, comparisons, where, astype,
// the *_like fills, stop_gradient): the op itself over the batched operands,
// each padded after its batch dimension to the example's rank so that numpy
// broadcasting lines it up with the unbatched ones.
//
//===----------------------------------------------------------------------===//

#include "relax-mlir/Dialect/Relax/IR/BatchingUtils.h"
#include "relax-mlir/Dialect/Relax/IR/GradientUtils.h"
#include "relax-mlir/Dialect/Relax/IR/RelaxOps.h"

using namespace mlir;
using namespace mlir::relax;

#define RELAX_ELEMENTWISE_BATCHING(Op)                                                      \
  LogicalResult Op::buildBatched(OpBuilder &b, int64_t n, ValueRange operands,               \
                                 ArrayRef<bool> batched, MutableArrayRef<Value> results) {   \
    return batchElementwise(getOperation(), b, n, operands, batched, results);               \
  }

RELAX_ELEMENTWISE_BATCHING(NegativeOp)
RELAX_ELEMENTWISE_BATCHING(ExpOp)
RELAX_ELEMENTWISE_BATCHING(LogOp)
RELAX_ELEMENTWISE_BATCHING(TanhOp)
RELAX_ELEMENTWISE_BATCHING(SigmoidOp)
RELAX_ELEMENTWISE_BATCHING(ReluOp)
RELAX_ELEMENTWISE_BATCHING(SqrtOp)
RELAX_ELEMENTWISE_BATCHING(RsqrtOp)
RELAX_ELEMENTWISE_BATCHING(SinOp)
RELAX_ELEMENTWISE_BATCHING(CosOp)
RELAX_ELEMENTWISE_BATCHING(TanOp)
RELAX_ELEMENTWISE_BATCHING(AbsOp)
RELAX_ELEMENTWISE_BATCHING(SquareOp)
RELAX_ELEMENTWISE_BATCHING(ErfOp)
RELAX_ELEMENTWISE_BATCHING(SiluOp)
RELAX_ELEMENTWISE_BATCHING(GeluOp)
RELAX_ELEMENTWISE_BATCHING(SoftplusOp)
RELAX_ELEMENTWISE_BATCHING(Log1pOp)
RELAX_ELEMENTWISE_BATCHING(Expm1Op)
RELAX_ELEMENTWISE_BATCHING(BitcastOp)
RELAX_ELEMENTWISE_BATCHING(BitwiseAndOp)
RELAX_ELEMENTWISE_BATCHING(BitwiseOrOp)
RELAX_ELEMENTWISE_BATCHING(BitwiseXorOp)
RELAX_ELEMENTWISE_BATCHING(LeftShiftOp)
RELAX_ELEMENTWISE_BATCHING(RightShiftOp)
RELAX_ELEMENTWISE_BATCHING(ShiftRightLogicalOp)
RELAX_ELEMENTWISE_BATCHING(LeakyReluOp)
RELAX_ELEMENTWISE_BATCHING(ClipOp)
RELAX_ELEMENTWISE_BATCHING(AstypeOp)
RELAX_ELEMENTWISE_BATCHING(AddOp)
RELAX_ELEMENTWISE_BATCHING(SubtractOp)
RELAX_ELEMENTWISE_BATCHING(MultiplyOp)
RELAX_ELEMENTWISE_BATCHING(DivideOp)
RELAX_ELEMENTWISE_BATCHING(PowerOp)
RELAX_ELEMENTWISE_BATCHING(MaximumOp)
RELAX_ELEMENTWISE_BATCHING(MinimumOp)
RELAX_ELEMENTWISE_BATCHING(WhereOp)
RELAX_ELEMENTWISE_BATCHING(EqualOp)
RELAX_ELEMENTWISE_BATCHING(NotEqualOp)
RELAX_ELEMENTWISE_BATCHING(GreaterOp)
RELAX_ELEMENTWISE_BATCHING(GreaterEqualOp)
RELAX_ELEMENTWISE_BATCHING(LessOp)
RELAX_ELEMENTWISE_BATCHING(LessEqualOp)
RELAX_ELEMENTWISE_BATCHING(ZerosLikeOp)
RELAX_ELEMENTWISE_BATCHING(OnesLikeOp)
RELAX_ELEMENTWISE_BATCHING(StopGradientOp)
RELAX_ELEMENTWISE_BATCHING(StartCheckpointOp)
RELAX_ELEMENTWISE_BATCHING(EndCheckpointOp)

/// Each example filled with its own value when the value is batched.
LogicalResult FullLikeOp::buildBatched(OpBuilder &b, int64_t n, ValueRange operands,
                                       ArrayRef<bool> batched, MutableArrayRef<Value> results) {
  Location loc = getLoc();
  Type type = batchedType(getType(), n);
  Value value = operands[1];
  if (!batched[1]) {
    results[0] = FullLikeOp::create(b, loc, type, operands[0], value);
    return success();
  }
  results[0] = broadcastToType(b, loc, padExample(b, loc, value, getType().getRank()), type);
  return success();
}
