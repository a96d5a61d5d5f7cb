// Page advice and prefaulting change where a buffer's first touch is paid, never its bytes.
#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "core/host_memory.hpp"

using namespace sciz;

// Over bytes already written, on an unaligned range that ends inside a page: the pages faulted
// in for writing keep what they hold (MADV_DONTNEED in its place would zero them).
TEST(HostMemory, PrefaultKeepsTheBytes) {
  std::vector<uint8_t> v((size_t{16} << 20) + 123);
  for (size_t i = 0; i < v.size(); ++i) v[i] = static_cast<uint8_t>(i * 2654435761u >> 13);
  const std::vector<uint8_t> want = v;
  prefault(v.data() + 3, v.size() - 7);
  prefault(v.data(), v.size());
  EXPECT_TRUE(v == want);
}

// The way write_file uses it: reserved, prefaulted, then sized (zero-filled) and written.
TEST(HostMemory, PrefaultedFreshBufferIsZeroFilledAndWritable) {
  const size_t n = (size_t{8} << 20) + 4097;
  std::vector<uint8_t> v;
  v.reserve(n);
  prefault(v.data(), n);
  v.resize(n);
  size_t nonzero = 0;
  for (uint8_t b : v) nonzero += b != 0;
  EXPECT_EQ(nonzero, 0u);
  for (size_t i = 0; i < n; i += 4096) v[i] = 7;
  EXPECT_EQ(v[n - 4097], 7);
  prefault(nullptr, n);  // nothing to fault: a no-op
  prefault(v.data(), 100);
}
