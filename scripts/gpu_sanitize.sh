#!/usr/bin/env bash
# The GPU tests under compute-sanitizer, on a CUDA machine: memcheck (out-of-bounds and
# misaligned device accesses, CUDA API errors) over the GPU suite, then racecheck (shared-memory
# hazards) and synccheck (barrier misuse) over the kernel tests. Builds build-gpu first
# (scripts/gpu_build.sh). Also run by scripts/gpu_check.sh when SCIZ_SANITIZE=1.
#
#   scripts/gpu_sanitize.sh                   every step
#   SCIZ_SANITIZE_TOOLS="memcheck" ...        only these tools
#   SCIZ_SANITIZE_FILTER='SzxCuda.*' ...      only these tests (gtest filter), for every tool
#   SCIZ_SANITIZE_LIMIT=900 ...               seconds per test suite (default 480, synccheck 300)
#   SCIZ_SANITIZE_JOBS=6 ...                  suites at a time, one process each (default 4)
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
# InterpCuda: only its small-field tests (every configuration, NaN/Inf, the GPU tuner, the stage
# kernels); its fixture and multi-shape sweeps ran past 280 s each under racecheck on an H100.
interp_small='InterpCuda.TwinEqualsCpuTwinForEveryConfiguration:InterpCuda.SpecialValuesAndNanLand:InterpCuda.GpuTunerChoosesWhatTheHostChooses:InterpCuda.EveryStageAloneAndSomeListsWriteTheCpuBytes'
kernels="BitpackCuda.*:HuffmanCuda.*:RleCuda.*:ZrleCuda.*:StagesCuda.*:DigestCuda.*:ExactRunsCuda.*:LorenzoCuda.*:SzxCuda.*:DeltaCuda.*:ValueRangeCuda.*:CoreKernelTemplates.*:MdrCuda.*:$interp_small"
memcheck_filter=${SCIZ_SANITIZE_FILTER:-"*-$slow"}
kernel_filter=${SCIZ_SANITIZE_FILTER:-$kernels}

failed=0
jobs=${SCIZ_SANITIZE_JOBS:-4}
# One process per test suite, `jobs` at a time: a kernel fault is sticky for its CUDA context,
# so in one process the first fault would turn every later test into noise (and hide their own
# faults). Suites that fill the device's memory run alone afterwards.
run_suite() {  # tool, suite, its tests (a gtest filter), time limit, log dir, options...
  local tool=$1 tests=$3 limit=$4 dir=$5 file=${2//\//_}  # parameterized suites: Prefix/Suite
  shift 5
  timeout "$limit" "$cs" --tool "$tool" --error-exitcode 99 --print-limit 50 "$@" \
    "$bin" --gtest_filter="$tests" --gtest_brief=1 >"$dir/$file.log" 2>&1
  echo $? >"$dir/$file.rc"
}
run_tool() {  # tool, filter, time limit, extra options...
  local tool=$1 filter=$2 limit=$3
  shift 3
  # Per-suite logs stay in the build tree (the device runner returns only a few files); the
  # tool's log in $LOG is their concatenation.
  local dir=build-gpu/sanitize-suites/$tool log=$LOG/$tool.log
  rm -rf "$dir" "$log"
  mkdir -p "$dir"
  # "Suite<TAB>Suite.a:Suite.b:..." per suite that has a test under the filter.
  local plan
  plan=$("$bin" --gtest_list_tests --gtest_filter="$filter" | awk '
    /^[^ ]/ && $1 ~ /\.$/ { if (s != "") print s "\t" t; s = $1; sub(/\.$/, "", s); t = ""; next }
    /^  [^ ]/ { n = $1; t = (t == "" ? "" : t ":") s "." n }
    END { if (s != "") print s "\t" t }')
  local t0=$SECONDS running=0 su te
  while IFS=$'\t' read -r su te; do
    case $su in OutOfMemory* | "") continue ;; esac
    run_suite "$tool" "$su" "$te" "$limit" "$dir" "$@" &
    running=$((running + 1))
    if [ "$running" -ge "$jobs" ]; then wait -n; running=$((running - 1)); fi
  done <<<"$plan"
  wait
  while IFS=$'\t' read -r su te; do
    case $su in OutOfMemory*) run_suite "$tool" "$su" "$te" "$limit" "$dir" "$@" ;; esac
  done <<<"$plan"
  local suites=0 bad=0 errs=0 rc f n
  for f in "$dir"/*.rc; do
    [ -e "$f" ] || continue
    suites=$((suites + 1))
    rc=$(cat "$f")
    n=$(grep -Eo "ERROR SUMMARY: [0-9]+ error" "${f%.rc}.log" | tail -1 | grep -Eo "[0-9]+")
    errs=$((errs + ${n:-0}))
    if [ "$rc" != 0 ]; then
      bad=$((bad + 1))
      case $rc in
        124) echo "$tool: $(basename "${f%.rc}"): TIMEOUT after ${limit}s" ;;
        99) echo "$tool: $(basename "${f%.rc}"): ${n:-?} errors"
            grep -m5 -E "^=+ +(Invalid|Race|Barrier|Program hit|Uninitialized)|^=+ +at " "${f%.rc}.log" ;;
        *) echo "$tool: $(basename "${f%.rc}"): exit $rc, tests failed under the tool"
           grep -m5 -E "FAILED|Failure" "${f%.rc}.log" ;;
      esac
    fi
    cat "${f%.rc}.log" >>"$log"
  done
  echo "$tool: ERROR SUMMARY: $errs errors over $suites suites, $bad suites failed, $((SECONDS - t0)) s [$filter]"
  [ "$bad" = 0 ] && [ "$suites" -gt 0 ] || failed=1
}

tools=${SCIZ_SANITIZE_TOOLS:-memcheck racecheck synccheck}
for t in $tools; do
  case $t in
    memcheck) run_tool memcheck "$memcheck_filter" "${SCIZ_SANITIZE_LIMIT:-480}" --leak-check full ;;
    # racecheck tracks every shared-memory access (100-1000x slower): tests shrink their
    # multi-million-value cases (tests/gpu/gpu_util.hpp, test::scaled), keeping many tiles.
    racecheck)
      export SCIZ_TEST_SMALL=1
      run_tool racecheck "$kernel_filter" "${SCIZ_SANITIZE_LIMIT:-480}" --racecheck-report analysis
      unset SCIZ_TEST_SMALL ;;
    synccheck) run_tool synccheck "$kernel_filter" "${SCIZ_SANITIZE_LIMIT:-300}" ;;
    initcheck) run_tool initcheck "$kernel_filter" "${SCIZ_SANITIZE_LIMIT:-480}" ;;
    *) echo "gpu_sanitize: unknown tool '$t'"; failed=1 ;;
  esac
done
exit $failed
