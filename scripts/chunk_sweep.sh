#!/usr/bin/env bash
# The measurement behind the default chunk size (docs/PERF_NOTES.md, "Chunk size"): device-
# resident and pinned host-memory throughput of each pipeline at rel 1e-3 on the 500 MB field,
# for several chunk sizes (0 = the whole field in one chunk), then a compact table.
# Usage on a CUDA machine, after scripts/gpu_build.sh: scripts/chunk_sweep.sh [OUTDIR]
set -u
cd "$(dirname "$0")/.."
out=${1:-build-gpu/sweep}
mkdir -p "$out"
FIELD=$(find .devdata -name isabel_TCf25_downsampled5xy_100x100x100.f32 | head -1)
for mb in 16 32 64 128 256 0; do
  timeout 120 build-gpu/sciz_bench_e2e --field "$FIELD" --dims 100x100x100 --tile 5x5x5 --rel 1e-3 --runs 20 \
    --host-runs 6 --no-cpu-check --chunk-mb $mb --json "$out/sweep_$mb.json" > "$out/sweep_$mb.log" 2>&1
done
echo "chunk-mb pipeline  ratio   dev-comp dev-decomp pin-comp pin-decomp   (GB/s, 500 MB f32, rel 1e-3)"
for mb in 16 32 64 128 256 0; do
  python3 - "$out/sweep_$mb.json" "$mb" <<'PY'
import json, sys
j = json.load(open(sys.argv[1])); by = {}
for r in j["rows"]: by.setdefault(r["pipeline"], {})[r["what"]] = r
for p, w in by.items():
    g = lambda k: w.get(k, {}).get("gbs", float("nan"))
    print(f"{sys.argv[2]:>8} {p:8} {w['device compress']['ratio']:7.3f} {g('device compress'):9.1f} {g('device decompress'):10.1f}"
          f" {g('host pinned compress'):8.1f} {g('host pinned decompress'):10.1f}")
PY
done
