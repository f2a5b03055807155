//===- Emulate.cpp - GPU kernels run on the host, thread by thread --------===//
//
// relax-gpu-emulate: each gpu.launch becomes host loops over its blocks and,
// between synchronization points, over its threads (see Passes.td). This is
// how the GPU pipeline's kernels are tested without a GPU.
//
// A kernel body is cut at its synchronization points: gpu.barrier,
// gpu.all_reduce, and scf.for/scf.if ops that hold one (their bounds and
// conditions must be the same in every thread). Each run of ops between two
// points becomes a loop over the block's threads. A thread's value that is
// used outside its run lives in a per-thread buffer (its "home"); values
// that are the same in every thread (block ids, sizes, pure ops of them) are
// computed once per block ("uniform") and used directly.
//
//===----------------------------------------------------------------------===//

#include "relax-mlir/CodeGen/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/Utils/GPUUtils.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "llvm/ADT/SetVector.h"

namespace mlir::relax {
#define GEN_PASS_DEF_GPUEMULATEPASS
#include "relax-mlir/CodeGen/Passes.h.inc"
} // namespace mlir::relax

using namespace mlir;

namespace {

/// Whether `op` is a synchronization point or holds one.
bool isSync(Operation *op) {
  return op
      ->walk([](Operation *inner) {
        return isa<gpu::BarrierOp, gpu::AllReduceOp>(inner) ? WalkResult::interrupt()
                                                            : WalkResult::advance();
      })
      .wasInterrupted();
}

/// Emulates one gpu.launch (see the file comment).
class LaunchEmulator {
public:
  LaunchEmulator(gpu::LaunchOp launch, bool reverse)
      : launch(launch), reverse(reverse), loc(launch.getLoc()) {}

  LogicalResult run();

private:
  gpu::LaunchOp launch;
  bool reverse;
  Location loc;
  /// Threads per block (index).
  Value numThreads;
  /// Where per-thread buffers are allocated (before the loop over blocks).
  OpBuilder hostBuilder{launch.getContext()};
  SmallVector<Value> buffers; // freed after the loop over blocks
  /// Per-thread values used outside their run: their buffers.
  DenseMap<Value, Value> homes;
  /// Values inside the kernel that are the same in every thread of a block,
  /// and the pure ops computing them (cloned once per block).
  DenseSet<Value> uniform;
  DenseSet<Operation *> uniformOps;

  Value index(OpBuilder &b, int64_t v) { return arith::ConstantIndexOp::create(b, loc, v); }

  bool isUniform(Value v) {
    Region *region = v.getParentRegion();
    return !launch.getBody().isAncestor(region) || uniform.contains(v);
  }

  /// A buffer of one `type` value per thread.
  FailureOr<Value> newHome(Type type, Location at) {
    if (!MemRefType::isValidElementType(type) || isa<MemRefType>(type))
      return emitError(at) << "GPU emulation: a value of type " << type
                           << " used across a barrier cannot be kept per thread";
    Value buffer = memref::AllocOp::create(
        hostBuilder, loc, MemRefType::get({ShapedType::kDynamic}, type), numThreads);
    buffers.push_back(buffer);
    return buffer;
  }

  FailureOr<Value> homeOf(Value v) {
    auto it = homes.find(v);
    if (it != homes.end())
      return it->second;
    FailureOr<Value> buffer = newHome(v.getType(), v.getLoc());
    if (succeeded(buffer))
      homes[v] = *buffer;
    return buffer;
  }

  /// `v` in a thread's code: mapped, uniform, or loaded from its home.
  FailureOr<Value> valueIn(OpBuilder &b, Value v, IRMapping &m, IRMapping &uni, Value t) {
    if (m.contains(v))
      return m.lookup(v);
    if (isUniform(v)) {
      if (uni.contains(v) || !launch.getBody().isAncestor(v.getParentRegion()))
        return uni.lookupOrDefault(v);
      return emitError(v.getLoc()) << "GPU emulation: a uniform value is used before it is "
                                      "computed";
    }
    auto it = homes.find(v);
    if (it == homes.end())
      return emitError(v.getLoc()) << "GPU emulation: a thread's value is used where it is "
                                      "not available";
    Value loaded = memref::LoadOp::create(b, loc, it->second, t);
    m.map(v, loaded);
    return loaded;
  }

