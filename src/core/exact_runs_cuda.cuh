// The scatter of device-parsed exact runs (exact_runs_cuda.hpp) as a template, for codecs whose
// run indices are not field positions (delta's serpentine chain maps a chain index to a field
// index). Include from .cu files only.
//
// Work is balanced over entries, not runs: a warp takes a tile of kScatterTile consecutive
// entries, finds the runs holding its first and last entry by binary search over the runs'
// entry offsets (DeviceRuns::first), and each lane finds its entry's run inside that window.
// A land mask of 10^6 values is one run spread over thousands of warps; 10^6 single-value
// runs cost each lane a search over at most kScatterTile runs.
#pragma once
#include <cstdint>

#include "core/cuda_check.cuh"
#include "core/device_status.hpp"
#include "core/exact_runs_cuda.hpp"

namespace sciz::runs {

namespace detail {

inline constexpr int kScatterThreads = 256;
inline constexpr uint64_t kScatterTile = 256;  // entries per warp and step

// Blocks for a scatter grid: enough to fill the device (the entry count is known only there).
int scatter_blocks();

// The run holding entry j: the last k < nruns with first[k] <= j (first[0] = 0, ascending).
__device__ inline uint64_t run_of(const uint64_t* first, uint64_t lo, uint64_t hi, uint64_t j) {
  while (hi - lo > 1) {
    const uint64_t mid = lo + (hi - lo) / 2;
    if (first[mid] <= j) lo = mid;
    else hi = mid;
  }
  return lo;
}

template <class T, class Map>
__global__ void __launch_bounds__(kScatterThreads) scatter_kernel(const uint64_t* start, const uint64_t* first,
                                                                  const T* value, const uint64_t* count,
                                                                  const DeviceStatus* st, T* out, Map map) {
  if (failed(st)) return;
  const uint64_t nruns = count[0], entries = count[1];
  const uint64_t warps = uint64_t(gridDim.x) * (kScatterThreads / 32);
  const uint64_t warp = (uint64_t(blockIdx.x) * kScatterThreads + threadIdx.x) / 32;
  const unsigned lane = threadIdx.x % 32;
  for (uint64_t t0 = warp * kScatterTile; t0 < entries; t0 += warps * kScatterTile) {
    const uint64_t t1 = entries - t0 < kScatterTile ? entries : t0 + kScatterTile;
    const uint64_t lo = run_of(first, 0, nruns, t0);        // same address on every lane
    const uint64_t hi = run_of(first, lo, nruns, t1 - 1) + 1;
    for (uint64_t j = t0 + lane; j < t1; j += 32) {
      const uint64_t k = run_of(first, lo, hi, j);
      out[map(start[k] + (j - first[k]))] = value[k];
    }
  }
}

}  // namespace detail

// Map: a copyable functor with `__device__ uint64_t operator()(uint64_t index) const` -> output
// position. Writes runs.value[k] at d_out[map(i)] for every index i of every run k, unless st
// holds a failure (read on the device). No synchronization.
template <class T, class Map>
void scatter_device_mapped(const DeviceRuns<T>& runs, T* d_out, const DeviceStatus* st, Map map, cudaStream_t s) {
  if (runs.capacity == 0) return;  // no run fits: parse_device failed on the header
  detail::scatter_kernel<T, Map><<<detail::scatter_blocks(), detail::kScatterThreads, 0, s>>>(
      runs.start.get(), runs.first.get(), runs.value.get(), runs.count.get(), st, d_out, map);
  SCIZ_CUDA_CHECK_LAUNCH("scatter_kernel (exact runs)");
}

}  // namespace sciz::runs
