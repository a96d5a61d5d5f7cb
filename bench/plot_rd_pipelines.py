#!/usr/bin/env python3
"""Rate-distortion (PSNR against bit rate) of several pipelines on a few real fields, from
`sciz eval --json` (every point checked: a broken bound stops the script). Draws one panel per
field into docs/img/rd_pipelines.png and prints a markdown table of bit rate and PSNR.

Usage: bench/plot_rd_pipelines.py [--sciz build/sciz] [--data ../shared/data] [--device cpu]
       [--pipelines interp,lorenzo,delta,szx] [--fields isabel,TREFHT,...] [--out docs/img/rd_pipelines.png]
"""
import argparse
import os

import matplotlib
matplotlib.use("Agg")
import matplotlib.pyplot as plt

from interp_table import evaluate, fields  # same folder: the long-standing fields, one checked eval

BOUNDS = [1e-1, 3e-2, 1e-2, 3e-3, 1e-3, 3e-4, 1e-4, 3e-5, 1e-5]
TABLE_BOUNDS = [1e-2, 1e-3, 1e-4]
# One field of each kind: 3-D smooth, 3-D turbulent, 4-D ensemble, 2-D map, 1-D unstructured.
DEFAULT_FIELDS = "isabel,s3d_chi,sperr_wmag,TREFHT,etopo20,mpas"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--sciz", default="build/sciz")
    ap.add_argument("--data", default="../shared/data")
    ap.add_argument("--device", default="cpu")
    ap.add_argument("--pipelines", default="interp,lorenzo,delta,szx")
    ap.add_argument("--fields", default=DEFAULT_FIELDS)
    ap.add_argument("--out", default="docs/img/rd_pipelines.png")
    a = ap.parse_args()
    pipes = a.pipelines.split(",")
    want = a.fields.split(",")
    fl = [f for f in fields(a.data) if any(w in f[1] for w in want)]

    res = {}  # (field, pipeline, rel) -> (bit rate, PSNR)
    for path, name, dims, dtype in fl:
        for p in pipes:
            for b in sorted(set(BOUNDS + TABLE_BOUNDS), reverse=True):
                j = evaluate(a.sciz, path, dims, dtype, b, p, a.device, [])
                res[(name, p, b)] = (j["bit_rate"], j["psnr_db"])
        print(f"# {name} done", flush=True)

    cols = 3
    rows = (len(fl) + cols - 1) // cols
    fig, axes = plt.subplots(rows, cols, figsize=(4.2 * cols, 3.4 * rows), squeeze=False)
    for ax, (path, name, dims, dtype) in zip(axes.flat, fl):
        for p in pipes:
            pts = [res[(name, p, b)] for b in BOUNDS if res[(name, p, b)][1] is not None]
            ax.plot([x for x, _ in pts], [y for _, y in pts], marker="o", ms=3, lw=1.2, label=p)
        ax.set_title(f"{name[:38]} ({dims})", fontsize=8)
        ax.set_xlabel("bit rate (bits per value)", fontsize=8)
        ax.set_ylabel("PSNR (dB)", fontsize=8)
        ax.set_xscale("log")
        ax.tick_params(labelsize=7)
        ax.grid(alpha=0.3, which="both")
        ax.legend(fontsize=7, loc="lower right")
    for ax in list(axes.flat)[len(fl):]:
        ax.axis("off")
    fig.suptitle("sciz rate-distortion: rel bounds 1e-1 .. 1e-5, every point checked (CPU, same streams as GPU)",
                 fontsize=9)
    fig.tight_layout()
    os.makedirs(os.path.dirname(a.out), exist_ok=True)
    fig.savefig(a.out, dpi=110)
    print(a.out)

    print("\n| field | rel | " + " | ".join(f"{p} bits/value, PSNR" for p in pipes) + " |")
    print("|---|---|" + "---|" * len(pipes))
    for path, name, dims, dtype in fl:
        for b in TABLE_BOUNDS:
            cells = []
            for p in pipes:
                br, ps = res[(name, p, b)]
                cells.append(f"{br:.3f}, {ps:.1f}" if ps is not None else f"{br:.3f}, -")
            print(f"| {name} | {b:g} | " + " | ".join(cells) + " |")


if __name__ == "__main__":
    main()
