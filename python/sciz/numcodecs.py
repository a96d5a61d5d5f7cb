"""The sciz codec for numcodecs (``codec_id = "sciz"``), and through it Zarr v2 and anything
else that takes numcodecs codecs.

    >>> import zarr, sciz.numcodecs
    >>> z = zarr.create_array(store, shape=x.shape, chunks=(64, 64), dtype="f4", zarr_format=2,
    ...                       compressors=sciz.numcodecs.Sciz(rel=1e-3))

The codec is registered under the ``numcodecs.codecs`` entry point, so
``numcodecs.get_codec({"id": "sciz", "rel": 1e-3})`` finds it without an import. Its config
holds only the bound and the pipeline: the stream describes everything else itself.
``encode`` needs the chunk as a float32/float64 array (a raw byte buffer carries no dtype or
shape); CuPy chunks are compressed on their GPU and decode back to CuPy arrays.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numcodecs.abc import Codec
from numcodecs.compat import ensure_contiguous_ndarray_like, ndarray_copy

from . import _api, _arrays, _options
from ._errors import InvalidArgument


def merged_shape(shape: tuple[int, ...]) -> tuple[int, ...]:
    """A shape of 1 to 4 dims holding the same C-order block (slowest axes merged)."""
    if len(shape) == 0:
        return (1,)
    if len(shape) <= 4:
        return tuple(shape)
    lead = 1
    for d in shape[:-3]:
        lead *= d
    return (lead, *shape[-3:])


class Sciz(Codec):
    """sciz as a numcodecs codec. Exactly one of ``rel`` (relative to each chunk's value
    range) and ``abs``; ``pipeline`` as in :func:`sciz.compress`."""

    codec_id = "sciz"

    def __init__(self, rel: float | None = None, abs: float | None = None,  # noqa: A002
                 pipeline: str = "lorenzo") -> None:
        mode, value = _options.bound(rel, abs)
        self.rel = value if mode == "rel" else None
        self.abs = value if mode == "abs" else None
        self.pipeline = str(pipeline)

    def _bound(self) -> dict[str, float]:
        return {"rel": self.rel} if self.rel is not None else {"abs": self.abs}

    def encode(self, buf: Any) -> Any:
        a = buf if (_arrays.is_cupy(buf) or _arrays.is_torch(buf)) else np.asanyarray(buf)
        if a.dtype not in (np.float32, np.float64):
            raise InvalidArgument(f"the sciz codec encodes float32/float64 arrays; it was given {a.dtype} "
                                  "(a raw byte buffer has no dtype or shape to compress by)")
        a = a.reshape(merged_shape(a.shape))
        return _api.compress(a, pipeline=self.pipeline, **self._bound())

    def decode(self, buf: Any, out: Any = None) -> Any:
        if out is None:
            return _api.decompress(buf)
        dst = out if _arrays.is_cupy(out) else ensure_contiguous_ndarray_like(out)
        try:
            _api.decompress(buf, out=dst)  # straight into the caller's memory, viewed flat
            return out if hasattr(out, "dtype") else dst
        except InvalidArgument:  # out of another dtype or memory: decode, then copy as numcodecs does
            return ndarray_copy(_api.decompress(buf), out)

    def get_config(self) -> dict[str, Any]:
        return {"id": self.codec_id, **self._bound(), "pipeline": self.pipeline}

    def __repr__(self) -> str:
        (k, v), = self._bound().items()
        return f"sciz.numcodecs.Sciz({k}={v!r}, pipeline={self.pipeline!r})"
