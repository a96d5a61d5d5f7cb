"""Device arrays: CuPy and PyTorch CUDA tensors (DLPack), __cuda_array_interface__ producers,
the consumer stream handshake of each protocol, outputs on the array's device, Zarr's GPU
buffers. Skipped, each for its reason, without a GPU, a CUDA build of sciz, CuPy or PyTorch.
scripts/gpu_python_check.sh runs them on the device machine."""

from __future__ import annotations

import numpy as np
import pytest

import sciz
from conftest import assert_within

pytestmark = pytest.mark.gpu

if not sciz.CUDA_BUILT:
    pytest.skip("this sciz was built without CUDA", allow_module_level=True)
if not sciz.cuda_available():
    pytest.skip("no usable CUDA GPU", allow_module_level=True)


def _cupy():
    try:
        import cupy
        return cupy if cupy.cuda.runtime.getDeviceCount() > 0 else None
    except Exception:  # not installed, or installed for another CUDA
        return None


def _torch():
    try:
        import torch
        return torch if torch.cuda.is_available() else None
    except Exception:
        return None


cp = _cupy()
torch = _torch()
needs_cupy = pytest.mark.skipif(cp is None, reason="CuPy with a GPU is not available")
needs_torch = pytest.mark.skipif(torch is None, reason="PyTorch with CUDA is not available")


@pytest.fixture
def field():
    rng = np.random.default_rng(11)
    x = np.cumsum(np.cumsum(rng.standard_normal((64, 96, 128)), axis=2), axis=1).astype(np.float32)
    x[0, 0, :5] = np.nan
    x[9, 9, 9] = np.inf
    return x


def stream_bytes_of(s: bytes):
    return np.frombuffer(s, dtype=np.uint8)


@needs_cupy
@pytest.mark.parametrize("pipeline", ["lorenzo", "delta", "szx"])
def test_cupy_round_trip_same_stream_as_the_cpu(field, pipeline):
    x = cp.asarray(field)
    s = sciz.compress(x, rel=1e-3, pipeline=pipeline)
    assert s == sciz.compress(field, rel=1e-3, pipeline=pipeline, device="cpu")
    y = sciz.decompress(cp.asarray(stream_bytes_of(s)))
    assert isinstance(y, cp.ndarray) and y.device == x.device and y.shape == field.shape
    assert_within(field, cp.asnumpy(y), sciz.info(s)["eb_abs"])


@needs_cupy
def test_cupy_outputs(field):
    s = sciz.compress(field, abs=0.05, device="cpu")
    out = cp.full(field.shape, -1, cp.float32)
    assert sciz.decompress(s, out=out, device="cuda") is out  # host stream, device out: written there
    assert_within(field, cp.asnumpy(out), 0.05)
    host = sciz.decompress(s, device="cuda")  # decoded on the GPU, returned where the stream is
    assert isinstance(host, np.ndarray)
    assert_within(field, host, 0.05)
    d = sciz.compress_on_device(cp.asarray(field), abs=0.05)
    assert isinstance(d, cp.ndarray) and d.dtype == cp.uint8 and bytes(cp.asnumpy(d)) == s
    with pytest.raises(sciz.InvalidArgument, match="float64"):
        sciz.decompress(s, out=cp.empty(field.shape, cp.float64))
    with pytest.raises(sciz.InvalidArgument, match="contiguous"):
        sciz.decompress(s, out=cp.empty((64, 96, 256), cp.float32)[:, :, ::2])


@needs_cupy
def test_cupy_cpu_device_and_non_contiguous(field):
    x = cp.asarray(field)
    assert sciz.compress(x, abs=0.05, device="cpu") == sciz.compress(field, abs=0.05, device="cpu")
    strided = x[:, ::2, 1::3]
    s = sciz.compress(strided, abs=0.05)
    assert_within(np.ascontiguousarray(field[:, ::2, 1::3]), sciz.decompress(s), 0.05)


@needs_cupy
def test_cupy_non_default_stream(field):
    s1 = cp.cuda.Stream(non_blocking=True)
    with s1:
        x = cp.asarray(field)
        for _ in range(50):  # queue work on s1 that must finish before sciz reads x
            x = x * 1.0001 + 0.5
        stream = sciz.compress(x, abs=0.05)
        y = sciz.decompress(cp.asarray(stream_bytes_of(stream)))
        expect = cp.asnumpy(x)
        got = cp.asnumpy(y)
    assert stream == sciz.compress(expect, abs=0.05, device="cpu")
    assert_within(expect, got, 0.05)


class _CaiOnly:
    """A producer that speaks only __cuda_array_interface__ (version 3, with its stream)."""

    def __init__(self, a, stream_ptr):
        self._a = a
        cai = dict(a.__cuda_array_interface__)
        cai["stream"] = stream_ptr
        cai["version"] = 3
        self.__cuda_array_interface__ = cai


class _DlpackOnly:
    def __init__(self, a):
        self._a = a

    def __dlpack__(self, stream=None):
        return self._a.__dlpack__(stream=stream)

    def __dlpack_device__(self):
        return self._a.__dlpack_device__()


@needs_cupy
def test_cuda_array_interface_waits_on_the_producer_stream(field):
    s1 = cp.cuda.Stream(non_blocking=True)
    big = np.tile(field, (4, 1, 1))
    with s1:
        x = cp.asarray(big)
        for _ in range(200):
            x = cp.sin(x) * 40.0
    # Compressed on the legacy default stream, which does not wait for a non-blocking stream by
    # itself: only the event sciz records from the interface's "stream" orders the reads.
    stream = sciz.compress(_CaiOnly(x, s1.ptr), abs=0.01)
    s1.synchronize()
    assert stream == sciz.compress(cp.asnumpy(x), abs=0.01, device="cpu")


