"""sciz.refactor / sciz.Retriever / sciz.retrieve: the bound on every point at every bound,
progressive refinement equal to a fresh retrieval, resuming from a state, the bytes read
growing with the precision, and wrong input as exceptions of the right kind."""

from __future__ import annotations

import numpy as np
import pytest

import sciz
from conftest import assert_within, fixture_paths, load_field


@pytest.mark.parametrize("path", fixture_paths()[:4], ids=lambda p: p.stem)
def test_fixture_every_bound(path):
    x = load_field(path)
    f = sciz.refactor(x)
    r = sciz.Retriever(f)
    info = r.info
    assert info["dtype"] == str(x.dtype) and tuple(info["shape"]) == x.shape
    assert info["file_bytes"] == len(f)
    read = []
    for rel in (1e-1, 1e-3, 1e-5):
        fresh = sciz.Retriever(f)
        y = fresh.retrieve(rel=rel)
        got = fresh.last
        assert got["met"] and got["bound"] <= got["requested"]
        assert got["requested"] == pytest.approx(fresh.resolve(rel=rel))
        assert_within(x, y, got["bound"])
        assert fresh.plan(rel=rel)["bytes_read"] == got["bytes_read"]
        read.append(got["bytes_read"])
        # Progressively: the same values as the fresh retrieval.
        z = r.retrieve(rel=rel)
        assert np.array_equal(y.view(np.uint8), z.view(np.uint8))
    assert read == sorted(read)


def test_special_values_and_f64():
    rng = np.random.default_rng(3)
    x = rng.standard_normal((9, 17, 13))
    x[0, 0, 0] = np.nan
    x[1, 2, 3] = -np.inf
    f = sciz.refactor(x, planes_per_group=4)
    y = sciz.retrieve(f, abs=1e-6)
    assert_within(x, y, 1e-6)


def test_state_resumes_where_it_stopped():
    x = np.linspace(0, 1, 20000, dtype=np.float32).reshape(100, 200) ** 2
    f = sciz.refactor(x)
    a = sciz.Retriever(f)
    a.retrieve(rel=1e-2)
    b = sciz.Retriever(f, state=a.state())
    assert b.held_bound == a.held_bound and b.held_bytes == a.held_bytes
    y = b.retrieve(rel=1e-4)
    assert b.last["bytes_read"] < sciz.Retriever(f).plan(rel=1e-4)["bytes_read"]
    assert np.array_equal(y, sciz.retrieve(f, rel=1e-4))
    assert b.next_bound <= b.held_bound


def test_out_array_is_filled():
    x = np.random.default_rng(1).standard_normal(5000).astype(np.float32)
    f = sciz.refactor(x)
    out = np.empty(5000, dtype=np.float32)
    assert sciz.Retriever(f).retrieve(rel=1e-3, out=out) is out
    with pytest.raises(sciz.InvalidArgument):
        sciz.Retriever(f).retrieve(rel=1e-3, out=np.empty(4999, dtype=np.float32))
    with pytest.raises(sciz.InvalidArgument):
        sciz.Retriever(f).retrieve(rel=1e-3, out=np.empty(5000, dtype=np.float64))


def test_wrong_input_is_refused():
    x = np.ones(100, dtype=np.float32)
    f = sciz.refactor(x)
    with pytest.raises(sciz.InvalidArgument):
        sciz.refactor(np.ones(10, dtype=np.int32))
    with pytest.raises(sciz.InvalidArgument):
        sciz.refactor(x, planes_per_group=0)
    with pytest.raises(sciz.InvalidArgument):
        sciz.refactor(x, planes_per_group=40)
    with pytest.raises(sciz.InvalidArgument):
        sciz.Retriever(f).retrieve()
    with pytest.raises(sciz.CorruptStream):
        sciz.Retriever(f[: len(f) // 2])
    damaged = bytearray(f)
    damaged[10] ^= 0xFF
    with pytest.raises(sciz.Error):
        sciz.Retriever(bytes(damaged))
    with pytest.raises(sciz.Error):
        sciz.Retriever(f, state=b"not a state")
