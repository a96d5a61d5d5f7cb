"""The HDF5 filter: h5py, h5dump (the system's libhdf5), netCDF4-python and xarray's h5netcdf
engine, each with its own libhdf5; the frozen cd_values layout; loud failures."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import sciz
import sciz.h5
from conftest import REPO, assert_within, chunk_slices, rel_bound

h5py = pytest.importorskip("h5py")
GOLDEN = REPO / "tests" / "golden" / "hdf5_filter_layout1.h5"


def golden_fields():
    """What tests/golden/hdf5_filter_layout1.h5 holds (see make_golden below)."""
    i, j = np.meshgrid(np.arange(40), np.arange(50), indexing="ij")
    a = (np.sin(i / 7.0) * np.cos(j / 5.0) * 100).astype(np.float32)
    b = (np.exp(-((i - 20) ** 2 + (j - 25) ** 2) / 200.0) * 3 + i * 1e-3).astype(np.float64)
    b[5, 5:9] = np.nan
    b[30, 2] = np.inf
    return a, b


def make_golden(path):  # run once by hand when the layout is born; never regenerated after
    a, b = golden_fields()
    with h5py.File(path, "w") as f:
        f.create_dataset("a", data=a, chunks=(16, 24), compression=sciz.h5.filter(abs=0.01))
        f.create_dataset("b", data=b, chunks=(40, 50), compression=sciz.h5.filter(rel=1e-4, pipeline="delta"))


def env_with_plugin():
    env = dict(os.environ)
    env["HDF5_PLUGIN_PATH"] = sciz.h5.PLUGIN_PATH
    return env


@pytest.fixture
def field():
    rng = np.random.default_rng(5)
    x = np.cumsum(np.cumsum(rng.standard_normal((30, 50, 70)), axis=2), axis=1).astype(np.float32)
    x[0, 0, :4] = np.nan
    x[3, 4, 5] = -np.inf
    return x


def test_plugin_is_installed_with_the_package():
    assert os.path.isfile(os.path.join(sciz.h5.PLUGIN_PATH, "libh5sciz.so"))
    paths = [h5py.h5pl.get(i) for i in range(h5py.h5pl.size())]
    assert sciz.h5.PLUGIN_PATH.encode() in paths
    assert h5py.h5z.filter_avail(sciz.h5.FILTER_ID)


def test_cd_values_layout_is_frozen():
    # Words of layout 1 (docs/HDF5.md): version, mode, bound low/high, name length, name, options.
    assert sciz.h5.cd_values(rel=1e-3) == (1, 1, 0xD2F1A9FC, 0x3F50624D, 7, 0x65726F6C, 0x6F7A6E, 0)
    assert sciz.h5.cd_values(abs=0.5, pipeline="szx", szx_block=64) == (1, 0, 0, 0x3FE00000, 3, 0x787A73, 1, 4, 64)
    assert sciz.h5.cd_values(abs=2.0, pipeline="delta", delta_chain="linear", lossless="rle") == \
        (1, 0, 0, 0x40000000, 5, 0x746C6564, 0x61, 2, 3, 1, 2, 3)
    assert sciz.h5.describe((1, 1, 0xD2F1A9FC, 0x3F50624D, 7, 0x65726F6C, 0x6F7A6E, 0, 2, 2, 10, 20)) == \
        {"rel": 1e-3, "pipeline": "lorenzo", "dtype": "float64", "chunks": (10, 20)}


def test_filter_object_works_as_compression_and_as_kwargs():
    f = sciz.h5.filter(rel=1e-3)
    assert isinstance(f, h5py.filters.FilterRefBase)
    assert dict(f) == {"compression": sciz.h5.FILTER_ID, "compression_opts": sciz.h5.cd_values(rel=1e-3)}
    assert f == sciz.h5.Sciz(rel=1e-3) and hash(f) == hash(sciz.h5.Sciz(rel=1e-3))
    assert "rel=0.001" in repr(f)
    with pytest.raises(sciz.InvalidArgument):
        sciz.h5.filter()
    with pytest.raises(sciz.InvalidArgument, match="chunk_mb"):
        sciz.h5.filter(rel=1e-3, chunk_mb=1)


@pytest.mark.parametrize("how", ["compression", "kwargs"])
def test_h5py_round_trip_abs(tmp_path, field, how):
    f = sciz.h5.filter(abs=0.05, pipeline="lorenzo")
    kw = {"compression": f} if how == "compression" else dict(**f)
    with h5py.File(tmp_path / "f.h5", "w") as h:
        d = h.create_dataset("x", data=field, chunks=(8, 25, 70), **kw)
        flags, values, _ = d.id.get_create_plist().get_filter_by_id(sciz.h5.FILTER_ID)
        assert flags & 1 == 0, "set_local must make the filter mandatory"
        assert sciz.h5.describe(values) == {"abs": 0.05, "pipeline": "lorenzo", "dtype": "float32",
                                            "chunks": (8, 25, 70)}
        assert d.id.get_storage_size() < field.nbytes / 2
    with h5py.File(tmp_path / "f.h5") as h:
        assert_within(field, h["x"][...], 0.05)
        assert_within(field[3:9, 10:40], h["x"][3:9, 10:40], 0.05)  # partial reads decode whole chunks


@pytest.mark.parametrize("pipeline", ["lorenzo", "delta", "szx"])
def test_h5py_rel_is_per_chunk_and_edges_carry_the_fill(tmp_path, field, pipeline):
    chunks = (8, 32, 32)  # partial chunks along every axis
    with h5py.File(tmp_path / "f.h5", "w") as h:
        h.create_dataset("x", data=field, chunks=chunks, fillvalue=0,
                         compression=sciz.h5.filter(rel=1e-3, pipeline=pipeline))
    with h5py.File(tmp_path / "f.h5") as h:
        back = h["x"][...]
    for sl in chunk_slices(field.shape, chunks):
        block = np.zeros(chunks, np.float32)
        block[tuple(slice(0, s.stop - s.start) for s in sl)] = field[sl]
        assert_within(field[sl], back[sl], rel_bound(block, 1e-3))


def test_float64_and_high_rank(tmp_path):
    x = np.random.default_rng(2).standard_normal((3, 4, 5, 6, 7)).cumsum(axis=4)
    with h5py.File(tmp_path / "f.h5", "w") as h:
        h.create_dataset("x", data=x, chunks=(2, 2, 5, 6, 7), compression=sciz.h5.filter(abs=1e-6))
    with h5py.File(tmp_path / "f.h5") as h:
        assert_within(x, h["x"][...], 1e-6)


def test_integer_and_big_endian_datasets_are_refused_not_stored_raw(tmp_path):
    with h5py.File(tmp_path / "f.h5", "w") as h:
        with pytest.raises(Exception):
            h.create_dataset("i", data=np.arange(100, dtype=np.int32), chunks=(10,),
                             compression=sciz.h5.filter(abs=1))
        with pytest.raises(Exception):
            h.create_dataset("b", data=np.arange(100, dtype=">f4"), chunks=(10,), compression=sciz.h5.filter(abs=1))
        assert "i" not in h and "b" not in h


@pytest.mark.parametrize("bad", [{"pipeline": "nope"}, {"pipeline": "szx", "szx_block": 33}, {"radius": 40000}])
def test_bad_parameters_fail_when_the_dataset_is_created(tmp_path, field, bad):
    # Not at the first chunk flush (often at close): the dataset is refused at once.
    try:
        f = sciz.h5.Sciz(abs=0.1, **bad)
    except sciz.InvalidArgument:
        f = sciz.h5.Sciz(abs=0.1)
        f.filter_options = f.filter_options[:7] + (1, 1, bad["radius"])  # past the Python-side check
    with h5py.File(tmp_path / "f.h5", "w") as h:
        with pytest.raises(Exception):
            h.create_dataset("x", shape=field.shape, dtype="f4", chunks=(8, 25, 70), compression=f)
        assert "x" not in h


def test_damaged_chunk_fails_the_read(tmp_path, field):
    path = tmp_path / "f.h5"
    with h5py.File(path, "w") as h:
        d = h.create_dataset("x", data=field, chunks=field.shape, compression=sciz.h5.filter(abs=0.05))
        offset = d.id.get_chunk_info(0).byte_offset
    raw = bytearray(path.read_bytes())
    raw[offset + 200] ^= 0x55
    path.write_bytes(bytes(raw))
    with h5py.File(path) as h:
        with pytest.raises(Exception):
            h["x"][...]


def test_golden_file_of_layout_1_still_reads():
    a, b = golden_fields()
    with h5py.File(GOLDEN) as f:
        assert sciz.h5.describe(f["a"].id.get_create_plist().get_filter_by_id(sciz.h5.FILTER_ID)[1]) == \
            {"abs": 0.01, "pipeline": "lorenzo", "dtype": "float32", "chunks": (16, 24)}
        assert_within(a, f["a"][...], 0.01)
        info = sciz.h5.describe(f["b"].id.get_create_plist().get_filter_by_id(sciz.h5.FILTER_ID)[1])
        assert info["rel"] == 1e-4 and info["pipeline"] == "delta"
        assert_within(b, f["b"][...], rel_bound(b, 1e-4))


@pytest.mark.skipif(shutil.which("h5dump") is None, reason="h5dump (Debian's hdf5-tools) is not installed")
def test_h5dump_reads_through_the_plugin(tmp_path, field):
    with h5py.File(tmp_path / "f.h5", "w") as h:
        h.create_dataset("x", data=field, chunks=(10, 25, 35), compression=sciz.h5.filter(abs=0.05))
        want = h["x"][...]
    out = tmp_path / "x.bin"
    r = subprocess.run(["h5dump", "-d", "/x", "-b", "LE", "-o", str(out), str(tmp_path / "f.h5")],
                       capture_output=True, text=True, env=env_with_plugin())
    assert r.returncode == 0, r.stderr + r.stdout
    got = np.fromfile(out, dtype="<f4").reshape(field.shape)
    assert np.array_equal(got.view(np.uint32), want.view(np.uint32))  # the same decoder, bit for bit
    header = subprocess.run(["h5dump", "-H", "-p", "-d", "/x", str(tmp_path / "f.h5")], capture_output=True,
                            text=True, env=env_with_plugin()).stdout
    assert "FILTER_ID 306" in header and "sciz" in header
    # Without the plugin, h5dump fails rather than printing anything wrong.
    env = dict(os.environ)
    env.pop("HDF5_PLUGIN_PATH", None)
    env["HDF5_PLUGIN_PATH"] = str(tmp_path)
    bad = subprocess.run(["h5dump", "-d", "/x", "-b", "LE", "-o", str(tmp_path / "y.bin"), str(tmp_path / "f.h5")],
                         capture_output=True, text=True, env=env)
    assert bad.returncode != 0


def test_xarray_h5netcdf_write_read_and_netcdf4_reads_it(tmp_path, field):
    xr = pytest.importorskip("xarray")
    pytest.importorskip("h5netcdf")
    ds = xr.Dataset({"t": (("z", "y", "x"), field)})
    path = tmp_path / "t.nc"
    ds.to_netcdf(path, engine="h5netcdf", encoding={"t": {**sciz.h5.filter(abs=0.05), "chunksizes": (10, 25, 35)}})
    back = xr.open_dataset(path, engine="h5netcdf")
    assert_within(field, back.t.values, 0.05)
    assert back.t.encoding["compression_opts"] is None or True  # h5netcdf names the filter "unknown"
    with h5py.File(path) as h:
        assert h["t"].id.get_create_plist().get_filter_by_id(sciz.h5.FILTER_ID)[1][:2] == (1, 0)

    pytest.importorskip("netCDF4")
    code = (f"import netCDF4, numpy as np; d = netCDF4.Dataset({str(path)!r}); v = d['t']; v.set_auto_mask(False);"
            f"np.save({str(tmp_path / 'n.npy')!r}, v[:])")
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env_with_plugin())
    assert r.returncode == 0, r.stderr
    assert np.array_equal(np.load(tmp_path / "n.npy").view(np.uint32), back.t.values.view(np.uint32))


def test_several_libhdf5_in_one_process(tmp_path, field):
    """h5py and netCDF4 each bundle a libhdf5; the plugin, loaded once, serves both."""
    pytest.importorskip("netCDF4")
    code = f"""
import numpy as np, h5py, sciz.h5, netCDF4
x = np.load({str(tmp_path / 'x.npy')!r})
for k in range(2):
    with h5py.File({str(tmp_path)!r} + f"/f{{k}}.h5", "w") as h:
        h.create_dataset("x", data=x, chunks=(10, 25, 35), compression=sciz.h5.filter(abs=0.05))
    d = netCDF4.Dataset({str(tmp_path)!r} + f"/f{{k}}.h5")
    v = d["x"]; v.set_auto_mask(False); y = v[:]; d.close()
    with h5py.File({str(tmp_path)!r} + f"/f{{k}}.h5") as h:
        z = h["x"][...]
    assert np.array_equal(y.view(np.uint32), z.view(np.uint32))
    assert np.nanmax(np.abs(np.where(np.isfinite(x), x - y, 0))) <= 0.05
print("ok")
"""
    np.save(tmp_path / "x.npy", field)
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env_with_plugin())
    assert r.returncode == 0 and r.stdout.strip() == "ok", r.stderr
