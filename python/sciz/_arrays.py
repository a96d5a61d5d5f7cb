"""Where an array's memory is, and on which CUDA stream work on it must be ordered.

Host arrays are anything numpy can view without copying (numpy arrays, bytes, buffers, CPU
DLPack producers). Device arrays come through DLPack (``__dlpack__``, asked for with our
consumer stream so the producer orders its pending work before ours) or through
``__cuda_array_interface__`` (whose producer stream we wait on with an event). CuPy arrays
and PyTorch tensors run on their library's current stream, and outputs on a device are
allocated by that library, on that stream.
"""

from __future__ import annotations

import dataclasses
import sys
import warnings
from typing import Any

import numpy as np

from . import _core
from ._errors import InvalidArgument, NoDevice

# DLPack device types (dlpack.h).
_DL_CPU, _DL_CUDA, _DL_CUDA_HOST, _DL_CUDA_MANAGED = 1, 2, 3, 13
# Copies of non-contiguous or byte-swapped input at or above this size warn: below it the copy
# costs less than the compression, above it the caller may want to know.
LARGE_COPY_BYTES = 64 << 20
_FLOATS = ("float32", "float64")


class CopyWarning(UserWarning):
    """sciz had to copy a large input (non-contiguous or byte-swapped) before compressing it."""


@dataclasses.dataclass
class Place:
    """An array as the core sees it."""

    ptr: int
    device: int            # CUDA device, -1 for host memory
    dtype: str             # "float32", "float64", "uint8" or another name (refused where it matters)
    shape: tuple[int, ...]
    itemsize: int
    stream: int = 0        # CUDA stream to order work on; 0: the legacy default stream
    framework: str | None = None  # "cupy" or "torch": who allocates outputs beside it
    keep: Any = None       # whatever holds the memory alive for the call
    writable: bool = True

    @property
    def on_device(self) -> bool:
        return self.device >= 0

    @property
    def nbytes(self) -> int:
        n = 1
        for d in self.shape:
            n *= d
        return n * self.itemsize

    def where(self) -> str:
        return f"cuda:{self.device}" if self.on_device else "host"


def _module(name: str) -> Any:
    """A library the caller has imported already (an array of it exists, so it is imported)."""
    return sys.modules.get(name)


def is_torch(obj: Any) -> bool:
    torch = _module("torch")
    return torch is not None and isinstance(obj, torch.Tensor)


def is_cupy(obj: Any) -> bool:
    cupy = _module("cupy")
    return cupy is not None and isinstance(obj, cupy.ndarray)


def current_stream(framework: str | None, device: int) -> int:
    """The stream `framework` queues work on for `device` now (0: the legacy default)."""
    if framework == "torch":
        torch = _module("torch")
        return int(torch.cuda.current_stream(device).cuda_stream)
    if framework == "cupy":
        cupy = _module("cupy")
        with cupy.cuda.Device(device):
            return int(cupy.cuda.get_current_stream().ptr)
    return 0


def _warn_copy(nbytes: int, why: str) -> None:
    if nbytes >= LARGE_COPY_BYTES:
        warnings.warn(f"sciz copied a {nbytes / 2**20:.0f} MiB array that is {why}; pass a C-contiguous, "
                      "native-endian array to avoid the copy", CopyWarning, stacklevel=4)


def _c_contiguous(shape: tuple[int, ...], strides: tuple[int, ...] | None, itemsize: int) -> bool:
    """strides in elements when itemsize is 1, else in bytes; axes of length 1 may have any stride."""
    if strides is None:
        return True
    expect = itemsize
    for d, s in zip(reversed(shape), reversed(strides)):
        if d != 1 and s != expect:
            return False
        expect *= d
    return True


def _no_copy(why: str) -> InvalidArgument:
    return InvalidArgument(f"out= is {why}: sciz decodes into C-contiguous, native-endian arrays only")


