#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "core/checksum.hpp"

// Reference digests from the reference implementation (python-xxhash), covering the empty
// input, the tail paths (1 and 3 bytes), and the 32-byte stripe loop.
TEST(Xxh64, MatchesReferenceDigests) {
  EXPECT_EQ(sciz::xxh64("", 0), 0xef46db3751d8e999ull);
  EXPECT_EQ(sciz::xxh64("a", 1), 0xd24ec4f1a98c6e5bull);
  EXPECT_EQ(sciz::xxh64("abc", 3), 0x44bc2cf5ad770999ull);
  const std::string s37 = "0123456789abcdefghijklmnopqrstuvwxyz!";
  EXPECT_EQ(sciz::xxh64(s37.data(), s37.size()), 0xdde9d7f125de8f22ull);
  std::vector<unsigned char> b;
  for (int r = 0; r < 3; ++r)
    for (int i = 0; i < 256; ++i) b.push_back(static_cast<unsigned char>(i));
  EXPECT_EQ(sciz::xxh64(b.data(), b.size()), 0x8e03c838c596036full);
}

// An empty section's span has a null data pointer. The tail loop used to form `p + 8` from it:
// undefined behaviour that only the sanitizer build (.ci/run) reports, found by fuzz_container.
TEST(Xxh64, EmptyRangeAtNullPointer) {
  EXPECT_EQ(sciz::xxh64(nullptr, 0), 0xef46db3751d8e999ull);
  EXPECT_EQ(sciz::chunked_xxh64(nullptr, 0, sciz::kDigestBlockV4), sciz::chunked_xxh64("", 0, sciz::kDigestBlockV4));
}

// The chunked digest is xxh64 over the chunks' xxh64 digests (little-endian u64), whatever the
// thread count: checked against that definition written out serially, across chunk edges.
TEST(Xxh64, ChunkedDigestIsTheDigestOfChunkDigests) {
  const size_t C = sciz::kChecksumChunk;
  std::vector<unsigned char> b(3 * C + 12345);
  for (size_t i = 0; i < b.size(); ++i) b[i] = static_cast<unsigned char>((i * 2654435761u) >> 11);
  for (size_t len : {size_t{0}, size_t{1}, C - 1, C, C + 1, 2 * C, b.size()}) {
    std::vector<unsigned char> d;
    for (size_t at = 0; at < len; at += C) {
      const uint64_t h = sciz::xxh64(b.data() + at, std::min(C, len - at));
      for (int k = 0; k < 8; ++k) d.push_back(static_cast<unsigned char>(h >> (8 * k)));
    }
    EXPECT_EQ(sciz::chunked_xxh64(b.data(), len), sciz::xxh64(d.data(), d.size())) << len;
  }
  EXPECT_EQ(sciz::chunked_xxh64("", 0), sciz::xxh64("", 0));  // no chunk: the digest of nothing
  auto c = b;
  c[2 * C + 7] ^= 1;  // one bit in the third chunk
  EXPECT_NE(sciz::chunked_xxh64(c.data(), c.size()), sciz::chunked_xxh64(b.data(), b.size()));
}
