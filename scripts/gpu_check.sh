#!/usr/bin/env bash
# The whole GPU check in one call on a CUDA machine: Release build, GPU tests, CPU tests,
# the benchmark on the tiled Isabel field at three bounds, then a compact summary (last).
# Full logs go to $OUT when set (the device runner fetches that folder), else build-gpu/logs.
# Budget: well under 9 minutes; every step has its own timeout.
set -u
cd "$(dirname "$0")/.."
ROOT=$PWD
# The device runner returns at most 8 files from $OUT: logs go to a folder that is packed into
# one archive at the end (logs.tgz), beside the summary.
LOG=$ROOT/build-gpu/logs
rm -rf "$LOG"
mkdir -p "$LOG"
T0=$(date +%s)
elapsed() { echo $(($(date +%s) - T0)); }
say() { echo "[$(elapsed)s] $*"; }

FIELD_NAME=isabel_TCf25_downsampled5xy_100x100x100.f32
FIELD=.devdata/$FIELD_NAME
# .devdata may be carried split into subfolders: look for the file anywhere under it.
[ -f "$FIELD" ] || FIELD=$(find .devdata -name "$FIELD_NAME" 2>/dev/null | head -1)
[ -n "$FIELD" ] || FIELD=.devdata/$FIELD_NAME
# The cross-device test over real fields reads the carried folder (see tests/gpu/shared_data_gpu_test.cpp).
export SCIZ_DATA_DIR=${SCIZ_DATA_DIR:-$(cd "$(dirname "$FIELD")" 2>/dev/null && pwd)}  # absolute: ctest runs tests from the build tree
summary=()

nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader > "$LOG/gpu.txt" 2>/dev/null ||
  echo "unknown GPU (no nvidia-smi)" > "$LOG/gpu.txt"
say "GPU: $(head -1 "$LOG/gpu.txt")"

# 1. configure + build
if ! timeout 420 bash scripts/gpu_build.sh "$LOG/build.log"; then
  echo "SUMMARY: build FAILED (log: $LOG/build.log)"
  exit 1
fi
say "build ok"
summary+=("build: ok ($(elapsed)s)")

# ctest's closing line, "N% tests passed, M tests failed out of K", condensed.
ctest_line() { grep -E "tests passed|No tests were found" "$1" | tail -1; }

# 2. tests: GPU first (the point of this machine), then the CPU suite as time allows
timeout 240 ctest --test-dir build-gpu -L gpu --output-on-failure -j4 > "$LOG/ctest_gpu.log" 2>&1
gpu_rc=$?
grep -E "\*\*\*Failed|\*\*\*Exception|\*\*\*Timeout|Not Run" "$LOG/ctest_gpu.log" | head -20
grep -A12 -m4 -E ": Failure$|C\+\+ exception" "$LOG/ctest_gpu.log" | head -60
say "gpu tests rc=$gpu_rc: $(ctest_line "$LOG/ctest_gpu.log")"
summary+=("gpu tests: $(ctest_line "$LOG/ctest_gpu.log") (rc $gpu_rc)")

if [ "$(elapsed)" -lt 200 ]; then
  timeout 150 ctest --test-dir build-gpu -L cpu -j16 --output-on-failure > "$LOG/ctest_cpu.log" 2>&1
  cpu_rc=$?
  grep -E "\*\*\*Failed|\*\*\*Exception|Timeout" "$LOG/ctest_cpu.log" | head -20
  say "cpu tests rc=$cpu_rc: $(ctest_line "$LOG/ctest_cpu.log")"
  summary+=("cpu tests: $(ctest_line "$LOG/ctest_cpu.log") (rc $cpu_rc)")
else
  summary+=("cpu tests: skipped for time")
fi