  /// Emits a loop over the block's threads at `b`; `body` fills it with the
  /// thread index `t` and the thread ids mapped in its IRMapping (a copy of
  /// `uni`); `hoist` inserts before the loop.
  using ThreadBody = function_ref<LogicalResult(OpBuilder &tb, OpBuilder &hoist, IRMapping &m,
                                                Value t)>;
  LogicalResult threadLoop(OpBuilder &b, IRMapping &uni, bool scoped, ThreadBody body) {
    auto loop = scf::ForOp::create(b, loc, index(b, 0), numThreads, index(b, 1));
    OpBuilder hoist(loop);
    OpBuilder tb = OpBuilder::atBlockBegin(loop.getBody());
    if (scoped) { // the run's stack buffers are freed after each thread
      auto scope = memref::AllocaScopeOp::create(tb, loc, TypeRange());
      Block *block = tb.createBlock(&scope.getBodyRegion());
      tb.setInsertionPointToStart(block);
      memref::AllocaScopeReturnOp::create(tb, loc);
      tb.setInsertionPointToStart(block);
    }
    Value i = loop.getInductionVar();
    Value t = reverse ? arith::SubIOp::create(
                            tb, loc, arith::SubIOp::create(tb, loc, numThreads, index(tb, 1)), i)
                            .getResult()
                      : i;
    IRMapping m = uni;
    auto sizes = launch.getBlockSizeOperandValues();
    Value x = arith::RemUIOp::create(tb, loc, t, sizes.x);
    Value rest = arith::DivUIOp::create(tb, loc, t, sizes.x);
    Value y = arith::RemUIOp::create(tb, loc, rest, sizes.y);
    Value z = arith::DivUIOp::create(tb, loc, rest, sizes.y);
    gpu::KernelDim3 ids = launch.getThreadIds();
    m.map(ids.x, x);
    m.map(ids.y, y);
    m.map(ids.z, z);
    return body(tb, hoist, m, t);
  }

  /// Clones `run` (ops of one block, no synchronization) into a thread's code
  /// at `b`: its operands from elsewhere are mapped or loaded first, uniform
  /// ops go to `hoist` (when given) and into `uni`, and results used outside
  /// the run are stored in their homes.
  LogicalResult cloneRun(OpBuilder &b, OpBuilder *hoist, ArrayRef<Operation *> run,
                         IRMapping &m, IRMapping &uni, Value t) {
    Block *block = run.front()->getBlock();
    llvm::SmallPtrSet<Operation *, 16> inRun(run.begin(), run.end());
    auto definedInRun = [&](Value v) {
      Operation *owner = v.getDefiningOp();
      if (!owner)
        owner = cast<BlockArgument>(v).getOwner()->getParentOp();
      Operation *top = block->findAncestorOpInBlock(*owner);
      return top && inRun.contains(top);
    };
    llvm::SetVector<Value> outside;
    for (Operation *op : run)
      op->walk([&](Operation *inner) {
        for (Value v : inner->getOperands())
          if (!definedInRun(v))
            outside.insert(v);
      });
    for (Value v : outside)
      if (failed(valueIn(b, v, m, uni, t)))
        return failure();
    for (Operation *op : run) {
      if (hoist && uniformOps.contains(op)) {
        Operation *clone = hoist->clone(*op, uni);
        for (auto [from, to] : llvm::zip(op->getResults(), clone->getResults()))
          m.map(from, to);
        continue;
      }
      b.clone(*op, m);
    }
    for (Operation *op : run) {
      if (uniformOps.contains(op))
        continue; // used from `uni` everywhere else
      for (Value result : op->getResults()) {
        bool crossing = llvm::any_of(result.getUsers(), [&](Operation *user) {
          Operation *top = block->findAncestorOpInBlock(*user);
          return !top || !inRun.contains(top);
        });
        if (!crossing)
          continue;
        FailureOr<Value> home = homeOf(result);
        if (failed(home))
          return failure();
        memref::StoreOp::create(b, loc, m.lookup(result), *home, t);
      }
    }
    return success();
  }

