#!/usr/bin/env bash
# Configure (once) and build the Release tree build-gpu on a CUDA machine; the GPU check and
# one-off device runs share it. Logs to $1 (default build-gpu/build.log).
set -u
cd "$(dirname "$0")/.."
export PATH=$PATH:/usr/local/cuda/bin
log=${1:-build-gpu/build.log}
mkdir -p build-gpu "$(dirname "$log")"
cfg=(-G Ninja -DCMAKE_BUILD_TYPE=Release)
# CMake < 3.26 knows no C++20 flag for nvcc; naming it is harmless where CMake knows it.
cfg+=(-DCMAKE_CUDA20_STANDARD_COMPILE_OPTION=-std=c++20 -DCMAKE_CUDA20_EXTENSION_COMPILE_OPTION=-std=c++20)
[ -d .deps/googletest ] && cfg+=("-DSCIZ_GTEST_SRC=$PWD/.deps/googletest")
[ -f build-gpu/build.ninja ] || cmake -S . -B build-gpu "${cfg[@]}" > "$log" 2>&1 || { tail -40 "$log"; exit 1; }
ninja -C build-gpu -j"$(nproc)" >> "$log" 2>&1 || { grep -B2 -A20 -m3 "FAILED\|error" "$log" | head -80; exit 1; }
