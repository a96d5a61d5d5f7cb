#!/usr/bin/env python3
"""Compression ratio of `lorenzo` per lossless stage on the real fields, at rel 1e-2, 1e-3
and 1e-4, from `sciz eval --json`; prints the table (markdown) and draws a grouped bar chart.
Usage: bench/plot_lossless.py [--sciz build/sciz] [--data ../shared/data] [--device cpu]
[--out docs/img/lossless_ratio.png]"""
import argparse, json, os, re, subprocess

import matplotlib
matplotlib.use("Agg")
import matplotlib.pyplot as plt

STAGES = ["bitpack", "huffman", "rle", "rle+huffman", "zrle+huffman", "auto"]
BOUNDS = [1e-2, 1e-3, 1e-4]


def fields(data):
    for fn in sorted(os.listdir(data)):
        m = re.match(r"(.+)_([0-9x]+)\.(f32|f64)$", fn)
        if m:
            yield os.path.join(data, fn), m.group(1), m.group(2), m.group(3)


def ratio(sciz, path, dims, dtype, rel, choice, device):
    """Ratio of one `sciz eval` run; choice is the option that varies, e.g. ["--lossless", "rle"]
    or ["-p", "delta"]. A failed run or a broken bound stops the script."""
    out = subprocess.run([sciz, "eval", "--runs", "1", "-i", path, "-t", dtype, "-d", dims, "-r", str(rel), *choice,
                          "--device", device, "--json", "-q"], capture_output=True, text=True)
    if out.returncode != 0:
        raise SystemExit(f"sciz eval failed on {path} ({' '.join(choice)}, {rel}): {out.stderr.strip()}")
    d = json.loads(out.stdout)
    if not d["bound_held"]:
        raise SystemExit(f"bound broken on {path} ({' '.join(choice)}, {rel})")
    return d["ratio"]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--sciz", default="build/sciz")
    ap.add_argument("--data", default="../shared/data")
    ap.add_argument("--device", default="cpu")
    ap.add_argument("--out", default="docs/img/lossless_ratio.png")
    a = ap.parse_args()
    rows = []
    for path, name, dims, dtype in fields(a.data):
        for rel in BOUNDS:
            r = {s: ratio(a.sciz, path, dims, dtype, rel, ["--lossless", s], a.device) for s in STAGES}
            rows.append((name, rel, r))
    print("| field | rel | " + " | ".join(STAGES) + " |")
    print("|---|---|" + "---|" * len(STAGES))
    for name, rel, r in rows:
        print(f"| {name} | {rel:g} | " + " | ".join(f"{r[s]:.2f}" for s in STAGES) + " |")
    fig, axes = plt.subplots(len(BOUNDS), 1, figsize=(12, 10), sharex=True)
    names = sorted({n for n, _, _ in rows})
    width = 0.8 / (len(STAGES) - 1)
    for ax, rel in zip(axes, BOUNDS):
        for k, s in enumerate([s for s in STAGES if s != "auto"]):
            ys = [next(r[s] for n, b, r in rows if n == name and b == rel) for name in names]
            ax.bar([i + (k - 2) * width for i in range(len(names))], ys, width, label=s)
        ax.axhline(32, color="k", lw=0.8, ls="--")
        ax.set_yscale("log")
        ax.set_ylabel(f"ratio, rel {rel:g}")
        ax.grid(axis="y", alpha=0.3)
    axes[0].legend(ncol=5, fontsize=8, title="lossless stage (auto = the tallest bar; dashed: 32x)")
    axes[-1].set_xticks(range(len(names)))
    axes[-1].set_xticklabels(names, rotation=60, ha="right", fontsize=7)
    fig.suptitle("lorenzo compression ratio by lossless stage, real fields (../shared/data)")
    fig.tight_layout()
    fig.savefig(a.out, dpi=110)
    print(f"wrote {a.out}")


if __name__ == "__main__":
    main()
