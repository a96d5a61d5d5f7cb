"""sciz.numcodecs.Sciz: the codec API, its registration and Zarr v2 through it."""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest

import sciz
from conftest import assert_within, chunk_slices, rel_bound

numcodecs = pytest.importorskip("numcodecs")
from sciz.numcodecs import Sciz  # noqa: E402


def test_registered_through_the_entry_point():
    # A fresh interpreter that never imports sciz finds the codec by its id.
    code = ("import numcodecs; c = numcodecs.get_codec({'id': 'sciz', 'abs': 0.5, 'pipeline': 'delta'}); "
            "print(type(c).__module__, c.get_config())")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.startswith("sciz.numcodecs") and "'abs': 0.5" in out and "'delta'" in out


def test_config_holds_only_the_bound_and_pipeline():
    c = Sciz(rel=1e-3)
    assert c.get_config() == {"id": "sciz", "rel": 1e-3, "pipeline": "lorenzo"}
    d = numcodecs.get_codec(Sciz(abs=0.25, pipeline="szx").get_config())
    assert isinstance(d, Sciz) and d.abs == 0.25 and d.rel is None and d.pipeline == "szx"
    assert Sciz.from_config({"rel": 1e-2}) == Sciz(rel=1e-2)
    with pytest.raises(sciz.InvalidArgument):
        Sciz()
    with pytest.raises(sciz.InvalidArgument):
        Sciz(rel=1e-3, abs=1)


def test_encode_decode(smooth3d):
    c = Sciz(abs=0.01)
    enc = c.encode(smooth3d)
    assert isinstance(enc, bytes) and len(enc) < smooth3d.nbytes
    assert_within(smooth3d, c.decode(enc), 0.01)
    out = np.empty_like(smooth3d)
    assert c.decode(enc, out=out) is out
    assert_within(smooth3d, out, 0.01)
    raw = bytearray(smooth3d.nbytes)  # an untyped destination, as some callers pass
    c.decode(enc, out=raw)
    assert_within(smooth3d, np.frombuffer(raw, np.float32).reshape(smooth3d.shape), 0.01)


def test_encode_refuses_raw_bytes_and_integers(smooth3d):
    with pytest.raises(sciz.InvalidArgument, match="float32/float64"):
        Sciz(rel=1e-3).encode(smooth3d.tobytes())
    with pytest.raises(sciz.InvalidArgument):
        Sciz(rel=1e-3).encode(np.arange(10))


def test_high_rank_chunks_are_merged():
    x = np.random.default_rng(0).standard_normal((2, 3, 4, 5, 6)).astype(np.float32)
    c = Sciz(abs=1e-3)
    y = c.decode(c.encode(x))
    assert y.size == x.size
    assert_within(x, y.reshape(x.shape), 1e-3)


def test_zarr_v2_round_trip(tmp_path, smooth3d):
    zarr = pytest.importorskip("zarr")
    chunks = (10, 16, 32)
    z = zarr.create_array(str(tmp_path / "a.zarr"), shape=smooth3d.shape, chunks=chunks, dtype="float32",
                          zarr_format=2, compressors=Sciz(rel=1e-3), fill_value=0)
    z[:] = smooth3d
    back = zarr.open_array(str(tmp_path / "a.zarr"))[:]
    # rel is per chunk; an edge chunk is compressed with its fill (0) padding included.
    for sl in chunk_slices(smooth3d.shape, chunks):
        block = np.zeros(chunks, np.float32)
        block[tuple(slice(0, s.stop - s.start) for s in sl)] = smooth3d[sl]
        assert_within(smooth3d[sl], back[sl], rel_bound(block, 1e-3))
