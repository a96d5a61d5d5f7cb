#!/usr/bin/env bash
# Where a whole GPU call's time goes, phase by phase: sciz_bench_e2e on the tiled Isabel field
# (500 MB, device-resident) with SCIZ_TRACE=1, each phase's mean and minimum over every call
# and chunk, per pipeline and bound. Builds build-gpu first unless it is there.
#
#   scripts/gpu_phases.sh                                   interp-tp at rel 1e-3
#   PIPES="interp interp-tp" REL="1e-2 1e-3" scripts/gpu_phases.sh
#   RUNS=5 TILE=10x10x10 scripts/gpu_phases.sh              more calls, the 4 GB field
#
# A traced phase on a GPU synchronizes at its end (core/trace.hpp), so the figures attribute
# device time to the phase that queued it and the whole call runs slower than untraced: read
# the shares, and take throughput from scripts/gpu_check.sh. Logs go to $OUT (the device
# runner returns it) or build-gpu/phases.
set -u
cd "$(dirname "$0")/.."
LOG=${OUT:-build-gpu/phases}
mkdir -p "$LOG"
[ -x build-gpu/sciz_bench_e2e ] || bash scripts/gpu_build.sh "$LOG/build.log" >/dev/null ||
  { echo "gpu_phases: build FAILED ($LOG/build.log)"; exit 1; }
name=isabel_TCf25_downsampled5xy_100x100x100.f32
F=$(find .devdata ../shared/data -name "$name" 2>/dev/null | head -1)
[ -n "$F" ] || { echo "gpu_phases: $name not found (carry .devdata)"; exit 1; }
for p in ${PIPES:-interp-tp}; do
  for r in ${REL:-1e-3}; do
    log=$LOG/phases_${p}_$r.log
    SCIZ_TRACE=1 timeout 120 build-gpu/sciz_bench_e2e --field "$F" --dims 100x100x100 --tile "${TILE:-5x5x5}" \
      --rel "$r" --runs "${RUNS:-5}" --no-cpu-check --no-host --pipelines "$p" >"$log" 2>&1
    echo "== $p rel $r (rc $?)"
    grep "sciz trace" "$log" | sed -E 's/sciz trace: (.*[^ ]) +([0-9.]+) ms/\1|\2/' |
      awk -F'|' '{ s[$1] += $2; n[$1]++; if (!($1 in m) || $2 < m[$1]) m[$1] = $2 }
        END { for (k in s) printf "%-56s n=%4d  mean %8.3f  min %8.3f ms\n", k, n[k], s[k] / n[k], m[k] }' | sort
    grep -E "^$p " "$log"
  done
done
