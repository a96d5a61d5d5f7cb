// OpenMP thread count and id for the CPU twins, with a serial fallback when OpenMP is absent.
#pragma once
#include <algorithm>
#include <cstdint>
#if defined(_OPENMP)
#include <omp.h>
#endif

namespace sciz {

// Bytes of input below which another thread costs more than it saves. Starting a team takes
// microseconds on an idle host, but a scheduler time slice (milliseconds) when other processes
// hold the cores: on a busy 2-core host a 200 KB field took 25 ms to compress on two threads
// and 1.5 ms on one (bench/small_bench.cpp, docs/PERF_NOTES.md). A team of one is no team:
// regions take `if (nt > 1)`, so small calls never wake (or create) the thread pool.
inline constexpr uint64_t kBytesPerThread = uint64_t{1} << 20;

// Threads to use for work_items independent items covering `bytes` of input: OpenMP's
// maximum, at most one per item and one per kBytesPerThread, at least one.
inline int thread_count(uint64_t work_items, uint64_t bytes = UINT64_MAX) {
  int nt = 1;
#if defined(_OPENMP)
  nt = omp_get_max_threads();
#endif
  const uint64_t by_bytes = bytes / kBytesPerThread;
  return static_cast<int>(
      std::max<uint64_t>(1, std::min<uint64_t>({static_cast<uint64_t>(nt), work_items, by_bytes})));
}

inline int thread_id() {
#if defined(_OPENMP)
  return omp_get_thread_num();
#else
  return 0;
#endif
}

// Threads in the current team (1 outside a parallel region). A region may get fewer threads
// than num_threads asked for: called from the caller's own parallel region with nesting off,
// it gets one. So per-thread shares come from this, never from the count that was asked for.
inline int team_size() {
#if defined(_OPENMP)
  return omp_get_num_threads();
#else
  return 1;
#endif
}

// The calling thread's contiguous share [lo, hi) of n items, in thread order, over the team
// that actually runs (all n items for a team of one).
struct Share {
  uint64_t lo, hi;
};
inline Share thread_share(uint64_t n) {
  const uint64_t t = static_cast<uint64_t>(thread_id()), nt = static_cast<uint64_t>(team_size());
  return {n * t / nt, n * (t + 1) / nt};
}

}  // namespace sciz
