#!/usr/bin/env bash
# Build, then compress + decompress + evaluate a bundled cut of a real field (Hurricane
# Isabel temperature, 20x50x50 float32) at a relative bound of 1e-3.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/build.sh
./build/sciz eval -i tests/fixtures/isabel_cut_20x50x50.f32 -t f32 -d 20x50x50 -r 1e-3 "$@"
