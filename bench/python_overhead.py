"""What the Python layer costs over the C++ API it calls (issue 16's targets), measured in
one process on one machine: the C++ side is timed inside sciz._core, without Python.

  1 MB host array:  sciz.compress          vs  sciz::compress()             (target <= 1.2x the time)
  1 GB CuPy array:  sciz.compress_on_device vs sciz::compress_into() device (target >= 0.9x the GB/s)
                    and sciz.compress (bytes on the host) for reference

Usage: python bench/python_overhead.py [--field F.f32 --dims 100x100x100] [--gb 1] [--json out.json]
"""

from __future__ import annotations

import argparse
import json
import statistics
import time

import numpy as np

import sciz
from sciz import _arrays, _core


def smooth(shape, dtype=np.float32):
    grids = np.meshgrid(*[np.linspace(0, 6, n, dtype=np.float64) for n in shape], indexing="ij", sparse=True)
    v = sum(np.sin(g * (k + 1)) for k, g in enumerate(grids))
    return (v * 40).astype(dtype)


def interleaved(py_call, cpp_call, runs, sync=lambda: None):
    """Median seconds of the Python call and of the C++ call, timed alternately so that drift
    in the machine's load (shared cores, clocks) falls on both alike."""
    py_call()
    sync()
    cpp_call()  # warm-up: pools, pinned buffers, CUDA context, OpenMP threads
    py, cpp = [], []
    for _ in range(runs):
        t0 = time.perf_counter()
        py_call()
        sync()
        py.append(time.perf_counter() - t0)
        cpp.append(cpp_call())
    return statistics.median(py), statistics.median(cpp)


def cpp_once(place, device, out=0, out_device=-1, capacity=0, **bound):
    """One C++ call, timed inside the module (no Python in the measured interval)."""
    mode, eb = next(iter(bound.items()))
    return _core._time_compress(place.ptr, place.device, place.dtype, list(place.shape), mode, eb, "lorenzo", device,
                                {}, place.stream, out, out_device, capacity, 1)[0]


def host_1mb(runs):
    x = smooth((512, 512))  # 1 MiB of float32
    p = _arrays.as_place(x)
    rows = []
    for device in ["cpu"] + (["cuda"] if sciz.cuda_available() else []):
        py, cpp = interleaved(lambda: sciz.compress(x, rel=1e-3, device=device), lambda: cpp_once(p, device, rel=1e-3),
                              runs)
        rows.append({"case": f"1 MiB host f32, device {device}", "python_s": py, "cpp_s": cpp, "python_over_cpp": py / cpp,
                     "target": "<= 1.2"})
    return rows


def device_1gb(runs, field, dims, gb):
    import cupy as cp

    if field:
        base = np.fromfile(field, dtype=np.float32).reshape(dims)
        reps = max(1, round(gb * 2**30 / base.nbytes))
        x = cp.tile(cp.asarray(base), (reps, 1, 1))
    else:
        n = int(gb * 2**30 // 4)
        x = cp.cumsum(cp.random.default_rng(1).standard_normal(n, dtype=cp.float32)).reshape(-1, 4096)
    p = _arrays.as_place(x)
    sync = cp.cuda.get_current_stream().synchronize
    cap = _core.max_compressed_size("float32", list(x.shape), "lorenzo", _core.default_chunk_mb)
    out = cp.empty(cap, cp.uint8)
    cpp_call = lambda: cpp_once(p, "cuda", out=out.data.ptr, out_device=p.device, capacity=cap, rel=1e-3)  # noqa: E731
    py_dev, cpp = interleaved(lambda: sciz.compress_on_device(x, rel=1e-3), cpp_call, runs, sync)
    py_host, _ = interleaved(lambda: sciz.compress(x, rel=1e-3), cpp_call, runs, sync)
    gbs = lambda s: x.nbytes / s / 1e9  # noqa: E731
    ratio = x.nbytes / len(sciz.compress(x, rel=1e-3))
    return [
        {"case": f"{x.nbytes / 2**30:.2f} GiB CuPy f32 -> device stream", "python_gbs": gbs(py_dev),
         "cpp_gbs": gbs(cpp), "python_over_cpp": cpp / py_dev, "target": ">= 0.9", "ratio": ratio},
        {"case": f"{x.nbytes / 2**30:.2f} GiB CuPy f32 -> bytes on the host", "python_gbs": gbs(py_host),
         "cpp_gbs": gbs(cpp), "python_over_cpp": cpp / py_host, "target": "(reference)", "ratio": ratio},
    ]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--field")
    ap.add_argument("--dims", default="100x100x100")
    ap.add_argument("--gb", type=float, default=1.0)
    ap.add_argument("--runs", type=int, default=20)
    ap.add_argument("--json")
    a = ap.parse_args()
    rows = host_1mb(max(a.runs, 50))
    try:
        import cupy  # noqa: F401
        have_cupy = sciz.cuda_available()
    except ImportError:
        have_cupy = False
    if have_cupy:
        rows += device_1gb(a.runs, a.field, tuple(int(d) for d in a.dims.split("x")), a.gb)
    for r in rows:
        if "python_s" in r:
            print(f"{r['case']:44} python {r['python_s'] * 1e3:8.3f} ms  C++ {r['cpp_s'] * 1e3:8.3f} ms  "
                  f"python/C++ {r['python_over_cpp']:.3f} (target {r['target']})")
        else:
            print(f"{r['case']:44} python {r['python_gbs']:8.1f} GB/s  C++ {r['cpp_gbs']:8.1f} GB/s  "
                  f"fraction {r['python_over_cpp']:.3f} (target {r['target']}), ratio {r['ratio']:.2f}")
    if a.json:
        with open(a.json, "w") as f:
            json.dump(rows, f, indent=2)


if __name__ == "__main__":
    main()
