"""``python -m sciz``: the CLI's ``eval`` (and ``info``) for .npy files, through the Python
package. Same report, same JSON keys, same exit statuses as ``sciz eval``: 0 success, 1 data
or stream error, 2 usage error, 3 a point missed the bound."""

from __future__ import annotations

import argparse
import json
import math
import statistics
import sys
import time
from typing import Any

import numpy as np

from . import _api, _core
from ._errors import Error, InvalidArgument

EXIT_OK, EXIT_DATA, EXIT_USAGE, EXIT_BOUND = 0, 1, 2, 3


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> None:  # argparse exits with 2 too; keep sciz's prefix
        self.print_usage(sys.stderr)
        print(f"sciz: error: {message}", file=sys.stderr)
        sys.exit(EXIT_USAGE)


def _parser() -> argparse.ArgumentParser:
    p = _Parser(prog="python -m sciz", description="sciz through its Python package: eval and info on files.")
    sub = p.add_subparsers(dest="command", required=True)
    e = sub.add_parser("eval", help="compress + decompress + compare: ratio, errors, PSNR, SSIM, speed")
    e.add_argument("-i", "--input", required=True, help="a .npy file (little-endian float32/float64), or raw values with -t and -d")
    e.add_argument("-o", "--output", help="also keep the stream")
    e.add_argument("-t", "--type", help="f32 or f64, for raw input")
    e.add_argument("-d", "--dims", help="e.g. 100x500x500, slowest to fastest, for raw input")
    b = e.add_mutually_exclusive_group(required=True)
    b.add_argument("-r", "--rel", type=float, help="bound relative to the finite value range")
    b.add_argument("-a", "--abs", type=float, help="absolute bound")
    e.add_argument("-p", "--pipeline", default="lorenzo")
    e.add_argument("--device", default="auto", choices=["auto", "cpu", "cuda", "gpu"])
    e.add_argument("--radius", type=int)
    e.add_argument("--lossless")
    e.add_argument("--stages")
    e.add_argument("--delta-chain")
    e.add_argument("--szx-block", type=int)
    e.add_argument("--chunk-mb", type=float)
    e.add_argument("--runs", type=int, default=None,
                   help="median of N compressions and decompressions, and the first call "
                        "(default 5 up to 64 MiB of input, else 1, as the CLI)")
    e.add_argument("--json", action="store_true", help="one JSON object instead of a table")
    e.add_argument("-q", "--quiet", action="store_true")
    i = sub.add_parser("info", help="describe a stream (every checksum verified)")
    i.add_argument("-i", "--input", required=True)
    i.add_argument("--json", action="store_true")
    return p


def _read_field(a: argparse.Namespace) -> np.ndarray:
    with open(a.input, "rb") as f:
        magic = f.read(6)
    if magic == b"\x93NUMPY":
        x = np.load(a.input, mmap_mode="r", allow_pickle=False)
        if x.dtype not in (np.dtype("<f4"), np.dtype("<f8")) or not x.flags.c_contiguous:
            raise InvalidArgument(f"'{a.input}' holds {x.dtype.str} in {'C' if x.flags.c_contiguous else 'Fortran'} "
                                  "order; sciz eval takes little-endian float32/float64 in C order")
        want = {"f32": "float32", "float32": "float32", "f64": "float64", "float64": "float64"}
        if a.type and want.get(a.type) != x.dtype.name:
            raise InvalidArgument(f"-t {a.type} does not match '{a.input}', which holds {x.dtype.name}")
        if a.dims and tuple(int(d) for d in a.dims.split("x")) != x.shape:
            raise InvalidArgument(f"-d {a.dims} does not match '{a.input}', of shape {'x'.join(map(str, x.shape))}")
        return np.ascontiguousarray(x)
    if not a.type or not a.dims:
        raise InvalidArgument(f"'{a.input}' is not a .npy file: give its type (-t) and dims (-d)")
    dtype = {"f32": "<f4", "float32": "<f4", "f64": "<f8", "float64": "<f8"}.get(a.type)
    if dtype is None:
        raise InvalidArgument(f"unknown data type '{a.type}' (expected f32 or f64)")
    shape = tuple(int(d) for d in a.dims.split("x"))
    x = np.fromfile(a.input, dtype=dtype)
    if x.size != math.prod(shape):
        raise InvalidArgument(f"'{a.input}' holds {x.size} values, dims {a.dims} need {math.prod(shape)}")
    return x.reshape(shape)


def _g(v: float, digits: int = 6) -> str:
    if math.isnan(v):
        return "nan"
    if math.isinf(v):
        return "inf" if v > 0 else "-inf"
    return f"{v:.{digits}g}"


def _finite_or_none(v: Any) -> Any:
    return None if isinstance(v, float) and not math.isfinite(v) else v