def _host(obj: Any, copy_ok: bool) -> Place:
    a = obj if isinstance(obj, np.ndarray) else np.asarray(obj)
    if a.dtype.kind == "f" and not a.dtype.isnative:
        if not copy_ok:
            raise _no_copy("byte-swapped")
        _warn_copy(a.nbytes, "byte-swapped")
        a = a.astype(a.dtype.newbyteorder("="))
    if not a.flags.c_contiguous:
        if not copy_ok:
            raise _no_copy("not C-contiguous")
        _warn_copy(a.nbytes, "not C-contiguous")
        a = np.ascontiguousarray(a)
    return Place(a.ctypes.data, -1, a.dtype.name, tuple(a.shape), a.dtype.itemsize, keep=a,
                 writable=a.flags.writeable)


def _device_copy(obj: Any, framework: str | None) -> Any:
    """A C-contiguous copy made by the array's own library, on its current stream."""
    if framework == "torch":
        return obj.contiguous()
    if framework == "cupy":
        cupy = _module("cupy")
        with obj.device:
            return cupy.ascontiguousarray(obj)
    raise InvalidArgument("a non-contiguous device array from a library sciz cannot copy with: pass a C-contiguous one")


def _from_dlpack(obj: Any, framework: str | None, stream: int) -> Place | None:
    """None when the producer will not hand the array over for our stream (a __dlpack__ that
    predates the stream argument, or CuPy, which refuses the per-thread default stream): the
    caller falls back to __cuda_array_interface__ then."""
    # DLPack names the legacy default stream 1 (0 is reserved); the producer makes its pending
    # work on the array visible to that stream before handing it over.
    try:
        capsule = obj.__dlpack__(stream=1 if stream == 0 else stream)
    except (TypeError, ValueError, BufferError):
        return None
    ptr, shape, strides, dtype, itemsize, dev_type, dev_id, owner = _core.dlpack_view(capsule)
    if dev_type not in (_DL_CUDA, _DL_CUDA_MANAGED):
        raise InvalidArgument(f"__dlpack__ of a CUDA array returned memory of DLPack device type {dev_type}")
    shape, strides = tuple(shape), tuple(strides)
    if not _c_contiguous(shape, strides, 1):
        raise InvalidArgument("the device array is not C-contiguous")
    return Place(ptr, dev_id, dtype, shape, itemsize, stream=stream, framework=framework, keep=(obj, owner))


def _device_array(obj: Any, framework: str | None, stream: int, copy_ok: bool) -> Place:
    """A CUDA array through DLPack, else through __cuda_array_interface__."""
    p = _from_dlpack(obj, framework, stream)
    if p is not None:
        return p
    if hasattr(obj, "__cuda_array_interface__"):
        return _from_cai(obj, stream, framework, copy_ok)
    raise InvalidArgument(f"{type(obj).__name__}.__dlpack__ will not export for a consumer stream, so sciz cannot "
                          "order its reads after the producer's work; pass a CuPy array or a PyTorch tensor")


def _from_cai(obj: Any, stream: int, framework: str | None, copy_ok: bool) -> Place:
    cai = obj.__cuda_array_interface__
    if cai.get("mask") is not None:
        raise InvalidArgument("masked arrays (__cuda_array_interface__ mask) are not supported")
    ptr, readonly = cai["data"]
    shape = tuple(int(d) for d in cai["shape"])
    dtype = np.dtype(cai["typestr"])
    if dtype.kind == "f" and not dtype.isnative:
        raise InvalidArgument(f"byte-swapped device array ({cai['typestr']}): sciz takes native-endian floats")
    strides = cai.get("strides")
    if not _c_contiguous(shape, None if strides is None else tuple(strides), dtype.itemsize):
        if framework is None or not copy_ok:
            raise InvalidArgument("the device array is not C-contiguous")
        return as_place(_device_copy(obj, framework))
    device = _core.pointer_device(ptr) if ptr else -1
    if device < 0:
        raise InvalidArgument("__cuda_array_interface__ points at memory that is not on a CUDA device")
    # Version 3: the producer's stream, which must be waited on before the data is read. None
    # means the producer has already synchronised; 0 is not allowed by the protocol.
    producer = cai.get("stream") if cai.get("version", 0) >= 3 else None
    if producer is not None:
        if producer == 0:
            raise InvalidArgument("__cuda_array_interface__ names stream 0, which the protocol forbids")
        if producer != stream and not (producer == 1 and stream == 0):
            _core.stream_wait(device, stream, producer)
    return Place(ptr, device, dtype.name, shape, dtype.itemsize, stream=stream, framework=framework, keep=obj,
                 writable=not readonly)


