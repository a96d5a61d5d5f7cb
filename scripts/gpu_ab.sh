#!/usr/bin/env bash
# A/B of a change on a CUDA machine, in one lease: B is the working tree, A the same tree with
# PATCH reversed (make it beforehand with `git diff > .devtmp/change.patch`; .devtmp is ignored
# and carried with the run). Builds B, runs the GPU tests on B (unless SKIP_TESTS=1), reverses
# the patch and builds A (incrementally), then runs sciz_bench_e2e's device rows of A and B in
# interleaved rounds, since the rows move from lease to lease and within one by several percent.
# Usage: scripts/gpu_ab.sh PATCH [ROUNDS] (ROUNDS default 3; PIPELINES=delta,szx, REL_500=1e-2,1e-3,1e-4,
# REL_4GB=1e-3 and EXTRA="--abs" pass through). The tree is left as A: rerun from a fresh copy.
# Logs go to $OUT (else build-gpu/logs): one line per row and round, A and B side by side.
set -u
cd "$(dirname "$0")/.."
PATCH=${1:?usage: scripts/gpu_ab.sh PATCH [ROUNDS]}
ROUNDS=${2:-3}
LOG=${OUT:-build-gpu/logs}
mkdir -p "$LOG" /tmp/sciz_ab
T0=$(date +%s)
el() { echo $(($(date +%s) - T0)); }
FIELD=$(find .devdata -name 'isabel_TCf25_downsampled5xy_100x100x100.f32' | head -1)
[ -n "$FIELD" ] || { echo "carry .devdata with the Isabel field"; exit 1; }
[ -f "$PATCH" ] || { echo "no patch $PATCH"; exit 1; }
export SCIZ_DATA_DIR=$(cd "$(dirname "$FIELD")" && pwd)

timeout 420 bash scripts/gpu_build.sh "$LOG/build_B.log" || { echo "build B FAILED"; exit 1; }
cp build-gpu/sciz_bench_e2e /tmp/sciz_ab/B
echo "[$(el)s] build B ok"
if [ "${SKIP_TESTS:-0}" != 1 ]; then
  timeout 240 ctest --test-dir build-gpu -L gpu -j4 --output-on-failure > "$LOG/ctest_gpu_B.log" 2>&1
  echo "[$(el)s] gpu tests (B): $(grep -E 'tests passed' "$LOG/ctest_gpu_B.log" | tail -1)"
  grep -E "\*\*\*Failed|\*\*\*Exception|\*\*\*Timeout" "$LOG/ctest_gpu_B.log" | head -20
fi
patch -R -p1 < "$PATCH" > "$LOG/patch.log" 2>&1 || { echo "the patch does not reverse onto this tree"; exit 1; }
timeout 300 bash scripts/gpu_build.sh "$LOG/build_A.log" || { echo "build A FAILED"; exit 1; }
cp build-gpu/sciz_bench_e2e /tmp/sciz_ab/A
echo "[$(el)s] build A ok"

row() {  # pipeline, bound, compress, decompress, check of each device row
  grep -E "device:" "$1" | awk '{print $1, $3, $10 "/" $13, $15}' | paste -sd' '
}
P=${PIPELINES:-delta,szx}
for r in $(seq "$ROUNDS"); do
  for v in A B; do
    timeout 120 /tmp/sciz_ab/$v --field "$FIELD" --dims 100x100x100 --tile 5x5x5 --rel "${REL_500:-1e-2,1e-3,1e-4}" \
      --pipelines "$P" --no-host ${EXTRA:-} > "$LOG/ab_500mb_${v}_$r.log" 2>&1
    echo "[$(el)s] 500 MB $v round $r: $(row "$LOG/ab_500mb_${v}_$r.log")"
    timeout 120 /tmp/sciz_ab/$v --field "$FIELD" --dims 100x100x100 --tile 10x10x10 --rel "${REL_4GB:-1e-3}" \
      --pipelines "$P" --no-host --no-cpu-check ${EXTRA:-} > "$LOG/ab_4gb_${v}_$r.log" 2>&1
    echo "[$(el)s] 4 GB $v round $r: $(row "$LOG/ab_4gb_${v}_$r.log")"
  done
done
