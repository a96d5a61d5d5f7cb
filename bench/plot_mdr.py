#!/usr/bin/env python3
"""Bytes an mdr retrieval reads against interp's and lorenzo's streams at the same bound, on
every real field of ../shared/data at rel 1e-1 .. 1e-6, from `sciz_mdr_bench --json` (which
checks every point of every retrieval against the bound it reports and exits 3 if one misses).
Prints two markdown tables (mdr bytes / interp bytes and mdr bytes / lorenzo bytes per field and
bound, each with the geometric mean) and, where matplotlib is installed, draws bytes read
against the bound per field.
Usage: bench/plot_mdr.py [--bench build/sciz_mdr_bench] [--data ../shared/data]
       [--json docs/data/mdr_vs_interp_lorenzo_cpu.jsonl] [--out docs/img/mdr_bytes_vs_bound.png]"""
import argparse, glob, json, math, os, subprocess, sys

RELS = [1e-1, 1e-2, 1e-3, 1e-4, 1e-5, 1e-6]


def fields(data):
    out = []
    for path in sorted(glob.glob(os.path.join(data, "*.f32")) + glob.glob(os.path.join(data, "*.f64"))):
        stem, ext = os.path.splitext(os.path.basename(path))
        out += [path, ext[1:], stem.rsplit("_", 1)[1]]
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--bench", default="build/sciz_mdr_bench")
    ap.add_argument("--data", default="../shared/data")
    ap.add_argument("--json", default="docs/data/mdr_vs_interp_lorenzo_cpu.jsonl")
    ap.add_argument("--out", default="docs/img/mdr_bytes_vs_bound.png")
    a = ap.parse_args()

    run = subprocess.run([a.bench, "--json"] + fields(a.data), capture_output=True, text=True)
    if run.returncode != 0:
        sys.exit(f"sciz_mdr_bench failed ({run.returncode}): {run.stderr}{run.stdout[-2000:]}")
    os.makedirs(os.path.dirname(a.json), exist_ok=True)
    with open(a.json, "w") as f:
        f.write(run.stdout)
    rows = [json.loads(line) for line in run.stdout.splitlines() if line.strip()]
    assert all(r["held"] for r in rows), "a retrieval missed its bound"

    names = list(dict.fromkeys(r["field"] for r in rows))
    get = {(r["field"], r["rel"]): r for r in rows}
    for key, title in (("mdr_over_interp", "interp"), ("mdr_over_lorenzo", "lorenzo")):
        print(f"\nmdr bytes read / {title} stream bytes\n")
        print("| field | " + " | ".join(f"{b:g}" for b in RELS) + " |")
        print("|---|" + "---|" * len(RELS))
        for n in names:
            print(f"| {n.rsplit('.', 1)[0]} | " + " | ".join(f"{get[(n, b)][key]:.2f}" for b in RELS) + " |")
        geo = [math.exp(sum(math.log(get[(n, b)][key]) for n in names) / len(names)) for b in RELS]
        print(f"| geometric mean of {len(names)} | " + " | ".join(f"{g:.2f}" for g in geo) + " |")

    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print(f"\n(matplotlib not installed: {a.out} not drawn)")
        return
    cols = 4
    rws = (len(names) + cols - 1) // cols
    fig, axes = plt.subplots(rws, cols, figsize=(4 * cols, 3 * rws), squeeze=False)
    for ax, n in zip(axes.flat, names):
        ax.loglog(RELS, [get[(n, b)]["mdr_bytes"] for b in RELS], "o-", label="mdr bytes read")
        ax.loglog(RELS, [get[(n, b)]["interp_bytes"] for b in RELS], "s--", label="interp stream")
        ax.loglog(RELS, [get[(n, b)]["lorenzo_bytes"] for b in RELS], "^:", label="lorenzo stream")
        ax.set_title(n.rsplit(".", 1)[0][:38], fontsize=8)
        ax.invert_xaxis()
        ax.set_xlabel("rel bound", fontsize=8)
        ax.set_ylabel("bytes", fontsize=8)
        ax.tick_params(labelsize=7)
    for ax in list(axes.flat)[len(names):]:
        ax.axis("off")
    axes[0][0].legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(a.out, dpi=110)
    print(f"\nwrote {a.out}")


if __name__ == "__main__":
    main()
