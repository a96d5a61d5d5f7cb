// Launch helpers the stage kernels share (CUDA sources only).
#pragma once
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>

#include "core/device_status.hpp"
#include "lossless/codes/device_check.cuh"

namespace sciz::stages::cuda {

inline constexpr int kThreads = 256;
inline constexpr uint64_t kMaxGrid = 1u << 20;  // grid-stride beyond this

inline unsigned grid_for(uint64_t items, uint64_t per_cta) {
  const uint64_t g = (items + per_cta - 1) / per_cta;
  return static_cast<unsigned>(std::clamp<uint64_t>(g, 1, kMaxGrid));
}

// Block 0 writes the 8 header bytes of an encoded blob (no host copy, so no synchronization).
__device__ inline void write_header_bytes(uint8_t* dst, uint64_t header) {
  if (dst != nullptr && blockIdx.x == 0 && threadIdx.x < 8) dst[threadIdx.x] = static_cast<uint8_t>(header >> (8 * threadIdx.x));
}

}  // namespace sciz::stages::cuda
