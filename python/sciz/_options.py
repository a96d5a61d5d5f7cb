"""Checking the bound and the ``**options`` of ``compress`` before they reach the C++ core."""

from __future__ import annotations

import math
import numbers
from typing import Any

from ._errors import InvalidArgument

# name -> (type, what the value is), for the messages.
_OPTIONS: dict[str, tuple[type, str]] = {
    "radius": (int, "lorenzo's quantisation radius, 1..32768"),
    "lossless": (str, "lorenzo's stage for the quant codes: auto, huffman, rle, rle+huffman, zrle+huffman, bitpack"),
    "stages": (str, "a list of lossless stages for the quant codes, e.g. 'huffman,rre4,tcms8,rze1' or 'interp-cr'"),
    "delta_chain": (str, "delta's chain order: auto, linear, serpentine"),
    "szx_block": (int, "szx's values per block, a multiple of 32 in 32..4096"),
    "chunk_mb": (float, "MiB of input per chunk along the slowest axis (0: one chunk)"),
    "gpu_memory": (int, "bytes of GPU memory sciz may hold per device (0: what is free)"),
    "devices": (list, "CUDA devices to spread chunks over, e.g. [0, 1]"),
}

OPTION_NAMES = tuple(_OPTIONS)


def bound(rel: Any, abs: Any) -> tuple[str, float]:  # noqa: A002 - the public keyword is abs
    """('rel' | 'abs', value) from the two keywords, exactly one of which must be given."""
    if (rel is None) == (abs is None):
        raise InvalidArgument("give exactly one error bound: rel=... (relative to the value range) or abs=...")
    mode, value = ("rel", rel) if rel is not None else ("abs", abs)
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise TypeError(f"{mode}= must be a number, got {type(value).__name__}")
    value = float(value)
    if not math.isfinite(value) or value <= 0:
        raise InvalidArgument(f"error bound {mode}={value!r} must be a positive finite number")
    return mode, value


def check(options: dict[str, Any]) -> dict[str, Any]:
    """The options typed as the core expects them; unknown names are refused by name."""
    out: dict[str, Any] = {}
    for name, value in options.items():
        if name not in _OPTIONS:
            raise InvalidArgument(f"unknown option {name!r}; sciz.compress takes rel, abs, pipeline, device and "
                                  + ", ".join(OPTION_NAMES))
        kind, what = _OPTIONS[name]
        if value is None:
            continue  # the default
        if kind is int:
            if isinstance(value, bool) or not isinstance(value, numbers.Integral):
                raise TypeError(f"option {name} must be an integer ({what}), got {value!r}")
            limit = 2**63 - 1 if name == "gpu_memory" else 2**31 - 1
            if not 0 <= int(value) <= limit:
                raise InvalidArgument(f"option {name}={value} is out of range ({what})")
            out[name] = int(value)
        elif kind is float:
            if isinstance(value, bool) or not isinstance(value, numbers.Real):
                raise TypeError(f"option {name} must be a number ({what}), got {value!r}")
            out[name] = float(value)
        elif kind is str:
            if not isinstance(value, str):
                raise TypeError(f"option {name} must be a string ({what}), got {value!r}")
            out[name] = value
        else:
            if isinstance(value, (str, bytes)) or not all(isinstance(d, numbers.Integral) for d in value):
                raise TypeError(f"option {name} must be a list of integers ({what}), got {value!r}")
            out[name] = [int(d) for d in value]
    if "radius" in out and not 1 <= out["radius"] <= 32768:
        raise InvalidArgument(f"radius {out['radius']} is outside 1..32768")
    return out


def pipeline(name: Any) -> str:
    if not isinstance(name, str):
        raise TypeError(f"pipeline must be a name such as 'lorenzo', got {type(name).__name__}")
    return name


def device(name: Any) -> str:
    if name not in ("auto", "cpu", "cuda", "gpu"):
        raise InvalidArgument(f"unknown device {name!r} (expected 'auto', 'cpu' or 'cuda')")
    return "cuda" if name == "gpu" else name
