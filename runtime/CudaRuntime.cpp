//===- CudaRuntime.cpp - the mgpu* entry points over the CUDA driver API --===//
//
// The host code that MLIR's gpu-to-llvm lowering emits calls `mgpu*`
// functions (module load, kernel launch, streams, memory). Debian ships no
// library with them, so this is the project's own: the CUDA driver API loaded
// at run time with dlopen("libcuda.so.1"), so that it builds, loads and
// reports "no CUDA driver found" on machines without one. No CUDA header is
// needed: the few driver types and entry points used are declared here, with
// the driver API's stable signatures (the `_v2` entry points where the driver
// exports versioned ones).
//
// Errors: the entry points return no status (the lowering's ABI), so the
// first failing driver call's message is kept; `relaxCudaTakeError` returns
// and clears it, and the Python side raises it after each call.
//
//===----------------------------------------------------------------------===//

#include <dlfcn.h>

#include <cstdint>
#include <cstdio>
#include <cstring>
#include <mutex>
#include <unordered_set>
#include <vector>
#include <string>

namespace {
using CUresult = int;
using CUdevice = int;
using CUcontext = void *;
using CUmodule = void *;
using CUfunction = void *;
using CUstream = void *;
using CUevent = void *;
using CUdeviceptr = uint64_t;
using CUmemoryPool = void *;
constexpr CUresult CUDA_SUCCESS = 0;
constexpr int CU_DEVICE_ATTRIBUTE_MEMORY_POOLS_SUPPORTED = 115;
constexpr int CU_MEMPOOL_ATTR_RELEASE_THRESHOLD = 4;
constexpr int CU_JIT_OPTIMIZATION_LEVEL = 7;

/// The driver entry points, resolved once.
struct Driver {
  CUresult (*cuInit)(unsigned);
  CUresult (*cuDriverGetVersion)(int *);
  CUresult (*cuDeviceGetCount)(int *);
  CUresult (*cuDeviceGet)(CUdevice *, int);
  CUresult (*cuDeviceGetName)(char *, int, CUdevice);
  CUresult (*cuDevicePrimaryCtxRetain)(CUcontext *, CUdevice);
  CUresult (*cuCtxSetCurrent)(CUcontext);
  CUresult (*cuCtxSynchronize)();
  CUresult (*cuGetErrorString)(CUresult, const char **);
  CUresult (*cuModuleLoadData)(CUmodule *, const void *);
  CUresult (*cuModuleLoadDataEx)(CUmodule *, const void *, unsigned, int *, void **);
  CUresult (*cuModuleUnload)(CUmodule);
  CUresult (*cuModuleGetFunction)(CUfunction *, CUmodule, const char *);
  CUresult (*cuLaunchKernel)(CUfunction, unsigned, unsigned, unsigned, unsigned, unsigned,
                             unsigned, unsigned, CUstream, void **, void **);
  CUresult (*cuStreamCreate)(CUstream *, unsigned);
  CUresult (*cuStreamDestroy)(CUstream);
  CUresult (*cuStreamSynchronize)(CUstream);
  CUresult (*cuStreamWaitEvent)(CUstream, CUevent, unsigned);
  CUresult (*cuEventCreate)(CUevent *, unsigned);
  CUresult (*cuEventDestroy)(CUevent);
  CUresult (*cuEventRecord)(CUevent, CUstream);
  CUresult (*cuEventSynchronize)(CUevent);
  CUresult (*cuMemAlloc)(CUdeviceptr *, size_t);
  CUresult (*cuMemAllocManaged)(CUdeviceptr *, size_t, unsigned);
  CUresult (*cuMemFree)(CUdeviceptr);
  CUresult (*cuMemcpyAsync)(CUdeviceptr, CUdeviceptr, size_t, CUstream);
  CUresult (*cuMemcpyHtoD)(CUdeviceptr, const void *, size_t);
  CUresult (*cuMemcpyDtoH)(void *, CUdeviceptr, size_t);
  CUresult (*cuMemsetD32Async)(CUdeviceptr, unsigned, size_t, CUstream);
  CUresult (*cuMemsetD16Async)(CUdeviceptr, unsigned short, size_t, CUstream);
  CUresult (*cuMemHostRegister)(void *, size_t, unsigned);
  CUresult (*cuMemHostUnregister)(void *);
  // The stream-ordered allocator (CUDA 11.2+), used when the device has
  // memory pools: optional.
  CUresult (*cuDeviceGetAttribute)(int *, int, CUdevice);
  CUresult (*cuDeviceGetDefaultMemPool)(CUmemoryPool *, CUdevice);
  CUresult (*cuMemPoolSetAttribute)(CUmemoryPool, int, void *);
  CUresult (*cuMemAllocAsync)(CUdeviceptr *, size_t, CUstream);
  CUresult (*cuMemFreeAsync)(CUdeviceptr, CUstream);

