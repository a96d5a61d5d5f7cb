// Opt-in phase timing: SCIZ_TRACE=1 prints each phase's wall time to stderr. Phases on a GPU
// stream synchronize at their end only when tracing, so the figures attribute device time to
// the phase that queued it, while untraced runs keep their asynchrony.
#pragma once
#include <chrono>
#include <cstdio>
#include <cstdlib>

#include "core/cuda_fwd.hpp"
#include "core/device.hpp"

namespace sciz {

inline bool trace_enabled() {
  static const bool on = [] {
    const char* v = std::getenv("SCIZ_TRACE");
    return v && *v && *v != '0';
  }();
  return on;
}

class TracePhase {
 public:
  explicit TracePhase(const char* what, bool gpu = false, cudaStream_t s = nullptr)
      : what_(what), gpu_(gpu), s_(s), t0_(std::chrono::steady_clock::now()) {}
  ~TracePhase() {
    if (!trace_enabled()) return;
    if (gpu_) {
      try {
        dev::sync(s_);
      } catch (...) {
      }
    }
    const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0_).count();
    std::fprintf(stderr, "sciz trace: %-36s %9.3f ms\n", what_, ms);
  }
  TracePhase(const TracePhase&) = delete;
  TracePhase& operator=(const TracePhase&) = delete;

 private:
  const char* what_;
  bool gpu_;
  cudaStream_t s_;
  std::chrono::steady_clock::time_point t0_;
};

}  // namespace sciz
