#!/usr/bin/env python3
"""Compression ratio of each pipeline (interp, lorenzo, delta, szx) on the real fields at rel 1e-2,
1e-3 and 1e-4, from `sciz eval --json` (every point checked; a broken bound stops the script);
prints a markdown table and draws one panel of grouped bars per bound.
Usage: bench/plot_pipelines.py [--sciz build/sciz] [--data ../shared/data] [--device cpu]
[--out docs/img/pipelines_ratio.png]"""
import argparse, os

import matplotlib
matplotlib.use("Agg")
import matplotlib.pyplot as plt

from interp_table import LONG_STANDING  # the 16 fields of the tables in README and docs
from plot_lossless import fields, ratio  # same folder: field discovery and one checked eval

PIPELINES = ["interp", "lorenzo", "delta", "szx"]
BOUNDS = [1e-2, 1e-3, 1e-4]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--sciz", default="build/sciz")
    ap.add_argument("--data", default="../shared/data")
    ap.add_argument("--device", default="cpu")
    ap.add_argument("--out", default="docs/img/pipelines_ratio.png")
    a = ap.parse_args()

    rows = []  # (short name, {(pipeline, rel): ratio})
    for path, name, dims, dtype in (f for f in fields(a.data) if f[1] in LONG_STANDING):
        r = {(p, b): ratio(a.sciz, path, dims, dtype, b, ["-p", p], a.device) for p in PIPELINES for b in BOUNDS}
        rows.append((name.split("_", 1)[1] if "_" in name else name, r))
        print(f"# {name}: " + ", ".join(f"{p}@{b:g}={r[(p, b)]:.2f}" for p in PIPELINES for b in BOUNDS), flush=True)

    print("\n| field | " + " | ".join(f"{p} 1e-2 / 1e-3 / 1e-4" for p in PIPELINES) + " |")
    print("|---|" + "---|" * len(PIPELINES))
    for name, r in rows:
        print(f"| {name} | " + " | ".join(" / ".join(f"{r[(p, b)]:.2f}" for b in BOUNDS) for p in PIPELINES) + " |")
    means = {(p, b): sum(r[(p, b)] for _, r in rows) / len(rows) for p in PIPELINES for b in BOUNDS}
    print(f"| mean of {len(rows)} | " + " | ".join(" / ".join(f"{means[(p, b)]:.2f}" for b in BOUNDS)
                                                for p in PIPELINES) + " |")

    fig, axes = plt.subplots(len(BOUNDS), 1, figsize=(12, 3.2 * len(BOUNDS)), sharex=True)
    width = 0.8 / len(PIPELINES)
    for ax, b in zip(axes, BOUNDS):
        for k, p in enumerate(PIPELINES):
            xs = [i + (k - (len(PIPELINES) - 1) / 2) * width for i in range(len(rows))]
            ax.bar(xs, [r[(p, b)] for _, r in rows], width, label=p)
        ax.set_yscale("log")
        ax.set_ylabel("ratio")
        ax.set_title(f"rel {b:g} (every point within the bound)", fontsize=10)
        ax.grid(axis="y", which="both", alpha=0.3)
    axes[0].legend(ncol=len(PIPELINES))
    axes[-1].set_xticks(range(len(rows)))
    axes[-1].set_xticklabels([n for n, _ in rows], rotation=40, ha="right", fontsize=8)
    fig.tight_layout()
    os.makedirs(os.path.dirname(a.out) or ".", exist_ok=True)
    fig.savefig(a.out, dpi=110)
    print(f"\nwrote {a.out}")


if __name__ == "__main__":
    main()