  bool ready = false;
  /// Temporaries come from the device's memory pool in stream order
  /// (cuMemAllocAsync/cuMemFreeAsync), cached across calls; otherwise
  /// cuMemAlloc/cuMemFree (cuMemFree waits for the whole device).
  bool streamOrdered = false;
  std::string failure; // why the driver cannot be used
  CUcontext context = nullptr;
};

std::mutex errorMutex;
std::string lastError;

void setError(const std::string &message) {
  std::lock_guard<std::mutex> lock(errorMutex);
  if (lastError.empty())
    lastError = message;
}

template <typename T> bool resolve(void *lib, const char *name, T &fn, std::string &missing) {
  fn = reinterpret_cast<T>(dlsym(lib, name));
  if (!fn)
    missing += missing.empty() ? name : std::string(", ") + name;
  return fn != nullptr;
}

Driver &driver() {
  static Driver d = [] {
    Driver d{};
    void *lib = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!lib) {
      const char *why = dlerror();
      d.failure = std::string("no CUDA driver found: libcuda.so.1 could not be loaded (") +
                  (why ? why : "unknown reason") +
                  "); target='cuda' needs an NVIDIA GPU with its driver installed";
      return d;
    }
    std::string missing;
    resolve(lib, "cuInit", d.cuInit, missing);
    resolve(lib, "cuDriverGetVersion", d.cuDriverGetVersion, missing);
    resolve(lib, "cuDeviceGetCount", d.cuDeviceGetCount, missing);
    resolve(lib, "cuDeviceGet", d.cuDeviceGet, missing);
    resolve(lib, "cuDeviceGetName", d.cuDeviceGetName, missing);
    resolve(lib, "cuDevicePrimaryCtxRetain", d.cuDevicePrimaryCtxRetain, missing);
    resolve(lib, "cuCtxSetCurrent", d.cuCtxSetCurrent, missing);
    resolve(lib, "cuCtxSynchronize", d.cuCtxSynchronize, missing);
    resolve(lib, "cuGetErrorString", d.cuGetErrorString, missing);
    resolve(lib, "cuModuleLoadData", d.cuModuleLoadData, missing);
    resolve(lib, "cuModuleLoadDataEx", d.cuModuleLoadDataEx, missing);
    resolve(lib, "cuModuleUnload", d.cuModuleUnload, missing);
    resolve(lib, "cuModuleGetFunction", d.cuModuleGetFunction, missing);
    resolve(lib, "cuLaunchKernel", d.cuLaunchKernel, missing);
    resolve(lib, "cuStreamCreate", d.cuStreamCreate, missing);
    resolve(lib, "cuStreamDestroy_v2", d.cuStreamDestroy, missing);
    resolve(lib, "cuStreamSynchronize", d.cuStreamSynchronize, missing);
    resolve(lib, "cuStreamWaitEvent", d.cuStreamWaitEvent, missing);
    resolve(lib, "cuEventCreate", d.cuEventCreate, missing);
    resolve(lib, "cuEventDestroy_v2", d.cuEventDestroy, missing);
    resolve(lib, "cuEventRecord", d.cuEventRecord, missing);
    resolve(lib, "cuEventSynchronize", d.cuEventSynchronize, missing);
    resolve(lib, "cuMemAlloc_v2", d.cuMemAlloc, missing);
    resolve(lib, "cuMemAllocManaged", d.cuMemAllocManaged, missing);
    resolve(lib, "cuMemFree_v2", d.cuMemFree, missing);
    resolve(lib, "cuMemcpyAsync", d.cuMemcpyAsync, missing);
    resolve(lib, "cuMemcpyHtoD_v2", d.cuMemcpyHtoD, missing);
    resolve(lib, "cuMemcpyDtoH_v2", d.cuMemcpyDtoH, missing);
    resolve(lib, "cuMemsetD32Async", d.cuMemsetD32Async, missing);
    resolve(lib, "cuMemsetD16Async", d.cuMemsetD16Async, missing);
    resolve(lib, "cuMemHostRegister_v2", d.cuMemHostRegister, missing);
    resolve(lib, "cuMemHostUnregister", d.cuMemHostUnregister, missing);
    if (!missing.empty()) {
      d.failure = "the CUDA driver (libcuda.so.1) lacks " + missing + "; update the driver";
      return d;
    }
    int count = 0;
    CUdevice device = 0;
    CUresult rc = d.cuInit(0);
    if (rc == CUDA_SUCCESS)
      rc = d.cuDeviceGetCount(&count);
    if (rc == CUDA_SUCCESS && count == 0) {
      d.failure = "no CUDA device found: the driver is installed but reports no GPU";
      return d;
    }
    if (rc == CUDA_SUCCESS)
      rc = d.cuDeviceGet(&device, 0);
    if (rc == CUDA_SUCCESS)
      rc = d.cuDevicePrimaryCtxRetain(&d.context, device);
    if (rc == CUDA_SUCCESS)
      rc = d.cuCtxSetCurrent(d.context);
    if (rc != CUDA_SUCCESS) {
      const char *text = nullptr;
      d.cuGetErrorString(rc, &text);
      d.failure = std::string("the CUDA driver failed to initialize: ") +
                  (text ? text : "error " + std::to_string(rc));
      return d;
    }
    d.ready = true;
    // The stream-ordered allocator, when the driver and device have it; the
    // pool keeps what is freed (no release threshold) so that a training
    // loop's temporaries are reused, not returned to the driver each call.
    std::string optional;
    resolve(lib, "cuDeviceGetAttribute", d.cuDeviceGetAttribute, optional);
    resolve(lib, "cuDeviceGetDefaultMemPool", d.cuDeviceGetDefaultMemPool, optional);
    resolve(lib, "cuMemPoolSetAttribute", d.cuMemPoolSetAttribute, optional);
    resolve(lib, "cuMemAllocAsync", d.cuMemAllocAsync, optional);
    resolve(lib, "cuMemFreeAsync", d.cuMemFreeAsync, optional);
    int pools = 0;
    CUmemoryPool pool = nullptr;
    uint64_t keepAll = UINT64_MAX;
    d.streamOrdered =
        optional.empty() &&
        d.cuDeviceGetAttribute(&pools, CU_DEVICE_ATTRIBUTE_MEMORY_POOLS_SUPPORTED, device) ==
            CUDA_SUCCESS &&
        pools && d.cuDeviceGetDefaultMemPool(&pool, device) == CUDA_SUCCESS &&
        d.cuMemPoolSetAttribute(pool, CU_MEMPOOL_ATTR_RELEASE_THRESHOLD, &keepAll) ==
            CUDA_SUCCESS;
    return d;
  }();
  return d;
}

