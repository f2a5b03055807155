//===- Runtime.cpp - the call boundary of compiled relax functions --------===//
//
// `_relax_runtime.Signature` calls a JIT-compiled function through its packed
// C interface (`void fn(void **args)`, each argument a pointer to a pointer to
// a memref descriptor). Arguments arrive as Python objects exposing the buffer
// protocol (numpy arrays and scalars); each is checked against the parameter's
// element type and static shape and its descriptor is written into one buffer
// per call, so a call creates no Python objects of its own (a ctypes class
// per argument per call leaked before, and cost ~100 us per argument).
//
// A buffer that does not match (wrong element type, byte order, shape,
// non-contiguous, not a buffer at all) raises `ArgumentMismatch(index)`: the
// Python side then explains the problem, or converts the argument (a
// non-contiguous or byte-swapped array) and calls again.
//
// The GIL is released while the compiled code runs: two threads may call one
// function at once (each call has its own descriptors and results).
//
// The buffers the compiled code allocates for its temporaries come from a
// caching pool (`_mlir_memref_to_llvm_{alloc,aligned_alloc,free}`, which the
// schedule's lowering calls instead of malloc/free): a training step frees
// and allocates the same sizes on every call, and fresh large allocations
// cost a page fault per 4 KiB each time. When one cannot be had (out of
// memory, an address-space limit) the call stops there and raises
// MemoryError: `relax::pool::guardedCall` is the jump target the allocator
// returns to, and it releases the temporaries the call held.
//
//===----------------------------------------------------------------------===//

#include <nanobind/nanobind.h>
#include <nanobind/ndarray.h>
#include <nanobind/stl/tuple.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include <Python.h>

#include "Pool.h"

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>
#include <vector>

namespace nb = nanobind;

namespace {

/// One tensor leaf of a parameter or result: its buffer-protocol element kind
/// and static shape.
struct Leaf {
  /// 'f' float, 'i' signed integer, 'b' bool, 'u' raw bits (bf16, which numpy
  /// exports no buffer format for, passed as uint16).
  char kind;
  /// Bytes per element.
  Py_ssize_t itemsize;
  std::vector<int64_t> shape;
};

/// True when the buffer format string `format` (struct-module syntax, as numpy
/// exports it) denotes `leaf`'s element type in native byte order.
bool formatMatches(const char *format, Py_ssize_t itemsize, const Leaf &leaf) {
  if (!format || itemsize != leaf.itemsize)
    return false;
  // Native or explicit little-endian order (this runtime targets the host).
  if (*format == '@' || *format == '=' || *format == '<')
    ++format;
  if (format[0] == '\0' || format[1] != '\0')
    return false;
  char c = format[0];
  switch (leaf.kind) {
  case 'f':
    return c == 'e' || c == 'f' || c == 'd';
  case 'i':
    return c == 'b' || c == 'h' || c == 'i' || c == 'l' || c == 'q';
  case 'b':
    return c == '?';
  case 'u':
    return c == 'B' || c == 'H' || c == 'I' || c == 'L' || c == 'Q';
  }
  return false;
}

/// Raised when argument `index` cannot be passed as it is.
nb::object argumentMismatch;

} // namespace

namespace {

/// Inputs of at least this many bytes that are not 64-byte aligned (numpy
/// aligns to 16) are copied into an aligned buffer for the call: the compiled
/// code reads them with whole-vector loads, and a load that straddles two
/// cache lines made a 128x1024x1024 matmul 1.5x slower.
constexpr Py_ssize_t kAlignCopyBytes = 64 * 1024;
constexpr uintptr_t kVectorAlignment = 64;

class Signature {
public:
  Signature(uintptr_t function, std::vector<std::tuple<char, Py_ssize_t, std::vector<int64_t>>> in,
            std::vector<std::tuple<char, Py_ssize_t, std::vector<int64_t>>> out,
            std::vector<bool> align, std::string name, bool descriptorArgs)
      : function(reinterpret_cast<void (*)(void **)>(function)), align(std::move(align)),
        name(std::move(name)), descriptorArgs(descriptorArgs) {
    this->align.resize(in.size(), false);
    for (auto &[k, s, shape] : in)
      inputs.push_back(Leaf{k, s, shape});
    for (auto &[k, s, shape] : out)
      outputs.push_back(Leaf{k, s, shape});
    size_t words = 0;
    for (const Leaf &leaf : inputs)
      words += 3 + 2 * leaf.shape.size();
    for (const Leaf &leaf : outputs)
      words += 3 + 2 * leaf.shape.size();
    descriptorWords = words;
  }

