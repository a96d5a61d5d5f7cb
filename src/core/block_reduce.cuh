// One grid-stride pass that leaves a partial per block (cub::BlockReduce) and merges the
// partials on the host in block order: the result does not depend on which block finishes
// first, and a few hundred partials cost nothing to copy. visit(acc, i) folds element i into a
// thread's accumulator; combine must be callable on host and device.
#pragma once
#include <cuda_runtime.h>

#include <cub/block/block_reduce.cuh>

#include <cstdint>
#include <vector>

#include "core/cuda_check.cuh"
#include "core/device.hpp"

namespace sciz::block_reduce {

inline constexpr int kThreads = 256;
inline constexpr int kBlocksPerSm = 8;  // enough resident warps to hide latency; more only adds partials

template <class P, class Visit, class Combine>
__global__ void __launch_bounds__(kThreads) partials_kernel(uint64_t n, P identity, Visit visit, Combine combine,
                                                            P* partial) {
  P acc = identity;
  const uint64_t step = static_cast<uint64_t>(gridDim.x) * blockDim.x;
  for (uint64_t i = static_cast<uint64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += step) visit(acc, i);
  using Reduce = cub::BlockReduce<P, kThreads>;
  __shared__ typename Reduce::TempStorage tmp;
  const P r = Reduce(tmp).Reduce(acc, combine);
  if (threadIdx.x == 0) partial[blockIdx.x] = r;
}

inline unsigned grid_for(uint64_t work) {
  int device = 0, sms = 0;
  SCIZ_CUDA_CHECK(cudaGetDevice(&device));
  SCIZ_CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
  const uint64_t cap = static_cast<uint64_t>(sms > 0 ? sms : 1) * kBlocksPerSm;
  const uint64_t need = (work + kThreads - 1) / kThreads;
  return static_cast<unsigned>(need < 1 ? 1 : (need < cap ? need : cap));
}

// Reduces elements [0, n) on stream s (synchronising it) and returns the merged result.
template <class P, class Visit, class Combine>
P reduce(uint64_t n, P identity, Visit visit, Combine combine, cudaStream_t s, const char* what) {
  const unsigned blocks = grid_for(n);
  dev::Buffer<P> d_partial(blocks, s);
  partials_kernel<P, Visit, Combine><<<blocks, kThreads, 0, s>>>(n, identity, visit, combine, d_partial.get());
  dev::cuda_check(cudaGetLastError(), what, __FILE__, __LINE__);  // what names the reduction that failed
  std::vector<P> h(blocks);
  dev::copy_to_host(h.data(), d_partial.get(), blocks * sizeof(P), s);
  dev::sync(s);
  P r = identity;
  for (const P& p : h) r = combine(r, p);
  return r;
}

}  // namespace sciz::block_reduce