/// Runs a driver call when the driver is usable; records the first failure.
/// Each call makes the primary context current on the calling thread.
template <typename F> bool call(const char *what, F &&fn) {
  Driver &d = driver();
  if (!d.ready) {
    setError(d.failure);
    return false;
  }
  d.cuCtxSetCurrent(d.context);
  CUresult rc = fn(d);
  if (rc == CUDA_SUCCESS)
    return true;
  const char *text = nullptr;
  d.cuGetErrorString(rc, &text);
  setError(std::string(what) + " failed: " + (text ? text : "error " + std::to_string(rc)));
  return false;
}
} // namespace

#define RELAX_CUDA_EXPORT extern "C" __attribute__((visibility("default")))

//===----------------------------------------------------------------------===//
// The project's own queries
//===----------------------------------------------------------------------===//

/// 0 when the driver and a device are usable; otherwise 1 and why, in `buffer`.
RELAX_CUDA_EXPORT int relaxCudaStatus(char *buffer, size_t size) {
  Driver &d = driver();
  std::string text = d.ready ? "ok" : d.failure;
  if (buffer && size) {
    std::strncpy(buffer, text.c_str(), size - 1);
    buffer[size - 1] = '\0';
  }
  return d.ready ? 0 : 1;
}

/// The first error since the last call (copied into `buffer`), then cleared;
/// returns whether there was one.
RELAX_CUDA_EXPORT int relaxCudaTakeError(char *buffer, size_t size) {
  std::lock_guard<std::mutex> lock(errorMutex);
  if (lastError.empty())
    return 0;
  if (buffer && size) {
    std::strncpy(buffer, lastError.c_str(), size - 1);
    buffer[size - 1] = '\0';
  }
  lastError.clear();
  return 1;
}

