#include "core/host_memory.hpp"

#include <algorithm>
#include <cstdint>
#include <cstring>

#include "core/omp_threads.hpp"

#if defined(__linux__)
#include <sys/mman.h>
#endif

namespace sciz {

void advise_huge_pages(void* p, size_t bytes) noexcept {
#if defined(__linux__) && defined(MADV_HUGEPAGE)
  constexpr uintptr_t kPage = 4096;
  if (bytes < (size_t{4} << 20) || p == nullptr) return;
  const uintptr_t lo = (reinterpret_cast<uintptr_t>(p) + kPage - 1) & ~(kPage - 1);
  const uintptr_t hi = (reinterpret_cast<uintptr_t>(p) + bytes) & ~(kPage - 1);
  if (hi > lo) (void)madvise(reinterpret_cast<void*>(lo), hi - lo, MADV_HUGEPAGE);  // advice only: failure is harmless
#else
  (void)p;
  (void)bytes;
#endif
}

void prefault(void* p, size_t bytes) noexcept {
#if defined(__linux__) && defined(MADV_POPULATE_WRITE)
  constexpr uintptr_t kPage = 4096, kPiece = uintptr_t{4} << 20;
  if (bytes < (size_t{4} << 20) || p == nullptr) return;
  const uintptr_t lo = (reinterpret_cast<uintptr_t>(p) + kPage - 1) & ~(kPage - 1);
  const uintptr_t hi = (reinterpret_cast<uintptr_t>(p) + bytes) & ~(kPage - 1);
  if (hi <= lo) return;
  const int64_t n = static_cast<int64_t>((hi - lo + kPiece - 1) / kPiece);
  const int nt = thread_count(static_cast<uint64_t>(n), bytes);
#pragma omp parallel for schedule(static) num_threads(nt) if (nt > 1)
  for (int64_t i = 0; i < n; ++i) {
    const uintptr_t a = lo + static_cast<uintptr_t>(i) * kPiece, b = std::min(hi, a + kPiece);
    (void)madvise(reinterpret_cast<void*>(a), b - a, MADV_POPULATE_WRITE);  // a kernel without it: EINVAL, harmless
  }
#else
  (void)p;
  (void)bytes;
#endif
}

void grow_fresh(std::vector<unsigned char>& v, size_t n, size_t keep) {
  if (n <= v.capacity()) {
    v.resize(n);
    return;
  }
  std::vector<unsigned char> w;
  reserve_large(w, n);
  w.resize(n);
  if (keep) std::memcpy(w.data(), v.data(), keep);
  v.swap(w);
}

void parallel_copy(void* dst, const void* src, size_t bytes) {
  constexpr size_t kSlice = size_t{1} << 20;
  const int64_t n = static_cast<int64_t>((bytes + kSlice - 1) / kSlice);
  const int nt = thread_count(static_cast<uint64_t>(n), bytes);
#pragma omp parallel for schedule(static) num_threads(nt) if (nt > 1)
  for (int64_t i = 0; i < n; ++i) {
    const size_t at = static_cast<size_t>(i) * kSlice;
    std::memcpy(static_cast<char*>(dst) + at, static_cast<const char*>(src) + at, std::min(kSlice, bytes - at));
  }
}

}  // namespace sciz