# 3c. whole pipelines through the public API (sciz_bench_e2e): device-resident, host pinned and
# pageable, and under a 1 GiB cap, on the 500 MB field at three bounds; then the 4 GB field
# (Isabel tiled 10x10x10) at 1e-3, device-resident, pinned, and under a 2 GiB cap.
e2e_rows=()
if [ -f "$FIELD" ] && [ "$(elapsed)" -lt 330 ]; then
  timeout 150 build-gpu/sciz_bench_e2e --field "$FIELD" --dims 100x100x100 --tile 5x5x5 --rel 1e-2,1e-3,1e-4 --runs 20 \
    --host-runs 6 --gpu-memory 1073741824 --json "$LOG/e2e_500mb.json" > "$LOG/e2e_500mb.log" 2>&1
  say "e2e 500 MB rc=$?"
  e2e_rows+=("$LOG/e2e_500mb.json")
fi
# The interp pipelines on the 500 MB field, device-resident only (compress and decompress from
# and into device memory, every point checked, GPU stream == CPU stream).
if [ -f "$FIELD" ] && [ "$(elapsed)" -lt 360 ]; then
  timeout 100 build-gpu/sciz_bench_e2e --field "$FIELD" --dims 100x100x100 --tile 5x5x5 --rel 1e-2,1e-3,1e-4 --runs 10 \
    --pipelines interp,interp-tp,interp-cr --no-host --json "$LOG/e2e_interp.json" > "$LOG/e2e_interp.log" 2>&1
  say "e2e interp rc=$?"
  grep -E "^interp" "$LOG/e2e_interp.log"
  e2e_rows+=("$LOG/e2e_interp.json")
fi
if [ -f "$FIELD" ] && [ "$(elapsed)" -lt 420 ]; then
  timeout 110 build-gpu/sciz_bench_e2e --field "$FIELD" --dims 100x100x100 --tile 10x10x10 --rel 1e-3 --runs 20 \
    --host-runs 3 --no-pageable --no-cpu-check --gpu-memory 2147483648 --json "$LOG/e2e_4gb.json" > "$LOG/e2e_4gb.log" 2>&1
  say "e2e 4 GB rc=$?"
  e2e_rows+=("$LOG/e2e_4gb.json")
fi
# The same bound given as an absolute one (rel 1e-3 x the field's range): no range pass before
# coding (the encoders fold the header's range), and from pinned memory chunk i + 1 goes up
# while chunk i is coded.
if [ -f "$FIELD" ] && [ "$(elapsed)" -lt 430 ]; then
  timeout 110 build-gpu/sciz_bench_e2e --field "$FIELD" --dims 100x100x100 --tile 10x10x10 --rel 1e-3 --abs --runs 20 \
    --host-runs 3 --no-pageable --no-cpu-check --gpu-memory 2147483648 --json "$LOG/e2e_4gb_abs.json" > "$LOG/e2e_4gb_abs.log" 2>&1
  say "e2e 4 GB abs rc=$?"
  e2e_rows+=("$LOG/e2e_4gb_abs.json")
fi
# interp-tp and interp-cr on the 4 GB field, device-resident: 32 chunks, where other chunks'
# kernels hide each chunk's tuning (the 500 MB field's four chunks tune at the same time).
if [ -f "$FIELD" ] && [ "$(elapsed)" -lt 440 ]; then
  timeout 60 build-gpu/sciz_bench_e2e --field "$FIELD" --dims 100x100x100 --tile 10x10x10 --rel 1e-3 --runs 20 \
    --pipelines interp-tp,interp-cr --no-host --no-cpu-check --json "$LOG/e2e_interp_4gb.json" > "$LOG/e2e_interp_4gb.log" 2>&1
  say "e2e interp 4 GB rc=$?"
  grep -E "^interp" "$LOG/e2e_interp_4gb.log"
  e2e_rows+=("$LOG/e2e_interp_4gb.json")
fi

# 3. benchmark: Isabel 100^3 tiled 5x5x5 = 500^3 f32 (500 MB)
bench_rows=()
if [ ! -f "$FIELD" ]; then
  echo "ERROR: $FIELD is missing: carry .devdata to the device machine"
  summary+=("bench: $FIELD missing")