  static bool hasAllocas(ArrayRef<Operation *> run) {
    return llvm::any_of(run, [](Operation *op) {
      return op->walk([](memref::AllocaOp) { return WalkResult::interrupt(); })
          .wasInterrupted();
    });
  }

  /// A run at block level: one loop over the threads (uniform ops hoisted
  /// before it; none when the whole run is uniform).
  LogicalResult emitRun(OpBuilder &b, ArrayRef<Operation *> run, IRMapping &uni) {
    if (run.empty())
      return success();
    if (llvm::all_of(run, [&](Operation *op) { return uniformOps.contains(op); })) {
      for (Operation *op : run)
        b.clone(*op, uni);
      return success();
    }
    return threadLoop(b, uni, hasAllocas(run),
                      [&](OpBuilder &tb, OpBuilder &hoist, IRMapping &m, Value t) {
                        return cloneRun(tb, &hoist, run, m, uni, t);
                      });
  }

  /// Ops of one block at block level: runs and synchronization points.
  LogicalResult emitItems(OpBuilder &b, ArrayRef<Operation *> ops, IRMapping &uni) {
    SmallVector<Operation *> run;
    for (Operation *op : ops) {
      if (!isSync(op)) {
        run.push_back(op);
        continue;
      }
      if (failed(emitRun(b, run, uni)) || failed(emitSync(b, op, uni)))
        return failure();
      run.clear();
    }
    return emitRun(b, run, uni);
  }

  LogicalResult requireUniform(Operation *op, ValueRange values, StringRef what) {
    for (Value v : values)
      if (!isUniform(v))
        return op->emitError("GPU emulation: ")
               << what << " holding a barrier must be the same in every thread of a block";
    return success();
  }

  /// Stores `values` (a region's yielded values) in `targets`, in a loop
  /// over the threads: all are read before any is written.
  LogicalResult storeYields(OpBuilder &b, ValueRange values, ArrayRef<Value> targets,
                            IRMapping &uni) {
    if (values.empty())
      return success();
    return threadLoop(b, uni, false, [&](OpBuilder &tb, OpBuilder &, IRMapping &m, Value t) {
      return storeYieldsIn(tb, values, targets, m, uni, t);
    });
  }

  LogicalResult storeYieldsIn(OpBuilder &b, ValueRange values, ArrayRef<Value> targets,
                              IRMapping &m, IRMapping &uni, Value t) {
    SmallVector<Value> read;
    for (Value v : values) {
      FailureOr<Value> value = valueIn(b, v, m, uni, t);
      if (failed(value))
        return failure();
      read.push_back(*value);
    }
    for (auto [value, target] : llvm::zip(read, targets))
      memref::StoreOp::create(b, loc, value, target, t);
    return success();
  }

  LogicalResult emitSync(OpBuilder &b, Operation *op, IRMapping &uni) {
    if (isa<gpu::BarrierOp>(op))
      return success(); // the runs around it are separate loops
    if (auto reduce = dyn_cast<gpu::AllReduceOp>(op))
      return emitAllReduce(b, reduce, uni);
    if (auto loop = dyn_cast<scf::ForOp>(op))
      return emitFor(b, loop, uni);
    if (auto branch = dyn_cast<scf::IfOp>(op))
      return emitIf(b, branch, uni);
    return op->emitError("GPU emulation: a barrier inside '")
           << op->getName() << "' is not supported (only in scf.for and scf.if)";
  }

