"""The persistent compilation cache: compiled CPU executables on disk.

An entry is the shared library `Executable.export` writes (built for this
machine's CPU), named by the SHA-256 of everything that decides its code:

- the module to compile, in MLIR's generic form without locations (so that
  the same program traced from other lines hits);
- the lowering pipeline (`_stages.pipeline` for the opt level) and the
  options (target "cpu", one thread);
- the compiler: the package version and the identity (size, modification
  time) of the compiled extension and of the runtime archive exports link;
- the CPU: its model name and feature flags.

A miss compiles as before but writes the code as an entry (object file and
link, instead of the JIT) and loads it; a hit loads the library with no
compilation at all. Both route the library's temporaries to the process's
own buffer pool (`relaxUseHostAllocator`) and call it through the same fast
path as JIT code, so `memory_stats`, MemoryError and the call overhead are as
without the cache. Writes are atomic (written beside the entry and renamed);
a damaged entry (its checksum trailer fails), one for other functions, or one
the CPU cannot run is removed and rebuilt, never run. Entries are touched
when loaded (a marker file beside each), and the least recently used are
removed past
`config.compilation_cache_max_size`. A cache that cannot be used (no C++
compiler to link, an unwritable directory) is turned off for the process
with one log line; compiling goes on with the JIT.

Not cached: target "cuda" and "cuda-emulator", num_threads > 1 (its code
calls libomp, which exports do not link), and compiles with dump_ir.
"""

from __future__ import annotations

import functools
import hashlib
import os

from . import ir
from ._config import config, log_compile

FORMAT = 1
SUFFIX = ".so"


def directory() -> str:
    """The cache's directory (not created)."""
    if config.compilation_cache_dir is not None:
        return str(config.compilation_cache_dir)
    env = os.environ.get("RELAX_MLIR_CACHE_DIR")
    if env:
        return os.path.abspath(os.path.expanduser(env))
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return os.path.join(base, "relax_mlir")


# Why the cache is off for this process (set once, on the first failure).
_disabled: str | None = None


def is_disabled() -> bool:
    """Whether the cache was turned off for this process (see disable)."""
    return _disabled is not None


def disable(reason: str) -> None:
    global _disabled
    if _disabled is None:
        _disabled = reason
        log_compile(f"compilation cache off for this process: {reason}")


@functools.cache
def _compiler_identity() -> bytes:
    from ._export import RUNTIME_ARCHIVE
    from ._mlir_libs import _site_initialize_0

    parts = [str(__package__), _version()]
    for path in (_site_initialize_0.__file__, RUNTIME_ARCHIVE):
        try:
            st = os.stat(path)
            parts.append(f"{os.path.basename(path)} {st.st_size} {st.st_mtime_ns}")
        except OSError:
            parts.append(f"{os.path.basename(path)} missing")
    return "\n".join(parts).encode()


def _version() -> str:
    """The installed distribution's version, read from the name of its
    dist-info folder beside the package (importlib.metadata would scan every
    path entry: 20 ms of a first compile), or "build-tree"."""
    site = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    prefix, suffix = "relax_mlir-", ".dist-info"
    try:
        names = sorted(os.listdir(site))
    except OSError:
        names = []
    for name in names:
        if name.startswith(prefix) and name.endswith(suffix):
            return name[len(prefix):-len(suffix)]
    return "build-tree"


@functools.cache
def _cpu_identity() -> bytes:
    """The first processor's model name and flags from /proc/cpuinfo."""
    model, flags = "", ""
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                key, _, value = line.partition(":")
                key = key.strip()
                if key == "model name" and not model:
                    model = value.strip()
                elif key == "flags" and not flags:
                    flags = " ".join(sorted(value.split()))
                if model and flags:
                    break
    except OSError:
        pass
    return f"{model}\n{flags}".encode()


def key(module: ir.Module, opt_level: int) -> str:
    """The entry name of `module` compiled for this CPU at `opt_level`."""
    from ._stages import pipeline

    h = hashlib.sha256()
    h.update(f"relax_mlir compilation cache {FORMAT}\n".encode())
    h.update(_compiler_identity())
    h.update(b"\n")
    h.update(_cpu_identity())
    h.update(f"\ncpu opt_level={opt_level} num_threads=1\n".encode())
    h.update(pipeline(opt_level, 1).encode())
    h.update(b"\n")
    h.update(module.operation.get_asm(print_generic_op_form=True,
                                      enable_debug_info=False).encode())
    return h.hexdigest()


def entry(module: ir.Module, opt_level: int) -> str | None:
    """The path of the cache entry for `module`, or None when the cache is off."""
    if not config.enable_compilation_cache or _disabled is not None:
        return None
    where = directory()
    try:
        os.makedirs(where, exist_ok=True)
    except OSError as e:
        disable(f"cannot create {where}: {e.strerror or e}")
        return None
    if not os.access(where, os.W_OK):
        disable(f"{where} is not writable")
        return None
    return os.path.join(where, key(module, opt_level) + SUFFIX)


USED = ".used"


def touch(path: str) -> None:
    """Marks an entry as just used (eviction removes the least recently used):
    the modification time of a marker beside it, `<entry>.used` (the entry's
    own stays, as the loader keys loaded libraries by it)."""
    try:
        with open(path + USED, "a"):
            pass
        os.utime(path + USED)
    except OSError:
        pass


def remove(path: str) -> None:
    for name in (path, path + USED):
        try:
            os.unlink(name)
        except OSError:
            pass


def evict(keep: str | None = None) -> list[str]:
    """Removes the least recently used entries (by the time of their last
    load, `touch`, else of their writing) until the cache holds at most
    `config.compilation_cache_max_size` bytes; `keep` (the entry just
    written) stays. Returns the removed paths."""
    limit = config.compilation_cache_max_size
    if limit is None:
        return []
    where = directory()
    found = []
    try:
        with os.scandir(where) as it:
            for e in it:
                if e.name.endswith(SUFFIX) and e.is_file(follow_symlinks=False):
                    try:
                        st = e.stat(follow_symlinks=False)
                    except OSError:
                        continue
                    try:
                        used = os.stat(e.path + USED).st_mtime_ns
                    except OSError:
                        used = 0
                    found.append((max(st.st_mtime_ns, used), st.st_size, e.path))
    except OSError:
        return []
    total = sum(size for _, size, _ in found)
    removed = []
    for _, size, path in sorted(found):
        if total <= limit:
            break
        if path == keep:
            continue
        remove(path)
        removed.append(path)
        total -= size
    return removed