  /// Calls the function on `args` (one object per input leaf) writing into
  /// `results` (one writable C-contiguous array per output leaf, allocated by
  /// the caller with the right dtype and shape).
  void call(nb::handle args, nb::handle results) {
    PyObject *argSeq = args.ptr(), *resSeq = results.ptr();
    if (!PyTuple_Check(argSeq) && !PyList_Check(argSeq))
      throw nb::type_error("arguments must be a tuple or a list");
    if (!PyList_Check(resSeq))
      throw nb::type_error("results must be a list");
    Py_ssize_t numArgs = PySequence_Fast_GET_SIZE(argSeq);
    if (numArgs != static_cast<Py_ssize_t>(inputs.size()) ||
        PyList_GET_SIZE(resSeq) != static_cast<Py_ssize_t>(outputs.size()))
      throw nb::value_error("wrong number of arguments or results");

    size_t numLeaves = inputs.size() + outputs.size();
    std::vector<Py_buffer> views(numLeaves);
    size_t acquired = 0;
    // Releases every acquired view, also when a check throws.
    struct Release {
      std::vector<Py_buffer> &views;
      size_t &count;
      ~Release() {
        for (size_t i = 0; i < count; ++i)
          PyBuffer_Release(&views[i]);
      }
    } release{views, acquired};

    // Aligned copies of misaligned large inputs, freed after the call.
    struct Copies {
      std::vector<void *> blocks;
      ~Copies() {
        for (void *block : blocks)
          relax::pool::release(block);
      }
    } copies;

    std::vector<int64_t> words(descriptorWords);
    std::vector<void *> descriptorPointers(numLeaves);
    std::vector<void *> packed(numLeaves);
    size_t pos = 0;
    for (size_t i = 0; i < numLeaves; ++i) {
      bool isInput = i < inputs.size();
      const Leaf &leaf = isInput ? inputs[i] : outputs[i - inputs.size()];
      PyObject *obj = isInput ? PySequence_Fast_GET_ITEM(argSeq, i)
                              : PyList_GET_ITEM(resSeq, i - inputs.size());
      int flags = PyBUF_C_CONTIGUOUS | PyBUF_FORMAT | (isInput ? 0 : PyBUF_WRITABLE);
      Py_buffer &view = views[i];
      if (PyObject_GetBuffer(obj, &view, flags) != 0) {
        PyErr_Clear();
        throwMismatch(i, isInput);
      }
      ++acquired;
      bool ok = formatMatches(view.format, view.itemsize, leaf) &&
                view.ndim == static_cast<int>(leaf.shape.size());
      for (int d = 0; ok && d < view.ndim; ++d)
        ok = view.shape[d] == leaf.shape[d];
      if (!ok)
        throwMismatch(i, isInput);
      // {allocated, aligned, offset, sizes[rank], strides[rank]}, row-major.
      int64_t *desc = words.data() + pos;
      void *data = view.buf;
      if (isInput && align[i] && view.len >= kAlignCopyBytes &&
          reinterpret_cast<uintptr_t>(data) % kVectorAlignment != 0) {
        if (void *block = relax::pool::allocate(kVectorAlignment, view.len)) {
          std::memcpy(block, data, view.len);
          copies.blocks.push_back(block);
          data = block;
        }
      }
      std::memcpy(&desc[0], &data, sizeof(void *));
      std::memcpy(&desc[1], &data, sizeof(void *));
      desc[2] = 0;
      size_t rank = leaf.shape.size();
      int64_t stride = 1;
      for (size_t d = rank; d-- > 0;) {
        desc[3 + d] = leaf.shape[d];
        desc[3 + rank + d] = stride;
        stride *= leaf.shape[d];
      }
      descriptorPointers[i] = desc;
      packed[i] = descriptorArgs ? static_cast<void *>(desc) : &descriptorPointers[i];
      pos += 3 + 2 * rank;
    }
    relax::pool::CallFailure failure;
    bool completed;
    {
      nb::gil_scoped_release unlocked;
      completed = relax::pool::guardedCall(function, packed.data(), failure);
    }
    if (!completed) {
      char message[512];
      std::snprintf(message, sizeof message,
                    "out of memory: the compiled function '%s' could not allocate %.2f GiB "
                    "(%zu bytes) for a temporary; the call stopped there and its temporaries "
                    "were released",
                    name.c_str(), failure.bytes / double(size_t(1) << 30), failure.bytes);
      PyErr_SetString(PyExc_MemoryError, message);
      throw nb::python_error();
    }
  }

private:
  [[noreturn]] static void throwMismatch(size_t index, bool isInput) {
    PyErr_SetObject(argumentMismatch.ptr(),
                    nb::make_tuple(isInput ? "argument" : "result", index).ptr());
    throw nb::python_error();
  }

  void (*function)(void **);
  std::vector<Leaf> inputs, outputs;
  /// Per input leaf: a misaligned large buffer is copied aligned for the call
  /// (the inputs that contractions read).
  std::vector<bool> align;
  size_t descriptorWords = 0;
  /// The function's name, for messages.
  std::string name;
  /// The packed entry point takes the descriptors' addresses (an exported
  /// library's `relax_packed_<name>`), not pointers to them (the JIT's).
  bool descriptorArgs = false;
};

} // namespace

extern "C" void *relaxPoolAlloc(uint64_t size) { return relax::pool::allocateForCode(16, size); }
extern "C" void *relaxPoolAlignedAlloc(uint64_t alignment, uint64_t size) {
  return relax::pool::allocateForCode(alignment, size);
}
extern "C" void relaxPoolFree(void *block) { relax::pool::release(block); }
// runtime/Debug.cpp (in relax_pool).
extern "C" void relaxDebug(uint64_t spec, int64_t index, uint64_t data);
extern "C" void relaxSetDebugHook(void (*printer)(uint64_t, int64_t, uint64_t));

