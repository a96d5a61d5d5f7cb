#!/usr/bin/env bash
# Ratio table of `sciz -p szx` against the reference SZx CLI over ../shared/data, every point
# of both decompressed outputs checked by a separate tool (bench/check_bound.cpp, built here).
#   bench/szx_ratio_table.sh [SZX_REF]   SZX_REF: the reference's `szx` binary (optional)
# The reference runs in its blocked fast mode (-m 2, its default) with a value-range-relative
# bound (-M REL); fields are passed flattened (-1 n): its blocks run over the linear order.
# Ratios are stream bytes (ours: the whole .sciz file) over field bytes.
set -euo pipefail
cd "$(dirname "$0")/.."
ref=${1:-}
data=${SCIZ_DATA:-../shared/data}
sciz=${SCIZ_BIN:-build/sciz}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
c++ -O2 -std=c++17 -o "$tmp/check" bench/check_bound.cpp
echo "| field | rel | ours | ours max err/eb | reference | ref max err/eb | ours/ref |"
echo "|---|---|---|---|---|---|---|"
for f in "$data"/*.f32 "$data"/*.f64; do
  name=$(basename "$f"); t=f32; flag=-f; w=4
  [[ $f == *.f64 ]] && { t=f64; flag=-d; w=8; }
  n=$(( $(stat -c %s "$f") / w ))
  for rel in 1e-2 1e-3 1e-4; do
    "$sciz" compress -q -i "$f" -o "$tmp/o.sciz" -t "$t" -d "$n" -r "$rel" -p szx --device cpu
    "$sciz" decompress -q -i "$tmp/o.sciz" -o "$tmp/o.out" --device cpu
    ours=$(awk -v a="$(stat -c %s "$f")" -v b="$(stat -c %s "$tmp/o.sciz")" 'BEGIN{printf "%.3f", a/b}')
    oc=$("$tmp/check" "$f" "$tmp/o.out" "$t" "$rel" || true)
    rr=-; rc=-; q=-
    if [ -n "$ref" ]; then
      "$ref" -z "$tmp/r.szx" $flag -i "$f" -M REL -R "$rel" -1 "$n" >/dev/null
      "$ref" -x "$tmp/r.out" $flag -s "$tmp/r.szx" -1 "$n" >/dev/null
      rr=$(awk -v a="$(stat -c %s "$f")" -v b="$(stat -c %s "$tmp/r.szx")" 'BEGIN{printf "%.3f", a/b}')
      rc=$("$tmp/check" "$f" "$tmp/r.out" "$t" "$rel" || true)
      q=$(awk -v a="$ours" -v b="$rr" 'BEGIN{printf "%.3f", a/b}')
    fi
    echo "| ${name%.*} | $rel | $ours | $oc | $rr | $rc | $q |"
  done
done
