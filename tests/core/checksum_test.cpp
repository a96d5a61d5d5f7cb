#include <gtest/gtest.h>

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