/// Host <-> device copies for the call boundary (synchronous).
RELAX_CUDA_EXPORT int relaxCudaCopyToDevice(void *dst, const void *src, size_t bytes) {
  return call("copy to the device", [&](Driver &d) {
           return d.cuMemcpyHtoD(reinterpret_cast<CUdeviceptr>(dst), src, bytes);
         })
             ? 0
             : 1;
}

RELAX_CUDA_EXPORT int relaxCudaCopyToHost(void *dst, const void *src, size_t bytes) {
  return call("copy to the host", [&](Driver &d) {
           return d.cuMemcpyDtoH(dst, reinterpret_cast<CUdeviceptr>(src), bytes);
         })
             ? 0
             : 1;
}

/// Waits for all work in the (primary) context, other libraries' streams too:
/// their arrays may be passed in while still being written.
RELAX_CUDA_EXPORT int relaxCudaSynchronize() {
  return call("synchronize the device", [&](Driver &d) { return d.cuCtxSynchronize(); }) ? 0
                                                                                           : 1;
}

//===----------------------------------------------------------------------===//
// The mgpu* ABI of MLIR's GPU-to-LLVM lowering
//===----------------------------------------------------------------------===//

RELAX_CUDA_EXPORT void *mgpuModuleLoad(void *data, size_t /*gpuBlobSize*/) {
  CUmodule module = nullptr;
  call("loading the GPU module", [&](Driver &d) { return d.cuModuleLoadData(&module, data); });
  return module;
}

RELAX_CUDA_EXPORT void *mgpuModuleLoadJIT(void *data, int optLevel) {
  CUmodule module = nullptr;
  int options[] = {CU_JIT_OPTIMIZATION_LEVEL};
  void *values[] = {reinterpret_cast<void *>(static_cast<intptr_t>(optLevel))};
  call("JIT-compiling the GPU module's PTX", [&](Driver &d) {
    return d.cuModuleLoadDataEx(&module, data, 1, options, values);
  });
  return module;
}

RELAX_CUDA_EXPORT void mgpuModuleUnload(void *module) {
  if (module)
    call("unloading the GPU module", [&](Driver &d) { return d.cuModuleUnload(module); });
}

RELAX_CUDA_EXPORT void *mgpuModuleGetFunction(void *module, const char *name) {
  CUfunction function = nullptr;
  call("finding a kernel", [&](Driver &d) {
    return d.cuModuleGetFunction(&function, module, name);
  });
  return function;
}

RELAX_CUDA_EXPORT void mgpuLaunchKernel(void *function, intptr_t gridX, intptr_t gridY,
                                        intptr_t gridZ, intptr_t blockX, intptr_t blockY,
                                        intptr_t blockZ, int32_t smem, void *stream,
                                        void **params, void **extra, size_t /*paramsCount*/) {
  if (!function)
    return; // loading the module or finding the kernel failed: already reported
  call("launching a kernel", [&](Driver &d) {
    return d.cuLaunchKernel(function, gridX, gridY, gridZ, blockX, blockY, blockZ, smem, stream,
                            params, extra);
  });
}

namespace {
/// Streams the host code gave back, kept for the calling thread's next
/// call: a function creates a stream at entry and destroys it after waiting
/// for it, so a kept stream is idle (two driver calls saved per call).
/// They live as long as the thread (the driver frees them with the context).
thread_local std::vector<CUstream> idleStreams;
} // namespace

RELAX_CUDA_EXPORT void *mgpuStreamCreate() {
  if (!idleStreams.empty()) {
    CUstream stream = idleStreams.back();
    idleStreams.pop_back();
    return stream;
  }
  CUstream stream = nullptr;
  call("creating a stream", [&](Driver &d) { return d.cuStreamCreate(&stream, 0); });
  return stream;
}

