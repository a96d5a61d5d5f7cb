#!/usr/bin/env python3
"""Rate-distortion plot (bit rate vs PSNR) of a pipeline over the real fields, from
`sciz eval --json`. Usage: bench/plot_rd.py [--sciz build/sciz] [--data ../shared/data]
[--pipeline lorenzo] [--device cpu] [--out docs/img/rd_lorenzo.png]"""
import argparse, json, os, re, subprocess

import matplotlib
matplotlib.use("Agg")
import matplotlib.pyplot as plt

BOUNDS = [1e-1, 3e-2, 1e-2, 3e-3, 1e-3, 3e-4, 1e-4, 3e-5, 1e-5]


def fields(data):
    for fn in sorted(os.listdir(data)):
        m = re.match(r"(.+)_([0-9x]+)\.(f32|f64)$", fn)
        if m:
            yield os.path.join(data, fn), m.group(1), m.group(2), m.group(3)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--sciz", default="build/sciz")
    ap.add_argument("--data", default="../shared/data")
    ap.add_argument("--pipeline", default="lorenzo")
    ap.add_argument("--device", default="cpu")
    ap.add_argument("--out", default="docs/img/rd_lorenzo.png")
    a = ap.parse_args()
    fig, ax = plt.subplots(figsize=(8, 5.5))
    ax.set_prop_cycle(color=plt.cm.tab20.colors)  # 16 fields: one colour each
    for path, name, dims, t in fields(a.data):
        xs, ys = [], []
        for rel in BOUNDS:
            r = subprocess.run([a.sciz, "eval", "--runs", "1", "-i", path, "-t", t, "-d", dims, "-r", str(rel), "-p", a.pipeline,
                                "--device", a.device, "--json", "-q"], capture_output=True, text=True)
            if r.returncode != 0:
                raise SystemExit(f"{name} rel {rel}: {r.stderr.strip()}")
            j = json.loads(r.stdout)
            if not j["bound_held"]:
                raise SystemExit(f"{name} rel {rel}: bound broken")
            if j["psnr_db"] is not None:
                xs.append(j["bit_rate"])
                ys.append(j["psnr_db"])
        ax.plot(xs, ys, marker="o", ms=3, lw=1, label=name[:34])
    ax.set_xlabel("bit rate (bits per value)")
    ax.set_ylabel("PSNR (dB, value-range based)")
    ax.set_title(f"sciz {a.pipeline}: rate-distortion on real fields, rel bounds 1e-1 .. 1e-5")
    ax.grid(alpha=0.3)
    ax.legend(fontsize=6, ncol=2, loc="lower right")
    fig.tight_layout()
    os.makedirs(os.path.dirname(a.out), exist_ok=True)
    fig.savefig(a.out, dpi=110)
    print(a.out)


if __name__ == "__main__":
    main()