  /// The threads' values folded in thread order.
  LogicalResult emitAllReduce(OpBuilder &b, gpu::AllReduceOp reduce, IRMapping &uni) {
    if (!reduce.getOp() || !reduce.getBody().empty())
      return reduce.emitError("GPU emulation: gpu.all_reduce with a region is not supported");
    vector::CombiningKind kind = gpu::convertReductionKind(*reduce.getOp());
    Value v = reduce.getValue();
    auto valueAt = [&](OpBuilder &at, Value t) -> FailureOr<Value> {
      IRMapping none;
      return valueIn(at, v, none, uni, t);
    };
    FailureOr<Value> first = valueAt(b, index(b, 0));
    if (failed(first))
      return failure();
    auto loop = scf::ForOp::create(b, loc, index(b, 1), numThreads, index(b, 1),
                                   ValueRange{*first});
    OpBuilder lb = OpBuilder::atBlockBegin(loop.getBody());
    FailureOr<Value> next = valueAt(lb, loop.getInductionVar());
    if (failed(next))
      return failure();
    Value folded = vector::makeArithReduction(lb, loc, kind, loop.getRegionIterArg(0), *next);
    scf::YieldOp::create(lb, loc, folded);
    uni.map(reduce.getResult(), loop.getResult(0));
    return success();
  }

  /// A loop holding barriers: its iterations in order at block level, its
  /// per-thread iter_args in homes. The ops before the body's first
  /// synchronization point ("head") run for the next iteration in the same
  /// thread loop as the ops after its last one ("tail"), as on a GPU.
  LogicalResult emitFor(OpBuilder &b, scf::ForOp loop, IRMapping &uni) {
    if (failed(requireUniform(loop, {loop.getLowerBound(), loop.getUpperBound(), loop.getStep()},
                              "the bounds of a loop")))
      return failure();
    Value lower = uni.lookupOrDefault(loop.getLowerBound()),
          upper = uni.lookupOrDefault(loop.getUpperBound()),
          step = uni.lookupOrDefault(loop.getStep());
    SmallVector<Value> carried;
    for (auto [arg, result] : llvm::zip(loop.getRegionIterArgs(), loop.getResults())) {
      FailureOr<Value> home = newHome(arg.getType(), loop.getLoc());
      if (failed(home))
        return failure();
      carried.push_back(*home);
      homes[arg] = *home;
      homes[result] = *home;
    }
    if (failed(storeYields(b, loop.getInitArgs(), carried, uni)))
      return failure();

    SmallVector<Operation *> ops;
    for (Operation &op : loop.getBody()->without_terminator())
      ops.push_back(&op);
    auto firstSync = llvm::find_if(ops, isSync);
    auto lastSync = std::prev(llvm::find_if(llvm::reverse(ops), isSync).base());
    ArrayRef<Operation *> head(ops.begin(), firstSync), middle(firstSync, lastSync + 1),
        tail(lastSync + 1, ops.end());
    bool threadHead = llvm::any_of(head, [&](Operation *op) { return !uniformOps.contains(op); });
    Value iv = loop.getInductionVar();

    // The first iteration's head.
    if (threadHead) {
      Value any = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, lower, upper);
      auto ifOp = scf::IfOp::create(b, loc, any, /*withElseRegion=*/false);
      OpBuilder ib = OpBuilder::atBlockBegin(ifOp.thenBlock());
      IRMapping first = uni;
      first.map(iv, lower);
      if (failed(threadLoop(ib, first, hasAllocas(head),
                            [&](OpBuilder &tb, OpBuilder &, IRMapping &m, Value t) {
                              return cloneRun(tb, nullptr, head, m, first, t);
                            })))
        return failure();
    }

