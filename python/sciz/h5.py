"""The sciz HDF5 filter, for h5py, h5netcdf/xarray and any HDF5 program.

    >>> import h5py, sciz.h5
    >>> with h5py.File("f.h5", "w") as f:
    ...     f.create_dataset("t", data=x, chunks=(16, 64, 64), compression=sciz.h5.filter(rel=1e-3))

The filter is a shared library in :data:`PLUGIN_PATH`. Importing this module puts that folder
on h5py's plugin search path; other programs (h5dump, netCDF4-python, C codes) find it when
``HDF5_PLUGIN_PATH`` names it. Its parameters (cd_values) follow a frozen layout, written
out word by word in docs/HDF5.md; :func:`cd_values` writes them and :func:`describe` reads
them back from a dataset.

A relative bound is relative to each HDF5 chunk's own value range, and a partial chunk at an
edge of the dataset is filled by HDF5 with the fill value before it is compressed; for a
bound relative to the whole dataset, compute it once and pass ``abs=``.
"""

from __future__ import annotations

import os
import struct
from collections.abc import Mapping
from typing import Any, Iterator

from . import _options
from ._errors import InvalidArgument

FILTER_ID = 306
"""From the range HDF5 keeps for testing (256-511), until one is registered with The HDF Group."""
LAYOUT_VERSION = 1
PLUGIN_PATH = os.path.join(os.path.dirname(os.path.abspath(__file__)), "hdf5_plugin")
"""The folder holding the plugin (libh5sciz.so): put it on HDF5_PLUGIN_PATH for other programs."""

# Layout codes (docs/HDF5.md), frozen with the layout.
_OPTION_IDS = {"radius": 1, "lossless": 2, "delta_chain": 3, "szx_block": 4}
_LOSSLESS = {"auto": 0, "bitpack": 1, "huffman": 2, "rle": 3, "rle+huffman": 4, "zrle+huffman": 5}
_CHAIN = {"auto": 0, "linear": 1, "serpentine": 2}
_DTYPES = {1: "float32", 2: "float64"}
_MAX_NAME = 64

try:
    import h5py

    _Base = h5py.filters.FilterRefBase  # an attribute of h5py, not an importable submodule
except ImportError:  # the layout helpers work without h5py
    h5py = None
    _Base = Mapping


