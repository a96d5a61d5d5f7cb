#!/usr/bin/env bash
# Several GPUs from host memory: a 16 GB field (Isabel tiled 40x10x10) compressed and
# decompressed through the API on one GPU and on two (--devices 0,1), and under a 2 GiB cap;
# every point checked, every stream equal to the one-GPU device stream. For a machine of two
# or more GPUs (kind nvidia-h200-x2), after scripts/gpu_build.sh.
set -u
cd "$(dirname "$0")/.."
out=${1:-build-gpu/multi}
mkdir -p "$out"
FIELD=$(find .devdata -name isabel_TCf25_downsampled5xy_100x100x100.f32 | head -1)
nvidia-smi --query-gpu=name,memory.total --format=csv,noheader
timeout 500 build-gpu/sciz_bench_e2e --field "$FIELD" --dims 100x100x100 --tile 40x10x10 --rel 1e-3 --runs 20 \
  --host-runs 3 --no-pageable --no-cpu-check --pipelines delta,lorenzo --devices 0,1 --gpu-memory 2147483648 \
  --json "$out/multi_16gb.json" 2>&1 | tee "$out/multi_16gb.log"