else
  for rel in 1e-2 1e-3 1e-4; do
    if [ "$(elapsed)" -gt 500 ]; then
      summary+=("bench rel $rel: skipped for time")
      continue
    fi
    timeout 120 build-gpu/sciz_bench --field "$FIELD" --dims 100x100x100 --tile 5x5x5 --rel "$rel" --runs 20 \
      --json "$LOG/bench_$rel.json" > "$LOG/bench_$rel.log" 2>&1
    rc=$?
    say "bench rel $rel rc=$rc"
    cat "$LOG/bench_$rel.log"
    bench_rows+=("$rel:$rc")
  done
fi

# 3b. the delta chains on short rows: Isabel tiled 25x5x1 = 2500x500x100 (500 MB, rows of 100)
if [ -f "$FIELD" ] && [ "$(elapsed)" -lt 510 ]; then
  timeout 120 build-gpu/sciz_bench --field "$FIELD" --dims 100x100x100 --tile 25x5x1 --rel 1e-3 --runs 20 \
    --json "$LOG/bench_rows100.json" > "$LOG/bench_rows100.log" 2>&1
  say "bench rows of 100 rc=$?"
  grep -E "^delta" "$LOG/bench_rows100.log"
fi

# 3c. mdr (issue 14): refactor from device and pinned memory and a full retrieval into device
# memory, end to end, on the Isabel fixture tiled to 256 MiB (the GPU file == the CPU file).
if [ "$(elapsed)" -lt 470 ]; then
  timeout 100 build-gpu/sciz_mdr_gpu_bench --runs 3 > "$LOG/mdr_gpu.log" 2>&1
  mdr_rc=$?
  say "mdr gpu bench rc=$mdr_rc"
  cat "$LOG/mdr_gpu.log"
  summary+=("mdr: $(grep -E "refactor, field in device|full retrieval" "$LOG/mdr_gpu.log" | sed -E 's/ +/ /g; s/^ //' | paste -sd ';' -) (rc $mdr_rc)")
else
  summary+=("mdr gpu bench: skipped for time")
fi

