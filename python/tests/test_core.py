"""sciz.compress / decompress / info on numpy arrays: every pipeline on the real fixtures with
every point checked, the options, and every wrong input as an exception of the right kind."""

from __future__ import annotations

import sys
import threading
import time

import numpy as np
import pytest

import sciz
from conftest import SHARED_DATA, assert_within, fixture_paths, load_field

PIPELINES = [p for p in sciz.pipelines() if p != "raw"]


def test_pipelines_listed():
    assert {"lorenzo", "delta", "szx"} <= set(sciz.pipelines())


def test_release_cached_memory_then_compress_again():
    x = np.linspace(0, 1, 4096, dtype=np.float32)
    first = sciz.compress(x, abs=1e-3)
    sciz.release_cached_memory()
    assert sciz.compress(x, abs=1e-3) == first


@pytest.mark.parametrize("path", fixture_paths(), ids=lambda p: p.stem)
@pytest.mark.parametrize("pipeline", PIPELINES)
@pytest.mark.parametrize("rel", [1e-2, 1e-3, 1e-4])
def test_fixture_round_trip(path, pipeline, rel):
    x = load_field(path)
    s = sciz.compress(x, rel=rel, pipeline=pipeline, device="cpu")
    info = sciz.info(s)
    assert info["shape"] == x.shape and info["dtype"] == x.dtype.name and info["pipeline"] == pipeline
    y = sciz.decompress(s, device="cpu")
    assert_within(x, y, info["eb_abs"])


@pytest.mark.parametrize("pipeline", PIPELINES)
def test_abs_bound_and_special_values(pipeline):
    rng = np.random.default_rng(7)
    x = np.cumsum(rng.standard_normal(50_000)).astype(np.float64)
    x[::997] = np.nan
    x[5::1231] = np.inf
    x[7::1409] = -np.inf
    x[1000:1200] = np.nan  # a stretch with no finite value
    x.view(np.uint64)[123] = 0x7FF8_0000_00AB_CDEF  # a NaN with a payload
    s = sciz.compress(x, abs=0.05, pipeline=pipeline)
    assert sciz.info(s)["eb_abs"] == 0.05
    assert_within(x, sciz.decompress(s), 0.05)


def test_nan_land_mask_field():
    x = load_field(next(p for p in fixture_paths() if "nanland" in p.name))
    assert np.isnan(x).any()
    s = sciz.compress(x, rel=1e-3)
    assert_within(x, sciz.decompress(s), sciz.info(s)["eb_abs"])


def test_odd_1d_sizes_at_tight_bounds():
    x = load_field(next(p for p in fixture_paths() if "cosmo" in p.name))
    for n in (1, 2, 3, 31, 33, 2047, 2049, x.size):
        s = sciz.compress(x[:n], rel=1e-5)
        assert_within(x[:n], sciz.decompress(s), sciz.info(s)["eb_abs"])


@pytest.mark.skipif(not SHARED_DATA.is_dir(), reason="../shared/data is absent (a clean clone)")
@pytest.mark.parametrize("pipeline", PIPELINES)
def test_shared_real_fields(pipeline):
    paths = sorted(p for p in SHARED_DATA.iterdir() if p.suffix in (".f32", ".f64"))
    assert paths
    for p in paths:
        x = load_field(p)
        s = sciz.compress(x, rel=1e-3, pipeline=pipeline)
        assert_within(x, sciz.decompress(s), sciz.info(s)["eb_abs"])


def test_python_and_cli_write_the_same_stream(tmp_path, smooth3d):
    import shutil
    import subprocess

    cli = shutil.which("sciz", path=str(sys.prefix) + "/bin") or shutil.which("sciz")
    if cli is None:
        pytest.skip("the sciz CLI is not installed beside this Python")
    src = tmp_path / "f.f32"
    smooth3d.tofile(src)
    out = tmp_path / "f.sciz"
    dims = "x".join(map(str, smooth3d.shape))
    subprocess.run([cli, "compress", "-i", src, "-o", out, "-t", "f32", "-d", dims, "-r", "1e-3", "--device", "cpu",
                    "-q"], check=True)
    assert out.read_bytes() == sciz.compress(smooth3d, rel=1e-3, device="cpu")


