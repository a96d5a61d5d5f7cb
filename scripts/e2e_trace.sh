#!/usr/bin/env bash
# Where a whole-pipeline call spends its time, on a CUDA machine: builds build-gpu, runs the
# GPU tests (unless SKIP_TESTS=1), then sciz_bench_e2e with --trace (the CUPTI timeline of one
# call per row) on the 500 MB and 4 GB Isabel fields, and the device rows again under each
# environment variant given as arguments (e.g. SCIZ_WORKERS=6 SCIZ_POOL_DEPS=0), so variants are
# compared within one machine's lease. Logs go to $OUT (else build-gpu/logs); the device rows
# are printed last. A variant may set several variables, comma-separated (A=1,B=2).
set -u
cd "$(dirname "$0")/.."
LOG=${OUT:-build-gpu/logs}
mkdir -p "$LOG"
bash scripts/gpu_build.sh "$LOG/build.log" || { echo "build FAILED"; exit 1; }
FIELD=$(find .devdata -name 'isabel_TCf25_downsampled5xy_100x100x100.f32' | head -1)
[ -n "$FIELD" ] || { echo "carry .devdata with the Isabel field"; exit 1; }
export SCIZ_DATA_DIR=$(cd "$(dirname "$FIELD")" && pwd)
if [ "${SKIP_TESTS:-0}" != 1 ]; then
  timeout 300 ctest --test-dir build-gpu -L gpu -j4 --output-on-failure > "$LOG/ctest_gpu.log" 2>&1
  grep -E "\*\*\*Failed|\*\*\*Exception|\*\*\*Timeout" "$LOG/ctest_gpu.log" | head -20
  echo "gpu tests: $(grep -E 'tests passed' "$LOG/ctest_gpu.log" | tail -1)"
fi
B=(build-gpu/sciz_bench_e2e --field "$FIELD" --dims 100x100x100 --rel "${REL:-1e-3}" --runs 20 --no-cpu-check)
timeout 200 "${B[@]}" --tile 5x5x5 --host-runs 3 --no-pageable --gpu-memory 1073741824 --trace > "$LOG/trace_500mb.log" 2>&1
echo "500 MB traced run rc=$?"
timeout 150 "${B[@]}" --tile 10x10x10 --no-host --trace > "$LOG/trace_4gb.log" 2>&1
echo "4 GB traced run rc=$?"
for v in "$@"; do
  IFS=, read -ra vars <<< "$v"
  tag=$(echo "$v" | tr -c 'A-Za-z0-9_\n-' '_')
  timeout 100 env "${vars[@]}" "${B[@]}" --tile 5x5x5 --no-host > "$LOG/variant_500mb_$tag.log" 2>&1
  timeout 100 env "${vars[@]}" "${B[@]}" --tile 10x10x10 --no-host > "$LOG/variant_4gb_$tag.log" 2>&1
done
echo "== device rows (500 MB, then 4 GB); variants after =="
grep -h "device:" "$LOG/trace_500mb.log" "$LOG/trace_4gb.log"
grep -h "host pinned\|cap " "$LOG/trace_500mb.log" | grep -v "^----"
for v in "$@"; do
  tag=$(echo "$v" | tr -c 'A-Za-z0-9_\n-' '_')
  echo "-- $v"
  grep -h "device:" "$LOG/variant_500mb_$tag.log" "$LOG/variant_4gb_$tag.log"
done