    auto emulated = scf::ForOp::create(b, loc, lower, upper, step);
    OpBuilder body = OpBuilder::atBlockBegin(emulated.getBody());
    IRMapping inner = uni;
    inner.map(iv, emulated.getInductionVar());
    for (Operation *op : head) // this iteration's uniform values
      if (uniformOps.contains(op))
        body.clone(*op, inner);
    if (failed(emitItems(body, middle, inner)))
      return failure();
    auto yield = cast<scf::YieldOp>(loop.getBody()->getTerminator());
    if (tail.empty() && yield.getNumOperands() == 0 && !threadHead)
      return success();
    return threadLoop(
        body, inner, hasAllocas(tail) || hasAllocas(head),
        [&](OpBuilder &tb, OpBuilder &hoist, IRMapping &m, Value t) -> LogicalResult {
          if (!tail.empty() && failed(cloneRun(tb, &hoist, tail, m, inner, t)))
            return failure();
          if (failed(storeYieldsIn(tb, yield.getOperands(), carried, m, inner, t)))
            return failure();
          if (!threadHead)
            return success();
          // The next iteration's head, as on a GPU: no barrier in between.
          Value next = arith::AddIOp::create(tb, loc, emulated.getInductionVar(), step);
          Value more = arith::CmpIOp::create(tb, loc, arith::CmpIPredicate::slt, next, upper);
          auto ifOp = scf::IfOp::create(tb, loc, more, /*withElseRegion=*/false);
          OpBuilder ib = OpBuilder::atBlockBegin(ifOp.thenBlock());
          IRMapping nextMapping = inner;
          nextMapping.map(iv, next);
          for (Value id : {launch.getThreadIds().x, launch.getThreadIds().y,
                           launch.getThreadIds().z})
            nextMapping.map(id, m.lookup(id));
          return cloneRun(ib, nullptr, head, nextMapping, nextMapping, t);
        });
  }

  /// A branch holding barriers: taken by the whole block; its per-thread
  /// results in homes.
  LogicalResult emitIf(OpBuilder &b, scf::IfOp branch, IRMapping &uni) {
    if (failed(requireUniform(branch, branch.getCondition(), "the condition of a branch")))
      return failure();
    SmallVector<Value> results;
    for (Value result : branch.getResults()) {
      FailureOr<Value> home = homeOf(result);
      if (failed(home))
        return failure();
      results.push_back(*home);
    }
    bool withElse = !branch.getElseRegion().empty();
    auto ifOp = scf::IfOp::create(b, loc, uni.lookupOrDefault(branch.getCondition()), withElse);
    auto emitBranch = [&](Block *from, Block *to) -> LogicalResult {
      OpBuilder ib(to->getTerminator());
      IRMapping inner = uni;
      SmallVector<Operation *> ops;
      for (Operation &op : from->without_terminator())
        ops.push_back(&op);
      if (failed(emitItems(ib, ops, inner)))
        return failure();
      return storeYields(ib, from->getTerminator()->getOperands(), results, inner);
    };
    if (failed(emitBranch(branch.thenBlock(), ifOp.thenBlock())))
      return failure();
    return withElse ? emitBranch(branch.elseBlock(), ifOp.elseBlock()) : success();
  }

  /// Which values and ops of `block` (at block level) are uniform.
  void classify(Block &block) {
    for (Operation &op : block.without_terminator()) {
      if (auto loop = dyn_cast<scf::ForOp>(op); loop && isSync(loop)) {
        uniform.insert(loop.getInductionVar());
        classify(*loop.getBody());
      } else if (auto branch = dyn_cast<scf::IfOp>(op); branch && isSync(branch)) {
        classify(*branch.thenBlock());
        if (!branch.getElseRegion().empty())
          classify(*branch.elseBlock());
      } else if (isa<gpu::AllReduceOp>(op)) {
        uniform.insert(op.getResult(0));
      } else if (op.getNumRegions() == 0 && isPure(&op) &&
                 llvm::all_of(op.getOperands(), [&](Value v) { return isUniform(v); })) {
        uniformOps.insert(&op);
        uniform.insert(op.result_begin(), op.result_end());
      }
    }
  }

  LogicalResult check();
};

