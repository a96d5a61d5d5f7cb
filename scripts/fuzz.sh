#!/usr/bin/env bash
# Builds the libFuzzer targets (clang, ASan + UBSan, CPU only: no CUDA needed) and runs each for
# SECONDS seconds (default 60), printing per run: executions, coverage (cov / ft), corpus size
# and what it found. Runs: the container parser, inspect/info, every lossless stage, the .npy
# reader, the refactored-file (mdr) reader, and for every pipeline in the registry
# (`sciz_fuzz_seeds --pipelines`) its decoder
# through the public API (decompress-<p>) and alone on one chunk (chunk-<p>).
#
#   scripts/fuzz.sh 60                    one minute a run
#   SCIZ_FUZZ_JOBS=2 scripts/fuzz.sh 30   two runs at a time
#   SCIZ_FUZZ_RUNS="stages npy" ...       only these runs
#   SCIZ_FUZZ_BUILD=build-san ...         build directory (default build-fuzz)
#   SCIZ_FUZZ_MAX_EXECS=10000000 ...      stop a run at that many executions (or at SECONDS)
#
# Each run's corpus grows in $BUILD/fuzz-corpus/<run> (kept between calls), seeded from
# fuzz/corpus/<run> (committed) and from seeds made fresh from tests/fixtures and tests/golden.
# Crashes, leaks, timeouts and allocations above the limit land in $BUILD/fuzz-artifacts/<time>/ and
# make the script exit 1; turn each into a regression test in tests/ (docs in fuzz/README.md).
set -euo pipefail
cd "$(dirname "$0")/.."
secs=${1:-60}
B=${SCIZ_FUZZ_BUILD:-build-fuzz}
jobs=${SCIZ_FUZZ_JOBS:-1}
max_execs=${SCIZ_FUZZ_MAX_EXECS:-0}
command -v clang++ >/dev/null || { echo "fuzz: clang++ not found (libFuzzer comes with clang)" >&2; exit 2; }

gen=(); command -v ninja >/dev/null && gen=(-G Ninja)
CC=clang CXX=clang++ cmake -S . -B "$B" "${gen[@]}" -DCMAKE_BUILD_TYPE=Release -DSCIZ_CUDA=OFF -DSCIZ_FUZZ=ON \
  -DSCIZ_INSTALL=OFF >/dev/null
targets=(container decompress inspect stages chunk npy mdr)
cmake --build "$B" -j "${SCIZ_JOBS:-2}" --target sciz_fuzz_seeds "${targets[@]/#/sciz_fuzz_}"

seeds=$B/fuzz-seeds
rm -rf "$seeds"
"$B/fuzz/sciz_fuzz_seeds" tests/fixtures tests/golden "$seeds"
mapfile -t pipes < <("$B/fuzz/sciz_fuzz_seeds" --pipelines)
runs=(container inspect stages npy mdr)
for p in "${pipes[@]}"; do runs+=("decompress-$p" "chunk-$p"); done
if [ -n "${SCIZ_FUZZ_RUNS:-}" ]; then read -ra runs <<<"$SCIZ_FUZZ_RUNS"; fi

logs=$B/fuzz-logs art=$B/fuzz-artifacts/$(date +%Y%m%d-%H%M%S)
mkdir -p "$logs" "$art"

# One run: its target is the run's name up to the first '-'.
fuzz_one() {
  local run=$1 target=${1%%-*} corpus=$B/fuzz-corpus/$1 dirs=()
  mkdir -p "$corpus"
  for d in "fuzz/corpus/$run" "$seeds/$run"; do [ -d "$d" ] && dirs+=("$d"); done
  local extra=()
  [ "$max_execs" -gt 0 ] && extra+=(-runs="$max_execs")
  # One thread per run: the decoders' OpenMP teams would only fight over the shared cores.
  # -malloc_limit_mb: inputs decode to at most 4 MiB (fuzz/limits.hpp), so one allocation of
  # 128 MiB means a size taken from the stream before it was checked.
  LSAN_OPTIONS=${LSAN_OPTIONS:-suppressions=$PWD/scripts/lsan_suppressions.txt} OMP_NUM_THREADS=1 "$B/fuzz/sciz_fuzz_$target" -max_total_time="$secs" -timeout=20 -rss_limit_mb=2048 \
    -malloc_limit_mb=128 -print_final_stats=1 -artifact_prefix="$art/$run." "${extra[@]}" \
    "$corpus" "${dirs[@]}" >"$logs/$run.log" 2>&1
}

declare -A status
running=0
for run in "${runs[@]}"; do
  fuzz_one "$run" & pids[$!]=$run
  running=$((running + 1))
  if [ "$running" -ge "$jobs" ]; then
    wait -n -p done_pid && rc=0 || rc=$?
    status[${pids[$done_pid]}]=$rc
    running=$((running - 1))
  fi
done
while [ "$running" -gt 0 ]; do
  wait -n -p done_pid && rc=0 || rc=$?
  status[${pids[$done_pid]}]=$rc
  running=$((running - 1))
done

failed=0
printf '%-22s %12s %8s %8s %8s  %s\n' run executions cov ft corpus result
for run in "${runs[@]}"; do
  log=$logs/$run.log
  execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
  last=$(grep -E '^#[0-9]+' "$log" | tail -1 || true)
  cov=$(sed -n 's/.* cov: \([0-9]*\).*/\1/p' <<<"$last")
  ft=$(sed -n 's/.* ft: \([0-9]*\).*/\1/p' <<<"$last")
  corp=$(sed -n 's/.* corp: \([0-9]*\).*/\1/p' <<<"$last")
  found=$(ls "$art" | grep -c "^$run\\." || true)
  result=ok
  if [ "${status[$run]}" != 0 ] || [ "$found" != 0 ]; then
    result="FOUND $found (exit ${status[$run]}; $log)"
    failed=1
  fi
  printf '%-22s %12s %8s %8s %8s  %s\n' "$run" "${execs:-?}" "${cov:-?}" "${ft:-?}" "${corp:-?}" "$result"
done
if [ "$failed" = 1 ]; then
  echo "fuzz: findings in $art:" >&2
  ls -l "$art" >&2
  exit 1
fi
