"""compress, decompress, info: the package's public functions."""

from __future__ import annotations

from typing import Any

import numpy as np

from . import _arrays, _core, _options
from ._errors import InvalidArgument

_MAX_DIMS = 4


def _field(array: Any) -> _arrays.Place:
    f = _arrays.as_place(array)
    if f.dtype not in ("float32", "float64"):
        raise InvalidArgument(f"sciz compresses float32 and float64 arrays; this one holds {f.dtype}")
    if not 1 <= len(f.shape) <= _MAX_DIMS:
        raise InvalidArgument(f"sciz compresses arrays of 1 to 4 dimensions; this one has {len(f.shape)} "
                              f"(shape {f.shape}): reshape it first")
    return f


def _run_device(requested: str, *places: _arrays.Place) -> str:
    """'auto' runs on the GPU when the data is already there; otherwise as asked."""
    requested = _options.device(requested)
    if requested == "auto" and any(p.on_device for p in places):
        return "cuda"
    return requested


def compress(array: Any, *, rel: float | None = None, abs: float | None = None,  # noqa: A002
             pipeline: str = "lorenzo", device: str = "auto", **options: Any) -> bytes:
    """Compresses a float32/float64 array of 1 to 4 dimensions into a sciz stream.

    Every finite value comes back within the bound; NaN and Inf come back exactly.

    Args:
        array: a numpy array (or anything numpy can view), or a CUDA array: a CuPy array, a
            PyTorch CUDA tensor, or any object with ``__dlpack__`` or
            ``__cuda_array_interface__``. A CUDA array is compressed on its GPU, on its
            library's current stream, with no copy to the host but the stream's bytes.
        rel: the bound relative to the value range: |x - x'| <= rel * (max - min) over the
            finite values. Give exactly one of rel and abs.
        abs: the absolute bound: |x - x'| <= abs.
        pipeline: one of :func:`sciz.pipelines` ("lorenzo", "delta", "szx", ...).
        device: "auto" (the GPU for CUDA arrays and, when there is one, for host arrays),
            "cpu" or "cuda". The stream is the same whichever device writes it.
        **options: radius, lossless, stages, delta_chain, szx_block (pipeline parameters), chunk_mb,
            gpu_memory, devices (see docs/PYTHON.md).

    Returns:
        The stream, which describes itself: :func:`decompress` needs nothing else.

    Raises:
        sciz.InvalidArgument: bad bound, dtype, shape, pipeline or option (a ValueError).
        sciz.NoDevice: device="cuda" without a usable GPU (a RuntimeError).
    """
    mode, eb = _options.bound(rel, abs)
    opts = _options.check(options)
    pipeline = _options.pipeline(pipeline)
    f = _field(array)
    run = _run_device(device, f)
    return _core.compress(f.ptr, f.device, f.dtype, list(f.shape), mode, eb, pipeline, run, opts, f.stream)


def compress_on_device(array: Any, *, rel: float | None = None, abs: float | None = None,  # noqa: A002
                       pipeline: str = "lorenzo", **options: Any) -> Any:
    """Like :func:`compress` for a CUDA array, but the stream stays on the GPU: a uint8 array
    of the same library on the same device. (The Zarr codec's path for GPU chunks.)"""
    mode, eb = _options.bound(rel, abs)
    opts = _options.check(options)
    pipeline = _options.pipeline(pipeline)
    f = _field(array)
    if not f.on_device:
        raise InvalidArgument("compress_on_device takes a CUDA array; use compress for host arrays")
    cap = _core.max_compressed_size(f.dtype, list(f.shape), pipeline, opts.get("chunk_mb", _core.default_chunk_mb))
    buf = _arrays.empty(f.framework, f.device, (cap,), "uint8")
    out = _arrays.as_place(buf)
    size = _core.compress_into(f.ptr, f.device, f.dtype, list(f.shape), mode, eb, pipeline, "cuda", opts, f.stream,
                               out.ptr, out.device, cap)
    return buf[:size].clone() if _arrays.is_torch(buf) else buf[:size].copy()