LogicalResult LaunchEmulator::check() {
  if (launch.getAsyncToken() || !launch.getAsyncDependencies().empty())
    return launch.emitError("GPU emulation: asynchronous gpu.launch is not supported (emulate "
                            "before gpu-async-region)");
  if (launch.getDynamicSharedMemorySize() || launch.hasClusterSize() ||
      launch.getNumPrivateAttributions() != 0)
    return launch.emitError("GPU emulation: dynamic shared memory, clusters and private "
                            "attributions are not supported");
  if (!launch.getBody().hasOneBlock())
    return launch.emitError("GPU emulation: the kernel body must be one block (structured "
                            "control flow)");
  WalkResult walk = launch.getBody().walk([&](Operation *op) {
    if (op->getDialect() != launch->getDialect() ||
        isa<gpu::BarrierOp, gpu::AllReduceOp, gpu::TerminatorOp, gpu::ThreadIdOp,
            gpu::BlockIdOp, gpu::BlockDimOp, gpu::GridDimOp>(op))
      return WalkResult::advance();
    op->emitError("GPU emulation: '") << op->getName() << "' is not supported";
    return WalkResult::interrupt();
  });
  if (walk.wasInterrupted())
    return failure();
  for (Value buffer : launch.getWorkgroupAttributions())
    for (Operation *user : buffer.getUsers())
      if (!isa<memref::LoadOp, memref::StoreOp>(user))
        return user->emitError("GPU emulation: shared memory may only be loaded and stored");
  return success();
}

LogicalResult LaunchEmulator::run() {
  if (failed(check()))
    return failure();
  // Thread and block ids and sizes as the body's arguments.
  launch.getBody().walk([&](Operation *op) {
    auto dimOf = [](auto idOp) { return static_cast<unsigned>(idOp.getDimension()); };
    auto pick = [](gpu::KernelDim3 dims, unsigned d) {
      return d == 0 ? dims.x : d == 1 ? dims.y : dims.z;
    };
    Value replacement;
    if (auto id = dyn_cast<gpu::ThreadIdOp>(op))
      replacement = pick(launch.getThreadIds(), dimOf(id));
    else if (auto id = dyn_cast<gpu::BlockIdOp>(op))
      replacement = pick(launch.getBlockIds(), dimOf(id));
    else if (auto dim = dyn_cast<gpu::BlockDimOp>(op))
      replacement = pick(launch.getBlockSize(), dimOf(dim));
    else if (auto dim = dyn_cast<gpu::GridDimOp>(op))
      replacement = pick(launch.getGridSize(), dimOf(dim));
    if (replacement) {
      op->getResult(0).replaceAllUsesWith(replacement);
      op->erase();
    }
  });

  OpBuilder b(launch);
  auto grid = launch.getGridSizeOperandValues();
  auto block = launch.getBlockSizeOperandValues();
  numThreads = arith::MulIOp::create(b, loc, arith::MulIOp::create(b, loc, block.x, block.y),
                                     block.z);
  Value blocks =
      arith::MulIOp::create(b, loc, arith::MulIOp::create(b, loc, grid.x, grid.y), grid.z);
  auto blockLoop = scf::ForOp::create(b, loc, index(b, 0), blocks, index(b, 1));
  hostBuilder.setInsertionPoint(blockLoop);

  IRMapping uni;
  // Shared memory: one buffer, in host memory, for the blocks in turn.
  for (Value shared : launch.getWorkgroupAttributions()) {
    auto type = cast<MemRefType>(shared.getType());
    Value buffer = memref::AllocOp::create(
        hostBuilder, loc,
        MemRefType::get(type.getShape(), type.getElementType(), type.getLayout()));
    buffers.push_back(buffer);
    uni.map(shared, buffer);
  }
  OpBuilder bb = OpBuilder::atBlockBegin(blockLoop.getBody());
  Value i = blockLoop.getInductionVar();
  Value linear =
      reverse ? arith::SubIOp::create(bb, loc, arith::SubIOp::create(bb, loc, blocks, index(bb, 1)),
                                      i)
                    .getResult()
              : i;
  Value x = arith::RemUIOp::create(bb, loc, linear, grid.x);
  Value rest = arith::DivUIOp::create(bb, loc, linear, grid.x);
  gpu::KernelDim3 ids = launch.getBlockIds(), gridArgs = launch.getGridSize(),
                  blockArgs = launch.getBlockSize();
  uni.map(ids.x, x);
  uni.map(ids.y, arith::RemUIOp::create(bb, loc, rest, grid.y));
  uni.map(ids.z, arith::DivUIOp::create(bb, loc, rest, grid.y));
  for (auto [arg, value] : llvm::zip(SmallVector<Value>{gridArgs.x, gridArgs.y, gridArgs.z,
                                                        blockArgs.x, blockArgs.y, blockArgs.z},
                                     SmallVector<Value>{grid.x, grid.y, grid.z, block.x, block.y,
                                                        block.z})) {
    uni.map(arg, value);
    uniform.insert(arg);
  }
  uniform.insert(ids.x);
  uniform.insert(ids.y);
  uniform.insert(ids.z);

  Block &body = launch.getBody().front();
  classify(body);
  SmallVector<Operation *> ops;
  for (Operation &op : body.without_terminator())
    ops.push_back(&op);
  if (failed(emitItems(bb, ops, uni)))
    return failure();
  OpBuilder after(blockLoop->getBlock(), std::next(blockLoop->getIterator()));
  for (Value buffer : buffers)
    memref::DeallocOp::create(after, loc, buffer);
  launch.erase();
  return success();
}

