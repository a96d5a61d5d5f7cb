#include <gtest/gtest.h>

#include "support/test_data.hpp"

using namespace sciz;

TEST(LorenzoCpu, SmoothRoundtrip3D) {
  Shape s{{20, 33, 47}};
  auto x = test::smooth_field<float>(s, 1);
  CompressOptions o;
  o.eb = {EbMode::abs, 1e-2};
  o.device = Device::cpu;
  auto st = compress({x.data(), DType::f32, s}, o);
  std::vector<float> y(x.size());
  decompress(st, y.data(), y.size() * 4, Device::cpu);
  EXPECT_EQ(test::check_bound(x, y, 1e-2), "");
  EXPECT_LT(st.size(), x.size() * 4);
}
