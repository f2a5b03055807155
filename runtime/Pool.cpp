//===- Pool.cpp - the buffer pool of compiled relax code ------------------===//
//
// See Pool.h.
//
//===----------------------------------------------------------------------===//

#include "Pool.h"

#include <algorithm>
#include <csetjmp>
#include <cstdio>
#include <cstdlib>
#include <dlfcn.h>
#include <map>
#include <mutex>
#include <utility>
#include <vector>

namespace relax::pool {
namespace {
/// Blocks are rounded up to size classes (64-byte steps up to 4 KiB, then
/// eighths of a power of two), so that a block freed by one call serves a
/// request of about the same size in the next. Each block carries a header
/// right before the payload (`Header`). Besides
/// the compiled code's temporaries, the pool holds the large result arrays
/// (`pool_empty`), which return to it when numpy frees them: a training loop
/// then reuses its gradients' memory instead of page-faulting fresh pages in
/// each step. Only temporaries count in `liveBytes`.
constexpr size_t kMinHeader = 64;
/// Freed blocks kept for reuse, at most this many bytes (the rest is freed).
constexpr size_t kMaxCachedBytes = size_t(2) << 30;

/// A guarded call in progress on a thread (`guardedCall`): where a failed
/// allocation of its compiled code jumps to, and the temporaries the call
/// allocated on this thread and has not released (a list through their
/// headers), which a failed call releases.
struct Frame {
  sigjmp_buf target;
  void *blocks = nullptr;
  Frame *previous = nullptr;
  CallFailure failure;
};
thread_local Frame *currentFrame = nullptr;

/// The words right before a block's payload (the payload starts `header`
/// bytes into the raw allocation, at least 64: room for these).
struct Header {
  /// The guarded call's list of temporaries this block is on (owner null: none).
  void *next;
  void *prev;
  Frame *owner;
  size_t temporary;
  size_t cls;
  size_t header;
};
static_assert(sizeof(Header) <= kMinHeader, "the header must fit the smallest header bytes");

Header &headerOf(void *block) { return static_cast<Header *>(block)[-1]; }

std::mutex mutex;
/// Free blocks by (size class, header bytes): a block serves only requests
/// whose alignment its header (a multiple of the alignment) satisfied.
std::map<std::pair<size_t, size_t>, std::vector<void *>> freeBlocks;
size_t cachedBytes = 0;
/// Bytes (size classes) of the blocks handed out and not yet freed, and their
/// high-water mark since the last `resetPeak`: the compiled code's peak of
/// temporaries (its results are the caller's buffers, not the pool's).
size_t liveBytes = 0;
size_t peakLiveBytes = 0;

void addLive(size_t cls) {
  liveBytes += cls;
  peakLiveBytes = std::max(peakLiveBytes, liveBytes);
}

/// Puts `block` on `frame`'s list (under `mutex`).
void link(void *block, Frame *frame) {
  Header &h = headerOf(block);
  h.owner = frame;
  h.prev = nullptr;
  h.next = frame->blocks;
  if (frame->blocks)
    headerOf(frame->blocks).prev = block;
  frame->blocks = block;
}

/// Takes `block` off its guarded call's list, if on one (under `mutex`).
void unlink(void *block) {
  Header &h = headerOf(block);
  if (!h.owner)
    return;
  if (h.prev)
    headerOf(h.prev).next = h.next;
  else
    h.owner->blocks = h.next;
  if (h.next)
    headerOf(h.next).prev = h.prev;
  h.owner = nullptr;
}

size_t sizeClass(size_t n) {
  if (n <= 4096)
    return (std::max<size_t>(n, 1) + 63) & ~size_t(63);
  size_t power = size_t(1) << (63 - __builtin_clzll(n));
  size_t step = power / 8;
  return (n + step - 1) / step * step;
}

} // namespace

void *allocate(size_t alignment, size_t size, bool temporary) {
  size_t header = std::max(kMinHeader, alignment);
  if (header % alignment != 0 || (alignment & (alignment - 1)) != 0)
    return nullptr;
  if (size > SIZE_MAX / 4)
    return nullptr;
  size_t cls = sizeClass(size);
  // Temporaries allocated during a guarded call on this thread go on its list.
  Frame *frame = temporary ? currentFrame : nullptr;
  {
    std::lock_guard<std::mutex> lock(mutex);
    auto it = freeBlocks.find({cls, header});
    if (it != freeBlocks.end() && !it->second.empty()) {
      void *block = it->second.back();
      it->second.pop_back();
      cachedBytes -= cls;
      headerOf(block).temporary = temporary;
      if (temporary)
        addLive(cls);
      if (frame)
        link(block, frame);
      return block;
    }
  }
  size_t total = header + cls;
  total = (total + header - 1) / header * header;
  char *raw = static_cast<char *>(std::aligned_alloc(header, total));
  if (!raw) {
    // The cached blocks of other sizes may be what stands in the way.
    trim();
    raw = static_cast<char *>(std::aligned_alloc(header, total));
    if (!raw)
      return nullptr;
  }
  void *payload = raw + header;
  Header &h = headerOf(payload);
  h.header = header;
  h.cls = cls;
  h.temporary = temporary;
  h.owner = nullptr;
  if (temporary) {
    std::lock_guard<std::mutex> lock(mutex);
    addLive(cls);
    if (frame)
      link(payload, frame);
  }
  return payload;
}

void release(void *block) {
  if (!block)
    return;
  size_t header = headerOf(block).header;
  size_t cls = headerOf(block).cls;
  bool temporary = headerOf(block).temporary;
  {
    std::lock_guard<std::mutex> lock(mutex);
    unlink(block);
    if (temporary)
      liveBytes -= cls;
    if (cachedBytes + cls <= kMaxCachedBytes) {
      freeBlocks[{cls, header}].push_back(block);
      cachedBytes += cls;
      return;
    }
  }
  std::free(static_cast<char *>(block) - header);
}

void trim() {
  std::lock_guard<std::mutex> lock(mutex);
  for (auto &[key, blocks] : freeBlocks)
    for (void *block : blocks)
      std::free(static_cast<char *>(block) - headerOf(block).header);
  freeBlocks.clear();
  cachedBytes = 0;
}

namespace {

/// Whether this thread runs inside an OpenMP parallel region (of libomp,
/// when the process has loaded it: code compiled with num_threads > 1): a
/// jump out of one would leave the region's other threads waiting for it.
bool inParallelRegion() {
  auto level = reinterpret_cast<int (*)()>(dlsym(RTLD_DEFAULT, "omp_get_level"));
  return level && level() > 0;
}

/// Runs `entry(args)` with `frame` as this thread's jump target; false when
/// an allocation failed (jumped back here). `frame` is the caller's object,
/// so nothing local to the function that calls sigsetjmp changes after it.
__attribute__((noinline)) bool runIn(Frame *frame, void (*entry)(void **), void **args) {
  if (sigsetjmp(frame->target, 0) != 0)
    return false;
  entry(args);
  return true;
}

} // namespace

bool guardedCall(void (*entry)(void **), void **args, CallFailure &failure) {
  Frame frame;
  frame.previous = currentFrame;
  currentFrame = &frame;
  bool completed = runIn(&frame, entry, args);
  currentFrame = frame.previous;
  if (completed) {
    // Temporaries the call did not free (a leak: `live` shows them) outlive it.
    std::lock_guard<std::mutex> lock(mutex);
    while (frame.blocks)
      unlink(frame.blocks);
    return true;
  }
  // The call stopped at the failed allocation: nothing of it runs further,
  // so the temporaries it holds go back to the pool.
  failure = frame.failure;
  while (frame.blocks)
    release(frame.blocks);
  return false;
}

void *allocateForCode(size_t alignment, size_t size) {
  if (void *block = allocate(alignment, size))
    return block;
  Frame *frame = currentFrame;
  bool parallel = inParallelRegion();
  if (frame && !parallel) {
    frame->failure = CallFailure{size, alignment};
    siglongjmp(frame->target, 1);
  }
  std::fprintf(stderr,
               "relax_mlir: compiled code could not allocate a temporary of %zu bytes "
               "(alignment %zu): out of memory %s, where the call cannot be stopped with a "
               "MemoryError; aborting\n",
               size, alignment,
               parallel ? "inside an OpenMP parallel region (num_threads > 1)"
                        : "on a thread without a relax_mlir call in progress (an OpenMP "
                          "worker thread, or compiled code called directly)");
  std::fflush(stderr);
  std::abort();
}

Stats stats(bool resetPeak) {
  std::lock_guard<std::mutex> lock(mutex);
  Stats result{liveBytes, peakLiveBytes, cachedBytes};
  if (resetPeak)
    peakLiveBytes = liveBytes;
  return result;
}

} // namespace relax::pool
