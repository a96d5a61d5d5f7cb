// OpenMP thread count and id for the CPU twins, with a serial fallback when OpenMP is absent.
#pragma once
#include <algorithm>
#include <cstdint>
#if defined(_OPENMP)
#include <omp.h>
#endif

namespace sciz {

// Threads to use for work_items independent items: OpenMP's maximum, at most one per item,
// at least one.
inline int thread_count(uint64_t work_items) {
  int nt = 1;
#if defined(_OPENMP)
  nt = omp_get_max_threads();
#endif
  return static_cast<int>(std::max<uint64_t>(1, std::min<uint64_t>(static_cast<uint64_t>(nt), work_items)));
}

inline int thread_id() {
#if defined(_OPENMP)
  return omp_get_thread_num();
#else
  return 0;
#endif
}

}  // namespace sciz
