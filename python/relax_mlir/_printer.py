"""debug.print's printer, in pure Python (numpy and ctypes; part of the
copied loader): compiled code calls the runtime's `relaxDebug(spec, index,
data)` for each value (the address of a contiguous copy) and once with
index -1; the runtime forwards to `HOOK`, which copies the values, rebuilds
the arguments' pytrees from the JSON at `spec` and prints the formatted line
to sys.stdout, in order."""

from __future__ import annotations

import ctypes
import json
import math
import sys
import threading
from typing import Any

import numpy as np

from ._boundary import NUMPY_DTYPES
from ._pytree import rebuild_json

_LOCAL = threading.local()  # the print being assembled, per thread: (spec, values)


def _printer(spec_address: int, index: int, data: int) -> None:
    try:
        if index <= 0:  # a print's first call (or its only one): its spec, read once
            if index == 0 or getattr(_LOCAL, "current", None) is None:
                _LOCAL.current = (json.loads(ctypes.string_at(spec_address).decode()), [])
        spec, values = _LOCAL.current
        if index >= 0:
            shape, element = spec["leaves"][index]
            dtype = np.dtype(NUMPY_DTYPES[element])
            size = math.prod(shape) * dtype.itemsize
            raw = ctypes.string_at(data, size) if size else b""
            values.append(np.frombuffer(raw, dtype).reshape(shape).copy())
            return
        _LOCAL.current = None
        leaves = iter(values)
        args = rebuild_json(spec["spec"]["args"], leaves)
        kwargs = rebuild_json(spec["spec"]["kwargs"], leaves)
        print(spec["spec"]["format"].format(*args, **kwargs), file=sys.stdout, flush=True)
    except Exception as e:  # an exception cannot cross the compiled code
        _LOCAL.current = None
        print(f"relax_mlir.debug.print failed: {type(e).__name__}: {e}", file=sys.stderr)


HOOK_TYPE = ctypes.CFUNCTYPE(None, ctypes.c_uint64, ctypes.c_int64, ctypes.c_uint64)
HOOK = HOOK_TYPE(_printer)
HOOK_ADDRESS: int = ctypes.cast(HOOK, ctypes.c_void_p).value or 0


def install(library: Any) -> None:
    """Installs the printer in a loaded library (a ctypes.CDLL) that has the
    runtime's `relaxSetDebugHook`."""
    setter = getattr(library, "relaxSetDebugHook", None)
    if setter is not None:
        setter.argtypes = [ctypes.c_void_p]
        setter.restype = None
        setter(HOOK_ADDRESS)
