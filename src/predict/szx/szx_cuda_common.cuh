// What the szx encode and decode kernels share: the warp layout (one warp per data block of
// B <= 128 values, lane l owning values [4 l, 4 l + 4)), vector loads and stores, warp scans,
// the shared staging stride and the launch helpers. Included by szx_encode_cuda.cu and
// szx_decode_cuda.cu only.
#pragma once
#include <algorithm>
#include <cstdint>
#include <limits>
#include <string>
#include <type_traits>

#include "core/cuda_check.cuh"
#include "core/device.hpp"
#include "core/kernel_timer.cuh"
#include "predict/szx/szx.hpp"

namespace sciz::szx::detail {

constexpr int kWarps = 8;  // warps (data blocks in flight) per CTA of the warp kernels
constexpr unsigned kFull = 0xffffffffu;

// Threads per CTA of the CTA-per-block kernels (B > 128): 64 up to 256, else 128. Values per
// thread: a multiple of 4 (so each thread owns whole code bytes) with NT * per_thread >= B.
__host__ __device__ constexpr uint32_t per_thread(uint32_t B, int NT) { return 4 * ((B + 4 * NT - 1) / (4 * NT)); }
static_assert(per_thread(kMaxBlock, 128) * 128 == kMaxBlock);
static_assert(per_thread(256, 64) * 64 == 256);

template <class T>
using KeyOf = std::make_signed_t<typename Traits<T>::U>;

__device__ inline uint32_t block_len(uint64_t n, uint32_t B, uint64_t b) {
  const uint64_t rest = n - b * B;
  return rest < B ? static_cast<uint32_t>(rest) : B;
}

// V (4 or 8) consecutive values of a lane; those past cnt read as NaN, which the encoder's
// min and max skip and its counts mask. Whole vectors where the lane has all V and x is
// 16-byte aligned (V values are then 16 or 32 bytes from an aligned start).
template <int V, class T>
__device__ inline void loadv(const T* __restrict__ p, uint32_t cnt, bool vec, T (&v)[V]) {
  if (vec && cnt == V) {
    constexpr int kPer = 16 / sizeof(T);  // values a 16-byte load
#pragma unroll
    for (int g = 0; g < V; g += kPer) {
      if constexpr (sizeof(T) == 4) {
        const float4 q = *reinterpret_cast<const float4*>(p + g);
        v[g] = q.x, v[g + 1] = q.y, v[g + 2] = q.z, v[g + 3] = q.w;
      } else {
        const double2 q = *reinterpret_cast<const double2*>(p + g);
        v[g] = q.x, v[g + 1] = q.y;
      }
    }
  } else {
#pragma unroll
    for (uint32_t e = 0; e < V; ++e) v[e] = e < cnt ? p[e] : std::numeric_limits<T>::quiet_NaN();
  }
}
template <class T>
__device__ inline void store4(T* __restrict__ p, uint32_t cnt, bool vec, const T (&v)[4]) {
  if (vec && cnt == 4) {
    if constexpr (sizeof(T) == 4) {
      *reinterpret_cast<float4*>(p) = make_float4(v[0], v[1], v[2], v[3]);
    } else {
      reinterpret_cast<double2*>(p)[0] = make_double2(v[0], v[1]);
      reinterpret_cast<double2*>(p)[1] = make_double2(v[2], v[3]);
    }
  } else {
#pragma unroll
    for (uint32_t e = 0; e < 4; ++e)
      if (e < cnt) p[e] = v[e];
  }
}

__device__ inline uint32_t warp_incl_sum(uint32_t x, uint32_t lane) {
#pragma unroll
  for (int d = 1; d < 32; d <<= 1) {
    const uint32_t t = __shfl_up_sync(kFull, x, d);
    if (lane >= static_cast<uint32_t>(d)) x += t;
  }
  return x;
}

// Lets kernel k launch with `bytes` of dynamic shared memory (above 48 KB a kernel must opt
// in; the f64 staging does). The attribute belongs to the current device, so it is set before
// every launch rather than once per process.
template <class Kernel>
void allow_shared_bytes(Kernel k, size_t bytes) {
  SCIZ_CUDA_CHECK(cudaFuncSetAttribute(k, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(bytes)));
}

// Kernel timing under SCIZ_SZX_TIMING (core/kernel_timer.cuh).
struct KernelTimer : sciz::KernelTimer {
  KernelTimer(const char* name, uint64_t field_bytes, cudaStream_t s)
      : sciz::KernelTimer("szx", "SCIZ_SZX_TIMING", name, field_bytes, s) {}
};

// The CTA size for block size B > 128, as a compile-time constant handed to f.
template <class F>
void with_threads(uint32_t B, F&& f) {
  if (B <= 256)
    f(std::integral_constant<int, 64>{});
  else
    f(std::integral_constant<int, 128>{});
}

inline void require_grid(uint64_t nblocks, Status st) {
  SCIZ_REQUIRE(nblocks < (uint64_t(1) << 31), st, "szx: " + std::to_string(nblocks) + " blocks, above the grid limit");
}

}  // namespace sciz::szx::detail