# 4. compact summary, last
j() {  # value of a top-level numeric/string key in a bench json
  grep -m1 "\"$2\":" "$1" | sed -E 's/.*": "?([^",]*)"?,?$/\1/'
}
s() {  # GB/s and fraction of copy of one stage
  grep "\"stage\": \"$2" "$1" | head -1 | sed -E 's/.*"gbs": ([0-9.eE+-]+), "of_copy": ([0-9.eE+-]+).*/\1 \2/' |
    awk '{printf "%7.0f (%.2f)", $1, $2}'
}
echo
echo "==================== SUMMARY ($(head -1 "$LOG/gpu.txt"), $(elapsed)s) ===================="
for line in "${summary[@]}"; do echo "$line"; done
if [ ${#bench_rows[@]} -gt 0 ]; then
  echo "bench: 500x500x500 f32 (Isabel tiled 5x5x5); GB/s = field bytes / median time, (x) = fraction of D2D copy"
  printf "%-6s %7s %7s %5s %4s %9s %15s %15s %15s %15s %15s %15s\n" rel ratio PSNR bound ==cpu copyGB/s \
    quantize reconstruct bp-encode bp-decode e2e-comp e2e-decomp
  for row in "${bench_rows[@]}"; do
    rel=${row%%:*}
    f="$LOG/bench_$rel.json"
    if [ ! -s "$f" ]; then
      echo "$rel: no result (rc ${row##*:}, see $LOG/bench_$rel.log)"
      continue
    fi
    printf "%-6s %7.2f %7.2f %5s %4s %9.0f %15s %15s %15s %15s %15s %15s\n" "$rel" "$(j "$f" ratio)" "$(j "$f" psnr_db)" \
      "$(j "$f" bound_check)" "$(j "$f" same_stream_as_cpu | sed 's/true/yes/;s/false/NO/')" \
      "$(awk "BEGIN{print $(j "$f" copy_gbs_read_plus_write)/2}")" \
      "$(s "$f" "predict+quantize")" "$(s "$f" "reconstruct")" "$(s "$f" "bitpack encode")" \
      "$(s "$f" "bitpack decode")" "$(s "$f" "e2e compress (pinned")" "$(s "$f" "e2e decompress (pinned")"
  done
  echo "lossless stages on the same codes; GB/s = quant-code bytes (2 per value) / median time"
  printf "%-6s %-13s %15s %15s %15s %15s %15s %15s %15s %15s\n" rel auto-chose huff-encode huff-decode rle-encode \
    rle-decode zrle-encode zrle-decode auto-enc-host auto-dec-host
  for row in "${bench_rows[@]}"; do
    rel=${row%%:*}
    f="$LOG/bench_$rel.json"
    [ -s "$f" ] || continue
    printf "%-6s %-13s %15s %15s %15s %15s %15s %15s %15s %15s\n" "$rel" "$(j "$f" lossless)" \
      "$(s "$f" "huffman encode")" "$(s "$f" "huffman decode")" "$(s "$f" "rle encode")" "$(s "$f" "rle decode")" \
      "$(s "$f" "zrle encode")" "$(s "$f" "zrle decode")" "$(s "$f" "lossless auto encode")" \
      "$(s "$f" "lossless auto decode")"
  done
  echo "lossless stages (src/lossless/stages) on interp-like 1-byte codes: lorenzo's at radius 128 of the same field,"
  echo "125M codes; GB/s = code bytes (1 per value) / median time, (x) = of D2D copy; kernel level (a reducer's encode"
  echo "includes its one sync; chains are the whole device calls); ratio = code bytes / blob bytes"
  printf "%-10s" stage
  for row in "${bench_rows[@]}"; do printf " %15s %15s %7s" "${row%%:*} enc" "${row%%:*} dec" ratio; done
  echo
  for st in tcms1 tcms2 tcms4 tcms8 bit1 bit2 bit4 bit8 rre1 rre2 rre4 rre8 rze1 rze2 rze4 rze8 interp-cr interp-tp; do
    kind=stage
    case $st in interp-*) kind=chain ;; esac
    printf "%-10s" "$st"
    for row in "${bench_rows[@]}"; do
      f="$LOG/bench_${row%%:*}.json"
      if [ -s "$f" ]; then
        printf " %15s %15s %7.3f" "$(s "$f" "$kind $st encode")" "$(s "$f" "$kind $st decode")" "$(j "$f" "ratio_$st")"
      else
        printf " %15s %15s %7s" - - -
      fi
    done
    echo
  done
  for row in "${bench_rows[@]}"; do
    f="$LOG/bench_${row%%:*}.json"
    [ -s "$f" ] && echo "${row%%:*}: stages round trip on the GPU: $(j "$f" stages_round_trip), chains' GPU blobs == CPU: $(j "$f" stages_same_as_cpu)"
  done
  echo "szx codec on the same field; GB/s = field bytes / time. kernel = device-level call (kernels + the sync that"
  echo "learns the section sizes); host = sections to/from pageable host; e2e = public API, pinned host"
  printf "%-6s %9s %6s %5s %15s %15s %15s %15s %15s %15s\n" rel szx-ratio bound ==cpu kernel-enc kernel-dec host-enc \
    host-dec e2e-comp e2e-decomp
  for row in "${bench_rows[@]}"; do
    rel=${row%%:*}
    f="$LOG/bench_$rel.json"
    [ -s "$f" ] || continue
    printf "%-6s %9.2f %6s %5s %15s %15s %15s %15s %15s %15s\n" "$rel" "$(j "$f" szx_ratio)" "$(j "$f" szx_bound_check)" \
      "$(j "$f" szx_same_as_cpu | sed 's/true/yes/;s/false/NO/')" "$(s "$f" "szx kernel encode")" \
      "$(s "$f" "szx kernel decode")" "$(s "$f" "szx host encode")" "$(s "$f" "szx host decode")" \
      "$(s "$f" "szx e2e compress")" "$(s "$f" "szx e2e decompress")"
  done
  echo "delta codec on the same field; GB/s = field bytes / time (device-level calls; e2e = public API, pinned,"
  echo "its auto chain). lin = linear chain, serp = serpentine chain over the rows (auto picks it for rows <= 128)"
  printf "%-6s %9s %9s %6s %5s %13s %13s %13s %13s %13s %13s\n" rel lin-ratio serp-ratio bound ==cpu lin-enc \
    lin-dec serp-enc serp-dec e2e-comp e2e-decomp
  delta_row() {  # one line of the delta table: bound, bench json, trailing note
    local f=$2
    printf "%-6s %9.2f %9.2f %6s %5s %13s %13s %13s %13s %13s %13s%s\n" "$1" "$(j "$f" delta_ratio_linear)" \
      "$(j "$f" delta_ratio)" "$(j "$f" delta_bound_check)" \
      "$(j "$f" delta_same_as_cpu | sed 's/true/yes/;s/false/NO/')" "$(s "$f" "delta kernel encode, linear")" \
      "$(s "$f" "delta kernel decode, linear")" "$(s "$f" "delta kernel encode, serp")" \
      "$(s "$f" "delta kernel decode, serp")" "$(s "$f" "delta e2e compress")" "$(s "$f" "delta e2e decompress")" "$3"
  }
  for row in "${bench_rows[@]}"; do
    rel=${row%%:*}
    [ -s "$LOG/bench_$rel.json" ] && delta_row "$rel" "$LOG/bench_$rel.json" ""
  done
  [ -s "$LOG/bench_rows100.json" ] && delta_row 1e-3 "$LOG/bench_rows100.json" "  <- rows of 100 (2500x500x100)"
  echo "(e2e = public API, host memory in/out, pinned; pageable figures are in the per-bound logs)"
fi
if [ ${#e2e_rows[@]} -gt 0 ]; then
  echo "whole pipelines through the API (sciz_bench_e2e); GB/s of field bytes, median; (x) = of measured pinned H2D/D2H"
  for f in "${e2e_rows[@]}"; do
    [ -s "$f" ] || { echo "$f: no result"; continue; }
    python3 - "$f" <<'PY'
import json, sys
j = json.load(open(sys.argv[1]))
print(f"{j['shape']} f32 ({j['bytes']/1e9:.1f} GB), chunks {j['chunk_mb']} MiB: pinned H2D {j['h2d_gbs']:.1f}, D2H {j['d2h_gbs']:.1f}, D2D {j['d2d_gbs']:.0f} GB/s")
rows = {}
for r in j["rows"]:
    rows.setdefault((r.get("bound", "rel"), r["rel"], r["pipeline"]), {})[r["what"]] = r
whats = [w for w in ["device", "host pinned", "host pageable"] + sorted({r["what"].rsplit(" ", 1)[0] for r in j["rows"]} - {"device", "host pinned", "host pageable"})]
print(f"{'bound':10} {'pipeline':9} {'ratio':>7} " + " ".join(f"{w[:18]:>21}" for w in whats) + "  check")
for (bound, rel, p), w in rows.items():
    cells = []
    for k in whats:
        c, d = w.get(k + " compress"), w.get(k + " decompress")
        if not c: cells.append(f"{'-':>21}"); continue
        if k == "device": cells.append(f"{c['gbs']:9.0f} / {d['gbs']:9.0f}")
        else: cells.append(f"{c['gbs']:5.1f}({c['gbs']/j['h2d_gbs']:.2f})/{d['gbs']:5.1f}({d['gbs']/j['d2h_gbs']:.2f})")
    checks = sorted({x['check'] for x in w.values()})
    label = f"{rel:g}" if bound == "rel" else f"{rel:g}xrange"  # abs: rel x the field's range
    print(f"{label:10} {p:9} {w['device compress']['ratio']:7.2f} " + " ".join(cells) + "  " + ",".join(checks))
PY
  done
fi
# Optional: the GPU tests under compute-sanitizer (long: run it alone where a command's time is
# limited, scripts/gpu_sanitize.sh one tool at a time).
if [ "${SCIZ_SANITIZE:-0}" = 1 ]; then
  echo "compute-sanitizer over the GPU tests (scripts/gpu_sanitize.sh):"
  OUT=$LOG bash scripts/gpu_sanitize.sh
fi
if [ -n "${OUT:-}" ]; then
  tar czf "$OUT/logs.tgz" -C "$LOG" . 2>/dev/null
  cp "$LOG"/bench_*.json "$LOG"/e2e_*.json "$OUT"/ 2>/dev/null || true
fi
