#!/usr/bin/env bash
# The CPU test suite built with AddressSanitizer, UndefinedBehaviorSanitizer (every report
# fatal) and libstdc++'s assertions, CUDA off, in its own build directory, then run: what
# .ci/run adds to the normal build. With clang the build is also the fuzz build (SCIZ_FUZZ=ON),
# so scripts/fuzz.sh can reuse it (SCIZ_FUZZ_BUILD=build-san); with gcc alone, SCIZ_SANITIZE=ON.
#
#   SCIZ_SAN_BUILD=dir   build directory (default build-san)
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/bootstrap.sh
B=${SCIZ_SAN_BUILD:-build-san}
gen=(); command -v ninja >/dev/null && gen=(-G Ninja)
opts=(-DCMAKE_BUILD_TYPE=Release -DSCIZ_CUDA=OFF -DSCIZ_INSTALL=OFF)
if command -v clang++ >/dev/null; then
  CC=clang CXX=clang++ cmake -S . -B "$B" "${gen[@]}" "${opts[@]}" -DSCIZ_FUZZ=ON >/dev/null
else
  cmake -S . -B "$B" "${gen[@]}" "${opts[@]}" -DSCIZ_SANITIZE=ON >/dev/null
fi
cmake --build "$B" -j "${SCIZ_JOBS:-2}" --target sciz_tests
# Leaks count too (LeakSanitizer); a UBSan report prints its stack and fails the test.
# Full (slow) unwinding on malloc: libomp is built without frame pointers, and only a whole
# stack lets the suppression of its own thread-team allocations (scripts/lsan_suppressions.txt)
# match by function; it costs little here (the suite: 199 s on 2 cores, all 336 passed).
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=1:strict_string_checks=1:fast_unwind_on_malloc=0}
export LSAN_OPTIONS=${LSAN_OPTIONS:-suppressions=$PWD/scripts/lsan_suppressions.txt}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
# Only the CPU label: the GPU suite is not built here (compute-sanitizer covers it on a GPU,
# scripts/gpu_sanitize.sh).
ctest --test-dir "$B" -L cpu --output-on-failure -j "${SCIZ_JOBS:-2}"
