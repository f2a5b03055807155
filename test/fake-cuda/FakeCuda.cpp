//===- FakeCuda.cpp - a stand-in libcuda.so.1 for testing the runtime -----===//
//
// The CUDA driver API entry points that runtime/CudaRuntime.cpp resolves,
// over host memory: device pointers are malloc'ed host addresses, copies are
// memcpy, modules and kernels are handles, and a launch only checks and
// counts (no kernel runs). Loaded in place of the real driver (a test puts
// this directory first on LD_LIBRARY_PATH in a child process), it lets the
// host side of target="cuda" run without a GPU: module loading, launches,
// the stream-ordered allocator and its fallback, errors.
//
// fakeCudaCount(name) reads the counters below. Environment:
//   FAKE_CUDA_NO_POOLS=1   the device does not support memory pools
//   FAKE_CUDA_FAIL_ALLOC=1 every allocation fails (out of memory)
//
//===----------------------------------------------------------------------===//

#include <atomic>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>
#include <set>
#include <string>

namespace {
using CUresult = int;
constexpr CUresult OK = 0, INVALID_VALUE = 1, OUT_OF_MEMORY = 2, INVALID_HANDLE = 400,
                   NOT_SUPPORTED = 801;
constexpr int MEMORY_POOLS_SUPPORTED = 115, RELEASE_THRESHOLD = 4;

std::mutex mutex;
std::map<std::string, int64_t> counts;
std::set<uint64_t> live;      // allocated and not freed
std::set<uint64_t> pooled;    // of those, from the stream-ordered allocator
uint64_t releaseThreshold = 0;
int poolHandle, contextHandle, moduleHandle, functionHandle;

void count(const char *name, int64_t by = 1) {
  std::lock_guard<std::mutex> lock(mutex);
  counts[name] += by;
}

bool env(const char *name) {
  const char *v = std::getenv(name);
  return v && *v && std::strcmp(v, "0") != 0;
}

CUresult allocate(uint64_t *ptr, size_t bytes, bool fromPool) {
  if (env("FAKE_CUDA_FAIL_ALLOC"))
    return OUT_OF_MEMORY;
  void *p = std::malloc(bytes ? bytes : 1);
  if (!p)
    return OUT_OF_MEMORY;
  *ptr = reinterpret_cast<uint64_t>(p);
  std::lock_guard<std::mutex> lock(mutex);
  live.insert(*ptr);
  if (fromPool)
    pooled.insert(*ptr);
  return OK;
}

CUresult release(uint64_t ptr, bool toPool) {
  std::lock_guard<std::mutex> lock(mutex);
  if (!live.count(ptr) || pooled.count(ptr) != static_cast<size_t>(toPool)) {
    counts["bad_free"] += 1; // unknown, double, or through the wrong API
    return INVALID_VALUE;
  }
  live.erase(ptr);
  pooled.erase(ptr);
  std::free(reinterpret_cast<void *>(ptr));
  return OK;
}
} // namespace

#define FAKE extern "C" __attribute__((visibility("default")))

FAKE int64_t fakeCudaCount(const char *name) {
  std::lock_guard<std::mutex> lock(mutex);
  std::string key = name;
  if (key == "live")
    return static_cast<int64_t>(live.size());
  if (key == "release_threshold")
    return static_cast<int64_t>(releaseThreshold);
  auto it = counts.find(key);
  return it == counts.end() ? 0 : it->second;
}

