//===- ExportABI.cpp - runtime symbols of exported relax libraries --------===//
//
// A library written by `Executable.export` links this file and the pool: the
// compiled code allocates its temporaries through
// `_mlir_memref_to_llvm_{alloc,aligned_alloc,free}` (which the JIT binds to
// the same pool at run time); `relaxCall` runs a function so that running
// out of memory returns an error instead of ending the process;
// `relaxPoolResult`/`relaxPoolRelease` give the Python loader
// (`relax_mlir.runtime`) pooled result arrays, and
// `relaxPoolTrim`/`relaxPoolStats` let it release cached memory and report it.
//
//===----------------------------------------------------------------------===//

#include "Pool.h"

#include <cstdint>

#define RELAX_HIDDEN extern "C" __attribute__((visibility("hidden")))
#define RELAX_EXPORT extern "C" __attribute__((visibility("default")))

namespace {
/// Another process-wide pool the compiled code allocates from instead of the
/// library's own (`relaxUseHostAllocator`), or null.
struct HostAllocator {
  void *(*alloc)(uint64_t);
  void *(*alignedAlloc)(uint64_t, uint64_t);
  void (*release)(void *);
};
HostAllocator *hostAllocator = nullptr;
} // namespace

/// Routes the compiled code's temporaries to the allocator of the process
/// that loaded the library (relax_mlir's own pool, when its compilation
/// cache loads a library in place of the JIT): `memory_stats` then counts
/// them, and a failed allocation unwinds to that pool's guarded call. Call
/// it once, right after loading, before any function runs.
RELAX_EXPORT void relaxUseHostAllocator(void *(*alloc)(uint64_t),
                                        void *(*alignedAlloc)(uint64_t, uint64_t),
                                        void (*release)(void *)) {
  static HostAllocator host;
  host = {alloc, alignedAlloc, release};
  hostAllocator = &host;
}

RELAX_HIDDEN void *_mlir_memref_to_llvm_alloc(uint64_t size) {
  if (hostAllocator)
    return hostAllocator->alloc(size);
  return relax::pool::allocateForCode(16, size);
}

RELAX_HIDDEN void *_mlir_memref_to_llvm_aligned_alloc(uint64_t alignment, uint64_t size) {
  if (hostAllocator)
    return hostAllocator->alignedAlloc(alignment, size);
  return relax::pool::allocateForCode(alignment, size);
}

/// Calls `entry`, a function's packed entry point (`relax_packed_<name>`), on
/// `args` (its memref descriptors' addresses, parameters then results) and
/// returns 0; when a temporary cannot be allocated (out of memory), the
/// bytes it needed: the call stopped there and the temporaries it held went
/// back to the pool, and the loader raises MemoryError (calling
/// `_mlir_ciface_<name>` directly, a failed allocation aborts the process).
RELAX_EXPORT uint64_t relaxCall(void (*entry)(void **), void **args) {
  relax::pool::CallFailure failure;
  if (relax::pool::guardedCall(entry, args, failure))
    return 0;
  return failure.bytes ? failure.bytes : 1;
}

RELAX_HIDDEN void _mlir_memref_to_llvm_free(void *block) {
  if (hostAllocator)
    return hostAllocator->release(block);
  relax::pool::release(block);
}

RELAX_EXPORT void relaxPoolTrim() { relax::pool::trim(); }

/// A 64-byte aligned block of `size` bytes for a result array (not counted
/// as a temporary), or null: the loader wraps it in a numpy array and returns
/// it with `relaxPoolRelease` when the array is freed, so that a training
/// loop reuses its gradients' memory instead of faulting in fresh pages.
RELAX_EXPORT void *relaxPoolResult(uint64_t size) {
  return relax::pool::allocate(64, size, /*temporary=*/false);
}

RELAX_EXPORT void relaxPoolRelease(void *block) { relax::pool::release(block); }

/// Writes the pool's (live, peak, cached) bytes to `out[0..2]`.
RELAX_EXPORT void relaxPoolStats(uint64_t *out, int resetPeak) {
  relax::pool::Stats stats = relax::pool::stats(resetPeak != 0);
  out[0] = stats.live;
  out[1] = stats.peak;
  out[2] = stats.cached;
}

namespace {
/// A ranked memref descriptor as MLIR's LLVM lowering lays it out:
/// allocated and aligned pointers, offset, then `rank` sizes and `rank`
/// strides (in elements).
struct RankedDescriptor {
  char *allocated;
  char *aligned;
  int64_t offset;
  int64_t shape[]; // sizes[rank], then strides[rank]
};
/// An unranked memref: its rank and the address of a ranked descriptor.
struct UnrankedDescriptor {
  int64_t rank;
  RankedDescriptor *descriptor;
};

/// Copies the elements of `src` at dimension `dim` and below to `dst`.
void copyStrided(int64_t elemSize, int64_t rank, int64_t dim, const int64_t *sizes,
                 const int64_t *srcStrides, const int64_t *dstStrides, const char *src,
                 char *dst) {
  if (dim == rank) {
    __builtin_memcpy(dst, src, elemSize);
    return;
  }
  for (int64_t i = 0; i < sizes[dim]; ++i)
    copyStrided(elemSize, rank, dim + 1, sizes, srcStrides, dstStrides,
                src + i * srcStrides[dim] * elemSize, dst + i * dstStrides[dim] * elemSize);
}
} // namespace

/// memref.copy between views that are not both contiguous (MLIR's lowering
/// calls this C runner utils symbol for them): each element of `src` to the
/// same position of `dst`, which has the same shape. A view of a loop's
/// carry with a step is one (relax.scan at opt_level 0).
RELAX_HIDDEN void memrefCopy(int64_t elemSize, UnrankedDescriptor *src, UnrankedDescriptor *dst) {
  int64_t rank = src->rank;
  const RankedDescriptor *s = src->descriptor;
  RankedDescriptor *d = dst->descriptor;
  const int64_t *sizes = s->shape;
  for (int64_t i = 0; i < rank; ++i)
    if (sizes[i] == 0)
      return;
  copyStrided(elemSize, rank, 0, sizes, s->shape + rank, d->shape + rank,
              s->aligned + s->offset * elemSize, d->aligned + d->offset * elemSize);
}