def cd_values(*, rel: float | None = None, abs: float | None = None,  # noqa: A002
              pipeline: str = "lorenzo", **options: Any) -> tuple[int, ...]:
    """The filter's parameters as HDF5 stores them (the part a user gives; the filter's
    set_local appends the dtype and chunk dims when a dataset is created)."""
    mode, eb = _options.bound(rel, abs)
    name = pipeline.encode("ascii") if isinstance(pipeline, str) and pipeline.isascii() else b""
    if not 1 <= len(name) <= _MAX_NAME or not all(0x20 < c < 0x7F for c in name):
        raise InvalidArgument(f"pipeline name {pipeline!r} must be 1 to {_MAX_NAME} printable ASCII characters")
    lo, hi = struct.unpack("<II", struct.pack("<d", eb))
    words = [LAYOUT_VERSION, 0 if mode == "abs" else 1, lo, hi, len(name)]
    padded = name + b"\0" * (-len(name) % 4)
    words += struct.unpack(f"<{len(padded) // 4}I", padded)
    pairs = []
    for key, value in _options.check(options).items():
        if key not in _OPTION_IDS:
            raise InvalidArgument(f"option {key!r} has no place in the HDF5 filter's parameters; it takes "
                                  + ", ".join(_OPTION_IDS))
        if key == "lossless":
            value = _code(_LOSSLESS, value, key)
        elif key == "delta_chain":
            value = _code(_CHAIN, value, key)
        pairs += [_OPTION_IDS[key], value]
    words += [len(pairs) // 2, *pairs]
    return tuple(int(w) for w in words)


def _code(table: dict[str, int], value: str, key: str) -> int:
    if value not in table:
        raise InvalidArgument(f"{key} {value!r} is not one of {', '.join(table)}")
    return table[value]


def describe(values: Any) -> dict[str, Any]:
    """Reads cd_values back (e.g. ``dataset.compression_opts``, or h5py's
    ``dcpl.get_filter_by_id(FILTER_ID)``): the bound, pipeline, options and, when the dataset
    has been created, its dtype and chunk dims."""
    w = [int(v) for v in values]

    def take(n: int, what: str) -> list[int]:
        if len(w) < n:
            raise InvalidArgument(f"sciz filter parameters end where {what} was expected")
        out = w[:n]
        del w[:n]
        return out

    version, mode, lo, hi, n = take(5, "the header")
    if version != LAYOUT_VERSION:
        raise InvalidArgument(f"sciz filter parameters of layout version {version} (this sciz reads {LAYOUT_VERSION})")
    eb = struct.unpack("<d", struct.pack("<II", lo, hi))[0]
    name = struct.pack(f"<{(n + 3) // 4}I", *take((n + 3) // 4, "the pipeline name"))[:n].decode("ascii")
    (m,) = take(1, "the option count")
    ids = {v: k for k, v in _OPTION_IDS.items()}
    options: dict[str, Any] = {}
    for _ in range(m):
        key, value = take(2, "an option")
        key = ids.get(key, f"option {key}")
        if key == "lossless":
            value = {v: k for k, v in _LOSSLESS.items()}.get(value, value)
        elif key == "delta_chain":
            value = {v: k for k, v in _CHAIN.items()}.get(value, value)
        options[key] = value
    out: dict[str, Any] = {"abs" if mode == 0 else "rel": eb, "pipeline": name, **options}
    if w:
        dtype, rank = take(2, "the dtype and chunk rank")
        out["dtype"] = _DTYPES.get(dtype, dtype)
        out["chunks"] = tuple(take(rank, "the chunk dims"))
    return out


class Sciz(_Base):
    """The sciz filter as h5py takes it: ``compression=Sciz(rel=1e-3)``, or ``**Sciz(...)``
    (a mapping of compression and compression_opts, as h5py's own filters are)."""

    filter_name = "sciz"
    filter_id = FILTER_ID

    def __init__(self, *, rel: float | None = None, abs: float | None = None,  # noqa: A002
                 pipeline: str = "lorenzo", **options: Any) -> None:
        self.filter_options = cd_values(rel=rel, abs=abs, pipeline=pipeline, **options)

    if _Base is Mapping:  # h5py's base class provides these; without h5py, the same by hand
        def _kwargs(self) -> dict[str, Any]:
            return {"compression": self.filter_id, "compression_opts": self.filter_options}

        def __getitem__(self, key: str) -> Any:
            return self._kwargs()[key]

        def __iter__(self) -> Iterator[str]:
            return iter(self._kwargs())

        def __len__(self) -> int:
            return 2

        def __hash__(self) -> int:
            return hash((self.filter_id, self.filter_options))

        def __eq__(self, other: object) -> bool:
            return isinstance(other, Sciz) and other.filter_options == self.filter_options

    def __repr__(self) -> str:
        d = describe(self.filter_options)
        return "sciz.h5.Sciz(" + ", ".join(f"{k}={v!r}" for k, v in d.items()) + ")"


def filter(*, rel: float | None = None, abs: float | None = None,  # noqa: A001,A002
           pipeline: str = "lorenzo", **options: Any) -> Sciz:
    """The sciz filter for ``create_dataset(..., compression=sciz.h5.filter(rel=1e-3))``.

    Exactly one of rel and abs; options: radius, lossless, delta_chain, szx_block. Datasets
    must be float32 or float64 (little-endian) and chunked (h5py chunks automatically when a
    filter is given)."""
    return Sciz(rel=rel, abs=abs, pipeline=pipeline, **options)


def register() -> None:
    """Puts :data:`PLUGIN_PATH` first on h5py's plugin search path (done on import)."""
    if h5py is None:
        return
    path = PLUGIN_PATH.encode()
    if path not in [h5py.h5pl.get(i) for i in range(h5py.h5pl.size())]:
        h5py.h5pl.prepend(path)


register()
