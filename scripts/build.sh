#!/usr/bin/env bash
# Configure and build (Release) into ./build; CUDA twins too when nvcc is on the PATH.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/bootstrap.sh
jobs=${SCIZ_JOBS:-2}
gen=(); command -v ninja >/dev/null && gen=(-G Ninja)
if command -v nvcc >/dev/null 2>&1 || [ -x /usr/local/cuda/bin/nvcc ]; then
  export PATH="$PATH:/usr/local/cuda/bin"
fi
cmake -S . -B build "${gen[@]}" -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build build -j "$jobs"