def test_info_describes_the_stream(smooth3d):
    s = sciz.compress(smooth3d, rel=1e-3, pipeline="delta")
    i = sciz.info(s)
    assert i["format_version"] == sciz.FORMAT_VERSION
    assert i["eb_mode"] == "rel" and i["eb"] == 1e-3
    assert i["eb_abs"] == pytest.approx(1e-3 * (float(smooth3d.max()) - float(smooth3d.min())))
    assert i["value_min"] == float(smooth3d.min()) and i["value_max"] == float(smooth3d.max())
    assert i["stream_bytes"] == len(s) and i["original_bytes"] == smooth3d.nbytes
    assert i["ratio"] == pytest.approx(smooth3d.nbytes / len(s))
    assert i["nonfinite"] == 0 and i["chunks"] and i["sections"]


def test_options_reach_the_pipeline(smooth3d):
    s = sciz.compress(smooth3d, rel=1e-3, radius=64, lossless="bitpack")
    assert sciz.info(s)["params"]["radius"] == "64"
    assert sciz.info(s)["params"]["stages"] == "bitpack (2-byte codes)"
    s = sciz.compress(smooth3d, rel=1e-3, stages="zrle+huffman,rze2")
    assert sciz.info(s)["params"]["stages"] == "zrle+huffman,rze2 (2-byte codes)"
    assert_within(smooth3d, sciz.decompress(s), sciz.info(s)["eb_abs"])
    s = sciz.compress(smooth3d, rel=1e-3, chunk_mb=0.05)
    assert len(sciz.info(s)["chunks"]) > 1
    assert_within(smooth3d, sciz.decompress(s), sciz.info(s)["eb_abs"])
    for p, kw in [("delta", {"delta_chain": "serpentine"}), ("szx", {"szx_block": 64})]:
        s = sciz.compress(smooth3d, abs=0.01, pipeline=p, **kw)
        assert_within(smooth3d, sciz.decompress(s), 0.01)


def test_decompress_into_out(smooth3d):
    s = sciz.compress(smooth3d, abs=0.01)
    out = np.full(smooth3d.shape, -1, np.float32)
    assert sciz.decompress(s, out=out) is out
    assert_within(smooth3d, out, 0.01)
    flat = np.empty(smooth3d.size, np.float32)  # any shape with the same count
    sciz.decompress(s, out=flat)
    assert np.array_equal(flat, out.reshape(-1))


def test_max_output_refuses_before_allocating(smooth3d):
    s = sciz.compress(smooth3d, abs=0.01)
    nbytes = smooth3d.nbytes
    with pytest.raises(sciz.InvalidArgument, match=f"{nbytes} bytes, above max_output {nbytes - 1}"):
        sciz.decompress(s, max_output=nbytes - 1)
    out = np.full(smooth3d.shape, 5, np.float32)
    with pytest.raises(sciz.InvalidArgument, match="max_output"):  # with out= too, out untouched
        sciz.decompress(s, out=out, max_output=nbytes - 1)
    assert np.all(out == 5)
    assert_within(smooth3d, sciz.decompress(s, max_output=nbytes), 0.01)
    assert_within(smooth3d, sciz.decompress(s, max_output=0), 0.01)  # 0: no limit
    with pytest.raises(sciz.InvalidArgument, match="max_output"):
        sciz.decompress(s, max_output=-1)


@pytest.mark.parametrize("bad_out, why", [
    (np.empty((24, 40, 56), np.float64), "float64"),
    (np.empty((24, 40, 55), np.float32), "53760"),
    (np.empty((24, 40, 112), np.float32)[:, :, ::2], "C-contiguous"),
])
def test_bad_out_is_refused_and_untouched(smooth3d, bad_out, why):
    s = sciz.compress(smooth3d, abs=0.01)
    bad_out[...] = 5
    with pytest.raises(sciz.InvalidArgument, match=why):
        sciz.decompress(s, out=bad_out)
    assert np.all(bad_out == 5)


def test_read_only_out_is_refused(smooth3d):
    s = sciz.compress(smooth3d, abs=0.01)
    out = np.empty_like(smooth3d)
    out.flags.writeable = False
    with pytest.raises(sciz.InvalidArgument, match="read-only"):
        sciz.decompress(s, out=out)


@pytest.mark.parametrize("wrap", [bytes, bytearray, memoryview, lambda b: np.frombuffer(b, np.uint8)])
def test_stream_as_any_bytes_like(smooth3d, wrap):
    s = sciz.compress(smooth3d, abs=0.01)
    assert_within(smooth3d, sciz.decompress(wrap(s)), 0.01)
    assert sciz.info(wrap(s))["stream_bytes"] == len(s)


@pytest.mark.parametrize("bad", [None, "SCIZ", np.array([b"x"], dtype=object)])
def test_streams_of_the_wrong_type_raise_type_error(bad):
    with pytest.raises(TypeError, match="bytes-like"):
        sciz.decompress(bad)


