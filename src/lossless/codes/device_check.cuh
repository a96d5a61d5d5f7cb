// Device-side helpers of the decoders that validate sections on the GPU (device_status.hpp):
// byte-wise little-endian reads for headers at any address, the block-uniform "has an earlier
// check failed" gate every writing kernel opens with, and a report made from the host (for
// sizes the host can already judge) that stays in stream order with the kernels' own reports.
#pragma once
#include <cuda_runtime.h>

#include <cstdint>

#include "core/cuda_check.cuh"
#include "core/device_status.hpp"

namespace sciz::check {

// Little-endian value of `bytes` (<= 8) bytes at p, any alignment.
__device__ inline uint64_t load_le(const uint8_t* p, int bytes) {
  uint64_t v = 0;
  for (int i = 0; i < bytes; ++i) v |= static_cast<uint64_t>(p[i]) << (8 * i);
  return v;
}

// Whether st holds a failure, read once for the whole CTA. Every thread must call it.
__device__ inline bool block_failed(const DeviceStatus* st) {
  __shared__ int s_failed;
  if (threadIdx.x == 0) s_failed = failed(st);
  __syncthreads();
  const bool f = s_failed != 0;
  __syncthreads();  // s_failed may be reused by the caller's next call
  return f;
}

// A count or value a kernel needs, known to the host (a launch parameter) or only on the device
// (read from a header a kernel parsed). Kernels templated on these serve both callers.
struct HostValue {
  uint64_t v;
  __device__ uint64_t operator()() const { return v; }
};
struct DeviceValue {
  const uint64_t* p;
  __device__ uint64_t operator()() const { return *p; }
};

// Every thread of the CTA returns when st (nullable) holds a failure.
__device__ inline bool gate(const DeviceStatus* st) { return st != nullptr && block_failed(st); }

namespace detail {
static __global__ void report_kernel(DeviceStatus* st, uint32_t code, uint32_t where, uint64_t a, uint64_t b) {
  report(st, code, where, a, b);
}
}  // namespace detail

// A report queued on s: kernels queued after it see it, so nothing after a refusal runs.
inline void report_from_host(DeviceStatus* st, uint32_t code, uint32_t where, uint64_t a, uint64_t b, cudaStream_t s) {
  detail::report_kernel<<<1, 1, 0, s>>>(st, code, where, a, b);
  SCIZ_CUDA_CHECK_LAUNCH("report_kernel");
}

// Resident CTAs of `kernel` at `threads` and `smem` bytes over the whole device, capped at
// `want` (at least 1): the grid of a grid-stride kernel whose real extent is on the device.
template <class Kernel>
unsigned resident_grid(Kernel kernel, int threads, size_t smem, uint64_t want) {
  int dev = 0, sms = 0, per_sm = 0;
  SCIZ_CUDA_CHECK(cudaGetDevice(&dev));
  SCIZ_CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev));
  SCIZ_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, threads, smem));
  const uint64_t resident = static_cast<uint64_t>(sms > 0 ? sms : 1) * static_cast<uint64_t>(per_sm > 0 ? per_sm : 1);
  const uint64_t g = want < resident ? want : resident;
  return static_cast<unsigned>(g > 0 ? g : 1);
}

}  // namespace sciz::check
