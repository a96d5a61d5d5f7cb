#!/usr/bin/env bash
# Keeps what long fuzz runs learned: for each run in $BUILD/fuzz-corpus/, the inputs that reach
# coverage the fresh seeds (sciz_fuzz_seeds) and fuzz/corpus/<run>/ do not, minimised with
# libFuzzer's -merge=1, are added to fuzz/corpus/<run>/ (committed; scripts/fuzz.sh seeds every
# run from it), smallest first up to SCIZ_FUZZ_DISTILL_KIB KiB a run (default 128: the corpus
# is committed). Run after scripts/fuzz.sh, with the same SCIZ_FUZZ_BUILD.
set -euo pipefail
cd "$(dirname "$0")/.."
B=${SCIZ_FUZZ_BUILD:-build-fuzz}
budget=$((${SCIZ_FUZZ_DISTILL_KIB:-128} * 1024))
[ -d "$B/fuzz-corpus" ] || { echo "fuzz_distill: no $B/fuzz-corpus: run scripts/fuzz.sh first" >&2; exit 2; }
for corpus in "$B"/fuzz-corpus/*/; do
  run=$(basename "$corpus")
  bin=$B/fuzz/sciz_fuzz_${run%%-*}
  base=$(mktemp -d)
  dirs=()
  for d in "$B/fuzz-seeds/$run" "fuzz/corpus/$run"; do [ -d "$d" ] && dirs+=("$d"); done
  # The coverage already had: seeds and committed corpus, merged into `base`.
  [ ${#dirs[@]} -gt 0 ] && OMP_NUM_THREADS=1 "$bin" -merge=1 "$base" "${dirs[@]}" >/dev/null 2>&1
  ls "$base" | sort >"$base.before"
  OMP_NUM_THREADS=1 "$bin" -merge=1 "$base" "$corpus" >/dev/null 2>&1
  mkdir -p "fuzz/corpus/$run"
  added=0 bytes=$(find "fuzz/corpus/$run" -type f -printf '%s\n' | awk '{s += $1} END {print s + 0}')
  new=$(ls "$base" | sort | comm -13 "$base.before" -)
  for f in $(cd "$base" && ls -Sr $new 2>/dev/null); do
    size=$(stat -c %s "$base/$f")
    [ $((bytes + size)) -gt "$budget" ] && break
    cp "$base/$f" "fuzz/corpus/$run/$f"
    added=$((added + 1)) bytes=$((bytes + size))
  done
  echo "$run: $added of $(wc -w <<<"$new") new inputs kept, $bytes bytes in fuzz/corpus/$run"
  rm -rf "$base" "$base.before"
done
