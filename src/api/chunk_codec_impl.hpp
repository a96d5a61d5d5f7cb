#pragma once
#include <exception>
#include <mutex>

#include "core/omp_threads.hpp"

namespace sciz {

template <class F>
void for_each_chunk(uint64_t n, bool parallel, F&& f) {
  const uint64_t threads = static_cast<uint64_t>(thread_count(UINT64_MAX));
  if (!parallel || threads < 2 || n < threads) {
    for (uint64_t i = 0; i < n; ++i) f(i);
    return;
  }
  std::exception_ptr first;
  std::mutex mu;
#pragma omp parallel for schedule(dynamic, 1)
  for (int64_t i = 0; i < static_cast<int64_t>(n); ++i) {
    {
      std::lock_guard<std::mutex> lock(mu);
      if (first) continue;
    }
    try {
      f(static_cast<uint64_t>(i));
    } catch (...) {
      std::lock_guard<std::mutex> lock(mu);
      if (!first) first = std::current_exception();
    }
  }
  if (first) std::rethrow_exception(first);
}

}  // namespace sciz
