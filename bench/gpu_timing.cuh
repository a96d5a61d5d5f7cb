// What the GPU benchmarks share: a timed row and the CUDA-event timer (median of `runs` runs
// after `warmups` warm-ups, on the default stream).
#pragma once
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "core/cuda_check.cuh"

namespace sciz::bench {

struct Row {
  std::string stage;
  double ms;
  uint64_t basis = 0;           // bytes the GB/s figure counts; 0 = the field
  const char* unit = "codes";   // what `basis` counts, for the json ("codes": 2-byte, "codes8": 1-byte)
};

inline double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.size() % 2 ? v[v.size() / 2] : 0.5 * (v[v.size() / 2 - 1] + v[v.size() / 2]);
}

// Median milliseconds of `body` between two events on the default stream. `prep` runs
// before the start event (resetting counters and the like, not timed).
inline double time_gpu(int warmups, int runs, const std::function<void()>& body,
                       const std::function<void()>& prep = [] {}) {
  cudaEvent_t t0, t1;
  SCIZ_CUDA_CHECK(cudaEventCreate(&t0));
  SCIZ_CUDA_CHECK(cudaEventCreate(&t1));
  std::vector<double> ms;
  for (int i = 0; i < warmups + runs; ++i) {
    prep();
    SCIZ_CUDA_CHECK(cudaEventRecord(t0, nullptr));
    body();
    SCIZ_CUDA_CHECK(cudaEventRecord(t1, nullptr));
    SCIZ_CUDA_CHECK(cudaEventSynchronize(t1));
    float m = 0;
    SCIZ_CUDA_CHECK(cudaEventElapsedTime(&m, t0, t1));
    if (i >= warmups) ms.push_back(m);
  }
  SCIZ_CUDA_CHECK(cudaEventDestroy(t0));
  SCIZ_CUDA_CHECK(cudaEventDestroy(t1));
  return median(ms);
}

}  // namespace sciz::bench
