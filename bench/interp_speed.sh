#!/usr/bin/env bash
# CPU throughput of `sciz eval -p interp` (median of 7 runs each way, every point checked) on
# the fields of ../shared/data at one bound, with 1 and 2 OpenMP threads. The machine these
# figures come from is a shared 2-core VM: run it when nothing else is, and read the spread.
# Usage: bench/interp_speed.sh [sciz binary] [data dir] [rel bound]
set -euo pipefail
sciz=${1:-build-cpu/sciz}
data=${2:-../shared/data}
rel=${3:-1e-2}
printf "| field | MB | ratio | compress MB/s, 1 thread | 2 threads | decompress MB/s, 1 thread | 2 threads |\n|---|---|---|---|---|---|---|\n"
for f in "$data"/*.f32 "$data"/*.f64; do
  b=$(basename "$f")
  case $b in *vwnd*|wrf_ci_U*|wrf_ci_V*|wrf_ci_W*) continue;; esac
  dims=$(echo "$b" | sed -E 's/.*_([0-9x]+)\.(f32|f64)$/\1/'); t=${b##*.}
  row="| ${b%_*} | $(python3 -c "import os; print('%.2f' % (os.path.getsize('$f') / 1e6))")"
  for th in 1 2; do
    OMP_NUM_THREADS=$th "$sciz" eval -i "$f" -t "$t" -d "$dims" -r "$rel" -p interp --device cpu --runs 7 --json > /tmp/interp_speed.json
    read -r c d r < <(python3 -c "import json; j=json.load(open('/tmp/interp_speed.json')); assert j['bound_held']; print('%.0f %.0f %.2f' % (j['compress_gbps']*1e3, j['decompress_gbps']*1e3, j['ratio']))")
    if [ $th = 1 ]; then row="$row | $r | $c"; d1=$d; else row="$row | $c | $d1 | $d"; fi
  done
  echo "$row |"
done
