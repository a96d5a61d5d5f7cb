#!/usr/bin/env python3
"""Ratio table of `interp` against `lorenzo` (or any pipelines) on the real fields of
../shared/data at rel 1e-2, 1e-3 and 1e-4, from `sciz eval --json`: every point is checked by
eval, and a field whose bound did not hold stops the script. Prints a markdown table per bound
and the geometric mean over the NaN-free fields (the `_nanland` field is listed, not averaged).

Usage: bench/interp_table.py [--sciz build-cpu/sciz] [--data ../shared/data] [--device cpu]
       [--pipelines interp,lorenzo] [--bounds 1e-2,1e-3,1e-4] [--fields SUBSTR,...]
       [--extra "-- --interp-... "]   (extra arguments passed to every eval)
"""
import argparse
import json
import math
import os
import re
import subprocess
import sys

# The 16 long-standing fields of ../shared/data (the velocity triples added later are left out
# so that figures stay comparable with earlier tables).
LONG_STANDING = [
    "cosmo_halo_particles_x", "ferret_etopo20_relief", "ferret_navy_winds_uwnd", "ferret_ocean_atlas_temp",
    "ferret_ocean_atlas_temp_nanland", "geocat_cesm_TREFHT_8members", "geocat_mpas_surface_pressure",
    "isabel_TCf25_downsampled5xy", "md_adk_protein_traj_x", "ncl_nc4uvt_U", "plot3d_post_momentumx",
    "s3d_chi_scalar_dissipation_chunk", "sperr_vorticity", "sperr_wmag", "tem_4dstem_diffraction", "wrf_ci_QVAPOR",
]


def fields(data):
    out = []
    for fn in sorted(os.listdir(data)):
        m = re.match(r"(.+)_([0-9x]+)\.(f32|f64)$", fn)
        if m and m.group(1) in LONG_STANDING:
            out.append((os.path.join(data, fn), m.group(1), m.group(2), m.group(3)))
    return out


def evaluate(sciz, path, dims, dtype, rel, pipeline, device, extra):
    cmd = [sciz, "eval", "--runs", "1", "-i", path, "-t", dtype, "-d", dims, "-r", f"{rel:g}", "-p", pipeline, "--device", device,
           "--json"] + extra
    p = subprocess.run(cmd, capture_output=True, text=True)
    if p.returncode != 0:
        sys.exit(f"FAILED ({p.returncode}): {' '.join(cmd)}\n{p.stdout}{p.stderr}")
    j = json.loads(p.stdout)
    if not j["bound_held"] or j["nonfinite_mismatch"] != 0:
        sys.exit(f"bound broken: {' '.join(cmd)}\n{p.stdout}")
    return j


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--sciz", default="build-cpu/sciz")
    ap.add_argument("--data", default="../shared/data")
    ap.add_argument("--device", default="cpu")
    ap.add_argument("--pipelines", default="interp,lorenzo")
    ap.add_argument("--bounds", default="1e-2,1e-3,1e-4")
    ap.add_argument("--fields", default="")
    ap.add_argument("--extra", default="")
    a = ap.parse_args()
    pipes = a.pipelines.split(",")
    bounds = [float(b) for b in a.bounds.split(",")]
    extra = a.extra.split()
    want = [s for s in a.fields.split(",") if s]
    fl = [f for f in fields(a.data) if not want or any(w in f[1] for w in want)]

    res = {}
    for path, name, dims, dtype in fl:
        for b in bounds:
            for p in pipes:
                res[(name, b, p)] = evaluate(a.sciz, path, dims, dtype, b, p, a.device, extra)
        print("# " + name + ": " + ", ".join(f"{p}@{b:g}={res[(name, b, p)]['ratio']:.2f}" for b in bounds for p in pipes),
              file=sys.stderr, flush=True)

    for b in bounds:
        print(f"\n### rel {b:g}\n")
        print("| field | dims | " + " | ".join(pipes) + (" | " + pipes[0] + " / " + pipes[1] if len(pipes) > 1 else "")
              + " |")
        print("|---|---|" + "---|" * (len(pipes) + (1 if len(pipes) > 1 else 0)))
        logs = {p: [] for p in pipes}
        for path, name, dims, dtype in fl:
            r = [res[(name, b, p)]["ratio"] for p in pipes]
            nan_field = name.endswith("nanland")
            if not nan_field:
                for p, v in zip(pipes, r):
                    logs[p].append(math.log(v))
            tag = " (NaN land, not averaged)" if nan_field else ""
            print(f"| {name}{tag} | {dims} | " + " | ".join(f"{v:.2f}" for v in r) +
                  (f" | {r[0] / r[1]:.3f}" if len(pipes) > 1 else "") + " |")
        g = [math.exp(sum(logs[p]) / len(logs[p])) if logs[p] else float("nan") for p in pipes]
        print(f"| **geomean of {len(logs[pipes[0]])}** | | " + " | ".join(f"**{v:.2f}**" for v in g) +
              (f" | {g[0] / g[1]:.3f}" if len(pipes) > 1 else "") + " |")


if __name__ == "__main__":
    main()