def _eval(a: argparse.Namespace) -> int:
    x = _read_field(a)
    device = "cuda" if a.device in ("cuda", "gpu") or (a.device == "auto" and _api.cuda_available()) else "cpu"
    bound = {"rel": a.rel} if a.rel is not None else {"abs": a.abs}
    opts = {k: v for k, v in {"radius": a.radius, "lossless": a.lossless, "stages": a.stages, "delta_chain": a.delta_chain,
                              "szx_block": a.szx_block, "chunk_mb": a.chunk_mb}.items() if v is not None}
    # Without --runs, the CLI's rule (tools/sciz/command_util.hpp, eval_runs): a small field's
    # first call is mostly the process's one-time costs, so the median of several is what a
    # call costs. A --runs below 1 still means one run, as before.
    runs = max(1, a.runs) if a.runs is not None else (5 if x.nbytes <= (64 << 20) else 1)
    tc, td = [], []
    for _ in range(runs):
        t0 = time.perf_counter()
        stream = _api.compress(x, pipeline=a.pipeline, device=device, **bound, **opts)
        tc.append(time.perf_counter() - t0)
    info = _api.info(stream)
    y = np.empty_like(x)
    for _ in range(runs):
        t0 = time.perf_counter()
        _api.decompress(stream, out=y, device=device)
        td.append(time.perf_counter() - t0)
    q = _core.compare(x.ctypes.data, y.ctypes.data, x.dtype.name, list(x.shape))
    if a.output:
        with open(a.output, "wb") as f:
            f.write(stream)

    eb = info["eb_abs"]
    held = q["max_abs_err"] <= eb and q["nonfinite_mismatch"] == 0
    ratio = x.nbytes / len(stream)
    bits = 8.0 * len(stream) / x.size
    over = q["max_abs_err"] / eb
    cgbps = x.nbytes / statistics.median(tc) / 1e9
    dgbps = x.nbytes / statistics.median(td) / 1e9
    c1gbps, d1gbps = x.nbytes / tc[0] / 1e9, x.nbytes / td[0] / 1e9
    dtype = "f32" if x.dtype == np.float32 else "f64"
    if a.json:
        j = {"input": a.input, "pipeline": a.pipeline, "device": device, "dims": list(x.shape), "dtype": dtype,
             "eb_abs": eb, "eb_rel": a.rel, "original_bytes": x.nbytes, "compressed_bytes": len(stream),
             "ratio": ratio, "bit_rate": bits, "max_abs_err": q["max_abs_err"], "max_err_over_eb": over,
             "bound_held": held, "psnr_db": q["psnr_db"], "nrmse": q["nrmse"], "ssim": q["ssim"], "rmse": q["rmse"],
             "value_range": q["value_range"], "n": q["n"], "n_compared": q["n_compared"],
             "nonfinite_mismatch": q["nonfinite_mismatch"], "compress_gbps": cgbps, "decompress_gbps": dgbps,
             "compress_first_gbps": c1gbps, "decompress_first_gbps": d1gbps, "runs": runs}
        print(json.dumps({k: _finite_or_none(v) for k, v in j.items()}, indent=2))
    else:
        rows = [("pipeline", a.pipeline), ("device", device), ("dims", "x".join(map(str, x.shape))), ("dtype", dtype),
                ("eb (abs)", _g(eb))]
        if a.rel is not None:
            rows.append(("eb (rel)", _g(a.rel)))
        def speed(med: float, first: float) -> str:
            if runs == 1:
                return _g(med, 4) + " GB/s"
            return f"{_g(med, 4)} GB/s (median of {runs} calls; the first {_g(first, 3)})"

        rows += [("original bytes", str(x.nbytes)), ("compressed bytes", str(len(stream))), ("ratio", _g(ratio, 4)),
                 ("bit rate", _g(bits, 4) + " bits/value"), ("max abs error", _g(q["max_abs_err"])),
                 ("max error / eb", _g(over, 6)), ("bound held", "yes" if held else "no")]
        if q["nonfinite_mismatch"]:
            rows.append(("non-finite mismatch", str(q["nonfinite_mismatch"])))
        rows += [("PSNR", _g(q["psnr_db"], 5) + " dB"), ("NRMSE", _g(q["nrmse"], 4)), ("SSIM", _g(q["ssim"], 6)),
                 ("compress", speed(cgbps, c1gbps)), ("decompress", speed(dgbps, d1gbps))]
        w = max(len(k) for k, _ in rows)
        print("".join(f"{k}{' ' * (w + 2 - len(k))}{v}\n" for k, v in rows), end="")
    sys.stdout.flush()
    if not held:
        print(f"sciz: error: bound violated on '{a.input}': max abs error {_g(q['max_abs_err'], 9)} vs eb {_g(eb, 9)}, "
              f"{q['nonfinite_mismatch']} non-finite mismatches", file=sys.stderr)
        return EXIT_BOUND
    return EXIT_OK


def _info(a: argparse.Namespace) -> int:
    with open(a.input, "rb") as f:
        info = _api.info(f.read())
    if a.json:
        print(json.dumps({k: _finite_or_none(v) for k, v in info.items()}, indent=2))
    else:
        for k, v in info.items():
            if k not in ("sections", "chunks"):
                print(f"{k:16} {v}")
        print(f"{'chunks':16} {len(info['chunks'])}")
        print(f"{'sections':16} {len(info['sections'])} in the first chunk")
    return EXIT_OK


def main(argv: list[str] | None = None) -> int:
    a = _parser().parse_args(argv)
    try:
        return _eval(a) if a.command == "eval" else _info(a)
    except Error as e:
        print(f"sciz: error: '{a.input}': {e}", file=sys.stderr)
        return EXIT_USAGE if isinstance(e, InvalidArgument) else EXIT_DATA
    except OSError as e:
        print(f"sciz: error: {e}", file=sys.stderr)
        return EXIT_DATA