@needs_cupy
def test_dlpack_consumer_stream_is_passed(field):
    s1 = cp.cuda.Stream(non_blocking=True)
    big = np.tile(field, (4, 1, 1))
    with s1:
        x = cp.asarray(big)
        for _ in range(200):
            x = cp.sin(x) * 40.0
        # The producer's current stream is s1; sciz consumes on the legacy default stream and
        # asks __dlpack__ for it, so CuPy must order s1's work before it.
        stream = sciz.compress(_DlpackOnly(x), abs=0.01)
    s1.synchronize()
    assert stream == sciz.compress(cp.asnumpy(x), abs=0.01, device="cpu")


@needs_torch
def test_torch_round_trip_and_streams(field):
    dev = torch.device("cuda", 0)
    x = torch.from_numpy(field).to(dev)
    s = sciz.compress(x, rel=1e-3)
    assert s == sciz.compress(field, rel=1e-3, device="cpu")
    y = sciz.decompress(torch.frombuffer(bytearray(s), dtype=torch.uint8).to(dev))
    assert isinstance(y, torch.Tensor) and y.device == dev and y.dtype == torch.float32
    assert_within(field, y.cpu().numpy(), sciz.info(s)["eb_abs"])
    out = torch.empty(field.shape, dtype=torch.float32, device=dev)
    assert sciz.decompress(s, out=out) is out
    assert_within(field, out.cpu().numpy(), sciz.info(s)["eb_abs"])
    side = torch.cuda.Stream()
    side.wait_stream(torch.cuda.current_stream())  # x was made on the default stream
    with torch.cuda.stream(side):
        z = x.clone()
        for _ in range(50):
            z = z * 1.0001 + 0.5
        t = sciz.compress(z, abs=0.05)
        back = sciz.decompress(torch.frombuffer(bytearray(t), dtype=torch.uint8).to(dev))
        expect, got = z.cpu().numpy(), back.cpu().numpy()
    assert t == sciz.compress(expect, abs=0.05, device="cpu")
    assert_within(expect, got, 0.05)
    g = torch.from_numpy(field).to(dev).requires_grad_(True)
    assert sciz.compress(g, abs=0.05) == sciz.compress(field, abs=0.05, device="cpu")


@needs_torch
def test_torch_non_contiguous(field):
    x = torch.from_numpy(field).cuda().transpose(0, 2)
    s = sciz.compress(x, abs=0.05)
    assert_within(np.ascontiguousarray(field.transpose(2, 1, 0)), sciz.decompress(s), 0.05)


@pytest.mark.skipif(cp is None or cp.cuda.runtime.getDeviceCount() < 2, reason="needs two GPUs and CuPy")
def test_second_gpu(field):
    with cp.cuda.Device(1):
        x = cp.asarray(field)
        d = sciz.compress_on_device(x, abs=0.05)
    assert d.device.id == 1
    y = sciz.decompress(d)
    assert y.device.id == 1
    assert_within(field, cp.asnumpy(y), 0.05)
    with pytest.raises(sciz.InvalidArgument, match="cuda:1"):
        with cp.cuda.Device(0):
            sciz.decompress(d, out=cp.empty(field.shape, cp.float32))


@needs_cupy
def test_numcodecs_with_cupy(field):
    numcodecs = pytest.importorskip("numcodecs")
    c = numcodecs.get_codec({"id": "sciz", "abs": 0.05})
    enc = c.encode(cp.asarray(field))
    dec = c.decode(cp.asarray(stream_bytes_of(enc)))
    assert isinstance(dec, cp.ndarray)
    assert_within(field, cp.asnumpy(dec), 0.05)


@needs_cupy
def test_zarr_gpu_buffers_stay_on_the_device(field, monkeypatch):
    zarr = pytest.importorskip("zarr")
    import sciz._api
    from sciz.zarr import Sciz

    calls = []
    real = sciz._api.compress_on_device
    monkeypatch.setattr(sciz._api, "compress_on_device", lambda *a, **k: calls.append(1) or real(*a, **k))
    with zarr.config.enable_gpu():
        store = zarr.storage.MemoryStore()
        z = zarr.create_array(store, shape=field.shape, chunks=(32, 48, 128), dtype="float32",
                              serializer=Sciz(abs=0.05), compressors=None)
        z[:] = cp.asarray(field)
        back = zarr.open_array(store)[:]
    assert isinstance(back, cp.ndarray)
    assert len(calls) == 4  # every chunk compressed on the GPU
    assert_within(field, cp.asnumpy(back), 0.05)


@needs_cupy
def test_large_multi_chunk_field_on_device():
    n = 64 * 2**20  # 256 MB of float32: two chunks at the default 128 MiB
    x = cp.cumsum(cp.random.default_rng(3).standard_normal(n, dtype=cp.float32)).reshape(1024, -1)
    d = sciz.compress_on_device(x, rel=1e-4)
    info = sciz.info(d)
    assert len(info["chunks"]) >= 2
    y = sciz.decompress(d)
    assert float(cp.max(cp.abs(y.astype(cp.float64) - x.astype(cp.float64)))) <= info["eb_abs"]