FAKE CUresult cuInit(unsigned) { return OK; }
FAKE CUresult cuDriverGetVersion(int *v) { *v = 13000; return OK; }
FAKE CUresult cuDeviceGetCount(int *n) { *n = 1; return OK; }
FAKE CUresult cuDeviceGet(int *d, int ordinal) { *d = ordinal; return ordinal ? INVALID_VALUE : OK; }
FAKE CUresult cuDeviceGetName(char *name, int size, int) {
  std::strncpy(name, "Fake GPU", size);
  return OK;
}
FAKE CUresult cuDeviceGetAttribute(int *value, int attribute, int) {
  *value = attribute == MEMORY_POOLS_SUPPORTED ? !env("FAKE_CUDA_NO_POOLS") : 0;
  return OK;
}
FAKE CUresult cuDevicePrimaryCtxRetain(void **ctx, int) { *ctx = &contextHandle; return OK; }
FAKE CUresult cuCtxSetCurrent(void *) { return OK; }
FAKE CUresult cuCtxSynchronize() { count("synchronize"); return OK; }
FAKE CUresult cuGetErrorString(CUresult rc, const char **text) {
  *text = rc == OUT_OF_MEMORY    ? "out of memory (fake)"
          : rc == INVALID_HANDLE ? "invalid resource handle (fake)"
                                 : "error (fake)";
  return OK;
}
FAKE CUresult cuModuleLoadData(void **module, const void *image) {
  count("module_load");
  *module = &moduleHandle;
  return image ? OK : INVALID_VALUE;
}
FAKE CUresult cuModuleLoadDataEx(void **module, const void *image, unsigned, int *, void **) {
  return cuModuleLoadData(module, image);
}
FAKE CUresult cuModuleUnload(void *module) {
  count("module_unload");
  return module == &moduleHandle ? OK : INVALID_HANDLE;
}
FAKE CUresult cuModuleGetFunction(void **function, void *module, const char *name) {
  if (module != &moduleHandle || !name || !*name)
    return INVALID_HANDLE; // as the driver: a module that was never loaded
  *function = &functionHandle;
  return OK;
}
FAKE CUresult cuLaunchKernel(void *function, unsigned gx, unsigned gy, unsigned gz, unsigned bx,
                             unsigned by, unsigned bz, unsigned, void *, void **params, void **) {
  if (function != &functionHandle || !gx || !gy || !gz || !bx || !by || !bz ||
      bx * by * bz > 1024 || !params)
    return INVALID_VALUE;
  count("launch");
  return OK;
}
FAKE CUresult cuStreamCreate(void **stream, unsigned) {
  count("stream_create");
  *stream = new int;
  return OK;
}
FAKE CUresult cuStreamDestroy_v2(void *stream) {
  count("stream_destroy");
  delete static_cast<int *>(stream);
  return OK;
}
FAKE CUresult cuStreamSynchronize(void *) { return OK; }
FAKE CUresult cuStreamWaitEvent(void *, void *, unsigned) { return OK; }
FAKE CUresult cuEventCreate(void **event, unsigned) { *event = new int; return OK; }
FAKE CUresult cuEventDestroy_v2(void *event) { delete static_cast<int *>(event); return OK; }
FAKE CUresult cuEventRecord(void *, void *) { return OK; }
FAKE CUresult cuEventSynchronize(void *) { return OK; }
FAKE CUresult cuMemAlloc_v2(uint64_t *ptr, size_t bytes) {
  count("alloc");
  return allocate(ptr, bytes, false);
}
FAKE CUresult cuMemAllocManaged(uint64_t *ptr, size_t bytes, unsigned) {
  count("alloc_managed");
  return allocate(ptr, bytes, false);
}
FAKE CUresult cuMemFree_v2(uint64_t ptr) {
  count("free");
  return release(ptr, false);
}
FAKE CUresult cuMemAllocAsync(uint64_t *ptr, size_t bytes, void *) {
  if (env("FAKE_CUDA_NO_POOLS"))
    return NOT_SUPPORTED;
  count("alloc_async");
  return allocate(ptr, bytes, true);
}
FAKE CUresult cuMemFreeAsync(uint64_t ptr, void *) {
  count("free_async");
  return release(ptr, true);
}
FAKE CUresult cuDeviceGetDefaultMemPool(void **pool, int) { *pool = &poolHandle; return OK; }
FAKE CUresult cuMemPoolSetAttribute(void *pool, int attribute, void *value) {
  if (pool != &poolHandle)
    return INVALID_VALUE;
  if (attribute == RELEASE_THRESHOLD)
    releaseThreshold = *static_cast<uint64_t *>(value);
  return OK;
}
FAKE CUresult cuMemcpyAsync(uint64_t dst, uint64_t src, size_t bytes, void *) {
  std::memmove(reinterpret_cast<void *>(dst), reinterpret_cast<void *>(src), bytes);
  return OK;
}
FAKE CUresult cuMemcpyHtoD_v2(uint64_t dst, const void *src, size_t bytes) {
  count("copy_to_device");
  std::memcpy(reinterpret_cast<void *>(dst), src, bytes);
  return OK;
}
FAKE CUresult cuMemcpyDtoH_v2(void *dst, uint64_t src, size_t bytes) {
  count("copy_to_host");
  std::memcpy(dst, reinterpret_cast<void *>(src), bytes);
  return OK;
}
FAKE CUresult cuMemsetD32Async(uint64_t dst, unsigned value, size_t n, void *) {
  for (size_t i = 0; i < n; ++i)
    reinterpret_cast<uint32_t *>(dst)[i] = value;
  return OK;
}
FAKE CUresult cuMemsetD16Async(uint64_t dst, unsigned short value, size_t n, void *) {
  for (size_t i = 0; i < n; ++i)
    reinterpret_cast<uint16_t *>(dst)[i] = value;
  return OK;
}
FAKE CUresult cuMemHostRegister_v2(void *, size_t, unsigned) { return OK; }
FAKE CUresult cuMemHostUnregister(void *) { return OK; }
