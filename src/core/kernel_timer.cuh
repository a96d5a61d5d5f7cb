// Opt-in kernel timing, informational only: when the codec's environment variable is set (e.g.
// SCIZ_SZX_TIMING), the time between construction and stop() (CUDA events on the stream) and
// the field bytes per second go to stderr. Tests print it next to their results; benchmarks
// time calls themselves.
#pragma once
#include <cuda_runtime.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>

#include "core/cuda_check.cuh"

namespace sciz {

class KernelTimer {
 public:
  // tag: the codec as printed ("szx"); env: the variable that turns timing on.
  KernelTimer(const char* tag, const char* env, const char* name, uint64_t field_bytes, cudaStream_t s)
      : tag_(tag), name_(name), bytes_(field_bytes), s_(s) {
    if (!std::getenv(env)) return;
    SCIZ_CUDA_CHECK(cudaEventCreate(&a_));
    SCIZ_CUDA_CHECK(cudaEventCreate(&b_));
    SCIZ_CUDA_CHECK(cudaEventRecord(a_, s_));
  }
  void stop() {
    if (!a_) return;
    SCIZ_CUDA_CHECK(cudaEventRecord(b_, s_));
    SCIZ_CUDA_CHECK(cudaEventSynchronize(b_));
    float ms = 0;
    SCIZ_CUDA_CHECK(cudaEventElapsedTime(&ms, a_, b_));
    std::fprintf(stderr, "[%s cuda timing, informational] %s: %.3f ms, %.1f GB/s of field\n", tag_, name_, ms,
                 static_cast<double>(bytes_) / (ms * 1e6));
  }
  ~KernelTimer() {
    if (a_) cudaEventDestroy(a_);
    if (b_) cudaEventDestroy(b_);
  }
  KernelTimer(const KernelTimer&) = delete;
  KernelTimer& operator=(const KernelTimer&) = delete;

 private:
  const char *tag_, *name_;
  uint64_t bytes_;
  cudaStream_t s_;
  cudaEvent_t a_ = nullptr, b_ = nullptr;
};

}  // namespace sciz
