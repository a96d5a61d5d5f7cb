#include <gtest/gtest.h>
#include <sciz/sciz.h>

#include <string>
#include <vector>

#include "support/test_data.hpp"

TEST(CApi, RoundTripAndErrors) {
  const uint64_t dims[2] = {30, 70};
  auto x = sciz::test::smooth_field<float>(sciz::Shape{{30, 70}}, 4);
  std::vector<uint8_t> buf(sciz_max_compressed_size(SCIZ_F32, dims, 2));
  uint64_t size = 0;
  ASSERT_EQ(sciz_compress(x.data(), SCIZ_F32, dims, 2, SCIZ_EB_ABS, 0.05, "lorenzo", SCIZ_DEVICE_CPU, buf.data(),
                          buf.size(), &size),
            SCIZ_OK)
      << sciz_last_error();
  std::vector<float> y(x.size());
  ASSERT_EQ(sciz_decompress(buf.data(), size, y.data(), y.size() * 4, SCIZ_DEVICE_CPU), SCIZ_OK);
  EXPECT_EQ(sciz::test::check_bound(x, y, 0.05), "");

  EXPECT_EQ(sciz_compress(x.data(), SCIZ_F32, dims, 2, SCIZ_EB_ABS, -1, nullptr, SCIZ_DEVICE_CPU, buf.data(),
                          buf.size(), &size),
            SCIZ_INVALID_ARGUMENT);
  EXPECT_NE(std::string(sciz_last_error()).find("-1"), std::string::npos) << sciz_last_error();
  EXPECT_EQ(sciz_compress(x.data(), SCIZ_F32, dims, 2, SCIZ_EB_ABS, 0.05, nullptr, SCIZ_DEVICE_CPU, buf.data(), 10,
                          &size),
            SCIZ_BUFFER_TOO_SMALL);
  buf[size / 2] ^= 0x10;
  EXPECT_EQ(sciz_decompress(buf.data(), size, y.data(), y.size() * 4, SCIZ_DEVICE_CPU), SCIZ_CORRUPT_STREAM);
  EXPECT_EQ(sciz_decompress(buf.data(), 3, y.data(), y.size() * 4, SCIZ_DEVICE_CPU), SCIZ_CORRUPT_STREAM);
}

// Without a GPU (or with one) handing back the caches is always allowed, and calls after it
// work as before.
TEST(CApi, ReleasingCachedMemoryIsAlwaysAllowed) {
  EXPECT_EQ(sciz_release_cached_memory(), SCIZ_OK) << sciz_last_error();
  EXPECT_NO_THROW(sciz::release_cached_memory());
  const uint64_t dims[1] = {1000};
  std::vector<float> x(1000, 1.5f);
  std::vector<uint8_t> buf(sciz_max_compressed_size(SCIZ_F32, dims, 1));
  uint64_t size = 0;
  EXPECT_EQ(sciz_compress(x.data(), SCIZ_F32, dims, 1, SCIZ_EB_ABS, 0.01, "lorenzo", SCIZ_DEVICE_CPU, buf.data(),
                          buf.size(), &size),
            SCIZ_OK);
}
