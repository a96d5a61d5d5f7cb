#!/usr/bin/env bash
# The Python package on a CUDA machine without a package index (the device machine): builds
# the wheel with the CUDA twins from what is installed (nvcc, CMake, nanobind,
# scikit-build-core), installs it into build-gpu-py/site, runs the whole Python suite (the
# GPU tests with CuPy/PyTorch; zarr/numcodecs/xarray/netCDF4 tests skip, each saying why, where
# those are absent), then bench/python_overhead.py. pytest comes from the machine or from a
# carried .whl/ (scripts/fetch_python_wheels.sh). Logs and JSON go to $OUT when set.
set -u
cd "$(dirname "$0")/.."
export PATH=$PATH:/usr/local/cuda/bin
LOG=${OUT:-build-gpu-py/logs}
mkdir -p "$LOG" build-gpu-py
T0=$(date +%s)
say() { echo "[$(($(date +%s) - T0))s] $*"; }
py=${SCIZ_PYTHON:-python3}

say "python: $($py --version 2>&1); GPU: $(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -1)"
$py - <<'PY'
import importlib
for m in ["numpy", "cupy", "torch", "h5py", "nanobind", "scikit_build_core", "pytest", "zarr", "numcodecs", "xarray"]:
    try:
        print(f"  {m:18} {getattr(importlib.import_module(m), '__version__', '?')}")
    except Exception as e:
        print(f"  {m:18} absent ({type(e).__name__})")
PY
if ! $py -c "import pytest" 2>/dev/null; then
  if ls .whl/pytest-*.whl >/dev/null 2>&1; then
    $py -m pip install -q --no-index --find-links .whl --target build-gpu-py/pytest pytest > "$LOG/pytest_install.log" 2>&1 &&
      say "pytest installed from .whl" || say "pytest could not be installed from .whl (see $LOG/pytest_install.log)"
  fi
fi

say "building the wheel with CUDA"
rm -rf build-gpu-py/dist build-gpu-py/site
if ! SCIZ_CUDA=ON CMAKE_BUILD_PARALLEL_LEVEL=$(nproc) timeout 480 $py -m pip wheel --no-index --no-build-isolation \
     --no-deps -Cbuild-dir=build-gpu-py/cmake -w build-gpu-py/dist . > "$LOG/wheel.log" 2>&1; then
  grep -B2 -A20 -m3 -E "error|Error" "$LOG/wheel.log" | head -60
  echo "SUMMARY: wheel build FAILED (log: $LOG/wheel.log)"
  exit 1
fi
$py -m pip install -q --no-index --no-deps --target build-gpu-py/site build-gpu-py/dist/sciz-*.whl > "$LOG/install.log" 2>&1 ||
  { tail -20 "$LOG/install.log"; echo "SUMMARY: install FAILED"; exit 1; }
export PYTHONPATH=$PWD/build-gpu-py/site:$PWD/build-gpu-py/pytest${PYTHONPATH:+:$PYTHONPATH}
export PATH=$PWD/build-gpu-py/site/bin:$PATH
say "built: $($py -c 'import sciz; print(sciz.__version__, "CUDA built:", sciz.CUDA_BUILT, "GPU usable:", sciz.cuda_available())')"

rc_tests=2
if $py -c "import pytest" 2>/dev/null; then
  timeout 420 $py -m pytest python/tests -q -rs -p no:cacheprovider --junitxml="$LOG/pytest.xml" > "$LOG/pytest.log" 2>&1
  rc_tests=$?
  grep -E "passed|failed|error" "$LOG/pytest.log" | tail -3
  grep -E "^(FAILED|ERROR)|^SKIPPED" "$LOG/pytest.log" | head -40
  grep -A30 -m3 "^____" "$LOG/pytest.log" | head -120
else
  echo "pytest is not installed: carry .whl/ (scripts/fetch_python_wheels.sh) to run the suites"
fi
say "tests rc=$rc_tests"

timeout 300 $py bench/python_overhead.py --json "$LOG/python_overhead.json" $( [ -f .devdata/isabel_TCf25_downsampled5xy_100x100x100.f32 ] && echo --field .devdata/isabel_TCf25_downsampled5xy_100x100x100.f32 ) > "$LOG/bench.log" 2>&1
rc_bench=$?
echo "==================== SUMMARY ($(($(date +%s) - T0))s) ===================="
echo "python tests: $(grep -E 'passed|failed' "$LOG/pytest.log" 2>/dev/null | tail -1) (rc $rc_tests)"
echo "overhead benchmark (rc $rc_bench):"
cat "$LOG/bench.log"
[ "$rc_tests" = 0 ] && [ "$rc_bench" = 0 ]
