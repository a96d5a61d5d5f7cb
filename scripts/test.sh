#!/usr/bin/env bash
# Build and run every test: the CPU suite always; the `gpu` suite runs where a GPU is and is
# reported as skipped elsewhere. Extended tests over ../shared/data run when that folder exists.
# Then the Python suites (scripts/python_test.sh) where python3 is available.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/build.sh
ctest --test-dir build --output-on-failure -j "${SCIZ_JOBS:-2}"
bash scripts/python_test.sh
