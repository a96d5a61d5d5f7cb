#!/usr/bin/env bash
# The GPU tests under compute-sanitizer, on a CUDA machine: memcheck (out-of-bounds and
# misaligned device accesses, CUDA API errors) over the GPU suite, then racecheck (shared-memory
# hazards) and synccheck (barrier misuse) over the kernel tests. Builds build-gpu first
# (scripts/gpu_build.sh). Also run by scripts/gpu_check.sh when SCIZ_SANITIZE=1.
#
#   scripts/gpu_sanitize.sh                   every step
#   SCIZ_SANITIZE_TOOLS="memcheck" ...        only these tools
#   SCIZ_SANITIZE_FILTER='SzxCuda.*' ...      only these tests (gtest filter), for every tool
#   SCIZ_SANITIZE_LIMIT=900 ...               seconds per tool (default 480, synccheck 300)
#
# A device runner that limits one command to 10 minutes: one tool per call, e.g.
#   SCIZ_SANITIZE_TOOLS=memcheck scripts/gpu_sanitize.sh, then racecheck, then synccheck.
#
# Logs go to $OUT/sanitize (the device runner returns $OUT) or build-gpu/sanitize; the last
# line per tool says how many errors it reported. Exit 1 when any tool reported one.
set -u
cd "$(dirname "$0")/.."
export PATH=$PATH:/usr/local/cuda/bin
LOG=${OUT:-build-gpu}/sanitize
mkdir -p "$LOG"
cs=$(command -v compute-sanitizer || true)
for c in /usr/local/cuda/bin/compute-sanitizer /usr/local/cuda/compute-sanitizer/compute-sanitizer; do
  [ -z "$cs" ] && [ -x "$c" ] && cs=$c
done
[ -n "$cs" ] || { echo "gpu_sanitize: compute-sanitizer not found (CUDA toolkit's compute-sanitizer/)"; exit 2; }
timeout 420 bash scripts/gpu_build.sh "$LOG/build.log" || { echo "gpu_sanitize: build FAILED ($LOG/build.log)"; exit 1; }
bin=build-gpu/tests/sciz_gpu_tests
[ -x "$bin" ] || bin=$(find build-gpu -name sciz_gpu_tests -type f -perm -u+x | head -1)

# Tests that only scale up what others cover (a 20 GB field, every shared field at three
# bounds, cross-device sweeps) would run for hours 10-100x slower under the tools.
slow='HugeField.*:SharedDataGpu.*:CrossDevice.*'
# racecheck and synccheck look at kernels that use shared memory and barriers: the stage,
# predictor and digest kernels, on the small inputs of their own tests.
kernels='BitpackCuda.*:HuffmanCuda.*:RleCuda.*:ZrleCuda.*:StagesCuda.*:DigestCuda.*:ExactRunsCuda.*:LorenzoCuda.*:SzxCuda.*:DeltaCuda.*:ValueRangeCuda.*:CoreKernelTemplates.*'
memcheck_filter=${SCIZ_SANITIZE_FILTER:-"*-$slow"}
kernel_filter=${SCIZ_SANITIZE_FILTER:-$kernels}

failed=0
run_tool() {  # tool, filter, time limit, extra options...
  local tool=$1 filter=$2 limit=$3
  shift 3
  local log=$LOG/$tool.log
  timeout "$limit" "$cs" --tool "$tool" --error-exitcode 99 --print-limit 50 "$@" \
    "$bin" --gtest_filter="$filter" --gtest_brief=1 >"$log" 2>&1
  local rc=$?
  local errs
  errs=$(grep -Eo "ERROR SUMMARY: [0-9]+ error" "$log" | tail -1)
  case $rc in
    0) echo "$tool: ok (${errs:-no summary}) [$filter]" ;;
    124) echo "$tool: TIMEOUT after ${limit}s ($log)"; failed=1 ;;
    99) echo "$tool: ${errs:-errors} ($log)"; grep -m10 -E "^=+ +(Invalid|Race|Barrier|Program hit|Uninitialized)" "$log"; failed=1 ;;
    *) echo "$tool: exit $rc, tests failed under the tool ($log)"; grep -m10 -E "FAILED|Failure" "$log"; failed=1 ;;
  esac
}

tools=${SCIZ_SANITIZE_TOOLS:-memcheck racecheck synccheck}
for t in $tools; do
  case $t in
    memcheck) run_tool memcheck "$memcheck_filter" "${SCIZ_SANITIZE_LIMIT:-480}" --leak-check full ;;
    racecheck) run_tool racecheck "$kernel_filter" "${SCIZ_SANITIZE_LIMIT:-480}" --racecheck-report analysis ;;
    synccheck) run_tool synccheck "$kernel_filter" "${SCIZ_SANITIZE_LIMIT:-300}" ;;
    initcheck) run_tool initcheck "$kernel_filter" "${SCIZ_SANITIZE_LIMIT:-480}" ;;
    *) echo "gpu_sanitize: unknown tool '$t'"; failed=1 ;;
  esac
done
exit $failed
