//===- Pool.cpp - the buffer pool of compiled relax code ------------------===//
//
// See Pool.h.
//
//===----------------------------------------------------------------------===//

#include "Pool.h"

#include <algorithm>
#include <cstdlib>
#include <map>
#include <mutex>
#include <utility>
#include <vector>

namespace relax::pool {
namespace {
/// Blocks are rounded up to size classes (64-byte steps up to 4 KiB, then
/// eighths of a power of two), so that a block freed by one call serves a
/// request of about the same size in the next. Each block carries a header
/// right before the payload: [temporary, size class, header bytes]. Besides
/// the compiled code's temporaries, the pool holds the large result arrays
/// (`pool_empty`), which return to it when numpy frees them: a training loop
/// then reuses its gradients' memory instead of page-faulting fresh pages in
/// each step. Only temporaries count in `liveBytes`.
constexpr size_t kMinHeader = 64;
/// Freed blocks kept for reuse, at most this many bytes (the rest is freed).
constexpr size_t kMaxCachedBytes = size_t(2) << 30;

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
  size_t cls = sizeClass(size);
  {
    std::lock_guard<std::mutex> lock(mutex);
    auto it = freeBlocks.find({cls, header});
    if (it != freeBlocks.end() && !it->second.empty()) {
      void *block = it->second.back();
      it->second.pop_back();
      cachedBytes -= cls;
      static_cast<size_t *>(block)[-3] = temporary;
      if (temporary)
        addLive(cls);
      return block;
    }
  }
  size_t total = header + cls;
  total = (total + header - 1) / header * header;
  char *raw = static_cast<char *>(std::aligned_alloc(header, total));
  if (!raw)
    return nullptr;
  char *payload = raw + header;
  reinterpret_cast<size_t *>(payload)[-1] = header;
  reinterpret_cast<size_t *>(payload)[-2] = cls;
  reinterpret_cast<size_t *>(payload)[-3] = temporary;
  if (temporary) {
    std::lock_guard<std::mutex> lock(mutex);
    addLive(cls);
  }
  return payload;
}

void release(void *block) {
  if (!block)
    return;
  size_t header = static_cast<size_t *>(block)[-1];
  size_t cls = static_cast<size_t *>(block)[-2];
  bool temporary = static_cast<size_t *>(block)[-3];
  {
    std::lock_guard<std::mutex> lock(mutex);
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
      std::free(static_cast<char *>(block) - static_cast<size_t *>(block)[-1]);
  freeBlocks.clear();
  cachedBytes = 0;
}


Stats stats(bool resetPeak) {
  std::lock_guard<std::mutex> lock(mutex);
  Stats result{liveBytes, peakLiveBytes, cachedBytes};
  if (resetPeak)
    peakLiveBytes = liveBytes;
  return result;
}

} // namespace relax::pool
