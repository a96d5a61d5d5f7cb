// Internal to the BIT CUDA twin (CUDA sources only): its kernels, shared with the fused
// TCMS + BIT kernels of tcms_bit_cuda.cu.
#pragma once
#include <cuda_runtime.h>

#include <cstdint>

#include "lossless/codes/device_check.cuh"
#include "lossless/stages/bitshuffle_math.hpp"
#include "lossless/stages/framing.hpp"
#include "lossless/stages/stage_cuda.cuh"

namespace sciz::stages::cuda {
namespace {

// 4k bytes at p (aligned to A) <-> words w[0, k).
template <int A>
__device__ void load_words(const uint8_t* p, uint32_t* w, int k) {
  if constexpr (A == 16) {
    for (int i = 0; i < k / 4; ++i) {
      const uint4 v = reinterpret_cast<const uint4*>(p)[i];
      w[4 * i] = v.x, w[4 * i + 1] = v.y, w[4 * i + 2] = v.z, w[4 * i + 3] = v.w;
    }
  } else if constexpr (A == 8) {
    for (int i = 0; i < k / 2; ++i) {
      const uint2 v = reinterpret_cast<const uint2*>(p)[i];
      w[2 * i] = v.x, w[2 * i + 1] = v.y;
    }
  } else {
    for (int i = 0; i < k; ++i) w[i] = reinterpret_cast<const uint32_t*>(p)[i];
  }
}

template <int A>
__device__ void store_words(uint8_t* p, const uint32_t* w, int k) {
  if constexpr (A == 16) {
    for (int i = 0; i < k / 4; ++i) reinterpret_cast<uint4*>(p)[i] = make_uint4(w[4 * i], w[4 * i + 1], w[4 * i + 2], w[4 * i + 3]);
  } else if constexpr (A == 8) {
    for (int i = 0; i < k / 2; ++i) reinterpret_cast<uint2*>(p)[i] = make_uint2(w[2 * i], w[2 * i + 1]);
  } else {
    for (int i = 0; i < k; ++i) reinterpret_cast<uint32_t*>(p)[i] = w[i];
  }
}

// The first `full` blocks. A: alignment of the symbols' side (in when shuffling, out when not);
// the planes' side is 4-byte aligned.
template <int W, bool Forward, int A>
__global__ void __launch_bounds__(kThreads)
    bit_full_kernel(const uint8_t* __restrict__ in, uint8_t* __restrict__ out, uint64_t full, uint64_t header,
                    uint8_t* header_dst, const DeviceStatus* st) {
  if (check::gate(st)) return;
  write_header_bytes(header_dst, header);
  constexpr uint32_t g = kBlockBytes / (8 * W);  // groups of a full block
  constexpr uint32_t per_block = g / 4;          // threads of a block
  const uint64_t total = full * per_block;
  for (uint64_t i = static_cast<uint64_t>(blockIdx.x) * kThreads + threadIdx.x; i < total;
       i += static_cast<uint64_t>(gridDim.x) * kThreads) {
    const uint64_t at = i / per_block * kBlockBytes;
    const uint32_t t = static_cast<uint32_t>(i % per_block);
    uint32_t a[8 * W], b[8 * W];
    if constexpr (Forward) {
      load_words<A>(in + at + 32 * W * t, a, 8 * W);
      shuffle32<W>(a, b);
      SCIZ_UNROLL
      for (int p = 0; p < 8 * W; ++p) *reinterpret_cast<uint32_t*>(out + at + p * g + 4 * t) = b[p];
    } else {
      SCIZ_UNROLL
      for (int p = 0; p < 8 * W; ++p) a[p] = *reinterpret_cast<const uint32_t*>(in + at + p * g + 4 * t);
      unshuffle32<W>(a, b);
      store_words<A>(out + at + 32 * W * t, b, 8 * W);
    }
  }
}

// Blocks first.. of n bytes: any alignment, any block size. Byte i of the stage's input is
// in[i - in_skip], of its output out[i - out_skip] (a caller holding only the last blocks).
template <bool Forward>
__global__ void __launch_bounds__(kThreads)
    bit_kernel(const uint8_t* __restrict__ in, uint8_t* __restrict__ out, uint64_t n, uint64_t first, int w,
               uint64_t header, uint8_t* header_dst, const DeviceStatus* st, uint64_t in_skip = 0,
               uint64_t out_skip = 0) {
  if (check::gate(st)) return;
  write_header_bytes(header_dst, header);
  __shared__ uint8_t a[kBlockBytes], b[kBlockBytes];
  const uint64_t blocks = block_count(n);
  for (uint64_t blk = first + blockIdx.x; blk < blocks; blk += gridDim.x) {
    const uint64_t at = blk * kBlockBytes;
    const uint32_t bytes = block_size(n, blk);
    for (uint32_t i = threadIdx.x; i < bytes; i += kThreads) a[i] = in[at - in_skip + i];
    __syncthreads();
    const uint32_t m8 = shuffled_symbols(bytes, w), g = m8 / 8, items = g * static_cast<uint32_t>(w);
    for (uint32_t it = threadIdx.x; it < items; it += kThreads) {  // consecutive threads: consecutive plane bytes
      const int q = static_cast<int>(it / g);
      const uint32_t j = it % g;
      if (Forward) shuffle_group(a, b, w, g, j, q);
      else unshuffle_group(a, b, w, g, j, q);
    }
    for (uint32_t i = m8 * static_cast<uint32_t>(w) + threadIdx.x; i < bytes; i += kThreads) b[i] = a[i];
    __syncthreads();
    for (uint32_t i = threadIdx.x; i < bytes; i += kThreads) out[at - out_skip + i] = b[i];
    __syncthreads();
  }
}

}  // namespace
}  // namespace sciz::stages::cuda
