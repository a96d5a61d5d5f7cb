"""The sciz codec for Zarr v3: an array-to-bytes codec named "sciz".

    >>> import zarr, sciz.zarr
    >>> z = zarr.create_array(store, shape=x.shape, chunks=(64, 64), dtype="float32",
    ...                       serializer=sciz.zarr.Sciz(rel=1e-3), compressors=None)
    >>> z[:] = x

It takes the place of Zarr's "bytes" serializer (a lossy codec must see values, not bytes),
and is registered under the ``zarr.codecs`` entry point, so arrays written with it open
anywhere sciz is installed. Its configuration holds only the bound and the pipeline. With
``zarr.config.enable_gpu()`` chunks arrive as CuPy arrays: they are compressed and decoded on
their GPU, and only the compressed bytes cross to the host when the store writes them.

A relative bound is relative to each chunk's value range, and a partial chunk at an edge of
the array is filled with the fill value before it is compressed; for a bound relative to the
whole array, compute it once and pass ``abs=``.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np
from zarr.abc.codec import ArrayBytesCodec
from zarr.core.common import parse_named_configuration
from zarr.registry import register_codec

from . import _api, _arrays, _options
from .numcodecs import merged_shape

if TYPE_CHECKING:
    from typing import Self

    from zarr.core.array_spec import ArraySpec
    from zarr.core.buffer import Buffer, NDBuffer


@dataclass(frozen=True)
class Sciz(ArrayBytesCodec):
    """Exactly one of ``rel`` and ``abs``; ``pipeline`` as in :func:`sciz.compress`."""

    is_fixed_size = False

    rel: float | None
    abs: float | None
    pipeline: str

    def __init__(self, *, rel: float | None = None, abs: float | None = None,  # noqa: A002
                 pipeline: str = "lorenzo") -> None:
        mode, value = _options.bound(rel, abs)
        object.__setattr__(self, "rel", value if mode == "rel" else None)
        object.__setattr__(self, "abs", value if mode == "abs" else None)
        object.__setattr__(self, "pipeline", str(pipeline))

    def _bound(self) -> dict[str, float]:
        return {"rel": self.rel} if self.rel is not None else {"abs": self.abs}

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Self:
        _, config = parse_named_configuration(data, "sciz")
        return cls(**config)

    def to_dict(self) -> dict[str, Any]:
        return {"name": "sciz", "configuration": {**self._bound(), "pipeline": self.pipeline}}

    def validate(self, *, shape: tuple[int, ...], dtype: Any, chunk_grid: Any) -> None:
        native = np.dtype(dtype.to_native_dtype())
        if native.kind != "f" or native.itemsize not in (4, 8):
            raise ValueError(f"the sciz codec compresses float32 and float64 arrays, not {native}")

    def _encode_sync(self, chunk_array: NDBuffer, chunk_spec: ArraySpec) -> Buffer | None:
        a = chunk_array.as_ndarray_like()
        a = a.reshape(merged_shape(tuple(a.shape)))
        if _arrays.is_cupy(a):  # GPU chunks stay on the GPU; only the stream leaves it, later
            return chunk_spec.prototype.buffer.from_array_like(
                _api.compress_on_device(a, pipeline=self.pipeline, **self._bound()))
        return chunk_spec.prototype.buffer.from_bytes(_api.compress(a, pipeline=self.pipeline, **self._bound()))

    def _decode_sync(self, chunk_bytes: Buffer, chunk_spec: ArraySpec) -> NDBuffer:
        a = _api.decompress(chunk_bytes.as_array_like())
        a = a.reshape(chunk_spec.shape)
        want = np.dtype(chunk_spec.dtype.to_native_dtype())
        if a.dtype != want:  # e.g. a big-endian array: the stream holds native values
            a = a.astype(want)
        return chunk_spec.prototype.nd_buffer.from_ndarray_like(a)

    # sciz releases the GIL, so chunks in threads run in parallel (as zarr's own compressors do).
    async def _encode_single(self, chunk_array: NDBuffer, chunk_spec: ArraySpec) -> Buffer | None:
        return await asyncio.to_thread(self._encode_sync, chunk_array, chunk_spec)

    async def _decode_single(self, chunk_bytes: Buffer, chunk_spec: ArraySpec) -> NDBuffer:
        return await asyncio.to_thread(self._decode_sync, chunk_bytes, chunk_spec)

    def compute_encoded_size(self, input_byte_length: int, chunk_spec: ArraySpec) -> int:
        raise NotImplementedError  # the size depends on the data


register_codec("sciz", Sciz)
