"""DLPack in pure Python (ctypes): reading another library's tensor from its
`__dlpack__` capsule, and handing a `DeviceArray` out as one, so that CuPy,
PyTorch and JAX device arrays pass to and from compiled functions without
copies (`jax.dlpack.from_dlpack(a)`, `torch.from_dlpack(a)`, `cupy.from_dlpack(a)`).

The layout is DLPack's stable ABI (v0.8, unversioned `DLManagedTensor`, the
capsule named "dltensor"), which every one of those libraries produces and
consumes.
"""

from __future__ import annotations

import ctypes
from typing import Any

import numpy as np

# DLDeviceType values.
CPU, CUDA = 1, 2

_CAPSULE = b"dltensor"
_USED_CAPSULE = b"used_dltensor"


class _Device(ctypes.Structure):
    _fields_ = [("device_type", ctypes.c_int32), ("device_id", ctypes.c_int32)]


class _DataType(ctypes.Structure):
    _fields_ = [("code", ctypes.c_uint8), ("bits", ctypes.c_uint8), ("lanes", ctypes.c_uint16)]


class _Tensor(ctypes.Structure):
    _fields_ = [("data", ctypes.c_void_p), ("device", _Device), ("ndim", ctypes.c_int32),
                ("dtype", _DataType), ("shape", ctypes.POINTER(ctypes.c_int64)),
                ("strides", ctypes.POINTER(ctypes.c_int64)), ("byte_offset", ctypes.c_uint64)]


class _ManagedTensor(ctypes.Structure):
    pass


_Deleter = ctypes.CFUNCTYPE(None, ctypes.POINTER(_ManagedTensor))
_ManagedTensor._fields_ = [("dl_tensor", _Tensor), ("manager_ctx", ctypes.c_void_p),
                           ("deleter", _Deleter)]

# DLDataTypeCode: 0 int, 1 uint, 2 float, 6 bool.
_CODES = {"i": 0, "u": 1, "f": 2, "b": 6}
_KINDS = {v: k for k, v in _CODES.items()}

_api = ctypes.pythonapi
_api.PyCapsule_IsValid.argtypes = [ctypes.py_object, ctypes.c_char_p]
_api.PyCapsule_IsValid.restype = ctypes.c_int
_api.PyCapsule_GetPointer.argtypes = [ctypes.py_object, ctypes.c_char_p]
_api.PyCapsule_GetPointer.restype = ctypes.c_void_p
_api.PyCapsule_SetName.argtypes = [ctypes.py_object, ctypes.c_char_p]
_api.PyCapsule_SetName.restype = ctypes.c_int
_Destructor = ctypes.CFUNCTYPE(None, ctypes.c_void_p)
_api.PyCapsule_New.argtypes = [ctypes.c_void_p, ctypes.c_char_p, _Destructor]
_api.PyCapsule_New.restype = ctypes.py_object


class Borrowed:
    """Another library's tensor taken from its DLPack capsule: `pointer`,
    `shape`, `strides` (elements, None when C-contiguous), `dtype` and
    `device` ((type, id)); the producer's memory stays alive until this is
    freed (its deleter runs then)."""

    def __init__(self, value: Any, stream: Any = None) -> None:
        capsule = value.__dlpack__() if stream is None else value.__dlpack__(stream=stream)
        if not _api.PyCapsule_IsValid(capsule, _CAPSULE):
            raise TypeError("__dlpack__ did not return an unused 'dltensor' capsule")
        address = _api.PyCapsule_GetPointer(capsule, _CAPSULE)
        # The capsule is consumed: its producer no longer frees the tensor.
        _api.PyCapsule_SetName(capsule, _USED_CAPSULE)
        self._managed: Any = ctypes.cast(address, ctypes.POINTER(_ManagedTensor))
        tensor = self._managed.contents.dl_tensor
        kind = _KINDS.get(tensor.dtype.code)
        if kind is None or tensor.dtype.lanes != 1:
            self.release()
            raise TypeError(f"DLPack tensor of unsupported type (code {tensor.dtype.code}, "
                            f"{tensor.dtype.bits} bits, {tensor.dtype.lanes} lanes)")
        self.dtype = (np.dtype(np.bool_) if kind == "b" else
                      np.dtype(f"{kind}{tensor.dtype.bits // 8}"))
        self.shape = tuple(tensor.shape[i] for i in range(tensor.ndim))
        self.strides = (tuple(tensor.strides[i] for i in range(tensor.ndim))
                        if tensor.strides else None)
        self.pointer = (tensor.data or 0) + tensor.byte_offset
        self.device = (tensor.device.device_type, tensor.device.device_id)

    def release(self) -> None:
        managed, self._managed = self._managed, None
        if managed and managed.contents.deleter:
            managed.contents.deleter(managed)

    def __del__(self) -> None:
        if getattr(self, "_managed", None):
            self.release()


# Tensors handed out and not yet deleted by their consumer: address -> state.
_LIVE: dict[int, Any] = {}


@_Deleter
def _delete(managed: Any) -> None:
    _LIVE.pop(ctypes.addressof(managed.contents), None)


@_Destructor
def _capsule_destructor(capsule: int) -> None:
    """A capsule nobody consumed (still named "dltensor") deletes its tensor."""
    obj = ctypes.cast(capsule, ctypes.py_object)
    if _api.PyCapsule_IsValid(obj, _CAPSULE):
        address = _api.PyCapsule_GetPointer(obj, _CAPSULE)
        _LIVE.pop(address, None)


def export(owner: Any, pointer: int, shape: tuple[int, ...], dtype: np.dtype,
           device: tuple[int, int]) -> Any:
    """A "dltensor" capsule of the C-contiguous buffer at `pointer`; `owner`
    (the array) is kept alive until the consumer deletes the tensor."""
    managed = _ManagedTensor()
    sizes = (ctypes.c_int64 * max(len(shape), 1))(*shape)
    tensor = managed.dl_tensor
    tensor.data = pointer
    tensor.device = _Device(*device)
    tensor.ndim = len(shape)
    kind = "b" if dtype == np.bool_ else dtype.kind
    tensor.dtype = _DataType(_CODES[kind], dtype.itemsize * 8, 1)
    tensor.shape = ctypes.cast(sizes, ctypes.POINTER(ctypes.c_int64))
    tensor.strides = None  # C-contiguous
    tensor.byte_offset = 0
    managed.deleter = _delete
    address = ctypes.addressof(managed)
    _LIVE[address] = (managed, sizes, owner)
    return _api.PyCapsule_New(address, _CAPSULE, _capsule_destructor)
