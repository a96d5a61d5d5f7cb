// The sparse readers are the last line of defence behind the checksums (a crafted stream can
// carry valid checksums): hostile counts, indices and runs must be refused, never followed.
#include <gtest/gtest.h>

#include <limits>

#include "core/exact_runs.hpp"
#include "core/sparse_io.hpp"

using namespace sciz;

TEST(SparseIo, RoundTripAndNarrowIndices) {
  std::vector<uint64_t> idx{0, 5, 6, 99};
  std::vector<int32_t> val{-7, 100000, 3, -1};
  auto b = write_sparse(idx, val, 100);
  std::vector<uint64_t> i2;
  std::vector<int32_t> v2;
  read_sparse(b, 100, "t", i2, v2);
  EXPECT_EQ(i2, idx);
  EXPECT_EQ(v2, val);
  EXPECT_EQ(b.size(), 16u + 4 * 4 + 4 * 4);
}

// No outliers: the values vector stays empty (null data()), and copying zero bytes into it was
// undefined behaviour the sanitizer build reports (found by fuzz_decompress and fuzz_chunk).
TEST(SparseIo, EmptyListIntoEmptyVectors) {
  const auto b = write_sparse(std::vector<uint64_t>{}, std::vector<double>{}, 100);
  std::vector<uint64_t> i2;
  std::vector<double> v2;
  read_sparse(b, 100, "t", i2, v2);
  EXPECT_TRUE(i2.empty());
  EXPECT_TRUE(v2.empty());
}

TEST(SparseIo, RefusesOutOfRangeUnorderedAndOversizedLists) {
  std::vector<int32_t> val{1, 2};
  std::vector<uint64_t> i2;
  std::vector<int32_t> v2;
  EXPECT_THROW(read_sparse(write_sparse(std::vector<uint64_t>{3, 100}, val, 1000), 100, "t", i2, v2), Error);
  EXPECT_THROW(read_sparse(write_sparse(std::vector<uint64_t>{5, 5}, val, 1000), 1000, "t", i2, v2), Error);
  EXPECT_THROW(read_sparse(write_sparse(std::vector<uint64_t>{6, 5}, val, 1000), 1000, "t", i2, v2), Error);
  auto b = write_sparse(std::vector<uint64_t>{1, 2}, val, 1000);
  uint64_t huge = 1ull << 60;
  std::memcpy(b.data(), &huge, 8);
  EXPECT_THROW(read_sparse(b, 1ull << 62, "t", i2, v2), Error);
}

TEST(ExactRuns, RoundTripsMasksAndScatteredValues) {
  std::vector<uint64_t> idx;
  std::vector<float> val;
  const float nan = std::numeric_limits<float>::quiet_NaN();
  for (uint64_t i = 100; i < 5000; ++i) {
    idx.push_back(i);
    val.push_back(nan);
  }
  for (uint64_t i = 6000; i < 9000; i += 7) {
    idx.push_back(i);
    val.push_back(static_cast<float>(i) * 1.5f);
  }
  auto b = write_runs(idx, val);
  std::vector<uint64_t> i2;
  std::vector<float> v2;
  read_runs(b, 10000, "t", i2, v2);
  ASSERT_EQ(i2, idx);
  ASSERT_EQ(0, std::memcmp(v2.data(), val.data(), val.size() * 4));
  EXPECT_THROW(read_runs(b, idx.back(), "t", i2, v2), Error);  // last run leaves the field

  std::vector<uint64_t> mask_idx(idx.begin(), idx.begin() + 4900);
  std::vector<float> mask_val(4900, nan);
  EXPECT_LT(write_runs(mask_idx, mask_val).size(), 40u);  // one run, palette of one
}

TEST(ExactRuns, RefusesHostileHeadersAndTruncation) {
  std::vector<uint64_t> idx{1, 2, 3, 10};
  std::vector<double> val{1.0, 1.0, 1.0, 2.0};
  const auto good = write_runs(idx, val);
  std::vector<uint64_t> i2;
  std::vector<double> v2;
  for (size_t len = 0; len < good.size(); ++len)
    EXPECT_THROW(read_runs(std::span<const uint8_t>(good.data(), len), 100, "t", i2, v2), Error) << len;
  auto bad = good;
  const uint64_t many = 1ull << 50;
  std::memcpy(bad.data() + 8, &many, 8);  // run count far beyond the section
  EXPECT_THROW(read_runs(bad, 1ull << 52, "t", i2, v2), Error);
  bad = good;
  bad[16] = 7;  // unknown value mode
  EXPECT_THROW(read_runs(bad, 100, "t", i2, v2), Error);
  bad = good;
  bad.push_back(0);
  EXPECT_THROW(read_runs(bad, 100, "t", i2, v2), Error);
}