def test_damaged_streams_raise_and_leave_out_untouched(smooth3d):
    s = bytearray(sciz.compress(smooth3d, abs=0.01))
    out = np.full(smooth3d.shape, 7, np.float32)
    for cut in (0, 3, 12, len(s) // 2, len(s) - 1):
        with pytest.raises(sciz.CorruptStream):
            sciz.decompress(bytes(s[:cut]), out=out)
    for pos in (0, 20, len(s) // 3, len(s) - 9):
        d = bytearray(s)
        d[pos] ^= 0x41
        with pytest.raises((sciz.CorruptStream, sciz.Unsupported)):
            sciz.decompress(bytes(d), out=out)
        with pytest.raises((sciz.CorruptStream, sciz.Unsupported)):
            sciz.info(bytes(d))
    assert np.all(out == 7)


def test_exception_classes():
    assert issubclass(sciz.InvalidArgument, ValueError) and issubclass(sciz.InvalidArgument, sciz.Error)
    assert issubclass(sciz.CorruptStream, ValueError) and issubclass(sciz.Unsupported, ValueError)
    assert issubclass(sciz.CudaError, RuntimeError) and issubclass(sciz.NoDevice, RuntimeError)
    assert issubclass(sciz.InternalError, RuntimeError) and issubclass(sciz.BufferTooSmall, ValueError)
    assert sciz.InvalidArgument.__module__ == "sciz"


@pytest.mark.parametrize("kwargs, cls, match", [
    ({}, sciz.InvalidArgument, "exactly one"),
    ({"rel": 1e-3, "abs": 1.0}, sciz.InvalidArgument, "exactly one"),
    ({"rel": 0}, sciz.InvalidArgument, "positive finite"),
    ({"abs": -1}, sciz.InvalidArgument, "positive finite"),
    ({"rel": float("nan")}, sciz.InvalidArgument, "positive finite"),
    ({"rel": float("inf")}, sciz.InvalidArgument, "positive finite"),
    ({"rel": "1e-3"}, TypeError, "number"),
    ({"rel": True}, TypeError, "number"),
    ({"rel": 1e-3, "pipeline": "nope"}, sciz.InvalidArgument, "nope"),
    ({"rel": 1e-3, "pipeline": 5}, TypeError, "pipeline"),
    ({"rel": 1e-3, "device": "tpu"}, sciz.InvalidArgument, "tpu"),
    ({"rel": 1e-3, "colour": 3}, sciz.InvalidArgument, "colour"),
    ({"rel": 1e-3, "radius": 0}, sciz.InvalidArgument, "radius"),
    ({"rel": 1e-3, "radius": 2.5}, TypeError, "radius"),
    ({"rel": 1e-3, "lossless": "zip"}, sciz.InvalidArgument, "zip"),
    ({"rel": 1e-3, "delta_chain": "spiral", "pipeline": "delta"}, sciz.InvalidArgument, "spiral"),
    ({"rel": 1e-3, "szx_block": 33, "pipeline": "szx"}, sciz.InvalidArgument, "33"),
])
def test_bad_arguments_raise(smooth3d, kwargs, cls, match):
    with pytest.raises(cls, match=match):
        sciz.compress(smooth3d, **kwargs)


@pytest.mark.parametrize("x, match", [
    (np.zeros((4, 4), np.int32), "int32"),
    (np.zeros((4, 4), np.float16), "float16"),
    (np.zeros((4, 4), np.complex64), "complex64"),
    (np.zeros((2, 2, 2, 2, 2), np.float32), "5"),
    (np.float32(3.0), "0"),
    (np.zeros((0, 4), np.float32), "empty"),
])
def test_bad_arrays_raise(x, match):
    with pytest.raises(sciz.InvalidArgument, match=match):
        sciz.compress(x, rel=1e-3)


@pytest.mark.skipif(sciz.cuda_available(), reason="a GPU is usable here")
def test_cuda_without_a_gpu_raises_no_device(smooth3d):
    with pytest.raises(sciz.NoDevice):
        sciz.compress(smooth3d, rel=1e-3, device="cuda")
    with pytest.raises(RuntimeError):
        sciz.decompress(sciz.compress(smooth3d, rel=1e-3), device="cuda")


def test_non_contiguous_and_byte_swapped_inputs(smooth3d, monkeypatch, recwarn):
    from sciz import _arrays

    strided = smooth3d[:, ::2, 1::3]
    s = sciz.compress(strided, abs=0.01)
    assert_within(np.ascontiguousarray(strided), sciz.decompress(s), 0.01)
    swapped = smooth3d.astype(">f4")
    assert_within(smooth3d, sciz.decompress(sciz.compress(swapped, abs=0.01)), 0.01)
    assert not [w for w in recwarn if issubclass(w.category, sciz.CopyWarning)]  # small copies are silent
    monkeypatch.setattr(_arrays, "LARGE_COPY_BYTES", 1024)
    with pytest.warns(sciz.CopyWarning, match="not C-contiguous"):
        sciz.compress(strided, abs=0.01)
    with pytest.warns(sciz.CopyWarning, match="byte-swapped"):
        sciz.compress(swapped, abs=0.01)


def test_fortran_order_and_lists():
    f = np.asfortranarray(np.arange(600, dtype=np.float64).reshape(20, 30) / 7)
    assert_within(np.ascontiguousarray(f), sciz.decompress(sciz.compress(f, abs=1e-3)), 1e-3)
    data = [[0.5, 1.5, 2.25], [3.0, 4.0, 5.5]]
    assert_within(np.array(data), sciz.decompress(sciz.compress(data, abs=1e-3)), 1e-3)


def test_same_stream_from_many_threads(smooth3d):
    want = sciz.compress(smooth3d, rel=1e-4, pipeline="lorenzo")
    got = [None] * 8

    def work(i):
        got[i] = sciz.compress(smooth3d, rel=1e-4, pipeline="lorenzo")

    ts = [threading.Thread(target=work, args=(i,)) for i in range(len(got))]
    for t in ts:
        t.start()
    for t in ts:
        t.join()
    assert all(g == want for g in got)


def test_gil_is_released_while_compressing():
    x = np.cumsum(np.random.default_rng(1).standard_normal(12_000_000)).astype(np.float32)
    t0 = time.perf_counter()
    sciz.compress(x, rel=1e-4, device="cpu")
    one_call = time.perf_counter() - t0
    done = threading.Event()

    def work():
        sciz.compress(x, rel=1e-4, device="cpu")
        done.set()

    # This thread keeps running Python while the other one is inside the C++ call: the longest
    # pause it sees stays far below the call's length (held, the GIL would stop it throughout).
    t = threading.Thread(target=work)
    last = time.perf_counter()
    longest = 0.0
    t.start()
    while not done.is_set():
        now = time.perf_counter()
        longest = max(longest, now - last)
        last = now
    t.join()
    assert longest < 0.5 * one_call, (longest, one_call)


def test_stub_lists_what_the_module_has():
    import ast
    from pathlib import Path

    from sciz import _core

    tree = ast.parse((Path(sciz.__file__).parent / "_core.pyi").read_text())
    stubbed = {n.name for n in tree.body if isinstance(n, ast.FunctionDef)}
    stubbed |= {n.target.id for n in tree.body if isinstance(n, ast.AnnAssign)}
    stubbed |= {n.name for n in tree.body if isinstance(n, ast.ClassDef)}
    actual = {n for n in dir(_core) if not n.startswith("__")}
    assert {n for n in stubbed if not n.startswith("__")} == actual


def test_dlpack_capsules_are_read_by_the_core():
    # The capsule reader the GPU path uses, checked here on host memory (device type 1).
    from sciz import _arrays, _core

    a = np.arange(24, dtype=np.float64).reshape(2, 3, 4)[:, :, ::2]
    ptr, shape, strides, dtype, itemsize, dev_type, dev_id, owner = _core.dlpack_view(a.__dlpack__())
    assert (ptr, shape, strides, dtype, itemsize, dev_type) == (a.ctypes.data, [2, 3, 2], [12, 4, 2], "float64", 8, 1)
    assert owner is not None

    class CpuProducer:  # a DLPack producer that numpy does not know
        def __init__(self, x):
            self.x = x

        def __dlpack__(self, stream=None):
            return self.x.__dlpack__()

        def __dlpack_device__(self):
            return self.x.__dlpack_device__()

    x = np.linspace(0, 1, 1000, dtype=np.float32)
    p = _arrays.as_place(CpuProducer(x))
    assert not p.on_device and p.ptr == x.ctypes.data
    assert_within(x, sciz.decompress(sciz.compress(CpuProducer(x), abs=1e-4)), 1e-4)


def test_cuda_array_interface_on_host_memory_is_refused():
    class Fake:
        __cuda_array_interface__ = {"shape": (4,), "typestr": "<f4", "data": (np.zeros(4, np.float32).ctypes.data, False),
                                    "version": 3, "strides": None, "stream": None}

    with pytest.raises(sciz.InvalidArgument, match="not on a CUDA device"):
        sciz.compress(Fake(), abs=1e-3)