def as_place(obj: Any, copy_ok: bool = True) -> Place:
    """The Place of any array sciz accepts, copying only what must be (see _warn_copy); with
    copy_ok=False (an output) refusing what would need a copy."""
    if isinstance(obj, np.ndarray):
        return _host(obj, copy_ok)
    if is_torch(obj):
        if obj.device.type == "cuda":
            t = obj.detach()
            if not t.is_contiguous():
                if not copy_ok:
                    raise _no_copy("not contiguous")
                _warn_copy(t.numel() * t.element_size(), "not C-contiguous")
                t = t.contiguous()
            dev = t.device.index if t.device.index is not None else _module("torch").cuda.current_device()
            return _device_array(t, "torch", current_stream("torch", dev), copy_ok)
        if obj.device.type != "cpu":
            raise InvalidArgument(f"a tensor on device {obj.device}: sciz takes CPU and CUDA tensors")
        return _host(obj.detach().numpy(), copy_ok)
    if is_cupy(obj):
        dev = obj.device.id
        if not obj.flags.c_contiguous:
            if not copy_ok:
                raise _no_copy("not C-contiguous")
            _warn_copy(obj.nbytes, "not C-contiguous")
            obj = _device_copy(obj, "cupy")
        return _device_array(obj, "cupy", current_stream("cupy", dev), copy_ok)
    if hasattr(obj, "__dlpack_device__"):
        dev_type, _ = obj.__dlpack_device__()
        if dev_type in (_DL_CUDA, _DL_CUDA_MANAGED):
            return _device_array(obj, None, 0, copy_ok)
        if dev_type in (_DL_CPU, _DL_CUDA_HOST):
            return _host(np.from_dlpack(obj), copy_ok)
        raise InvalidArgument(f"an array on DLPack device type {dev_type}: sciz takes host and CUDA arrays")
    if hasattr(obj, "__cuda_array_interface__"):
        return _from_cai(obj, 0, None, copy_ok)
    return _host(obj, copy_ok)


def stream_bytes(data: Any) -> Place:
    """A compressed stream: bytes-like on the host, or a contiguous device array of any dtype."""
    if data is None or isinstance(data, str):
        raise TypeError(f"a sciz stream is bytes-like (or a device array of bytes), not {type(data).__name__}")
    if isinstance(data, (bytes, bytearray, memoryview)):
        a = np.frombuffer(data, dtype=np.uint8)
        return Place(a.ctypes.data, -1, "uint8", (a.size,), 1, keep=(data, a))
    p = as_place(data)
    if not p.on_device:
        if p.keep.dtype.hasobject:
            raise TypeError("a sciz stream is bytes-like (or a device array of bytes), not an array of objects")
        a = p.keep.reshape(-1).view(np.uint8)
        return Place(a.ctypes.data, -1, "uint8", (a.size,), 1, keep=a)
    if p.itemsize <= 0:
        raise InvalidArgument(f"a device stream must be an array of bytes, got {p.dtype}")
    return dataclasses.replace(p, dtype="uint8", shape=(p.nbytes,), itemsize=1)


def empty(framework: str | None, device: int, shape: tuple[int, ...], dtype: str) -> Any:
    """An uninitialised array on `device`, from the caller's library when known, else from
    CuPy or PyTorch, whichever is installed."""
    if framework is None:
        for name in ("cupy", "torch"):
            try:
                __import__(name)
            except ImportError:
                continue
            framework = name
            break
        else:
            raise NoDevice("the output belongs on a GPU, but neither CuPy nor PyTorch is installed to hold it; "
                           "pass out= a device array")
    if framework == "cupy":
        cupy = _module("cupy")
        with cupy.cuda.Device(device):
            return cupy.empty(shape, dtype=dtype)
    torch = _module("torch")
    return torch.empty(shape, dtype=getattr(torch, dtype), device=torch.device("cuda", device))