/// Host-side GPU memory ops as their memref forms.
LogicalResult emulateHostOps(func::FuncOp func) {
  SmallVector<Operation *> ops;
  func.walk([&](Operation *op) {
    if (isa<gpu::GPUDialect>(op->getDialect()))
      ops.push_back(op);
  });
  for (Operation *op : ops) {
    OpBuilder b(op);
    Location loc = op->getLoc();
    if (auto async = dyn_cast<gpu::AsyncOpInterface>(op);
        async && (!async.getAsyncDependencies().empty() || async.getAsyncToken()))
      return op->emitError("GPU emulation: asynchronous GPU ops are not supported (emulate "
                           "before gpu-async-region)");
    if (auto alloc = dyn_cast<gpu::AllocOp>(op)) {
      Value host = memref::AllocOp::create(b, loc, alloc.getMemref().getType(),
                                           alloc.getDynamicSizes(), alloc.getSymbolOperands());
      alloc.getMemref().replaceAllUsesWith(host);
    } else if (auto dealloc = dyn_cast<gpu::DeallocOp>(op)) {
      memref::DeallocOp::create(b, loc, dealloc.getMemref());
    } else if (auto copy = dyn_cast<gpu::MemcpyOp>(op)) {
      memref::CopyOp::create(b, loc, copy.getSrc(), copy.getDst());
    } else if (auto set = dyn_cast<gpu::MemsetOp>(op)) {
      linalg::FillOp::create(b, loc, set.getValue(), set.getDst());
    } else if (!isa<gpu::WaitOp>(op)) {
      return op->emitError("GPU emulation: '") << op->getName() << "' is not supported";
    }
    op->erase();
  }
  return success();
}

struct GPUEmulatePass : relax::impl::GPUEmulatePassBase<GPUEmulatePass> {
  using Base::Base;

  void runOnOperation() final {
    SmallVector<gpu::LaunchOp> launches;
    getOperation().walk([&](gpu::LaunchOp launch) { launches.push_back(launch); });
    for (gpu::LaunchOp launch : launches)
      if (failed(LaunchEmulator(launch, reverse).run()))
        return signalPassFailure();
    if (failed(emulateHostOps(getOperation())))
      signalPassFailure();
  }
};
} // namespace