RELAX_CUDA_EXPORT void mgpuStreamDestroy(void *stream) {
  if (stream)
    idleStreams.push_back(stream);
}

RELAX_CUDA_EXPORT void mgpuStreamSynchronize(void *stream) {
  call("running the kernels", [&](Driver &d) { return d.cuStreamSynchronize(stream); });
}

RELAX_CUDA_EXPORT void mgpuStreamWaitEvent(void *stream, void *event) {
  call("waiting for an event", [&](Driver &d) { return d.cuStreamWaitEvent(stream, event, 0); });
}

RELAX_CUDA_EXPORT void *mgpuEventCreate() {
  CUevent event = nullptr;
  // CU_EVENT_DISABLE_TIMING
  call("creating an event", [&](Driver &d) { return d.cuEventCreate(&event, 2); });
  return event;
}

RELAX_CUDA_EXPORT void mgpuEventDestroy(void *event) {
  call("destroying an event", [&](Driver &d) { return d.cuEventDestroy(event); });
}

RELAX_CUDA_EXPORT void mgpuEventSynchronize(void *event) {
  call("waiting for an event", [&](Driver &d) { return d.cuEventSynchronize(event); });
}

RELAX_CUDA_EXPORT void mgpuEventRecord(void *event, void *stream) {
  call("recording an event", [&](Driver &d) { return d.cuEventRecord(event, stream); });
}

namespace {
/// Managed (host-shared) allocations: freed with cuMemFree, not to the pool.
std::mutex managedMutex;
std::unordered_set<CUdeviceptr> managed;
} // namespace

/// Device memory for `stream`'s work (null: the legacy default stream, which
/// every other stream of the context waits for): from the pool in stream
/// order when the device has one.
RELAX_CUDA_EXPORT void *mgpuMemAlloc(uint64_t bytes, void *stream, bool isHostShared) {
  CUdeviceptr ptr = 0;
  if (bytes == 0)
    return nullptr;
  bool ok = call("allocating device memory", [&](Driver &d) {
    if (isHostShared) // CU_MEM_ATTACH_GLOBAL
      return d.cuMemAllocManaged(&ptr, bytes, 1);
    return d.streamOrdered ? d.cuMemAllocAsync(&ptr, bytes, stream) : d.cuMemAlloc(&ptr, bytes);
  });
  if (ok && isHostShared) {
    std::lock_guard<std::mutex> lock(managedMutex);
    managed.insert(ptr);
  }
  return ok ? reinterpret_cast<void *>(ptr) : nullptr;
}

/// Frees `ptr` once `stream`'s earlier work is done (back to the pool).
RELAX_CUDA_EXPORT void mgpuMemFree(void *ptr, void *stream) {
  if (!ptr)
    return;
  auto address = reinterpret_cast<CUdeviceptr>(ptr);
  bool isManaged;
  {
    std::lock_guard<std::mutex> lock(managedMutex);
    isManaged = managed.erase(address) != 0;
  }
  call("freeing device memory", [&](Driver &d) {
    return d.streamOrdered && !isManaged ? d.cuMemFreeAsync(address, stream)
                                         : d.cuMemFree(address);
  });
}

RELAX_CUDA_EXPORT void mgpuMemcpy(void *dst, void *src, size_t bytes, void *stream) {
  call("copying device memory", [&](Driver &d) {
    return d.cuMemcpyAsync(reinterpret_cast<CUdeviceptr>(dst),
                           reinterpret_cast<CUdeviceptr>(src), bytes, stream);
  });
}

RELAX_CUDA_EXPORT void mgpuMemset32(void *dst, unsigned value, size_t count, void *stream) {
  call("setting device memory", [&](Driver &d) {
    return d.cuMemsetD32Async(reinterpret_cast<CUdeviceptr>(dst), value, count, stream);
  });
}

RELAX_CUDA_EXPORT void mgpuMemset16(void *dst, unsigned short value, size_t count,
                                    void *stream) {
  call("setting device memory", [&](Driver &d) {
    return d.cuMemsetD16Async(reinterpret_cast<CUdeviceptr>(dst), value, count, stream);
  });
}

RELAX_CUDA_EXPORT void mgpuSetDefaultDevice(int32_t device) {
  if (device != 0)
    setError("only device 0 is supported");
}
