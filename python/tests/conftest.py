"""Helpers shared by the Python suites: the real-field fixtures and the every-point check."""

from __future__ import annotations

import os
import re
from pathlib import Path

import numpy as np
import pytest

REPO = Path(__file__).resolve().parents[2]
FIXTURES = REPO / "tests" / "fixtures"
SHARED_DATA = Path(os.environ.get("SCIZ_DATA_DIR", REPO.parent / "shared" / "data"))


def load_field(path: Path) -> np.ndarray:
    """A raw little-endian field whose name ends in its dims, e.g. isabel_cut_20x50x50.f32."""
    dims = re.search(r"_(\d+(?:x\d+)*)\.f(32|64)$", path.name)
    assert dims, path.name
    shape = tuple(int(d) for d in dims.group(1).split("x"))
    return np.fromfile(path, dtype="<f4" if path.suffix == ".f32" else "<f8").reshape(shape)


def fixture_paths() -> list[Path]:
    return sorted(p for p in FIXTURES.iterdir() if p.suffix in (".f32", ".f64"))


def assert_within(x, y, eb: float) -> None:
    """Every point: a finite original comes back within eb (checked in float64, the precision a
    user checks in), a NaN or Inf comes back bit for bit (NaN payloads included)."""
    x = np.asarray(x)
    y = np.asarray(y)
    assert y.shape == x.shape and y.dtype == x.dtype, (y.shape, y.dtype, x.shape, x.dtype)
    finite = np.isfinite(x)
    err = np.abs(x[finite].astype(np.float64) - y[finite].astype(np.float64))
    bad = np.flatnonzero(~(err <= eb))  # also catches a NaN coming back for a finite value
    assert bad.size == 0, f"{bad.size} of {err.size} finite points miss eb={eb!r}; worst {np.nanmax(err)!r}"
    bits = x.view(np.uint32 if x.dtype == np.float32 else np.uint64)
    back = y.view(bits.dtype)
    assert np.array_equal(bits[~finite], back[~finite]), "a NaN or Inf did not come back bit for bit"


def chunk_slices(shape, chunks):
    """Every chunk of a chunked array as a tuple of slices (edge chunks cut at the shape)."""
    grid = [range(0, s, c) for s, c in zip(shape, chunks)]
    for origin in np.ndindex(*[len(g) for g in grid]):
        yield tuple(slice(g[i], min(g[i] + c, s)) for g, i, c, s in zip(grid, origin, chunks, shape))


def rel_bound(values: np.ndarray, rel: float) -> float:
    """sciz's resolution of a relative bound over these values (docs/FORMAT.md)."""
    finite = values[np.isfinite(values)].astype(np.float64)
    if finite.size == 0:
        return rel
    lo, hi = finite.min(), finite.max()
    if hi > lo:
        return rel * (hi - lo)
    m = np.abs(finite).max()
    return rel * m if m > 0 else rel


@pytest.fixture
def smooth3d() -> np.ndarray:
    z, y, x = np.meshgrid(np.linspace(0, 3, 24), np.linspace(0, 4, 40), np.linspace(0, 5, 56), indexing="ij")
    return (np.sin(x) * np.cos(y) * 50 + z * 3).astype(np.float32)
