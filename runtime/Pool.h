//===- Pool.h - the buffer pool of compiled relax code ----------*- C++ -*-===//
//
// The buffers compiled code allocates for its temporaries come from a caching
// pool (`_mlir_memref_to_llvm_{alloc,aligned_alloc,free}`, which the
// schedule's lowering calls instead of malloc/free): a training step frees and
// allocates the same sizes on every call, and fresh large allocations cost a
// page fault per 4 KiB each time. The Python extension (JIT) and libraries
// written by `Executable.export` both use it. No MLIR or LLVM dependency.
//
//===----------------------------------------------------------------------===//

#ifndef RELAX_MLIR_RUNTIME_POOL_H
#define RELAX_MLIR_RUNTIME_POOL_H

#include <cstddef>
#include <cstdint>

namespace relax::pool {

/// A block of at least `size` bytes aligned to `alignment` (a power of two),
/// or nullptr. A `temporary` block (the compiled code's) counts in `Stats`.
void *allocate(size_t alignment, size_t size, bool temporary = true);
/// Returns `block` (from `allocate`, or nullptr) to the pool.
void release(void *block);
/// Frees every cached block (the pool keeps no block in use).
void trim();

/// The allocation that stopped a guarded call.
struct CallFailure {
  size_t bytes = 0;
  size_t alignment = 0;
};

/// Calls compiled code, `entry(args)` (a packed entry point), so that running
/// out of memory ends the call instead of the process: true when it ran to
/// the end; false when an allocation of its code failed (`allocateForCode`
/// jumped back here: compiled code runs no destructors, so nothing is left
/// half-done but memory), with `failure` saying which, and the temporaries
/// the call had allocated on this thread released to the pool.
bool guardedCall(void (*entry)(void **), void **args, CallFailure &failure);

/// `_mlir_memref_to_llvm_(aligned_)alloc`: a temporary of the compiled code
/// (`allocate`, after trimming the cache once when memory is short). When
/// none can be had it does not return: it stops this thread's guarded call;
/// on a thread without one (an OpenMP worker thread) or inside an OpenMP
/// parallel region, it says so on stderr and aborts (compiled code cannot go
/// on without the block, and a null one would be written through).
void *allocateForCode(size_t alignment, size_t size);

struct Stats {
  /// Bytes of temporaries handed out and not yet released.
  size_t live;
  /// High-water mark of `live` since the last reset.
  size_t peak;
  /// Bytes of released blocks kept for reuse.
  size_t cached;
};
/// The pool's counters, read at once; `resetPeak` restarts the mark from `live`.
Stats stats(bool resetPeak = false);

} // namespace relax::pool

#endif // RELAX_MLIR_RUNTIME_POOL_H
