// Launch helpers the stage kernels share (CUDA sources only).
#pragma once
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>

#include "core/device_status.hpp"
#include "core/launch_grid.hpp"
#include "lossless/codes/device_check.cuh"

namespace sciz::stages::cuda {

inline constexpr int kThreads = 256;
using gpu::grid_for;  // core/launch_grid.hpp
using gpu::kMaxGrid;

// Block 0 writes the 8 header bytes of an encoded blob (no host copy, so no synchronization).
__device__ inline void write_header_bytes(uint8_t* dst, uint64_t header) {
  if (dst != nullptr && blockIdx.x == 0 && threadIdx.x < 8) dst[threadIdx.x] = static_cast<uint8_t>(header >> (8 * threadIdx.x));
}

}  // namespace sciz::stages::cuda