NB_MODULE(_relax_runtime, m) {
  m.doc() = "The call boundary of compiled relax functions (numpy buffers to memref "
            "descriptors).";
  argumentMismatch = nb::borrow(PyErr_NewExceptionWithDoc(
      "relax_mlir._mlir_libs._relax_runtime.ArgumentMismatch",
      "An argument (or result buffer) does not match its parameter: args are "
      "(kind, index).",
      PyExc_TypeError, nullptr));
  m.attr("ArgumentMismatch") = argumentMismatch;
  nb::class_<Signature>(m, "Signature",
                        "A compiled function's packed entry point and its parameter and "
                        "result leaves.")
      .def(nb::init<uintptr_t, std::vector<std::tuple<char, Py_ssize_t, std::vector<int64_t>>>,
                    std::vector<std::tuple<char, Py_ssize_t, std::vector<int64_t>>>,
                    std::vector<bool>, std::string, bool>(),
           nb::arg("function"), nb::arg("inputs"), nb::arg("outputs"),
           nb::arg("align") = std::vector<bool>(), nb::arg("name") = "",
           nb::arg("descriptor_args") = false,
           "`function` is the address of the packed C interface; `inputs` and "
           "`outputs` list (kind, itemsize, shape) per tensor leaf, kind one of "
           "'f' (float), 'i' (signed integer), 'b' (bool), 'u' (raw bits, as "
           "unsigned integers); `align` flags the "
           "input leaves copied 64-byte aligned for the call when they are not "
           "(and hold at least 64 KiB); `name` names the function in errors; "
           "`descriptor_args`: the entry point takes the descriptors' addresses "
           "(an exported library's relax_packed_<name>) instead of pointers to them.")
      .def("__call__", &Signature::call, nb::arg("args"), nb::arg("results"),
           "Calls the function; raises ArgumentMismatch(kind, index) for a buffer "
           "that does not match its leaf, MemoryError when a temporary of the "
           "compiled code cannot be allocated (the process and the pool stay "
           "intact).");
  m.def(
      "pool_symbols",
      [] {
        return std::vector<std::tuple<std::string, uintptr_t>>{
            {"_mlir_memref_to_llvm_alloc", reinterpret_cast<uintptr_t>(&relaxPoolAlloc)},
            {"_mlir_memref_to_llvm_aligned_alloc",
             reinterpret_cast<uintptr_t>(&relaxPoolAlignedAlloc)},
            {"_mlir_memref_to_llvm_free", reinterpret_cast<uintptr_t>(&relaxPoolFree)},
            {"relaxDebug", reinterpret_cast<uintptr_t>(&relaxDebug)}};
      },
      "(name, address) of the runtime functions compiled code calls (the buffer "
      "pool's allocation functions, debug.print's entry point), for the JIT.");
  m.def(
      "set_debug_hook", [](uintptr_t printer) {
        relaxSetDebugHook(reinterpret_cast<void (*)(uint64_t, int64_t, uint64_t)>(printer));
      },
      "Installs debug.print's printer (a C function pointer) for JIT-compiled code.");
  m.def(
      "pool_cached_bytes",
      [] { return relax::pool::stats().cached; },
      "Bytes of freed buffers the pool keeps for reuse.");
  m.def(
      "pool_stats",
      [](bool resetPeak) {
        relax::pool::Stats stats = relax::pool::stats(resetPeak);
        return std::make_tuple(stats.live, stats.peak, stats.cached);
      },
      nb::arg("reset_peak") = false,
      "(live, peak, cached) bytes, read at once: the compiled code's temporaries "
      "in use (0 between calls unless a call leaked), their high-water mark "
      "since the last reset, and freed buffers kept for reuse; `reset_peak=True` "
      "restarts the mark from the bytes in use now.");
  m.def(
      "pool_empty",
      [](size_t nbytes) {
        void *block = relax::pool::allocate(64, nbytes, /*temporary=*/false);
        if (!block) {
          char message[256];
          std::snprintf(message, sizeof message,
                        "out of memory: cannot allocate %.2f GiB (%zu bytes) for a result "
                        "array",
                        nbytes / double(size_t(1) << 30), nbytes);
          PyErr_SetString(PyExc_MemoryError, message);
          throw nb::python_error();
        }
        nb::capsule owner(block, [](void *p) noexcept { relax::pool::release(p); });
        size_t shape[1] = {nbytes};
        return nb::ndarray<nb::numpy, uint8_t, nb::ndim<1>>(block, 1, shape, owner);
      },
      nb::arg("nbytes"),
      "An uninitialized, 64-byte aligned uint8 numpy array of `nbytes` from the "
      "pool; its memory returns to the pool when the array is freed.");
  m.def("pool_trim", &relax::pool::trim, "Frees every buffer the pool keeps for reuse.");
}
