"""sciz.zarr.Sciz, the native Zarr v3 array-to-bytes codec, and xarray through it."""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest

import sciz
from conftest import assert_within, chunk_slices, fixture_paths, load_field, rel_bound

zarr = pytest.importorskip("zarr")
from sciz.zarr import Sciz  # noqa: E402


def test_metadata_and_reopening_without_importing_sciz(tmp_path, smooth3d):
    path = str(tmp_path / "a.zarr")
    z = zarr.create_array(path, shape=smooth3d.shape, chunks=(12, 20, 28), dtype="float32",
                          serializer=Sciz(abs=0.02, pipeline="delta"), compressors=None)
    z[:] = smooth3d
    assert z.metadata.to_dict()["codecs"][0] == {"name": "sciz", "configuration": {"abs": 0.02, "pipeline": "delta"}}
    # The zarr.codecs entry point resolves "sciz" in a process that never imported sciz.
    code = (f"import zarr, numpy as np; a = zarr.open_array({path!r})[:]; np.save({str(tmp_path / 'back.npy')!r}, a);"
            "import sys; print('sciz.zarr' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "True"
    assert_within(smooth3d, np.load(tmp_path / "back.npy"), 0.02)


def test_to_dict_from_dict():
    c = Sciz(rel=1e-3)
    assert c.to_dict() == {"name": "sciz", "configuration": {"rel": 1e-3, "pipeline": "lorenzo"}}
    assert Sciz.from_dict(c.to_dict()) == c
    with pytest.raises(sciz.InvalidArgument):
        Sciz.from_dict({"name": "sciz", "configuration": {"pipeline": "lorenzo"}})


@pytest.mark.parametrize("path", fixture_paths(), ids=lambda p: p.stem)
def test_fixtures_per_chunk_rel_bound(path):
    x = load_field(path)
    chunks = tuple(max(1, (d + 1) // 2) for d in x.shape)
    store = zarr.storage.MemoryStore()
    fill = 0.0
    z = zarr.create_array(store, shape=x.shape, chunks=chunks, dtype=x.dtype, fill_value=fill,
                          serializer=Sciz(rel=1e-3), compressors=None)
    z[:] = x
    back = zarr.open_array(store)[:]
    for sl in chunk_slices(x.shape, chunks):
        block = np.full(chunks, fill, x.dtype)
        block[tuple(slice(0, s.stop - s.start) for s in sl)] = x[sl]
        assert_within(x[sl], back[sl], rel_bound(block, 1e-3))


def test_with_a_bytes_to_bytes_codec_after_it(smooth3d):
    store = zarr.storage.MemoryStore()
    z = zarr.create_array(store, shape=smooth3d.shape, chunks=(24, 40, 56), dtype="float32",
                          serializer=Sciz(abs=0.01), compressors=zarr.codecs.ZstdCodec(level=3))
    z[:] = smooth3d
    assert_within(smooth3d, zarr.open_array(store)[:], 0.01)


def test_float64_big_endian_and_five_dims():
    x = np.random.default_rng(3).standard_normal((3, 4, 5, 6, 7)).cumsum(axis=4)
    store = zarr.storage.MemoryStore()
    z = zarr.create_array(store, shape=x.shape, chunks=(2, 2, 5, 6, 7), dtype=">f8", serializer=Sciz(abs=1e-4),
                          compressors=None)
    z[:] = x
    back = zarr.open_array(store)[:]
    assert_within(x, back.astype(np.float64), 1e-4)


def test_refuses_integer_arrays():
    with pytest.raises(ValueError, match="float32 and float64"):
        zarr.create_array(zarr.storage.MemoryStore(), shape=(10,), dtype="int32", serializer=Sciz(rel=1e-3),
                          compressors=None)


def test_xarray_to_zarr(tmp_path, smooth3d):
    xr = pytest.importorskip("xarray")
    ds = xr.Dataset({"t": (("z", "y", "x"), smooth3d)})
    path = tmp_path / "x.zarr"
    ds.to_zarr(path, zarr_format=3, consolidated=False,
               encoding={"t": {"serializer": Sciz(abs=0.01), "compressors": None, "chunks": (12, 20, 28)}})
    back = xr.open_zarr(path, consolidated=False)
    assert_within(smooth3d, back.t.values, 0.01)


def test_scalar_array():
    store = zarr.storage.MemoryStore()
    z = zarr.create_array(store, shape=(), dtype="float64", serializer=Sciz(abs=1e-3), compressors=None)
    z[...] = 2.5
    assert abs(float(zarr.open_array(store)[...]) - 2.5) <= 1e-3
