// The device scatter of exact-value runs, templated on an index map for codecs whose indices
// are not field positions (delta's serpentine chain). Include from .cu files only.
#pragma once
#include <algorithm>

#include "core/cuda_check.cuh"
#include "core/exact_runs_cuda.hpp"

namespace sciz::runs {

// A CTA per run (grid-stride over runs), its threads over the run: a land mask of a few long
// runs and a scatter of many single values both keep every CTA busy.
template <class T, class Map>
__global__ void scatter_runs_kernel(const uint64_t* __restrict__ start, const uint64_t* __restrict__ length,
                                    const T* __restrict__ value, const uint64_t* __restrict__ count,
                                    T* __restrict__ out, const DeviceStatus* st, Map map) {
  if (failed(st)) return;
  const uint64_t nr = count[0];
  for (uint64_t r = blockIdx.x; r < nr; r += gridDim.x) {
    const uint64_t s0 = start[r], len = length[r];
    const T v = value[r];
    for (uint64_t i = threadIdx.x; i < len; i += blockDim.x) out[map(s0 + i)] = v;
  }
}

template <class T, class Map>
void scatter_device_mapped(const DeviceRuns<T>& runs, T* d_out, const DeviceStatus* st, Map map, cudaStream_t s) {
  if (runs.capacity == 0) return;
  const unsigned grid = static_cast<unsigned>(std::min<uint64_t>(runs.capacity, 2048));
  scatter_runs_kernel<T, Map><<<grid, 128, 0, s>>>(runs.start.get(), runs.length.get(), runs.value.get(),
                                                   runs.count.get(), d_out, st, map);
  SCIZ_CUDA_CHECK_LAUNCH("scatter_runs_kernel");
}

}  // namespace sciz::runs
