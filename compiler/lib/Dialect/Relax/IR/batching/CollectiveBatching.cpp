//===- CollectiveBatching.cpp - batching rules of the collectives ---------===//
//
// An all-reduce is elementwise across processes: a batch is reduced as one
// tensor (every process batches the same way).
//
//===----------------------------------------------------------------------===//

#include "relax-mlir/Dialect/Relax/IR/BatchingUtils.h"
#include "relax-mlir/Dialect/Relax/IR/RelaxOps.h"

using namespace mlir;
using namespace mlir::relax;

LogicalResult AllReduceOp::buildBatched(OpBuilder &b, int64_t n, ValueRange operands,
                                        ArrayRef<bool> batched, MutableArrayRef<Value> results) {
  return batchElementwise(getOperation(), b, n, operands, batched, results);
}
