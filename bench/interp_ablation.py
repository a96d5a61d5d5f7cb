#!/usr/bin/env python3
"""Ablation of the interp predictor on the 15 NaN-free long-standing fields of ../shared/data at
rel 1e-2, 1e-3, 1e-4: geometric mean of the ratio for each variant, from sciz_interp_lab
(ratio of the sections alone: codes, outliers, exact values; container headers left out, a
few hundred bytes per field). Each row adds one component to the row above it.

Usage: bench/interp_ablation.py [--lab build-cpu/sciz_interp_lab] [--data ../shared/data]
"""
import argparse
import math
import os
import re
import subprocess
import sys

sys.path.insert(0, os.path.dirname(__file__))
from interp_table import fields  # noqa: E402

BOUNDS = [1e-2, 1e-3, 1e-4]

# (label, lab arguments, which ratio of the lab's output line)
VARIANTS = [
    ("cubic + md at every level, anchors stored raw, codes in field order (cuSZ-Hi without tuning or reordering)",
     ["--spline", "cubic", "--scheme", "md", "--alpha", "1"], "raw_lin"),
    ("+ level-wise reordering (Eq. 3)", ["--spline", "cubic", "--scheme", "md", "--alpha", "1"], "raw"),
    ("+ anchors coded by the anchor levels", ["--spline", "cubic", "--scheme", "md", "--alpha", "1"], "full"),
    ("+ tuning per level: spline x {zyx, xyz, md}", ["--schemes", "zyx,xyz,md", "--alpha", "1"], "full"),
    ("+ the cross scheme among the candidates", ["--alpha", "1"], "full"),
    ("+ level-wise bound tightening, tuned (the default)", [], "full"),
    ("(for comparison) tightening forced: alpha 1.25, beta 2", ["--alpha", "1.25", "--beta", "2"], "full"),
    ("(for comparison) cubic + zyx at every level", ["--spline", "cubic", "--scheme", "zyx", "--alpha", "1"], "full"),
    ("(for comparison) cubic + xyz at every level", ["--spline", "cubic", "--scheme", "xyz", "--alpha", "1"], "full"),
    ("(for comparison) cubic + cross at every level", ["--spline", "cubic", "--scheme", "cross", "--alpha", "1"], "full"),
]


def lab_ratios(lab, path, dtype, dims, rel, args):
    p = subprocess.run([lab, path, dtype, dims, f"{rel:g}"] + args, capture_output=True, text=True)
    if p.returncode != 0:
        sys.exit(f"lab failed: {p.stderr}")
    m = re.search(r"ratio \(sections only\) ([0-9.]+); without reordering ([0-9.]+); anchors raw ([0-9.]+); "
                  r"anchors raw, no reordering ([0-9.]+)", p.stdout)
    return {"full": float(m.group(1)), "lin": float(m.group(2)), "raw": float(m.group(3)), "raw_lin": float(m.group(4))}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--lab", default="build-cpu/sciz_interp_lab")
    ap.add_argument("--data", default="../shared/data")
    a = ap.parse_args()
    fl = [f for f in fields(a.data) if not f[1].endswith("nanland")]
    print("| variant | rel 1e-2 | rel 1e-3 | rel 1e-4 |")
    print("|---|---|---|---|")
    for label, args, which in VARIANTS:
        g = []
        for b in BOUNDS:
            logs = [math.log(lab_ratios(a.lab, path, dtype, dims, b, args)[which]) for path, name, dims, dtype in fl]
            g.append(math.exp(sum(logs) / len(logs)))
        print(f"| {label} | " + " | ".join(f"{v:.2f}" for v in g) + " |", flush=True)


if __name__ == "__main__":
    main()
