// xxHash64 over host memory: the arithmetic is core/xxh64_math.hpp, shared with the GPU.
#include "core/checksum.hpp"

#include <vector>

#include "core/omp_threads.hpp"
#include "core/xxh64_math.hpp"

namespace sciz {

uint64_t xxh64(const void* data, size_t len, uint64_t seed) { return xxh::hash(data, len, seed); }

uint64_t chunked_xxh64(const void* data, size_t len, size_t block) {
  const auto* p = static_cast<const unsigned char*>(data);
  const int64_t chunks = static_cast<int64_t>((len + block - 1) / block);
  std::vector<unsigned char> digests(static_cast<size_t>(chunks) * 8);
  const int nt = thread_count(static_cast<uint64_t>(chunks), len);
  auto digest = [&](int64_t c) {
    const size_t at = static_cast<size_t>(c) * block;
    const uint64_t d = xxh64(p + at, len - at < block ? len - at : block);
    for (int b = 0; b < 8; ++b) digests[static_cast<size_t>(c) * 8 + b] = static_cast<unsigned char>(d >> (8 * b));
  };
  // One thread: no OpenMP region at all (even a region that starts no thread allocates and
  // frees a team, a microsecond on each of a small stream's three sections).
  if (nt == 1) {
    for (int64_t c = 0; c < chunks; ++c) digest(c);
  } else {
#pragma omp parallel for schedule(static) num_threads(nt)
    for (int64_t c = 0; c < chunks; ++c) digest(c);
  }
  return xxh64(digests.data(), digests.size());
}

}  // namespace sciz
