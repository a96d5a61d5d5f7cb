"""python -m sciz eval / info: the CLI's report through the Python package."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys

import numpy as np
import pytest

from conftest import fixture_paths, load_field


def run(*args, check=True):
    return subprocess.run([sys.executable, "-m", "sciz", *map(str, args)], capture_output=True, text=True,
                          check=check)


@pytest.fixture
def npy(tmp_path):
    x = load_field(next(p for p in fixture_paths() if "isabel" in p.name))
    path = tmp_path / "isabel.npy"
    np.save(path, x)
    return path


def test_eval_table_and_json(npy):
    table = run("eval", "-i", npy, "-r", "1e-3", "--device", "cpu").stdout
    assert "bound held        yes" in table and "ratio" in table and "SSIM" in table
    j = json.loads(run("eval", "-i", npy, "-r", "1e-3", "--device", "cpu", "-p", "delta", "--json").stdout)
    assert j["bound_held"] is True and j["pipeline"] == "delta" and j["dims"] == [20, 50, 50]
    assert j["max_abs_err"] <= j["eb_abs"] and j["compressed_bytes"] > 0
    # a 200 KB field is timed five times (as the CLI does), the first call reported apart
    assert j["runs"] == 5 and j["compress_first_gbps"] > 0 and j["decompress_first_gbps"] > 0
    assert "(median of 5 calls; the first " in table
    one = json.loads(run("eval", "-i", npy, "-r", "1e-3", "--device", "cpu", "--json", "--runs", "1").stdout)
    assert one["runs"] == 1 and one["compress_gbps"] == one["compress_first_gbps"]


def test_eval_matches_the_cli(npy, tmp_path):
    cli = shutil.which("sciz", path=str(sys.prefix) + "/bin") or shutil.which("sciz")
    if cli is None:
        pytest.skip("the sciz CLI is not installed beside this Python")
    args = ["eval", "-i", str(npy), "-a", "0.05", "--device", "cpu", "--json"]
    ours = json.loads(run(*args).stdout)
    theirs = json.loads(subprocess.run([cli, *args, "-q"], capture_output=True, text=True, check=True).stdout)
    assert ours.keys() == theirs.keys()
    for k in ("compressed_bytes", "ratio", "max_abs_err", "psnr_db", "ssim", "nrmse", "n_compared", "eb_abs"):
        assert ours[k] == theirs[k], k


def test_eval_keeps_the_stream_and_info_reads_it(npy, tmp_path):
    out = tmp_path / "f.sciz"
    run("eval", "-i", npy, "-r", "1e-3", "--device", "cpu", "-o", out, "-q")
    info = json.loads(run("info", "-i", out, "--json").stdout)
    assert info["shape"] == [20, 50, 50] and info["stream_bytes"] == out.stat().st_size


def test_eval_raw_input_with_type_and_dims(tmp_path):
    p = next(p for p in fixture_paths() if "etopo" in p.name)
    j = json.loads(run("eval", "-i", p, "-t", "f32", "-d", "101x201", "-r", "1e-2", "--device", "cpu", "--json").stdout)
    assert j["bound_held"] is True and j["n"] == 101 * 201


@pytest.mark.parametrize("args, rc, msg", [
    (["eval", "-i", "missing.npy", "-r", "1e-3"], 1, "missing.npy"),
    (["eval", "-i", "{npy}", "-r", "-1"], 2, "positive"),
    (["eval", "-i", "{npy}"], 2, "-r/--rel"),
    (["eval", "-i", "{ints}", "-r", "1e-3"], 2, "int"),
    (["eval", "-i", "{npy}", "-r", "1e-3", "-p", "nope"], 2, "nope"),
    (["eval", "-i", "{npy}", "-r", "1e-3", "-d", "3x3"], 2, "does not match"),
    (["info", "-i", "{npy}"], 1, "magic"),
])
def test_eval_errors(npy, tmp_path, args, rc, msg):
    ints = tmp_path / "ints.npy"
    np.save(ints, np.zeros((4, 4), np.int32))
    r = run(*[a.format(npy=npy, ints=ints) for a in args], check=False)
    assert r.returncode == rc, r.stderr
    assert "sciz: error" in r.stderr and msg in r.stderr, r.stderr
    assert "Traceback" not in r.stderr