def _check_out(out: _arrays.Place, dtype: str, shape: tuple[int, ...]) -> None:
    count = 1
    for d in shape:
        count *= d
    out_count = 1
    for d in out.shape:
        out_count *= d
    if out.dtype != dtype or out_count != count:
        raise InvalidArgument(f"out= holds {out_count} {out.dtype} values, the stream decodes to {count} {dtype} "
                              f"(shape {shape})")
    if not out.writable:
        raise InvalidArgument("out= is read-only")


def decompress(data: Any, *, out: Any = None, device: str = "auto", max_output: int | None = None) -> Any:
    """Decodes a sciz stream.

    Args:
        data: the stream: bytes-like on the host, or a CUDA array of bytes (CuPy, PyTorch,
            DLPack, ``__cuda_array_interface__``).
        out: an array to decode into, on the host or a GPU: C-contiguous, of the stream's dtype
            and element count (any shape). Without it, a new array of the stream's shape is
            returned where the stream is: numpy for a host stream, the same library on the
            same GPU for a device stream.
        device: where to decode: "auto" (the GPU when the stream or out is on one, else as
            sciz picks), "cpu" or "cuda". Any device decodes any stream, bit for bit.
        max_output: the most bytes the stream may decode to (default 1 TiB, 0 for no limit). A
            few bytes of stream can declare any field: for streams from untrusted sources, set it
            to what you are prepared to receive. Checked from the header, before anything is
            allocated.

    Returns:
        ``out`` when given, else the new array.

    Raises:
        sciz.CorruptStream: a damaged or truncated stream (a ValueError); out is left as it was.
        sciz.InvalidArgument: out= of the wrong dtype, size or memory, or a stream above
            max_output.
    """
    limit = _core.default_max_output if max_output is None else int(max_output)
    if limit < 0:
        raise InvalidArgument(f"max_output must be a number of bytes >= 0 (0: no limit), got {max_output}")
    s = _arrays.stream_bytes(data)
    o = _arrays.as_place(out, copy_ok=False) if out is not None else None
    stream = (o if o is not None and o.on_device else s).stream
    dtype, shape = _core.header(s.ptr, s.device, s.nbytes, stream)
    shape = tuple(shape)
    nbytes = int(np.prod(shape, dtype=object)) * np.dtype(dtype).itemsize
    if limit and nbytes > limit:  # before the array is allocated
        raise InvalidArgument(f"the stream declares a {shape} {dtype} array of {nbytes} bytes, above max_output "
                              f"{limit} (0 lifts the limit)")
    if o is None:
        if s.on_device:
            result = _arrays.empty(s.framework, s.device, shape, dtype)
            o = _arrays.as_place(result)
        else:
            result = np.empty(shape, dtype=dtype)
            o = _arrays.as_place(result)
    else:
        result = out
        _check_out(o, dtype, shape)
        if o.on_device and s.on_device and o.device != s.device:
            raise InvalidArgument(f"the stream is on cuda:{s.device} and out= on cuda:{o.device}")
    _core.decompress(s.ptr, s.device, s.nbytes, o.ptr, o.device, o.nbytes, _run_device(device, s, o), stream, limit)
    return result


def info(data: Any) -> dict[str, Any]:
    """Describes a stream after checking it: dtype, shape, bound (as given and resolved),
    value range, pipeline and its parameters, sections, chunks, sizes and ratio. Every
    checksum of a host stream is verified."""
    s = _arrays.stream_bytes(data)
    return _core.inspect(s.ptr, s.device, s.nbytes)


def pipelines() -> list[str]:
    """The pipelines this build knows, e.g. ['lorenzo', 'szx', 'delta']."""
    return list(_core.pipelines())


def cuda_available() -> bool:
    """Whether sciz was built with CUDA and a GPU is usable now."""
    return bool(_core.cuda_available())


def release_cached_memory() -> None:
    """Hand back the memory sciz keeps between calls: pinned host staging (2 x 32 MiB per GPU),
    pinned read-back blocks and the idle blocks of each GPU's memory pool. Waits for work
    already queued; later calls allocate afresh. A no-op without a GPU."""
    _core.release_cached_memory()
